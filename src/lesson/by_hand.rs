//! The FFN by hand: `y = ReLU(x·W1)·W2`, then the residual `x + y`, with
//! every dot product written out as one [`Step`], so a UI can step through
//! them. The gated variant computes `h = silu(x·Wg) ⊙ (x·Wu)`, then
//! `y = h·Wd`. A [`Mistake`] computes it the way the lesson's common errors
//! do, so the lab can show what each does to the numbers. The lesson's
//! example is d = 2 → 3 → 2 with no biases:
//!
//! ```
//! use shapetrace::lesson::by_hand::FfnByHand;
//! let f = FfnByHand::lesson(&[1.0, 2.0]).unwrap();
//! assert_eq!(f.steps[2].text, "z_3 = 1*(-1) + 2*1 = 1");
//! assert_eq!((&f.z, &f.h, &f.y, &f.out), (&vec![1., 4., 1.], &vec![1., 4., 1.], &vec![0., 5.], &vec![1., 7.]));
//! let g = FfnByHand::lesson(&[2.0, -1.0]).unwrap();
//! assert_eq!((&g.z, &g.h, &g.y), (&vec![2., -2., -3.], &vec![2., 0., 0.], &vec![2., 0.]));
//! assert_eq!(g.off_units(), [2, 3]);
//! ```
//!
//! # Shapes
//! x: (d); W1, Wg, Wu: (d, f); z, u, h: (f); W2, Wd: (f, d'); y: (d');
//! x + y: (d), only when d' = d

mod compute;
pub mod text;

use super::matrix::{Matrix, dims};
use super::{LessonError, fmt_num};

/// The lesson's W1: (2, 3); column j feeds hidden unit j.
pub const W1: [[f64; 3]; 2] = [[1.0, 0.0, -1.0], [0.0, 2.0, 1.0]];
/// The lesson's W2: (3, 2); row j is what hidden unit j adds to y.
pub const W2: [[f64; 2]; 3] = [[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]];

/// A hand-computation error of the lesson, made on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mistake {
    /// Computed correctly.
    #[default]
    None,
    /// x multiplied by the rows of W1 (and Wu) instead of its columns: `x·W1ᵀ`.
    Rows,
    /// The activation applied after W2 instead of before it.
    ReluAfterW2,
}

impl Mistake {
    /// Every choice, in the order a key cycles them.
    pub const ALL: [Mistake; 3] = [Mistake::None, Mistake::Rows, Mistake::ReluAfterW2];

    /// The name on the command line: `none`, `rows`, `relu-after-w2`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Mistake::None => "none",
            Mistake::Rows => "rows",
            Mistake::ReluAfterW2 => "relu-after-w2",
        }
    }

    /// What the mistake does, in the lesson's words (English).
    #[must_use]
    pub fn what(self) -> String {
        self.what_in(crate::i18n::Lang::En)
    }

    /// What the mistake does, in `lang`.
    #[must_use]
    pub fn what_in(self, lang: crate::i18n::Lang) -> String {
        lang.t(match self {
            Mistake::None => "lab-mistake-none",
            Mistake::Rows => "lab-mistake-rows",
            Mistake::ReluAfterW2 => "lab-mistake-relu-after-w2",
        })
    }
}

/// Which part of the computation a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `z = x·W1` (gated: `g = x·Wg`): x against each column.
    Hidden,
    /// Gated only: `u = x·Wu`.
    Up,
    /// `h = ReLU(z)` (gated: `silu(g) ⊙ u`).
    Relu,
    /// `y = h·W2`: h against each column of W2.
    Output,
    /// The mistake `relu-after-w2`: the activation applied to y.
    ActAfter,
    /// `x + y`.
    Residual,
}

/// One computed number: a dot product, one activation or one residual sum.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Which stage it belongs to: z, u (gated), h, y, the mistake's
    /// activation after W2, or the residual sum.
    pub stage: Stage,
    /// What it computes: `z_1`, `h_2`, `y_1`, `out_2` (1-based).
    pub name: String,
    /// The pairs multiplied and added; empty for ReLU and the residual.
    pub products: Vec<(f64, f64)>,
    /// The number computed.
    pub value: f64,
    /// The line as the lesson writes it: `z_1 = 1*1 + 2*0 = 1`, in
    /// English ([`Step::text_in`] in another language).
    pub text: String,
    /// The catalog key of the words after the arithmetic, if any:
    /// `lab-ffn-step-off` (`: switched off`).
    pub note: Option<&'static str>,
    /// Whether the mistake is made in this step: x against a row of W1
    /// (or Wu), the activation left out before W2, or put after it.
    pub mistaken: bool,
}

impl Step {
    /// The line in `lang`: its arithmetic as it is, its words the
    /// catalog's.
    #[must_use]
    pub fn text_in(&self, lang: crate::i18n::Lang) -> String {
        match self.note {
            Some(key) => {
                let en = crate::i18n::Lang::En.t(key);
                let sum = self.text.strip_suffix(en.as_str()).unwrap_or(&self.text);
                format!("{sum}{}", lang.t(key))
            }
            None => self.text.clone(),
        }
    }
}

