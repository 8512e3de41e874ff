//! The Budget tab's quiz: predict a row of the budget table before it is
//! shown. Every expected number, and every named wrong one, is counted by
//! [`Budget`](crate::budget::Budget) on the model (or on the variant the mistake imagines):
//!
//! - the MLP's weights: d·d_ff alone is only W1 (16,384 on the lesson
//!   model); 3·d·d_ff is three matrices, SwiGLU's (49,152);
//! - the MLP as SwiGLU at the matched width d_ff' = round(2/3·d_ff):
//!   3·d·d_ff' (32,832); SwiGLU kept at d_ff gives 49,152;
//! - GPT-2's attention weights 4·d²: 3·d² forgets the output projection O;
//! - GPT-2's total: a separate LM head on a tied model adds V·d too many;
//! - the FFN's share of FLOPs: its share of parameters (2/3) is not it.

mod questions;
#[cfg(test)]
mod tests;

use crate::budget::thousands;
use crate::i18n::Lang;
use crate::text::shown;
use crate::why::Why;
pub use questions::questions;

/// A number the student predicts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// An exact count.
    Count(u64),
    /// A percentage, e.g. 54.5.
    Percent(f64),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Count(n) => f.write_str(&thousands(*n)),
            Value::Percent(p) => write!(f, "{p:.1}%"),
        }
    }
}

/// Which column of the budget table a question is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// The lab's own model.
    ThisModel,
    /// GPT-2 small, beside it.
    Gpt2Small,
}

/// One count to predict.
#[derive(Debug, Clone, PartialEq)]
pub struct CountQuestion {
    /// The question, a catalog message.
    pub ask: Why,
    /// The budget table's rows this question hides until it is answered:
    /// its own, and any that would give it away (the ratio, the
    /// total minus wpe).
    pub hides: Vec<&'static str>,
    /// The column the row is hidden in.
    pub column: Column,
    /// The expected number, counted by the budget code.
    pub truth: Value,
    /// Where it comes from, e.g. `2 matrices of d·d_ff = 64·256`: a
    /// catalog message.
    pub formula: Why,
    /// Named wrong numbers, each with what it counts (a catalog message).
    pub mistakes: Vec<(Value, Why)>,
}

/// The judge's answer on a count.
#[derive(Debug, Clone, PartialEq)]
pub enum CountVerdict {
    /// The exact number.
    Right,
    /// Wrong, and what the number counts when the mistake is named.
    Wrong(Wrong),
}

/// What a wrong count is.
#[derive(Debug, Clone, PartialEq)]
pub enum Wrong {
    /// A named mistake: what the number counts.
    Named(Why),
    /// No mistake the quiz knows: the text typed.
    NotIt(String),
}

/// Why typed text is not a count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    /// Not a whole number with grouped separators.
    #[error("'{}' is not an exact count; allowed: a whole number, e.g. 16384, 16,384 or 16_384", shown(.0))]
    NotCount(String),
    /// Not a percentage.
    #[error("'{}' is not a percentage; allowed: e.g. 54.5 or 54.5%", shown(.0))]
    NotPercent(String),
}

impl CountError {
    /// The same words as a catalog message, for the stepper's languages.
    #[must_use]
    pub fn why(&self) -> Why {
        match self {
            CountError::NotCount(t) => {
                Why::new("lab-count-not-count").arg("text", shown(t).to_string())
            }
            CountError::NotPercent(t) => {
                Why::new("lab-count-not-percent").arg("text", shown(t).to_string())
            }
        }
    }
}

/// `16384`, `16,384` or `16_384`; separators only between groups of three.
///
/// # Errors
/// Anything else, `16.4k` and `1,63,84` included.
pub fn parse_count(text: &str) -> Result<u64, CountError> {
    let t = text.trim();
    let bad = || CountError::NotCount(t.into());
    let groups: Vec<&str> = t.split([',', '_']).collect();
    let ok = !groups[0].is_empty()
        && groups[0].len() <= if groups.len() > 1 { 3 } else { 20 }
        && groups[1..].iter().all(|g| g.len() == 3)
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return Err(bad());
    }
    groups.concat().parse().map_err(|_| bad())
}

/// `54.5`, `54.5%` or `55 %`: the value and its decimals.
fn parse_percent(text: &str) -> Result<(f64, i32), CountError> {
    let t = text.trim();
    let n = t.strip_suffix('%').unwrap_or(t).trim();
    let digits_ok = !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && n.matches('.').count() <= 1;
    let v: f64 = n
        .parse()
        .ok()
        .filter(|_| digits_ok)
        .ok_or_else(|| CountError::NotPercent(t.into()))?;
    let decimals = n.split_once('.').map_or(0, |(_, f)| f.len());
    Ok((v, i32::try_from(decimals).unwrap_or(9)))
}

/// Whether `v` (typed with `decimals`) is `truth` rounded to as many.
fn same_percent(v: f64, decimals: i32, truth: f64) -> bool {
    let scale = 10f64.powi(decimals);
    ((truth * scale).round() - v * scale).abs() < 1e-6
}

impl CountQuestion {
    /// Judges typed text.
    ///
    /// # Errors
    /// The text is not a count (or a percentage, when one is asked for).
    pub fn judge(&self, text: &str) -> Result<CountVerdict, CountError> {
        let hits = |want: Value| -> Result<bool, CountError> {
            Ok(match want {
                Value::Count(n) => parse_count(text)? == n,
                Value::Percent(p) => {
                    let (v, dec) = parse_percent(text)?;
                    same_percent(v, dec, p)
                }
            })
        };
        if hits(self.truth)? {
            return Ok(CountVerdict::Right);
        }
        for (v, says) in &self.mistakes {
            if hits(*v)? {
                return Ok(CountVerdict::Wrong(Wrong::Named(says.clone())));
            }
        }
        Ok(CountVerdict::Wrong(Wrong::NotIt(text.trim().to_string())))
    }

    /// The question in `lang`.
    #[must_use]
    pub fn ask_in(&self, lang: Lang) -> String {
        lang.why(&self.ask)
    }

    /// The expected number and where it comes from, in `lang`:
    /// `2 matrices of d·d_ff = 64·256 = 32,768`.
    #[must_use]
    pub fn truth_in(&self, lang: Lang) -> String {
        format!("{} = {}", lang.why(&self.formula), self.truth)
    }

    /// What a wrong answer is, in `lang`.
    #[must_use]
    pub fn said(&self, wrong: &Wrong, lang: Lang) -> String {
        match wrong {
            Wrong::Named(why) => lang.why(why),
            Wrong::NotIt(text) => lang.why(
                &Why::new("lab-count-not-it")
                    .arg("text", text.as_str())
                    .arg("truth", self.truth_in(lang)),
            ),
        }
    }
}
