//! A mixture of experts: the router, each expert's batch (n_e, d) and the
//! weighted combine, against the same mixture computed densely here
//! (every expert on every token, the top k kept), and the shape-only
//! bound of n_e.

mod common;
use shapetrace::model::Model;
use shapetrace::ops::numeric::{Numeric, Tensor};
use shapetrace::trace::recorder::{Capture, Recorder, Watch};
use shapetrace::{CheckName, ModelConfig, Status};

fn lesson_moe() -> ModelConfig {
    shapetrace::config::preset::by_name("lesson-moe").unwrap()
}

/// Every tensor of the lesson-moe forward, and the model's weights.
fn forward(cfg: &ModelConfig) -> (Vec<Capture>, Model<Tensor<f32>>) {
    let b = Numeric::<f32>::new();
    let model = Model::build(cfg, &b);
    let watch = Watch {
        capture: true,
        ..Watch::default()
    };
    let mut rec = Recorder::new(&b, cfg.stream_shape(), watch);
    model
        .forward(&mut rec, shapetrace::model::input(cfg, &b))
        .unwrap();
    (rec.finish().captures, model)
}

fn values<'a>(caps: &'a [Capture], path: &str) -> &'a Capture {
    caps.iter()
        .find(|c| c.path == path)
        .unwrap_or_else(|| panic!("no {path}"))
}

/// A weight of the model, as a row-major (rows, cols) list.
fn weight(model: &Model<Tensor<f32>>, name: &str) -> (Vec<f32>, usize) {
    let p = model.params().into_iter().find(|p| p.name == name).unwrap();
    let v = p.t.read();
    let cols = *v.shape().last().unwrap();
    (v.iter().copied().collect(), cols)
}

/// x (d) · W (d, n) + b (n).
fn affine(x: &[f64], (w, n): &(Vec<f32>, usize), b: Option<&(Vec<f32>, usize)>) -> Vec<f64> {
    (0..*n)
        .map(|j| {
            let dot: f64 = x
                .iter()
                .enumerate()
                .map(|(i, xi)| xi * f64::from(w[i * n + j]))
                .sum();
            dot + b.map_or(0.0, |(b, _)| f64::from(b[j]))
        })
        .collect()
}

#[test]
fn the_sparse_mixture_equals_every_expert_run_densely_and_its_top_k_mixed() {
    let cfg = lesson_moe();
    let (caps, model) = forward(&cfg);
    let m = cfg.mixture.unwrap();
    let (d, e, k) = (cfg.d_model, m.experts, m.top_k);
    let x = values(&caps, "block1.ln_2");
    let router = weight(&model, "block1.moe.router.weight");
    let experts: Vec<_> = (1..=e)
        .map(|i| {
            let w = |n: &str| weight(&model, &format!("block1.moe.expert{i}.{n}"));
            (
                w("up.weight"),
                w("up.bias"),
                w("down.weight"),
                w("down.bias"),
            )
        })
        .collect();
    let mut want = Vec::new();
    let mut chosen = vec![0usize; e];
    for token in x.values.chunks(d) {
        let logits = affine(token, &router, None);
        let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logits.iter().map(|l| (l - max).exp()).sum();
        let p: Vec<f64> = logits.iter().map(|l| (l - max).exp() / z).collect();
        let mut order: Vec<usize> = (0..e).collect();
        order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
        let top = &order[..k];
        let sum: f64 = top.iter().map(|&j| p[j]).sum();
        let mut y = vec![0.0; d];
        for &j in top {
            chosen[j] += 1;
            let (w1, b1, w2, b2) = &experts[j];
            // The exact GELU, x·Φ(x).
            let h: Vec<f64> = affine(token, w1, Some(b1))
                .into_iter()
                .map(|u| 0.5 * u * (1.0 + libm::erf(u / std::f64::consts::SQRT_2)))
                .collect();
            for (yi, o) in y.iter_mut().zip(affine(&h, w2, Some(b2))) {
                *yi += p[j] / sum * o;
            }
        }
        want.extend(y);
    }
    let got = values(&caps, "block1.moe.combine");
    assert_eq!(got.shape, [2, 4, 64]);
    let worst = got
        .values
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-5,
        "combine differs from the dense mixture by {worst}"
    );
    // Each expert's batch holds the tokens that chose it: the dense count.
    for (j, n) in chosen.iter().enumerate() {
        let batch = values(&caps, &format!("block1.moe.expert{}.dispatch", j + 1));
        assert_eq!(batch.shape, [*n, d], "expert {}", j + 1);
        assert_eq!(batch.axes, ["n_e", "d"]);
    }
    assert_eq!(chosen.iter().sum::<usize>(), 2 * 4 * k);
}