/// The whole worked example: inputs, every intermediate and every step.
#[derive(Debug, Clone, PartialEq)]
pub struct FfnByHand {
    /// The token's input vector, (d).
    pub x: Vec<f64>,
    /// W1, or Wg when gated: (d, f).
    pub w1: Matrix,
    /// Wu when gated: (d, f).
    pub wu: Option<Matrix>,
    /// W2, or Wd when gated: (f, d').
    pub w2: Matrix,
    /// The hand-computation error applied; [`Mistake::None`] computes it right.
    pub mistake: Mistake,
    /// `x·W1` (gated: `x·Wg`), before the activation.
    pub z: Vec<f64>,
    /// Gated: `x·Wu`; empty otherwise.
    pub u: Vec<f64>,
    /// The hidden layer after the activation, (f): `act(z)`, or
    /// `silu(z) ⊙ u` when gated.
    pub h: Vec<f64>,
    /// `h·W2` before any activation the mistake puts after it.
    pub y_pre: Vec<f64>,
    /// The MLP's output, (d'): `h·W2`, then the activation if the mistake
    /// puts one after it.
    pub y: Vec<f64>,
    /// `x + y`; empty when y's width is not x's (no residual possible).
    pub out: Vec<f64>,
    /// Why the computation stopped early, when a mistake cannot even pair
    /// its products: a catalog message.
    pub stopped: Option<crate::why::Why>,
    /// Every number computed, in order, as the lesson writes them.
    pub steps: Vec<Step>,
}

impl FfnByHand {
    /// The lesson's d = 2 → 3 → 2 example on `x`.
    ///
    /// # Errors
    /// [`LessonError::Length`] unless x has 2 entries.
    pub fn lesson(x: &[f64]) -> Result<Self, LessonError> {
        Self::new(x, &W1.map(|r| r.to_vec()), &W2.map(|r| r.to_vec()))
    }

    /// `ReLU(x·W1)·W2` and `x + y`, step by step.
    ///
    /// # Errors
    /// As [`FfnByHand::with`].
    pub fn new(x: &[f64], w1: &[Vec<f64>], w2: &[Vec<f64>]) -> Result<Self, LessonError> {
        Self::with(x, w1, None, w2, Mistake::None)
    }

    /// The simple FFN (`wu` none) or the gated one (`w1` = Wg, `wu`, `w2` =
    /// Wd), computed as `mistake` says. W2 may map back to another width
    /// than x's: y is computed, and the residual is left out.
    ///
    /// # Errors
    /// [`LessonError::Length`] when x does not have W1's rows,
    /// [`LessonError::Shape`] when the matrices do not chain, or
    /// [`LessonError::Overflow`] when a product or sum is not finite.
    pub fn with(
        x: &[f64],
        w1: &[Vec<f64>],
        wu: Option<&[Vec<f64>]>,
        w2: &[Vec<f64>],
        mistake: Mistake,
    ) -> Result<Self, LessonError> {
        let (d, f) = dims(w1);
        if x.len() != d {
            return Err(LessonError::Length {
                input: x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(","),
                got: x.len(),
                want: d,
            });
        }
        let d_out = dims(w2).1;
        let rectangular = |m: &[Vec<f64>], cols| m.iter().all(|r| r.len() == cols);
        let names = if wu.is_some() {
            ("Wg", "Wd")
        } else {
            ("W1", "W2")
        };
        if f == 0 || d_out == 0 || !rectangular(w1, f) || w2.len() != f || !rectangular(w2, d_out) {
            return Err(LessonError::Shape(format!(
                "{} must be ({d}, f) and {} (f, d') with the same f",
                names.0, names.1
            )));
        }
        if wu.is_some_and(|u| u.len() != d || !rectangular(u, f)) {
            return Err(LessonError::Shape(format!("Wu must be ({d}, {f}), as Wg")));
        }
        let mut ex = Self {
            x: x.to_vec(),
            w1: w1.to_vec(),
            wu: wu.map(<[Vec<f64>]>::to_vec),
            w2: w2.to_vec(),
            mistake,
            z: vec![],
            u: vec![],
            h: vec![],
            y_pre: vec![],
            y: vec![],
            out: vec![],
            stopped: None,
            steps: vec![],
        };
        if mistake == Mistake::Rows && d != f {
            ex.stopped = Some(
                crate::why::Why::new("lab-ffn-stopped")
                    .arg("d", d)
                    .arg("f", f)
                    .arg("w", names.0),
            );
            return Ok(ex);
        }
        ex.compute()?;
        Ok(ex)
    }

    /// Whether the output can be added onto x: y has x's width.
    #[must_use]
    pub fn residual_fits(&self) -> bool {
        self.y.len() == self.x.len() || self.stopped.is_some()
    }

    /// The same example computed correctly, when a mistake is on.
    #[must_use]
    pub fn correct(&self) -> Option<Self> {
        (self.mistake != Mistake::None)
            .then(|| {
                Self::with(
                    &self.x,
                    &self.w1,
                    self.wu.as_deref(),
                    &self.w2,
                    Mistake::None,
                )
                .ok()
            })
            .flatten()
    }

    /// The hidden units ReLU switches off (z ≤ 0), 1-based; none for the
    /// gated variant, whose silu never quite closes.
    #[must_use]
    pub fn off_units(&self) -> Vec<usize> {
        if self.wu.is_some() || self.mistake == Mistake::ReluAfterW2 {
            return vec![];
        }
        (1..=self.z.len())
            .filter(|j| self.z[j - 1] <= 0.0)
            .collect()
    }
}
