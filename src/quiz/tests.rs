//! The judge on the lesson model's own trace (and on models where the
//! sizes differ, so that sizes alone decide).

use super::parse::parse;
use super::{Question, Verdict};
use crate::ModelConfig;
use crate::plan::Request;
use crate::trace::Trace;

fn trace(cfg: &ModelConfig) -> Trace {
    crate::run::trace_request(cfg, &Request::shapes())
        .unwrap()
        .trace
}

fn question(t: &Trace, path: &str) -> Question {
    Question::of(t.get(path).unwrap(), t)
}

fn judge(q: &Question, text: &str) -> Verdict {
    q.judge(&parse(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

fn wrong(v: Verdict) -> String {
    match v {
        Verdict::Wrong(why) => why,
        other => panic!("not wrong: {other:?}"),
    }
}

#[test]
fn names_in_the_right_order_are_right_and_the_transpose_is_named() {
    let t = trace(&ModelConfig::default());
    let q = question(&t, "block1.attn.q");
    for right in [
        "B,h,T,hd",
        "B,nh,T,hs",
        "B=2,h=4,T=4,hd=16",
        "(B, heads, 4, 16)",
    ] {
        assert_eq!(judge(&q, right), Verdict::Right, "{right}");
    }
    for before in ["B,T,h,hd", "B=2,T=4,h=4,hd=16", "B,T,nh,hs"] {
        let why = wrong(judge(&q, before));
        assert!(why.contains("before the transpose"), "{before}: {why}");
    }
    // Right names with a wrong size are wrong, and say which axis.
    let why = wrong(judge(&q, "B=2,h=4,T=4,hd=64"));
    assert!(why.contains("the 4th is hd=16, not hd=64"), "{why}");
}

#[test]
fn sizes_that_fit_two_orders_get_a_follow_up_and_it_decides() {
    let t = trace(&ModelConfig::default());
    let q = question(&t, "block1.attn.q");
    let Verdict::Ask(f) = judge(&q, "2,4,4,16") else {
        panic!("h = T = 4: sizes alone must not be judged")
    };
    assert!(
        f.question.contains("which of the two 4s is h"),
        "{}",
        f.question
    );
    assert_eq!(f.template, "(B,?,?,hd)", "the template gives nothing away");
    assert_eq!(q.judge_follow_up(&f, "2").unwrap(), Verdict::Right);
    assert_eq!(q.judge_follow_up(&f, "the 2nd").unwrap(), Verdict::Right);
    assert_eq!(q.judge_follow_up(&f, "B,h,T,hd").unwrap(), Verdict::Right);
    let why = wrong(q.judge_follow_up(&f, "3").unwrap());
    assert!(why.contains("before the transpose"), "{why}");
    let why = wrong(q.judge_follow_up(&f, "B,T,h,hd").unwrap());
    assert!(why.contains("before the transpose"), "{why}");
    let e = q.judge_follow_up(&f, "2,4,4,16").unwrap_err().to_string();
    assert!(e.contains("name the axes this time"), "{e}");
    let e = q.judge_follow_up(&f, "4").unwrap_err().to_string();
    assert!(e.contains("allowed: 2 or 3"), "{e}");
    // A partly named answer that pins the heads needs no follow-up.
    assert_eq!(judge(&q, "2,h,4,16"), Verdict::Right);
}

#[test]
fn where_sizes_differ_they_decide_alone() {
    let mut cfg = ModelConfig {
        d_model: 128,
        ..ModelConfig::default()
    };
    (cfg.attention.heads, cfg.attention.kv_heads) = (8, 8);
    let t = trace(&cfg);
    let q = question(&t, "block1.attn.q");
    assert_eq!(judge(&q, "2,8,4,16"), Verdict::Right, "h=8, T=4, hd=16");
    let why = wrong(judge(&q, "2,4,8,16"));
    assert!(
        why.contains("(B=2,T=4,h=8,hd=16) is the layout before"),
        "{why}"
    );
    // hd = h = 8 at d_model 64: sizes alone fit two orders again.
    let t = trace(&ModelConfig { d_model: 64, ..cfg });
    let q = question(&t, "block1.attn.q");
    assert!(matches!(judge(&q, "2,8,4,8"), Verdict::Ask(_)));
}

#[test]
fn scores_t_t_is_right_the_transposed_table_and_the_stream_shape_are_named() {
    let t = trace(&ModelConfig::default());
    let q = question(&t, "block1.attn.scores");
    for right in ["B,h,T,T", "B,h,Tq,Tk", "B,nh,T,S", "B=2,h=4,T=4,T=4"] {
        assert_eq!(judge(&q, right), Verdict::Right, "{right}");
    }
    let why = wrong(judge(&q, "B,h,Tk,Tq"));
    assert!(why.contains("transposed table"), "{why}");
    let why = wrong(judge(&q, "2,4,64"));
    assert!(why.contains("stream shape"), "{why}");
    assert!(why.contains("(B,h,Tq,Tk)"), "{why}");
    let why = wrong(judge(&q, "(2, 4, 4)"));
    assert!(why.contains("each of the 4 heads makes its own"), "{why}");
    // Three 4s: the heads are one of them.
    let Verdict::Ask(f) = judge(&q, "2,4,4,4") else {
        panic!("h = T = 4")
    };
    assert!(
        f.question.contains("which of the three 4s is h"),
        "{}",
        f.question
    );
    assert_eq!(q.judge_follow_up(&f, "2").unwrap(), Verdict::Right);
    assert!(matches!(q.judge_follow_up(&f, "4"), Ok(Verdict::Wrong(_))));
}

#[test]
fn the_mlp_and_the_merge_name_their_mistakes() {
    let t = trace(&ModelConfig::default());
    let why = wrong(judge(&question(&t, "block1.mlp.up"), "2,4,64"));
    assert!(why.contains("b1 has 256 entries, not 64"), "{why}");
    assert_eq!(
        judge(&question(&t, "block1.mlp.up"), "2,4,256"),
        Verdict::Right
    );
    let why = wrong(judge(&question(&t, "block1.mlp.down"), "2,4,256"));
    assert!(why.contains("brings it back to d_model = 64"), "{why}");
    let why = wrong(judge(&question(&t, "block1.attn.merge"), "B,h,T,hd"));
    assert!(why.contains("before the merge"), "{why}");
    let why = wrong(judge(&question(&t, "block1.attn.merge"), "2,4,4,16"));
    assert!(why.contains("before the merge"), "{why}");
}

#[test]
fn under_grouped_query_attention_k_has_kv_heads_not_h() {
    let cfg = crate::config::preset::by_name("lesson-gqa").unwrap();
    let t = trace(&cfg);
    let k = question(&t, "block1.attn.k");
    assert_eq!(judge(&k, "B,kv,T,hd"), Verdict::Right);
    let why = wrong(judge(&k, "B,h,T,hd"));
    assert!(why.contains("the 2nd is kv=2, not h"), "{why}");
    // B = kv = 2: sizes alone fit two orders here too.
    let Verdict::Ask(f) = judge(&k, "2,2,4,16") else {
        panic!("B = kv = 2")
    };
    assert_eq!(k.judge_follow_up(&f, "B,kv,T,hd").unwrap(), Verdict::Right);
    assert!(matches!(
        k.judge_follow_up(&f, "kv,B,T,hd"),
        Ok(Verdict::Wrong(_))
    ));
}

/// Every named mistake and follow-up of every step of the lesson's
/// presets reads, from its catalog message in English, exactly as the
/// judge's words, and formats in zh-TW by the zh-TW catalog itself.
#[test]
fn every_mistake_and_follow_up_is_its_catalog_message() {
    use crate::i18n::Lang;
    let mut mistakes = 0;
    let mut follow_ups = 0;
    for preset in ["lesson", "lesson-post-ln", "gpt2-small"] {
        let cfg = crate::config::preset::by_name(preset).unwrap();
        let t = trace(&cfg);
        for e in &t.events {
            let q = Question::of(e, &t);
            for m in &q.mistakes {
                assert_eq!(Lang::En.why(&m.why), m.says, "{preset} {}", e.path);
                crate::why::render(Lang::ZhTw.catalog(), &m.why)
                    .unwrap_or_else(|err| panic!("{preset} {}: {err}", e.path));
                mistakes += 1;
            }
            let sizes: Vec<String> = e.shape.iter().map(ToString::to_string).collect();
            if let Verdict::Ask(f) = q.judge(&parse(&sizes.join(",")).unwrap()) {
                assert_eq!(Lang::En.why(&f.why), f.question, "{preset} {}", e.path);
                crate::why::render(Lang::ZhTw.catalog(), &f.why)
                    .unwrap_or_else(|err| panic!("{preset} {}: {err}", e.path));
                follow_ups += 1;
            }
        }
    }
    assert!(mistakes > 20 && follow_ups > 5, "{mistakes} {follow_ups}");
}

#[test]
fn the_loss_is_a_scalar_and_its_shape_is_typed_as_brackets() {
    let cfg = ModelConfig {
        backward: true,
        ..crate::config::preset::by_name("lesson-lm").unwrap()
    };
    let t = trace(&cfg);
    let q = question(&t, "loss");
    for right in ["()", "[]", "( )"] {
        assert!(matches!(judge(&q, right), Verdict::Right), "{right}");
    }
    assert!(matches!(judge(&q, "1"), Verdict::Wrong(_)));
    // A gradient has its tensor's shape.
    let q = question(&t, "grad.block2.attn.scores");
    assert!(matches!(
        judge(&q, "B,h,T,T"),
        Verdict::Right | Verdict::Ask(_)
    ));
    assert!(matches!(judge(&q, "()"), Verdict::Wrong(_)));
}
