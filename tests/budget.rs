//! The budget: every parameter and FLOP number of the lesson, computed from
//! the built model; the breakdown adds up; the closed form agrees on a grid
//! of variants; and the `params` check fails on a model built without its
//! output projection while every shape check passes.

mod common;
use common::cfg;
use shapetrace::budget::{Budget, Precision, closed};
use shapetrace::config::preset::by_name;
use shapetrace::lesson::{ffn_biases, ffn_params, swiglu_width};
use shapetrace::{CheckName, Request, Status};

fn budget(name: &str) -> Budget {
    Budget::of(&by_name(name).unwrap()).unwrap()
}

fn row<'a>(b: &'a Budget, path: &str) -> &'a shapetrace::budget::Row {
    b.by_component
        .iter()
        .chain(&b.groups)
        .find(|r| r.path == path)
        .unwrap_or_else(|| panic!("no row {path}"))
}

#[test]
fn lesson_ffn_has_32768_weights_and_33088_with_biases() {
    let b = budget("lesson");
    assert_eq!(b.block.mlp_weights, 32_768);
    assert_eq!(b.block.mlp, 33_088);
    assert_eq!(ffn_params(64, 256, false), 32_768);
    assert_eq!(
        ffn_params(64, 256, false) + ffn_biases(64, 256, false),
        33_088
    );
    assert_eq!(row(&b, "block.mlp.up.bias").count, 256, "b1 is d_ff wide");
    assert_eq!(row(&b, "block.mlp.down.bias").count, 64);
}

#[test]
fn swiglu_matched_width_has_32832_and_keeping_256_gives_49152() {
    assert_eq!(swiglu_width(256, None), 171);
    let matched = budget("lesson-swiglu");
    assert_eq!(matched.config.mlp.d_ff, 171);
    assert_eq!(matched.block.mlp, 32_832);
    assert_eq!(matched.block.mlp_weights, 32_832);
    assert_eq!(ffn_params(64, 171, true), 32_832);
    let kept = Budget::of(&cfg("act = 'swiglu'\nbias = false")).unwrap();
    assert_eq!(kept.block.mlp, 49_152);
    assert_eq!(ffn_params(64, 256, true), 49_152);
}

#[test]
fn gpt2_small_block_numbers_match_the_lesson() {
    let b = budget("gpt2-small");
    assert_eq!(b.block.attention_weights, 2_359_296);
    assert_eq!(b.block.mlp_weights, 4_718_592);
    assert!((b.ffn_attention_ratio - 2.0).abs() < 1e-12, "2:1");
    assert_eq!(b.block.attention, 2_362_368);
    assert_eq!(b.block.mlp, 4_722_432);
    assert_eq!(b.block.norms, 3_072);
    assert_eq!(b.block.total, 7_087_872);
    assert_eq!(
        row(&b, "attention weights").formula,
        "4·d² = 4·768² = 2,359,296"
    );
    assert_eq!(
        row(&b, "MLP weights").formula,
        "2·d·d_ff = 2·768·3,072 = 4,718,592"
    );
}

#[test]
fn gpt2_small_totals_124439808_with_a_tied_head_adding_nothing() {
    let b = budget("gpt2-small");
    assert_eq!(row(&b, "blocks").count, 85_054_464);
    assert_eq!(row(&b, "wte").count, 38_597_376);
    assert_eq!(row(&b, "wte").formula, "V·d = 50,257·768 = 38,597,376");
    assert_eq!(row(&b, "wpe").count, 786_432);
    assert_eq!(
        row(&b, "ln_f.weight").count + row(&b, "ln_f.bias").count,
        1_536
    );
    assert_eq!(row(&b, "lm_head").count, 0);
    assert_eq!(b.total, 124_439_808);
    assert_eq!(b.closed_total, b.total);
    assert_eq!(b.non_embedding.minus_position, 124_439_808 - 786_432);
    assert_eq!(
        b.non_embedding.minus_all,
        124_439_808 - 786_432 - 38_597_376
    );
    let untied = Budget::of(&cfg("preset = 'gpt2-small'\ntied = false")).unwrap();
    assert_eq!(untied.total, 124_439_808 + 38_597_376);
    assert_eq!(
        row(&untied, "lm_head.weight").formula,
        "V·d = 50,257·768 = 38,597,376"
    );
}

