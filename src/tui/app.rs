//! The app state and `update(&mut App, Action)`: every change of state
//! goes through [`App::update`], so tests drive the app with actions alone.

use super::action::{Action, KeyMode};
use super::theme::Theme;
use crate::config::{Act, Fault, ModelConfig, NormKind, Placement};
use crate::trace::{Event, Failure};
use crate::{Options, Run, Shape};
use std::time::Duration;

/// The tabs, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The step list, diagram and detail.
    Steps,
    /// Every check with its verdict and detail.
    Checks,
}

impl Tab {
    pub const ALL: [Tab; 2] = [Tab::Steps, Tab::Checks];

    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Tab::Steps => "Steps",
            Tab::Checks => "Checks",
        }
    }
}

/// Quiz state: the student predicts each shape before it is shown.
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

/// Automatic stepping for presenter mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Autoplay {
    pub every: Duration,
    pub paused: bool,
}

/// A row of the step list.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    Event(&'a Event),
    /// The step where the forward stopped.
    Failure(&'a Failure),
}

/// Everything the UI shows.
#[derive(Debug, Clone)]
pub struct App {
    pub cfg: ModelConfig,
    pub run: Run,
    pub cursor: usize,
    pub tab: Tab,
    pub help: bool,
    pub quiz: Option<Quiz>,
    pub present: bool,
    pub autoplay: Option<Autoplay>,
    /// The head shown in 4-D heatmaps.
    pub head: usize,
    pub theme: Theme,
    /// The last thing that happened, e.g. `activation → relu`.
    pub status: Option<String>,
    pub quit: bool,
}

/// Parses `2,4,4,4` or `(2, 4, 4, 4)`.
#[must_use]
pub fn parse_shape(s: &str) -> Option<Shape> {
    let inner = s.trim().trim_start_matches('(').trim_end_matches(')');
    let dims: Option<Shape> = inner.split(',').map(|d| d.trim().parse().ok()).collect();
    dims.filter(|d| !d.is_empty())
}

const PAGE: usize = 10;

impl App {
    /// Traces `cfg` and opens on its first step.
    ///
    /// # Errors
    /// When `cfg` is invalid.
    pub fn new(cfg: ModelConfig, theme: Theme) -> Result<Self, crate::Error> {
        let run = Self::trace(&cfg)?;
        Ok(Self {
            cfg,
            run,
            cursor: 0,
            tab: Tab::Steps,
            help: false,
            quiz: None,
            present: false,
            autoplay: None,
            head: 0,
            theme,
            status: None,
            quit: false,
        })
    }

    fn trace(cfg: &ModelConfig) -> Result<Run, crate::Error> {
        crate::run_with(
            cfg,
            Options {
                shape_only: false,
                values: true,
            },
        )
    }

