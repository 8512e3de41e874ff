//! The book's Library chapter (docs/src/library.md), compiled: every line
//! of its Rust block is here, inside a function returning
//! `shapetrace::Error`, so the snippet cannot drift from the API
//! (`tests/book_sync.rs` holds the two together).
//! It is built by `cargo test`; running it needs `nanogpt.safetensors`.
//!
//! ```sh
//! cargo build --example library
//! ```

#[rustfmt::skip]
fn main() -> Result<(), shapetrace::Error> {
    // snippet: start
    let cfg = shapetrace::ModelConfig::default();          // the lesson model
    let run = shapetrace::run(&cfg)?;                        // trace + checks
    assert_eq!(run.trace.get("block1.attn.scores").unwrap().shape, [2, 4, 4, 4]);
    assert!(run.ok());

    let gpt2 = shapetrace::config::preset::by_name("gpt2-small")?;
    let budget = shapetrace::Budget::of(&gpt2)?;                // params, FLOPs, bytes
    assert_eq!(budget.total, 124_439_808);

    // Real models: a plan (numbers or shapes under a memory limit), loaded
    // weights and input, progress and cancel hooks, the output values.
    use shapetrace::{Request, load::{Sources, resolve}};
    let src = Sources { weights: Some("nanogpt.safetensors".into()), ..Sources::default() };
    let flags = shapetrace::Overlay { heads: Some(4), ..Default::default() };
    let (cfg, mut req) = resolve(&flags, &src, Request::default())?;   // config inferred, weights checked and read
    req.keep_output = true;
    let traced = shapetrace::trace_request(&cfg, &req)?;   // traced.plan, traced.trace, traced.output
    println!("{:?}", traced.plan.note());                  // Some(..) when switched to shapes only

    use shapetrace::lesson::{by_hand::FfnByHand, ffn_params, swiglu_width};
    assert_eq!(ffn_params(64, swiglu_width(256, None), true), 32_832);
    let steps = FfnByHand::lesson(&[2.0, -1.0])?.steps;         // one step per product

    // A trace log (`trace --format json > trace.jsonl`, or the PyTorch
    // exporter's), judged as `check --log` judges it: from its events.
    let replay = shapetrace::trace::log::read_file("trace.jsonl".as_ref())?;
    let checks = shapetrace::check::of_log(&replay);
    let failed: Vec<&str> = checks.iter().filter(|c| !c.ok).map(|c| c.name.as_str()).collect();
    // snippet: end
    println!("{} steps by hand; failed: {failed:?}", steps.len());
    Ok(())
}
