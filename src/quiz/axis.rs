//! Axis names a student may type, and the trace's own axes, read as one
//! [`Axis`] each: `B`, `T` (`Tq`, `Tk`), `d`, `h`, `hd`, `ff`, `kv`, …
//!
//! The trace names the axes of the scores either `(B,h,T,T)` or
//! `(B,h,Tq,Tk)`; [`truth`] reads both as (Batch, Heads, Query, Key), so
//! the judge works with either naming.

pub use crate::shape::Axis;

/// Every name a student may type for each axis, with the axis as the
/// trace writes it (case matters for one-letter names: `d` is the width,
/// `D` too, `h` the heads, `H` too).
const ALIASES: &[(&str, &str)] = &[
    ("B", "B"),
    ("b", "B"),
    ("batch", "B"),
    ("T", "T"),
    ("t", "T"),
    ("seq", "T"),
    ("L", "T"),
    ("Tq", "Tq"),
    ("T_q", "Tq"),
    ("tq", "Tq"),
    ("Tk", "Tk"),
    ("T_k", "Tk"),
    ("tk", "Tk"),
    ("S", "Tk"),
    ("s", "Tk"),
    ("d", "d"),
    ("D", "d"),
    ("C", "d"),
    ("d_model", "d"),
    ("dmodel", "d"),
    ("n_embd", "d"),
    ("h", "h"),
    ("H", "h"),
    ("nh", "h"),
    ("heads", "h"),
    ("n_head", "h"),
    ("n_heads", "h"),
    ("hd", "hd"),
    ("hs", "hd"),
    ("dk", "hd"),
    ("d_k", "hd"),
    ("head_dim", "hd"),
    ("head_size", "hd"),
    ("C/nh", "hd"),
    ("d/h", "hd"),
    ("f", "ff"),
    ("F", "ff"),
    ("ff", "ff"),
    ("d_ff", "ff"),
    ("dff", "ff"),
    ("4d", "ff"),
    ("4C", "ff"),
    ("n_inner", "ff"),
    ("kv", "kv"),
    ("n_kv", "kv"),
    ("kv_heads", "kv"),
    ("n_kv_heads", "kv"),
    ("kv·hd", "kv·hd"),
    ("kv*hd", "kv·hd"),
    ("kvhd", "kv·hd"),
    ("V", "V"),
    ("vocab", "V"),
];

/// The names listed when a typed name is unknown.
pub const KNOWN: &str = "B, T (Tq, Tk), d (C), h (nh), hd (hs), ff (d_ff), kv";

/// How the quiz reads axes: typed names, and which name which axis.
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
        exact.or_else(folded).map(|(_, a)| Axis::parse(a))
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

/// The recorded axes as the quiz reads them: a name the trace does not
/// know is read as a student's would be (`C`, `nh`); where T appears
/// twice (the scores of a trace that names both T), the first is the
/// queries, the second the keys.
#[must_use]
pub fn truth(recorded: &[Axis]) -> Vec<Axis> {
    let mut axes: Vec<Axis> = recorded
        .iter()
        .map(|a| match a {
            Axis::Named(n) => Axis::named(n).unwrap_or_else(|| a.clone()),
            a => a.clone(),
        })
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

    fn owned(names: &[&str]) -> Vec<Axis> {
        crate::shape::axes(names)
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
