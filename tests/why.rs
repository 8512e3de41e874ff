//! The why of every step: its numbers follow the model, every step of
//! every preset and fault has one, every failure too, and the catalog
//! formats every message the tool emits.

mod common;
use common::cfg;
use shapetrace::config::Fault;
use shapetrace::config::preset::PRESETS;
use shapetrace::why::{self, Why};
use shapetrace::{ModeChoice, ModelConfig, Overlay, Request, Trace};

fn shapes_only(c: &ModelConfig) -> Trace {
    let req = Request {
        mode: ModeChoice::ShapeOnly,
        ..Request::default()
    };
    shapetrace::trace_request(c, &req)
        .expect("valid config")
        .trace
}

fn why_of<'a>(t: &'a Trace, path: &str) -> &'a str {
    t.get(path)
        .unwrap_or_else(|| panic!("{path} recorded"))
        .why_text()
}

fn source<'a>(t: &'a Trace, path: &str, axis: &str) -> &'a str {
    let e = t.get(path).expect("recorded");
    &e.sources
        .iter()
        .find(|s| s.axis == axis)
        .unwrap_or_else(|| panic!("{path} has a source for {axis}"))
        .from
}

#[test]
fn the_numbers_in_each_why_are_the_configs_own() {
    for (heads, d, ff, kv) in [
        (4, 64, 256, 4),
        (8, 64, 256, 8),
        (4, 96, 384, 4),
        (8, 96, 384, 2),
        (4, 64, 256, 2),
    ] {
        let c = cfg(&format!(
            "heads = {heads}\nd_model = {d}\nd_ff = {ff}\nkv_heads = {kv}"
        ));
        let (b, t, hd) = (c.batch, c.seq, d / heads);
        let trace = shapes_only(&c);
        let q = why_of(&trace, "block1.attn.q");
        assert!(
            q.contains(&format!("d_model {d} = {heads} heads × {hd}"))
                && q.contains(&format!("own {hd}-wide slice"))
                && q.contains(&format!("{t}×{t} table")),
            "{q}"
        );
        assert_eq!(
            source(&trace, "block1.attn.q", "hd"),
            format!("d / heads = {d} / {heads}")
        );
        let scores = why_of(&trace, "block1.attn.scores");
        assert!(
            scores.contains(&format!("Each of the {heads} heads"))
                && scores.contains(&format!("1/√{hd}"))
                && scores.contains(&format!("not ({b},{t},{d})")),
            "{scores}"
        );
        assert_eq!(
            source(&trace, "block1.attn.scores", "Tk"),
            "T of ".to_string()
                + if kv == heads {
                    "block1.attn.k"
                } else {
                    "block1.attn.k_rep"
                }
        );
        let up = why_of(&trace, "block1.mlp.up");
        assert!(
            up.contains(&format!("d_model {d} to d_ff {ff}"))
                && up.contains(&format!(
                    "b1 has {ff} entries, one per hidden unit, not {d}"
                )),
            "{up}"
        );
        assert!(
            source(&trace, "block1.mlp.up", "ff").starts_with("columns of block1.mlp.up.weight")
        );
        let merge = why_of(&trace, "block1.attn.merge");
        assert!(
            merge.contains(&format!("d_model {d} = {heads} × {hd}")),
            "{merge}"
        );
        if kv == heads {
            assert!(trace.get("block1.attn.k_rep").is_none());
            continue;
        }
        let k = why_of(&trace, "block1.attn.k");
        assert!(
            k.contains(&format!("k and v have {kv} heads of {hd}"))
                && k.contains(&format!("({} = {kv} × {hd})", kv * hd)),
            "{k}"
        );
        let rep = why_of(&trace, "block1.attn.k_rep");
        assert!(
            rep.contains(&format!(
                "the {kv} K/V heads, each repeated {} times, give {heads} heads",
                heads / kv
            )),
            "{rep}"
        );
        assert_eq!(
            source(&trace, "block1.attn.k_rep", "h"),
            format!("kv × rep = {kv} × {}", heads / kv)
        );
    }
}

