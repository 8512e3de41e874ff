//! The split view (`shapetrace --compare RIGHT`): both traces aligned as
//! `shapetrace compare` aligns them, stepped together, the differing rows
//! marked with a glyph, and `a` `m` `p` `f` acting on the side `b` picks.

mod common;

use common::{TestLoop, frame, settle};
use ratatui::crossterm::event::MouseEventKind;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent};
use shapetrace::compare::Status;
use shapetrace::config::{Placement, preset};
use shapetrace::tui::app::Given;
use shapetrace::tui::event_loop::Msg;

/// The stepper on preset `left`, its split view opened beside `right`.
fn split(left: &str, right: &str) -> TestLoop {
    let mut lp = common::stepper(preset::by_name(left).unwrap(), Given::default());
    lp.app
        .open_split(right, &preset::by_name(right).unwrap())
        .expect("the split view opens");
    settle(&mut lp);
    lp
}

/// Presses `keys` as the terminal sends them, then draws.
fn press(lp: &mut TestLoop, keys: &str) {
    let tx = lp.sender();
    for c in keys.chars() {
        let k = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        tx.send(Msg::Input(Event::Key(k))).unwrap();
    }
    settle(lp);
}

fn cmp(lp: &TestLoop) -> &shapetrace::compare::Comparison {
    &lp.app.split.as_ref().unwrap().cmp
}

fn row(lp: &TestLoop) -> usize {
    lp.app.split.as_ref().unwrap().row
}

#[test]
fn snapshot_pre_ln_against_post_ln() {
    let mut lp = split("lesson", "lesson-post-ln");
    insta::assert_snapshot!("split_pre_post_first_row", frame(&lp));
    // `n` goes to the next differing row: a norm that reads another tensor.
    press(&mut lp, "n");
    insta::assert_snapshot!("split_pre_post_first_difference", frame(&lp));
}

#[test]
fn pre_ln_against_post_ln_marks_the_norms_though_no_shape_differs() {
    let mut lp = split("lesson", "lesson-post-ln");
    let c = cmp(&lp).clone();
    assert!(c.steps.iter().all(|s| s.left.as_ref().map(|x| &x.shape)
        == s.right.as_ref().map(|x| &x.shape)
        || s.left.is_none()
        || s.right.is_none()));
    // Every `n` lands on a changed row, and every changed row is reached.
    let changed: Vec<usize> = (0..c.steps.len())
        .filter(|&i| c.steps[i].status != Status::Same)
        .collect();
    assert!(!changed.is_empty());
    let mut seen = Vec::new();
    for _ in 0..changed.len() {
        press(&mut lp, "n");
        seen.push(row(&lp));
    }
    assert_eq!(seen, changed);
    assert!(
        changed.iter().any(|&i| c.steps[i].path.contains("ln_")),
        "a norm is among the changed rows"
    );
    // Its row is marked ≠ on screen, with what changed in words.
    let screen = frame(&lp);
    let path = &c.steps[*changed.last().unwrap()].path;
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("▶ ≠") && l.contains(path.as_str())),
        "{screen}"
    );
    press(&mut lp, "n");
    assert!(
        lp.app
            .status
            .as_deref()
            .unwrap()
            .contains("no further differing step")
    );
}

#[test]
fn stepping_moves_both_sides_and_the_left_cursor_follows() {
    let mut lp = split("lesson", "lesson-gqa");
    press(&mut lp, "llll");
    assert_eq!(row(&lp), 4);
    let s = &cmp(&lp).steps[4];
    assert_eq!(Some(lp.app.cursor), s.left.as_ref().map(|l| l.step));
    // G to the last row, and not past it.
    press(&mut lp, "Gl");
    assert_eq!(row(&lp), cmp(&lp).steps.len() - 1);
    // `|` shows the left model alone, on the same step.
    let at = lp.app.cursor;
    press(&mut lp, "|");
    let screen = frame(&lp);
    assert!(screen.contains("Block "), "the one-model view: {screen}");
    assert_eq!(lp.app.cursor, at);
    press(&mut lp, "g|");
    assert_eq!(row(&lp), 0, "the split view follows the cursor back");
}

#[test]
fn mha_against_gqa_shows_k_and_v_with_kv_heads() {
    let mut lp = split("lesson", "lesson-gqa");
    let k = cmp(&lp)
        .steps
        .iter()
        .position(|s| s.path == "block1.attn.k")
        .unwrap();
    for _ in 0..k {
        press(&mut lp, "j");
    }
    let screen = frame(&lp);
    let line = screen
        .lines()
        .find(|l| l.starts_with("▶"))
        .unwrap()
        .to_string();
    assert!(line.contains("≠"), "{line}");
    assert!(line.contains("h=4") && line.contains("kv=2"), "{line}");
    // The box names the parameter difference of the two models.
    assert!(screen.contains("parameters −"), "{screen}");
}

#[test]
fn switches_act_on_the_side_b_points_at() {
    let mut lp = split("lesson", "lesson");
    assert_eq!(cmp(&lp).summary.changed, 0, "a model against itself");
    // b: the right side; p switches the right model to Post-LN.
    press(&mut lp, "bp");
    assert_eq!(
        lp.app.cfg().norms.placement,
        Placement::Pre,
        "the left is untouched"
    );
    let right = &lp.app.split.as_ref().unwrap().right.config;
    assert_eq!(right.norms.placement, Placement::Post);
    assert!(cmp(&lp).summary.changed > 0, "now the wiring differs");
    assert!(frame(&lp).contains("switch ▶ lesson"), "{}", frame(&lp));
    // b again: the left side; p switches the left model too, on a worker.
    press(&mut lp, "bp");
    assert_eq!(lp.app.cfg().norms.placement, Placement::Post);
    assert_eq!(cmp(&lp).summary.changed, 0, "both Post-LN: the same again");
    // A fault on the right stops its forward; the box says where.
    press(&mut lp, "bf");
    assert!(cmp(&lp).right_stopped.is_some() || cmp(&lp).summary.changed > 0);
}

