//! A split model's numeric run: every device a thread with its own model
//! (its slices of the weights, [`super::shard`]) and its own recorder,
//! their communication steps meeting in memory ([`Comm`]). The trace is
//! the shown device's (`--device k`); the others' are dropped.

use super::record::{Recorded, record_linked};
use super::{Model, Source};
use crate::config::{Devices, ModelConfig};
use crate::ops::Backend;
use crate::trace::hooks::Hooks;
use crate::trace::recorder::Watch;
use crate::trace::recorder::comm::Comm;
use ndarray::Array2;

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
    let (n, shown) = (cfg.devices.tp, cfg.devices.device);
    let comm = Comm::new(n);
    let lm = x0.is_none() && cfg.vocab.size.is_some();
    // The others are watched for a cancel alone.
    let quiet = Watch {
        hooks: Hooks {
            cancel: watch.hooks.cancel.clone(),
            progress: None,
        },
        ..Watch::default()
    };
    // Every device's link exists before any thread starts: one that never
    // starts (or panics while building) leaves the group when its link is
    // dropped, and the others stop instead of waiting for it.
    let mut links: Vec<_> = (0..n).map(|rank| comm.link(rank)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|rank| {
                let link = links.remove(0);
                let cfg = ModelConfig {
                    devices: Devices {
                        device: rank,
                        ..cfg.devices
                    },
                    ..cfg.clone()
                };
                let watch = if all || rank == shown { watch } else { &quiet };
                let x0 = x0.clone();
                s.spawn(move || {
                    let model = if lm {
                        Model::build_lm(&cfg, backend, source)
                    } else {
                        Model::build_from(&cfg, backend, source)
                    };
                    record_linked(&cfg, backend, &model, (x0, ids), watch, Some(link))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}
