//! What a trace holds in memory: its events, estimated before the run.
//!
//! Every run keeps every event of every block (the stepper, the checks
//! and the writers read them all), so a deep mixture's trace is large: a
//! block of 256 experts records about 1,040 events. The estimate traces the
//! model with two blocks on the shape-only backend, weighs each event's
//! heap (its path, axes, inputs, formula, sources and why, each allocation
//! rounded as the allocator rounds it) and scales the heavier block to the
//! model's depth. [`HELD_PER_EVENT_BYTE`] turns those bytes into resident
//! memory: the model's own parameter names and shapes, the checks' counts
//! and the allocator's slack come on top, measured against the peak
//! resident set (`scripts/peak_memory.sh`, README).

use crate::config::ModelConfig;
use crate::shape::Axis;
use crate::trace::{Event, block_of};
use crate::why::Arg;
use std::mem::size_of;

/// How many blocks the estimate traces: two, so that a block whose steps
/// differ from the first (every other block attending fully) is seen.
pub const SAMPLE_LAYERS: usize = 2;

/// Resident bytes a run holds per byte of its events' heap, in eighths:
/// the model's parameter names and shapes, the checks' counts and the
/// allocator's slack come on top of the events. Measured between 1.09 (the
/// 4-expert lesson-moe) and 1.2 (256 experts, 64 blocks) with
/// `scripts/peak_memory_moe.sh`; taken as 1.375, so the estimate errs high.
pub const HELD_PER_EVENT_BYTE: u128 = 11;

/// Resident bytes of a run before its trace: the binary, the allocator's
/// first arenas and a small model (measured: 16 MB).
pub const BASE_BYTES: u128 = 24 << 20;

/// The estimate of a trace's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// Events the whole run records.
    pub events: u128,
    /// Events one block records (the heavier of the two traced).
    pub events_per_block: u128,
    /// Resident bytes of one block's events.
    pub bytes_per_block: u128,
    /// Resident bytes the run holds: [`BASE_BYTES`], the events outside
    /// the blocks, and every block's.
    pub bytes: u128,
}

impl Held {
    /// The most blocks whose trace fits under `limit` bytes, at least 0.
    #[must_use]
    pub fn blocks_within(&self, limit: u128, layers: usize) -> u128 {
        let outside = self
            .bytes
            .saturating_sub(self.bytes_per_block.saturating_mul(layers as u128));
        limit
            .saturating_sub(outside)
            .checked_div(self.bytes_per_block)
            .unwrap_or(0)
    }
}

/// A heap allocation of `n` bytes as the allocator holds it: rounded up
/// to 16 bytes; nothing for an empty one.
fn alloc(n: usize) -> u128 {
    if n == 0 {
        0
    } else {
        n.div_ceil(16) as u128 * 16
    }
}

/// An axis's heap: nothing for a word, its name's or parts' otherwise.
fn axis(a: &Axis) -> u128 {
    match a {
        Axis::Named(s) => alloc(s.capacity()),
        Axis::Bound(x)
        | Axis::Primed(x)
        | Axis::Reduced(x)
        | Axis::Multiple { of: x, .. }
        | Axis::Fraction { of: x, .. } => alloc(size_of::<Axis>()) + axis(x),
        Axis::Product(v) | Axis::Merged(v) | Axis::Regrouped { from: v, .. } => {
            axes(v, v.capacity())
        }
        _ => 0,
    }
}

/// A `Vec<Axis>`'s heap: its buffer and every axis's.
fn axes(v: &[Axis], cap: usize) -> u128 {
    alloc(cap * size_of::<Axis>()) + v.iter().map(axis).sum::<u128>()
}

/// A `Vec<String>`'s heap: its buffer and every string's.
fn strings(v: &[String], cap: usize) -> u128 {
    alloc(cap * size_of::<String>()) + v.iter().map(|s| alloc(s.capacity())).sum::<u128>()
}

/// The heap bytes one event holds beyond its own struct (allocations
/// rounded as `alloc` rounds them), plus the struct itself.
#[must_use]
pub fn event_bytes(e: &Event) -> u128 {
    let mut n = size_of::<Event>() as u128;
    n += alloc(e.path.capacity());
    n += e.op_name.as_ref().map_or(0, |s| alloc(s.capacity()));
    n += alloc(e.shape.capacity() * size_of::<usize>());
    n += axes(&e.axes, e.axes.capacity());
    n += strings(&e.inputs, e.inputs.capacity());
    n += alloc(e.formula.capacity());
    n += e.values.as_ref().map_or(0, |v| alloc(v.capacity() * 8));
    n += alloc(e.sources.capacity() * size_of::<crate::why::AxisSource>());
    n += e
        .sources
        .iter()
        .map(|s| axis(&s.axis) + alloc(s.from.capacity()))
        .sum::<u128>();
    if let Some(c) = &e.check {
        n += alloc(c.stream.capacity() * 8) + alloc(c.update.capacity() * 8);
    }
    if let Some(w) = &e.why {
        n += alloc(w.key.capacity());
        n += alloc(w.args.list_bytes());
        for (k, v) in &w.args {
            n += alloc(k.capacity());
            if let Arg::Text(s) = v {
                n += alloc(s.capacity());
            }
        }
    }
    n + alloc(e.why_text.capacity())
}

