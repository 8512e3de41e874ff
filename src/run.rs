//! Running a model: plan the run, build the model, record its forward.
//!
//! [`trace_request`] decides numbers or shapes ([`crate::plan`]), builds
//! the model from seeded or loaded weights and records its forward on the
//! seeded or given input; `captured` records every tensor's values for
//! the probes.

use crate::config::{self, ModelConfig};
use crate::error::Error;
use crate::model::{Model, Source, record, record_on};
use crate::ops::numeric::{Numeric, Scalar, Tensor};
use crate::ops::shape::ShapeOnly;
use crate::ops::{self, Backend};
use crate::plan::{self, Plan, Request};
use crate::trace::recorder::{Capture, Watch};
use crate::trace::{Mode, Trace};
use ndarray::{Array2, ArrayD};

/// A finished trace, the plan it ran under and, when asked, the output.
#[derive(Debug, Clone)]
pub struct Traced {
    /// Every event the run recorded.
    pub trace: Trace,
    /// The mode the run chose and the memory figures behind it.
    pub plan: Plan,
    /// The model's final output (B, T, d) as f32, with
    /// [`Request::keep_output`] on a numeric run that did not stop.
    pub output: Option<ArrayD<f32>>,
    /// Every parameter's gradient by name, as f32, on a numeric run with
    /// the backward that did not stop; else `None`.
    pub grads: Option<std::collections::HashMap<String, ArrayD<f32>>>,
}

/// Traces the model of `cfg` numerically (or shapes only when too large),
/// keeping no values. For shapes only, values, weights, an input, a memory
/// limit, progress or cancelling, see [`Request`] and [`trace_request`].
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid.
pub fn trace(cfg: &ModelConfig) -> Result<Trace, Error> {
    Ok(trace_request(cfg, &Request::default())?.trace)
}

/// Plans and traces `cfg` under `req`: numbers or shapes, seeded or loaded
/// weights, the seeded input or the given one, with progress and cancel.
///
/// # Errors
/// [`Error::Config`] for an invalid config or a refused plan,
/// [`Error::InputShape`] when the input is not the stream shape, and
/// [`Error::Cancelled`] when the cancel flag was set.
pub fn trace_request(cfg: &ModelConfig, req: &Request) -> Result<Traced, Error> {
    let plan = plan::plan(cfg, req)?;
    if cfg.decode > 0 && req.input.is_some() {
        return Err(Error::DecodeInput { steps: cfg.decode });
    }
    if let Some(x) = &req.input
        && x.shape() != cfg.stream_shape().as_slice()
    {
        return Err(Error::InputShape {
            got: ops::fmt_shape(x.shape()),
            want: ops::fmt_shape(&cfg.stream_shape()),
            d: cfg.d_model,
        });
    }
    let source = req
        .weights
        .as_deref()
        .map_or(Source::Seeded, Source::Loaded);
    let ids = req.tokens.as_deref();
    // What the checkpoint lacked and the seed drew, for the log's header.
    let seeded = req.seeded.clone();
    let shapes = || {
        let start = (None, ids);
        record(cfg, &ShapeOnly(cfg.dtype), source, start, &Watch::default())
    };
    if plan.mode == Mode::ShapeOnly {
        return Ok(Traced {
            trace: Trace {
                seeded,
                ..shapes().trace
            },
            plan,
            output: None,
            grads: None,
        });
    }
    let expected = if req.hooks.progress.is_some() {
        shapes().trace.events.len()
    } else {
        0
    };
    let watch = Watch {
        values: req.values,
        capture: false,
        fuse: false,
        tape: false,
        hooks: req.hooks.clone(),
        expected,
    };
    let x0 = req.input.as_deref().map(|x| x.mapv(f64::from));
    // f32 runs bf16 and f16 too: their steps round each output.
    let (trace, output, grads) = match cfg.dtype {
        config::DType::F64 => numeric::<f64>(cfg, source, (x0, ids), &watch, req.keep_output),
        _ => numeric::<f32>(cfg, source, (x0, ids), &watch, req.keep_output),
    }?;
    Ok(Traced {
        trace: Trace { seeded, ..trace },
        plan,
        output,
        grads,
    })
}

