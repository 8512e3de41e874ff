//! LayerNorm against RMSNorm on one vector, without γ and β.
//!
//! - LayerNorm: `(x − mean) / √(var + eps)`: mean 0 and RMS 1 out; the
//!   offset of x is gone.
//! - RMSNorm: `x / √(mean(x²) + eps)`: RMS 1 out, same direction as x.
//!
//! ```
//! use shapetrace::lesson::norms::NormCompare;
//! let n = NormCompare::new(&[3.0, 4.0]).unwrap();
//! assert!((n.layer[0] + 1.0).abs() < 1e-4 && (n.layer[1] - 1.0).abs() < 1e-4);
//! assert!((n.rms[0] - 3.0 / 12.5f64.sqrt()).abs() < 1e-5);
//! ```
//!
//! # Shapes
//! x, both outputs: (n)

use super::{LessonError, fmt_factor, fmt_num, fmt_vec};
use std::fmt::Write as _;

/// The eps both norms add, as the models' default.
pub const EPS: f64 = 1e-5;

/// Both norms of one vector, with the numbers they are made of.
#[derive(Debug, Clone, PartialEq)]
pub struct NormCompare {
    /// The vector normalised, (n).
    pub x: Vec<f64>,
    /// The ε added under both square roots ([`EPS`]).
    pub eps: f64,
    /// `mean(x)`, which LayerNorm subtracts.
    pub mean: f64,
    /// The population variance, `mean((x − mean)²)`.
    pub var: f64,
    /// LayerNorm's output `(x − mean) / √(var + eps)`, (n).
    pub layer: Vec<f64>,
    /// `mean(x²)`.
    pub mean_sq: f64,
    /// RMSNorm's output `x / √(mean(x²) + eps)`, (n).
    pub rms: Vec<f64>,
}

#[allow(clippy::cast_precision_loss)]
fn mean(v: impl Iterator<Item = f64>, n: usize) -> f64 {
    v.sum::<f64>() / n as f64
}

impl NormCompare {
    /// LayerNorm and RMSNorm of `x`, with eps = [`EPS`].
    ///
    /// # Errors
    /// [`LessonError::Empty`] for an empty x.
    pub fn new(x: &[f64]) -> Result<Self, LessonError> {
        if x.is_empty() {
            return Err(LessonError::Empty);
        }
        let n = x.len();
        let m = mean(x.iter().copied(), n);
        let var = mean(x.iter().map(|v| (v - m).powi(2)), n);
        let mean_sq = mean(x.iter().map(|v| v * v), n);
        let (sd, rms) = ((var + EPS).sqrt(), (mean_sq + EPS).sqrt());
        Ok(Self {
            x: x.to_vec(),
            eps: EPS,
            mean: m,
            var,
            layer: x.iter().map(|v| (v - m) / sd).collect(),
            mean_sq,
            rms: x.iter().map(|v| v / rms).collect(),
        })
    }

    /// The comparison, each number's sum written out, in English.
    #[must_use]
    pub fn text(&self) -> String {
        self.text_in(crate::i18n::Lang::En)
    }

    /// The comparison in `lang`: its words from the catalog, its numbers
    /// and formulas as they are.
    #[must_use]
    pub fn text_in(&self, lang: crate::i18n::Lang) -> String {
        let n = self.x.len();
        let sum = |f: &dyn Fn(f64) -> String| {
            let t: Vec<String> = self.x.iter().map(|v| f(*v)).collect();
            format!("({}) / {n}", t.join(" + "))
        };
        let m = fmt_num(self.mean);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "x = {}   (n = {n}, eps = {:e})\n",
            fmt_vec(&self.x),
            self.eps
        );
        let _ = writeln!(out, "{}", lang.t("lab-norms-layer"));
        // The labels padded in columns, so the `=` line up in any language.
        let label = |key: &str| {
            use unicode_width::UnicodeWidthStr;
            let l = lang.t(key);
            format!("{l}{}", " ".repeat(9usize.saturating_sub(l.width())))
        };
        let (mean, var) = (label("lab-norms-mean"), label("lab-norms-var"));
        let _ = writeln!(out, "  {mean}= {} = {m}", sum(&|v| fmt_num(v)));
        let dev = |v: f64| format!("({} - {})²", fmt_num(v), fmt_factor(self.mean));
        let _ = writeln!(out, "  {var}= {} = {}", sum(&dev), fmt_num(self.var));
        let _ = writeln!(
            out,
            "  y        = (x - {m}) / √({} + eps) = {}",
            fmt_num(self.var),
            fmt_vec(&self.layer)
        );
        let _ = writeln!(out, "{}", lang.t("lab-norms-rms"));
        let sq = |v: f64| format!("{}²", fmt_factor(v));
        let ms = fmt_num(self.mean_sq);
        let _ = writeln!(out, "  mean(x²) = {} = {ms}", sum(&sq));
        let _ = writeln!(
            out,
            "  y        = x / √({ms} + eps) = {} / √{ms} = {}\n",
            fmt_vec(&self.x),
            fmt_vec(&self.rms)
        );
        let layer = if self.var < EPS {
            "lab-norms-constant"
        } else {
            "lab-norms-layer-gives"
        };
        let _ = writeln!(out, "{}", lang.t(layer));
        let _ = writeln!(out, "{}", lang.t("lab-norms-rms-gives"));
        out
    }
}
