//! The Budget tab's quiz: `z` asks for one row of the table at a time;
//! Enter answers, Esc skips, → goes on. The judge is
//! [`crate::quiz::count`]; every number comes from the budget code.

use super::BudgetLab;
use crate::i18n::Lang;
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
    /// The verdict on the last answer: (right, message), in English
    /// ([`CountQuiz::feedback_in`] in another language).
    pub feedback: Option<(bool, String)>,
    /// The last question settled and its verdict (none: skipped).
    pub settled: Option<(usize, Option<CountVerdict>)>,
    /// Why the typed text is not a count, in English.
    pub invalid: Option<String>,
    /// The same, a catalog message for the stepper's languages.
    pub invalid_why: Option<Why>,
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
                self.settled = None;
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
                Some(Err(e)) => {
                    self.invalid = Some(e.to_string());
                    self.invalid_why = Some(e.why());
                }
                None => {}
            },
            _ => {}
        }
    }

    fn settle(&mut self, verdict: Option<CountVerdict>) {
        if self.question().is_none() {
            return;
        }
        if let Some(v) = &verdict {
            self.asked += 1;
            self.right += usize::from(*v == CountVerdict::Right);
        }
        self.settled = Some((self.at, verdict));
        self.feedback = self.feedback_in(Lang::En);
        self.asking = false;
        self.input.clear();
        self.invalid = None;
        self.invalid_why = None;
    }
}

impl CountQuiz {
    /// The verdict on the last answer, in `lang`: (right, message).
    #[must_use]
    pub fn feedback_in(&self, lang: Lang) -> Option<(bool, String)> {
        let (at, verdict) = self.settled.as_ref()?;
        let q = self.questions.get(*at)?;
        let truth = q.truth_in(lang);
        let (ok, why) = match verdict {
            Some(CountVerdict::Right) => {
                (true, Why::new("lab-budget-quiz-right").arg("truth", truth))
            }
            Some(CountVerdict::Wrong(w)) => (
                false,
                Why::new("lab-budget-quiz-wrong").arg("says", q.said(w, lang)),
            ),
            None => (
                false,
                Why::new("lab-budget-quiz-skipped").arg("truth", truth),
            ),
        };
        Some((ok, lang.why(&why)))
    }

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
            settled: None,
            invalid: None,
            invalid_why: None,
        }
    }
}