/// A numeric trace in `F` on x0 or the token ids (or the seeded ones), and
/// its output as f32 when `keep` (converted only then: the logits of a
/// large vocabulary are hundreds of MB).
fn numeric<F: Scalar>(
    cfg: &ModelConfig,
    source: Source,
    (x0, ids): (Option<ArrayD<f64>>, Option<&Array2<i64>>),
    watch: &Watch,
    keep: bool,
) -> Result<Numbers, Error> {
    let x0 = x0.map(|x| Tensor::from(x.mapv(F::of)));
    let r = record(cfg, &Numeric::<F>::new(), source, (x0, ids), watch);
    if r.cancelled {
        return Err(Error::Cancelled);
    }
    #[allow(clippy::cast_possible_truncation)]
    let widen = |o: &Tensor<F>| o.read().mapv(|v| v.f64() as f32);
    let out = if r.passes.is_empty() {
        r.output.filter(|_| keep).map(|o| widen(&o))
    } else {
        // A decoding run's output: every pass's rows, (B, T + N, ·).
        let parts: Vec<ArrayD<f32>> = r.passes.iter().filter(|_| keep).map(widen).collect();
        let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
        ndarray::concatenate(ndarray::Axis(1), &views).ok()
    };
    // Every parameter's gradient, stored as the model's weights are read.
    #[allow(clippy::cast_possible_truncation)]
    let grads = r.backward.map(|(_, b)| {
        b.params
            .into_iter()
            .filter_map(|(name, _, g)| Some((name, g?.mapv(|v| v as f32))))
            .collect()
    });
    Ok((r.trace, out, grads))
}

/// Parameters' gradients by name.
type Grads = std::collections::HashMap<String, ArrayD<f32>>;

/// A numeric run's trace, its output if kept and its gradients if any.
type Numbers = (Trace, Option<ArrayD<f32>>, Option<Grads>);

/// A numeric trace in `F` of `source`'s weights on x0 with every tensor
/// captured, for the probes.
pub(crate) fn captured<F: Scalar>(
    cfg: &ModelConfig,
    source: Source,
    x0: ArrayD<F>,
) -> (Trace, Vec<Capture>) {
    let watch = Watch {
        capture: true,
        ..Watch::default()
    };
    let r = record(
        cfg,
        &Numeric::<F>::new(),
        source,
        (Some(x0.into()), None),
        &watch,
    );
    (r.trace, r.captures)
}

/// A run of the fast path as an uncaptured trace runs it (fused where it
/// fuses) with every built tensor captured, and the weights it ran with,
/// by name, widened to f64: what `reference` holds against a plain forward.
pub(crate) struct Fast {
    /// The run's trace.
    pub trace: Trace,
    /// Every tensor the backend built, in execution order.
    pub captures: Vec<Capture>,
    /// Every parameter of the model as built (seeded or loaded, rounded to
    /// a 16-bit dtype), by name, (in, out) for a linear's weight.
    pub weights: std::collections::HashMap<String, ArrayD<f64>>,
}

/// The fast path in `F` on x0 with `source`'s weights: see [`Fast`].
pub(crate) fn fast<F: Scalar>(cfg: &ModelConfig, source: Source, x0: ArrayD<F>) -> Fast {
    let backend = Numeric::<F>::new();
    let model = Model::build_from(cfg, &backend, source);
    let weights = model
        .params()
        .into_iter()
        .filter_map(|p| {
            let values = backend.values(&p.t)?;
            let shape = ndarray::IxDyn(<Numeric<F> as Backend>::shape(&p.t));
            Some((p.name.clone(), ArrayD::from_shape_vec(shape, values).ok()?))
        })
        .collect();
    let watch = Watch {
        capture: true,
        fuse: true,
        ..Watch::default()
    };
    let r = record_on(cfg, &backend, &model, (Some(x0.into()), None), &watch);
    Fast {
        trace: r.trace,
        captures: r.captures,
        weights,
    }
}
