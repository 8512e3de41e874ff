//! Shape-only and numeric runs come from one forward: they agree on every
//! event for randomly drawn small configs, faults included.

use proptest::prelude::*;
use shapetrace::config::{Act, DType, Fault, NormKind, Placement};
use shapetrace::{ModelConfig, Options};

fn configs() -> impl Strategy<Value = ModelConfig> {
    (
        (
            1usize..=3,
            1usize..=6,
            1usize..=3,
            1usize..=4,
            1usize..=3,
            1usize..=3,
        ),
        (
            0usize..4,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        (any::<u64>(), proptest::option::of(0usize..Fault::ALL.len())),
    )
        .prop_map(
            |((b, t, kv, group, hd, layers), (act, rms, post, bias, fin, f64), (seed, fault))| {
                let heads = kv * group;
                let mut c = ModelConfig {
                    batch: b,
                    seq: t,
                    d_model: heads * hd * 2,
                    heads,
                    kv_heads: kv,
                    d_ff: heads * hd * 3,
                    layers,
                    act: Act::ALL[act],
                    norm: if rms {
                        NormKind::RmsNorm
                    } else {
                        NormKind::LayerNorm
                    },
                    placement: if post {
                        Placement::Post
                    } else {
                        Placement::Pre
                    },
                    bias,
                    final_norm: fin,
                    dtype: if f64 { DType::F64 } else { DType::F32 },
                    seed,
                    ..ModelConfig::default()
                };
                c.fault = fault.map(|i| Fault::ALL[i]);
                if c.validate().is_err() {
                    c.fault = None; // a fault that would not show on this model
                }
                c
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn shape_only_and_numeric_traces_agree(cfg in configs()) {
        let numeric = shapetrace::trace(&cfg).unwrap();
        let shapes = shapetrace::trace_with(&cfg, Options { shape_only: true, values: false }).unwrap();
        let key = |t: &shapetrace::Trace| t.events.iter()
            .map(|e| (e.path.clone(), e.shape.clone(), e.dtype, e.departs, e.on_stream, e.inputs.clone(), e.formula.clone()))
            .collect::<Vec<_>>();
        prop_assert_eq!(key(&numeric), key(&shapes));
        // The shape-only run stops where the numeric run stops, unless it
        // stopped on a value (finite).
        let stop = |t: &shapetrace::Trace| t.failure.as_ref().map(|f| (f.path.clone(), f.check));
        prop_assert_eq!(stop(&numeric), stop(&shapes));
        prop_assert!(shapes.events.iter().all(|e| e.stats.is_none()));
    }
}
