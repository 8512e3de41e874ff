//! The stepper in Traditional Chinese (`--lang zh-TW`) at 80×24: the
//! screens a class sees first, their wide characters measured in columns
//! (no character cut in two, borders where the English ones are), and
//! every why and key line in the zh-TW catalog.

mod common;

use common::{TestLoop, settle};
use shapetrace::ModelConfig;
use shapetrace::config::Fault;
use shapetrace::config::preset::PRESETS;
use shapetrace::i18n::Lang;
use shapetrace::tui::action::{Action, keys};
use shapetrace::tui::app::Given;
use shapetrace::tui::theme::COLOR;
use shapetrace::tui::{Launch, event_loop::EventLoop};
use unicode_width::UnicodeWidthStr;

fn zh(cfg: ModelConfig, actions: &[Action]) -> TestLoop {
    let launch = Launch {
        lang: Lang::ZhTw,
        ..Launch::default()
    };
    let app = shapetrace::tui::app(cfg, launch, Given::default(), COLOR).expect("opens");
    let terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("terminal");
    let mut lp = EventLoop::new(app, terminal);
    settle(&mut lp);
    for &a in actions {
        lp.app.update(a);
        settle(&mut lp);
    }
    lp
}

/// The screen as text, drawn afresh (a test backend keeps what an
/// earlier frame left in the second cell of a wide character, which a
/// terminal overwrites): a wide character once, its second cell skipped,
/// so each line reads as it shows; trailing spaces cut.
fn frame(lp: &TestLoop) -> String {
    let mut term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("terminal");
    term.draw(|f| f.render_widget(&lp.app, f.area()))
        .expect("draws");
    let buf = term.backend().buffer();
    let w = usize::from(buf.area.width);
    let mut out = Vec::new();
    for row in buf.content.chunks(w) {
        let mut line = String::new();
        let mut skip = 0;
        for (x, cell) in row.iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let s = cell.symbol();
            let n = s.width();
            // A box drawn over the second half of a wide character: a
            // terminal blanks the character, and the box's cell shows.
            let covered = (1..n).any(|i| row.get(x + i).is_some_and(|c| c.symbol() != " "));
            if covered {
                line.push(' ');
            } else {
                skip = n.saturating_sub(1);
                line.push_str(s);
            }
        }
        out.push(line.trim_end().to_string());
    }
    out.join("\n")
}

/// Every line of the frame is 80 columns or fewer, and a box that opens
/// on the left closes on the right.
fn fits(s: &str) {
    for (i, l) in s.lines().enumerate() {
        assert!(l.width() <= 80, "line {i} is {} wide:\n{s}", l.width());
        if l.starts_with(['┌', '└']) && l.width() > 40 {
            assert!(
                l.ends_with(['┐', '┘']),
                "line {i}'s box is not closed:\n{s}"
            );
        }
        if l.starts_with('│') && l.ends_with('│') {
            assert_eq!(l.width(), 80, "line {i}'s border moved:\n{s}");
        }
    }
}

