//! Generation: the prompt's prefill, then one token at a time through the
//! key/value cache (`--decode N`). The shapes of each decode step, the
//! `decode` check and the faults it catches, the ring a sliding window
//! makes of the cache, transformers' own `generate` with its cache as the
//! oracle (fixtures by scripts/make_decode_fixtures.py), the cache in the
//! budget, and the stepper's passes.

mod common;
use common::{cli, largest_delta};
use ndarray::ArrayD;
use shapetrace::config::{Fault, PosEmb, preset};
use shapetrace::load::{Sources, resolve};
use shapetrace::tui::action::Action;
use shapetrace::{ModelConfig, Overlay, Request, Trace};
use std::path::Path;

fn lesson_lm(decode: usize) -> ModelConfig {
    ModelConfig {
        decode,
        ..preset::by_name("lesson-lm").unwrap()
    }
}

fn shape(trace: &Trace, path: &str) -> (Vec<usize>, String) {
    let e = trace
        .get(path)
        .unwrap_or_else(|| panic!("no step {path} in the trace"));
    (e.shape.clone(), e.named_shape())
}

fn failing(run: &shapetrace::Run) -> Vec<&str> {
    let bad = run.checks.iter().filter(|c| !c.ok);
    bad.map(|c| c.name.as_str()).collect()
}

#[test]
fn each_decode_step_has_one_query_row_over_a_cache_that_grows_by_one() {
    let run = shapetrace::run(&lesson_lm(3)).unwrap();
    let t = &run.trace;
    // The prefill is the training-time forward of the prompt.
    assert_eq!(shape(t, "prefill.block1.attn.q").0, [2, 4, 4, 16]);
    assert_eq!(shape(t, "prefill.block1.attn.k_cache").0, [2, 4, 4, 16]);
    assert_eq!(shape(t, "prefill.lm_head").0, [2, 4, 96]);
    for n in 1..=3 {
        let at = |p: &str| shape(t, &format!("decode{n}.block1.attn.{p}"));
        assert_eq!(at("q").0, [2, 4, 1, 16], "decode{n}");
        let s = 4 + n;
        assert_eq!(
            at("k_cache"),
            (vec![2, 4, s, 16], format!("(B=2,h=4,S={s},hd=16)"))
        );
        assert_eq!(at("v_cache").0, [2, 4, s, 16]);
        assert_eq!(at("scores").1, format!("(B=2,h=4,Tq=1,Tk={s})"));
        assert_eq!(at("weights").1, format!("(B=2,h=4,Tq=1,Tk={s})"));
        assert_eq!(at("context").0, [2, 4, 1, 16]);
        assert_eq!(shape(t, &format!("decode{n}.block1.resid_2")).0, [2, 1, 64]);
        assert_eq!(shape(t, &format!("decode{n}.lm_head")).0, [2, 1, 96]);
        // The new token's position in wpe: T + n − 1.
        let pos = t.get(&format!("decode{n}.pos_emb")).unwrap();
        assert!(
            pos.formula
                .starts_with(&format!("wpe[{}..{}]", 3 + n, 4 + n)),
            "{}",
            pos.formula
        );
    }
    // A decode step's rows are the stream at (B, 1, d), not departures.
    let step = t.get("decode2.block1.resid_1").unwrap();
    assert!(!step.departs && step.check.as_ref().is_some_and(|c| c.ok));
    assert!(run.ok(), "{:?}", failing(&run));
    let decode = run
        .checks
        .iter()
        .find(|c| c.name.as_str() == "decode")
        .unwrap();
    assert!(
        decode.detail.contains("each of the 3 decode steps"),
        "{}",
        decode.detail
    );
}

#[test]
fn the_whys_say_why_the_query_is_one_row_and_the_keys_are_all_of_them() {
    let run = shapetrace::run(&ModelConfig {
        positions: shapetrace::config::Positions {
            kind: PosEmb::Rope,
            ..lesson_lm(0).positions
        },
        ..lesson_lm(2)
    })
    .unwrap();
    let why = |p: &str| run.trace.get(p).unwrap().why_text().to_string();
    assert!(
        why("decode1.block1.attn.scores").contains("one row"),
        "{}",
        why("decode1.block1.attn.scores")
    );
    assert!(why("decode1.block1.attn.k_cache").contains("5 in all"));
    assert!(
        why("decode2.block1.attn.k_rot").contains("true position, 5"),
        "{}",
        why("decode2.block1.attn.k_rot")
    );
    assert!(why("decode1.block1.attn.weights").contains("no key comes after it"));
    // The prompt's own scores are the training-time why.
    assert!(!why("prefill.block1.attn.scores").contains("one row"));
}

