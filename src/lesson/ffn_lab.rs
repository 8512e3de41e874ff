//! Lesson 5.3's FFN lab: any small width d and hidden size f, the simple
//! or the gated MLP, the lesson's matrices, given ones or seeded ones, and
//! the whole sheet: the token worked by hand ([`super::by_hand`]), the
//! weight counts with their formulas (`2·d·f`, `3·d·f`, `4·d² + 2·d·f`;
//! matrices only, as the lesson counts) and the "predict first" question
//! answered by the position-wise probe ([`probe`]).
//!
//! ```
//! use shapetrace::lesson::ffn_lab::{Spec, counts};
//! use shapetrace::lesson::matrix::parse_matrix;
//! let spec = Spec {
//!     x: Some(vec![1.0, -2.0]),
//!     w1: Some(parse_matrix("W1", "1,1;0,-1").unwrap()),
//!     w2: Some(parse_matrix("W2", "1;1").unwrap()),
//!     ..Spec::default()
//! };
//! let ex = spec.build().unwrap();
//! assert_eq!((ex.y.as_slice(), ex.residual_fits()), (&[4.0][..], false)); // (2) + (1)
//! assert!(counts(4, 8).contains("4·d² + 2·d·f = 4·4² + 2·4·8 = 64 + 64 = 128"));
//! ```

pub mod probe;

use super::by_hand::{FfnByHand, Mistake, W1, W2, text::fmt_matrix};
use super::matrix::{Matrix, check_size, dims, rng, seeded};
use super::{LessonError, ffn_biases, ffn_params};
use crate::i18n::Lang;
use crate::why::Why;
use std::fmt::Write as _;

/// What the lab is asked to compute; every field may be left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spec {
    /// The token; default [1, 2] at d = 2, else drawn from the seed.
    pub x: Option<Vec<f64>>,
    /// Width d (1 to 16); default from the matrices, else 2.
    pub d: Option<usize>,
    /// Hidden size f (1 to 16); default from the matrices, else 3 at the
    /// default d, else 2·d (at most 16).
    pub f: Option<usize>,
    /// Three matrices (Wg, Wu, Wd) and `silu(x·Wg) ⊙ x·Wu`.
    pub gated: bool,
    /// Seed of the matrices not given; without one (and at d = 2, f = 3,
    /// simple) the lesson's W1 and W2.
    pub seed: Option<u64>,
    /// W1 (d, f) of the simple MLP.
    pub w1: Option<Matrix>,
    /// W2 (f, d') of the simple MLP; d' ≠ d is shown, not refused.
    pub w2: Option<Matrix>,
    /// Wg (d, f), the gate of the gated MLP.
    pub wg: Option<Matrix>,
    /// Wu (d, f), the up projection of the gated MLP.
    pub wu: Option<Matrix>,
    /// Wd (f, d'), the down projection of the gated MLP.
    pub wd: Option<Matrix>,
    /// The hand-computation mistake to make on purpose.
    pub mistake: Mistake,
}

/// A matrix's name and the matrix, if given.
type Named<'a> = (&'static str, Option<&'a Matrix>);

/// `d = 3` contradicts `W1 = [[1, 1], [0, -1]] (2×2, so d = 2)`.
fn contradicts(what: &str, want: usize, name: &str, m: &[Vec<f64>], has: usize) -> LessonError {
    let (r, c) = dims(m);
    LessonError::Contradicts {
        given: format!("{what} = {want}"),
        by: format!("{name} = {} ({r}×{c}, so {what} = {has})", fmt_matrix(m)),
        allowed: format!("{what} = {has}, or leave {what} out"),
    }
}

impl Spec {
    /// The matrices in order (first layer(s), last layer) with their names.
    fn given(&self) -> (Vec<Named<'_>>, Named<'_>) {
        if self.gated {
            (
                vec![("Wg", self.wg.as_ref()), ("Wu", self.wu.as_ref())],
                ("Wd", self.wd.as_ref()),
            )
        } else {
            (vec![("W1", self.w1.as_ref())], ("W2", self.w2.as_ref()))
        }
    }

