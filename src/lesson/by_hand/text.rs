//! The worked example as the lesson writes it: one numbered section per
//! stage, every step on its line, and what the residual and the mistake
//! make of the numbers.

use super::{FfnByHand, Mistake, Stage};
use crate::lesson::{fmt_factor, fmt_vec};
use std::fmt::Write as _;

/// `[[1, 0, -1], [0, 2, 1]]`.
#[must_use]
pub fn fmt_matrix(m: &[Vec<f64>]) -> String {
    let rows: Vec<String> = m.iter().map(|r| fmt_vec(r)).collect();
    format!("[{}]", rows.join(", "))
}

impl FfnByHand {
    /// The names of the two outer matrices: W1, W2 or Wg, Wd.
    #[must_use]
    pub fn names(&self) -> (&'static str, &'static str) {
        if self.wu.is_some() {
            ("Wg", "Wd")
        } else {
            ("W1", "W2")
        }
    }

    /// `d = 2 → 3 → 2, ReLU, no biases`.
    #[must_use]
    pub fn title(&self) -> String {
        let (d, f, d_out) = (
            self.x.len(),
            self.w1.first().map_or(0, Vec::len),
            self.w2.first().map_or(0, Vec::len),
        );
        let act = if self.wu.is_some() {
            "gated (SwiGLU)"
        } else {
            "ReLU"
        };
        format!("d = {d} → {f} → {d_out}, {act}, no biases")
    }

    /// The matrices, one line each, with what their rows and columns mean.
    #[must_use]
    pub fn matrix_lines(&self) -> Vec<String> {
        let (d, f, d_out) = (
            self.x.len(),
            self.w1.first().map_or(0, Vec::len),
            self.w2.first().map_or(0, Vec::len),
        );
        let (a, b) = self.names();
        let mut lines = vec![format!(
            "{a} = {}   ({d}×{f}: column j feeds unit j)",
            fmt_matrix(&self.w1)
        )];
        if let Some(wu) = &self.wu {
            lines.push(format!(
                "Wu = {}   ({d}×{f}: column j feeds unit j)",
                fmt_matrix(wu)
            ));
        }
        lines.push(format!(
            "{b} = {}   ({f}×{d_out}: row j is what unit j adds)",
            fmt_matrix(&self.w2)
        ));
        lines
    }

    /// The heading of `stage`, numbered `n`.
    fn heading(&self, stage: Stage, n: usize) -> String {
        let (a, b) = self.names();
        let rows = self.mistake == Mistake::Rows;
        let what = match stage {
            Stage::Hidden if rows => format!(
                "{} = x·{a}ᵀ (✗ x against each ROW of {a})",
                if self.wu.is_some() { "g" } else { "z" }
            ),
            Stage::Hidden => format!(
                "{} = x·{a} (x against each column of {a})",
                if self.wu.is_some() { "g" } else { "z" }
            ),
            Stage::Up if rows => "u = x·Wuᵀ (✗ x against each ROW of Wu)".into(),
            Stage::Up => "u = x·Wu".into(),
            Stage::Relu if self.mistake == Mistake::ReluAfterW2 => {
                format!("h (✗ no activation before {b})")
            }
            Stage::Relu if self.wu.is_some() => "h = silu(g) ⊙ u, silu(g) = g / (1 + e^-g)".into(),
            Stage::Relu => "h = ReLU(z)".into(),
            Stage::Output => format!("y = h·{b}"),
            Stage::ActAfter => format!("✗ the activation after {b}"),
            Stage::Residual => "residual: the FFN output is added to x".into(),
        };
        format!("{n}. {what}")
    }

    /// The line under a stage's steps.
    fn summary(&self, stage: Stage) -> String {
        let g = if self.wu.is_some() { "g" } else { "z" };
        match stage {
            Stage::Hidden => format!("{g} = {}", fmt_vec(&self.z)),
            Stage::Up => format!("u = {}", fmt_vec(&self.u)),
            Stage::Relu if self.wu.is_some() || self.mistake == Mistake::ReluAfterW2 => {
                format!("h = {}", fmt_vec(&self.h))
            }
            Stage::Relu => self.relu_note(),
            Stage::Output if self.mistake == Mistake::ReluAfterW2 => self.rows_view(),
            Stage::Output => format!("y = {}\n   {}", fmt_vec(&self.y), self.rows_view()),
            Stage::ActAfter => format!("y = {}", fmt_vec(&self.y)),
            Stage::Residual => format!(
                "x + y = {} + {} = {}",
                fmt_vec(&self.x),
                fmt_vec(&self.y),
                fmt_vec(&self.out)
            ),
        }
    }

