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

/// The Budget tab's count quiz in zh-TW: the question's number and the
/// verdict's words are the catalog's (the question itself is the quiz's
/// English).
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
