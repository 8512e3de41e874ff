//! The app state and `update(&mut App, Action)`: every change of state
//! goes through [`App::update`] (a key's action) or [`App::finish`] (a job
//! the app asked the event loop for, done on another thread). The quiz
//! lives in [`quiz`], the lab tabs in [`labs`], moving through the steps in
//! `navigate`, tracing again in `retrace` and the jobs in `work`.

pub mod labs;
mod modes;
mod navigate;
pub mod quiz;
mod retrace;
pub mod split;
mod work;

use super::action::Action;
use super::theme::Theme;
use crate::Run;
use crate::config::{Act, ModelConfig, NormKind, Placement};
use crate::trace::{Event, Failure};
use labs::Labs;
pub use modes::{Overlay, Showing};
pub use quiz::{Quiz, parse_shape};
pub use retrace::{Given, Retrace, Switch};
use std::time::Duration;
pub use work::{Done, Wanted};

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
    /// Every tab, in Tab order.
    pub const ALL: [Tab; 6] = [
        Tab::Steps,
        Tab::Checks,
        Tab::Ffn,
        Tab::Norms,
        Tab::Budget,
        Tab::Probes,
    ];

    /// The catalog key of the tab's name, e.g. `ui-tab-budget`.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Tab::Steps => "ui-tab-steps",
            Tab::Checks => "ui-tab-checks",
            Tab::Ffn => "ui-tab-ffn",
            Tab::Norms => "ui-tab-norms",
            Tab::Budget => "ui-tab-budget",
            Tab::Probes => "ui-tab-probes",
        }
    }

    fn step(self, by: usize) -> Tab {
        let n = Tab::ALL.len();
        Tab::ALL[(self as usize + by) % n]
    }
}

/// Columns a scroll key (`<` `>`) moves a heatmap wider than its pane.
pub const HEATMAP_SCROLL: usize = 8;

/// Automatic stepping for presenter mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Autoplay {
    /// Time between automatic steps.
    pub every: Duration,
    /// Whether space paused it; the cursor stays where it is.
    pub paused: bool,
}

