//! The app state and `update(&mut App, Action)`: every change of state
//! goes through [`App::update`], so tests drive the app with actions alone.
//! The quiz lives in [`quiz`], the lab tabs in [`labs`].

pub mod labs;
pub mod quiz;
mod retrace;

use super::action::{Action, KeyMode};
use super::theme::Theme;
use crate::Run;
use crate::config::{Act, Fault, ModelConfig, NormKind, Placement};
use crate::trace::{Event, Failure};
use labs::Labs;
pub use quiz::{Quiz, parse_shape};
pub use retrace::{Retrace, Switch};
use std::time::Duration;

/// The tabs, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The step list, diagram and detail.
    Steps,
    /// Every check with its verdict and detail.
    Checks,
    /// The lesson's FFN computed by hand, one product at a time.
    Ffn,
    /// LayerNorm against RMSNorm on one vector.
    Norms,
    /// Parameters, FLOPs and bytes, beside GPT-2 small.
    Budget,
    /// Which rows change when one input row changes.
    Probes,
}

impl Tab {
    pub const ALL: [Tab; 6] = [
        Tab::Steps,
        Tab::Checks,
        Tab::Ffn,
        Tab::Norms,
        Tab::Budget,
        Tab::Probes,
    ];

    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Tab::Steps => "Steps",
            Tab::Checks => "Checks",
            Tab::Ffn => "FFN",
            Tab::Norms => "Norms",
            Tab::Budget => "Budget",
            Tab::Probes => "Probes",
        }
    }

    fn step(self, by: usize) -> Tab {
        let n = Tab::ALL.len();
        Tab::ALL[(self as usize + by) % n]
    }
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
    pub labs: Labs,
    pub theme: Theme,
    /// The last thing that happened, e.g. `activation → relu`.
    pub status: Option<String>,
    /// The trace log being replayed, if the trace came from a file.
    pub source: Option<String>,
    /// Re-traces run on another thread (the terminal); inline in tests.
    pub background: bool,
    /// A re-trace waiting for the event loop to start it in the background.
    pub wanted: Option<Wanted>,
    /// How far the background trace has got: (events done, expected).
    pub progress: Option<(usize, usize)>,
    /// Loaded weights and input every trace of this session uses.
    pub given: Given,
    pub quit: bool,
}

/// What the command line gave the stepper beyond the config: the request
/// its full traces run under (loaded `--weights` and `--input`, the mode,
/// `--max-memory`) and the files' names for the header.
#[derive(Debug, Clone)]
pub struct Given {
    /// Always with values; never with hooks (each trace adds its own).
    pub req: crate::Request,
    /// The files the weights and input came from, e.g. `ckpt.safetensors`.
    pub label: Option<String>,
}

impl Default for Given {
    /// Seeded weights and input, the default mode and limit.
    fn default() -> Self {
        Self::new(&crate::Request::default(), None)
    }
}

impl Given {
    /// What `req` (from the command line) gives the stepper; `label`
    /// names the files.
    #[must_use]
    pub fn new(req: &crate::Request, label: Option<String>) -> Self {
        let req = crate::Request {
            values: true,
            hooks: crate::Hooks::default(),
            ..req.clone()
        };
        Self { req, label }
    }
}

/// A re-trace the event loop should run off the UI thread, under the
/// app's [`Given`] request.
#[derive(Debug, Clone, PartialEq)]
pub struct Wanted {
    pub cfg: ModelConfig,
    /// Why it is traced: the first full trace, or a live switch.
    pub what: Retrace,
}

const PAGE: usize = 10;

impl App {
    /// Traces `cfg` and opens on its first step.
    ///
    /// # Errors
    /// When `cfg` is invalid.
    pub fn new(cfg: ModelConfig, theme: Theme) -> Result<Self, crate::Error> {
        let run = crate::run_request(&cfg, &Given::default().req)?;
        Ok(Self::with_run(cfg, run, theme))
    }

