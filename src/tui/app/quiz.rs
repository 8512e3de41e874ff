//! Quiz mode: before a step whose shape differs from the step before it is
//! shown, the student types the predicted shape and is scored. The judge is
//! [`crate::quiz`]; here are the turns: ask, follow up when the sizes fit
//! two axis orders, reveal with the step's why, keep score.

use super::{App, Row};
use crate::Shape;
use crate::quiz::{FollowUp, Question, Verdict, parse::parse};
use crate::shape::fmt_shape;
use crate::trace::Event;
use crate::tui::action::Action;

/// Quiz state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quiz {
    /// The step whose shape is being asked for.
    pub asking: Option<usize>,
    /// What the student has typed so far.
    pub input: String,
    /// Answers judged right so far.
    pub right: usize,
    /// Answers judged so far (skipped questions not counted).
    pub asked: usize,
    /// The last step whose shape has been shown.
    pub revealed: usize,
    /// The verdict on the last answer: (right, message).
    pub feedback: Option<(bool, String)>,
    /// Why the typed text is not a shape, after Enter.
    pub invalid: Option<String>,
    /// The question asked about an answer whose sizes fit two orders.
    pub follow_up: Option<FollowUp>,
    /// The revealed step's why, shown with the verdict.
    pub why: Option<String>,
    /// Steps shown without a question since the last one, e.g. `also
    /// shown: 2 steps that keep (2,4,64)`.
    pub also: Option<String>,
    /// How many steps were shown without a question since the last one.
    pub quiet: usize,
}

/// The why of a step, shown after every answer.
#[must_use]
pub fn why_of(e: &Event) -> String {
    // A log of schema 1 has no why: its formula stands in.
    match e.why_text() {
        "" => e.formula.clone(),
        why => why.to_string(),
    }
}

/// Parses `2,4,4,4` or `(2, 4, 4, 4)`: sizes alone.
#[must_use]
pub fn parse_shape(s: &str) -> Option<Shape> {
    let a = parse(s).ok()?;
    a.dims
        .iter()
        .map(|d| d.size.filter(|_| d.axis.is_none()))
        .collect()
}

impl App {
    /// Whether the shape of row `i` is hidden by the quiz.
    #[must_use]
    pub fn hidden(&self, i: usize) -> bool {
        match (self.quiz(), self.reveal()) {
            (Some(q), _) => i > q.revealed,
            (None, r) => r.is_some_and(|r| i > r),
        }
    }

