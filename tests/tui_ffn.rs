//! The FFN tab of the stepper: lesson 5.3's lab with its keys — `x` makes
//! one of the lesson's hand-computation mistakes, `s` switches to the gated
//! MLP (SwiGLU) — drawn on an 80×24 `TestBackend` and snapshotted as text.

mod common;

use common::{TestLoop, frame, settle};
use ndarray::array;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use shapetrace::ModelConfig;
use shapetrace::lesson::by_hand::Mistake;
use shapetrace::lesson::gated_ffn;
use shapetrace::tui::action::{Action, KeyMode, map_key};
use shapetrace::tui::app::Given;

fn act(lp: &mut TestLoop, action: Action) {
    lp.app.update(action);
    settle(lp);
}

/// The stepper on the lesson model, on the FFN tab.
fn ffn_tab() -> TestLoop {
    let mut lp = common::stepper(ModelConfig::default(), Given::default());
    while lp.app.t(lp.app.tab.key()) != "FFN" {
        act(&mut lp, Action::NextTab);
    }
    lp
}

fn key(c: char, mode: KeyMode) -> Option<Action> {
    map_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), mode)
}

#[test]
fn x_and_s_switch_the_mistake_and_the_variant_and_are_typed_in_a_prompt() {
    assert_eq!(key('x', KeyMode::Normal), Some(Action::CycleMistake));
    assert_eq!(key('s', KeyMode::Normal), Some(Action::ToggleGated));
    // While x is typed they are characters, not switches.
    assert_eq!(key('x', KeyMode::Typing), Some(Action::Char('x')));
    assert_eq!(key('s', KeyMode::Typing), Some(Action::Char('s')));
    let mut lp = ffn_tab();
    let mistakes: Vec<Mistake> = (0..3)
        .map(|_| {
            act(&mut lp, Action::CycleMistake);
            lp.app.labs.ffn.ex.mistake
        })
        .collect();
    assert_eq!(
        mistakes,
        [Mistake::Rows, Mistake::ReluAfterW2, Mistake::None]
    );
    // On the Steps tab the keys leave the lab alone.
    act(&mut lp, Action::PrevTab);
    act(&mut lp, Action::PrevTab);
    act(&mut lp, Action::CycleMistake);
    assert_eq!(lp.app.labs.ffn.ex.mistake, Mistake::None);
}

#[test]
fn rows_mistake_on_the_lesson_w1_cannot_pair_its_products() {
    let mut lp = ffn_tab();
    act(&mut lp, Action::CycleMistake);
    let s = frame(&lp);
    assert!(
        s.contains("✗ mistake on: rows") && s.contains("do not pair up"),
        "{s}"
    );
    assert_eq!(lp.app.labs.ffn.shown, 0);
    act(&mut lp, Action::Next); // nothing to step through: no panic, no step
    assert_eq!(lp.app.labs.ffn.shown, 0);
}

#[test]
fn gated_switch_computes_silu_gate_times_up_then_down() {
    let mut lp = ffn_tab();
    act(&mut lp, Action::ToggleGated);
    let ex = lp.app.labs.ffn.ex.clone();
    let wu = ex.wu.clone().expect("gated has Wu");
    let m =
        |w: &[Vec<f64>]| ndarray::Array2::from_shape_fn((w.len(), w[0].len()), |(i, j)| w[i][j]);
    let y = gated_ffn(&array![[1., 2.]], &m(&ex.w1), &m(&wu), &m(&ex.w2)).unwrap();
    assert_eq!(ex.y, y.row(0).to_vec());
    act(&mut lp, Action::Last);
    let s = frame(&lp);
    assert!(
        s.contains("gated (SwiGLU)") && s.contains("u = x·Wu"),
        "{s}"
    );
    act(&mut lp, Action::ToggleGated);
    assert!(lp.app.labs.ffn.ex.wu.is_none());
}

