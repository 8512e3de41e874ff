//! The quiz in the stepper, on the lesson model, driven through the real
//! event loop and drawn on a `TestBackend`: shapes judged by axis order
//! (h = T = 4 cannot fool it), the follow-up, the why after each answer,
//! the footer's hidden counts, and the Budget tab's count quiz.

mod common;

use common::{TestLoop, frame, settle};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use shapetrace::ModelConfig;
use shapetrace::tui::action::{Action, KeyMode};
use shapetrace::tui::app::{App, Given};
use shapetrace::tui::event_loop::Msg;

struct Stepper(TestLoop);

impl std::ops::Deref for Stepper {
    type Target = App;
    fn deref(&self) -> &App {
        &self.0.app
    }
}

impl Stepper {
    fn act(&mut self, action: Action) {
        self.0.app.update(action);
        settle(&mut self.0);
    }

    /// Types `text` as keys and presses Enter, through the event loop.
    fn answer(&mut self, text: &str) {
        let tx = self.0.sender();
        let key = |c| Event::Key(KeyEvent::new(c, KeyModifiers::NONE));
        for c in text.chars() {
            tx.send(Msg::Input(key(KeyCode::Char(c)))).unwrap();
        }
        tx.send(Msg::Input(key(KeyCode::Enter))).unwrap();
        settle(&mut self.0);
    }

    /// The loop's last frame.
    fn frame(&self) -> String {
        frame(&self.0)
    }

    fn feedback(&self) -> (bool, String) {
        self.quiz().unwrap().feedback.clone().unwrap()
    }
}

fn app() -> Stepper {
    Stepper(common::stepper(ModelConfig::default(), Given::default()))
}

/// The quiz on, asked for `block1.attn.q` (step 5).
fn at_q() -> Stepper {
    let mut a = app();
    a.act(Action::ToggleQuiz);
    a.act(Action::NextDeparture);
    assert_eq!(a.quiz().unwrap().asking, Some(5));
    assert_eq!(a.path(5), Some("block1.attn.q"));
    a
}

#[test]
fn b_t_h_hd_for_q_is_wrong_and_b_h_t_hd_is_right() {
    let mut a = at_q();
    a.answer("B,T,h,hd");
    let (ok, msg) = a.feedback();
    assert!(!ok, "{msg}");
    assert!(msg.contains("before the transpose"), "{msg}");
    let q = a.quiz().unwrap();
    assert_eq!((q.right, q.asked, a.cursor), (0, 1, 5));
    assert!(a.frame().contains("before the transpose"), "on screen");
    insta::assert_snapshot!("wrong_order_verdict", a.frame());

    let mut a = at_q();
    a.answer("B,h,T,hd");
    assert!(a.feedback().0, "{}", a.feedback().1);
    let q = a.quiz().unwrap();
    assert_eq!((q.right, q.asked), (1, 1));
    // The why follows every answer, right or wrong.
    let why = q.why.clone().unwrap();
    assert_eq!(why, a.run.trace.get("block1.attn.q").unwrap().why_text());
    assert!(why.contains("64 = 4 heads × 16"), "{why}");
    assert!(a.frame().contains("why: "), "{}", a.frame());
}

#[test]
fn sizes_alone_get_a_follow_up_before_any_verdict() {
    let mut a = at_q();
    a.answer("2,4,4,16");
    let q = a.quiz().unwrap();
    assert_eq!(q.asking, Some(5), "not judged yet");
    assert_eq!((q.asked, q.feedback.clone()), (0, None));
    assert!(q.follow_up.is_some());
    assert_eq!(a.key_mode(), KeyMode::Typing);
    insta::assert_snapshot!(a.frame());
    a.answer("3");
    let (ok, msg) = a.feedback();
    assert!(!ok && msg.contains("before the transpose"), "{msg}");

    let mut a = at_q();
    a.answer("2,4,4,16");
    a.answer("2");
    assert!(a.feedback().0, "{}", a.feedback().1);
}

