//! One forward of a model recorded end to end: the model of a config
//! built on a backend, run from x0 or from token ids, into a [`Trace`].
//! `run` asks for it in both modes; `plan` traces a shape-only sample
//! of the first blocks with it.

use super::backward::{self, Backward};
use super::{Model, Source};
use crate::config::ModelConfig;
use crate::ops::{Backend, PREVIEW_MAX};
use crate::trace::recorder::comm::Place;
use crate::trace::recorder::tape::Tape;
use crate::trace::recorder::{Capture, Recorder, Val, Watch};
use crate::trace::{Mode, Trace};
use ndarray::Array2;

/// What [`record`] gives back.
pub(crate) struct Recorded<T> {
    /// The recorded trace, its failure included.
    pub trace: Trace,
    /// The values captured, when the watch asked for them.
    pub captures: Vec<Capture>,
    /// The model's output, when the forward ran to its end; when it
    /// decoded, each pass's, in order (see [`super::decode::Decoded`]).
    pub output: Option<T>,
    /// Each pass's output when the run decoded and ran to its end: the
    /// prefill's (B, T, ·), then each step's (B, 1, ·); else empty.
    pub passes: Vec<T>,
    /// Whether the watch's hooks cancelled the run.
    pub cancelled: bool,
    /// The forward's tape and the backward over it, when the config asks
    /// for the backward and the forward ran to its end.
    pub backward: Option<(Tape, Backward)>,
}

/// Records the model of `cfg` from x0 when one is given (the blocks, as
/// the probes run them), else, with a vocabulary, from the token ids (the
/// given ones or the seeded ones) to the logits, else from the seeded x0.
/// Without a given x0 a config with decode steps generates: the prompt's
/// prefill, then each step ([`Model::generate`]).
pub(crate) fn record<B: Backend>(
    cfg: &ModelConfig,
    backend: &B,
    source: Source,
    (x0, ids): (Option<B::Tensor>, Option<&Array2<i64>>),
    watch: &Watch,
) -> Recorded<B::Tensor> {
    // A split model computing values: every device runs, the communication for real.
    if B::NUMERIC && cfg.devices.many() {
        return super::devices::record(cfg, backend, source, (x0, ids), watch);
    }
    let lm = x0.is_none() && cfg.vocab.size.is_some();
    let model = if lm {
        Model::build_lm(cfg, backend, source)
    } else {
        Model::build_from(cfg, backend, source)
    };
    record_on(cfg, backend, &model, (x0, ids), watch)
}

/// Records `model`, built of `cfg`, as [`record`] says.
pub(crate) fn record_on<B: Backend>(
    cfg: &ModelConfig,
    backend: &B,
    model: &Model<B::Tensor>,
    inputs: (Option<B::Tensor>, Option<&Array2<i64>>),
    watch: &Watch,
) -> Recorded<B::Tensor> {
    record_linked(cfg, backend, model, inputs, watch, None)
}

/// As [`record_on`], for one device of a split model when `place` is
/// given: its communication steps meet the other devices' there.
pub(crate) fn record_linked<'b, B: Backend>(
    cfg: &ModelConfig,
    backend: &'b B,
    model: &Model<B::Tensor>,
    (x0, ids): (Option<B::Tensor>, Option<&Array2<i64>>),
    watch: &Watch,
    place: Option<Place<'b, B::Tensor>>,
) -> Recorded<B::Tensor> {
    let ids = match ids {
        _ if x0.is_some() || model.ends.is_none() => None,
        Some(ids) => Some(ids.clone()),
        None => super::tokens(cfg),
    };
    // The backward reads the forward's tape.
    let watch = Watch {
        tape: cfg.backward,
        ..watch.clone()
    };
    let mut rec = Recorder::new(backend, cfg.stream_shape(), watch.clone()).in_dtype(cfg.dtype);
    if let Some(place) = place {
        rec = rec.on_device(place);
    }
    // A stop is not an error here: the failure is part of the trace.
    let (output, passes) = if cfg.decode > 0 && x0.is_none() {
        let decoded = model.generate(&mut rec, cfg, ids);
        (None, decoded.map(|d| d.outputs).unwrap_or_default())
    } else {
        let output = match (&model.ends, ids) {
            (Some(ends), Some(ids)) => model.forward_lm(&mut rec, ends, backend.ids(&ids)),
            _ => {
                let x0 = x0.unwrap_or_else(|| super::input(cfg, backend));
                model.forward(&mut rec, x0)
            }
        };
        (output.ok().map(Val::into_tensor), Vec::new())
    };
    let mut done = rec.finish();
    // After a forward that ran to its end: the loss and the backward.
    let ran = done.failure.is_none() && !done.cancelled;
    let backward = match done.tape.take() {
        Some(tape) if ran => {
            let keep = if watch.values { PREVIEW_MAX } else { 0 };
            let first = done.events.len();
            let b = backward::run(&tape, cfg.dtype, first, keep, model.arch.backward);
            done.events.extend(b.events.iter().cloned());
            Some((tape, b))
        }
        _ => None,
    };
    let mode = if B::NUMERIC {
        Mode::Numeric
    } else {
        Mode::ShapeOnly
    };
    let trace = Trace {
        config: cfg.clone(),
        mode,
        stream_shape: cfg.stream_shape(),
        anatomy: model.arch.anatomy.clone(),
        events: done.events,
        failure: done.failure,
        seeded: Vec::new(),
    };
    Recorded {
        trace,
        captures: done.captures,
        output,
        passes,
        cancelled: done.cancelled,
        backward,
    }
}
