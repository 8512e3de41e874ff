//! The whole path of a language model: from the token ids (B, T) int64
//! through the embeddings to x0, the blocks, the final norm and the LM
//! head's logits (B, T, V), checked against Hugging Face `transformers`
//! (`scripts/make_lm_fixture.py`), and every way `--tokens` can be wrong.

mod common;
use common::{cfg, cli, largest_delta};
use shapetrace::config::DType;
use shapetrace::load::{Sources, resolve};
use shapetrace::trace::OpKind;
use shapetrace::{Overlay, Request};

const WEIGHTS: &str = "tests/fixtures/hf-gpt2-lm.safetensors";
const TOKENS: &str = "tests/fixtures/hf-gpt2-lm-tokens.npy";
const LOGITS: &str = "tests/fixtures/hf-gpt2-lm-logits.npy";

/// The events of `trace --format json` (the header and summary left out).
fn json_events(args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["trace", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = cli(&all);
    assert_eq!(code, Some(0), "{err}");
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"] == "event")
        .collect()
}

#[test]
fn lesson_lm_runs_from_int64_ids_to_the_logits() {
    let events = json_events(&["--preset", "lesson-lm"]);
    let (first, last) = (&events[0], events.last().unwrap());
    assert_eq!(first["path"], "tokens");
    assert_eq!(first["dtype"], "i64");
    assert_eq!(first["shape"], serde_json::json!([2, 4]));
    assert_eq!(last["path"], "lm_head");
    assert_eq!(last["shape"], serde_json::json!([2, 4, 96]));
    assert_eq!(last["axes"], serde_json::json!(["B", "T", "V"]));
    let paths: Vec<&str> = events.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(
        &paths[..5],
        ["tokens", "tok_emb", "pos_emb", "input", "block1.ln_1"]
    );
    assert_eq!(&paths[paths.len() - 2..], ["ln_f", "lm_head"]);
    // pos_emb (T, d) has no B axis: it broadcasts onto tok_emb (B, T, d).
    assert_eq!(events[2]["shape"], serde_json::json!([4, 64]));
    assert!(last["formula"].as_str().unwrap().contains("tied"));
    assert!(last["why_text"].as_str().unwrap().contains("96"));
    // The lesson model has no vocabulary: it starts at x0, as it always did.
    let events = json_events(&[]);
    assert_eq!(events[0]["path"], "input");
    assert_eq!(events[0]["dtype"], "f32");
}

#[test]
fn the_ends_follow_the_model() {
    let trace = shapetrace::trace(&cfg("vocab = 50\ncontext = 8\ntied = false")).unwrap();
    let head = trace.get("lm_head").unwrap();
    assert_eq!(head.shape, [2, 4, 50]);
    assert!(head.formula.contains("W_head"), "{}", head.formula);
    // Rotary positions: x0 is the lookup itself; no wpe, no pos_emb.
    let trace = shapetrace::trace(&cfg("vocab = 50\npos_emb = 'rope'")).unwrap();
    let x0 = trace.get("input").unwrap();
    assert_eq!(
        (x0.op, x0.inputs.as_slice()),
        (OpKind::Embedding, &["tokens".to_string()][..])
    );
    assert!(trace.get("pos_emb").is_none());
    // The ids follow B and T; a fault still stops where it did.
    let trace = shapetrace::trace(&cfg(
        "vocab = 50\nbatch = 3\nseq = 5\nfault = 'ffn-no-down'",
    ))
    .unwrap();
    assert_eq!(trace.events[0].shape, [3, 5]);
    assert_eq!(trace.events[0].dtype, DType::I64);
    assert_eq!(trace.failure.unwrap().path, "block1.resid_2");
}

#[test]
fn the_checks_hold_on_the_whole_path() {
    let run = shapetrace::run(&shapetrace::config::preset::by_name("lesson-lm").unwrap()).unwrap();
    let failed: Vec<_> = run
        .checks
        .iter()
        .filter(|c| c.status == shapetrace::Status::Fail)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
}

/// The Hugging Face GPT-2 fixture traced from its token ids.
fn gpt2(dtype: Option<DType>) -> ndarray::ArrayD<f32> {
    let src = Sources {
        weights: Some(WEIGHTS.into()),
        tokens: Some(TOKENS.into()),
        ..Sources::default()
    };
    let flags = Overlay {
        heads: Some(4),
        dtype,
        ..Overlay::default()
    };
    let req = Request {
        keep_output: true,
        ..Request::default()
    };
    let (cfg, req) = resolve(&flags, &src, req).unwrap();
    assert_eq!((cfg.vocab.size, cfg.batch, cfg.seq), (Some(96), 2, 4));
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(traced.trace.failure.is_none());
    traced.output.unwrap()
}

fn npy(path: &str) -> ndarray::ArrayD<f32> {
    shapetrace::npy::read(std::path::Path::new(path)).unwrap()
}

#[test]
fn gpt2_from_token_ids_matches_transformers_logits() {
    let want = npy(LOGITS);
    let got = gpt2(None);
    let delta = largest_delta(&got, &want);
    assert!(delta <= 1e-4, "|Δ| up to {delta}");
    // The fixture is not trivially met: the other sequence's logits differ.
    let swapped = want.slice(ndarray::s![..;-1, .., ..]).to_owned().into_dyn();
    assert!(largest_delta(&got, &swapped) > 1.0);
}

#[test]
fn gpt2_in_bf16_stays_within_bf16s_reach_of_the_f32_logits() {
    // transformers rounds inside its ops otherwise than we do (ours: f32
    // norms and softmax, as LLaMA's code), so the two bf16 runs agree only
    // to bf16's precision.
    let want = npy(LOGITS);
    let theirs = npy("tests/fixtures/hf-gpt2-lm-logits-bf16.npy");
    let ours = gpt2(Some(DType::BF16));
    let (d_ours, d_theirs) = (largest_delta(&ours, &want), largest_delta(&theirs, &want));
    assert!(d_ours > 0.0, "bf16 rounds");
    assert!(
        d_ours < 4.0 * d_theirs,
        "ours {d_ours}, transformers' {d_theirs}"
    );
}

#[test]
fn output_writes_the_logits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("logits.npy");
    let out_s = out.to_str().unwrap();
    let args = [
        "trace",
        "--weights",
        WEIGHTS,
        "--heads",
        "4",
        "--tokens",
        TOKENS,
        "--output",
        out_s,
    ];
    let (code, _, err) = cli(&args);
    assert_eq!(code, Some(0), "{err}");
    assert!(largest_delta(&npy(out_s), &npy(LOGITS)) <= 1e-4);
}

