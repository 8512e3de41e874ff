#[test]
fn scratch() {
    for f in [None, Some("ffn-no-down"), Some("attn-no-merge"), Some("bias-w1-64"), Some("merge-no-transpose"), Some("no-causal-mask"), Some("skip-block1"), Some("norm-over-seq")] {
        let mut cfg = shapetrace::ModelConfig::default();
        cfg.fault = f.map(|f| f.parse().unwrap());
        let run = shapetrace::run(&cfg).unwrap();
        if f.is_none() { println!("{}", shapetrace::trace::table::text(&run.trace, &run.checks)); }
        println!("{f:?}\n{}", shapetrace::trace::table::checks_text(&run.checks));
    }
}