    /// Number of rows: the events, and the failure if the forward stopped.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.run.trace.events.len() + usize::from(self.run.trace.failure.is_some())
    }

    /// The row at `i`.
    #[must_use]
    pub fn row(&self, i: usize) -> Option<Row<'_>> {
        let t = &self.run.trace;
        t.events.get(i).map(Row::Event).or_else(|| {
            (i == t.events.len())
                .then_some(())
                .and(t.failure.as_ref())
                .map(Row::Failure)
        })
    }

    /// The path of row `i`.
    #[must_use]
    pub fn path(&self, i: usize) -> Option<&str> {
        match self.row(i)? {
            Row::Event(e) => Some(&e.path),
            Row::Failure(f) => Some(&f.path),
        }
    }

    /// Which keys are live now.
    #[must_use]
    pub fn key_mode(&self) -> KeyMode {
        if self.quiz.as_ref().is_some_and(|q| q.asking.is_some()) {
            KeyMode::QuizInput
        } else if self.help {
            KeyMode::Help
        } else if self.autoplay.is_some() {
            KeyMode::Autoplay
        } else {
            KeyMode::Normal
        }
    }

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
    fn goto(&mut self, target: usize) {
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

    fn find(&self, from: usize, forward: bool, pred: impl Fn(&Event) -> bool) -> Option<usize> {
        let ev = &self.run.trace.events;
        if forward {
            (from + 1..ev.len()).find(|&i| pred(&ev[i]))
        } else {
            (0..from.min(ev.len())).rev().find(|&i| pred(&ev[i]))
        }
    }

    /// Applies one action.
    pub fn update(&mut self, action: Action) {
        use Action as A;
        match action {
            A::Quit => self.quit = true,
            A::Next => self.goto(self.cursor + 1),
            A::Prev => self.cursor = self.cursor.saturating_sub(1),
            A::First => self.cursor = 0,
            A::Last => self.goto(usize::MAX),
            A::PageDown => self.goto(self.cursor + PAGE),
            A::PageUp => self.cursor = self.cursor.saturating_sub(PAGE),
            A::NextDeparture => self.jump(self.find(self.cursor, true, |e| e.departs), "departure"),
            A::PrevDeparture => {
                self.jump(self.find(self.cursor, false, |e| e.departs), "departure")
            }
            A::NextResidual => self.jump(
                self.find(self.cursor, true, Event::is_residual),
                "residual add",
            ),
            A::Select(i) if i < self.rows() => self.goto(i),
            A::Select(_) => {}
            A::NextTab => self.tab = Tab::ALL[(self.tab as usize + 1) % Tab::ALL.len()],
            A::PrevTab => {
                self.tab = Tab::ALL[(self.tab as usize + Tab::ALL.len() - 1) % Tab::ALL.len()]
            }
            A::ToggleHelp => self.help = !self.help,
            A::CycleAct => {
                let mut cfg = self.cfg.clone();
                cfg.act = next_of(Act::ALL, cfg.act);
                self.rerun(cfg, "activation");
            }
            A::ToggleNorm => {
                let mut cfg = self.cfg.clone();
                cfg.norm = next_of(NormKind::ALL, cfg.norm);
                self.rerun(cfg, "norm");
            }
            A::TogglePlacement => {
                let mut cfg = self.cfg.clone();
                cfg.placement = next_of(Placement::ALL, cfg.placement);
                self.rerun(cfg, "placement");
            }
            A::CycleFault => self.cycle_fault(),
            A::ToggleQuiz => self.toggle_quiz(),
            A::TogglePresent => self.present = !self.present,
            A::TogglePause => {
                if let Some(a) = &mut self.autoplay {
                    a.paused = !a.paused;
                }
            }
            A::NextHead => self.head = (self.head + 1) % self.cfg.heads,
            A::PrevHead => self.head = (self.head + self.cfg.heads - 1) % self.cfg.heads,
            A::QuizChar(c) => {
                if let Some(q) = &mut self.quiz {
                    q.input.push(c);
                }
            }
            A::QuizBackspace => {
                if let Some(q) = &mut self.quiz {
                    q.input.pop();
                }
            }
            A::QuizSubmit => self.answer(),
            A::QuizSkip => self.reveal(None),
            A::Tick => self.tick(),
        }
    }

    fn jump(&mut self, to: Option<usize>, what: &str) {
        match to {
            Some(i) => {
                self.goto(i);
                self.status = None;
            }
            None => self.status = Some(format!("no further {what} in this direction")),
        }
    }

    fn tick(&mut self) {
        let Some(auto) = self.autoplay else { return };
        if auto.paused {
            return;
        }
        if self.cursor + 1 < self.rows() {
            self.goto(self.cursor + 1);
        } else if let Some(a) = &mut self.autoplay {
            a.paused = true;
            self.status = Some("autoplay reached the last step (space replays)".into());
            self.cursor = 0;
        }
    }

    fn toggle_quiz(&mut self) {
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

    fn answer(&mut self) {
        let Some(q) = &mut self.quiz else { return };
        if q.asking.is_none() {
            return;
        }
        match parse_shape(&q.input) {
            Some(guess) => self.reveal(Some(guess)),
            None => {
                q.invalid = Some(format!(
                    "'{}' is not a shape: type numbers like 2,4,4,16",
                    q.input
                ))
            }
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
        let truth = e.shape.clone();
        let path = e.path.clone();
        let shown = crate::ops::fmt_shape(&truth);
        if let Some(q) = &mut self.quiz {
            q.asked += usize::from(guess.is_some());
            q.feedback = Some(match guess {
                Some(g) if g == truth => {
                    q.right += 1;
                    (true, format!("✓ right: {path} is {shown}"))
                }
                Some(g) => (
                    false,
                    format!(
                        "✗ you said {}; {path} is {shown}",
                        crate::ops::fmt_shape(&g)
                    ),
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

    fn cycle_fault(&mut self) {
        let choices: Vec<Option<Fault>> = std::iter::once(None)
            .chain(Fault::ALL.iter().copied().map(Some))
            .collect();
        let at = choices
            .iter()
            .position(|f| *f == self.cfg.fault)
            .unwrap_or(0);
        for k in 1..=choices.len() {
            let mut cfg = self.cfg.clone();
            cfg.fault = choices[(at + k) % choices.len()];
            if cfg.validate().is_ok() {
                self.rerun(cfg, "fault");
                return;
            }
        }
    }

    /// Re-traces with `cfg`, keeping the cursor on the same path.
    fn rerun(&mut self, cfg: ModelConfig, what: &str) {
        let path = self.path(self.cursor).map(str::to_string);
        match Self::trace(&cfg) {
            Ok(run) => {
                self.run = run;
                let value = match what {
                    "activation" => cfg.act.to_string(),
                    "norm" => cfg.norm.to_string(),
                    "placement" => cfg.placement.to_string(),
                    _ => cfg
                        .fault
                        .map_or_else(|| "none".to_string(), |f| f.to_string()),
                };
                self.cfg = cfg;
                let same =
                    path.and_then(|p| (0..self.rows()).find(|&i| self.path(i) == Some(p.as_str())));
                self.cursor = same
                    .unwrap_or(self.cursor)
                    .min(self.rows().saturating_sub(1));
                if let Some(q) = &mut self.quiz {
                    q.revealed = self.cursor;
                    q.asking = None;
                }
                self.status = Some(match (&self.run.trace.failure, what) {
                    (Some(f), _) => format!(
                        "{what} → {value}: ✗ {} stops the forward at {}",
                        f.check, f.path
                    ),
                    (None, _) => format!("{what} → {value}: re-traced"),
                });
            }
            Err(e) => self.status = Some(format!("cannot switch {what}: {e}")),
        }
    }
}

fn next_of<T: Copy + PartialEq>(all: &[T], now: T) -> T {
    let i = all.iter().position(|x| *x == now).unwrap_or(0);
    all[(i + 1) % all.len()]
}