#[test]
fn snapshot_ffn_tab_with_relu_after_w2() {
    let mut lp = ffn_tab();
    act(&mut lp, Action::Edit);
    for _ in 0..3 {
        act(&mut lp, Action::Backspace);
    }
    for c in "2,-1".chars() {
        act(&mut lp, Action::Char(c));
    }
    act(&mut lp, Action::Submit);
    act(&mut lp, Action::CycleMistake);
    act(&mut lp, Action::CycleMistake);
    act(&mut lp, Action::Last);
    // relu(x·W1·W2) against relu(x·W1)·W2, computed here.
    let (x, w1, w2) = (
        array![[2., -1.]],
        array![[1., 0., -1.], [0., 2., 1.]],
        array![[1., 0.], [0., 1.], [-1., 1.]],
    );
    let wrong = x.dot(&w1).dot(&w2).mapv(|v: f64| v.max(0.0));
    let right = x.dot(&w1).mapv(|v: f64| v.max(0.0)).dot(&w2);
    assert_ne!(wrong, right);
    assert_eq!(lp.app.labs.ffn.ex.y, wrong.row(0).to_vec());
    let s = frame(&lp);
    let fmt = |v: ndarray::ArrayView1<f64>| {
        let p: Vec<String> = v.iter().map(ToString::to_string).collect();
        format!("[{}]", p.join(", "))
    };
    for want in [
        format!("y = {}", fmt(wrong.row(0))),
        format!("(correct {})", fmt(right.row(0))),
        "✗ mistake on: relu-after-w2".into(),
        "✗ act(y)".into(),
    ] {
        assert!(s.contains(&want), "{want} not in\n{s}");
    }
    insta::assert_snapshot!(s);
}

/// Opens `e`, clears the prompt and types `text`, then Enter.
fn type_in(lp: &mut TestLoop, text: &str) {
    act(lp, Action::Edit);
    act(lp, Action::ClearInput);
    for c in text.chars() {
        act(lp, Action::Char(c));
    }
    act(lp, Action::Submit);
}

#[test]
fn e_takes_sizes_and_matrices_and_refuses_bad_ones_in_the_prompt() {
    let mut lp = ffn_tab();
    type_in(&mut lp, "d=4 f=8");
    let ex = &lp.app.labs.ffn.ex;
    assert_eq!(
        (ex.x.len(), ex.w1[0].len(), ex.steps.len()),
        (4, 8, 8 + 8 + 4 + 4)
    );
    act(&mut lp, Action::Last);
    let s = frame(&lp);
    assert!(s.contains("d = 4 → 8 → 4") && s.contains("▶ out_4"), "{s}");
    type_in(&mut lp, "x=1,-2 w1=1,1;0,-1 w2=1;1");
    assert_eq!(lp.app.labs.ffn.ex.y, [4.0]);
    act(&mut lp, Action::Last);
    let s = frame(&lp);
    assert!(s.contains("y = [4]") && s.contains("(2) + (1)"), "{s}");
    // A bad size keeps the prompt open with the reason; the lab is unchanged.
    type_in(&mut lp, "d=17");
    let err = lp.app.labs.editing.as_ref().and_then(|e| e.error.clone());
    assert!(
        err.as_deref()
            .is_some_and(|e| e.contains("d = 17") && e.contains("1 to 16")),
        "{err:?}"
    );
    act(&mut lp, Action::Cancel);
    assert_eq!(lp.app.labs.ffn.ex.y, [4.0]);
    type_in(&mut lp, "q=1");
    let err = lp.app.labs.editing.as_ref().and_then(|e| e.error.clone());
    assert!(err.as_deref().is_some_and(|e| e.contains("'q'")), "{err:?}");
}

/// With the rows mistake on (d = f, so its products pair up), the steps
/// the mistake is made in, x against each row of W1, are marked ✗ once
/// done, never ✓; the steps after them, computed right from the wrong z,
/// keep ✓.
#[test]
fn the_rows_mistake_marks_its_products_wrong() {
    let mut lp = ffn_tab();
    type_in(&mut lp, "d=2 f=2 x=1,2 w1=1,0;2,1 w2=1,0;0,1");
    act(&mut lp, Action::CycleMistake);
    assert_eq!(lp.app.labs.ffn.ex.mistake, Mistake::Rows);
    act(&mut lp, Action::Last);
    let s = frame(&lp);
    let line = |name: &str| {
        s.lines()
            .find(|l| l.contains(&format!("{name} =")))
            .unwrap_or_else(|| panic!("no {name}:\n{s}"))
            .to_string()
    };
    for z in ["z_1", "z_2"] {
        let l = line(z);
        assert!(
            l.contains(&format!("✗ {z}")) && !l.contains('✓'),
            "{l}\n{s}"
        );
    }
    assert!(line("h_1").contains("✓ h_1"), "{s}");
    // Computed right, the same products are ✓.
    act(&mut lp, Action::CycleMistake);
    act(&mut lp, Action::CycleMistake);
    act(&mut lp, Action::Last);
    let s = frame(&lp);
    assert!(
        s.lines().any(|l| l.contains("✓ z_1 =")) && !s.contains("✗ z_"),
        "{s}"
    );
}