/// Every preset with every fault (and none), and rotary positions, shapes only.
fn every_run() -> Vec<(String, Trace)> {
    let mut out = Vec::new();
    // Rotary positions and ALiBi, which no preset uses.
    let rope = cfg("pos_emb = \"rope\"");
    assert!(rope.positions.kind == shapetrace::config::PosEmb::Rope);
    out.push(("rope".to_string(), shapes_only(&rope)));
    out.push((
        "alibi".to_string(),
        shapes_only(&cfg("pos_emb = \"alibi\"")),
    ));
    // Students' own modules, exported from PyTorch: whys from op names.
    for entry in std::fs::read_dir("tests/fixtures/students").unwrap() {
        let path = entry.unwrap().path();
        let replay = shapetrace::trace::log::read_file(&path).unwrap();
        out.push((path.display().to_string(), replay.trace));
    }
    // A sliding window and a head width apart from d / h, which no preset has.
    let window = cfg("window = 2\nhead_dim = 8\nact = \"silu\"");
    out.push(("window".to_string(), shapes_only(&window)));
    // The families' own steps (fused splits, partial rotary, soft caps,
    // scaled embeddings, GeGLU, OPT's offset, BERT's token types and
    // pooler), from their config.json files.
    for file in [
        "tests/fixtures/hf-neox-tiny/config.json",
        "tests/fixtures/hf-phi3-tiny/config.json",
        "tests/fixtures/hf-gemma2-tiny/config.json",
        "tests/fixtures/hf/opt-125m.json",
        "tests/fixtures/hf/bert-base-uncased.json",
    ] {
        let o = Overlay::from_file(std::path::Path::new(file)).unwrap();
        let o = o.then(&Overlay {
            seq: Some(4),
            ..Overlay::default()
        });
        out.push((file.to_string(), shapes_only(&o.resolve().unwrap())));
    }
    // Generation: a decode step's one query over the cache, its position,
    // and a ring under a sliding window; the top-left mask's fault.
    for toml in [
        "preset = \"lesson-lm\"\ndecode = 2\npos_emb = \"rope\"",
        "preset = \"lesson-lm\"\ndecode = 2",
        "decode = 3\nwindow = 2\npos_emb = \"rope\"",
        "decode = 2\nfault = \"decode-mask-top-left\"",
        // The backward: the loss of a language model and of the blocks alone.
        "preset = \"lesson-lm\"\nbackward = true",
        "backward = true",
        // Split across devices: the column- and row-parallel slices, the
        // communication steps, a K/V head kept whole on several devices.
        "tp = 2",
        "tp = 2\nsp = true",
        "tp = 4\nkv_heads = 2",
        // A pipeline: the first stage sends, the second receives.
        "pp = 2",
        "pp = 2\ndevice = 1\npreset = \"lesson-lm\"",
        // The vocabulary split, and padded.
        "preset = \"lesson-lm\"\ntp = 2",
        "preset = \"lesson-lm\"\ntp = 4\nvocab = 95\npad_vocab = true",
    ] {
        out.push((toml.to_string(), shapes_only(&cfg(toml))));
    }
    // Expert parallelism: its all-to-alls' rows are the data's, so a
    // numeric run says them (a shape-only one gives the bound).
    for toml in [
        "preset = \"lesson-moe\"\nep = 2",
        "preset = \"lesson-moe\"\nep = 4\nbatch = 4\ndevice = 3",
    ] {
        let c = cfg(toml);
        out.push((toml.to_string(), shapes_only(&c)));
        out.push((
            format!("{toml} (numeric)"),
            shapetrace::run(&c).unwrap().trace,
        ));
    }
    // An untied LM head, which no preset has.
    let untied = cfg("vocab = 50\ntied = false");
    out.push(("untied".to_string(), shapes_only(&untied)));
    for (preset, _) in PRESETS {
        let faults = std::iter::once(None).chain(Fault::ALL.iter().map(Some));
        for fault in faults {
            let fault_line = fault.map_or_else(String::new, |f| format!("\nfault = \"{f}\""));
            let toml = format!("preset = \"{preset}\"{fault_line}");
            // A fault a preset cannot build (e.g. no bias to resize) is skipped.
            let Some(c) = Overlay::from_toml(&toml, "test")
                .ok()
                .and_then(|o| o.resolve().ok())
            else {
                continue;
            };
            out.push((toml, shapes_only(&c)));
        }
    }
    // With values, on the lesson model: a fault that overflows stops the
    // forward only when there are numbers (softmax-no-max).
    for f in Fault::ALL {
        let c = ModelConfig {
            fault: Some(*f),
            ..ModelConfig::default()
        };
        if c.validate().is_ok() {
            let t = shapetrace::trace(&c).expect("the lesson model runs");
            out.push((format!("lesson numeric, fault {f}"), t));
        }
    }
    // A mixture of experts with values: each expert's batch is its count,
    // not its bound; with a capacity, the why names it.
    for fault in ["", "\nfault = \"moe-capacity\""] {
        let c = cfg(&format!("preset = \"lesson-moe\"{fault}"));
        let t = shapetrace::trace(&c).expect("the lesson-moe model runs");
        out.push((format!("lesson-moe numeric{fault}"), t));
    }
    out
}