#[test]
fn gpt2_small_forward_flops_per_token_per_block_at_1024() {
    let f = budget("gpt2-small").flops;
    assert_eq!(f.seq, 1024);
    let k = f.per_token_per_block;
    assert_eq!(k.matmul, 14_155_776);
    assert_eq!(k.attention_full, 3_145_728);
    assert_eq!(k.total, 14_155_776 + 3_145_728);
    assert_eq!(k.attention_causal, 2 * 768 * 1025, "query t reads t+1 keys");
    assert_eq!(f.split.ffn, 9_437_184);
    assert!((f.ffn_share - 0.545).abs() < 5e-4, "{}", f.ffn_share);
    // nanoGPT's estimate_mfu: 6·N + 12·L·H·Q·T, N without wpe.
    let n = 124_439_808 - 786_432;
    assert_eq!(f.training_per_token, 6 * n + 12 * 12 * 12 * 64 * 1024);
    assert_eq!(f.forward_per_token, 12 * k.total + 2 * 50_257 * 768);
    assert_eq!(f.forward_per_sequence().0, 1024 * f.forward_per_token);
}

#[test]
fn published_gpt2_sizes_and_nanogpt_shakespeare_char() {
    for (name, total) in [
        ("gpt2-medium", 354_823_168),
        ("gpt2-large", 774_030_080),
        ("gpt2-xl", 1_557_611_200),
        ("shakespeare-char", 10_745_088),
    ] {
        let b = budget(name);
        assert_eq!(b.total, total, "{name}");
        assert_eq!(b.closed_total, total, "{name}");
    }
    // nanoGPT prints "number of parameters: 10.65M" for this model.
    assert_eq!(
        budget("shakespeare-char").non_embedding.minus_position,
        10_646_784
    );
}

#[test]
fn gpt2_presets_trace_b1_at_full_context_and_xl_only_shape_only() {
    for name in ["gpt2-small", "gpt2-medium", "gpt2-large", "gpt2-xl"] {
        let c = by_name(name).unwrap();
        assert_eq!(
            (c.batch, c.seq, c.positions.context, c.vocab.size),
            (1, 1024, Some(1024), Some(50_257))
        );
        assert_eq!(
            (c.mlp.d_ff, c.vocab.tied, c.bias, c.norms.final_norm),
            (4 * c.d_model, true, true, true)
        );
    }
    let xl = by_name("gpt2-xl").unwrap();
    assert!(xl.validate().is_ok());
    assert_eq!(
        shapetrace::trace(&xl).unwrap().mode,
        shapetrace::trace::Mode::ShapeOnly
    );
    let numeric = shapetrace::Request {
        mode: shapetrace::ModeChoice::Numeric,
        ..shapetrace::Request::default()
    };
    let err = shapetrace::trace_request(&xl, &numeric)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("8.8 GiB") && err.contains("--max-memory"),
        "{err}"
    );
    let t = shapetrace::trace_request(&xl, &Request::shapes())
        .unwrap()
        .trace;
    assert_eq!(
        t.get("block48.attn.scores").unwrap().shape,
        [1, 25, 1024, 1024]
    );
}