#[test]
fn the_scores_as_the_stream_shape_are_named_and_unchanged_steps_are_said() {
    let mut a = at_q();
    a.answer("B,h,T,hd");
    // k and v keep q's shape: shown without a question, and said so.
    a.act(Action::Next);
    a.act(Action::Next);
    a.act(Action::Next);
    let q = a.quiz().unwrap();
    assert_eq!(q.asking, Some(8));
    assert_eq!(
        q.also.as_deref(),
        Some("also shown: 2 steps that keep (2,4,4,16)")
    );
    assert!(a.frame().contains("also shown: 2 steps"), "{}", a.frame());
    a.answer("2,4,64");
    let (ok, msg) = a.feedback();
    assert!(!ok && msg.contains("is the stream shape"), "{msg}");
    assert!(msg.contains("(B,h,Tq,Tk)"), "{msg}");
    // A skip shows the shape and the why too, and scores nothing.
    a.act(Action::Next);
    a.act(Action::Next);
    a.act(Action::Cancel);
    let q = a.quiz().unwrap();
    assert!(q.feedback.as_ref().unwrap().1.starts_with("skipped"));
    assert!(q.why.is_some());
    assert_eq!((q.right, q.asked), (1, 2));
}

#[test]
fn the_footer_hides_the_counts_in_the_quiz_and_leaving_gives_the_score() {
    let mut a = app();
    assert!(a.frame().contains("16 departures"));
    a.act(Action::ToggleQuiz);
    let s = a.frame();
    assert!(
        !s.contains("16 departures") && !s.contains("4 returns"),
        "{s}"
    );
    assert!(s.contains("◆ ↩ hidden"), "{s}");
    a.act(Action::NextDeparture);
    a.answer("B,h,T,hd");
    a.act(Action::ToggleQuiz);
    assert_eq!(a.status.as_deref(), Some("quiz off: 1 of 1 right"));
    let s = a.frame();
    assert!(
        s.contains("16 departures") && s.contains("quiz off: 1 of 1 right"),
        "{s}"
    );
}

fn budget_quiz() -> Stepper {
    let mut a = app();
    while a.t(a.tab.key()) != "Budget" {
        a.act(Action::NextTab);
    }
    a.act(Action::ToggleQuiz);
    assert_eq!(a.key_mode(), KeyMode::Typing);
    a
}

#[test]
fn the_budget_quiz_names_the_mistakes_behind_16384_and_49152() {
    let mut a = budget_quiz();
    // The row asked about is hidden until answered.
    let s = a.frame();
    assert!(!s.contains("32,768"), "{s}");
    let ratio = s.lines().find(|l| l.contains("FFN : attention")).unwrap();
    assert!(ratio.contains('?'), "the ratio would give it away: {ratio}");
    assert!(s.contains("how many MLP weights"), "{s}");
    a.answer("16,384");
    let (ok, msg) = a.count_quiz().unwrap().feedback.clone().unwrap();
    assert!(!ok && msg.contains("only W1"), "{msg}");
    assert!(a.frame().contains("only W1"));
    insta::assert_snapshot!("budget_quiz_only_w1", a.frame());
    // Next: SwiGLU at the matched width; 49,152 keeps d_ff at 256.
    a.act(Action::Next);
    a.answer("49,152");
    let (ok, msg) = a.count_quiz().unwrap().feedback.clone().unwrap();
    assert!(!ok && msg.contains("SwiGLU kept at d_ff = 256"), "{msg}");
    a.act(Action::Next);
    a.answer("16.4k");
    let q = a.count_quiz().cloned().unwrap();
    assert!(q.invalid.unwrap().contains("not an exact count"));
    assert!(q.asking, "a malformed count keeps the question open");
    // Leaving gives the score.
    a.act(Action::Cancel);
    a.act(Action::ToggleQuiz);
    assert_eq!(a.status.as_deref(), Some("budget quiz off: 0 of 2 right"));
}

#[test]
fn the_budget_quiz_counts_from_the_budget_and_scores_right_answers() {
    let mut a = budget_quiz();
    let truth = a.labs.budget.as_ref().unwrap().ours.block.mlp_weights;
    a.answer(&shapetrace::budget::thousands(truth));
    let q = a.count_quiz().cloned().unwrap();
    assert!(q.feedback.unwrap().0);
    assert_eq!((q.right, q.asked), (1, 1));
    assert!(a.frame().contains("✓ right"), "{}", a.frame());
}
