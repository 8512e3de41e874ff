//! The Budget tab's quiz: `z` asks for one row of the table at a time;
//! Enter answers, Esc skips, → goes on. The judge is
//! [`crate::quiz::count`]; every number comes from the budget code.

use super::BudgetLab;
use crate::quiz::count::{CountQuestion, CountVerdict, questions};
use crate::tui::action::Action;
use crate::why::Why;

/// The Budget tab's quiz: one row of the table at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct CountQuiz {
    /// The generation of the stepper's model the lab was made for: a new
    /// model ends the quiz.
    pub of: u64,
    /// The questions, in the order asked.
    pub questions: Vec<CountQuestion>,
    /// The question shown, from 0.
    pub at: usize,
    /// Whether it waits for an answer (else its verdict is shown).
    pub asking: bool,
    /// What has been typed so far.
    pub input: String,
    /// Answers judged right so far.
    pub right: usize,
    /// Answers judged so far (skipped questions not counted).
    pub asked: usize,
    /// The verdict on the last answer: (right, message).
    pub feedback: Option<(bool, String)>,
    /// The same verdict as a catalog message, for the stepper's other
    /// languages (its English is `feedback`'s).
    pub feedback_why: Option<crate::why::Why>,
    /// Why the typed text is not a count.
    pub invalid: Option<String>,
}

impl CountQuiz {
    /// The question shown.
    #[must_use]
    pub fn question(&self) -> Option<&CountQuestion> {
        self.questions.get(self.at)
    }

    /// Whether it is over: every question answered or skipped.
    #[must_use]
    pub fn done(&self) -> bool {
        self.at >= self.questions.len()
    }

    /// While on, the lab's keys go here: typing, Enter, Esc (skip), and
    /// → for the next question once a verdict is shown.
    pub(crate) fn update(&mut self, action: Action) {
        if !self.asking {
            if matches!(action, Action::Next | Action::Down) && !self.done() {
                self.at += 1;
                self.asking = !self.done();
                self.feedback = None;
                self.feedback_why = None;
            }
            return;
        }
        match action {
            Action::Char(c) => self.input.push(c),
            Action::Backspace => {
                self.input.pop();
            }
            Action::ClearInput => self.input.clear(),
            Action::Cancel => self.settle(None),
            Action::Submit => match self.question().map(|q| q.judge(&self.input)) {
                Some(Ok(v)) => self.settle(Some(v)),
                Some(Err(e)) => self.invalid = Some(e.to_string()),
                None => {}
            },
            _ => {}
        }
    }

    fn settle(&mut self, verdict: Option<CountVerdict>) {
        let Some(q) = self.question() else { return };
        let truth = format!("{} = {}", q.formula, q.truth);
        if let Some(v) = &verdict {
            self.asked += 1;
            self.right += usize::from(*v == CountVerdict::Right);
        }
        let (ok, why) = match verdict {
            Some(CountVerdict::Right) => {
                (true, Why::new("lab-budget-quiz-right").arg("truth", truth))
            }
            Some(CountVerdict::Wrong(says)) => {
                (false, Why::new("lab-budget-quiz-wrong").arg("says", says))
            }
            None => (
                false,
                Why::new("lab-budget-quiz-skipped").arg("truth", truth),
            ),
        };
        self.feedback = Some((ok, why.text()));
        self.feedback_why = Some(why);
        self.asking = false;
        self.input.clear();
        self.invalid = None;
    }
}

impl CountQuiz {
    /// The quiz on `lab`'s model and GPT-2 small's, at its first question.
    #[must_use]
    pub fn of(lab: &BudgetLab) -> Self {
        CountQuiz {
            of: lab.of,
            questions: questions(&lab.ours, &lab.gpt2),
            at: 0,
            asking: true,
            input: String::new(),
            right: 0,
            asked: 0,
            feedback: None,
            feedback_why: None,
            invalid: None,
        }
    }
}
