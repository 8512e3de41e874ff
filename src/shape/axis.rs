//! One axis of a tensor, typed: what it holds, not the letters it is
//! written with.
//!
//! Logs write axes as short strings, shapetrace's own and those of
//! `scripts/shapetrace_export.py` (named by dataflow in
//! `scripts/shapetrace_axes.py`):
//!
//! ```text
//! B  T  Tq  Tk  S  d  h  kv  h_kv  hd  ff  V  ctx  types  E  k  n_e  qkv  rep  1  ?
//! n_e≤            a count known only by its bound
//! h·hd  B·T       a product of axes
//! 3d  4hd  2ff    a multiple of one      d/2   a fraction of one     h'  another of one
//! [T·hd]          axes merged by a reshape that mixes them
//! [T·d→4]         axes regrouped into a piece of 4
//! [d→1]           one axis reduced to 1, kept
//! [64]            an axis known only by its size
//! ```
//!
//! The string is read in one place ([`Axis::parse`]) and written in one
//! ([`Display`](std::fmt::Display)); serde goes through the string, so a
//! log reads back and writes out byte for byte. Anything else is
//! [`Axis::Named`], kept as written.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One axis of a tensor.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum Axis {
    /// `B`: the sequences in the batch.
    Batch,
    /// `T`: the positions, where one position axis is present.
    Seq,
    /// `Tq`: the query positions, the rows of the scores.
    Query,
    /// `Tk`: the key positions, the columns of the scores.
    Key,
    /// `S`: the positions a key/value cache holds, the prompt's and every
    /// token decoded since (at most the window, under a sliding window).
    Cached,
    /// `d`: the model width, the stream's last axis.
    Model,
    /// `h`: the query heads.
    Heads,
    /// `kv`: the key/value heads of grouped-query attention, in
    /// shapetrace's logs.
    KvHeads,
    /// `h_kv`: the key/value heads as the exporter names them (its `kv`
    /// is a stacked k, v pair); kept apart from [`Axis::KvHeads`] so each
    /// log reads back as written.
    ExportKvHeads,
    /// `rep`: the copies of each key/value head, h / kv (the exporter's).
    Repeats,
    /// `hd`: the width of one head.
    HeadDim,
    /// `ff`: the MLP's hidden width, d_ff.
    Hidden,
    /// `V`: the vocabulary.
    Vocab,
    /// `ctx`: the positions a position table holds (wpe's rows).
    Context,
    /// `types`: the token types a type table holds.
    TokenTypes,
    /// `E`: the experts of a mixture of experts.
    Experts,
    /// `k`: the experts each token chose (top-k).
    Chosen,
    /// `n_e`: the tokens routed to one expert.
    Routed,
    /// `qkv`: q, k and v side by side (a fused projection's width, or the
    /// exporter's axis of the three stacked).
    Qkv,
    /// `1`: an axis of size 1 (unsqueezed, or kept by a reduction).
    One,
    /// `?`: an axis a step's operands did not name.
    Unknown,
    /// `n_e≤`: a count known only by its bound, as a shape-only run's
    /// expert batch: its size is the most it can hold.
    Bound(Box<Axis>),
    /// `h·hd`, `B·T`: the product of axes, each still whole.
    Product(Vec<Axis>),
    /// `3d`, `4hd`, `2ff`: a whole multiple of one axis.
    Multiple {
        /// The multiple, at least 1.
        times: usize,
        /// The axis multiplied.
        of: Box<Axis>,
    },
    /// `d/2`: a whole fraction of one axis.
    Fraction {
        /// The axis divided.
        of: Box<Axis>,
        /// What it is divided by, at least 1.
        by: usize,
    },
    /// `h'`: an axis of the same kind as another but of another size.
    Primed(Box<Axis>),
    /// `[T·hd]`: axes a reshape merged while mixing them, not one clean
    /// axis.
    Merged(Vec<Axis>),
    /// `[T·d→4]`: a piece of size `size` that a reshape cut from axes it
    /// mixed.
    Regrouped {
        /// The axes that went in.
        from: Vec<Axis>,
        /// The size of this piece.
        size: usize,
    },
    /// `[d→1]`: one axis reduced to size 1 and kept.
    Reduced(Box<Axis>),
    /// `[64]`: an axis whose origin no rule follows, known by its size.
    Size(usize),
    /// Any other name, kept as written.
    Named(String),
}

