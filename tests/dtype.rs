//! The dtype half of the contract: a bf16 or f16 model runs as frameworks
//! run it (weights and stream in 16 bits, each norm and softmax cast up to
//! f32 and back, each cast a step), the checks compare dtypes as they
//! compare shapes, and the two cast faults break it where a student would.

mod common;
use common::{cfg, cli};
use shapetrace::config::DType;
use shapetrace::trace::OpKind;
use shapetrace::{CheckName, Request, Status, Trace};

fn traced(toml: &str) -> Trace {
    let req = Request {
        values: true,
        ..Request::default()
    };
    shapetrace::trace_request(&cfg(toml), &req).unwrap().trace
}

/// Whether `v` is a value the dtype can hold exactly.
fn holds(dtype: DType, v: f64) -> bool {
    #[allow(clippy::cast_possible_truncation)]
    let f = v as f32;
    let back = match dtype {
        DType::BF16 => half::bf16::from_f32(f).to_f32(),
        DType::F16 => half::f16::from_f32(f).to_f32(),
        _ => f,
    };
    !v.is_finite() || f64::from(back) == v
}

#[test]
fn a_bf16_model_rounds_every_bf16_step_and_computes_norms_and_softmax_in_f32() {
    for dtype in [DType::BF16, DType::F16] {
        let t = traced(&format!("dtype = '{dtype}'"));
        assert!(t.failure.is_none(), "{dtype}: {:?}", t.failure);
        let mut f32_rounded = 0;
        for e in &t.events {
            let values = e.values.as_ref().expect("the lesson's tensors are small");
            if e.dtype == dtype {
                let off = values.iter().find(|v| !holds(dtype, **v));
                assert!(
                    off.is_none(),
                    "{dtype} {}: {off:?} is not a {dtype}",
                    e.path
                );
            } else {
                assert_eq!(e.dtype, DType::F32, "{}", e.path);
                f32_rounded += usize::from(values.iter().all(|v| holds(dtype, *v)));
            }
        }
        // The f32 steps are the casts up (their values are the 16-bit ones)
        // and the norms and softmaxes, which keep f32's precision.
        let computed = t
            .events
            .iter()
            .filter(|e| e.dtype == DType::F32 && e.op != OpKind::Cast)
            .count();
        assert!(computed > 0);
        let casts_up = t.events.len() - computed;
        assert!(
            f32_rounded <= casts_up,
            "{dtype}: only the casts up hold 16-bit values"
        );
    }
}

#[test]
fn every_cast_is_a_step_marked_as_a_departure_and_a_return() {
    let t = traced("dtype = 'bf16'");
    let ups: Vec<_> = t
        .events
        .iter()
        .filter(|e| e.path.ends_with(".to_f32"))
        .collect();
    let downs: Vec<_> = t
        .events
        .iter()
        .filter(|e| e.path.ends_with(".to_bf16"))
        .collect();
    // Two norms and a softmax in each of the two blocks.
    assert_eq!((ups.len(), downs.len()), (6, 6));
    for e in &t.events {
        match e.op {
            OpKind::LayerNorm | OpKind::Softmax => assert_eq!(e.dtype, DType::F32, "{}", e.path),
            OpKind::Linear | OpKind::Add | OpKind::Scores => {
                assert_eq!(e.dtype, DType::BF16, "{}", e.path);
            }
            _ => {}
        }
    }
    let up = t.get("block1.ln_1.to_f32").unwrap();
    assert!(up.departs);
    assert_eq!(up.leaves_dtype, Some(DType::BF16));
    assert_eq!(shapetrace::report::table::marker(up), "◆ leaves bf16");
    let down = t.get("block1.ln_1.to_bf16").unwrap();
    assert!(down.returns && !down.departs && down.on_stream);
    assert!(up.why_text.contains("f32") && down.why_text.contains("bf16"));
    // The scores leave the stream's shape and then its dtype: a shape marker.
    let s = t.get("block1.attn.scores.to_f32").unwrap();
    assert_eq!(s.leaves_dtype, None);
    assert_eq!(shapetrace::report::table::marker(s), "◆ leaves (B,T,d)");
}

#[test]
fn the_f32_lesson_has_no_casts() {
    let t = traced("");
    assert!(
        t.events
            .iter()
            .all(|e| e.dtype == DType::F32 && e.op != OpKind::Cast)
    );
}

#[test]
fn the_bf16_model_passes_every_check_and_stays_near_f32() {
    let run = shapetrace::run(&cfg("dtype = 'bf16'")).unwrap();
    let failed: Vec<_> = run
        .checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    let stream = run
        .checks
        .iter()
        .find(|c| c.name == CheckName::Stream)
        .unwrap();
    assert!(stream.detail.contains("bf16"), "{}", stream.detail);
    // The same weights in f32 and in bf16: close, and not equal.
    let out = |toml: &str| {
        let req = Request {
            keep_output: true,
            ..Request::default()
        };
        shapetrace::trace_request(&cfg(toml), &req)
            .unwrap()
            .output
            .unwrap()
    };
    let (a, b) = (out(""), out("dtype = 'bf16'"));
    let delta = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max);
    assert!(delta > 0.0 && delta < 0.1, "bf16 vs f32: |Δ| up to {delta}");
}

