//! How to assert the shape contract in your own `cargo test`: a guide for
//! test authors, each test one invariant, each paired with a fault that
//! breaks it (so the assertion is shown to fail when it should).
//!
//! The library's entry point is [`shapetrace::run`]: it traces a model and
//! runs every check. A [`shapetrace::Trace`] holds one event per tensor
//! with its path, shape, named axes and dtype; `run.checks` holds each
//! check's verdict, with an `ok` field and a `status`. Check names compare
//! with strings (`c.name == "residual"`).

use shapetrace::config::Fault;
use shapetrace::{ModelConfig, Run};

/// The lesson model (B 2, T 4, d_model 64, 4 heads, d_ff 256, 2 Pre-LN
/// blocks) with `fault` built in, or none.
fn lesson(fault: Option<Fault>) -> Run {
    let cfg = ModelConfig {
        fault,
        ..ModelConfig::default()
    };
    shapetrace::run(&cfg).expect("the lesson model runs")
}

/// The verdict of check `name` on `run`.
fn verdict<'r>(run: &'r Run, name: &str) -> &'r shapetrace::CheckResult {
    run.checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check named {name}"))
}

/// A shape by path: the attention scores are (B, h, Tq, Tk), one T×T table
/// per head, not (B, T, d_model).
#[test]
fn a_shape_by_path() {
    let run = lesson(None);
    let scores = run.trace.get("block1.attn.scores").expect("scores event");
    assert_eq!(scores.shape, [2, 4, 4, 4]);
    assert!(scores.departs, "the scores leave (B,T,d)");
    let hidden = run.trace.get("block1.mlp.up").expect("FFN hidden event");
    assert_eq!(hidden.shape, [2, 4, 256]);
    // With the down projection missing, the MLP's output stays (2,4,256)
    // and the forward stops at the add: there is no `mlp.down` event.
    let broken = lesson(Some(Fault::FfnNoDown));
    assert!(broken.trace.get("block1.mlp.down").is_none());
}

/// Every residual add has two (B,T,d) operands: the stream and the update.
#[test]
fn every_residual_add_has_two_stream_shaped_operands() {
    let run = lesson(None);
    let stream = run.trace.stream_shape.clone();
    let adds: Vec<_> = run.trace.residual_adds().collect();
    assert_eq!(adds.len(), run.trace.expected_residual_adds());
    for add in adds {
        let check = add.check.as_ref().expect("an add records its operands");
        assert_eq!(check.stream, stream, "{}", add.path);
        assert_eq!(check.update, stream, "{}", add.path);
        assert!(check.ok);
    }
    // The fault: the heads are never merged, so the update is (2,4,4,16);
    // the forward stops there and the failure keeps both operands.
    let broken = lesson(Some(Fault::AttnNoMerge));
    let failure = broken.trace.failure.as_ref().expect("the forward stops");
    let operands = failure.residual.as_ref().expect("a residual failure");
    assert_eq!(operands.update, [2, 4, 4, 16]);
    assert!(!operands.ok);
}

/// Every departure from (B,T,d) returns before the next residual add.
#[test]
fn every_departure_returns_before_its_add() {
    let run = lesson(None);
    let events = &run.trace.events;
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.departs) {
        let back = events[i..].iter().find(|n| !n.departs).expect("returns");
        assert!(back.returns, "{} never returns", e.path);
        assert_eq!(back.shape, run.trace.stream_shape);
    }
    assert!(verdict(&run, "returns").ok);
    // The fault: the FFN's hidden layer (2,4,256) reaches the add.
    let broken = lesson(Some(Fault::FfnNoDown));
    let last = broken.trace.events.last().expect("events");
    assert!(last.departs && last.path == "block1.mlp.act");
}

/// A fault is caught by the check the library says catches it, and no
/// check fails on the correct model.
#[test]
fn a_fault_is_caught_by_its_check() {
    let run = lesson(None);
    assert!(run.ok(), "{:?}", run.checks);
    let broken = lesson(Some(Fault::NoCausalMask));
    let causality = verdict(&broken, "causality");
    assert!(!causality.ok);
    assert_eq!(causality.status, shapetrace::Status::Fail);
    assert_eq!(causality.path.as_deref(), Some("block1.attn.weights"));
    for name in Fault::NoCausalMask.spec().caught_by {
        assert!(!verdict(&broken, name.as_str()).ok, "{name}");
    }
}

/// A module returns the dtype it was given: in a bf16 model every sublayer
/// interface (each norm's output after its cast back, each sublayer's
/// output, each sum) is bf16, though the norms compute in f32 inside.
#[test]
fn every_stream_tensor_keeps_the_models_dtype() {
    use shapetrace::config::DType;
    let bf16 = |fault| ModelConfig {
        fault,
        dtype: DType::BF16,
        ..ModelConfig::default()
    };
    let run = shapetrace::run(&bf16(None)).expect("the bf16 lesson model runs");
    let stream: Vec<_> = run.trace.events.iter().filter(|e| e.on_stream).collect();
    assert!(!stream.is_empty());
    for e in stream {
        assert_eq!(e.dtype, DType::BF16, "{}", e.path);
    }
    let norm = run.trace.get("block1.ln_1").expect("the norm itself");
    assert_eq!(norm.dtype, DType::F32, "computed in f32");
    assert!(verdict(&run, "stream").ok);
    // A norm that forgets to cast back hands f32 on: `stream` fails there.
    let broken = shapetrace::run(&bf16(Some(Fault::NormNoCastBack))).expect("runs");
    let v = verdict(&broken, "stream");
    assert!(!v.ok);
    assert_eq!(v.path.as_deref(), Some("block1.ln_1"));
}
