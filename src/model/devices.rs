//! A split model's numeric run: every device a thread with its own model
//! (its slices of the weights, [`super::shard`], or its stage's blocks)
//! and its own recorder, their communication steps meeting in memory
//! ([`Comm`] within a tensor- or expert-parallel group, a [`Pipe`]
//! between pipeline stages). The trace is the shown device's (`--device k`); the others'
//! are dropped.

use super::record::{Recorded, record_linked};
use super::{Model, Source};
use crate::config::{Devices, ModelConfig};
use crate::ops::Backend;
use crate::trace::hooks::Hooks;
use crate::trace::recorder::Watch;
use crate::trace::recorder::comm::{Comm, Pipe, Place};
use ndarray::Array2;
use std::sync::mpsc;

/// Records every device of `cfg`'s split on `backend`, each from the same
/// x0 or token ids, and gives back the shown device's recording.
pub(crate) fn record<B: Backend>(
    cfg: &ModelConfig,
    backend: &B,
    source: Source,
    inputs: (Option<B::Tensor>, Option<&Array2<i64>>),
    watch: &Watch,
) -> Recorded<B::Tensor> {
    let mut runs = record_all(cfg, backend, source, inputs, watch, false);
    runs.swap_remove(cfg.devices.device)
}

/// Every device's recording, in device order: the shown device watched
/// as `watch` says, the others for a cancel alone, or every one as
/// `watch` says when `all`.
pub(crate) fn record_all<B: Backend>(
    cfg: &ModelConfig,
    backend: &B,
    source: Source,
    (x0, ids): (Option<B::Tensor>, Option<&Array2<i64>>),
    watch: &Watch,
    all: bool,
) -> Vec<Recorded<B::Tensor>> {
    let d = cfg.devices;
    let (n, shown) = (d.count(), d.device);
    // One tensor- (or expert-) parallel group per pipeline stage.
    let g = d.group();
    let groups: Vec<Comm<B::Tensor>> = (0..d.pp)
        .map(|stage| Comm::starting_at(g, stage * g))
        .collect();
    let lm = x0.is_none() && cfg.vocab.size.is_some();
    // The others are watched for a cancel alone.
    let quiet = Watch {
        hooks: Hooks {
            cancel: watch.hooks.cancel.clone(),
            progress: None,
        },
        ..Watch::default()
    };
    // Every device's place exists before any thread starts: one that never
    // starts (or panics while building) leaves its group when its link is
    // dropped and its pipe's sender with it, and the others stop instead
    // of waiting for it.
    let mut places = places(d, &groups);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|device| {
                let place = places.remove(0);
                let cfg = ModelConfig {
                    devices: Devices { device, ..d },
                    ..cfg.clone()
                };
                let watch = if all || device == shown {
                    watch
                } else {
                    &quiet
                };
                let x0 = x0.clone();
                s.spawn(move || {
                    let model = if lm {
                        Model::build_lm(&cfg, backend, source)
                    } else {
                        Model::build_from(&cfg, backend, source)
                    };
                    record_linked(&cfg, backend, &model, (x0, ids), watch, Some(place))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Every device's place, in device order (stage·N + rank): its stage's
/// tensor- or expert-parallel group when N > 1, and a pipe from the same
/// rank of the stage before and to the same rank of the stage after when
/// M > 1.
fn places<'c, T: Clone>(d: Devices, groups: &'c [Comm<T>]) -> Vec<Place<'c, T>> {
    let (tp, pp) = (d.group(), d.pp);
    // The pipe between device k and device k + N, the next stage's.
    let mut senders = Vec::new();
    let mut receivers = Vec::new();
    for _ in 0..tp * pp.saturating_sub(1) {
        let (tx, rx) = mpsc::channel();
        senders.push(Some(tx));
        receivers.push(Some(rx));
    }
    (0..tp * pp)
        .map(|device| {
            let (stage, rank) = (device / tp, device % tp);
            let link = (tp > 1).then(|| groups[stage].link(rank));
            let pipe = (pp > 1).then(|| Pipe {
                from: (stage > 0).then(|| {
                    let from = device - tp;
                    (receivers[from].take().expect("one receiver per pipe"), from)
                }),
                to: (stage + 1 < pp).then(|| senders[device].take().expect("one sender per pipe")),
            });
            Place { link, pipe }
        })
        .collect()
}
