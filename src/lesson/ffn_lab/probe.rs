//! The lesson's "predict first" question — does a position-wise MLP
//! directly average neighbouring tokens? — answered by running the MLP on
//! three tokens, moving one, and showing which outputs change; the verdict
//! is [`crate::lesson::is_positionwise`] on the same tokens.
//!
//! # Shapes
//! X: (3, d) → Y: (3, d'); token 1 moves by +1 in every feature

use crate::i18n::Lang;
use crate::lesson::by_hand::FfnByHand;
use crate::lesson::matrix::{rng, seeded};
use crate::lesson::{ffn, fmt_vec, gated_ffn, is_positionwise, relu};
use crate::why::Why;
use ndarray::{Array1, Array2};
use std::fmt::Write as _;

/// The token that moves.
pub const MOVED: usize = 1;

/// The probe's tokens and outputs, before and after the move.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// X, one row per token: the lab's x, then two drawn tokens.
    pub tokens: Array2<f64>,
    /// X with token [`MOVED`] moved.
    pub moved: Array2<f64>,
    /// The MLP's output on `tokens`, one row per token: (3, d').
    pub before: Array2<f64>,
    /// The MLP's output on `moved`: (3, d').
    pub after: Array2<f64>,
    /// Which output rows changed.
    pub changed: Vec<bool>,
    /// [`is_positionwise`] over three random moves of the same tokens.
    pub positionwise: bool,
}

/// The lab's MLP, computed correctly, on every row of `x`.
fn mlp(ex: &FfnByHand, x: &Array2<f64>) -> Array2<f64> {
    let m = |w: &[Vec<f64>]| {
        let (r, c) = (w.len(), w.first().map_or(0, Vec::len));
        Array2::from_shape_fn((r, c), |(i, j)| w[i][j])
    };
    let (w1, w2) = (m(&ex.w1), m(&ex.w2));
    let y = match &ex.wu {
        Some(wu) => gated_ffn(x, &w1, &m(wu), &w2),
        None => ffn(
            x,
            &w1,
            &Array1::zeros(w1.ncols()),
            &w2,
            &Array1::zeros(w2.ncols()),
            relu,
        ),
    };
    // The shapes were checked when `ex` was built.
    y.unwrap_or_else(|_| Array2::zeros((x.nrows(), w2.ncols())))
}

/// Runs the probe on `ex`'s MLP, the other tokens drawn from `seed`.
#[must_use]
pub fn probe(ex: &FfnByHand, seed: u64) -> Probe {
    let d = ex.x.len();
    let mut r = rng(seed.wrapping_add(1));
    let mut rows = vec![ex.x.clone()];
    rows.extend(seeded(2, d, &mut r));
    let tokens = Array2::from_shape_fn((3, d), |(i, j)| rows[i][j]);
    let mut moved = tokens.clone();
    moved.row_mut(MOVED).mapv_inplace(|v| v + 1.0);
    let (before, after) = (mlp(ex, &tokens), mlp(ex, &moved));
    let changed = before
        .rows()
        .into_iter()
        .zip(after.rows())
        .map(|(a, b)| a != b)
        .collect();
    let positionwise = is_positionwise(|x: &Array2<f64>| mlp(ex, x), &tokens, 3, seed);
    Probe {
        tokens,
        moved,
        before,
        after,
        changed,
        positionwise,
    }
}

impl Probe {
    /// The question, every token's output before and after, and the answer.
    #[must_use]
    pub fn text(&self) -> String {
        self.text_in(Lang::En)
    }

    /// [`Probe::text`] in `lang`: its words the catalog's, its vectors as
    /// they are.
    #[must_use]
    pub fn text_in(&self, lang: Lang) -> String {
        let v = |a: ndarray::ArrayView1<f64>| fmt_vec(&a.to_vec());
        let mut out = format!("{}\n", lang.t("lab-probe-question"));
        let _ = writeln!(
            out,
            "   {}",
            lang.why(&Why::new("lab-probe-setup").arg("moved", MOVED))
        );
        for t in 0..self.tokens.nrows() {
            let x = if t == MOVED {
                format!("{} → {}", v(self.tokens.row(t)), v(self.moved.row(t)))
            } else {
                v(self.tokens.row(t))
            };
            let mark = match (self.changed[t], t == MOVED) {
                (true, true) => "lab-probe-moved-changed",
                (false, true) => "lab-probe-moved-same",
                (true, false) => "lab-probe-other-changed",
                (false, false) => "lab-probe-other-same",
            };
            let line = Why::new("lab-probe-token")
                .arg("t", t)
                .arg("x", x)
                .arg("before", v(self.before.row(t)))
                .arg("after", v(self.after.row(t)))
                .arg("mark", lang.t(mark));
            let _ = writeln!(out, "   {}", lang.why(&line));
        }
        let others_still = self
            .changed
            .iter()
            .enumerate()
            .all(|(t, c)| t == MOVED || !c);
        let answer = if others_still && self.positionwise {
            "lab-probe-no"
        } else {
            "lab-probe-yes"
        };
        let _ = write!(out, "   {}", lang.t(answer));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{MOVED, Probe, probe};
    use crate::lesson::by_hand::FfnByHand;

    #[test]
    fn only_the_moved_token_changes_and_the_answer_is_no() {
        let p = probe(&FfnByHand::lesson(&[2.0, -1.0]).unwrap(), 0);
        assert_eq!(p.changed, [false, true, false]);
        assert!(p.positionwise);
        assert_eq!(p.tokens.row(0).to_vec(), [2.0, -1.0]);
        assert!(p.text().contains("Answer: no."), "{}", p.text());
    }

    #[test]
    fn a_change_in_another_token_is_marked_and_answers_yes() {
        // What a token-mixing function would give: token 0 changes too.
        let mut p = probe(&FfnByHand::lesson(&[1.0, 2.0]).unwrap(), 0);
        p.after[[0, 0]] += 1.0;
        p.changed = vec![true, true, false];
        p.positionwise = false;
        let text = p.text();
        assert!(
            text.contains("token 0") && text.contains("✗ changed: it reads another token"),
            "{text}"
        );
        assert!(text.contains("Answer: yes"), "{text}");
        let still = Probe {
            changed: vec![false; 3],
            ..p
        };
        assert!(still.text().contains(&format!("token {MOVED}")));
        assert!(still.text().contains("unchanged, though it moved"));
    }
}
