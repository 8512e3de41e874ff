//! `compare` at depth. The two traces are aligned block by block, so the
//! diffs' work grows with the number of blocks, not with its square, and a
//! block's rows are the same whatever the depth. Nothing here is timed:
//! the work is counted ([`Alignment::work`], the sum of left × right
//! lengths over the sequences diffed, Myers' bound).

mod common;

#[path = "compare_scale/pty.rs"]
mod pty;

use shapetrace::compare::align::{Alignment, align};
use shapetrace::compare::{Comparison, Step};
use shapetrace::{Budget, Trace};

/// `preset` at `layers` blocks, traced for its shapes, with its budget.
fn traced(preset: &str, layers: usize) -> (Trace, Budget) {
    let mut cfg = shapetrace::config::preset::by_name(preset).unwrap();
    cfg.layers = layers;
    let trace = shapetrace::trace_request(&cfg, &shapetrace::Request::shapes())
        .unwrap()
        .trace;
    (trace, Budget::of(&cfg).unwrap())
}

fn aligned(right: &str, layers: usize) -> (usize, usize, Alignment<'static>) {
    // Leaked: the alignment borrows the traces' paths (a test's few MB).
    let l: &'static Trace = Box::leak(Box::new(traced("lesson", layers).0));
    let r: &'static Trace = Box::leak(Box::new(traced(right, layers).0));
    (l.events.len(), r.events.len(), align(&l.events, &r.events))
}

/// Lesson against the mixture (every block adds steps on both sides) and
/// against GQA: the work is c + L·w exactly (every block pair costs the
/// same), the largest diff is one block's steps at any depth, and at 64
/// blocks the work is a small part of what one diff of the whole traces
/// is bounded by (n·m, which grows with L²).
#[test]
fn the_diff_work_is_linear_in_depth() {
    for right in ["lesson-moe", "lesson-gqa"] {
        let (_, _, a16) = aligned(right, 16);
        let (_, _, a32) = aligned(right, 32);
        let (n, m, a64) = aligned(right, 64);
        for a in [&a16, &a32, &a64] {
            assert!(a.by_block, "{right}");
        }
        assert_eq!(
            a64.work - a16.work,
            3 * (a32.work - a16.work),
            "{right}: work c + L·w"
        );
        assert_eq!(a64.largest, a16.largest, "{right}: one block's steps");
        assert!(a64.largest < 64, "{right}: {}", a64.largest);
        let whole = (n * m) as u64;
        assert!(a64.work * 50 < whole, "{right}: {} of {whole}", a64.work);
    }
}

/// The paired case: a trace whose parts are out of order (a step outside
/// any block between two blocks) cannot be paired, so it is diffed whole
/// as the old alignment diffed every trace: the work is then n·m, the
/// quadratic cost, which the test above proves the pairing avoids.
#[test]
fn parts_out_of_order_are_diffed_whole_at_quadratic_work() {
    let (lt, _) = traced("lesson", 8);
    let (mut rt, _) = traced("lesson-moe", 8);
    let at = rt.events.iter().position(|e| e.block() == Some(5)).unwrap();
    let mut between = rt.events[0].clone();
    between.path = "between".into();
    rt.events.insert(at, between);
    assert!(shapetrace::compare::align::parts(&rt.events).is_none());
    let a = align(&lt.events, &rt.events);
    assert!(!a.by_block);
    assert_eq!(a.work, (lt.events.len() * rt.events.len()) as u64);
    // The rows still hold every step of both sides once (none moved here).
    assert_eq!(
        a.rows.len(),
        lt.events.len() + rt.events.len() - common_steps(&a)
    );
}

/// Rows kept on both sides: the left rows whose path the right also has.
fn common_steps(a: &Alignment) -> usize {
    a.rows
        .iter()
        .filter(|(p, left)| *left && !a.deleted.contains(p))
        .count()
}

/// The steps of the prefix and of blocks 1 and 2, as compared.
fn first_two_blocks(c: &Comparison) -> Vec<&Step> {
    let block = |s: &Step| shapetrace::trace::block_of(&s.path);
    let first = c.steps.iter().position(|s| block(s).is_some()).unwrap();
    let blocks = c.steps[first..]
        .iter()
        .filter(|s| block(s).is_some_and(|n| n <= 2));
    c.steps[..first].iter().chain(blocks).collect()
}

/// A block's rows do not depend on the depth: lesson-moe against
/// lesson-post-ln (where one diff of the whole traces aligned block 1 one
/// way at 2 blocks and another at 5, keeping ln_2 or resid_2 in place),
/// and the moves within a block (pre-LN against post-LN) found in every
/// block at 64.
#[test]
fn a_blocks_rows_are_the_same_at_any_depth() {
    let of = |l: &str, r: &str, layers| {
        let ((lt, lb), (rt, rb)) = (traced(l, layers), traced(r, layers));
        Comparison::of((l, &lt, &lb), (r, &rt, &rb))
    };
    for (l, r) in [("lesson-moe", "lesson-post-ln"), ("lesson", "lesson-moe")] {
        let (shallow, deep) = (of(l, r, 2), of(l, r, 5));
        assert_eq!(
            first_two_blocks(&shallow),
            first_two_blocks(&deep),
            "{l} vs {r}"
        );
    }
    let c = of("lesson", "lesson-post-ln", 64);
    for n in 1..=64 {
        for norm in ["ln_1", "ln_2"] {
            let path = format!("block{n}.{norm}");
            let s = c.steps.iter().find(|s| s.path == path).unwrap();
            assert_eq!(
                s.changes,
                [
                    shapetrace::compare::Change::Inputs,
                    shapetrace::compare::Change::Position
                ],
                "{path}"
            );
        }
    }
    assert_eq!(c.summary.only_left + c.summary.only_right, 0);
}

/// `compare` slims each side before tracing the next: the comparison of
/// slimmed traces is the comparison of whole ones (it reads nothing that
/// [`shapetrace::compare::slim`] frees), while the words it frees are gone.
#[test]
fn a_slimmed_trace_compares_as_the_whole_one() {
    for right in ["lesson-moe", "lesson-post-ln", "lesson-gqa"] {
        let ((lt, lb), (rt, rb)) = (traced("lesson", 4), traced(right, 4));
        let whole = Comparison::of(("lesson", &lt, &lb), (right, &rt, &rb));
        let (mut ls, mut rs) = (lt.clone(), rt.clone());
        shapetrace::compare::slim(&mut ls);
        shapetrace::compare::slim(&mut rs);
        assert!(
            rs.events
                .iter()
                .all(|e| e.formula.is_empty() && e.why.is_none())
        );
        assert!(rt.events.iter().any(|e| !e.formula.is_empty()));
        let slimmed = Comparison::of(("lesson", &ls, &lb), (right, &rs, &rb));
        assert_eq!(slimmed, whole, "{right}");
    }
}