#[test]
fn rows_add_up_and_bytes_follow_the_dtype() {
    let b = budget("gpt2-small");
    let (one, rest): (Vec<_>, Vec<_>) = b
        .by_component
        .iter()
        .partition(|r| r.path.starts_with("block."));
    assert_eq!(one.iter().map(|r| r.count).sum::<u64>(), b.block.total);
    assert_eq!(rest.iter().map(|r| r.count).sum::<u64>(), b.total);
    assert_eq!(b.bytes.dtype, Precision::F32);
    assert_eq!(b.bytes.weights, 4 * b.total);
    let t = shapetrace::trace_request(&b.config, &Request::shapes())
        .unwrap()
        .trace;
    let elements: u64 = t
        .events
        .iter()
        .map(|e| e.shape.iter().product::<usize>() as u64)
        .sum();
    // Every tensor in its own dtype: f32, and the token ids (1, 1024) i64.
    let ids = t.get("tokens").unwrap().shape.iter().product::<usize>() as u64;
    assert_eq!(b.bytes.activations, 4 * elements + 4 * ids);
    assert_eq!(b.bytes_in(Precision::Bf16).weights, 2 * b.total);
    assert_eq!(b.bytes_in(Precision::F64).activations, 8 * elements);
}

#[test]
fn built_count_matches_the_closed_form_on_a_grid_of_variants() {
    let mut n = 0;
    for act in ["gelu", "swiglu"] {
        for norm in ["layernorm", "rmsnorm"] {
            for bias in [true, false] {
                for kv in [4, 2, 1] {
                    for extra in [
                        "",
                        "final_norm = true\nvocab = 100",
                        "vocab = 100\ntied = false\ncontext = 8",
                    ] {
                        let c = cfg(&format!(
                            "act='{act}'\nnorm='{norm}'\nbias={bias}\nkv_heads={kv}\n{extra}"
                        ));
                        let b = Budget::of(&c).unwrap();
                        assert_eq!(b.total, closed::total(&c), "{c:?}");
                        let run = shapetrace::run(&c).unwrap();
                        let params = run
                            .checks
                            .iter()
                            .find(|r| r.name == CheckName::Params)
                            .unwrap();
                        assert_eq!(params.status, Status::Pass, "{}", params.detail);
                        n += 1;
                    }
                }
            }
        }
    }
    assert_eq!(n, 72);
}

#[test]
fn no_out_proj_fails_params_while_every_shape_check_passes() {
    let run = shapetrace::run(&cfg("fault = 'no-out-proj'")).unwrap();
    assert!(run.trace.failure.is_none());
    for c in &run.checks {
        // `reference` sees the missing projection in the values too.
        let want = if matches!(c.name, CheckName::Params | CheckName::Reference) {
            Status::Fail
        } else {
            Status::Pass
        };
        assert_eq!(c.status, want, "{:?}: {}", c.name, c.detail);
    }
    let p = run
        .checks
        .iter()
        .find(|c| c.name == CheckName::Params)
        .unwrap();
    assert_eq!(p.path.as_deref(), Some("block1.attn"));
    assert!(p.detail.contains("4,160 fewer"), "{}", p.detail);
    let b = Budget::of(&run.trace.config).unwrap();
    assert_eq!(b.closed_total - b.total, 2 * 4_160);
    assert!(b.by_component.iter().all(|r| !r.path.contains("attn.out")));
}

#[test]
fn seq_may_not_exceed_the_context_and_vocab_0_removes_the_vocabulary() {
    let err = shapetrace::Overlay::from_toml("preset = 'gpt2-small'\nseq = 2048", "t")
        .unwrap()
        .resolve()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("seq 2048") && err.contains("context 1024"),
        "{err}"
    );
    let c = cfg("preset = 'gpt2-small'\nvocab = 0\nseq = 8\ncontext = 0");
    assert_eq!(c.vocab.size, None);
    let b = Budget::of(&c).unwrap();
    assert_eq!(b.total, 12 * 7_087_872 + 1_536, "blocks and ln_f only");
    assert_eq!(b.flops.split.head, 0);
}

#[test]
fn every_preset_resolves_and_counts_like_its_closed_form() {
    let shapes = Request::shapes();
    for (name, _) in shapetrace::config::preset::PRESETS {
        let c = by_name(name).unwrap();
        c.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let run = shapetrace::run_request(&c, &shapes).unwrap();
        assert!(run.ok(), "{name}: {:?}", run.checks);
        let b = Budget::of(&c).unwrap();
        assert_eq!(b.total, b.closed_total, "{name}");
    }
}