#[test]
fn every_step_and_failure_of_every_preset_and_fault_has_a_why_the_catalog_formats() {
    let runs = every_run();
    assert!(runs.len() > PRESETS.len() * 5, "{} runs", runs.len());
    let mut failures = 0;
    for (name, t) in &runs {
        for e in &t.events {
            assert!(!e.why_text().is_empty(), "{name}: {} has no why", e.path);
            let why = e.why.as_ref().expect("a new trace carries its key");
            let text = why::render(&why::CATALOG, why)
                .unwrap_or_else(|err| panic!("{name}: {}: {err}", e.path));
            assert_eq!(text, e.why_text);
            assert_eq!(e.sources.len(), e.shape.len(), "{name}: {}", e.path);
            for (s, (&n, a)) in e.sources.iter().zip(e.shape.iter().zip(&e.axes)) {
                assert_eq!((s.size, &s.axis), (n, a), "{name}: {}", e.path);
                assert!(!s.from.is_empty());
            }
        }
        if let Some(f) = &t.failure {
            failures += 1;
            let why = f.why.as_ref().expect("a failure carries its why");
            assert_eq!(why::render(&why::CATALOG, why).as_deref(), Ok(f.why_text()));
            assert!(!f.why_text().is_empty(), "{name}");
        }
    }
    assert!(failures >= 3, "the faults that stop a forward were run");
}

#[test]
fn each_failure_says_what_went_wrong_with_its_numbers() {
    let lesson = ModelConfig::default();
    let (b, t, d, ff) = (lesson.batch, lesson.seq, lesson.d_model, lesson.mlp.d_ff);
    let fail = |fault: &str| {
        let trace = shapes_only(&cfg(&format!("fault = \"{fault}\"")));
        trace.failure.expect("the forward stops").why_text
    };
    assert_eq!(
        fail("ffn-no-down"),
        format!(
            "The MLP returned its hidden layer ({b},{t},{ff}); the residual needs ({b},{t},{d}): the down projection is missing."
        )
    );
    let heads = fail("attn-no-merge");
    let (h, hd) = (lesson.attention.heads, lesson.head_dim());
    assert!(
        heads.contains(&format!("unmerged, ({b},{h},{t},{hd})")),
        "{heads}"
    );
    let bias = fail("bias-w1-64");
    assert!(
        bias.contains(&format!("has {d} entries, but x·W gives {ff} columns")),
        "{bias}"
    );
}

#[test]
fn faults_that_pass_every_shape_check_say_what_they_break() {
    let t = shapes_only(&cfg("fault = \"merge-no-transpose\""));
    assert!(why_of(&t, "block1.attn.merge").contains("without the transpose"));
    let t = shapes_only(&cfg("fault = \"no-causal-mask\""));
    assert!(why_of(&t, "block1.attn.weights").starts_with("No mask"));
    let t = shapes_only(&cfg("fault = \"norm-over-seq\""));
    assert!(why_of(&t, "block1.ln_1").contains("instead of the"));
    // The correct model says none of these.
    let ok = shapes_only(&ModelConfig::default());
    assert!(!why_of(&ok, "block1.attn.merge").contains("without"));
    assert!(why_of(&ok, "block1.attn.weights").starts_with("The causal mask"));
}

