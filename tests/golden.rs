//! The default trace, path by path, against a committed snapshot; and how
//! each variant changes the list of paths.

mod common;
use common::{cfg, paths, shape_lines};

#[test]
fn default_trace_matches_the_golden_snapshot() {
    let trace = shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap();
    insta::assert_snapshot!(shape_lines(&trace));
}

#[test]
fn default_trace_has_the_canonical_paths_in_order() {
    let trace = shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap();
    let mut want = vec!["input".to_string()];
    for n in 1..=2 {
        for p in [
            "ln_1",
            "attn.q_proj",
            "attn.k_proj",
            "attn.v_proj",
            "attn.q",
            "attn.k",
            "attn.v",
            "attn.scores",
            "attn.weights",
            "attn.context",
            "attn.merge",
            "attn.out",
            "resid_1",
            "ln_2",
            "mlp.up",
            "mlp.act",
            "mlp.down",
            "resid_2",
        ] {
            want.push(format!("block{n}.{p}"));
        }
    }
    assert_eq!(paths(&trace), want);
    for e in &trace.events {
        let leaf = e.path.rsplit('.').next().unwrap();
        let expect: &[usize] = match leaf {
            "q" | "k" | "v" | "context" => &[2, 4, 4, 16],
            "scores" | "weights" => &[2, 4, 4, 4],
            "up" | "act" => &[2, 4, 256],
            _ => &[2, 4, 64],
        };
        assert_eq!(e.shape, expect, "{}", e.path);
        assert_eq!(e.departs, expect != [2, 4, 64], "{}", e.path);
        assert_eq!(
            e.step,
            trace.events.iter().position(|x| x.path == e.path).unwrap()
        );
    }
}

fn block1(trace: &shapetrace::Trace) -> Vec<String> {
    paths(trace)
        .into_iter()
        .filter_map(|p| p.strip_prefix("block1.").map(str::to_string))
        .collect()
}

#[test]
fn swiglu_adds_a_gate_before_up() {
    let t = shapetrace::trace(&cfg("act = 'swiglu'")).unwrap();
    let b = block1(&t);
    let gate = b.iter().position(|p| p == "mlp.gate").unwrap();
    assert_eq!(b[gate + 1], "mlp.up");
    assert_eq!(t.get("block1.mlp.gate").unwrap().shape, [2, 4, 256]);
    assert_eq!(t.get("block1.mlp.act").unwrap().op, "swiglu");
}

#[test]
fn gqa_adds_repeated_k_and_v_after_v() {
    let t = shapetrace::trace(&cfg("kv_heads = 2")).unwrap();
    let b = block1(&t);
    let v = b.iter().position(|p| p == "attn.v").unwrap();
    assert_eq!(b[v + 1..v + 3], ["attn.k_rep", "attn.v_rep"]);
    assert_eq!(t.get("block1.attn.k_proj").unwrap().shape, [2, 4, 32]);
    assert_eq!(t.get("block1.attn.k").unwrap().shape, [2, 2, 4, 16]);
    assert_eq!(t.get("block1.attn.k_rep").unwrap().shape, [2, 4, 4, 16]);
}

#[test]
fn post_ln_puts_each_norm_after_its_residual_add() {
    let t = shapetrace::trace(&cfg("placement = 'post'")).unwrap();
    let b = block1(&t);
    let at = |p: &str| b.iter().position(|x| x == p).unwrap();
    assert_eq!(at("ln_1"), at("resid_1") + 1);
    assert_eq!(at("ln_2"), at("resid_2") + 1);
    assert_eq!(b.first().unwrap(), "attn.q_proj");
}

#[test]
fn final_norm_adds_ln_f_at_the_end() {
    let t = shapetrace::trace(&cfg("final_norm = true")).unwrap();
    assert_eq!(paths(&t).last().unwrap(), "ln_f");
    assert_eq!(t.get("ln_f").unwrap().inputs, ["block2.resid_2"]);
}

#[test]
fn formulas_show_the_shape_arithmetic() {
    let t = shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap();
    let f = |p: &str| t.get(p).unwrap().formula.clone();
    assert_eq!(
        f("block1.attn.scores"),
        "q·kᵀ/√16 : (2,4,4,16)·(2,4,16,4) → (2,4,4,4)"
    );
    assert_eq!(
        f("block1.mlp.up"),
        "x·W+b : (2,4,64)·(64,256)+(256) → (2,4,256)"
    );
    assert_eq!(
        f("block1.resid_2"),
        "x + f(x) : (2,4,64)+(2,4,64) → (2,4,64)"
    );
    assert_eq!(t.get("block1.attn.q").unwrap().axes, ["B", "h", "T", "hd"]);
    assert_eq!(t.get("block1.mlp.up").unwrap().axes, ["B", "T", "ff"]);
}

#[test]
fn same_seed_gives_an_identical_trace_and_another_seed_does_not() {
    let json = |seed: u64| {
        let c = shapetrace::ModelConfig {
            seed,
            ..Default::default()
        };
        let run = shapetrace::run(&c).unwrap();
        let mut buf = Vec::new();
        shapetrace::trace::log::write(&mut buf, &run.trace, &run.checks).unwrap();
        buf
    };
    assert_eq!(json(0), json(0));
    assert_ne!(json(0), json(1));
}

/// The handout and the text table of the lesson model, against committed
/// snapshots: named axes, the settings, a formula and a why per step
/// (`reference`'s largest |Δ| in its place, its digits masked).
#[test]
fn handout_and_table_match_their_snapshots() {
    let run = shapetrace::run(&shapetrace::ModelConfig::default()).unwrap();
    let md = shapetrace::report::handout::markdown(&run.trace, &run.checks);
    insta::assert_snapshot!("handout_lesson", common::mask_delta(&md));
    let text = shapetrace::report::table::text(&run.trace, &run.checks);
    insta::assert_snapshot!("table_lesson", common::mask_delta(&text));
}

/// The handout's settings and whys are the model's: 8 heads and a fault
/// show as such, and a failure row carries its why.
#[test]
fn the_handout_follows_the_model() {
    let c = cfg("heads = 8\nfault = \"ffn-no-down\"");
    let run = shapetrace::run(&c).unwrap();
    let md = shapetrace::report::handout::markdown(&run.trace, &run.checks);
    let hd = c.d_model / c.attention.heads;
    assert!(md.starts_with("# shapetrace: lesson, 2 blocks\n"), "{md}");
    assert!(md.contains("| heads | 8 |"), "{md}");
    assert!(
        md.contains(&format!("| hd (d_model / heads) | {hd} |")),
        "{md}"
    );
    assert!(md.contains("| fault | ffn-no-down: "), "{md}");
    let split = md
        .lines()
        .find(|l| l.contains("| block1.attn.q |"))
        .expect("the split row");
    assert!(split.contains("(B=2,h=8,T=4,hd=8)"), "{split}");
    assert!(
        split.contains(&format!("d_model {} = 8 heads × {hd}", c.d_model)),
        "{split}"
    );
    let failure = md
        .lines()
        .find(|l| l.contains("stops the forward"))
        .expect("failure row");
    assert!(
        failure.contains("the down projection is missing"),
        "{failure}"
    );
    // The correct model's handout names no fault.
    let ok = shapetrace::run(&shapetrace::ModelConfig::default()).unwrap();
    let md = shapetrace::report::handout::markdown(&ok.trace, &ok.checks);
    assert!(md.contains("| fault | none |") && !md.contains("stops the forward"));
}