#[test]
fn snapshot_zh_first_step() {
    let lp = zh(ModelConfig::default(), &[]);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("步驟") && s.contains("殘差相加"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_after_steps_with_the_why() {
    let lp = zh(ModelConfig::default(), &[Action::Next; 6]);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("原因："), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_whole_why() {
    let lp = zh(
        ModelConfig::default(),
        &[Action::NextResidual, Action::ToggleWhy],
    );
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("殘差相加"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_help() {
    let lp = zh(ModelConfig::default(), &[Action::ToggleHelp]);
    let s = frame(&lp);
    fits(&s);
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_checks_tab() {
    let lp = zh(
        ModelConfig::default(),
        &[Action::CycleFault, Action::CycleFault, Action::NextTab],
    );
    let s = frame(&lp);
    fits(&s);
    assert!(
        s.contains("故障 attn-no-merge") && s.contains("失敗") && s.contains("殘差相加"),
        "{s}"
    );
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_fault_failure() {
    let lp = zh(ModelConfig::default(), &[Action::CycleFault, Action::Last]);
    let s = frame(&lp);
    fits(&s);
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_budget_tab() {
    let tabs = [Action::NextTab; 4];
    let lp = zh(ModelConfig::default(), &tabs);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("總參數量"), "{s}");
    insta::assert_snapshot!(s);
}

/// A model with the backward adds the training step's rows to the
/// Budget tab (they were dropped, paired with GPT-2 small's rows, which
/// have none), in the language's words.
#[test]
fn the_budget_tab_s_training_rows_speak_chinese() {
    let cfg = ModelConfig {
        backward: true,
        ..ModelConfig::default()
    };
    let s = frame(&zh(cfg.clone(), &[Action::NextTab; 4]));
    fits(&s);
    // At 80×24 the first two of the four rows fit (GPT-2 small's column
    // stays blank: it is counted without the backward).
    for word in ["梯度（每個權重一個）", "Adam 狀態 8·N"] {
        assert!(s.contains(word), "{word} missing:\n{s}");
    }
    for english in ["gradients", "Adam state"] {
        assert!(!s.contains(english), "{english} left:\n{s}");
    }
    // Without the backward the rows are not there: the test can fail.
    let plain = frame(&zh(ModelConfig::default(), &[Action::NextTab; 4]));
    assert!(!plain.contains("梯度"), "{plain}");
}

/// Every line of the key help is whole at 80×24 in zh-TW, in the
/// catalog's words, as the English ones are.
#[test]
fn every_help_line_fits_80_columns_in_zh_tw() {
    let mut lp = zh(ModelConfig::default(), &[Action::ToggleHelp]);
    let mut seen = String::new();
    for _ in 0..=keys::listed().count() {
        lp.show().unwrap();
        seen.push_str(&frame(&lp));
        seen.push('\n');
        lp.app.update(Action::Down);
    }
    fits(&seen);
    for (keys, words) in keys::listed() {
        let what = Lang::ZhTw.t(words);
        assert!(seen.contains(&what), "help cuts '{keys}: {what}':\n{seen}");
    }
}

/// Every step, failure and check detail of every preset and fault that
/// has a catalog message formats in zh-TW, by the zh-TW catalog itself
/// (no English fallback, no Fluent error), with the arguments the English
/// one was given.
#[test]
fn every_why_of_every_preset_and_fault_formats_in_zh_tw() {
    let req = shapetrace::Request {
        mode: shapetrace::ModeChoice::ShapeOnly,
        ..shapetrace::Request::default()
    };
    let mut runs = 0;
    let mut keys = std::collections::BTreeSet::new();
    for (preset, _) in PRESETS {
        for fault in std::iter::once(None).chain(Fault::ALL.iter().map(Some)) {
            let f = fault.map_or_else(String::new, |f| format!("\nfault = \"{f}\""));
            let Some(c) = shapetrace::Overlay::from_toml(&format!("preset = \"{preset}\"{f}"), "t")
                .ok()
                .and_then(|o| o.resolve().ok())
            else {
                continue;
            };
            let run = shapetrace::run_request(&c, &req).expect("runs");
            for check in &run.checks {
                if let Some(why) = &check.why {
                    shapetrace::why::render(Lang::ZhTw.catalog(), why)
                        .unwrap_or_else(|e| panic!("{preset} {fault:?}: {e}"));
                    assert_eq!(Lang::En.why(why), check.detail, "the English is the detail");
                    keys.insert(why.key.clone());
                }
            }
            let t = run.trace;
            runs += 1;
            let whys = t.events.iter().filter_map(|e| e.why.as_ref());
            for why in whys.chain(t.failure.iter().filter_map(|f| f.why.as_ref())) {
                let text = shapetrace::why::render(Lang::ZhTw.catalog(), why)
                    .unwrap_or_else(|e| panic!("{preset} {fault:?}: {e}"));
                assert!(!text.is_empty());
                keys.insert(why.key.clone());
            }
        }
    }
    assert!(
        runs > PRESETS.len() * 5 && keys.len() > 30,
        "{runs} runs, {keys:?}"
    );
}

#[test]
fn every_teaching_fault_is_described_in_both_catalogs() {
    // A missing key renders as the key and an error; a key missing in
    // zh-TW renders as its English.
    for f in Fault::ALL {
        let row = f.spec();
        for key in [row.mistake_key(), row.why_key()] {
            let en = Lang::En.t(&key);
            assert!(!en.starts_with(&key), "{f}: {en}");
            assert_ne!(Lang::ZhTw.t(&key), en, "{f}: {key} is English in zh-TW");
        }
    }
}

#[test]
fn a_bad_lang_is_one_line_naming_it_and_what_is_allowed() {
    let (code, out, err) = common::cli(&["--lang", "fr", "trace"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("'fr'") && err.contains("--lang"), "{err}");
    assert!(err.contains("allowed: en, zh-TW"), "{err}");
    let (code, _, err) = common::cli(&["--lang", "zh_TW", "trace"]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn snapshot_zh_quiz_prompt() {
    let lp = zh(
        ModelConfig::default(),
        &[
            Action::ToggleQuiz,
            Action::Last,
            Action::Char('2'),
            Action::Char(','),
        ],
    );
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("預測它的形狀"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_zh_presenter() {
    let lp = zh(
        ModelConfig::default(),
        &[Action::TogglePresent, Action::NextDeparture],
    );
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("原因"), "{s}");
    insta::assert_snapshot!(s);
}

/// Another program's log: the header says what it declared, in either
/// language, with the log's own numbers.
#[test]
fn a_foreign_logs_header_speaks_the_language() {
    let path = "tests/fixtures/students/merge_bare_reshape.jsonl";
    let mut app = shapetrace::tui::app::App::replay(
        shapetrace::trace::log::read_file(std::path::Path::new(path)).unwrap(),
        path,
        COLOR,
    );
    let header = |app: &shapetrace::tui::app::App| {
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
        term.draw(|f| f.render_widget(app, f.area())).unwrap();
        let buf = term.backend().buffer();
        (0..80u16).map(|x| buf[(x, 1)].symbol()).collect::<String>()
    };
    let c = app.cfg().clone();
    let en = header(&app);
    let want = format!(
        " B={} T={} d_model={}  blocks={}  {}-LN declared",
        c.batch, c.seq, c.d_model, c.layers, c.norms.placement
    );
    assert!(en.starts_with(&want), "{en}");
    app.lang = Lang::ZhTw;
    // Cell by cell: a wide character's second cell is blank.
    let zh = header(&app).replace(' ', "");
    assert!(
        zh.contains("宣告pre-LN") && zh.contains(&format!("B={}", c.batch)),
        "{zh}"
    );
}

#[test]
fn snapshot_zh_checks_tab_all_hold() {
    let lp = zh(ModelConfig::default(), &[Action::NextTab]);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("因果遮罩"), "{s}");
    // `reference`'s largest |Δ| in its place, its digits masked.
    assert!(s.contains("最大 |Δ| "), "{s}");
    insta::assert_snapshot!(common::mask_delta(&s));
}

/// The split view (`--compare lesson-post-ln`) in zh-TW, after `n`: the
/// rows' marks, the box's words and its bottom border in the catalog.
#[test]
fn snapshot_zh_split_view() {
    let mut lp = zh(ModelConfig::default(), &[]);
    let right = shapetrace::config::preset::by_name("lesson-post-ln").unwrap();
    lp.app.open_split("lesson-post-ln", &right).unwrap();
    lp.app.update(Action::NextDeparture);
    settle(&mut lp);
    let s = frame(&lp);
    fits(&s);
    for part in ["≠ 輸入, 位置", "讀取 block1.resid_1", "15 改變", "單一模型"] {
        assert!(s.contains(part), "{part}\n{s}");
    }
    insta::assert_snapshot!(s);
}

/// The Budget tab's pictures (`c`) for the lesson model in zh-TW: the
/// bars' names, the titles, the legend and the T* note in the catalog's
/// words, each bar's name padded in columns so the bars line up.
#[test]
fn snapshot_zh_budget_charts_lesson() {
    let mut actions = vec![Action::NextTab; 4];
    actions.push(Action::ToggleCharts);
    let lp = zh(ModelConfig::default(), &actions);
    let s = frame(&lp);
    fits(&s);
    for part in [
        "參數量 · c：表格",
        "嵌入",
        "前饋網絡",
        "T 項",
        "T*=256=d_ff；因果 ≈512",
        "• 總計 ⠿ 注意力 ▄ 前饋網絡",
        "█ T*=256",
    ] {
        assert!(s.contains(part), "{part}\n{s}");
    }
    insta::assert_snapshot!(s);
}

/// The Detail pane at block1.attn.weights in zh-TW: the heatmap's title
/// (查詢 ↓ × 鍵 →) and its legend's `╳ 遮罩` in the catalog's words.
#[test]
fn snapshot_zh_detail_heatmap_weights() {
    let mut lp = zh(ModelConfig::default(), &[]);
    while lp.app.path(lp.app.cursor) != Some("block1.attn.weights") {
        lp.app.update(Action::Next);
    }
    settle(&mut lp);
    let s = frame(&lp);
    fits(&s);
    for part in ["查詢 ↓ × 鍵 →", "╳ 遮罩", "softmax(mask(s))"] {
        assert!(s.contains(part), "{part}\n{s}");
    }
    insta::assert_snapshot!(s);
}

/// The Detail pane at the heads' split in zh-TW: the formula's words in
/// the catalog's, its shapes as stored.
#[test]
fn snapshot_zh_detail_split_heads_formula() {
    let mut lp = zh(ModelConfig::default(), &[]);
    while lp.app.path(lp.app.cursor) != Some("block1.attn.q") {
        lp.app.update(Action::Next);
    }
    settle(&mut lp);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("分成 4 個頭 : (2,4,64) → (2,4,4,16)"), "{s}");
    insta::assert_snapshot!(s);
}

/// A replay's opening status line: in English exactly as before (the
/// log's own note after `·`), in zh-TW the catalog's words, the file's
/// name as given.
#[test]
fn a_replays_opening_status_speaks_the_language() {
    let path = "tests/fixtures/students/merge_bare_reshape.jsonl";
    let read = || shapetrace::trace::log::read_file(std::path::Path::new(path)).unwrap();
    let mut cut = read();
    cut.checks = None;
    let note = cut.note().expect("no summary");
    let en = shapetrace::tui::app::App::replay(cut.clone(), path, COLOR);
    assert_eq!(
        en.status.as_deref(),
        Some(format!("replaying {path} · {note}").as_str())
    );
    let zh = shapetrace::tui::app::App::replay_in(cut, path, COLOR, Lang::ZhTw);
    let s = zh.status.expect("a status");
    assert!(s.starts_with(&format!("重播 {path} · 日誌不完整")), "{s}");
    let whole = shapetrace::tui::app::App::replay_in(read(), path, COLOR, Lang::ZhTw);
    assert_eq!(whole.status, Some(format!("重播 {path}")));
    let whole = shapetrace::tui::app::App::replay(read(), path, COLOR);
    assert_eq!(whole.status, Some(format!("replaying {path}")));
}

/// The quiz's actions that type `text` at block1.attn.q, then Enter.
fn quiz_answer(text: &str) -> Vec<Action> {
    let mut a = vec![Action::ToggleQuiz, Action::Last];
    a.extend(text.chars().map(Action::Char));
    a.push(Action::Submit);
    a
}

/// A wrong answer at block1.attn.q, the layout before the transpose: the
/// judge's named mistake in the catalog's words.
#[test]
fn snapshot_zh_quiz_wrong_answer() {
    let lp = zh(ModelConfig::default(), &quiz_answer("B,T,h,hd"));
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("✗ (B=2,T=4,h=4,hd=16) 是轉置之前的排列"), "{s}");
    insta::assert_snapshot!(s);
}

/// Sizes that fit two orders at block1.attn.q: the follow-up question in
/// the catalog's words, its positions and template as the judge gives.
#[test]
fn snapshot_zh_quiz_follow_up() {
    let lp = zh(ModelConfig::default(), &quiz_answer("2,4,4,16"));
    let s = frame(&lp);
    fits(&s);
    assert!(
        s.contains("符合不只一種順序") && s.contains("(B,?,?,hd)"),
        "{s}"
    );
    insta::assert_snapshot!(s);
}
/// Every check detail of every preset and fault, passing, failing or
/// skipped, shape-only and (on the small presets) with values, is a
/// catalog message that the zh-TW catalog formats itself, unlike the
/// English, and whose English is the detail; GPT-2 small with values is
/// too large for the probes to re-run, and says so in zh-TW too.
#[test]
fn every_check_detail_of_every_preset_and_fault_is_in_the_zh_catalog() {
    let mut judged = 0;
    let mut failing = std::collections::BTreeSet::new();
    let mut skipped = std::collections::BTreeSet::new();
    for (preset, _) in PRESETS {
        let modes: &[shapetrace::ModeChoice] =
            if preset.starts_with("lesson") || *preset == "gpt2-small" {
                &[
                    shapetrace::ModeChoice::ShapeOnly,
                    shapetrace::ModeChoice::default(),
                ]
            } else {
                &[shapetrace::ModeChoice::ShapeOnly]
            };
        for fault in std::iter::once(None).chain(Fault::ALL.iter().map(Some)) {
            let f = fault.map_or_else(String::new, |f| format!("\nfault = \"{f}\""));
            let Some(c) = shapetrace::Overlay::from_toml(&format!("preset = \"{preset}\"{f}"), "t")
                .ok()
                .and_then(|o| o.resolve().ok())
            else {
                continue;
            };
            // GPT-2 small with values once: its probes' skip, not its faults.
            let modes = if *preset == "gpt2-small" && fault.is_some() {
                &modes[..1]
            } else {
                modes
            };
            for &mode in modes {
                let req = shapetrace::Request {
                    mode,
                    ..shapetrace::Request::default()
                };
                let run = shapetrace::run_request(&c, &req).expect("runs");
                for check in &run.checks {
                    let at = format!("{preset} {fault:?} {mode:?} {}", check.name.as_str());
                    let why = check.why.as_ref().unwrap_or_else(|| {
                        panic!("{at}: no catalog message for '{}'", check.detail)
                    });
                    let zh = shapetrace::why::render(Lang::ZhTw.catalog(), why)
                        .unwrap_or_else(|e| panic!("{at}: {e}"));
                    assert_eq!(Lang::En.why(why), check.detail, "{at}: the English");
                    assert_ne!(zh, check.detail, "{at}: zh-TW is the English");
                    judged += 1;
                    match check.status {
                        shapetrace::check::Status::Fail => failing.insert(why.key.clone()),
                        shapetrace::check::Status::Skip => skipped.insert(why.key.clone()),
                        shapetrace::check::Status::Pass => true,
                    };
                }
            }
        }
    }
    for key in [
        "check-returns-fail",
        "check-wiring-fail",
        "check-wiring-normed",
        "check-params-fail",
        "check-positionwise-fail",
        "check-causality-fail",
        "check-reference-fail",
        "check-routing-lost",
        "judge-residual-shape",
        "judge-stream-shape",
        "judge-stream-dtype",
        "judge-op-refused",
        "judge-op-dtype",
        "judge-finite",
    ] {
        assert!(
            failing.contains(key),
            "no fault fails with {key}: {failing:?}"
        );
    }
    for key in [
        "check-too-large",
        "check-alone-judge-stream-shape",
        "check-shape-only",
    ] {
        assert!(
            skipped.contains(key),
            "no run skips with {key}: {skipped:?}"
        );
    }
    assert!(judged > 1000, "{judged} details judged");
}

#[test]
fn snapshot_zh_norms_tab() {
    let lp = zh(ModelConfig::default(), &[Action::NextTab; 3]);
    let s = frame(&lp);
    fits(&s);
    assert!(
        s.contains("減去平均值") && s.contains("均方根") && s.contains("x 的方向"),
        "{s}"
    );
    assert!(!s.contains("subtract the mean"), "{s}");
    insta::assert_snapshot!(s);
}

/// The Budget tab's count quiz in zh-TW: its frame, question and
/// verdict's words are the catalog's, no English word left in its body.
#[test]
fn snapshot_zh_budget_count_quiz() {
    let mut actions = vec![Action::NextTab; 4];
    actions.push(Action::ToggleQuiz);
    let mut lp = zh(ModelConfig::default(), &actions);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("第 1 題，共") && s.contains("預算"), "{s}");
    insta::assert_snapshot!(s);
    lp.app.update(Action::Cancel);
    settle(&mut lp);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("已略過："), "{s}");
    assert!(!s.contains("skipped:"), "{s}");
}

/// The English words of `s` (runs of three or more ASCII letters) that are
/// not names the lesson keeps in English (ReLU, LayerNorm, softmax, …):
/// what a zh-TW screen or sheet should not show.
fn english_words(s: &str) -> Vec<String> {
    // row and column: the catalog's 列 and 行 say which in English too,
    // as the lesson's handout says 列 for a column; out_1 names a step.
    // rows and relu-after-w2: the mistakes' names, as `--mistake` takes them.
    const KEPT: [&str; 30] = [
        "ReLU",
        "LayerNorm",
        "RMSNorm",
        "SwiGLU",
        "silu",
        "is",
        "positionwise",
        "true",
        "false",
        "eps",
        "Norm",
        "FFN",
        "GPT",
        "small",
        "FLOPs",
        "matmul",
        "wte",
        "wpe",
        "ln",
        "Ctrl",
        "Enter",
        "Esc",
        "row",
        "ROW",
        "column",
        "out",
        "rows",
        "relu",
        "after",
        "RMS",
    ];
    // Formulas the lesson writes in English: mean(x²), max(0, z), d_ff.
    let s = s
        .replace("mean(x²)", "")
        .replace("max(", "(")
        .replace("d_ff", "");
    s.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 3 && !KEPT.contains(w))
        .map(String::from)
        .collect()
}

/// The numbers of `s`, sorted: a translation keeps every number.
fn numbers(s: &str) -> Vec<String> {
    let mut n: Vec<String> = s
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    n.sort();
    n
}

/// `shapetrace ffn` and `norms` with `--lang zh-TW`, or a zh_TW locale:
/// every label and teaching line in the catalog's words, every number as
/// the English sheet has it.
#[test]
fn ffn_and_norms_print_traditional_chinese_with_the_same_numbers() {
    let runs: [&[&str]; 9] = [
        &["ffn"],
        &["ffn", "--x", "2,-1"],
        &["ffn", "--mistake", "rows"],
        &["ffn", "--mistake", "rows", "--d", "2", "--f", "2"],
        &["ffn", "--mistake", "relu-after-w2", "--x", "2,-1"],
        &["ffn", "--gated", "--mistake", "relu-after-w2"],
        &["ffn", "--x", "1,-2", "--w1", "1,1;0,-1", "--w2", "1;1"],
        &["norms"],
        &["norms", "--x", "5,5"],
    ];
    for args in runs {
        let (code, en, err) = common::cli(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        let zh_args: Vec<&str> = ["--lang", "zh-TW"].iter().chain(args).copied().collect();
        let (code, zh, err) = common::cli(&zh_args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_ne!(zh, en, "{args:?}");
        assert_eq!(
            english_words(&zh),
            Vec::<String>::new(),
            "{args:?} keeps English:\n{zh}"
        );
        assert_eq!(numbers(&zh), numbers(&en), "{args:?}:\n{en}\n{zh}");
    }
    let (_, zh, _) = common::cli(&["--lang", "zh-TW", "ffn", "--x", "2,-1"]);
    for part in [
        "手算前饋網絡",
        "隱藏單元 2 和 3 被關閉",
        "權重，d = 2，f = 3",
        "先預測：按位置前饋網絡",
        "答案：不會",
    ] {
        assert!(zh.contains(part), "{part}\n{zh}");
    }
    let (_, zh, _) = common::cli(&["--lang", "zh-TW", "norms"]);
    assert!(
        zh.contains("平均值") && zh.contains("LayerNorm：減去平均值"),
        "{zh}"
    );
    // The locale alone says it too.
    let o = assert_cmd::Command::cargo_bin("shapetrace")
        .unwrap()
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "zh_TW.UTF-8")
        .arg("norms")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("平均值"));
}

/// The FFN tab in zh-TW, every step shown: the lab's title, matrices,
/// steps and notes in the catalog's words.
#[test]
fn snapshot_zh_ffn_tab_all_steps() {
    let mut lp = zh(ModelConfig::default(), &[Action::NextTab, Action::NextTab]);
    lp.app.update(Action::Edit);
    for c in "2,-1".chars() {
        lp.app.update(Action::Char(c));
    }
    lp.app.update(Action::Submit);
    lp.app.update(Action::Last);
    settle(&mut lp);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("手算前饋網絡") && s.contains("被關閉"), "{s}");
    let body: String = s.lines().skip(2).take(19).collect::<Vec<_>>().join("\n");
    assert_eq!(english_words(&body), Vec::<String>::new(), "{s}");
    insta::assert_snapshot!(s);
}

/// The count quiz in zh-TW: the question, a named mistake and an answer
/// that is not a count, in the catalog's words.
#[test]
fn the_count_quiz_asks_and_judges_in_zh_tw() {
    let mut actions = vec![Action::NextTab; 4];
    actions.push(Action::ToggleQuiz);
    let mut lp = zh(ModelConfig::default(), &actions);
    let s = frame(&lp);
    assert!(s.contains("本模型：一個模組有多少前饋網絡權重"), "{s}");
    for c in "lots".chars() {
        lp.app.update(Action::Char(c));
    }
    lp.app.update(Action::Submit);
    settle(&mut lp);
    let s = frame(&lp);
    assert!(s.contains("不是確切的計數"), "{s}");
    lp.app.update(Action::ClearInput);
    for c in "16384".chars() {
        lp.app.update(Action::Char(c));
    }
    lp.app.update(Action::Submit);
    settle(&mut lp);
    let s = frame(&lp);
    fits(&s);
    assert!(s.contains("✗ 錯誤：16,384 只算了 W1"), "{s}");
    assert!(!s.contains("counts only"), "{s}");
}

/// One meaning per word: two key hints that read the same in zh-TW are
/// hints of one row of the key table (one action), never two; so quitting
/// and a departure from (B,T,d) are two words.
#[test]
fn no_zh_tw_hint_word_names_two_different_keys() {
    let mut by_word: std::collections::BTreeMap<String, std::collections::BTreeSet<usize>> =
        std::collections::BTreeMap::new();
    for (i, row) in keys::TABLE.iter().enumerate() {
        for h in row.hints {
            let words = if h.word == keys::PAUSE {
                vec![h.word, keys::RESUME]
            } else {
                vec![h.word]
            };
            for w in words {
                by_word.entry(Lang::ZhTw.t(w)).or_default().insert(i);
            }
        }
    }
    let shared: Vec<_> = by_word.iter().filter(|(_, rows)| rows.len() > 1).collect();
    assert!(shared.is_empty(), "one zh-TW word for two keys: {shared:?}");
    assert_ne!(
        Lang::ZhTw.t("ui-hint-quit"),
        Lang::ZhTw.t("ui-hint-departure")
    );
    // Nor does the rest of the screen quit with the departure's word.
    let departure = Lang::ZhTw.t("ui-hint-departure");
    for key in ["help-quit", "ui-small-quit", "ui-tracing"] {
        assert!(!Lang::ZhTw.t(key).contains(&departure), "{key}");
    }
}

/// The Detail pane at a failure says its detail as the Checks tab does,
/// in the catalog's words.
#[test]
fn the_detail_pane_translates_a_failures_detail_as_the_checks_tab() {
    let lp = zh(ModelConfig::default(), &[Action::CycleFault, Action::Last]);
    let failure = lp.app.run.trace.failure.clone().expect("the fault stops");
    let why = failure.detail_why.0.clone().expect("a catalog message");
    let zh_detail = Lang::ZhTw.why(&why);
    assert_ne!(zh_detail, failure.detail);
    let s = frame(&lp).replace(['│', ' '], "");
    assert!(
        s.contains(&zh_detail.replace(' ', "")[..12]),
        "{zh_detail}\n{s}"
    );
    assert!(!s.contains(&failure.detail.replace(' ', "")[..12]), "{s}");
    let check = lp.app.run.checks.iter().find(|c| c.name == failure.check);
    let in_checks = check
        .and_then(|c| c.why.as_ref())
        .map(|w| Lang::ZhTw.why(w));
    assert!(
        in_checks.as_ref().is_some_and(|c| c.ends_with(&zh_detail)),
        "{in_checks:?}"
    );
}

/// The presenter shows a failure's detail in the app's language too, as
/// the Detail pane and the Checks tab do (it showed the English).
#[test]
fn the_presenter_translates_a_failures_detail() {
    let lp = zh(
        ModelConfig::default(),
        &[Action::CycleFault, Action::Last, Action::TogglePresent],
    );
    let failure = lp.app.run.trace.failure.clone().expect("the fault stops");
    let zh_detail = Lang::ZhTw.why(failure.detail_why.0.as_ref().expect("a catalog message"));
    let s = common::screen_of(&lp.app, 200, 50).replace(['│', ' ', '\n'], "");
    assert!(
        s.contains(&zh_detail.replace(' ', "")[..12]),
        "{zh_detail}\n{s}"
    );
    assert!(!s.contains(&failure.detail.replace(' ', "")[..12]), "{s}");
}

/// The quiz's end: how many right of how many answered, in that order.
#[test]
fn the_quiz_end_reads_right_of_answered() {
    let mut actions = quiz_answer("B,h,T,hd");
    actions.push(Action::ToggleQuiz);
    let lp = zh(ModelConfig::default(), &actions);
    let q = lp.app.status.clone().unwrap_or_default();
    assert_eq!(q, "測驗結束：答對 1 題，共作答 1 題", "{}", frame(&lp));
}

/// The lesson's terms: LayerNorm and RMSNorm keep their names (no 歸一化),
/// and dtype is 數據類型 (類型 alone is BERT's token type only).
#[test]
fn the_zh_tw_catalog_uses_the_lessons_terms() {
    let src = Lang::ZhTw.source();
    assert!(!src.contains("歸一化"), "歸一化 in zh-TW.ftl");
    for line in src.lines().filter(|l| l.contains("類型")) {
        let rest = line.replace("數據類型", "");
        assert!(
            !rest.contains("類型") || line.starts_with("why-token-type"),
            "{line}"
        );
    }
    assert_eq!(Lang::ZhTw.t("ui-col-dtype"), "數據類型");
    let lp = zh(ModelConfig::default(), &[Action::NextTab; 3]);
    let s = frame(&lp);
    assert!(
        !s.contains("歸一化") && s.contains("LayerNorm 對比 RMSNorm"),
        "{s}"
    );
}

/// While the quiz waits for a shape, every letter is text (an axis name
/// needs h and d): the footer says so, and that Ctrl-C, not q, quits.
#[test]
fn the_typing_footer_says_letters_are_text_and_ctrl_c_quits() {
    let lp = zh(
        ModelConfig::default(),
        &[
            Action::ToggleQuiz,
            Action::Last,
            Action::Char('l'),
            Action::Char('q'),
        ],
    );
    assert_eq!(lp.app.quiz().map(|q| q.input.as_str()), Some("lq"));
    assert!(!lp.app.quit);
    let s = frame(&lp);
    let footer = s.lines().last().unwrap_or_default();
    assert!(
        footer.contains("都是文字") && footer.contains("Ctrl-C 退出"),
        "{s}"
    );
    assert!(!footer.contains("q 退出") && !footer.contains("←→"), "{s}");
}

/// A shape cut at a box's edge or the screen's: `(2,4,64` with no `)`
/// before the border or the line's end.
fn cut_shapes(s: &str) -> Vec<String> {
    s.lines()
        .flat_map(|l| l.split('│'))
        .filter_map(|seg| {
            let seg = seg.trim_end();
            let open = seg.rfind('(')?;
            let tail = &seg[open + 1..];
            let shape_like = !tail.is_empty()
                && tail
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, ',' | '=' | '_'));
            (shape_like && tail.chars().any(|c| c.is_ascii_digit())).then(|| seg.to_string())
        })
        .collect()
}

/// A cut marker (`…`) that is not the why's own `… w` (which says how to
/// see the rest) nor a file name elided in its middle.
fn cut_marks(s: &str, lang: Lang) -> Vec<String> {
    let more = lang.t("ui-why-more");
    s.lines()
        // `z_2 = …`: a step of the FFN lab not shown yet, not a cut.
        .filter(|l| l.replace(more.trim(), "").replace("= …", "").contains('…'))
        .map(String::from)
        .collect()
}

/// Every tab at 80×24 in both languages, with no fault and with each
/// teaching fault, at the first step and at the last (the failure, when
/// the fault stops the forward): no shape cut at an edge, no cut marker,
/// every box closed.
#[test]
fn every_tab_at_80x24_cuts_no_shape_and_no_word() {
    let faults = std::iter::once(None).chain(Fault::ALL.iter().copied().map(Some));
    for fault in faults {
        let cfg = ModelConfig {
            fault,
            ..ModelConfig::default()
        };
        if cfg.validate().is_err() {
            continue;
        }
        for lang in Lang::ALL {
            for tab in 0..6 {
                for end in [false, true] {
                    let mut actions = vec![Action::NextTab; tab];
                    if end {
                        actions.push(Action::Last);
                    }
                    let mut lp = zh(cfg.clone(), &actions);
                    lp.app.lang = lang;
                    let s = frame(&lp);
                    let at = format!("{fault:?} {} tab {tab} end {end}", lang.tag());
                    fits(&s);
                    assert_eq!(cut_shapes(&s), Vec::<String>::new(), "{at}:\n{s}");
                    // The Checks tab, when every detail in full does not fit,
                    // cuts passing ones to a line each so every verdict
                    // shows: its one cut marker, left for now.
                    let cuts: Vec<String> = cut_marks(&s, lang)
                        .into_iter()
                        .filter(|l| tab != 1 || !l.starts_with(['│']))
                        .collect();
                    assert_eq!(cuts, Vec::<String>::new(), "{at}:\n{s}");
                }
            }
        }
    }
}