    /// Whether reveal mode hides the step the cursor is on.
    pub(super) fn reveal_hides(&self) -> bool {
        self.reveal().is_some_and(|r| self.cursor > r)
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
    /// unrevealed step whose shape must be predicted, and says how many
    /// steps it showed on the way (their shape did not change).
    pub(super) fn goto(&mut self, target: usize) {
        let target = target.min(self.rows().saturating_sub(1));
        let Some(quiz) = self.quiz() else {
            self.cursor = target;
            return;
        };
        let from = quiz.revealed;
        let mut revealed = from;
        let mut ask = None;
        while revealed < target {
            if self.asks(revealed + 1) {
                ask = Some(revealed + 1);
                break;
            }
            revealed += 1;
        }
        let n = quiz.quiet + (revealed - from);
        let kept = self
            .run
            .trace
            .events
            .get(revealed)
            .map(|e| fmt_shape(&e.shape));
        let also = (n > 0).then(|| {
            self.tr(&crate::why::Why::new("ui-quiz-also")
                .arg("n", n)
                .arg("shape", kept.unwrap_or_default()))
        });
        let moved = ask.map_or(target, |a| a - 1) != self.cursor || ask.is_some();
        self.cursor = ask.map_or(target, |a| a - 1);
        if let Some(q) = self.quiz_mut() {
            q.revealed = revealed;
            q.asking = ask;
            if moved {
                (q.feedback, q.why) = (None, None);
                (q.quiet, q.also) = (n, also);
            }
        }
    }

    /// After a re-run the quiz goes on from the cursor.
    pub(super) fn quiz_rerun(&mut self) {
        let cursor = self.cursor;
        if let Some(q) = self.quiz_mut() {
            q.revealed = cursor;
            q.asking = None;
            q.follow_up = None;
        }
    }

    pub(super) fn quiz_input(&mut self, action: Action) {
        let Some(q) = self.quiz_mut() else { return };
        match action {
            Action::Char(c) => q.input.push(c),
            Action::Backspace => {
                q.input.pop();
            }
            Action::ClearInput => q.input.clear(),
            Action::Submit => self.answer(),
            Action::Cancel => self.show_answer(None),
            _ => {}
        }
    }

    /// Judges what was typed: a verdict, a follow-up, or why it is not an
    /// answer (the question stays open).
    fn answer(&mut self) {
        let Some(q) = self.quiz() else { return };
        let Some(Row::Event(e)) = q.asking.and_then(|i| self.row(i)) else {
            return;
        };
        let question = Question::of(e, &self.run.trace);
        let judged = match &q.follow_up {
            Some(f) => question
                .judge_follow_up(f, &q.input)
                .map_err(|err| err.to_string()),
            None => parse(&q.input)
                .map(|a| question.judge(&a))
                .map_err(|err| err.to_string()),
        };
        let Some(q) = self.quiz_mut() else { return };
        match judged {
            Ok(Verdict::Ask(f)) => {
                q.follow_up = Some(f);
                q.input.clear();
                q.invalid = None;
            }
            Ok(v) => self.show_answer(Some((v, question))),
            Err(msg) => q.invalid = Some(msg),
        }
    }

    /// Shows the asked step with its why; scores the verdict when there is
    /// one (none: skipped).
    fn show_answer(&mut self, verdict: Option<(Verdict, Question)>) {
        let Some(step) = self.quiz().and_then(|q| q.asking) else {
            return;
        };
        let Some(Row::Event(e)) = self.row(step) else {
            return;
        };
        let why = match e.why_text() {
            "" => why_of(e),
            stored => self.lang.step_why(e.why.as_ref(), stored).into_owned(),
        };
        let (path, shown) = (e.path.clone(), e.named_shape());
        let said = |key: &str| {
            self.tr(&crate::why::Why::new(key)
                .arg("path", path.as_str())
                .arg("shape", shown.as_str()))
        };
        let (right, skipped, is) = (
            said("ui-quiz-right"),
            said("ui-quiz-skipped"),
            said("ui-quiz-is"),
        );
        // A named mistake's meaning in the app's language; what differs
        // axis by axis stays the judge's English.
        let verdict = verdict.map(|(v, question)| match v {
            Verdict::Wrong(says) => {
                let named = question.mistakes.iter().find(|m| m.says == says);
                let says = named.map_or(says, |m| self.tr(&m.why));
                (Verdict::Wrong(says), question)
            }
            v => (v, question),
        });
        let lang = self.lang;
        if let Some(q) = self.quiz_mut() {
            q.asked += usize::from(verdict.is_some());
            q.feedback = Some(match verdict {
                Some((Verdict::Right, _)) => {
                    q.right += 1;
                    (true, right)
                }
                Some((Verdict::Wrong(says), question)) if says.ends_with(&question.shown) => {
                    (false, format!("✗ {says}"))
                }
                Some((Verdict::Wrong(says), _)) => {
                    let wrong = crate::why::Why::new("ui-quiz-wrong-is")
                        .arg("says", says)
                        .arg("is", is);
                    (false, lang.why(&wrong))
                }
                Some((Verdict::Ask(_), _)) | None => (false, skipped),
            });
            q.why = Some(why);
            (q.quiet, q.also) = (0, None);
            q.revealed = step;
            q.asking = None;
            q.follow_up = None;
            q.input.clear();
            q.invalid = None;
        }
        self.cursor = step;
    }
}