/// Every axis written as one word, for [`Axis::parse`].
const WORDS: &[Axis] = &[
    Axis::Batch,
    Axis::Seq,
    Axis::Query,
    Axis::Key,
    Axis::Cached,
    Axis::Model,
    Axis::Heads,
    Axis::KvHeads,
    Axis::ExportKvHeads,
    Axis::Repeats,
    Axis::HeadDim,
    Axis::Hidden,
    Axis::Vocab,
    Axis::Context,
    Axis::TokenTypes,
    Axis::Experts,
    Axis::Chosen,
    Axis::Routed,
    Axis::Qkv,
    Axis::One,
    Axis::Unknown,
];

/// Joins the parts of a product.
const TIMES: char = '·';
/// Marks a count known only by its bound.
const BOUND: char = '≤';
/// Between what went into a regrouping and the size that came out.
const TO: char = '→';

impl Axis {
    /// The axis a log's string names; [`Axis::Named`] when it is none of
    /// the forms above. The inverse of [`Display`](fmt::Display).
    #[must_use]
    pub fn parse(s: &str) -> Axis {
        Self::compound(s).unwrap_or_else(|| Axis::Named(s.to_string()))
    }

    /// `s` as any form but [`Axis::Named`] at its top. A bound is one
    /// level deep (`n_e≤≤` is a name): no log line nests the parse.
    fn compound(s: &str) -> Option<Axis> {
        if let Some(inner) = s.strip_suffix(BOUND) {
            let inner = Self::unbound_form(inner).or_else(|| Self::name(inner))?;
            return Some(Axis::Bound(Box::new(inner)));
        }
        Self::unbound_form(s)
    }

    /// `s` as a bracketed form, a product or an atom other than a name.
    fn unbound_form(s: &str) -> Option<Axis> {
        if let Some(inner) = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            return Self::bracketed(inner);
        }
        if s.contains(TIMES) {
            return Self::parts(s).map(Axis::Product);
        }
        Self::atom(s).filter(|a| !matches!(a, Axis::Named(_)))
    }

    /// What is inside `[…]`: a size, a regrouping or reduction, or a merge.
    fn bracketed(inner: &str) -> Option<Axis> {
        if let Some(n) = number(inner) {
            return Some(Axis::Size(n));
        }
        if let Some((from, size)) = inner.split_once(TO) {
            let (mut from, size) = (Self::parts(from)?, number(size)?);
            return Some(match (from.len(), size) {
                (1, 1) => Axis::Reduced(Box::new(from.remove(0))),
                _ => Axis::Regrouped { from, size },
            });
        }
        Self::parts(inner)
            .filter(|p| p.len() >= 2)
            .map(Axis::Merged)
    }

    /// `a·b·…`, each part an atom.
    fn parts(s: &str) -> Option<Vec<Axis>> {
        s.split(TIMES).map(Self::atom).collect()
    }

    /// One axis with no product, bracket or bound in it: a word, a
    /// multiple, a fraction, a primed axis, or a plain name.
    fn atom(s: &str) -> Option<Axis> {
        if let Some(a) = WORDS.iter().find(|a| a.word() == Some(s)) {
            return Some(a.clone());
        }
        if let Some(of) = s.strip_suffix('\'') {
            return Self::name(of).map(|a| Axis::Primed(Box::new(a)));
        }
        if let Some((of, by)) = s.split_once('/') {
            let of = Box::new(Self::name(of)?);
            return Some(Axis::Fraction {
                of,
                by: number(by)?,
            });
        }
        let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            let times = number(&s[..digits])?;
            let of = Box::new(Self::name(&s[digits..])?);
            return Some(Axis::Multiple { times, of });
        }
        Self::name(s)
    }

    /// A word, or a plain name (letters, digits and `_`, not first a
    /// digit) that is no word.
    fn name(s: &str) -> Option<Axis> {
        if let Some(a) = WORDS.iter().find(|a| a.word() == Some(s)) {
            return a.is_name().then(|| a.clone());
        }
        let plain = s.chars().next().is_some_and(|c| !c.is_ascii_digit())
            && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        plain.then(|| Axis::Named(s.to_string()))
    }

    /// The word an axis is written as, if it is one word.
    fn word(&self) -> Option<&'static str> {
        Some(match self {
            Axis::Batch => "B",
            Axis::Seq => "T",
            Axis::Query => "Tq",
            Axis::Key => "Tk",
            Axis::Cached => "S",
            Axis::Model => "d",
            Axis::Heads => "h",
            Axis::KvHeads => "kv",
            Axis::ExportKvHeads => "h_kv",
            Axis::Repeats => "rep",
            Axis::HeadDim => "hd",
            Axis::Hidden => "ff",
            Axis::Vocab => "V",
            Axis::Context => "ctx",
            Axis::TokenTypes => "types",
            Axis::Experts => "E",
            Axis::Chosen => "k",
            Axis::Routed => "n_e",
            Axis::Qkv => "qkv",
            Axis::One => "1",
            Axis::Unknown => "?",
            _ => return None,
        })
    }

    /// Whether this is a word made of letters, which a multiple, a
    /// fraction or a prime may take (not `1` or `?`).
    fn is_name(&self) -> bool {
        self.word().is_some() && !matches!(self, Axis::One | Axis::Unknown)
    }

    /// One of `n` equal slices of this axis, as a device holds it: `h` →
    /// `h/n`; a product splits its first axis (`h·hd` → `h/n·hd`), a
    /// fraction divides further; `n` 1 keeps it whole.
    #[must_use]
    pub fn split(&self, n: usize) -> Axis {
        match self {
            _ if n == 1 => self.clone(),
            Axis::Fraction { of, by } => Axis::Fraction {
                of: of.clone(),
                by: by * n,
            },
            Axis::Product(parts) if !parts.is_empty() => {
                let mut parts = parts.clone();
                parts[0] = parts[0].split(n);
                Axis::Product(parts)
            }
            a => Axis::Fraction {
                of: Box::new(a.clone()),
                by: n,
            },
        }
    }

    /// Whether this is a position axis: `T`, the scores' `Tq` or `Tk`, or
    /// a cache's `S`.
    #[must_use]
    pub fn is_positions(&self) -> bool {
        matches!(self, Axis::Seq | Axis::Query | Axis::Key | Axis::Cached)
    }

    /// The axis a bound counts (`n_e≤` → `n_e`), else the axis itself.
    #[must_use]
    pub fn unbound(&self) -> &Axis {
        match self {
            Axis::Bound(a) => a.unbound(),
            a => a,
        }
    }

    /// Whether this is a count known only by its bound (`n_e≤`).
    #[must_use]
    pub fn is_bound(&self) -> bool {
        matches!(self, Axis::Bound(_))
    }

    /// Whether this is a bracketed axis (merged, regrouped or reduced)
    /// whose first axis in is the batch: a reshape or reduction that
    /// mixed the batch's rows.
    #[must_use]
    pub fn mixes_batch(&self) -> bool {
        match self {
            Axis::Merged(from) | Axis::Regrouped { from, .. } => from.first() == Some(&Axis::Batch),
            Axis::Reduced(a) => **a == Axis::Batch,
            _ => false,
        }
    }
}

