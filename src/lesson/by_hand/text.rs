//! The worked example as the lesson writes it: one numbered section per
//! stage, every step on its line, and what the residual and the mistake
//! make of the numbers.

use super::{FfnByHand, Mistake, Stage};
use crate::i18n::Lang;
use crate::lesson::{fmt_factor, fmt_vec};
use crate::why::Why;
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
        self.title_in(Lang::En)
    }

    /// [`FfnByHand::title`] in `lang`.
    #[must_use]
    pub fn title_in(&self, lang: Lang) -> String {
        let (d, f, d_out) = (
            self.x.len(),
            self.w1.first().map_or(0, Vec::len),
            self.w2.first().map_or(0, Vec::len),
        );
        let act = if self.wu.is_some() {
            lang.t("lab-ffn-act-gated")
        } else {
            "ReLU".into()
        };
        lang.why(
            &Why::new("lab-ffn-shape")
                .arg("d", d)
                .arg("f", f)
                .arg("dout", d_out)
                .arg("act", act),
        )
    }

    /// The matrices, one line each, with what their rows and columns mean.
    #[must_use]
    pub fn matrix_lines(&self) -> Vec<String> {
        self.matrix_lines_in(Lang::En)
    }

    /// [`FfnByHand::matrix_lines`] in `lang`.
    #[must_use]
    pub fn matrix_lines_in(&self, lang: Lang) -> Vec<String> {
        let (d, f, d_out) = (
            self.x.len(),
            self.w1.first().map_or(0, Vec::len),
            self.w2.first().map_or(0, Vec::len),
        );
        let (a, b) = self.names();
        let says = |key: &str, rows: usize, cols: usize| {
            lang.why(&Why::new(key).arg("rows", rows).arg("cols", cols))
        };
        let feeds = says("lab-ffn-feeds", d, f);
        let mut lines = vec![format!("{a} = {}   {feeds}", fmt_matrix(&self.w1))];
        if let Some(wu) = &self.wu {
            lines.push(format!("Wu = {}   {feeds}", fmt_matrix(wu)));
        }
        lines.push(format!(
            "{b} = {}   {}",
            fmt_matrix(&self.w2),
            says("lab-ffn-adds", f, d_out)
        ));
        lines
    }

    /// The heading of `stage`, numbered `n`.
    fn heading(&self, stage: Stage, n: usize, lang: Lang) -> String {
        let (a, b) = self.names();
        let rows = self.mistake == Mistake::Rows;
        let z = if self.wu.is_some() { "g" } else { "z" };
        let said = |key: &str| {
            lang.why(
                &Why::new(key)
                    .arg("z", z)
                    .arg("a", a)
                    .arg("b", b)
                    .arg("w", "Wu"),
            )
        };
        let what = match stage {
            Stage::Hidden if rows => said("lab-ffn-head-rows"),
            Stage::Hidden => said("lab-ffn-head-hidden"),
            Stage::Up if rows => {
                lang.why(&Why::new("lab-ffn-head-rows").arg("z", "u").arg("a", "Wu"))
            }
            Stage::Up => "u = x·Wu".into(),
            Stage::Relu if self.mistake == Mistake::ReluAfterW2 => said("lab-ffn-head-no-act"),
            Stage::Relu if self.wu.is_some() => "h = silu(g) ⊙ u, silu(g) = g / (1 + e^-g)".into(),
            Stage::Relu => "h = ReLU(z)".into(),
            Stage::Output => format!("y = h·{b}"),
            Stage::ActAfter => said("lab-ffn-head-act-after"),
            Stage::Residual => lang.t("lab-ffn-head-residual"),
        };
        format!("{n}. {what}")
    }

    /// The line under a stage's steps.
    fn summary(&self, stage: Stage, lang: Lang) -> String {
        let g = if self.wu.is_some() { "g" } else { "z" };
        match stage {
            Stage::Hidden => format!("{g} = {}", fmt_vec(&self.z)),
            Stage::Up => format!("u = {}", fmt_vec(&self.u)),
            Stage::Relu if self.wu.is_some() || self.mistake == Mistake::ReluAfterW2 => {
                format!("h = {}", fmt_vec(&self.h))
            }
            Stage::Relu => self.relu_note(lang),
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
        self.residual_note_in(Lang::En)
    }

    /// [`FfnByHand::residual_note`] in `lang`.
    #[must_use]
    pub fn residual_note_in(&self, lang: Lang) -> Option<String> {
        if self.residual_fits() {
            return None;
        }
        let (d, f, d_out) = (self.x.len(), self.z.len(), self.y.len());
        Some(
            lang.why(
                &Why::new("lab-ffn-cannot-add")
                    .arg("d", d)
                    .arg("f", f)
                    .arg("dout", d_out)
                    .arg("b", self.names().1),
            ),
        )
    }

    /// What the mistake did to the numbers, against the correct run.
    #[must_use]
    pub fn mistake_note(&self) -> Option<String> {
        self.mistake_note_in(Lang::En)
    }

    /// [`FfnByHand::mistake_note`] in `lang`.
    #[must_use]
    pub fn mistake_note_in(&self, lang: Lang) -> Option<String> {
        if self.mistake == Mistake::None {
            return None;
        }
        let head = lang.why(
            &Why::new("lab-ffn-mistake")
                .arg("name", self.mistake.name())
                .arg("what", self.mistake.what_in(lang)),
        );
        if let Some(why) = &self.stopped {
            return Some(format!("{head}. {}", lang.why(why)));
        }
        let ok = self.correct()?;
        let g = if self.wu.is_some() { "g" } else { "z" };
        let cmp = |name: &str, bad: &[f64], good: &[f64]| {
            let why = Why::new(if bad == good {
                "lab-ffn-same"
            } else {
                "lab-ffn-correct"
            })
            .arg("name", name)
            .arg("v", fmt_vec(bad))
            .arg("good", fmt_vec(good));
            lang.why(&why)
        };
        let mut parts = vec![
            cmp(g, &self.z, &ok.z),
            cmp("h", &self.h, &ok.h),
            cmp("y", &self.y, &ok.y),
        ];
        if self.y == ok.y {
            parts.push(lang.t("lab-ffn-hides"));
        }
        Some(format!("{head}: {}", parts.join(&lang.t("lab-ffn-list"))))
    }

    /// The ReLU line: which units it switched off.
    fn relu_note(&self, lang: Lang) -> String {
        let h = format!("h = {}", fmt_vec(&self.h));
        let off: Vec<String> = self.off_units().iter().map(ToString::to_string).collect();
        let why = match off.as_slice() {
            [] => Why::new("lab-ffn-relu-none"),
            [one] => Why::new("lab-ffn-relu-one").arg("unit", one.as_str()),
            [init @ .., last] => Why::new("lab-ffn-relu-many")
                .arg("units", init.join(", "))
                .arg("last", last.as_str()),
        };
        lang.why(&why.arg("h", h))
    }

    /// The whole example as the lesson writes it.
    #[must_use]
    pub fn text(&self) -> String {
        self.text_in(Lang::En)
    }

    /// The whole example in `lang`: its words the catalog's, its numbers
    /// and formulas as they are.
    #[must_use]
    pub fn text_in(&self, lang: Lang) -> String {
        let mut out = String::new();
        let title = lang.why(&Why::new("lab-ffn-title").arg("what", self.title_in(lang)));
        let _ = writeln!(out, "{title}");
        let _ = writeln!(out, "x  = {}", fmt_vec(&self.x));
        for l in self.matrix_lines_in(lang) {
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
            let _ = writeln!(out, "\n{}", self.heading(s, n, lang));
            for step in steps {
                let _ = writeln!(out, "   {}", step.text_in(lang));
            }
            let _ = writeln!(out, "   {}", self.summary(s, lang));
        }
        if let Some(note) = self.residual_note_in(lang) {
            let residual = lang.t("lab-ffn-residual");
            let _ = writeln!(out, "\n{}. {residual}\n   {note}", n + 1);
        }
        if let Some(note) = self.mistake_note_in(lang) {
            let _ = writeln!(out, "\n{note}");
        }
        out
    }
}
