//! `compare`'s alignment at depth: lesson against the 8-expert mixture
//! (every block adds steps on both sides, the case a whole-trace diff made
//! quadratic) and against grouped-query attention, at 256 and 1024 blocks.
//! The traces and budgets are made once; what is timed is
//! [`Comparison::of`], the block-by-block alignment with its rows. At
//! linear cost 1024 blocks take about 4× what 256 take.

use criterion::{Criterion, criterion_group, criterion_main};
use shapetrace::compare::Comparison;
use shapetrace::{Budget, ModelConfig, Request, Trace};
use std::hint::black_box;
use std::time::Duration;

/// As the binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `preset` at `layers` blocks, traced for its shapes, and its budget.
fn side(preset: &str, layers: usize) -> (Trace, Budget) {
    let mut cfg: ModelConfig = shapetrace::config::preset::by_name(preset).unwrap();
    cfg.layers = layers;
    let trace = shapetrace::trace_request(&cfg, &Request::shapes())
        .unwrap()
        .trace;
    (trace, Budget::of(&cfg).unwrap())
}

fn align(c: &mut Criterion) {
    let mut g = c.benchmark_group("compare");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for layers in [256, 1024] {
        let (lt, lb) = side("lesson", layers);
        for right in ["lesson-moe", "lesson-gqa"] {
            let (rt, rb) = side(right, layers);
            g.bench_function(format!("lesson vs {right}, {layers} blocks"), |b| {
                b.iter(|| {
                    Comparison::of(
                        (black_box("lesson"), &lt, &lb),
                        (black_box(right), &rt, &rb),
                    )
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, align);
criterion_main!(benches);
