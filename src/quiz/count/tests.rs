//! The count quiz on the lesson model and GPT-2 small.

use super::*;
use crate::budget::Budget;
use crate::config::{Act, ModelConfig};

fn lesson() -> Vec<CountQuestion> {
    let ours = Budget::of(&ModelConfig::default()).unwrap();
    let gpt2 = Budget::of(&crate::config::preset::by_name("gpt2-small").unwrap()).unwrap();
    questions(&ours, &gpt2)
}

fn wrong(q: &CountQuestion, text: &str) -> String {
    match q.judge(text).unwrap() {
        CountVerdict::Wrong(w) => q.said(&w, Lang::En),
        CountVerdict::Right => panic!("{text} judged right"),
    }
}

#[test]
fn counts_parse_strictly() {
    for t in ["16384", "16,384", "16_384", " 1,000,000 "] {
        assert!(parse_count(t).is_ok(), "{t}");
    }
    assert_eq!(parse_count("16,384"), Ok(16_384));
    for t in [
        "16.4k", "1,63,84", "16,38", ",384", "-5", "", "1e4", "16 384",
    ] {
        let e = parse_count(t).expect_err(t).to_string();
        assert!(e.contains("not an exact count"), "{t}: {e}");
    }
}

#[test]
fn the_lesson_mistakes_are_named_and_the_truth_is_right() {
    let qs = lesson();
    let mlp = &qs[0];
    assert_eq!(mlp.judge("32,768"), Ok(CountVerdict::Right));
    assert!(wrong(mlp, "16,384").contains("only W1"));
    assert!(wrong(mlp, "49152").contains("three matrices"));
    assert!(wrong(mlp, "33,088").contains("biases"));
    assert!(wrong(mlp, "30000").contains("is not it"));
    let matched = &qs[1];
    assert_eq!(matched.judge("32_832"), Ok(CountVerdict::Right));
    assert!(wrong(matched, "49,152").contains("SwiGLU kept at d_ff = 256"));
    let attn = &qs[2];
    assert_eq!(attn.judge("2,359,296"), Ok(CountVerdict::Right));
    assert!(wrong(attn, "1,769,472").contains("output projection O"));
    let total = &qs[3];
    assert_eq!(total.judge("124,439,808"), Ok(CountVerdict::Right));
    assert!(wrong(total, "163,037,184").contains("separate LM head"));
    let share = &qs[4];
    assert_eq!(share.judge("54.5%"), Ok(CountVerdict::Right));
    assert!(wrong(share, "66.7").contains("share of the parameters"));
    assert!(share.judge("lots").is_err());
}

#[test]
fn a_swiglu_model_counts_three_matrices_and_names_the_kept_width() {
    let mut cfg = ModelConfig::default();
    (cfg.mlp.act, cfg.mlp.d_ff) = (Act::Swiglu, 171);
    let ours = Budget::of(&cfg).unwrap();
    let qs = questions(&ours, &ours);
    assert_eq!(qs[0].judge("32,832"), Ok(CountVerdict::Right));
    assert!(wrong(&qs[0], "49,152").contains("SwiGLU kept at d_ff = 4·d = 256"));
    assert!(wrong(&qs[0], "10,944").contains("only W1"));
}