/// Estimates what a run of `cfg` holds from a shape-only trace of its
/// first [`SAMPLE_LAYERS`] blocks; `None` when `cfg` has no more blocks
/// than that (its trace is then the sample itself, small), or when the
/// sample cannot be traced (the run will say why).
#[must_use]
pub fn estimate(cfg: &ModelConfig) -> Option<Held> {
    if cfg.held_layers() <= SAMPLE_LAYERS {
        return None;
    }
    // A pipeline's sample is one stage's device holding the sample's
    // blocks; the run holds its stage's.
    let d = cfg.devices;
    let sample = ModelConfig {
        layers: SAMPLE_LAYERS,
        devices: crate::config::Devices {
            pp: 1,
            micro_batches: 1,
            device: d.rank(),
            ..d
        },
        ..cfg.clone()
    };
    sample.validate().ok()?;
    let backend = crate::ops::shape::ShapeOnly(sample.dtype);
    let watch = crate::trace::recorder::Watch::default();
    let source = crate::model::Source::Seeded;
    let trace = crate::model::record(&sample, &backend, source, (None, None), &watch).trace;
    Some(scale(&trace.events, cfg.held_layers()))
}

/// Scales the events of a trace of [`SAMPLE_LAYERS`] blocks to `layers`.
#[must_use]
pub fn scale(events: &[Event], layers: usize) -> Held {
    let mut per_block = [(0u128, 0u128); SAMPLE_LAYERS];
    let mut outside = (0u128, 0u128);
    for e in events {
        // Vec<Event> grows by doubling: up to one spare struct per event.
        let b = event_bytes(e) + size_of::<Event>() as u128;
        let slot = match block_of(&e.path) {
            Some(n) if (1..=SAMPLE_LAYERS).contains(&n) => &mut per_block[n - 1],
            _ => &mut outside,
        };
        slot.0 += 1;
        slot.1 += b;
    }
    let (events_per_block, heap_per_block) = per_block
        .iter()
        .copied()
        .max_by_key(|&(_, b)| b)
        .unwrap_or_default();
    let resident = |heap: u128| heap.saturating_mul(HELD_PER_EVENT_BYTE) / 8;
    let bytes_per_block = resident(heap_per_block);
    let l = layers as u128;
    Held {
        events: outside.0 + events_per_block.saturating_mul(l),
        events_per_block,
        bytes_per_block,
        bytes: BASE_BYTES + resident(outside.1) + bytes_per_block.saturating_mul(l),
    }
}

#[cfg(test)]
mod tests {
    use super::{BASE_BYTES, estimate};
    use crate::config::preset;

    #[test]
    fn a_mixture_is_weighed_per_expert_and_scaled_to_its_depth() {
        let moe = |experts, layers| crate::config::ModelConfig {
            mixture: Some(crate::config::Mixture { experts, top_k: 2 }),
            layers,
            ..preset::by_name("lesson-moe").unwrap()
        };
        // Two blocks or fewer: the trace is the sample itself.
        assert_eq!(estimate(&moe(256, 2)), None);
        let max = estimate(&moe(256, 4096)).unwrap();
        // 1,044 steps a block (4 per expert and 20 around them), and
        // the steps outside the blocks.
        assert_eq!(max.events_per_block, 1044);
        assert_eq!(max.events, 1044 * 4096 + 1);
        // About 2.7 MB resident a block, as measured (README).
        assert!(
            (2_400_000..4_000_000).contains(&max.bytes_per_block),
            "{max:?}"
        );
        let half = estimate(&moe(256, 2048)).unwrap();
        assert_eq!(max.bytes - half.bytes, 2048 * max.bytes_per_block);
        // Blocks within a limit: what the refusal offers fits it.
        let fit = max.blocks_within(4 << 30, 4096);
        let at = estimate(&moe(256, usize::try_from(fit).unwrap())).unwrap();
        assert!(at.bytes <= 4 << 30 && at.bytes + at.bytes_per_block > 4 << 30);
        assert_eq!(max.blocks_within(BASE_BYTES / 2, 4096), 0);
        // Eight experts weigh far less a block than 256.
        let eight = estimate(&moe(8, 4096)).unwrap();
        assert!(
            eight.bytes_per_block * 16 < max.bytes_per_block,
            "{eight:?}"
        );
    }
}