#[test]
fn a_click_selects_a_row_of_the_split_view() {
    let mut lp = split("lesson", "lesson-post-ln");
    let screen = frame(&lp);
    let y = screen
        .lines()
        .position(|l| l.contains("block1.attn.q "))
        .unwrap();
    let tx = lp.sender();
    tx.send(Msg::Input(Event::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 10,
        row: u16::try_from(y).unwrap(),
        modifiers: KeyModifiers::NONE,
    })))
    .unwrap();
    settle(&mut lp);
    assert_eq!(cmp(&lp).steps[row(&lp)].path, "block1.attn.q");
}

#[test]
fn without_a_second_model_b_and_bar_say_what_they_need() {
    let mut lp = common::stepper(preset::by_name("lesson").unwrap(), Given::default());
    press(&mut lp, "b");
    assert!(
        lp.app
            .status
            .as_deref()
            .unwrap()
            .contains("--compare RIGHT")
    );
    assert!(lp.app.split.is_none());
}

#[test]
fn the_book_s_excerpt_is_the_screen() {
    let book = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/own-model.md"
    ))
    .unwrap();
    let block = book
        .split("<!-- split:start -->")
        .nth(1)
        .and_then(|s| s.split("<!-- split:end -->").next())
        .expect("docs/src/own-model.md has the split view excerpt");
    let mut lp = split("lesson", "lesson-post-ln");
    press(&mut lp, "n");
    let screen = frame(&lp);
    let lines: Vec<&str> = block
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with("```") && !l.trim().is_empty())
        .collect();
    assert!(lines.len() >= 5, "{block}");
    for l in lines {
        assert!(
            screen.lines().any(|s| s == l.trim_end()),
            "not on screen: {l}\n{screen}"
        );
    }
}

#[test]
fn ascii_draws_the_split_view_in_ascii() {
    let mut lp = split("lesson", "lesson-gqa");
    lp.app.ascii = true;
    press(&mut lp, "n");
    let screen = frame(&lp);
    // Every sign, the math ones included, has its ASCII form (tests/tui.rs
    // holds the other screens to the same).
    let odd: String = screen.chars().filter(|c| !c.is_ascii()).collect();
    assert!(odd.is_empty(), "{odd:?} in:\n{screen}");
    // The changed row under the cursor: `>` then `#` for ≠.
    assert!(screen.contains("> # block1.attn.k_proj"), "{screen}");
}

#[test]
fn a_tick_moves_the_split_view_only_under_autoplay() {
    use shapetrace::tui::action::Action;
    let mut lp = split("lesson", "lesson-post-ln");
    // The event loop ticks for other reasons too (progress): no autoplay,
    // no move.
    lp.app.update(Action::Tick);
    assert_eq!(row(&lp), 0);
    lp.app.autoplay = Some(shapetrace::tui::app::Autoplay {
        every: std::time::Duration::from_secs(1),
        paused: false,
    });
    lp.app.update(Action::Tick);
    assert_eq!(row(&lp), 1);
    lp.app.update(Action::TogglePause);
    lp.app.update(Action::Tick);
    assert_eq!(row(&lp), 1, "paused");
}

#[test]
fn the_quiz_and_reveal_mode_take_the_one_model_view_and_give_it_back() {
    let mut lp = split("lesson", "lesson-post-ln");
    press(&mut lp, "n");
    let at = lp.app.cursor;
    press(&mut lp, "z");
    assert!(
        lp.app.quiz().is_some(),
        "z starts the quiz in the split view"
    );
    assert!(!lp.app.split_shown(), "the quiz follows one model");
    assert!(frame(&lp).contains("Block "), "{}", frame(&lp));
    // | cannot bring the split back over the quiz.
    press(&mut lp, "|");
    assert!(
        lp.app
            .status
            .as_deref()
            .unwrap()
            .contains("z or o ends them first")
    );
    press(&mut lp, "z");
    assert!(
        lp.app.split_shown(),
        "the quiz ended: the split view is back"
    );
    assert_eq!(
        cmp(&lp).steps[row(&lp)].left.as_ref().map(|l| l.step),
        Some(at)
    );
    press(&mut lp, "o");
    assert!(lp.app.reveal().is_some() && !lp.app.split_shown());
    press(&mut lp, "o");
    assert!(lp.app.split_shown());
}

#[test]
fn the_split_view_opens_on_the_step_at_names() {
    use shapetrace::tui::Launch;
    let launch = Launch {
        at: Some("block1.attn.k".into()),
        ..Launch::default()
    };
    let cfg = preset::by_name("lesson").unwrap();
    let mut app =
        shapetrace::tui::app(cfg, launch, Given::default(), shapetrace::tui::theme::COLOR).unwrap();
    let at = app.cursor;
    app.open_split("lesson-gqa", &preset::by_name("lesson-gqa").unwrap())
        .unwrap();
    assert_eq!(app.cursor, at, "--at is kept");
    let s = app.split.as_ref().unwrap();
    assert_eq!(s.cmp.steps[s.row].path, "block1.attn.k");
}

#[test]
fn with_the_split_view_hidden_the_switches_act_on_the_model_shown() {
    let mut lp = split("lesson", "lesson");
    press(&mut lp, "b|p");
    assert_eq!(
        lp.app.cfg().norms.placement,
        Placement::Post,
        "the left, on screen"
    );
    let right = &lp.app.split.as_ref().unwrap().right.config;
    assert_eq!(
        right.norms.placement,
        Placement::Pre,
        "the hidden right untouched"
    );
}