/// A whole number written without a leading zero.
fn number(s: &str) -> Option<usize> {
    let canonical =
        !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten()
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |parts: &[Axis]| {
            let parts: Vec<String> = parts.iter().map(ToString::to_string).collect();
            parts.join(&TIMES.to_string())
        };
        if let Some(w) = self.word() {
            return f.write_str(w);
        }
        match self {
            Axis::Bound(a) => write!(f, "{a}{BOUND}"),
            Axis::Product(parts) => f.write_str(&join(parts)),
            Axis::Multiple { times, of } => write!(f, "{times}{of}"),
            Axis::Fraction { of, by } => write!(f, "{of}/{by}"),
            Axis::Primed(a) => write!(f, "{a}'"),
            Axis::Merged(parts) => write!(f, "[{}]", join(parts)),
            Axis::Regrouped { from, size } => write!(f, "[{}{TO}{size}]", join(from)),
            Axis::Reduced(a) => write!(f, "[{a}{TO}1]"),
            Axis::Size(n) => write!(f, "[{n}]"),
            Axis::Named(s) => f.write_str(s),
            _ => Ok(()),
        }
    }
}

impl std::str::FromStr for Axis {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Axis::parse(s))
    }
}

impl From<String> for Axis {
    fn from(s: String) -> Self {
        Axis::parse(&s)
    }
}

impl From<&str> for Axis {
    fn from(s: &str) -> Self {
        Axis::parse(s)
    }
}

impl From<Axis> for String {
    fn from(a: Axis) -> Self {
        a.to_string()
    }
}

/// An axis equals the string it is written as: for tests and messages
/// (`axes == ["B", "T", "d"]`); decisions match variants.
impl PartialEq<&str> for Axis {
    fn eq(&self, other: &&str) -> bool {
        Axis::parse(other) == *self
    }
}

/// Axes from the strings they are written as: `axes(&["B", "T", "d"])`.
#[must_use]
pub fn axes(names: &[&str]) -> Vec<Axis> {
    names.iter().map(|s| Axis::parse(s)).collect()
}

#[cfg(test)]
mod tests;
