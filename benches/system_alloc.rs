//! The numeric GPT-2-small forward of `benches/trace.rs` (`forward T=…
//! (weights built)`) with the system allocator: this binary sets no
//! `#[global_allocator]`, so every tensor comes from the C library's
//! malloc, where the binary and the `trace` bench use mimalloc set to keep
//! freed memory (`src/allocator.rs`). The two benches' rows compare the
//! allocators on the same forward.

use criterion::{Criterion, criterion_group, criterion_main};
use shapetrace::ModelConfig;
use shapetrace::model::Model;
use shapetrace::ops::numeric::Numeric;
use shapetrace::trace::recorder::{Recorder, Watch};
use std::time::Duration;

fn gpt2_small(seq: usize) -> ModelConfig {
    let mut c = shapetrace::config::preset::by_name("gpt2-small").unwrap();
    c.seq = seq;
    c
}

fn numeric(c: &mut Criterion) {
    let mut g = c.benchmark_group("gpt2-small numeric, system allocator");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    for seq in [128, 1024] {
        let cfg = gpt2_small(seq);
        let backend = Numeric::<f32>::new();
        let model = Model::build(&cfg, &backend);
        let x0 = shapetrace::model::input(&cfg, &backend);
        g.bench_function(format!("forward T={seq} (weights built)"), |b| {
            b.iter(|| {
                let mut rec = Recorder::new(&backend, cfg.stream_shape(), Watch::default());
                model.forward(&mut rec, x0.clone()).unwrap();
                rec.finish()
            });
        });
    }
    g.finish();
}

criterion_group!(benches, numeric);
criterion_main!(benches);