    /// Opens a saved trace (`shapetrace view`); its checks are judged again.
    /// Live switches re-trace from the config in its header.
    #[must_use]
    pub fn replay(trace: crate::Trace, source: &str, theme: Theme) -> Self {
        let checks = crate::check::all(&trace);
        let cfg = trace.config.clone();
        let plan = crate::Plan {
            mode: trace.mode,
            estimate: cfg.numeric_bytes(),
            limit: crate::plan::DEFAULT_MAX_MEMORY,
            switched: false,
        };
        let mut app = Self::with_run(
            cfg,
            Run {
                trace,
                checks,
                plan,
            },
            theme,
        );
        app.status = Some(format!("replaying {source}"));
        app.source = Some(source.to_string());
        app
    }

    fn with_run(cfg: ModelConfig, run: Run, theme: Theme) -> Self {
        Self {
            cfg,
            run,
            cursor: 0,
            tab: Tab::Steps,
            help: false,
            quiz: None,
            present: false,
            autoplay: None,
            head: 0,
            labs: Labs::default(),
            theme,
            status: None,
            source: None,
            background: false,
            wanted: None,
            progress: None,
            given: Given::default(),
            quit: false,
        }
    }

    /// Opens at once on a shape-only trace and asks the event loop for the
    /// full trace in the background, so even a large model shows its shapes
    /// immediately and keys work while values are computed.
    ///
    /// # Errors
    /// When `cfg` is invalid.
    pub fn open(cfg: ModelConfig, theme: Theme) -> Result<Self, crate::Error> {
        Self::open_given(cfg, Given::default(), theme)
    }

    /// As [`App::open`], the values traced with loaded weights and input.
    ///
    /// # Errors
    /// When `cfg` is invalid. A refused plan or an input of another shape
    /// shows in the status line when the background trace ends (the
    /// command line checks the plan before it opens the stepper).
    pub fn open_given(cfg: ModelConfig, given: Given, theme: Theme) -> Result<Self, crate::Error> {
        // Numbers need the loaded weights and input; shapes need neither.
        let shapes = crate::Request {
            mode: crate::ModeChoice::ShapeOnly,
            ..crate::Request::default()
        };
        let run = crate::run_request(&cfg, &shapes)?;
        let mut app = Self::with_run(cfg.clone(), run, theme);
        app.background = true;
        app.given = given;
        app.wanted = Some(Wanted {
            cfg,
            what: Retrace::Values,
        });
        Ok(app)
    }

