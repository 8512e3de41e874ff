//! One device's share of a model split across devices: every count of the
//! budget is already that device's (the model is built as it holds it);
//! here, what its communication steps send in one forward, and a
//! pipeline's stages and bubble.
//!
//! An all-to-all's parts are the data's; the figures here assume balanced
//! routing, each of a device's b·T·k routes equally likely on any expert:
//!
//! ```text
//! dispatch, per expert slot   (N−1)/N · b·T·k/(E/N) rows · d
//! return                      (N−1)/N · b·T·k rows · d
//! bubble = (M−1)/(m+M−1)     M stages, m micro-batches per step (GPipe, 1F1B)
//! in flight on stage s: min(M−s, m) micro-batches' activations (1F1B), m (GPipe)
//! ```

use crate::config::ModelConfig;
use crate::ops::{Op, OpKind};
use crate::trace::Trace;
use serde::Serialize;

/// The split, and what one device sends in one forward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Split {
    /// N, the tensor-parallel devices.
    pub tp: usize,
    /// N, the expert-parallel devices (1: none).
    pub ep: usize,
    /// Under `--ep`: the experts this device holds, E/N, of E; and the
    /// sequences it runs, B/N, of B.
    pub experts: Option<((usize, usize), (usize, usize))>,
    /// Sequence parallelism.
    pub sp: bool,
    /// M, the pipeline stages (1: none).
    pub pp: usize,
    /// m, the micro-batches of a pipelined step.
    pub micro_batches: usize,
    /// The device counted: stage·N + rank.
    pub device: usize,
    /// Its stage, from 0.
    pub stage: usize,
    /// The first and last block (from 1) it holds.
    pub blocks: (usize, usize),
    /// Split across N devices with a vocabulary: V, V' (V padded to a
    /// multiple of N) and the rows each device holds, V'/N.
    pub vocab: Option<(usize, usize, usize)>,
    /// The share of a pipelined step every device idles, (M−1)/(m+M−1),
    /// as numerator and denominator; (0, 1) without a pipeline.
    pub bubble: (usize, usize),
    /// Each kind of communication step at each shape: how many a forward
    /// makes and what each sends.
    pub steps: Vec<CommRow>,
    /// Bytes the device sends (and receives) in one forward.
    pub per_forward: u64,
    /// Of those, one block's.
    pub per_block: u64,
}

/// Communication steps of one kind and output shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommRow {
    /// `all_reduce`, `all_gather`, `reduce_scatter`.
    pub op: String,
    /// The output shape.
    pub shape: Vec<usize>,
    /// How many a forward makes.
    pub count: u64,
    /// Bytes one sends ([`Op::sent_bytes`], the ring's).
    pub each: u64,
}

/// The split of `cfg` and its communication, read off `trace` (one
/// device's forward); `None` on one device.
#[must_use]
pub fn split(cfg: &ModelConfig, trace: &Trace) -> Option<Split> {
    let d = cfg.devices;
    if !d.many() {
        return None;
    }
    let n = d.tp;
    let g = d.group();
    let first = *cfg.held_blocks().start();
    // Balanced routing: a device's b·T·k routes, (N−1)/N of them leaving.
    let routes = cfg.batch / d.ep.max(1) * cfg.seq * cfg.mixture.map_or(0, |m| m.top_k);
    let slots = cfg.held_experts().len().max(1);
    let row_bytes = cfg.d_model * cfg.dtype.size();
    let leaving = |rows: usize, parts: usize| (g - 1) * rows * row_bytes / (g * parts);
    let mut steps: Vec<CommRow> = Vec::new();
    let mut per_block = 0u64;
    for e in &trace.events {
        let op = match e.op {
            OpKind::AllReduce => Op::AllReduce { devices: n },
            OpKind::AllToAll => {
                // The dispatches of a block share the routes the return
                // brings back, one expert slot each.
                let (label, parts) = if e.path.ends_with(".all_to_all") {
                    ("all_to_all (return)", 1)
                } else {
                    ("all_to_all (dispatch)", slots)
                };
                let each = leaving(routes, parts) as u64;
                if e.block() == Some(first) {
                    per_block += each;
                }
                push(&mut steps, label, &e.shape, each);
                continue;
            }
            OpKind::AllGather => Op::AllGather {
                devices: g,
                axis: 1,
            },
            OpKind::ReduceScatter => Op::ReduceScatter {
                devices: n,
                axis: 1,
                rank: 0,
            },
            OpKind::Send => Op::Send { to: 0 },
            OpKind::Recv => Op::Recv { from: 0 },
            _ => continue,
        };
        let elems: usize = e.shape.iter().product();
        let each = op
            .sent_bytes(elems, e.dtype.size())
            .map_or(0, |b| u64::try_from(b).unwrap_or(u64::MAX));
        if e.block() == Some(first) {
            per_block += each;
        }
        push(&mut steps, &e.op.to_string(), &e.shape, each);
    }
    let per_forward = steps.iter().map(|r| r.count * r.each).sum();
    let held = cfg.held_blocks();
    let experts = d.experts_split().then(|| {
        (
            (cfg.held_experts().len(), cfg.experts()),
            (cfg.batch / d.ep, cfg.batch),
        )
    });
    Some(Split {
        tp: n,
        ep: d.ep,
        experts,
        sp: d.sp,
        pp: d.pp,
        micro_batches: d.micro_batches,
        device: d.device,
        stage: d.stage(),
        blocks: (*held.start(), *held.end()),
        vocab: cfg
            .vocab
            .size
            .zip(cfg.padded_vocab())
            .filter(|_| d.split())
            .map(|(v, padded)| (v, padded, padded / n)),
        bubble: d.bubble(),
        steps,
        per_forward,
        per_block,
    })
}

/// One more communication step of kind `op` at `shape`, each sending
/// `each` bytes: counted with its like, or a new row.
fn push(steps: &mut Vec<CommRow>, op: &str, shape: &[usize], each: u64) {
    match steps.iter_mut().find(|r| r.op == op && r.shape == shape) {
        Some(r) => r.count += 1,
        None => steps.push(CommRow {
            op: op.to_string(),
            shape: shape.to_vec(),
            count: 1,
            each,
        }),
    }
}
