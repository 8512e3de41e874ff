//! Judging an answer against a step's shape and axes.
//!
//! An answer fits a shape when, axis by axis, every typed name names the
//! recorded axis and every typed size equals its size. A sizes-only answer
//! that fits is still not judged when two axes of different names have the
//! same size (q is (B=2,h=4,T=4,hd=16): h = T = 4), since (B,T,h,hd) has
//! those sizes too: the quiz asks which axis is which ([`FollowUp`]).

use super::axis::Axis;
use super::mistakes::{Mistake, dims_of};
use super::parse::{Answer, Dim, ParseError, parse};
use crate::trace::{Event, Trace};

/// One question: predict the shape of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The step's path, e.g. `block1.attn.q`.
    pub path: String,
    /// The step's shape as recorded, e.g. `(B=2,h=4,T=4,hd=16)`.
    pub shown: String,
    /// The step's axes (T twice read as Tq, Tk) and sizes.
    pub dims: Vec<(Axis, usize)>,
    /// The named wrong shapes for this step.
    pub mistakes: Vec<Mistake>,
}

/// The judge's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The shape and axis order fit.
    Right,
    /// Wrong, and why: a named mistake's meaning or the axes that differ.
    Wrong(String),
    /// The sizes fit more than one order: which axis is which?
    Ask(FollowUp),
}

/// A question about an answer whose sizes fit more than one axis order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowUp {
    /// e.g. "which of the two 4s is h: the 2nd or the 3rd? …"
    pub question: String,
    /// The sizes the student gave.
    pub sizes: Vec<usize>,
    /// Positions (from 0) a single number may pick for `pivot`, when one
    /// number says it all; the other positions of `group` then take the
    /// remaining axes in their order.
    pub group: Vec<usize>,
    /// The axis a single number places (h), if one number says it all.
    pub pivot: Option<Axis>,
    /// The template of names shown, `(B,?,?,hd)`.
    pub template: String,
    /// [`FollowUp::question`] as a catalog message (`quiz-follow-up-*`),
    /// for a view in another language; in English it reads as `question`.
    pub why: crate::why::Why,
}

/// Why a follow-up reply is not an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FollowUpError {
    /// The reply is not an answer.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Sizes alone again: they fit two orders.
    #[error("name the axes this time: type {0} with each ? replaced by a name")]
    SizesAgain(String),
    /// A position outside the ones asked about.
    #[error("{0} is not one of the positions asked about; allowed: {1}")]
    NotAChoice(usize, String),
}

const ORDINALS: [&str; 8] = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"];
const WORDS: [&str; 8] = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
];

impl Question {
    /// The question for step `e` of `trace`.
    #[must_use]
    pub fn of(e: &Event, trace: &Trace) -> Self {
        Self {
            path: e.path.clone(),
            shown: e.named_shape(),
            dims: dims_of(e),
            mistakes: super::mistakes::of(e, trace),
        }
    }

    /// Judges an answer.
    #[must_use]
    pub fn judge(&self, a: &Answer) -> Verdict {
        if fits(a, &self.dims) {
            return match self.follow_up(a) {
                Some(f) => Verdict::Ask(f),
                None => Verdict::Right,
            };
        }
        if let Some(m) = self.mistakes.iter().find(|m| fits(a, &m.dims)) {
            return Verdict::Wrong(m.says.clone());
        }
        Verdict::Wrong(self.differences(a))
    }

    /// Judges the reply to a follow-up: a position (`2`, `2nd`, `second`)
    /// or the axis names, with or without sizes.
    ///
    /// # Errors
    /// The reply is neither, or gives sizes alone again.
    pub fn judge_follow_up(&self, f: &FollowUp, text: &str) -> Result<Verdict, FollowUpError> {
        if let (Some(pivot), Some(at)) = (&f.pivot, ordinal(text)) {
            let Some(k) = f.group.iter().position(|&g| g + 1 == at) else {
                return Err(FollowUpError::NotAChoice(at, choices(&f.group)));
            };
            let mut rest = f.group.iter().map(|&g| self.dims[g].0.clone());
            let mut dims: Vec<Dim> = f.sizes.iter().map(|&n| sized(None, n)).collect();
            for (i, &g) in f.group.iter().enumerate() {
                let axis = if i == k {
                    pivot.clone()
                } else {
                    rest.find(|a| a != pivot).unwrap_or_else(|| pivot.clone())
                };
                dims[g].axis = Some(axis);
            }
            return Ok(self.judge(&Answer { dims }));
        }
        let mut a = parse(text)?;
        if a.sizes_only() {
            return Err(FollowUpError::SizesAgain(f.template.clone()));
        }
        if a.dims.len() == f.sizes.len() {
            for (d, &n) in a.dims.iter_mut().zip(&f.sizes) {
                d.size = d.size.or(Some(n));
            }
        }
        Ok(self.judge(&a))
    }

