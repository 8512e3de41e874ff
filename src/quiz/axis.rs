//! Axis names a student may type, and the trace's own names, mapped to one
//! [`Axis`] each: `B`, `T` (`Tq`, `Tk`), `d`, `h`, `hd`, `ff`, `kv`, …
//!
//! The trace names the axes of the scores either `(B,h,T,T)` or
//! `(B,h,Tq,Tk)`; [`truth`] reads both as (Batch, Heads, Query, Key), so
//! the judge works with either naming.

/// One axis of a shape, whatever name it was typed or recorded under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Axis {
    /// B: sequences in the batch.
    Batch,
    /// T: positions, where only one T axis is present.
    Seq,
    /// Tq: the query positions (rows of the scores).
    Query,
    /// Tk: the key positions (columns of the scores).
    Key,
    /// d: the model width (the stream's last axis).
    Model,
    /// h: the query heads.
    Heads,
    /// kv: the key/value heads under grouped-query attention.
    KvHeads,
    /// hd: the width of one head, d / h.
    HeadDim,
    /// ff: the MLP's hidden width, d_ff.
    Hidden,
    /// kv·hd: the width of k and v under grouped-query attention.
    KvWidth,
    /// V: the vocabulary.
    Vocab,
    /// A name this module does not know, kept as recorded.
    Other(String),
}

/// Every name a student may type for each axis (case matters for one-
/// letter names: `d` is the width, `D` too, `h` the heads, `H` too).
const ALIASES: &[(&str, Axis)] = &[
    ("B", Axis::Batch),
    ("b", Axis::Batch),
    ("batch", Axis::Batch),
    ("T", Axis::Seq),
    ("t", Axis::Seq),
    ("seq", Axis::Seq),
    ("L", Axis::Seq),
    ("Tq", Axis::Query),
    ("T_q", Axis::Query),
    ("tq", Axis::Query),
    ("Tk", Axis::Key),
    ("T_k", Axis::Key),
    ("tk", Axis::Key),
    ("S", Axis::Key),
    ("s", Axis::Key),
    ("d", Axis::Model),
    ("D", Axis::Model),
    ("C", Axis::Model),
    ("d_model", Axis::Model),
    ("dmodel", Axis::Model),
    ("n_embd", Axis::Model),
    ("h", Axis::Heads),
    ("H", Axis::Heads),
    ("nh", Axis::Heads),
    ("heads", Axis::Heads),
    ("n_head", Axis::Heads),
    ("n_heads", Axis::Heads),
    ("hd", Axis::HeadDim),
    ("hs", Axis::HeadDim),
    ("dk", Axis::HeadDim),
    ("d_k", Axis::HeadDim),
    ("head_dim", Axis::HeadDim),
    ("head_size", Axis::HeadDim),
    ("C/nh", Axis::HeadDim),
    ("d/h", Axis::HeadDim),
    ("f", Axis::Hidden),
    ("F", Axis::Hidden),
    ("ff", Axis::Hidden),
    ("d_ff", Axis::Hidden),
    ("dff", Axis::Hidden),
    ("4d", Axis::Hidden),
    ("4C", Axis::Hidden),
    ("n_inner", Axis::Hidden),
    ("kv", Axis::KvHeads),
    ("n_kv", Axis::KvHeads),
    ("kv_heads", Axis::KvHeads),
    ("n_kv_heads", Axis::KvHeads),
    ("kv·hd", Axis::KvWidth),
    ("kv*hd", Axis::KvWidth),
    ("kvhd", Axis::KvWidth),
    ("V", Axis::Vocab),
    ("vocab", Axis::Vocab),
];

/// The names listed when a typed name is unknown.
pub const KNOWN: &str = "B, T (Tq, Tk), d (C), h (nh), hd (hs), ff (d_ff), kv";

impl Axis {
    /// The axis a typed name stands for, if any.
    #[must_use]
    pub fn named(name: &str) -> Option<Axis> {
        let exact = ALIASES.iter().find(|(n, _)| *n == name);
        let folded = || {
            ALIASES
                .iter()
                .find(|(n, _)| n.len() > 1 && n.eq_ignore_ascii_case(name))
        };
        exact.or_else(folded).map(|(_, a)| a.clone())
    }

    /// The name shown for this axis in feedback.
    #[must_use]
    pub fn symbol(&self) -> &str {
        match self {
            Axis::Batch => "B",
            Axis::Seq => "T",
            Axis::Query => "Tq",
            Axis::Key => "Tk",
            Axis::Model => "d",
            Axis::Heads => "h",
            Axis::KvHeads => "kv",
            Axis::HeadDim => "hd",
            Axis::Hidden => "ff",
            Axis::KvWidth => "kv·hd",
            Axis::Vocab => "V",
            Axis::Other(s) => s,
        }
    }

    /// Positions, whichever role: T, Tq and Tk make one family, which
    /// sizes alone can never tell apart.
    #[must_use]
    pub fn family(&self) -> Axis {
        match self {
            Axis::Query | Axis::Key => Axis::Seq,
            a => a.clone(),
        }
    }

    /// Whether a typed `self` names the recorded axis `truth`: `T` names
    /// any position axis, `Tq` or `Tk` a lone T, otherwise only itself.
    #[must_use]
    pub fn names(&self, truth: &Axis) -> bool {
        match (self, truth) {
            (Axis::Seq, Axis::Query | Axis::Key) | (Axis::Query | Axis::Key, Axis::Seq) => true,
            (a, t) => a == t,
        }
    }
}

/// The recorded axes as [`Axis`]es; where T appears twice (the scores of
/// a trace that names both T), the first is the queries, the second the
/// keys.
#[must_use]
pub fn truth(names: &[String]) -> Vec<Axis> {
    let mut axes: Vec<Axis> = names
        .iter()
        .map(|n| Axis::named(n).unwrap_or_else(|| Axis::Other(n.clone())))
        .collect();
    let seq: Vec<usize> = (0..axes.len()).filter(|&i| axes[i] == Axis::Seq).collect();
    if let [q, k] = seq[..] {
        axes[q] = Axis::Query;
        axes[k] = Axis::Key;
    }
    axes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn aliases_name_the_same_axis() {
        for (a, b) in [
            ("nh", "h"),
            ("hs", "hd"),
            ("C", "d"),
            ("n_embd", "d_model"),
            ("4d", "d_ff"),
            ("f", "ff"),
            ("S", "Tk"),
            ("HEADS", "h"),
        ] {
            assert_eq!(Axis::named(a), Axis::named(b), "{a} = {b}");
            assert!(Axis::named(a).is_some(), "{a}");
        }
        assert_eq!(Axis::named("Q"), None);
        assert_ne!(Axis::named("h"), Axis::named("hd"));
    }

    #[test]
    fn both_namings_of_the_scores_read_as_queries_then_keys() {
        let want = vec![Axis::Batch, Axis::Heads, Axis::Query, Axis::Key];
        assert_eq!(truth(&owned(&["B", "h", "T", "T"])), want);
        assert_eq!(truth(&owned(&["B", "h", "Tq", "Tk"])), want);
        // A lone T stays T: q's positions.
        assert_eq!(truth(&owned(&["B", "h", "T", "hd"]))[2], Axis::Seq);
        assert!(Axis::Seq.names(&Axis::Key) && Axis::Key.names(&Axis::Seq));
        assert!(!Axis::Key.names(&Axis::Query), "Tk is not the queries");
    }
}
