//! Helpers shared by the integration tests.
#![allow(dead_code)]

use shapetrace::{ModelConfig, Overlay};

/// The lesson config with `toml` laid over it.
pub fn cfg(toml: &str) -> ModelConfig {
    Overlay::from_toml(toml, "test")
        .expect("test overlay parses")
        .resolve()
        .expect("test config is valid")
}

/// One line per event: step, path, shape, dtype and the departs flag.
pub fn shape_lines(trace: &shapetrace::Trace) -> String {
    trace
        .events
        .iter()
        .map(|e| {
            let d = if e.departs { "departs" } else { "" };
            format!(
                "{:>2} {:<22} {:<12} {} {d}",
                e.step,
                e.path,
                shapetrace::ops::fmt_shape(&e.shape),
                e.dtype
            )
            .trim_end()
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Makes a named pipe (FIFO) at `path`, readable and writable by its owner.
pub fn mkfifo(path: &std::path::Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
}

/// The stepper's screen for `app` at `w`×`h`, as one string of its cells.
pub fn screen_of(app: &shapetrace::tui::app::App, w: u16, h: u16) -> String {
    let mut term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| f.render_widget(app, f.area()))
        .expect("test draw");
    term.backend()
        .buffer()
        .content
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect()
}

/// The event paths, in order.
pub fn paths(trace: &shapetrace::Trace) -> Vec<String> {
    trace.events.iter().map(|e| e.path.clone()).collect()
}

/// Small valid configs of every kind (activation, norm, placement, bias,
/// grouped-query attention, final norm, dtype); with `faults`, some carry
/// a teaching fault that shows on them.
pub fn small_configs(faults: bool) -> impl proptest::strategy::Strategy<Value = ModelConfig> {
    use proptest::prelude::*;
    use shapetrace::config::{Act, DType, Fault, NormKind, Placement, PosEmb};
    let fault = if faults {
        proptest::option::of(0..Fault::ALL.len()).boxed()
    } else {
        Just(None).boxed()
    };
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
        (any::<u64>(), fault, any::<bool>()),
    )
        .prop_map(
            |(
                (b, t, kv, group, hd, layers),
                (act, rms, post, bias, fin, f64),
                (seed, fault, rope),
            )| {
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
                    pos_emb: if rope { PosEmb::Rope } else { PosEmb::Learned },
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

/// The largest difference between two arrays' values, in order.
pub fn max_diff<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
) -> f32 {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}