    /// The follow-up for a fitting answer, if its unnamed sizes fit
    /// another order too.
    fn follow_up(&self, a: &Answer) -> Option<FollowUp> {
        let unnamed: Vec<usize> = (0..a.dims.len())
            .filter(|&i| a.dims[i].axis.is_none())
            .collect();
        let groups: Vec<Vec<usize>> = unnamed
            .iter()
            .map(|&i| {
                let same = |j: &&usize| self.dims[**j].1 == self.dims[i].1;
                unnamed.iter().filter(same).copied().collect::<Vec<_>>()
            })
            .filter(|g| {
                g.iter()
                    .any(|&j| self.dims[j].0.family() != self.dims[g[0]].0.family())
            })
            .collect();
        let group = groups.first()?.clone();
        let families: Vec<Axis> = group.iter().map(|&g| self.dims[g].0.family()).collect();
        let once = |x: &Axis| families.iter().filter(|y| *y == x).count() == 1;
        let mut distinct = families.clone();
        distinct.dedup();
        distinct.sort_by_key(|a| a.to_string());
        distinct.dedup();
        let pivot = (groups.iter().all(|g| *g == group) && distinct.len() == 2)
            .then(|| group.iter().map(|&g| self.dims[g].0.clone()).find(once))
            .flatten();
        let template = {
            let names: Vec<String> = self
                .dims
                .iter()
                .enumerate()
                .map(|(i, (x, _))| {
                    if groups.iter().any(|g| g.contains(&i)) {
                        "?".to_string()
                    } else {
                        x.to_string()
                    }
                })
                .collect();
            format!("({})", names.join(","))
        };
        let size = self.dims[group[0]].1;
        let count = [
            "", "", "two", "three", "four", "five", "six", "seven", "eight",
        ];
        let question = match &pivot {
            Some(p) => format!(
                "your sizes fit more than one order: which of the {} {size}s is {}, the {}? Type its position ({}), or name the axes {template}",
                count[group.len()],
                p,
                or_list(&group.iter().map(|&g| ORDINALS[g]).collect::<Vec<_>>()),
                choices(&group),
            ),
            None => format!(
                "your sizes fit more than one order: name the axes, {template} with each ? replaced by a name"
            ),
        };
        let why = match &pivot {
            Some(p) => {
                let nums: Vec<String> = group.iter().map(|g| (g + 1).to_string()).collect();
                crate::why::Why::new("quiz-follow-up-which")
                    .arg("count", count[group.len()])
                    .arg("n", group.len())
                    .arg("size", size)
                    .arg("axis", p.to_string())
                    .arg(
                        "ordinals",
                        or_list(&group.iter().map(|&g| ORDINALS[g]).collect::<Vec<_>>()),
                    )
                    .arg("choices", choices(&group))
                    .arg("positions", nums.join("、"))
            }
            None => crate::why::Why::new("quiz-follow-up-name"),
        }
        .arg("template", template.as_str());
        Some(FollowUp {
            question,
            why,
            sizes: self.dims.iter().map(|d| d.1).collect(),
            group,
            pivot,
            template,
        })
    }

    /// What differs, axis by axis.
    fn differences(&self, a: &Answer) -> String {
        let said = shown(a);
        if a.dims.len() != self.dims.len() {
            return format!(
                "{said} has {} axes; {} has {}: {}",
                a.dims.len(),
                self.path,
                self.dims.len(),
                self.shown
            );
        }
        let wrong: Vec<String> = a
            .dims
            .iter()
            .zip(&self.dims)
            .enumerate()
            .filter(|(_, (d, t))| !fits_dim(d, t))
            .map(|(i, (d, (x, n)))| {
                format!("the {} is {}={n}, not {}", ORDINALS[i], x, dim_text(d))
            })
            .collect();
        format!(
            "{said}: {}; {} is {}",
            wrong.join(", "),
            self.path,
            self.shown
        )
    }
}

fn sized(axis: Option<Axis>, n: usize) -> Dim {
    Dim {
        axis,
        size: Some(n),
    }
}

fn fits_dim(d: &Dim, (axis, n): &(Axis, usize)) -> bool {
    d.axis.as_ref().is_none_or(|a| a.names(axis)) && d.size.is_none_or(|s| s == *n)
}

fn fits(a: &Answer, dims: &[(Axis, usize)]) -> bool {
    a.dims.len() == dims.len() && a.dims.iter().zip(dims).all(|(d, t)| fits_dim(d, t))
}

fn dim_text(d: &Dim) -> String {
    match (&d.axis, d.size) {
        (Some(a), Some(n)) => format!("{a}={n}"),
        (Some(a), None) => a.to_string(),
        (None, Some(n)) => n.to_string(),
        (None, None) => "?".into(),
    }
}

/// An answer as typed, `(B,T,h,hd)` or `(2,4,4,16)`.
#[must_use]
pub fn shown(a: &Answer) -> String {
    let parts: Vec<String> = a.dims.iter().map(dim_text).collect();
    format!("({})", parts.join(","))
}

/// `2nd or 3rd`, `2nd, 3rd or 4th`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `2 or 3`, positions from 1.
fn choices(group: &[usize]) -> String {
    let ns: Vec<String> = group.iter().map(|g| (g + 1).to_string()).collect();
    or_list(&ns.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A position typed as `2`, `2nd`, `the 2nd` or `second`, from 1.
fn ordinal(text: &str) -> Option<usize> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.strip_prefix("the ").unwrap_or(&t).trim();
    if let Some(i) = WORDS.iter().position(|w| *w == t) {
        return Some(i + 1);
    }
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: usize = digits.parse().ok()?;
    (digits.len() == t.len() || ORDINALS.get(n.wrapping_sub(1)) == Some(&t)).then_some(n)
}
