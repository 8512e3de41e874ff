//! What a run of a GGUF checkpoint holding a type no numeric run reads
//! (Q4_K, Q6_K…) does: it traces shapes only, or, when it needs numbers,
//! is refused naming the tensor and its type.

use crate::plan::{ModeChoice, Request};
use crate::weights::{Checkpoint, WeightsError};

impl Checkpoint {
    /// Whether a GGUF file holds a type no numeric run reads (Q4_K,
    /// Q6_K…): then the run traces shapes only, and `req` says so in a
    /// note. `Ok(false)` for any other checkpoint.
    ///
    /// # Errors
    /// [`super::GgufError::Quantized`] naming the tensor and its type when
    /// `req` needs numbers (token ids, an input, the output, `--numeric`).
    pub fn quantized(&self, req: &mut Request) -> Result<bool, WeightsError> {
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