#[test]
fn a_shape_only_run_records_the_bound_of_n_e_and_skips_routing() {
    let cfg = lesson_moe();
    let req = shapetrace::Request::shapes();
    let t = shapetrace::trace_request(&cfg, &req).unwrap().trace;
    let d = t
        .events
        .iter()
        .find(|e| e.path == "block1.moe.expert1.dispatch")
        .unwrap();
    assert_eq!(d.shape, [8, 64], "the bound B·T");
    assert_eq!(d.named_shape(), "(n_e≤8,d=64)");
    assert!(d.departs);
    assert!(
        d.sources[0].from.starts_with("data: the tokens of"),
        "{:?}",
        d.sources[0]
    );
    // The why speaks of the bound, not of 8 tokens that chose it.
    assert!(
        d.why_text().contains("records its bound, 8"),
        "{}",
        d.why_text()
    );
    assert!(!d.why_text().contains("8 of the 8"), "{}", d.why_text());
    let combine = t
        .events
        .iter()
        .find(|e| e.path == "block1.moe.combine")
        .unwrap();
    assert!(combine.returns, "the combine brings every token back");
    assert!(
        combine.why_text().contains("B·T·k = 16"),
        "{}",
        combine.why_text()
    );
    let run = shapetrace::run_request(&cfg, &req).unwrap();
    let routing = run
        .checks
        .iter()
        .find(|c| c.name == CheckName::Routing)
        .unwrap();
    assert_eq!(routing.status, Status::Skip, "{routing:?}");
    // A dense model lists no routing check at all.
    let dense = shapetrace::run(&ModelConfig::default()).unwrap();
    assert!(dense.checks.iter().all(|c| c.name != CheckName::Routing));
}

#[test]
fn a_capacity_drops_tokens_and_routing_counts_the_routes_that_never_came_back() {
    let mut cfg = lesson_moe();
    cfg.fault = Some(shapetrace::config::Fault::MoeCapacity);
    let (caps, _) = forward(&cfg);
    // ⌈B·T·k/E⌉ = ⌈16/4⌉ = 4 rows at most, for every expert.
    let rows: Vec<usize> = (1..=4)
        .map(|i| values(&caps, &format!("block1.moe.expert{i}.dispatch")).shape[0])
        .collect();
    assert!(rows.iter().all(|&n| n <= 4), "{rows:?}");
    assert!(rows.iter().sum::<usize>() < 16, "{rows:?}");
    let run = shapetrace::run(&cfg).unwrap();
    let routing = run
        .checks
        .iter()
        .find(|c| c.name == CheckName::Routing)
        .unwrap();
    assert_eq!(routing.status, Status::Fail);
    let taken: usize = rows.iter().sum();
    assert!(
        routing
            .detail
            .contains(&format!("{taken} of 16 routes (B·T·k) came back")),
        "{}",
        routing.detail
    );
    // Refused where it cannot show, naming what it needs.
    let (code, _, err) = common::cli(&["check", "--fault", "moe-capacity"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("needs a mixture of experts"), "{err}");
    // And bad expert settings, in one line each.
    for (args, msg) in [
        (
            &["--experts", "4", "--top-k", "5"][..],
            "top_k 5; allowed: 1 to experts (4)",
        ),
        (
            &["--experts", "300"][..],
            "experts 300; allowed: 0 (a dense MLP) to 256",
        ),
        (
            &["--experts", "4", "--dtype", "bf16"][..],
            "experts with dtype f32 or f64",
        ),
        (
            &["--experts", "2", "--top-k", "2", "--fault", "moe-capacity"][..],
            "needs top_k below experts",
        ),
    ] {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        let (code, _, err) = common::cli(&all);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(
            err.contains(msg) && err.trim().lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

/// An expert that no token chose holds (0, d): no values, so no stats,
/// and its log replays (a min of no values is not a number to write).
#[test]
fn an_expert_no_token_chose_has_no_stats_and_its_log_replays() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("empty.jsonl");
    let log = log.to_str().unwrap();
    let model = [
        "--preset",
        "lesson-moe",
        "--experts",
        "8",
        "--top-k",
        "1",
        "--batch",
        "1",
        "--seq",
        "2",
    ];
    let mut args = vec!["trace", "--numeric", "--format", "json", "--out", log];
    args.extend_from_slice(&model);
    let (code, _, err) = common::cli(&args);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(log).unwrap();
    let empty: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| {
            v["path"].as_str().is_some_and(|p| p.ends_with(".dispatch"))
        })
        .filter(|v| v["shape"][0] == 0)
        .collect();
    // 2 tokens, 1 expert each, 8 experts: at least 6 chose by no token.
    assert!(empty.len() >= 6, "{}", empty.len());
    assert!(empty.iter().all(|v| v["stats"].is_null()), "{empty:?}");
    let (code, out, err) = common::cli(&["view", log, "--format", "table"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("(n_e=0,d=64)"), "{out}");
}
