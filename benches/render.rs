//! Frame render time of the stepper on the lesson trace.

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shapetrace::ModelConfig;
use shapetrace::tui::action::Action;
use std::hint::black_box;

#[path = "../tests/common/mod.rs"]
mod common;

/// As the binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn render(c: &mut Criterion) {
    #[allow(unsafe_code)]
    // SAFETY: the first benchmark of the binary, before rayon's or any
    // other thread exists.
    unsafe {
        shapetrace::allocator::keep_freed_memory(); // as the binary
    }
    // Opened as the command line opens it, the full trace shown.
    let mut app = common::stepper(ModelConfig::default(), Default::default()).app;
    for _ in 0..5 {
        app.update(Action::NextDeparture); // block1.attn.weights: list, diagram and heatmap all drawn
    }
    for (w, h) in [(120, 40), (240, 70)] {
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        c.bench_function(&format!("render lesson screen {w}x{h}"), |b| {
            b.iter(|| {
                term.draw(|f| f.render_widget(black_box(&app), f.area()))
                    .unwrap();
            });
        });
    }
}

fn trace(c: &mut Criterion) {
    let cfg = ModelConfig::default();
    c.bench_function("lesson trace and checks", |b| {
        b.iter(|| shapetrace::run(black_box(&cfg)).unwrap())
    });
}

criterion_group!(benches, render, trace);
criterion_main!(benches);
