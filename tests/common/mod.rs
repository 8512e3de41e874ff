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

/// The event paths, in order.
pub fn paths(trace: &shapetrace::Trace) -> Vec<String> {
    trace.events.iter().map(|e| e.path.clone()).collect()
}
