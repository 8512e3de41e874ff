//! Quiz mode: before a step whose shape differs from the step before it is
//! shown, the student types the predicted shape and is scored.

use super::{App, Row};
use crate::Shape;
use crate::shape::fmt_shape;
use crate::tui::action::Action;

/// Quiz state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quiz {
    /// The step whose shape is being asked for.
    pub asking: Option<usize>,
    /// What the student has typed so far.
    pub input: String,
    pub right: usize,
    pub asked: usize,
    /// The last step whose shape has been shown.
    pub revealed: usize,
    /// The verdict on the last answer: (right, message).
    pub feedback: Option<(bool, String)>,
    /// Why the typed text is not a shape, after Enter.
    pub invalid: Option<String>,
}

/// Parses `2,4,4,4` or `(2, 4, 4, 4)`.
#[must_use]
pub fn parse_shape(s: &str) -> Option<Shape> {
    let inner = s
        .trim()
        .trim_start_matches(['(', '['])
        .trim_end_matches([')', ']']);
    let dims: Option<Shape> = inner.split(',').map(|d| d.trim().parse().ok()).collect();
    dims.filter(|d| !d.is_empty())
}

impl App {
    /// Whether the shape of row `i` is hidden by the quiz.
    #[must_use]
    pub fn hidden(&self, i: usize) -> bool {
        self.quiz.as_ref().is_some_and(|q| i > q.revealed)
    }

    /// Whether the quiz asks before showing row `i`: its shape differs
    /// from the row before it.
    fn asks(&self, i: usize) -> bool {
        let ev = &self.run.trace.events;
        match (i.checked_sub(1).and_then(|p| ev.get(p)), ev.get(i)) {
            (Some(prev), Some(e)) => prev.shape != e.shape,
            _ => false,
        }
    }

    /// Moves the cursor to `target`; in quiz mode, stops before the first
    /// unrevealed step whose shape must be predicted.
    pub(super) fn goto(&mut self, target: usize) {
        let target = target.min(self.rows().saturating_sub(1));
        let Some(quiz) = &self.quiz else {
            self.cursor = target;
            return;
        };
        let mut revealed = quiz.revealed;
        let mut ask = None;
        while revealed < target {
            if self.asks(revealed + 1) {
                ask = Some(revealed + 1);
                break;
            }
            revealed += 1;
        }
        self.cursor = ask.map_or(target, |a| a - 1);
        if let Some(q) = &mut self.quiz {
            q.revealed = revealed;
            q.asking = ask;
        }
    }

    pub(super) fn toggle_quiz(&mut self) {
        if self.quiz.take().is_none() {
            self.quiz = Some(Quiz {
                revealed: self.cursor,
                ..Quiz::default()
            });
            self.status = Some("quiz on: predict each new shape before it is shown".into());
        } else {
            self.status = Some("quiz off".into());
        }
    }

    /// After a re-run the quiz goes on from the cursor.
    pub(super) fn quiz_rerun(&mut self) {
        if let Some(q) = &mut self.quiz {
            q.revealed = self.cursor;
            q.asking = None;
        }
    }

    pub(super) fn quiz_input(&mut self, action: Action) {
        let Some(q) = &mut self.quiz else { return };
        match action {
            Action::Char(c) => q.input.push(c),
            Action::Backspace => {
                q.input.pop();
            }
            Action::ClearInput => q.input.clear(),
            Action::Submit => match parse_shape(&q.input) {
                Some(guess) => self.reveal(Some(guess)),
                None => {
                    q.invalid = Some(format!(
                        "'{}' is not a shape: type numbers like 2,4,4,16",
                        q.input
                    ))
                }
            },
            Action::Cancel => self.reveal(None),
            _ => {}
        }
    }

    /// Shows the asked step; scores `guess` when there is one.
    fn reveal(&mut self, guess: Option<Shape>) {
        let Some(step) = self.quiz.as_ref().and_then(|q| q.asking) else {
            return;
        };
        let Some(Row::Event(e)) = self.row(step) else {
            return;
        };
        let (truth, path) = (e.shape.clone(), e.path.clone());
        let shown = fmt_shape(&truth);
        if let Some(q) = &mut self.quiz {
            q.asked += usize::from(guess.is_some());
            q.feedback = Some(match guess {
                Some(g) if g == truth => {
                    q.right += 1;
                    (true, format!("✓ right: {path} is {shown}"))
                }
                Some(g) => (
                    false,
                    format!("✗ you said {}; {path} is {shown}", fmt_shape(&g)),
                ),
                None => (false, format!("skipped: {path} is {shown}")),
            });
            q.revealed = step;
            q.asking = None;
            q.input.clear();
            q.invalid = None;
        }
        self.cursor = step;
    }
}
