//! The FFN lab's state: the spec it computes (x, simple or gated, which
//! mistake), the worked example it makes, and how many steps are shown.
//! Every number comes from [`crate::lesson::ffn_lab::Spec::build`].
//!
//! `e` takes x (`2,-1`) or settings as on the command line, without the
//! dashes: `d=4 f=8 seed=1`, `x=1,-2 w1=1,1;0,-1 w2=1;1` (the gated
//! variant's `wg=`, `wu=`, `wd=`). Settings replace the last ones; the
//! variant and the mistake stay.

use crate::lesson::by_hand::{FfnByHand, Mistake};
use crate::lesson::ffn_lab::Spec;
use crate::lesson::matrix::parse_matrix;
use crate::lesson::parse_vector;
use crate::tui::action::Action;

/// The FFN worked example and how many of its steps are shown.
#[derive(Debug, Clone, PartialEq)]
pub struct FfnLab {
    /// What is computed: x, simple or gated, the mistake.
    pub spec: Spec,
    /// The worked example `spec` makes.
    pub ex: FfnByHand,
    /// Steps shown, from 1 to all of them (0 when a mistake stops at once).
    pub shown: usize,
}

impl Default for FfnLab {
    /// The lesson's d = 2 → 3 → 2 example on x = [1, 2].
    fn default() -> Self {
        let spec = Spec::default();
        let ex = spec
            .build()
            .unwrap_or_else(|e| panic!("the lesson example: {e}"));
        Self::showing(spec, ex)
    }
}

impl FfnLab {
    fn showing(spec: Spec, ex: FfnByHand) -> Self {
        let shown = ex.steps.len().min(1);
        Self { spec, ex, shown }
    }

    /// Recomputes with `spec`; on an error keeps what it had.
    ///
    /// # Errors
    /// The lesson's one-line message, e.g. a wrong-length x or an overflow.
    pub fn set(&mut self, spec: Spec) -> Result<(), String> {
        let ex = spec.build().map_err(|e| e.to_string())?;
        *self = Self::showing(spec, ex);
        Ok(())
    }

    /// Applies what was typed at `e`: x alone, or `key=value` settings.
    ///
    /// # Errors
    /// One line naming the bad key or value, and what is allowed.
    pub fn typed(&mut self, text: &str) -> Result<(), String> {
        let mut spec = self.spec.clone();
        if !text.contains('=') {
            spec.x = Some(parse_vector(text).map_err(|e| e.to_string())?);
            return self.set(spec);
        }
        spec = Spec {
            gated: spec.gated,
            mistake: spec.mistake,
            ..Spec::default()
        };
        for pair in text.split_whitespace() {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let size = || {
                value.parse::<usize>().map_err(|_| {
                    format!(
                        "{key} = '{}' is not a whole number; allowed: 1 to 16",
                        crate::text::shown(value)
                    )
                })
            };
            let matrix = |name| {
                parse_matrix(name, value)
                    .map(Some)
                    .map_err(|e| e.to_string())
            };
            match key {
                "x" => spec.x = Some(parse_vector(value).map_err(|e| e.to_string())?),
                "d" => spec.d = Some(size()?),
                "f" => spec.f = Some(size()?),
                "seed" => {
                    spec.seed = Some(value.parse().map_err(|_| {
                        format!(
                            "seed = '{}' is not a whole number",
                            crate::text::shown(value)
                        )
                    })?);
                }
                "w1" => spec.w1 = matrix("W1")?,
                "w2" => spec.w2 = matrix("W2")?,
                "wg" => spec.wg = matrix("Wg")?,
                "wu" => spec.wu = matrix("Wu")?,
                "wd" => spec.wd = matrix("Wd")?,
                _ => {
                    return Err(format!(
                        "unknown setting '{}'; allowed: x, d, f, seed, w1, w2, wg, wu, wd (as key=value)",
                        crate::text::shown(key)
                    ));
                }
            }
        }
        spec.gated = spec.gated || spec.wg.is_some() || spec.wu.is_some() || spec.wd.is_some();
        if spec.w1.is_some() || spec.w2.is_some() {
            spec.gated = false;
        }
        self.set(spec)
    }

    /// Steps through the example, switches the mistake or the variant.
    pub fn update(&mut self, action: Action) {
        let all = self.ex.steps.len();
        let floor = all.min(1);
        match action {
            Action::Next | Action::Down => self.shown = (self.shown + 1).min(all),
            Action::Prev | Action::Up => self.shown = self.shown.saturating_sub(1).max(floor),
            Action::First => self.shown = floor,
            Action::Last => self.shown = all,
            Action::CycleMistake => {
                let mut spec = self.spec.clone();
                spec.mistake = crate::tui::app::next_of(&Mistake::ALL, spec.mistake);
                self.switch(spec);
            }
            Action::ToggleGated => {
                let mut spec = self.spec.clone();
                spec.gated = !spec.gated;
                self.switch(spec);
            }
            _ => {}
        }
    }

    /// A switch keeps the steps shown as far as the new example has them.
    fn switch(&mut self, spec: Spec) {
        let shown = self.shown;
        if self.set(spec).is_ok() {
            self.shown = shown.clamp(self.ex.steps.len().min(1), self.ex.steps.len());
        }
    }
}