#[test]
fn bad_tokens_get_one_line_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--preset", "lesson-lm", "--tokens", "1,2,3,96"],
            "token id 96 at (0, 3) is out of range; allowed: 0 to 95 (vocab 96)",
        ),
        (
            &["--tokens", "1,2,3,4"],
            "--tokens needs a model with a vocabulary",
        ),
        (
            &[
                "--preset",
                "lesson-lm",
                "--tokens",
                "1,2,3;4,5,6",
                "--batch",
                "3",
            ],
            "--batch 3 contradicts --tokens",
        ),
        (&["--preset", "lesson-lm", "--tokens", "1,x"], "'x'"),
        (
            &["--preset", "lesson-lm", "--tokens", "1,2;3"],
            "row 1 has 1 ids but row 0 has 2",
        ),
        (
            &[
                "--preset",
                "lesson-lm",
                "--tokens",
                "1,2",
                "--input",
                "tests/fixtures/nanogpt-tiny-input.npy",
            ],
            "--tokens conflicts with --input",
        ),
        (
            &[
                "--preset",
                "lesson-lm",
                "--tokens",
                "tests/fixtures/nanogpt-tiny-input.npy",
            ],
            "allowed: '<i8' (int64) or '<i4' (int32)",
        ),
        // A checkpoint of blocks alone cannot be run from ids.
        (
            &[
                "--weights",
                "tests/fixtures/hf-gpt2-tiny.safetensors",
                "--heads",
                "4",
                "--vocab",
                "16",
            ],
            "missing wte.weight (16,64)",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["trace"];
        all.extend_from_slice(args);
        let (code, out, err) = cli(&all);
        assert_eq!(code, Some(2), "{args:?}: {out}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn tokens_set_batch_and_seq() {
    let events = json_events(&["--preset", "lesson-lm", "--tokens", "1, 2, 3; 4, 5, 6;"]);
    assert_eq!(events[0]["shape"], serde_json::json!([2, 3]));
    assert_eq!(
        events.last().unwrap()["shape"],
        serde_json::json!([2, 3, 96])
    );
}

/// nanoGPT's tiny checkpoint with its own LM head, `scale`·wte, added.
fn with_head(dir: &std::path::Path, scale: f32) -> String {
    use safetensors::tensor::{Dtype, SafeTensors, TensorView};
    let bytes = std::fs::read("tests/fixtures/nanogpt-tiny.safetensors").unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let mut tensors: Vec<(String, TensorView)> = file.tensors();
    let wte = file.tensor("_orig_mod.transformer.wte.weight").unwrap();
    assert_eq!(wte.dtype(), Dtype::F32);
    let head: Vec<u8> = wte
        .data()
        .chunks_exact(4)
        .flat_map(|b| (f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * scale).to_le_bytes())
        .collect();
    let view = TensorView::new(Dtype::F32, wte.shape().to_vec(), &head).unwrap();
    tensors.push(("_orig_mod.lm_head.weight".into(), view));
    let path = dir.join(format!("head-{scale}.safetensors"));
    std::fs::write(&path, safetensors::serialize(tensors, None).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_checkpoints_own_head_runs_and_is_never_replaced_by_wte() {
    let dir = tempfile::tempdir().unwrap();
    let logits = |weights: &str, extra: &[&str]| {
        let out = dir.path().join("o.npy");
        let mut args = vec![
            "trace",
            "--weights",
            weights,
            "--heads",
            "4",
            "--tokens",
            "1,2,3;4,5,15",
        ];
        args.extend_from_slice(extra);
        args.extend(["--output", out.to_str().unwrap()]);
        let (code, _, err) = cli(&args);
        assert_eq!(code, Some(0), "{err}");
        npy(out.to_str().unwrap())
    };
    let tied = logits("tests/fixtures/nanogpt-tiny.safetensors", &[]);
    // Read off the file: it has its own head, so the model is untied.
    let doubled = logits(&with_head(dir.path(), 2.0), &[]);
    let twice = tied.mapv(|v| 2.0 * v);
    assert!(largest_delta(&doubled, &twice) < 1e-4);
    // A head equal to wte (nanoGPT saves both) runs tied as well.
    let same = with_head(dir.path(), 1.0);
    assert!(largest_delta(&logits(&same, &["--tied"]), &tied) < 1e-6);
    // Tied by the flag, a different head is refused, not dropped.
    let (code, _, err) = cli(&[
        "trace",
        "--weights",
        &with_head(dir.path(), 2.0),
        "--heads",
        "4",
        "--tied",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("differs from wte.weight") && err.contains("--untied"),
        "{err}"
    );
}

#[test]
fn the_steppers_diagram_draws_the_two_ends() {
    use shapetrace::tui::action::Action;
    let (_, log, _) = cli(&["trace", "--preset", "lesson-lm", "--format", "json"]);
    let replay = shapetrace::trace::log::read(log.as_bytes(), "lm.jsonl").unwrap();
    let mut app =
        shapetrace::tui::app::App::replay(replay, "lm.jsonl", shapetrace::tui::theme::MONO);
    // On the ids: the embeddings' line, the ids lit, before block 1.
    let screen = common::screen_of(&app, 120, 40);
    assert!(screen.contains("[ids]─▶ wte[ids] + wpe ─▶ x0"), "{screen}");
    assert!(screen.contains("Embeddings, before block 1"), "{screen}");
    // On the logits: the head lit, after the last block.
    app.update(Action::Last);
    let screen = common::screen_of(&app, 120, 40);
    assert!(screen.contains("[lm_head]─▶ (B,T,V)"), "{screen}");
    assert!(screen.contains("After block 2"), "{screen}");
}
