//! Assert the shape contract from your own program: trace the lesson model
//! (or any config), then check a shape by path, every residual add's
//! operands and every departure's return, and see a fault caught.
//!
//! ```sh
//! cargo run --example contract
//! ```

use shapetrace::config::Fault;
use shapetrace::shape::fmt_shape;
use shapetrace::{ModelConfig, Run};

fn run(fault: Option<Fault>) -> Result<Run, shapetrace::Error> {
    shapetrace::run(&ModelConfig {
        fault,
        ..ModelConfig::default()
    })
}

fn main() -> Result<(), shapetrace::Error> {
    let ok = run(None)?;
    let trace = &ok.trace;

    // A shape by path.
    let scores = trace.get("block1.attn.scores").expect("a scores event");
    println!("{}: {}", scores.path, scores.named_shape());

    // Every residual add: two (B,T,d) operands.
    for add in trace.residual_adds() {
        let c = add.check.as_ref().expect("an add records its operands");
        let mark = if c.ok { "✓" } else { "✗" };
        println!("{mark} {} {}", add.path, c.operands());
    }

    // Every departure returns before its add.
    let departures = trace.departures().count();
    let returns = trace.events.iter().filter(|e| e.returns).count();
    println!(
        "{departures} departures from {}, {returns} returns",
        fmt_shape(&trace.stream_shape)
    );

    // Every check's verdict, then a fault caught by its check.
    for c in &ok.checks {
        println!("{} {}: {}", c.status.as_str(), c.name, c.detail);
    }
    let broken = run(Some(Fault::NoCausalMask))?;
    for c in broken.checks.iter().filter(|c| !c.ok) {
        println!(
            "fault no-causal-mask: ✗ {} at {}",
            c.name,
            c.path.as_deref().unwrap_or("?")
        );
    }
    Ok(())
}
