//! What a run of a GGUF checkpoint holding a type no numeric run reads
//! (Q4_K, Q6_K…) does: it traces shapes only, or, when it needs numbers,
//! is refused naming the tensor and its type.

use crate::config::ModelConfig;
use crate::plan::{ModeChoice, Request};
use crate::weights::{Checkpoint, WeightsError};

impl Checkpoint {
    /// For a GGUF file holding a type no numeric run reads (Q4_K, Q6_K…):
    /// the run traces shapes only, once the file's shapes are checked
    /// against `cfg`, and `req` says so in a note; `Ok(true)` then, and no
    /// weights are loaded. `Ok(false)` for any other checkpoint.
    ///
    /// # Errors
    /// [`super::GgufError::Quantized`] naming the tensor and its type when
    /// `req` needs numbers (token ids, an input, the output, `--numeric`);
    /// a mismatch as [`Checkpoint::fits`] gives it.
    pub fn shapes_only(
        &self,
        cfg: &ModelConfig,
        req: &mut Request,
        fill: crate::weights::Fill,
    ) -> Result<bool, WeightsError> {
        let Some(refusal) = self.unreadable() else {
            return Ok(false);
        };
        let needs = req.tokens.is_some()
            || req.input.is_some()
            || req.keep_output
            || req.mode == ModeChoice::Numeric;
        if needs {
            return Err(refusal.into());
        }
        // What the run would read, as a numeric run of these shapes would.
        let read = crate::model::params_read(cfg, req.input.is_none());
        let seeded = self.fits(cfg, &read, fill)?;
        req.notes
            .extend(crate::weights::seeded_note(self.path(), &seeded));
        req.mode = ModeChoice::ShapeOnly;
        if let super::GgufError::Quantized { name, ty, .. } = &refusal {
            req.notes.push(format!(
                "{}: tensor {} is {ty}, which no numeric run reads ({}), so the run traces shapes only",
                crate::text::shown(self.path()),
                crate::text::shown(name),
                super::types::NUMERIC
            ));
        }
        Ok(true)
    }

    /// The refusal of a numeric run of a GGUF file holding a type no
    /// numeric run reads, naming its first such tensor; `None` otherwise.
    #[must_use]
    pub fn unreadable(&self) -> Option<super::GgufError> {
        self.file.gguf()?.unreadable()
    }
}
