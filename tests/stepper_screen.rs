//! What a new user stumbled on in the stepper, each with the screen or
//! state that shows it fixed: the tab bar beside long file names, quick
//! switch keys, the diagram's and help's cut lines, messages and key
//! hints, a replay left for a live run, the failed step's row, the Probes
//! tab's opening token, stale verdicts, and the header's seed and mode.

mod common;
use assert_cmd::Command;
use common::{frame, settle, stepper};
use shapetrace::config::Fault;
use shapetrace::load::{Sources, resolve};
use shapetrace::trace::log;
use shapetrace::tui::action::{Action, keys};
use shapetrace::tui::app::{App, Given};
use shapetrace::tui::theme::MONO;
use shapetrace::{Overlay, Request};
use std::path::Path;

fn resize(lp: &mut common::TestLoop, w: u16, h: u16) {
    lp.terminal.backend_mut().resize(w, h);
    lp.terminal
        .resize(ratatui::layout::Rect::new(0, 0, w, h))
        .unwrap();
    settle(lp);
}

fn line(screen: &str, n: usize) -> &str {
    screen.lines().nth(n).unwrap_or("")
}

#[test]
fn long_file_names_give_way_to_the_tabs_on_80_columns() {
    let label = format!("{}.safetensors + {}.npy", "w".repeat(60), "x".repeat(40));
    let given = Given::new(&Request::default(), Some(label));
    let lp = stepper(common::cfg(""), given);
    let top = line(&frame(&lp), 0).to_string();
    assert!(top.ends_with("Probes"), "{top}");
    assert!(top.contains('…') && top.contains(".npy"), "{top}");
}

#[test]
fn quick_switch_presses_add_up_instead_of_being_dropped() {
    let mut lp = stepper(common::cfg(""), Given::default());
    // Three presses before any trace lands: the third fault, not the first.
    for _ in 0..3 {
        lp.app.update(Action::CycleFault);
    }
    assert!(
        lp.app.stale(),
        "the old verdicts are marked while a switch traces"
    );
    lp.show().unwrap();
    assert!(frame(&lp).contains("stale"), "{}", frame(&lp));
    settle(&mut lp);
    assert_eq!(lp.app.cfg().fault, Some(Fault::ALL[2]));
    assert!(!lp.app.stale());
    assert!(!frame(&lp).contains("stale"), "{}", frame(&lp));
    // Two norm presses come back to the norm the model started with.
    let norm = lp.app.cfg().norms.kind;
    lp.app.update(Action::ToggleNorm);
    lp.app.update(Action::ToggleNorm);
    settle(&mut lp);
    assert_eq!(lp.app.cfg().norms.kind, norm);
}

#[test]
fn the_diagram_and_the_help_are_not_cut() {
    let mut lp = stepper(common::cfg(""), Given::default());
    lp.app.update(Action::Select(5));
    for (w, h) in [(80, 24), (200, 50)] {
        resize(&mut lp, w, h);
        let s = frame(&lp);
        assert!(s.contains("◆ leaves (B,T,d) "), "{w}×{h}:\n{s}");
        assert!(!s.contains("(B,T,d│"), "{w}×{h}:\n{s}");
    }
    resize(&mut lp, 80, 24);
    lp.app.update(Action::ToggleHelp);
    // Every key's line is whole on some screen of the overlay, which
    // scrolls with ↓ when the keys outnumber the rows.
    let mut seen = String::new();
    for _ in 0..=keys::listed().count() {
        lp.show().unwrap();
        seen.push_str(&frame(&lp));
        lp.app.update(Action::Down);
    }
    for (keys, words) in keys::listed() {
        let what = lp.app.t(words);
        assert!(seen.contains(&what), "help cuts '{keys}: {what}':\n{seen}");
    }
    assert!(seen.contains("✓/✗ residual add"), "{seen}");
}

#[test]
fn a_message_keeps_the_key_hints_and_stays_on_its_tab() {
    let mut lp = stepper(common::cfg(""), Given::default());
    lp.app.update(Action::CycleAct);
    settle(&mut lp);
    let s = frame(&lp);
    assert!(s.contains("activation → "), "{s}");
    assert!(s.contains("? help"), "the hints are gone:\n{s}");
    lp.app.update(Action::NextTab);
    lp.show().unwrap();
    assert!(!frame(&lp).contains("activation → "), "{}", frame(&lp));
}

#[test]
fn a_shape_only_run_says_so_in_the_header_and_its_note_is_whole() {
    let lp = stepper(common::cfg("preset = \"gpt2-xl\""), Given::default());
    let s = frame(&lp);
    assert!(line(&s, 1).contains("shapes only"), "{s}");
    let note = lp.app.run.plan.short_note().unwrap();
    assert!(s.contains(&note), "{note} not whole in:\n{s}");
    // A numeric run has no such mark.
    let lp = stepper(common::cfg(""), Given::default());
    assert!(!frame(&lp).contains("shapes only"));
}

