//! How the modes stack: the help over the quiz, Esc out of each overlay,
//! a key that means nothing in a mode, presenter mode over the split view.

use super::*;
use crate::tui::action::map_key;
use crate::tui::app::{Autoplay, Given};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn app() -> App {
    let cfg = crate::config::preset::by_name("lesson").unwrap();
    App::open_given(cfg, Given::default(), crate::tui::theme::COLOR).unwrap()
}

/// Presses `code` as the event loop would: mapped in the app's key mode.
fn press(a: &mut App, code: KeyCode) {
    if let Some(action) = map_key(KeyEvent::new(code, KeyModifiers::NONE), a.key_mode()) {
        a.update(action);
    }
}

#[test]
fn the_help_opens_over_the_quiz_and_gives_it_back() {
    let mut a = app();
    press(&mut a, KeyCode::Char('z'));
    press(&mut a, KeyCode::Char('n'));
    let asking = a.quiz().and_then(|q| q.asking);
    assert!(asking.is_some(), "the quiz asks at the first departure");
    assert_eq!(a.key_mode(), KeyMode::Typing);
    // `?` is typed into the answer while a question is open: Esc skips it.
    press(&mut a, KeyCode::Esc);
    assert!(
        a.quiz()
            .is_some_and(|q| q.asking.is_none() && q.feedback.is_some())
    );
    press(&mut a, KeyCode::Char('?'));
    assert_eq!(a.key_mode(), KeyMode::Help);
    assert!(a.quiz().is_some(), "the quiz stays under the help");
    let (cursor, quiz) = (a.cursor, a.quiz().cloned());
    // Under the help the step keys move nothing, ↓ scrolls it.
    press(&mut a, KeyCode::Char('n'));
    press(&mut a, KeyCode::Right);
    press(&mut a, KeyCode::Down);
    assert_eq!((a.cursor, a.quiz().cloned()), (cursor, quiz.clone()));
    assert_eq!(a.overlay.help(), Some(1));
    // Esc closes the help (it does not quit), and the quiz is back as it was.
    press(&mut a, KeyCode::Esc);
    assert!(!a.quit);
    assert_eq!(a.overlay, Overlay::Quiz(quiz.unwrap()));
    // Esc with no overlay quits.
    press(&mut a, KeyCode::Esc);
    assert!(a.quit);
}

#[test]
fn one_exercise_at_a_time_the_other_key_says_how_to_end_it() {
    let mut a = app();
    press(&mut a, KeyCode::Char('o'));
    assert_eq!(a.reveal(), Some(0));
    press(&mut a, KeyCode::Char('z'));
    assert_eq!(a.reveal(), Some(0), "z leaves reveal mode on");
    assert!(a.quiz().is_none());
    assert_eq!(
        a.status.as_deref(),
        Some("reveal mode is on: o ends it first")
    );
    // The step key shows the hidden step, then moves.
    press(&mut a, KeyCode::Right);
    assert_eq!((a.cursor, a.reveal()), (1, Some(0)));
    press(&mut a, KeyCode::Right);
    assert_eq!((a.cursor, a.reveal()), (1, Some(1)));
    press(&mut a, KeyCode::Char('o'));
    assert_eq!(a.overlay, Overlay::None);
    press(&mut a, KeyCode::Char('z'));
    press(&mut a, KeyCode::Char('o'));
    assert!(a.quiz().is_some() && a.reveal().is_none());
    assert_eq!(a.status.as_deref(), Some("the quiz is on: z ends it first"));
    // Without a second model, | says how to get one.
    press(&mut a, KeyCode::Char('|'));
    assert!(a.status.as_deref().unwrap().contains("--compare"));
}

#[test]
fn the_count_quiz_belongs_to_the_budget_tab() {
    let mut a = app();
    while a.tab != Tab::Budget {
        press(&mut a, KeyCode::Tab);
    }
    let field = a.labs.budget.as_ref().map(|l| l.field);
    press(&mut a, KeyCode::Char('z'));
    assert!(a.count_quiz().is_some_and(|q| q.asking));
    assert_eq!(a.key_mode(), KeyMode::Typing);
    press(&mut a, KeyCode::Esc);
    // A verdict is shown: ↓ would pick another field, but the quiz holds
    // the model as asked about and takes → and ↓ for its next question.
    press(&mut a, KeyCode::Up);
    assert_eq!(a.labs.budget.as_ref().map(|l| l.field), field);
    press(&mut a, KeyCode::Down);
    assert!(a.count_quiz().is_some_and(|q| q.at == 1 && q.asking));
    press(&mut a, KeyCode::Esc);
    // Leaving the tab ends it.
    press(&mut a, KeyCode::Tab);
    assert!(a.count_quiz().is_none() && a.overlay == Overlay::None);
    // So does a new model (a switch's trace landing).
    press(&mut a, KeyCode::BackTab);
    press(&mut a, KeyCode::Char('z'));
    assert!(a.count_quiz().is_some());
    a.generation += 1;
    a.settle();
    assert!(a.count_quiz().is_none());
}

#[test]
fn presenter_mode_over_the_split_view_gives_it_back() {
    let mut a = app();
    let right = crate::config::preset::by_name("lesson-post-ln").unwrap();
    a.open_split("lesson-post-ln", &right).unwrap();
    assert!(a.split_shown());
    press(&mut a, KeyCode::Char('P'));
    assert!(a.presenting() && !a.split_shown());
    press(&mut a, KeyCode::Char('P'));
    assert_eq!(a.showing, Showing::Split);
    // | in presenter mode: the left model alone after it.
    press(&mut a, KeyCode::Char('P'));
    press(&mut a, KeyCode::Char('|'));
    press(&mut a, KeyCode::Char('P'));
    assert_eq!(a.showing, Showing::Tabs);
}

#[test]
fn autoplay_waits_behind_the_help() {
    let mut a = app();
    a.showing = Showing::Presenter { split: false };
    a.autoplay = Some(Autoplay {
        every: std::time::Duration::from_secs(1),
        paused: false,
    });
    a.update(Action::Tick);
    assert_eq!(a.cursor, 1);
    press(&mut a, KeyCode::Char('?'));
    a.update(Action::Tick);
    assert_eq!(a.cursor, 1, "the help holds autoplay");
    press(&mut a, KeyCode::Char('?'));
    // Space pauses under autoplay instead of stepping.
    press(&mut a, KeyCode::Char(' '));
    a.update(Action::Tick);
    assert_eq!((a.cursor, a.autoplay.map(|p| p.paused)), (1, Some(true)));
}