    /// Whether nothing asks for more than the lesson's own example.
    fn is_lesson(&self) -> bool {
        let (firsts, last) = self.given();
        !self.gated
            && self.seed.is_none()
            && firsts.iter().all(|(_, m)| m.is_none())
            && last.1.is_none()
            && self.d.is_none_or(|d| d == 2)
            && self.f.is_none_or(|f| f == 3)
    }

    /// d and f: as given, else read off the matrices, else the defaults.
    ///
    /// # Errors
    /// [`LessonError::Size`] out of 1..=16, [`LessonError::Contradicts`]
    /// when a matrix says otherwise.
    pub fn sizes(&self) -> Result<(usize, usize), LessonError> {
        if !self.gated && (self.wg.is_some() || self.wu.is_some() || self.wd.is_some()) {
            return Err(LessonError::Shape(
                "Wg, Wu and Wd are the gated MLP's; allowed: them with the gated variant, or W1 and W2".into(),
            ));
        }
        if self.gated && (self.w1.is_some() || self.w2.is_some()) {
            return Err(LessonError::Shape(
                "W1 and W2 are the simple MLP's; allowed with the gated variant: Wg, Wu and Wd"
                    .into(),
            ));
        }
        let (firsts, (last_name, last)) = self.given();
        let mut d = self.d.map(|d| check_size("d", d)).transpose()?;
        let mut f = self.f.map(|f| check_size("f", f)).transpose()?;
        let mut fixed_f: Option<(&str, &Matrix)> = None;
        for (name, m) in firsts.iter().filter_map(|(n, m)| m.map(|m| (*n, m))) {
            let (r, c) = dims(m);
            match d {
                Some(want) if want != r => return Err(contradicts("d", want, name, m, r)),
                _ => d = Some(r),
            }
            match (f, fixed_f) {
                (Some(want), Some((by, bm))) if want != c => {
                    return Err(LessonError::Contradicts {
                        given: format!("{name} = {} ({r}×{c}, so f = {c})", fmt_matrix(m)),
                        by: format!("{by} = {} (f = {want})", fmt_matrix(bm)),
                        allowed: format!("{name} of shape ({r}, {want}), as {by}"),
                    });
                }
                (Some(want), None) if want != c => return Err(contradicts("f", want, name, m, c)),
                _ => f = Some(c),
            }
            fixed_f = Some((name, m));
        }
        if let Some(m) = last {
            let (r, _) = dims(m);
            match (f, fixed_f) {
                (Some(want), Some((by, bm))) if want != r => {
                    return Err(LessonError::Contradicts {
                        given: format!("{last_name} = {} ({r} rows)", fmt_matrix(m)),
                        by: format!("{by} = {} ({want} hidden units)", fmt_matrix(bm)),
                        allowed: format!("{last_name} with {want} rows, one per hidden unit"),
                    });
                }
                (Some(want), None) if want != r => {
                    return Err(contradicts("f", want, last_name, m, r));
                }
                _ => f = Some(r),
            }
        }
        let d = d.unwrap_or(2);
        let f = f.unwrap_or(if d == 2 { 3 } else { (2 * d).min(16) });
        Ok((d, f))
    }

    /// The worked example this spec asks for.
    ///
    /// # Errors
    /// As [`Spec::sizes`], and as [`FfnByHand::with`] (a wrong-length x, an
    /// overflow).
    pub fn build(&self) -> Result<FfnByHand, LessonError> {
        let (d, f) = self.sizes()?;
        let x = |rng: &mut rand_chacha::ChaCha8Rng| match &self.x {
            Some(x) => x.clone(),
            None if d == 2 => vec![1.0, 2.0],
            None => seeded(1, d, rng).remove(0),
        };
        if self.is_lesson() {
            let (w1, w2) = (
                W1.map(|r| r.to_vec()).to_vec(),
                W2.map(|r| r.to_vec()).to_vec(),
            );
            return FfnByHand::with(&x(&mut rng(0)), &w1, None, &w2, self.mistake);
        }
        let mut r = rng(self.seed.unwrap_or(0));
        let mut pick = |m: Option<&Matrix>, rows, cols| {
            m.cloned().unwrap_or_else(|| seeded(rows, cols, &mut r))
        };
        let (firsts, last) = self.given();
        let first = pick(firsts[0].1, d, f);
        let up = firsts.get(1).map(|(_, m)| pick(*m, d, f));
        let down = pick(last.1, f, d);
        FfnByHand::with(&x(&mut r), &first, up.as_deref(), &down, self.mistake)
    }
}