/// A row of the step list.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    /// An event of the trace.
    Event(&'a Event),
    /// The step where the forward stopped.
    Failure(&'a Failure),
}

/// Everything the UI shows.
#[derive(Debug, Clone)]
pub struct App {
    /// The trace shown; its config is the model ([`App::cfg`]).
    pub run: Run,
    /// Which model the labs are looking at: moves each time a switch's
    /// trace replaces the model (not when values replace the shapes of the
    /// same model), so a lab knows what it computed for without a copy.
    pub generation: u64,
    /// The row selected in the step list: an event's step, or the failure
    /// row after the last event.
    pub cursor: usize,
    /// The tab shown.
    pub tab: Tab,
    /// What the body shows: the tab's panes, the split view or
    /// presenter mode.
    pub showing: Showing,
    /// What lies over it and takes keys first: the help, the quiz, reveal
    /// mode or the count quiz.
    pub overlay: Overlay,
    /// The Detail pane shows the step's whole why instead of its heatmap.
    pub why_whole: bool,
    /// Whether the Budget tab draws its pictures instead of its table (`c`).
    pub charts: bool,
    /// Whether glyphs and box drawing are drawn as ASCII (`--ascii`).
    pub ascii: bool,
    /// The language of the screens' words (`--lang`, else the locale).
    pub lang: crate::i18n::Lang,
    /// Automatic stepping, when `--autoplay` started it.
    pub autoplay: Option<Autoplay>,
    /// The head shown in 4-D heatmaps.
    pub head: usize,
    /// The first column shown in a heatmap wider than its pane.
    pub col: usize,
    /// The lab tabs' state.
    pub labs: Labs,
    /// The styles: colour, or monochrome under `NO_COLOR`.
    pub theme: Theme,
    /// The last thing that happened, e.g. `activation → relu`.
    pub status: Option<String>,
    /// The trace log being replayed, if the trace came from a file.
    pub source: Option<String>,
    /// The program that wrote the replayed log, when it is not shapetrace
    /// (a student's module exported from PyTorch): no model of ours stands
    /// behind it, so nothing re-traces it.
    pub foreign: Option<String>,
    /// The replay a switch left for a live run, and its file: `v` goes
    /// back to it.
    pub left_replay: Option<Box<(Run, String)>>,
    /// Work asked of the event loop and not started yet.
    pub wanted: Vec<Wanted>,
    /// The ticket of the trace the app waits for, if any; a trace that
    /// comes back with another ticket was superseded and is dropped.
    pub tracing: Option<u64>,
    /// Tickets handed out so far.
    tickets: u64,
    /// The model of the newest trace asked for and not shown yet: the next
    /// switch starts from it, so quick presses add up (three `f` presses
    /// land on the third fault) instead of each starting from the model
    /// still on screen.
    asked: Option<ModelConfig>,
    /// How far the background trace has got: (events done, expected).
    pub progress: Option<(usize, usize)>,
    /// Loaded weights and input every trace of this session uses.
    pub given: Given,
    /// The split view beside a second model (`--compare RIGHT`).
    pub split: Option<split::Split>,
    /// The user asked to leave; the event loop ends.
    pub quit: bool,
}

impl App {
    /// Opens a saved trace (`shapetrace view`) with the verdicts its
    /// summary recorded: nothing is re-judged, so no model is built. An
    /// incomplete log (no summary) opens with a note saying so. Live
    /// switches re-trace from the config in its header.
    #[must_use]
    pub fn replay(replay: crate::trace::log::Replay, source: &str, theme: Theme) -> Self {
        Self::replay_in(replay, source, theme, crate::i18n::Lang::En)
    }

    /// [`App::replay`] speaking `lang`, its opening status line (`replaying
    /// FILE · incomplete log: …`) in that language's words.
    #[must_use]
    pub fn replay_in(
        replay: crate::trace::log::Replay,
        source: &str,
        theme: Theme,
        lang: crate::i18n::Lang,
    ) -> Self {
        // The log's own note, `incomplete log: N events, no summary`, as
        // a catalog message.
        let incomplete = replay.checks.is_none().then_some(replay.trace.events.len());
        // As logged; what the log does not hold, judged from its events.
        let checks = crate::check::as_logged(&replay);
        let foreign = replay
            .producer
            .clone()
            .filter(|p| !p.starts_with("shapetrace "));
        let trace = replay.trace;
        let plan = crate::Plan {
            mode: trace.mode,
            estimate: trace.config.numeric_bytes(),
            limit: crate::plan::DEFAULT_MAX_MEMORY,
            switched: false,
        };
        let mut app = Self::with_run(
            Run {
                trace,
                checks,
                plan,
            },
            theme,
        );
        app.lang = lang;
        let name = crate::text::shown(source).to_string();
        app.status = Some(
            app.tr(&match incomplete {
                Some(events) => crate::why::Why::new("ui-status-replaying-incomplete")
                    .arg("file", name)
                    .arg("events", events),
                None => crate::why::Why::new("ui-status-replaying").arg("file", name),
            }),
        );
        app.source = Some(source.to_string());
        app.foreign = foreign;
        app
    }

    fn with_run(run: Run, theme: Theme) -> Self {
        Self {
            run,
            generation: 0,
            cursor: 0,
            tab: Tab::Steps,
            showing: Showing::Tabs,
            overlay: Overlay::None,
            why_whole: false,
            ascii: false,
            lang: crate::i18n::Lang::En,
            charts: false,
            autoplay: None,
            head: 0,
            col: 0,
            labs: Labs::default(),
            theme,
            status: None,
            source: None,
            left_replay: None,
            foreign: None,
            wanted: Vec::new(),
            tracing: None,
            tickets: 0,
            asked: None,
            progress: None,
            given: Given::default(),
            split: None,
            quit: false,
        }
    }

    /// Opens at once on a shape-only trace of `cfg` and asks the event loop
    /// for the full trace, with `given`'s weights and input, so even a
    /// large model shows its shapes immediately and keys work while values
    /// are computed.
    ///
    /// # Errors
    /// When `cfg` is invalid. A refused plan or an input of another shape
    /// shows in the status line when the full trace ends (the command
    /// line checks the plan before it opens the stepper).
    pub(crate) fn open_given(
        cfg: ModelConfig,
        given: Given,
        theme: Theme,
    ) -> Result<Self, crate::error::Error> {
        // Numbers need the loaded weights and input; shapes need neither.
        let run = crate::run_request(&cfg, &crate::Request::shapes())?;
        let mut app = Self::with_run(run, theme);
        app.given = given;
        app.ask_trace(cfg, Retrace::Values);
        Ok(app)
    }

    /// The model shown: the config of the trace on screen. A switch being
    /// traced is not in it until its trace is done.
    #[must_use]
    pub fn cfg(&self) -> &ModelConfig {
        &self.run.trace.config
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
            .find(|c| !c.ok && c.path.as_deref() == Some(path))
    }

    /// The model the next switch starts from: the newest one asked for,
    /// else the one shown.
    pub(super) fn next_cfg(&self) -> ModelConfig {
        self.asked.as_ref().unwrap_or(self.cfg()).clone()
    }

    /// Whether a switch is being traced: the verdicts shown are the model
    /// on screen's, about to be replaced.
    #[must_use]
    pub fn stale(&self) -> bool {
        self.asked.as_ref().is_some_and(|c| c != self.cfg())
    }

    /// The message `key` in the app's language (English when its catalog
    /// lacks it), its glyphs in words under `--ascii`.
    #[must_use]
    pub fn t(&self, key: &str) -> String {
        self.say(self.lang.t(key))
    }

    /// A message with arguments, `Why::new(key).arg(…)`, in the app's
    /// language, its glyphs in words under `--ascii`.
    #[must_use]
    pub fn tr(&self, message: &crate::why::Why) -> String {
        self.say(self.lang.why(message))
    }

    /// `text` as the screen shows it: under `--ascii` every glyph in its
    /// words (`→` as `->`, `√` as `sqrt`), the one mapping of
    /// [`crate::tui::ui::ascii`]. Whys, formulas and lines built with
    /// glyphs pass through it before they are laid out.
    #[must_use]
    pub fn say(&self, text: impl Into<String>) -> String {
        let text = text.into();
        if self.ascii {
            crate::tui::ui::ascii::text(&text).into_owned()
        } else {
            text
        }
    }

    /// Keys as a hint or the help writes them: under `--ascii` the arrow
    /// keys as `<-` `->` `Up` `Dn`.
    #[must_use]
    pub fn keys(&self, keys: &str) -> String {
        if self.ascii {
            crate::tui::ui::ascii::keys(keys).into_owned()
        } else {
            keys.to_string()
        }
    }

    /// The why of a step in the app's language (its English `text` when
    /// the catalog has no words for it), as the screen shows it.
    #[must_use]
    pub fn step_why(&self, why: Option<&crate::why::Why>, text: &str) -> String {
        self.say(self.lang.step_why(why, text).into_owned())
    }

    /// A key's action for the lab on the shown tab.
    pub(super) fn lab_update(&mut self, action: Action) {
        let cfg = &self.run.trace.config;
        self.labs.update(self.tab, action, self.generation, cfg);
    }
}

/// `cfg` with the setting `action` switches moved on, and which setting
/// that is: the next activation, LayerNorm ↔ RMSNorm, Pre-LN ↔ Post-LN,
/// or the next teaching fault the model can take (or none). `None` for
/// an action that switches nothing.
pub(crate) fn switched(cfg: &ModelConfig, action: Action) -> Option<(ModelConfig, Switch)> {
    let mut cfg = cfg.clone();
    match action {
        Action::CycleAct => {
            cfg.mlp.act = next_of(Act::ALL, cfg.mlp.act);
            Some((cfg, Switch::Activation))
        }
        Action::ToggleNorm => {
            // LayerNorm ↔ RMSNorm; Gemma's (1 + w) RMSNorm, which computes
            // what RMSNorm computes on seeded weights, turns into plain
            // RMSNorm.
            cfg.norms.kind = next_of(&[NormKind::LayerNorm, NormKind::RmsNorm], cfg.norms.kind);
            Some((cfg, Switch::Norm))
        }
        Action::TogglePlacement => {
            cfg.norms.placement = next_of(Placement::ALL, cfg.norms.placement);
            Some((cfg, Switch::Placement))
        }
        // A split model: the next device's shapes, in device order.
        Action::CycleDevice if cfg.devices.many() => {
            let d = &mut cfg.devices;
            d.device = (d.device + 1) % d.count();
            Some((cfg, Switch::Device))
        }
        Action::CycleFault => {
            let choices: Vec<Option<crate::config::Fault>> = std::iter::once(None)
                .chain(crate::config::Fault::ALL.iter().copied().map(Some))
                .collect();
            let at = choices.iter().position(|f| *f == cfg.fault).unwrap_or(0);
            (1..=choices.len()).find_map(|k| {
                let mut next = cfg.clone();
                next.fault = choices[(at + k) % choices.len()];
                next.validate().is_ok().then_some((next, Switch::Fault))
            })
        }
        _ => None,
    }
}

pub(crate) fn next_of<T: Copy + PartialEq>(all: &[T], now: T) -> T {
    let i = all.iter().position(|x| *x == now).unwrap_or(0);
    all[(i + 1) % all.len()]
}