    /// `y` as a sum of W2's rows, weighted by h:
    /// `y = 2*[1, 0] + 0*[0, 1] + 0*[-1, 1] = [2, 0]`.
    #[must_use]
    pub fn rows_view(&self) -> String {
        let terms: Vec<String> = self
            .h
            .iter()
            .zip(&self.w2)
            .map(|(hj, row)| format!("{}*{}", fmt_factor(*hj), fmt_vec(row)))
            .collect();
        let lhs = if self.mistake == Mistake::ReluAfterW2 {
            format!("h·{}", self.names().1)
        } else {
            "y".into()
        };
        format!("{lhs} = {} = {}", terms.join(" + "), fmt_vec(&self.y_pre))
    }

    /// Why this MLP cannot sit on a residual stream, when y's width is not x's.
    #[must_use]
    pub fn residual_note(&self) -> Option<String> {
        if self.residual_fits() {
            return None;
        }
        let (d, f, d_out) = (self.x.len(), self.z.len(), self.y.len());
        let b = self.names().1;
        Some(format!(
            "x + y = ({d}) + ({d_out}) ✗ cannot be added: x has {d} features, y has {d_out}. {b} maps {f} → {d_out}, so this MLP cannot sit on a residual stream: the add needs {b} of shape ({f}, {d}), mapping back to d = {d}."
        ))
    }

    /// What the mistake did to the numbers, against the correct run.
    #[must_use]
    pub fn mistake_note(&self) -> Option<String> {
        if self.mistake == Mistake::None {
            return None;
        }
        let head = format!("✗ mistake {}: {}", self.mistake.name(), self.mistake.what());
        if let Some(why) = &self.stopped {
            return Some(format!("{head}. {why}"));
        }
        let ok = self.correct()?;
        let g = if self.wu.is_some() { "g" } else { "z" };
        let cmp = |name: &str, bad: &[f64], good: &[f64]| {
            if bad == good {
                format!("{name} = {} (same)", fmt_vec(bad))
            } else {
                format!("{name} = {} (correct {})", fmt_vec(bad), fmt_vec(good))
            }
        };
        let mut parts = vec![
            cmp(g, &self.z, &ok.z),
            cmp("h", &self.h, &ok.h),
            cmp("y", &self.y, &ok.y),
        ];
        if self.y == ok.y {
            parts.push("this x hides the mistake: try another".into());
        }
        Some(format!("{head}: {}", parts.join(", ")))
    }

    /// The ReLU line: which units it switched off.
    fn relu_note(&self) -> String {
        let h = format!("h = {}", fmt_vec(&self.h));
        let off: Vec<String> = self.off_units().iter().map(ToString::to_string).collect();
        match off.as_slice() {
            [] => format!("{h}: every z is positive, so ReLU changes nothing"),
            [one] => format!("{h}: unit {one} is switched off"),
            [init @ .., last] => {
                format!("{h}: units {} and {last} are switched off", init.join(", "))
            }
        }
    }

    /// The whole example as the lesson writes it.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "FFN by hand: {}", self.title());
        let _ = writeln!(out, "x  = {}", fmt_vec(&self.x));
        for l in self.matrix_lines() {
            let _ = writeln!(out, "{l}");
        }
        let stages = [
            Stage::Hidden,
            Stage::Up,
            Stage::Relu,
            Stage::Output,
            Stage::ActAfter,
            Stage::Residual,
        ];
        let mut n = 0;
        for s in stages {
            let steps: Vec<_> = self.steps.iter().filter(|x| x.stage == s).collect();
            if steps.is_empty() {
                continue;
            }
            n += 1;
            let _ = writeln!(out, "\n{}", self.heading(s, n));
            for step in steps {
                let _ = writeln!(out, "   {}", step.text);
            }
            let _ = writeln!(out, "   {}", self.summary(s));
        }
        if let Some(note) = self.residual_note() {
            let _ = writeln!(out, "\n{}. residual\n   {note}", n + 1);
        }
        if let Some(note) = self.mistake_note() {
            let _ = writeln!(out, "\n{note}");
        }
        out
    }
}