#[test]
fn a_norm_that_returns_f32_is_stopped_by_the_stream_check_naming_both_dtypes() {
    let t = traced("dtype = 'bf16'\nfault = 'norm-no-cast-back'");
    let f = t.failure.expect("the forward stops");
    assert_eq!(
        (f.check, f.path.as_str()),
        (CheckName::Stream, "block1.ln_1")
    );
    assert!(
        f.detail.contains("f32") && f.detail.contains("bf16"),
        "{}",
        f.detail
    );
    assert!(f.why_text.contains("cast back"), "{}", f.why_text);
}

#[test]
fn softmax_weights_left_f32_are_refused_by_the_weighted_sum() {
    let t = traced("dtype = 'f16'\nfault = 'softmax-no-cast-back'");
    let f = t.failure.expect("the forward stops");
    assert_eq!(f.check, CheckName::OpShapes);
    assert_eq!(f.path, "block1.attn.context");
    assert!(f.detail.contains("f32 and f16"), "{}", f.detail);
    let dtypes: Vec<DType> = f.operands.iter().map(|o| o.dtype).collect();
    assert_eq!(dtypes, [DType::F32, DType::F16]);
}

#[test]
fn the_residual_judge_compares_dtypes_as_it_compares_shapes() {
    use shapetrace::trace::judge::residual;
    let s: &[usize] = &[2, 4, 64];
    assert!(residual((s, DType::BF16), (s, DType::BF16), (s, DType::BF16)).is_ok());
    let (check, detail) =
        residual((s, DType::BF16), (s, DType::F32), (s, DType::BF16)).unwrap_err();
    assert!(!check.ok);
    assert_eq!(
        detail.text(),
        "residual add (2,4,64) bf16 + (2,4,64) f32: both operands must be bf16"
    );
}

#[test]
fn the_command_line_fails_the_cast_fault_and_passes_without_it() {
    let (code, out, _) = cli(&["check", "--dtype", "bf16", "--fault", "norm-no-cast-back"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("✗ stream") && out.contains("f32, not the stream's bf16"),
        "{out}"
    );
    let (code, out, _) = cli(&["check", "--dtype", "bf16"]);
    assert_eq!(code, Some(0), "{out}");
    // In f32 there is no cast to forget; i64 is the ids' dtype, not a model's.
    let (code, _, err) = cli(&["check", "--fault", "norm-no-cast-back"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("add --dtype bf16"), "{err}");
    let (code, _, err) = cli(&["trace", "--dtype", "i64"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("'i64'") && err.contains("allowed: f32, f64, bf16, f16"),
        "{err}"
    );
}

#[test]
fn the_budget_counts_two_bytes_an_element_in_bf16() {
    let f32 = shapetrace::budget::Budget::of(&cfg("")).unwrap();
    let bf16 = shapetrace::budget::Budget::of(&cfg("dtype = 'bf16'")).unwrap();
    assert_eq!(bf16.bytes.weights * 2, f32.bytes.weights);
    // Each traced tensor in its own dtype: the casts and the f32 norms and
    // softmax at 4 bytes, the rest at 2.
    let t = traced("dtype = 'bf16'");
    let own: u64 = t
        .events
        .iter()
        .map(|e| (e.shape.iter().product::<usize>() * e.dtype.size()) as u64)
        .sum();
    assert_eq!(bf16.bytes.activations, own);
    assert!(t.events.iter().any(|e| e.dtype == DType::F32));
    // The f32 row of the bf16 model's table is the f32 model's: no casts.
    use shapetrace::budget::Precision;
    assert_eq!(bf16.bytes_in(Precision::F32), f32.bytes);
    assert_eq!(f32.bytes_in(Precision::Bf16), bf16.bytes);
    // The ids are 8 bytes each.
    let lm = |d: &str| {
        let c = shapetrace::config::preset::by_name("lesson-lm").unwrap();
        let c = shapetrace::ModelConfig {
            dtype: d.parse().unwrap(),
            ..c
        };
        shapetrace::budget::Budget::of(&c)
            .unwrap()
            .bytes
            .activations
    };
    assert!(lm("bf16") < lm("f32"));
}

#[test]
fn a_log_without_leaves_dtype_still_marks_a_dtype_departure() {
    // Another program's writer may leave the derived field out.
    let (code, out, err) = cli(&["trace", "--preset", "lesson-bf16", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let stripped = out.replace(",\"leaves_dtype\":\"bf16\"", "");
    assert_ne!(stripped, out, "the log had the field");
    let replay = shapetrace::trace::log::read(stripped.as_bytes(), "t.jsonl").unwrap();
    let up = replay.trace.get("block1.ln_1.to_f32").unwrap();
    assert_eq!(shapetrace::report::table::marker(up), "◆ leaves bf16");
}

/// Each anatomy holds every check in 16 bits: sandwich norms' output
/// norms cast up and back like any norm, and `returns` judges the
/// sublayer's own output, not those casts.
#[test]
fn every_anatomy_holds_its_checks_in_bf16_and_f16() {
    for preset in ["lesson-sandwich", "lesson-parallel", "lesson-encoder"] {
        for dtype in ["bf16", "f16"] {
            let (code, out, err) = common::cli(&["check", "--preset", preset, "--dtype", dtype]);
            assert_eq!(code, Some(0), "{preset} {dtype}:\n{out}{err}");
        }
    }
}
