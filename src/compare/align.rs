//! The aligned order of two traces' steps, block by block.
//!
//! A stack repeats one block's anatomy, so the two traces are cut into
//! their parts first: the prefix (the steps before the first block, e.g.
//! `input`), each block's steps (by the block number each event carries,
//! [`Event::block`]) and the suffix (the steps after the last block, e.g.
//! `ln_f`, `head`). Parts are paired by kind and block number, and only the
//! steps within a pair are diffed (Myers, as `similar` computes it); a part
//! on one side only is one run of that side's steps. The work is then the
//! sum over the pairs of one block's steps on each side, linear in depth,
//! where one diff of the whole sequences is quadratic when they differ a
//! lot (lesson against a mixture: every block adds steps on both sides).
//!
//! A path the diffs delete on one side and insert on the other is one step
//! that moved (within a block: a block's paths carry its number).
//!
//! A trace whose parts are out of order (a step outside any block between
//! two blocks, or a block that comes back) is diffed whole, as before.

use crate::trace::Event;
use similar::{Algorithm, DiffOp, capture_diff_slices};
use std::collections::HashSet;
use std::ops::Range;

/// Where a step stands in its trace. Ordered as a trace runs: the prefix,
/// the blocks by number, then the suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// Before the first block (`input`, an embedding).
    Prefix,
    /// Inside block `n` (`block3.attn.q` → 3).
    Block(usize),
    /// After the last block (`ln_f`, `head`).
    Suffix,
}

/// The two traces' steps in one aligned order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment<'a> {
    /// Each row's path, with `true` where the row is the left model's step
    /// (kept or deleted) and `false` where it is the right model's
    /// (inserted).
    pub rows: Vec<(&'a str, bool)>,
    /// The left paths the diffs deleted (or that were in a part the right
    /// side lacks).
    pub deleted: HashSet<&'a str>,
    /// The right paths the diffs inserted (or that were in a part the left
    /// side lacks).
    pub inserted: HashSet<&'a str>,
    /// The size of the diffs' work: the sum over the sequences diffed of
    /// left length × right length, Myers' bound when they differ most.
    pub work: u64,
    /// The most steps of one side in any one diff.
    pub largest: usize,
    /// Whether the parts were paired (`false`: a trace's parts were out of
    /// order, so the whole sequences were diffed as one).
    pub by_block: bool,
}

/// The maximal runs of one part in `events`, as (part, index range), when
/// the parts come in order (each run's part after the one before); `None`
/// otherwise.
#[must_use]
pub fn parts(events: &[Event]) -> Option<Vec<(Part, Range<usize>)>> {
    let mut runs: Vec<(Part, Range<usize>)> = Vec::new();
    let mut seen_block = false;
    for (i, e) in events.iter().enumerate() {
        let part = match e.block() {
            Some(n) => {
                seen_block = true;
                Part::Block(n)
            }
            None if seen_block => Part::Suffix,
            None => Part::Prefix,
        };
        match runs.last_mut() {
            Some((p, r)) if *p == part => r.end = i + 1,
            Some((p, _)) if *p > part => return None,
            _ => runs.push((part, i..i + 1)),
        }
    }
    Some(runs)
}

/// Aligns the steps of `left` and `right` (their events in trace order),
/// part by part where both traces' parts are in order.
#[must_use]
pub fn align<'a>(left: &'a [Event], right: &'a [Event]) -> Alignment<'a> {
    let lp: Vec<&str> = left.iter().map(|e| e.path.as_str()).collect();
    let rp: Vec<&str> = right.iter().map(|e| e.path.as_str()).collect();
    let mut out = Alignment::default();
    let (Some(lparts), Some(rparts)) = (parts(left), parts(right)) else {
        diff(&mut out, &lp, &rp);
        return out;
    };
    out.by_block = true;
    let (mut li, mut ri) = (lparts.iter().peekable(), rparts.iter().peekable());
    loop {
        match (li.peek(), ri.peek()) {
            (Some((l, lr)), Some((r, rr))) if l == r => {
                diff(&mut out, &lp[lr.clone()], &rp[rr.clone()]);
                li.next();
                ri.next();
            }
            (Some((l, lr)), Some((r, _))) if l < r => {
                only(&mut out, &lp[lr.clone()], true);
                li.next();
            }
            (_, Some((_, rr))) => {
                only(&mut out, &rp[rr.clone()], false);
                ri.next();
            }
            (Some((_, lr)), None) => {
                only(&mut out, &lp[lr.clone()], true);
                li.next();
            }
            (None, None) => break,
        }
    }
    out
}

/// A run of one side's steps that the other side has no part for.
fn only<'a>(out: &mut Alignment<'a>, paths: &[&'a str], left: bool) {
    let set = if left {
        &mut out.deleted
    } else {
        &mut out.inserted
    };
    set.extend(paths.iter().copied());
    out.rows.extend(paths.iter().map(|p| (*p, left)));
}

/// Diffs one pair of sequences and appends its rows.
fn diff<'a>(out: &mut Alignment<'a>, lp: &[&'a str], rp: &[&'a str]) {
    out.work += lp.len() as u64 * rp.len() as u64;
    out.largest = out.largest.max(lp.len()).max(rp.len());
    for op in capture_diff_slices(Algorithm::Myers, lp, rp) {
        let (old, new) = match op {
            DiffOp::Equal { old_index, len, .. } => {
                out.rows
                    .extend(lp[old_index..old_index + len].iter().map(|p| (*p, true)));
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        only(out, &lp[old], true);
        only(out, &rp[new], false);
    }
}