/// `label` padded with spaces to `cols` display columns (a wide
/// character counts two).
fn padded(label: &str, cols: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    format!("{label}{}", " ".repeat(cols.saturating_sub(label.width())))
}

/// The lesson's weight counts for width `d` and hidden size `f`, each with
/// its formula and the numbers put in: matrices only, no biases.
#[must_use]
pub fn counts(d: usize, f: usize) -> String {
    counts_in(d, f, Lang::En)
}

/// [`counts`] in `lang`: its words the catalog's, its formulas and
/// numbers as they are.
#[must_use]
pub fn counts_in(d: usize, f: usize, lang: Lang) -> String {
    let (mlp, gated, attn) = (ffn_params(d, f, false), ffn_params(d, f, true), 4 * d * d);
    let label = |key: &str| padded(&lang.t(key), 14);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        lang.why(&Why::new("lab-ffn-weights").arg("d", d).arg("f", f))
    );
    let _ = writeln!(
        out,
        "   {}2·d·f = 2·{d}·{f} = {mlp}",
        label("lab-ffn-count-mlp")
    );
    let _ = writeln!(
        out,
        "   {}3·d·f = 3·{d}·{f} = {gated}   {}",
        label("lab-ffn-count-gated"),
        lang.t("lab-ffn-count-same-f")
    );
    let _ = writeln!(
        out,
        "   {}4·d² = 4·{d}² = {attn}   {}",
        label("lab-ffn-count-attention"),
        lang.t("lab-ffn-count-qkvo")
    );
    let _ = writeln!(
        out,
        "   {}4·d² + 2·d·f = 4·{d}² + 2·{d}·{f} = {attn} + {mlp} = {}",
        label("lab-ffn-count-block"),
        attn + mlp
    );
    let _ = writeln!(
        out,
        "   {}4·d² + 3·d·f = 4·{d}² + 3·{d}·{f} = {attn} + {gated} = {}",
        label("lab-ffn-count-gated-block"),
        attn + gated
    );
    let _ = write!(
        out,
        "   {}",
        lang.why(
            &Why::new("lab-ffn-count-biases")
                .arg("mlp", ffn_biases(d, f, false))
                .arg("gated", ffn_biases(d, f, true))
        )
    );
    out
}

/// The whole lab sheet: the token by hand, the counts and the probe.
///
/// # Errors
/// As [`Spec::build`].
pub fn sheet(spec: &Spec) -> Result<String, LessonError> {
    sheet_in(spec, Lang::En)
}

/// [`sheet`] in `lang`: its words the catalog's, its numbers and
/// formulas as they are.
///
/// # Errors
/// As [`Spec::build`].
pub fn sheet_in(spec: &Spec, lang: Lang) -> Result<String, LessonError> {
    let ex = spec.build()?;
    let (d, f) = (ex.x.len(), ex.w1.first().map_or(0, Vec::len));
    let mut out = ex.text_in(lang);
    let _ = writeln!(out, "\n{}", counts_in(d, f, lang));
    if !ex.residual_fits() {
        let (d_out, b) = (ex.y.len(), ex.names().1);
        let these = Why::new("lab-ffn-these")
            .arg("sum", format!("{d}·{f} + {f}·{d_out}"))
            .arg("n", d * f + f * d_out)
            .arg("b", b)
            .arg("mlp", ffn_params(d, f, false));
        let _ = writeln!(out, "   {}", lang.why(&these));
    }
    let _ = writeln!(
        out,
        "\n{}",
        probe::probe(&ex, spec.seed.unwrap_or(0)).text_in(lang)
    );
    Ok(out)
}
