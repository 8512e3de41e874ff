//! The lesson's named wrong shapes, built from the step and the model's own
//! sizes, each with what it would mean:
//!
//! - q, k, v, context as (B,T,h,hd): the layout before the transpose;
//! - scores as (B,T,d) = (2,4,64): the stream shape (day 47's common error);
//!   as (B,T,T): one table for all heads; as (B,h,Tk,Tq): the transpose;
//! - the MLP's hidden layer as (B,T,d): d_ff forgotten (b1 has d_ff
//!   entries, not d); its down projection as (B,T,ff): never brought back;
//! - the merge as (B,h,T,hd) or (B,T,h,hd): the heads not yet joined;
//! - a head split as its input (B,T,d): not split at all.

use super::axis::{Axis, truth};
use crate::ops::OpKind;
use crate::shape::named;
use crate::trace::{Event, Trace};
use crate::why::Why;

/// A wrong shape a student is likely to give, with its feedback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mistake {
    /// The wrong shape's axes and sizes.
    pub dims: Vec<(Axis, usize)>,
    /// What that shape would mean.
    pub says: String,
    /// [`Mistake::says`] as a catalog message (`quiz-mistake-*`), for a
    /// view in another language; in English it reads as `says`.
    pub why: Why,
}

/// `(B=2,T=4,d=64)` for dims.
pub(crate) fn show(dims: &[(Axis, usize)]) -> String {
    let (sizes, names): (Vec<usize>, Vec<Axis>) = dims.iter().map(|(a, n)| (*n, a.clone())).unzip();
    named(&sizes, &names)
}

/// The event's axes with their sizes.
pub(crate) fn dims_of(e: &Event) -> Vec<(Axis, usize)> {
    truth(&e.axes).into_iter().zip(e.shape.clone()).collect()
}

/// The named mistakes for the step `e` of `trace`.
#[must_use]
pub fn of(e: &Event, trace: &Trace) -> Vec<Mistake> {
    use Axis as A;
    let dims = dims_of(e);
    let axes: Vec<Axis> = dims.iter().map(|(a, _)| a.clone()).collect();
    let size = |a: &Axis| dims.iter().find(|(x, _)| x == a).map_or(0, |(_, n)| *n);
    let input = e.inputs.first().and_then(|p| trace.get(p)).map(dims_of);
    let stream: Vec<(Axis, usize)> = [A::Batch, A::Seq, A::Model]
        .into_iter()
        .zip(trace.stream_shape.clone())
        .collect();
    let d = stream.get(2).map_or(0, |x| x.1);
    let swap = |i: usize, j: usize| {
        let mut w = dims.clone();
        w.swap(i, j);
        w
    };
    let mut out = Vec::new();
    let mut push = |dims: Vec<(Axis, usize)>, says: String, why: Why| {
        let why = why.arg("shape", show(&dims));
        out.push(Mistake { dims, says, why });
    };
    match axes.as_slice() {
        [
            A::Batch,
            heads @ (A::Heads | A::KvHeads),
            A::Seq,
            A::HeadDim,
        ] => {
            let (h, t) = (size(heads), size(&A::Seq));
            let wrong = swap(1, 2);
            let says = format!(
                "{} is the layout before the transpose: heads must move in front of T so each of the {h} heads gets its own {t}×{t} table of scores",
                show(&wrong)
            );
            let why = Why::new("quiz-mistake-before-transpose")
                .arg("h", h)
                .arg("t", t);
            push(wrong, says, why);
        }
        [A::Batch, A::Heads, A::Query, A::Key] => {
            let (h, t) = (size(&A::Heads), size(&A::Query));
            let what = if e.op == OpKind::Softmax {
                "weights over"
            } else {
                "scores against"
            };
            let wrong = swap(2, 3);
            let says = format!(
                "{} is the transposed table: row i is query i's {what} every key, so the queries come first: (B,h,Tq,Tk)",
                show(&wrong)
            );
            let kind = if e.op == OpKind::Softmax {
                "weights"
            } else {
                "scores"
            };
            push(
                wrong,
                says,
                Why::new("quiz-mistake-transposed").arg("what", kind),
            );
            push(
                stream.clone(),
                format!(
                    "{} is the stream shape; scores compare every query with every key: (B,h,Tq,Tk), one {t}×{t} table per head",
                    show(&stream)
                ),
                Why::new("quiz-mistake-stream").arg("t", t),
            );
            let flat = vec![dims[0].clone(), dims[2].clone(), dims[3].clone()];
            let says = format!(
                "{} is one table per sequence; each of the {h} heads makes its own: (B,h,Tq,Tk)",
                show(&flat)
            );
            push(flat, says, Why::new("quiz-mistake-one-table").arg("h", h));
        }
        [A::Batch, A::Seq, A::Hidden] if size(&A::Hidden) != d => {
            let f = size(&A::Hidden);
            let wrong = vec![dims[0].clone(), dims[1].clone(), (A::Model, d)];
            let says = format!(
                "{} keeps d_model; W1 is (d, d_ff) = ({d},{f}), so the hidden layer has d_ff = {f} features (and b1 has {f} entries, not {d})",
                show(&wrong)
            );
            let why = Why::new("quiz-mistake-keeps-d").arg("d", d).arg("f", f);
            push(wrong, says, why);
        }
        [A::Batch, A::Seq, A::Model] => match input.as_deref() {
            Some([_, _, (A::Hidden, f)]) if e.op == OpKind::Linear && *f != d => {
                let wrong = vec![dims[0].clone(), dims[1].clone(), (A::Hidden, *f)];
                let says = format!(
                    "{} is the hidden layer; W2 ({f},{d}) brings it back to d_model = {d}, so the residual add x + FFN(x) fits",
                    show(&wrong)
                );
                let why = Why::new("quiz-mistake-hidden").arg("d", d).arg("f", *f);
                push(wrong, says, why);
            }
            Some(ctx @ [_, (A::Heads, h), _, (A::HeadDim, hd)]) if e.op == OpKind::MergeHeads => {
                let says = format!(
                    "{} is the context before the merge: T moves back in front of the heads and the {h} heads of {hd} join into d = {d}",
                    show(ctx)
                );
                let why = |key: &str| Why::new(key).arg("h", *h).arg("hd", *hd).arg("d", d);
                push(ctx.to_vec(), says, why("quiz-mistake-before-merge"));
                let mut half = ctx.to_vec();
                half.swap(1, 2);
                let says = format!(
                    "{} is halfway: after the transpose the heads must still be joined, {h} × {hd} = {d}",
                    show(&half)
                );
                push(half, says, why("quiz-mistake-halfway"));
            }
            _ => {}
        },
        _ => {}
    }
    if e.op == OpKind::SplitHeads
        && let Some(x) = input
    {
        let says = format!(
            "{} is the projection before the split; the split cuts its last axis into heads of hd = {} and moves the heads in front of T",
            show(&x),
            size(&A::HeadDim)
        );
        let why = Why::new("quiz-mistake-before-split").arg("hd", size(&A::HeadDim));
        push(x, says, why);
    }
    out.retain(|m| m.dims != dims);
    out
}
