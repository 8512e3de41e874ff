//! The steps of the FFN by hand, in order: each dot product checked for
//! overflow, each activation, the mistake's activation after W2, and the
//! residual when y has x's width.
//!
//! # Shapes
//! x: (d) → z, u, h: (f) → y: (d') → x + y: (d), when d' = d

use super::{FfnByHand, Mistake, Stage, Step};
use crate::i18n::Lang;
use crate::lesson::matrix::{checked_dot, overflow, terms};
use crate::lesson::{LessonError, fmt_factor, fmt_num, silu};

/// `name = a*b + c*d = value`, one step of a dot product, refused on overflow.
fn dot(stage: Stage, name: String, pairs: Vec<(f64, f64)>, x: &[f64]) -> Result<Step, LessonError> {
    let value = checked_dot(&name, &pairs, x)?;
    let text = format!("{name} = {} = {}", terms(&pairs), fmt_num(value));
    Ok(Step {
        stage,
        name,
        products: pairs,
        value,
        text,
        note: None,
        mistaken: false,
    })
}

/// A step that is not a dot product: one activation or one residual sum.
fn single(stage: Stage, name: String, value: f64, text: String) -> Step {
    Step {
        stage,
        name,
        products: vec![],
        value,
        text,
        note: None,
        mistaken: false,
    }
}

/// `step` with the words of catalog key `note` after its arithmetic, in
/// English (its other languages: [`Step::text_in`]).
fn noted(mut step: Step, note: &'static str) -> Step {
    step.text.push_str(&Lang::En.t(note));
    step.note = Some(note);
    step
}

/// The values of the steps of `stage`.
fn values(steps: &[Step], stage: Stage) -> Vec<f64> {
    steps
        .iter()
        .filter(|s| s.stage == stage)
        .map(|s| s.value)
        .collect()
}

impl FfnByHand {
    /// Every step, in order, and the vectors they make.
    pub(super) fn compute(&mut self) -> Result<(), LessonError> {
        let (x, gated, mistake) = (self.x.clone(), self.wu.is_some(), self.mistake);
        let f = self.w1.first().map_or(0, Vec::len);
        // x against column c of m (or its row c, with the rows mistake).
        let pairs = |m: &[Vec<f64>], v: &[f64], c: usize, rows: bool| -> Vec<(f64, f64)> {
            v.iter()
                .enumerate()
                .map(|(i, a)| (*a, if rows { m[c][i] } else { m[i][c] }))
                .collect()
        };
        let rows = mistake == Mistake::Rows;
        let z_name = if gated { "g" } else { "z" };
        let mut steps = Vec::new();
        for j in 0..f {
            let name = format!("{z_name}_{}", j + 1);
            steps.push(dot(Stage::Hidden, name, pairs(&self.w1, &x, j, rows), &x)?);
        }
        if let Some(wu) = &self.wu {
            for j in 0..f {
                let name = format!("u_{}", j + 1);
                steps.push(dot(Stage::Up, name, pairs(wu, &x, j, rows), &x)?);
            }
        }
        self.z = values(&steps, Stage::Hidden);
        self.u = values(&steps, Stage::Up);
        let later = mistake == Mistake::ReluAfterW2;
        for j in 0..f {
            let (name, zj) = (format!("h_{}", j + 1), self.z[j]);
            let step = match (gated, later) {
                (false, false) => {
                    let h = zj.max(0.0);
                    let text = format!("{name} = max(0, {}) = {}", fmt_num(zj), fmt_num(h));
                    let step = single(Stage::Relu, name, h, text);
                    if zj <= 0.0 {
                        noted(step, "lab-ffn-step-off")
                    } else {
                        step
                    }
                }
                (false, true) => {
                    let text = format!("{name} = z_{} = {}", j + 1, fmt_num(zj));
                    noted(single(Stage::Relu, name, zj, text), "lab-ffn-step-no-relu")
                }
                (true, _) => {
                    let (uj, s) = (self.u[j], if later { zj } else { silu(zj) });
                    let h = s * uj;
                    if !h.is_finite() {
                        return Err(overflow(
                            format!("{name} = {}*{}", fmt_num(s), fmt_num(uj)),
                            &x,
                        ));
                    }
                    if later {
                        let text = format!(
                            "{name} = {}*{} = {}",
                            fmt_factor(zj),
                            fmt_factor(uj),
                            fmt_num(h)
                        );
                        noted(single(Stage::Relu, name, h, text), "lab-ffn-step-no-silu")
                    } else {
                        let text = format!(
                            "{name} = silu({})*{} = {}*{} = {}",
                            fmt_num(zj),
                            fmt_factor(uj),
                            fmt_factor(s),
                            fmt_factor(uj),
                            fmt_num(h)
                        );
                        single(Stage::Relu, name, h, text)
                    }
                }
            };
            steps.push(step);
        }
        self.h = values(&steps, Stage::Relu);
        let d_out = self.w2.first().map_or(0, Vec::len);
        for k in 0..d_out {
            let name = format!("y_{}", k + 1);
            steps.push(dot(
                Stage::Output,
                name,
                pairs(&self.w2, &self.h, k, false),
                &x,
            )?);
        }
        self.y_pre = values(&steps, Stage::Output);
        if later {
            for (k, v) in self.y_pre.clone().into_iter().enumerate() {
                let name = format!("y_{}", k + 1);
                let (y, text) = if gated {
                    let y = silu(v);
                    (y, format!("{name} = silu({}) = {}", fmt_num(v), fmt_num(y)))
                } else {
                    let y = v.max(0.0);
                    (
                        y,
                        format!("{name} = max(0, {}) = {}", fmt_num(v), fmt_num(y)),
                    )
                };
                steps.push(single(Stage::ActAfter, name, y, text));
            }
            self.y = values(&steps, Stage::ActAfter);
        } else {
            self.y = self.y_pre.clone();
        }
        if self.y.len() == x.len() {
            for (k, (xk, yk)) in x.iter().zip(&self.y).enumerate() {
                let (name, o) = (format!("out_{}", k + 1), xk + yk);
                let text = format!(
                    "{name} = {} + {} = {}",
                    fmt_num(*xk),
                    fmt_factor(*yk),
                    fmt_num(o)
                );
                if !o.is_finite() {
                    return Err(overflow(text, &x));
                }
                steps.push(single(Stage::Residual, name, o, text));
            }
            self.out = values(&steps, Stage::Residual);
        }
        // Where the mistake is made: x against rows, the activation left
        // out before W2 and put after it.
        for s in &mut steps {
            s.mistaken = match s.stage {
                Stage::Hidden | Stage::Up => mistake == Mistake::Rows,
                Stage::Relu => later,
                Stage::ActAfter => true,
                Stage::Output | Stage::Residual => false,
            };
        }
        self.steps = steps;
        Ok(())
    }
}