    fn trace(&self, cfg: &ModelConfig) -> Result<Run, crate::Error> {
        crate::run_request(cfg, &self.given.req)
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

    /// A failed check that names `path`: a probe or the wiring check, which
    /// judge the whole run rather than stop it.
    #[must_use]
    pub fn failed_at(&self, path: &str) -> Option<&crate::CheckResult> {
        self.run
            .checks
            .iter()
            .find(|c| !c.ok() && c.path.as_deref() == Some(path))
    }

    /// Which keys are live now.
    #[must_use]
    pub fn key_mode(&self) -> KeyMode {
        if self.quiz.as_ref().is_some_and(|q| q.asking.is_some()) || self.labs.editing.is_some() {
            KeyMode::Typing
        } else if self.help {
            KeyMode::Help
        } else if self.autoplay.is_some() {
            KeyMode::Autoplay
        } else {
            KeyMode::Normal
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
            A::NextTab => self.tab = self.tab.step(1),
            A::PrevTab => self.tab = self.tab.step(Tab::ALL.len() - 1),
            A::ToggleHelp => self.help = !self.help,
            A::CycleAct => {
                let mut cfg = self.cfg.clone();
                cfg.act = next_of(Act::ALL, cfg.act);
                self.rerun(cfg, Switch::Activation);
            }
            A::ToggleNorm => {
                let mut cfg = self.cfg.clone();
                cfg.norm = next_of(NormKind::ALL, cfg.norm);
                self.rerun(cfg, Switch::Norm);
            }
            A::TogglePlacement => {
                let mut cfg = self.cfg.clone();
                cfg.placement = next_of(Placement::ALL, cfg.placement);
                self.rerun(cfg, Switch::Placement);
            }
            A::CycleFault => self.cycle_fault(),
            A::ToggleQuiz => self.toggle_quiz(),
            A::TogglePresent => self.present = !self.present,
            A::TogglePause => {
                if let Some(a) = &mut self.autoplay {
                    a.paused = !a.paused;
                }
            }
            A::Tick => self.tick(),
            A::Char(_) | A::Backspace | A::ClearInput | A::Submit | A::Cancel => self.typed(action),
            _ if matches!(self.tab, Tab::Steps | Tab::Checks) || self.present => {
                self.navigate(action)
            }
            _ => self.labs.update(self.tab, action, &self.cfg),
        }
        self.labs
            .refresh(self.tab, self.given.req.subject(&self.cfg));
    }

    /// Typing goes to the open quiz question, else to the lab being edited.
    fn typed(&mut self, action: Action) {
        if self.quiz.as_ref().is_some_and(|q| q.asking.is_some()) {
            self.quiz_input(action);
        } else {
            self.labs.update(self.tab, action, &self.cfg);
        }
    }

    /// Moves through the steps.
    fn navigate(&mut self, action: Action) {
        use Action as A;
        match action {
            A::Next | A::Down => self.goto(self.cursor + 1),
            A::Prev | A::Up => self.cursor = self.cursor.saturating_sub(1),
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
            A::PrevResidual => self.jump(
                self.find(self.cursor, false, Event::is_residual),
                "residual add",
            ),
            A::Select(i) if i < self.rows() => self.goto(i),
            A::NextHead => self.head = (self.head + 1) % self.cfg.heads,
            A::PrevHead => self.head = (self.head + self.cfg.heads - 1) % self.cfg.heads,
            _ => {}
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
                self.rerun(cfg, Switch::Fault);
                return;
            }
        }
    }

    /// Re-traces with `cfg`, keeping the cursor on the same path.
    fn rerun(&mut self, cfg: ModelConfig, switch: Switch) {
        let what = Retrace::Switch(switch);
        if self.background {
            self.status = Some(format!("{what}: tracing…"));
            self.wanted = Some(Wanted { cfg, what });
            return;
        }
        let result = self.trace(&cfg);
        self.finish(cfg, &what, result);
    }

    /// Shows a finished re-trace of `cfg`, keeping the cursor on the same path.
    pub fn finish(&mut self, cfg: ModelConfig, what: &Retrace, result: Result<Run, crate::Error>) {
        let path = self.path(self.cursor).map(str::to_string);
        self.progress = None;
        match (*what, result) {
            (Retrace::Values, Ok(run)) => {
                self.status = run.plan.note().or_else(|| {
                    self.given
                        .label
                        .as_ref()
                        .map(|l| format!("values from {l}"))
                });
                self.run = run;
                self.labs
                    .refresh(self.tab, self.given.req.subject(&self.cfg));
            }
            (Retrace::Switch(switch), Ok(run)) => {
                self.run = run;
                self.source = None;
                let value = switch.value(&cfg);
                self.cfg = cfg;
                let same =
                    path.and_then(|p| (0..self.rows()).find(|&i| self.path(i) == Some(p.as_str())));
                self.cursor = same
                    .unwrap_or(self.cursor)
                    .min(self.rows().saturating_sub(1));
                self.quiz_rerun();
                self.status = Some(match &self.run.trace.failure {
                    Some(f) => format!(
                        "{what} → {value}: ✗ {} stops the forward at {}",
                        f.check, f.path
                    ),
                    None => format!("{what} → {value}: re-traced"),
                });
            }
            (_, Err(e)) => self.status = Some(format!("cannot switch {what}: {e}")),
        }
    }
}

pub(crate) fn next_of<T: Copy + PartialEq>(all: &[T], now: T) -> T {
    let i = all.iter().position(|x| *x == now).unwrap_or(0);
    all[(i + 1) % all.len()]
}