/// Each decode fault passes every shape and fails `decode` alone; the same
/// run without the fault passes it.
#[test]
fn each_decode_fault_fails_the_decode_check_and_nothing_else() {
    let rope = |c: ModelConfig| ModelConfig {
        positions: shapetrace::config::Positions {
            kind: PosEmb::Rope,
            ..c.positions.clone()
        },
        ..c
    };
    for (fault, cfg) in [
        (Fault::DecodeNoAppend, lesson_lm(3)),
        (Fault::DecodeMaskTopLeft, lesson_lm(3)),
        (Fault::DecodeRopeAtZero, rope(lesson_lm(3))),
    ] {
        let clean = shapetrace::run(&cfg).unwrap();
        assert!(
            clean.ok(),
            "{fault} without the fault: {:?}",
            failing(&clean)
        );
        let broken = ModelConfig {
            fault: Some(fault),
            ..cfg
        };
        let run = shapetrace::run(&broken).unwrap();
        assert_eq!(failing(&run), ["decode"], "{fault}");
        let c = run.checks.iter().find(|c| !c.ok).unwrap();
        assert_eq!(
            c.path.as_deref(),
            Some("decode1.lm_head"),
            "{fault}: {}",
            c.detail
        );
    }
}

#[test]
fn check_decode_3_lists_decode_and_exits_0_and_a_fault_exits_1() {
    let (code, out, err) = cli(&["check", "--preset", "lesson-lm", "--decode", "3"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("✓ decode"), "{out}");
    let (code, out, _) = cli(&[
        "check",
        "--preset",
        "lesson-lm",
        "--decode",
        "3",
        "--fault",
        "decode-no-append",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("✗ decode        decode1.lm_head"), "{out}");
}

#[test]
fn without_a_vocabulary_each_step_feeds_a_seeded_row_and_matches_the_full_forward() {
    let cfg = ModelConfig {
        decode: 3,
        ..ModelConfig::default()
    };
    let run = shapetrace::run(&cfg).unwrap();
    assert!(run.ok(), "{:?}", failing(&run));
    assert_eq!(shape(&run.trace, "decode3.input").0, [2, 1, 64]);
    assert_eq!(
        shape(&run.trace, "decode3.block2.attn.k_cache").0,
        [2, 4, 7, 16]
    );
    let bad = ModelConfig {
        fault: Some(Fault::DecodeMaskTopLeft),
        ..cfg
    };
    assert_eq!(failing(&shapetrace::run(&bad).unwrap()), ["decode"]);
}

#[test]
fn a_sliding_window_makes_the_cache_a_ring_that_stops_growing() {
    let cfg = ModelConfig {
        decode: 3,
        positions: shapetrace::config::Positions {
            kind: PosEmb::Rope,
            ..lesson_lm(0).positions
        },
        attention: shapetrace::config::Attention {
            window: Some(2),
            ..lesson_lm(0).attention
        },
        ..lesson_lm(3)
    };
    let run = shapetrace::run(&cfg).unwrap();
    assert!(run.ok(), "{:?}", failing(&run));
    // The prompt's 4 positions already fill the ring of 2.
    assert_eq!(
        shape(&run.trace, "prefill.block1.attn.k_cache").0,
        [2, 4, 2, 16]
    );
    for n in 1..=3 {
        let k = run
            .trace
            .get(&format!("decode{n}.block1.attn.k_cache"))
            .unwrap();
        assert_eq!(k.shape, [2, 4, 2, 16], "decode{n}");
        let pos = 3 + n;
        let said = format!(
            "the last position written, {pos}, went to slot {}, overwriting position {}",
            pos % 2,
            pos - 2
        );
        assert!(k.why_text().contains(&said), "{}", k.why_text());
    }
    // Left out, the window lets the cache path read keys the full forward
    // does not: the check sees it.
    let bad = ModelConfig {
        fault: Some(Fault::NoSlidingWindow),
        ..cfg
    };
    assert!(failing(&shapetrace::run(&bad).unwrap()).contains(&"causality"));
}

/// A fixture folder of a tiny Hugging Face checkpoint, its prompt and
/// transformers' `generate` with its cache (scripts/make_decode_fixtures.py).
fn generated(config: &Path, weights: &Path, tokens: &Path, fault: Option<Fault>) -> ArrayD<f32> {
    let src = Sources {
        config: Some(config.to_path_buf()),
        weights: Some(weights.to_path_buf()),
        tokens: Some(tokens.to_str().unwrap().into()),
        ..Sources::default()
    };
    let overlay = Overlay::from_toml("decode = 3", "test").unwrap();
    let req = Request {
        keep_output: true,
        ..Request::default()
    };
    let (mut cfg, req) = resolve(&overlay, &src, req).unwrap();
    cfg.fault = fault;
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(traced.trace.failure.is_none(), "{:?}", traced.trace.failure);
    traced.output.unwrap()
}

fn fixtures() -> Vec<(String, [std::path::PathBuf; 5])> {
    let mut out: Vec<_> = [
        "llama", "mistral", "gemma2", "qwen2", "neox", "phi3", "mixtral",
    ]
    .iter()
    .map(|f| {
        let d = Path::new("tests/fixtures").join(format!("hf-{f}-tiny"));
        let at = |n: &str| d.join(n);
        (
            (*f).to_string(),
            [
                at("config.json"),
                at("model.safetensors"),
                at("tokens.npy"),
                at("decode-logits.npy"),
                at("decode-tokens.npy"),
            ],
        )
    })
    .collect();
    let g = |n: &str| Path::new("tests/fixtures").join(n);
    out.push((
        "gpt2".into(),
        [
            g("hf-gpt2-lm-config.json"),
            g("hf-gpt2-lm.safetensors"),
            g("hf-gpt2-lm-tokens.npy"),
            g("hf-gpt2-lm-decode-logits.npy"),
            g("hf-gpt2-lm-decode-tokens.npy"),
        ],
    ));
    out
}

/// Every family's logits at every position, the prompt's and the 3 new
/// ones, equal transformers' `generate` with its cache, with the same
/// tokens chosen; with the new key and value left out of the cache they
/// do not.
#[test]
fn every_family_decodes_as_transformers_generate_does_with_its_cache() {
    for (family, [config, weights, tokens, logits, chosen]) in fixtures() {
        let got = generated(&config, &weights, &tokens, None);
        let want: ArrayD<f32> = shapetrace::npy::read(&logits).unwrap();
        assert_eq!(got.shape(), want.shape(), "{family}");
        let delta = largest_delta(&got, &want);
        assert!(delta < 1e-4, "{family}: |Δ| {delta}");
        // Greedy: the argmax of each row from the prompt's last is the
        // next token transformers chose.
        let ids: ArrayD<i64> = shapetrace::npy::read_ids(&chosen).unwrap();
        let (b, t) = (got.shape()[0], got.shape()[1]);
        // T prompt ids, then the N + 1 = 4 tokens generate chose.
        let prompt = ids.shape()[1] - 4;
        for bi in 0..b {
            for ti in prompt - 1..t {
                let row = got.slice(ndarray::s![bi, ti, ..]);
                let best = row
                    .iter()
                    .enumerate()
                    .fold((0, f32::MIN), |m, (i, &v)| if v > m.1 { (i, v) } else { m })
                    .0;
                let want = ids[[bi, ti + 1]];
                assert_eq!(
                    best as i64, want,
                    "{family}: batch {bi}, after position {ti}"
                );
            }
        }
        let broken = generated(&config, &weights, &tokens, Some(Fault::DecodeNoAppend));
        let off = largest_delta(&broken, &want);
        assert!(off > 1e-3, "{family}: without the append |Δ| only {off}");
    }
}

#[test]
fn params_shows_the_cache_per_token_with_its_formula_and_what_mha_would_need() {
    let (code, out, err) = cli(&[
        "params",
        "--config",
        "tests/fixtures/hf/mistral-7b-v0.1.json",
        "--dtype",
        "bf16",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("bf16 ◀") && l.contains("2·L·kv·hd·bytes"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("131,072 B  2·L·kv·hd·bytes = 2·32·8·128·2"),
        "{line}"
    );
    assert!(
        out.contains("MHA would need 524,288 B per token in bf16"),
        "{out}"
    );
    // Without grouped heads there is no MHA line to draw.
    let (_, out, _) = cli(&["params", "--preset", "gpt2-small"]);
    assert!(out.contains("Key/value cache while decoding"), "{out}");
    assert!(!out.contains("MHA would need"), "{out}");
}

#[test]
fn decode_refuses_what_it_cannot_run_in_one_line_with_exit_2() {
    for (args, names) in [
        (
            &["trace", "--preset", "lesson-encoder", "--decode", "2"][..],
            "decode 2",
        ),
        (
            &["trace", "--preset", "lesson-lm", "--decode", "13"][..],
            "0..=12",
        ),
        (&["trace", "--decode", "5000"][..], "0..=4096"),
        (&["trace", "--decode", "-1"][..], "'-1'"),
        (
            &[
                "trace",
                "--input",
                "tests/fixtures/hf-llama-tiny/input.npy",
                "--decode",
                "2",
            ][..],
            "--decode 2 with --input",
        ),
        (
            &["check", "--fault", "decode-no-append"][..],
            "add --decode 3",
        ),
        (
            &["check", "--decode", "2", "--fault", "decode-rope-at-zero"][..],
            "--pos-emb rope",
        ),
        // Under a window on every layer there is no causal mask to align.
        (
            &[
                "check",
                "--decode",
                "2",
                "--window",
                "2",
                "--fault",
                "decode-mask-top-left",
            ][..],
            "drop --window",
        ),
    ] {
        let (code, out, err) = cli(args);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn the_stepper_steps_pass_by_pass_and_shows_the_one_query_row_over_the_cache() {
    let mut lp = common::stepper(lesson_lm(2), shapetrace::tui::app::Given::default());
    assert!(
        common::frame(&lp).contains("prefill"),
        "{}",
        common::frame(&lp)
    );
    lp.app.update(Action::NextPass);
    common::settle(&mut lp);
    assert_eq!(lp.app.path(lp.app.cursor), Some("decode1.tokens"));
    let at = |lp: &common::TestLoop| lp.app.path(lp.app.cursor).unwrap().to_string();
    // To the step's attention weights: one row, every key read.
    while at(&lp) != "decode1.block1.attn.weights" {
        lp.app.update(Action::Next);
    }
    common::settle(&mut lp);
    let screen = common::frame(&lp);
    assert!(screen.contains("decode 1/2"), "{screen}");
    // The heatmap's one row, q0, over the 5 cached keys.
    let row = |screen: &str| {
        let line = screen
            .lines()
            .find(|l| l.contains("q0 "))
            .unwrap_or_default();
        line[line.find("q0 ").unwrap_or(0)..].to_string()
    };
    assert!(screen.contains("1×5") && screen.contains("k4"), "{screen}");
    assert!(
        !row(&screen).contains('╳'),
        "a decode step's query reads every key:\n{screen}"
    );
    assert!(!screen.contains("q1 "), "{screen}");
    // The residual adds of every pass are counted against every pass's.
    assert!(screen.contains("✓ 12/12"), "{screen}");
    lp.app.update(Action::PrevPass);
    common::settle(&mut lp);
    assert_eq!(at(&lp), "decode1.tokens");
    lp.app.update(Action::PrevPass);
    common::settle(&mut lp);
    assert_eq!(at(&lp), "prefill.tokens");
    // The prefill's weights do mask: the training-time causal mask.
    while at(&lp) != "prefill.block1.attn.weights" {
        lp.app.update(Action::Next);
    }
    common::settle(&mut lp);
    let screen = common::frame(&lp);
    assert!(row(&screen).contains('╳'), "{screen}");
}

/// The log of a decoding run reads back: `check --log` judges each pass
/// on its own (a decode step's contract at (B, 1, d)), and `decode` as the
/// summary gave it; `view` and the HTML handout show every pass.
#[test]
fn a_decoding_log_is_judged_pass_by_pass_and_every_view_shows_the_passes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("d.jsonl");
    let log = log.to_str().unwrap();
    let base = ["--preset", "lesson-lm", "--decode", "2"];
    let mut args = vec!["trace", "--format", "json", "--out", log];
    args.extend(base);
    assert_eq!(cli(&args).0, Some(0));
    let (code, out, err) = cli(&["check", "--log", log]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("✓ stream") && out.contains("✓ decode"),
        "{out}"
    );
    // A decode step whose residual add meets the wrong shape fails it,
    // named by its pass.
    let text = std::fs::read_to_string(log).unwrap();
    let broken = text.replacen(
        "\"path\":\"decode2.block1.resid_1\",\"op\":\"add\",\"role\":\"residual-add\",\"shape\":[2,1,64]",
        "\"path\":\"decode2.block1.resid_1\",\"op\":\"add\",\"role\":\"residual-add\",\"shape\":[2,4,64]",
        1,
    );
    assert_ne!(broken, text, "the log holds decode2.block1.resid_1");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, broken).unwrap();
    let (code, out, _) = cli(&["check", "--log", bad.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("decode2.block1.resid_1"), "{out}");
    let (_, out, _) = cli(&["view", log, "--format", "table"]);
    assert!(
        out.contains("decode2.block1.attn.k_cache") && out.contains("(B=2,h=4,S=6,hd=16)"),
        "{out}"
    );
    let mut args = vec!["trace", "--format", "html"];
    args.extend(base);
    let (code, html, _) = cli(&args);
    assert_eq!(code, Some(0));
    assert!(
        html.contains("decode2.block1.attn.weights") && html.contains("Tk=6"),
        "html"
    );
}

/// A 16-bit model's cache path is judged in f32, where a wrong cache
/// shows (bf16's 64·ε is 0.5 and would pass every decode fault); a run
/// stopped in its prefill blames no decode step; a model that lets a
/// position read later tokens is told apart from a wrong cache.
#[test]
fn the_decode_check_judges_16_bit_models_stopped_runs_and_non_causal_models_honestly() {
    let bf16 = ModelConfig {
        dtype: shapetrace::config::DType::BF16,
        ..lesson_lm(3)
    };
    let run = shapetrace::run(&bf16).unwrap();
    assert!(run.ok(), "{:?}", failing(&run));
    for fault in [Fault::DecodeNoAppend, Fault::DecodeMaskTopLeft] {
        let bad = ModelConfig {
            fault: Some(fault),
            ..bf16.clone()
        };
        assert_eq!(
            failing(&shapetrace::run(&bad).unwrap()),
            ["decode"],
            "{fault}"
        );
    }
    // The prefill stops at its first MLP: the decode steps never ran.
    let stopped = ModelConfig {
        fault: Some(Fault::BiasW164),
        ..lesson_lm(2)
    };
    let run = shapetrace::run(&stopped).unwrap();
    assert_eq!(failing(&run), ["op-shapes"]);
    let op = run.checks.iter().find(|c| !c.ok).unwrap();
    assert_eq!(op.path.as_deref(), Some("prefill.block1.mlp.up"));
    // No causal mask: the prompt's own rows differ, not the cache's.
    let open = ModelConfig {
        fault: Some(Fault::NoCausalMask),
        ..lesson_lm(2)
    };
    let run = shapetrace::run(&open).unwrap();
    let d = run
        .checks
        .iter()
        .find(|c| c.name.as_str() == "decode")
        .unwrap();
    assert!(
        !d.ok && d.detail.contains("inside the prompt"),
        "{}",
        d.detail
    );
}

/// The budget of a generating model is its prompt's forward: the decode
/// steps add the cache (counted apart), not FLOPs or activations of their
/// own to the forward's.
#[test]
fn the_budget_of_a_decoding_model_counts_the_prompt_s_forward_once() {
    let once = shapetrace::Budget::of(&lesson_lm(0)).unwrap();
    let decoding = shapetrace::Budget::of(&lesson_lm(3)).unwrap();
    assert_eq!(decoding.flops, once.flops);
    assert_eq!(decoding.total, once.total);
    assert_eq!(
        decoding
            .kv_cache
            .per_token(shapetrace::budget::Precision::F32),
        1024
    );
    // The prefill writes its cache: 2 layers × k and v × (2,4,4,16) f32.
    assert_eq!(decoding.bytes.activations, once.bytes.activations + 8192);
}