#[test]
fn checkpoint_weights_are_not_called_seed_0() {
    let src = Sources {
        weights: Some(Path::new("tests/fixtures/nanogpt-tiny.safetensors").to_path_buf()),
        ..Sources::default()
    };
    let flags = Overlay {
        heads: Some(4),
        ..Overlay::default()
    };
    let (cfg, req) = resolve(&flags, &src, Request::default()).unwrap();
    let lp = stepper(
        cfg,
        Given::new(&req, Some("nanogpt-tiny.safetensors".into())),
    );
    let head = line(&frame(&lp), 1).to_string();
    assert!(head.contains("weights from file"), "{head}");
    assert!(!head.contains("seed="), "{head}");
    let lp = stepper(common::cfg(""), Given::default());
    assert!(line(&frame(&lp), 1).contains("seed=0"));
}

#[test]
fn the_failed_linear_points_at_its_bias_not_an_addition() {
    let mut lp = stepper(common::cfg("fault = \"bias-w1-64\""), Given::default());
    lp.app.update(Action::Last);
    lp.show().unwrap();
    let s = frame(&lp);
    assert!(s.contains("(2,4,64)·(64,256)"), "{s}");
    assert!(s.contains("bias (64) should be (256)"), "{s}");
    assert!(!s.contains("(2,4,64)+(64,256)"), "{s}");
    // A residual add that fails still reads as an addition.
    let mut lp = stepper(common::cfg("fault = \"ffn-no-down\""), Given::default());
    lp.app.update(Action::Last);
    lp.show().unwrap();
    assert!(
        frame(&lp).contains("(2,4,64) + (2,4,256)"),
        "{}",
        frame(&lp)
    );
}

#[test]
fn the_probes_tab_opens_on_a_token_that_shows_the_leak() {
    let mut lp = stepper(common::cfg("fault = \"no-causal-mask\""), Given::default());
    while lp.app.tab != shapetrace::tui::app::Tab::Probes {
        lp.app.update(Action::NextTab);
    }
    settle(&mut lp);
    let s = frame(&lp);
    // Token 0 has no earlier position to leak into; the first that leaks is 1.
    assert_eq!(lp.app.labs.probes.token, Some(1), "{s}");
    assert!(s.contains("token t=1"), "{s}");
    assert!(!s.contains("causality holds"), "{s}");
    // Without a leak it opens on the middle token, as `probes` does.
    let mut lp = stepper(common::cfg(""), Given::default());
    while lp.app.tab != shapetrace::tui::app::Tab::Probes {
        lp.app.update(Action::NextTab);
    }
    settle(&mut lp);
    assert_eq!(lp.app.labs.probes.token, Some(2));
}

fn lesson_log() -> String {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .args(["trace", "--format", "json"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_switch_from_a_replay_can_go_back_to_it() {
    let replay = log::read(lesson_log().as_bytes(), "saved.jsonl").unwrap();
    let app = App::replay(replay, "saved.jsonl", MONO);
    let terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    let mut lp = shapetrace::tui::event_loop::EventLoop::new(app, terminal);
    settle(&mut lp);
    let events = lp.app.run.trace.events.len();
    lp.app.update(Action::CycleFault);
    settle(&mut lp);
    assert!(lp.app.source.is_none());
    assert!(frame(&lp).contains("v goes back"), "{}", frame(&lp));
    lp.app.update(Action::BackToReplay);
    settle(&mut lp);
    assert_eq!(lp.app.source.as_deref(), Some("saved.jsonl"));
    assert_eq!(lp.app.cfg().fault, None);
    assert_eq!(lp.app.run.trace.events.len(), events);
    assert!(
        frame(&lp).contains("replaying saved.jsonl again"),
        "{}",
        frame(&lp)
    );
}

#[test]
fn w_shows_the_whole_why_that_the_detail_pane_cuts_at_80_columns() {
    let mut lp = stepper(common::cfg(""), Given::default());
    lp.app.update(Action::Select(5));
    lp.show().unwrap();
    let why = lp.app.run.trace.events[5].why_text().to_string();
    let words: Vec<&str> = why.split_whitespace().collect();
    let end = words[words.len() - 3..].join(" ");
    let s = frame(&lp);
    assert!(s.contains("… w: all"), "the cut says so:\n{s}");
    assert!(!s.contains(&end), "{s}");
    lp.app.update(Action::ToggleWhy);
    lp.show().unwrap();
    let s = frame(&lp);
    // Every word of the why is on screen, the last ones too.
    // The Detail pane's text: right of the panes' shared border.
    let detail: Vec<&str> = s
        .lines()
        .filter_map(|l| l.split_once("││").map(|(_, r)| r.trim_end_matches('│')))
        .collect();
    let flat = detail
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains(&end), "{end:?} not in:\n{s}");
    assert!(!s.contains("… w: all"), "{s}");
}