#[test]
fn the_catalog_refuses_a_missing_key_or_argument() {
    let cat = &why::CATALOG;
    assert!(why::render(cat, &Why::new("why-no-such-step")).is_err());
    // why-split uses d, heads, hd, T and shape: one left out fails.
    let partial = Why::new("why-split").arg("d", 64usize).arg("heads", 4usize);
    assert!(why::render(cat, &partial).is_err());
    // A second language is one more catalog, and its own keys are checked.
    let other = why::load("fr", "why-input = x0 : { $B } séquences").expect("valid Fluent");
    let input = Why::new("why-input").arg("B", 2usize);
    assert_eq!(
        why::render(&other, &input).as_deref(),
        Ok("x0 : 2 séquences")
    );
    assert!(why::render(&other, &Why::new("why-split")).is_err());
    assert!(why::load("en", "why-broken = { $").is_err());
}

#[test]
fn every_catalog_message_is_used_or_reserved_for_a_failure() {
    // The whys only: the screens' words (`ui-*`, `help-*`, …) are
    // checked by the stepper's tests.
    let keys: Vec<&str> = why::keys(why::EN)
        .into_iter()
        .filter(|k| k.starts_with("why-"))
        .collect();
    assert!(keys.len() > 25, "{keys:?}");
    let used: std::collections::BTreeSet<String> = every_run()
        .iter()
        .flat_map(|(_, t)| {
            t.events
                .iter()
                .filter_map(|e| e.why.as_ref())
                .chain(t.failure.iter().filter_map(|f| f.why.as_ref()))
                .map(|w| w.key.clone())
                .collect::<Vec<_>>()
        })
        .collect();
    // Failures no shipped fault reaches: a hand-written model can.
    let reserved = [
        "why-linear",
        "why-fail-residual",
        "why-fail-linear",
        "why-fail-stream",
        "why-fail-finite",
        "why-fail-op",
        // A stream tensor is judged before the add that reads it.
        "why-fail-residual-dtype",
        // A vocabulary's padding is made on the weights before the
        // forward, where no step records it; the op explains itself all
        // the same.
        "why-pad",
    ];
    for k in &keys {
        assert!(
            used.contains(*k) || reserved.contains(k),
            "{k} is in the catalog but no run uses it"
        );
    }
    for k in &used {
        assert!(
            keys.contains(&k.as_str()),
            "{k} is used but not in the catalog"
        );
    }
}

/// Under grouped-query attention k's and v's heads come from `kv_heads`,
/// not `heads`: the axis sources say so with the config's numbers.
#[test]
fn gqa_sources_name_kv_heads() {
    let mut cfg = shapetrace::ModelConfig {
        d_model: 96,
        ..shapetrace::ModelConfig::default()
    };
    (cfg.attention.heads, cfg.attention.kv_heads) = (8, 2);
    cfg.mlp.d_ff = 200;
    let run = shapetrace::run(&cfg).unwrap();
    let from = |path: &str, axis: &str| {
        let e = run.trace.get(path).unwrap();
        e.sources
            .iter()
            .find(|s| s.axis == axis)
            .map(|s| s.from.clone())
            .unwrap()
    };
    let hd = cfg.d_model / cfg.attention.heads;
    assert_eq!(
        from("block1.attn.k", "kv"),
        format!("kv_heads = {}", cfg.attention.kv_heads)
    );
    assert_eq!(
        from("block1.attn.k", "hd"),
        format!(
            "kv·hd / kv_heads = {} / {}",
            cfg.attention.kv_heads * hd,
            cfg.attention.kv_heads
        )
    );
    assert_eq!(
        from("block1.attn.q", "h"),
        format!("heads = {}", cfg.attention.heads)
    );
}

/// Every catalog holds the same keys as the English one, so no message
/// falls back to English, and each is valid Fluent.
#[test]
fn every_language_has_every_key_of_the_english_catalog() {
    use shapetrace::i18n::Lang;
    let en: std::collections::BTreeSet<&str> = why::keys(why::EN).into_iter().collect();
    for lang in Lang::ALL {
        let keys: std::collections::BTreeSet<&str> = why::keys(lang.source()).into_iter().collect();
        assert_eq!(keys, en, "{}", lang.tag());
        assert!(
            why::load(lang.tag(), lang.source()).is_ok(),
            "{}",
            lang.tag()
        );
    }
}
