//! Each overlay's key handler: the help's, the quiz's, reveal mode's and
//! the count quiz's; each takes its own keys and passes the rest on. And
//! how the quizzes start and end.

use super::{App, Overlay, Quiz, Tab};
use crate::tui::action::Action;
use crate::tui::app::labs::CountQuiz;
use crate::why::Why;

impl App {
    /// The help: `?` Esc Enter close it, ↓↑ scroll it, `q` quits; nothing
    /// else reaches under it, not even autoplay's tick.
    pub(super) fn help_keys(&mut self, action: Action) -> Option<Action> {
        let Overlay::Help { at, .. } = &mut self.overlay else {
            return Some(action);
        };
        match action {
            Action::ToggleHelp => {
                let help = std::mem::replace(&mut self.overlay, Overlay::None);
                if let Overlay::Help { under, .. } = help {
                    self.overlay = *under;
                }
            }
            Action::Down => *at = (*at + 1).min(crate::tui::action::keys::listed().count()),
            Action::Up => *at = at.saturating_sub(1),
            Action::Quit => return Some(action),
            _ => {}
        }
        None
    }

    /// The quiz: typing answers the open question, `z` ends it; reveal
    /// mode and the split view wait until it ends.
    pub(super) fn quiz_keys(&mut self, action: Action) -> Option<Action> {
        use Action as A;
        let asking = self.quiz().is_some_and(|q| q.asking.is_some());
        match action {
            A::Char(_) | A::Backspace | A::ClearInput | A::Submit | A::Cancel if asking => {
                self.quiz_input(action);
            }
            A::ToggleQuiz => self.end_quiz(),
            A::ToggleReveal => self.status = Some(self.t("ui-status-quiz-first")),
            A::ToggleSplit if self.split.is_some() => {
                self.status = Some(self.t("ui-split-quiz-first"));
            }
            _ => return Some(action),
        }
        None
    }

    /// Reveal mode: the step key shows a hidden step before moving on,
    /// `o` ends it; the quiz and the split view wait until it ends.
    pub(super) fn reveal_keys(&mut self, action: Action) -> Option<Action> {
        use Action as A;
        match action {
            A::ToggleReveal => {
                self.overlay = Overlay::None;
                self.status = Some(self.t("ui-status-reveal-off"));
            }
            A::ToggleQuiz => self.status = Some(self.t("ui-status-reveal-first")),
            A::ToggleSplit if self.split.is_some() => {
                self.status = Some(self.t("ui-split-quiz-first"));
            }
            A::Next if self.reveal_hides() && self.steps_move() => {
                self.overlay = Overlay::Reveal(self.cursor);
            }
            _ => return Some(action),
        }
        None
    }

    /// The count quiz: typing answers, → goes to the next question, `z`
    /// ends it; the lab's own keys wait, so the model asked about stays.
    pub(super) fn count_quiz_keys(&mut self, action: Action) -> Option<Action> {
        use Action as A;
        let Overlay::CountQuiz(q) = &mut self.overlay else {
            return Some(action);
        };
        match action {
            A::Char(_)
            | A::Backspace
            | A::ClearInput
            | A::Submit
            | A::Cancel
            | A::Next
            | A::Down => q.update(action),
            A::ToggleQuiz => self.end_count_quiz(),
            A::ToggleReveal => self.status = Some(self.t("ui-status-count-quiz-first")),
            A::Prev | A::Up | A::First | A::Last | A::Edit | A::PageUp | A::PageDown => {}
            _ => return Some(action),
        }
        None
    }

    /// Starts the quiz, or on the Budget tab its count quiz.
    pub(super) fn start_quiz(&mut self) {
        if self.tab == Tab::Budget && !self.presenting() {
            if let Some(lab) = &self.labs.budget {
                self.overlay = Overlay::CountQuiz(CountQuiz::of(lab));
                self.status = Some(self.t("ui-status-count-quiz-on"));
            }
            return;
        }
        self.overlay = Overlay::Quiz(Quiz {
            revealed: self.cursor,
            ..Quiz::default()
        });
        self.status = Some(self.t("ui-status-quiz-on"));
    }

    fn end_quiz(&mut self) {
        if let Overlay::Quiz(q) = std::mem::replace(&mut self.overlay, Overlay::None) {
            let off = Why::new("ui-status-quiz-off")
                .arg("right", q.right)
                .arg("asked", q.asked);
            self.status = Some(self.tr(&off));
        }
    }

    fn end_count_quiz(&mut self) {
        if let Overlay::CountQuiz(q) = std::mem::replace(&mut self.overlay, Overlay::None) {
            let off = Why::new("ui-status-count-quiz-off")
                .arg("right", q.right)
                .arg("asked", q.asked);
            self.status = Some(self.tr(&off));
        }
    }
}
