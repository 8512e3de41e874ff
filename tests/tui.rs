//! The stepper's state and screens: the real event loop driven by actions
//! and scripted terminal events, its jobs (traces, probes) awaited through
//! the loop; the pure keymap; and the screen drawn on a `TestBackend` at
//! 80×24 (the smallest supported size), snapshotted as text. Styles are
//! asserted on the buffer, since snapshots hold text only.

mod common;

use common::{TestLoop, frame, settle};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use shapetrace::ModelConfig;
use shapetrace::config::{Act, Fault, NormKind, Placement};
use shapetrace::tui::action::{Action, KeyMode, map_key};
use shapetrace::tui::app::labs::ProbeKey;
use shapetrace::tui::app::{App, Done, Given, Retrace, Tab, Wanted};
use shapetrace::tui::event_loop::{EventLoop, Msg};
use shapetrace::tui::theme::{COLOR, MONO, Theme};
use shapetrace::tui::{Launch, ui};

/// The stepper's event loop on an 80×24 test terminal, driven by a test.
/// Reads as its app.
struct Stepper(TestLoop);

impl std::ops::Deref for Stepper {
    type Target = App;
    fn deref(&self) -> &App {
        &self.0.app
    }
}

impl Stepper {
    /// Applies `action` as a key mapped to it would, then turns the loop
    /// until the jobs it asked for are back.
    fn act(&mut self, action: Action) {
        self.0.app.update(action);
        settle(&mut self.0);
    }

    /// Sends terminal events to the loop, as its reader thread does, and
    /// turns the loop until they are taken and their jobs are back.
    fn send(&mut self, events: impl IntoIterator<Item = Event>) {
        let tx = self.0.sender();
        for e in events {
            tx.send(Msg::Input(e)).unwrap();
        }
        settle(&mut self.0);
    }

    /// Presses `keys`, one character each.
    fn press(&mut self, keys: &str) {
        self.send(keys.chars().map(|c| Event::Key(key(KeyCode::Char(c)))));
    }

    /// Clicks the left button at (`x`, `y`).
    fn click(&mut self, x: u16, y: u16) {
        self.send([Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        })]);
    }

    /// The loop's last frame.
    fn frame(&self) -> String {
        frame(&self.0)
    }
}

/// The stepper on the lesson model, its full trace shown.
fn app() -> Stepper {
    Stepper(common::stepper(ModelConfig::default(), Given::default()))
}

fn with(actions: &[Action]) -> Stepper {
    let mut a = app();
    for &x in actions {
        a.act(x);
    }
    a
}

fn draw(app: &App, w: u16, h: u16) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| f.render_widget(app, f.area())).unwrap();
    term.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let w = usize::from(buf.area.width);
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells
        .chunks(w)
        .map(|row| row.concat().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn screen(app: &App) -> String {
    text(&draw(app, 80, 24))
}

/// The row of the screen whose text contains `needle`.
fn row_of(buf: &Buffer, needle: &str) -> u16 {
    let t = text(buf);
    let i = t
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not on screen:\n{t}"));
    u16::try_from(i).unwrap()
}

// ---- snapshots ----------------------------------------------------------

#[test]
fn snapshot_first_step() {
    insta::assert_snapshot!(app().frame());
}

#[test]
fn snapshot_departure() {
    let a = with(&[Action::NextDeparture; 5]);
    assert_eq!(a.path(a.cursor), Some("block1.attn.weights"));
    insta::assert_snapshot!(a.frame());
}

#[test]
fn snapshot_residual_add() {
    let a = with(&[Action::NextResidual]);
    assert_eq!(a.path(a.cursor), Some("block1.resid_1"));
    insta::assert_snapshot!(a.frame());
}

/// A model split over two devices: the header names the device, and the
/// all-reduce after the attention's row-parallel output says what it sums
/// and sends.
#[test]
fn snapshot_tensor_parallel_all_reduce() {
    let cfg = ModelConfig {
        devices: shapetrace::config::Devices {
            tp: 2,
            sp: false,
            device: 1,
            ..Default::default()
        },
        ..ModelConfig::default()
    };
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    for _ in 0..13 {
        a.act(Action::Next);
    }
    assert_eq!(a.path(a.cursor), Some("block1.attn.out.all_reduce"));
    insta::assert_snapshot!(a.frame());
}

/// The second stage of a two-stage pipeline: the header names the stage,
/// and its first step is the stream received from the stage before, whose
/// why says where that stage's blocks live.
#[test]
fn snapshot_pipeline_recv() {
    let cfg = ModelConfig {
        devices: shapetrace::config::Devices {
            pp: 2,
            device: 1,
            ..Default::default()
        },
        ..ModelConfig::default()
    };
    let a = Stepper(common::stepper(cfg, Given::default()));
    assert_eq!(a.path(a.cursor), Some("recv"));
    insta::assert_snapshot!(a.frame());
}

/// Under expert parallelism an expert's batch arrives by an all-to-all:
/// the header names the device of ep, the detail the rows each device sent.
#[test]
fn snapshot_expert_dispatch() {
    let cfg = ModelConfig {
        devices: shapetrace::config::Devices {
            ep: 2,
            device: 1,
            ..Default::default()
        },
        ..shapetrace::config::preset::by_name("lesson-moe").unwrap()
    };
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("block1.moe.expert3.dispatch") {
        let before = a.cursor;
        a.act(Action::Next);
        assert_ne!(a.cursor, before, "no expert3.dispatch on device 1");
    }
    let frame = a.frame();
    assert!(frame.contains("device 1 of ep=2"), "{frame}");
    insta::assert_snapshot!(frame);
}

#[test]
fn snapshot_fault_failure() {
    let a = with(&[Action::CycleFault, Action::Last]);
    assert_eq!(a.cfg().fault, Some(Fault::FfnNoDown));
    insta::assert_snapshot!(a.frame());
}

#[test]
fn snapshot_help() {
    insta::assert_snapshot!(with(&[Action::ToggleHelp]).frame());
}

#[test]
fn snapshot_quiz_prompt() {
    let a = with(&[
        Action::ToggleQuiz,
        Action::Last,
        Action::Char('2'),
        Action::Char(','),
    ]);
    insta::assert_snapshot!(a.frame());
}

#[test]
fn snapshot_presenter() {
    let a = with(&[
        Action::TogglePresent,
        Action::NextDeparture,
        Action::NextDeparture,
        Action::NextDeparture,
    ]);
    insta::assert_snapshot!(a.frame());
}

#[test]
fn snapshot_too_small() {
    insta::assert_snapshot!(text(&draw(&app(), 60, 20)));
}

#[test]
fn snapshot_checks_tab() {
    insta::assert_snapshot!(
        with(&[Action::CycleFault, Action::CycleFault, Action::NextTab]).frame()
    );
}

// ---- styles and monochrome ----------------------------------------------

#[test]
fn departure_rows_and_failures_are_highlighted_and_marked() {
    let buf = draw(&app(), 80, 24);
    let y = row_of(&buf, "block1.attn.q ");
    let line = text(&buf).lines().nth(usize::from(y)).unwrap().to_string();
    assert!(line.contains("◆ leaves (B,T,d)"), "{line}");
    let x = u16::try_from(line.find("block1").unwrap()).unwrap();
    assert_eq!(buf[(x, y)].fg, Color::Yellow, "departure row text is lit");
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));

    let failed = with(&[Action::CycleFault, Action::Last]);
    let buf = draw(&failed, 80, 24);
    let y = row_of(&buf, "✗ residual stops here");
    let line = text(&buf).lines().nth(usize::from(y)).unwrap().to_string();
    let x = u16::try_from(line.chars().position(|c| c == '✗').unwrap()).unwrap();
    assert_eq!(buf[(x, y)].bg, Color::Red, "✗ is lit");
}

#[test]
fn no_color_gives_the_same_words_without_any_colour() {
    for actions in [
        &[][..],
        &[Action::CycleFault, Action::Last],
        &[Action::NextDeparture],
    ] {
        let coloured = with(actions).clone();
        let mut mono = coloured.clone();
        mono.theme = MONO;
        let (c, m) = (draw(&coloured, 80, 24), draw(&mono, 80, 24));
        assert_eq!(text(&c), text(&m));
        for cell in &m.content {
            assert_eq!(
                (cell.fg, cell.bg),
                (Color::Reset, Color::Reset),
                "colour in the mono theme"
            );
        }
        // The cursor row still stands out, by reverse video.
        let y = row_of(&m, "▶ ");
        assert!(m[(0, y)].modifier.contains(Modifier::REVERSED));
    }
}

#[test]
fn theme_follows_no_color() {
    // Read only: whatever the environment says, the mapping holds.
    let expect = match std::env::var_os("NO_COLOR") {
        Some(v) if !v.is_empty() => MONO,
        _ => COLOR,
    };
    assert_eq!(Theme::from_env(), expect);
}

// ---- state ---------------------------------------------------------------

#[test]
fn stepping_stays_in_bounds() {
    let mut a = app();
    a.act(Action::Prev);
    assert_eq!(a.cursor, 0);
    a.act(Action::Last);
    assert_eq!(a.cursor, 36);
    a.act(Action::Next);
    assert_eq!(a.cursor, 36);
    a.act(Action::First);
    a.act(Action::PageDown);
    assert_eq!(a.cursor, 10);
    a.act(Action::PageUp);
    assert_eq!(a.cursor, 0);
}

#[test]
fn jumps_find_departures_and_residual_adds() {
    let mut a = app();
    a.act(Action::NextDeparture);
    assert_eq!(a.path(a.cursor), Some("block1.attn.q"));
    a.act(Action::NextResidual);
    assert_eq!(a.path(a.cursor), Some("block1.resid_1"));
    a.act(Action::PrevDeparture);
    assert_eq!(a.path(a.cursor), Some("block1.attn.context"));
    a.act(Action::Last);
    a.act(Action::NextResidual);
    assert!(
        a.status
            .as_deref()
            .unwrap()
            .contains("no further residual add")
    );
}

#[test]
fn live_switches_rerun_and_keep_the_cursor_on_the_path() {
    // Keys through the loop, as the terminal sends them.
    let mut a = app();
    a.press("rr");
    assert_eq!(a.path(a.cursor), Some("block1.resid_2"));
    a.press("a");
    assert_eq!(a.cfg().mlp.act, Act::GeluTanh);
    assert_eq!(a.run.trace.get("block1.mlp.act").unwrap().op, "gelu_tanh");
    assert_eq!(a.path(a.cursor), Some("block1.resid_2"));
    assert!(
        a.frame().contains("activation → gelu-tanh: re-traced"),
        "{}",
        a.frame()
    );
    a.press("a");
    assert!(
        a.run.trace.get("block1.mlp.gate").is_some(),
        "swiglu adds a gate"
    );
    assert_eq!(a.path(a.cursor), Some("block1.resid_2"));
    a.press("p");
    assert_eq!(a.cfg().norms.placement, Placement::Post);
    assert_eq!(a.path(a.cursor), Some("block1.resid_2"));
    let steps: Vec<&str> = a.run.trace.events.iter().map(|e| e.path.as_str()).collect();
    let at = |p: &str| steps.iter().position(|s| *s == p).unwrap();
    assert_eq!(at("block1.ln_1"), at("block1.resid_1") + 1);
    a.press("m");
    assert_eq!(a.run.trace.get("block1.ln_1").unwrap().op, "rmsnorm");
}

#[test]
fn a_switch_traces_on_a_worker_and_a_newer_one_supersedes_it() {
    let mut a = app();
    a.0.app.update(Action::CycleAct);
    assert!(
        matches!(&a.wanted[..], [Wanted::Trace { cfg, what: Retrace::Switch(_), .. }] if cfg.mlp.act == Act::GeluTanh),
        "{:?}",
        a.wanted
    );
    assert_eq!(
        a.cfg().mlp.act,
        Act::Gelu,
        "the shown model stays until the trace is done"
    );
    assert_eq!(a.status.as_deref(), Some("activation: tracing…"));
    // A second switch before the first is back: the first's trace is
    // dropped, and the second starts from the first's model, so both land.
    a.0.app.update(Action::ToggleNorm);
    settle(&mut a.0);
    assert_eq!(
        (a.cfg().mlp.act, a.cfg().norms.kind),
        (Act::GeluTanh, NormKind::RmsNorm)
    );
    assert_eq!(a.status.as_deref(), Some("norm → rmsnorm: re-traced"));
    assert!(a.progress.is_none() && a.tracing.is_none());
    // A trace that comes back with an old ticket changes nothing.
    let old = shapetrace::run_request(&ModelConfig::default(), &Given::default().req);
    let before = (a.cfg().clone(), a.status.clone());
    a.0.app.finish(Done::Trace {
        ticket: 1,
        what: Retrace::Values,
        result: Box::new(old),
    });
    assert_eq!((a.cfg().clone(), a.status.clone()), before);
}

#[test]
fn faults_cycle_and_steps_after_the_failure_cannot_be_reached() {
    let mut a = app();
    let mut seen = Vec::new();
    // The faults this model can build (the cast faults need bf16), then none.
    let valid = Fault::ALL
        .iter()
        .filter(|f| {
            let c = shapetrace::ModelConfig {
                fault: Some(**f),
                ..a.cfg().clone()
            };
            c.validate().is_ok()
        })
        .count();
    for _ in 0..valid + 2 {
        a.act(Action::CycleFault);
        seen.push(a.cfg().fault);
    }
    assert_eq!(
        seen.last(),
        Some(&Some(Fault::FfnNoDown)),
        "wraps around through no fault"
    );
    assert!(seen.contains(&None));
    let mut a = with(&[Action::CycleFault]);
    a.act(Action::Last);
    assert_eq!(a.cursor, a.rows() - 1);
    assert_eq!(a.path(a.cursor), Some("block1.resid_2"));
    assert_eq!(a.rows(), a.run.trace.events.len() + 1);
    a.act(Action::Next);
    assert_eq!(
        a.path(a.cursor),
        Some("block1.resid_2"),
        "nothing after the failure"
    );
    let s = screen(&a);
    assert!(s.contains("later steps cannot run"), "{s}");
    assert!(s.contains("The forward stopped here"), "{s}");
}

#[test]
fn quiz_asks_before_each_new_shape_and_keeps_score() {
    let mut a = with(&[Action::ToggleQuiz]);
    a.act(Action::NextDeparture);
    let q = a.quiz().unwrap();
    assert_eq!(q.asking, Some(5), "asked before block1.attn.q is shown");
    assert_eq!(a.cursor, 4);
    assert!(a.hidden(5) && !a.hidden(4));
    assert_eq!(a.key_mode(), KeyMode::Typing);
    for c in "(2, 4, 4, 16)".chars() {
        a.act(Action::Char(c));
    }
    a.act(Action::Submit);
    // h = T = 4: the sizes fit two orders, so the quiz asks which 4 is h.
    assert!(a.quiz().unwrap().follow_up.is_some());
    a.act(Action::Char('2'));
    a.act(Action::Submit);
    let q = a.quiz().unwrap();
    assert_eq!((q.right, q.asked, a.cursor), (1, 1, 5));
    assert!(q.feedback.as_ref().unwrap().0);
    // k has the same shape as q: no question; scores differ from v.
    a.act(Action::Next);
    a.act(Action::Next);
    assert_eq!(a.cursor, 7);
    a.act(Action::Next);
    assert_eq!(a.quiz().unwrap().asking, Some(8));
    for c in "2,4,64".chars() {
        a.act(Action::Char(c));
    }
    a.act(Action::Submit);
    let q = a.quiz().unwrap();
    assert_eq!((q.right, q.asked), (1, 2));
    assert!(
        q.feedback
            .as_ref()
            .unwrap()
            .1
            .contains("(B=2,h=4,Tq=4,Tk=4)")
    );
    // Text that is not a shape keeps the question open.
    a.act(Action::Next);
    a.act(Action::Next);
    assert_eq!(a.quiz().unwrap().asking, Some(10));
    a.act(Action::Char(','));
    a.act(Action::Submit);
    assert!(a.quiz().unwrap().invalid.is_some());
    assert_eq!(a.quiz().unwrap().asking, Some(10));
    a.act(Action::Cancel);
    assert_eq!((a.cursor, a.quiz().unwrap().asked), (10, 2));
}

#[test]
fn a_click_selects_the_step_under_the_mouse() {
    let a = app();
    let area = Rect::new(0, 0, 80, 24);
    let buf = draw(&a, 80, 24);
    let y = row_of(&buf, "block1.attn.k_proj");
    assert_eq!(ui::step_at(&a, area, 10, y), Some(3));
    assert_eq!(
        ui::step_at(&a, area, 10, 0),
        None,
        "the header is not a step"
    );
    let mut a = a;
    a.click(10, y);
    assert_eq!(a.cursor, 3);
    a.click(10, 0);
    assert_eq!(a.cursor, 3, "a click on the header moves nothing");
}

#[test]
fn autoplay_steps_on_ticks_and_pauses() {
    let launch = Launch {
        autoplay: Some(0.5),
        ..Launch::default()
    };
    let mut a =
        shapetrace::tui::app(ModelConfig::default(), launch, Given::default(), COLOR).unwrap();
    assert!(a.presenting());
    assert_eq!(a.key_mode(), KeyMode::Autoplay);
    a.update(Action::Tick);
    assert_eq!(a.cursor, 1);
    a.update(Action::TogglePause);
    a.update(Action::Tick);
    assert_eq!(a.cursor, 1);
    a.update(Action::TogglePause);
    a.update(Action::Last);
    a.update(Action::Tick);
    assert!(a.autoplay.unwrap().paused, "stops at the end");
    let bad = Launch {
        autoplay: Some(0.0),
        ..Launch::default()
    };
    assert!(shapetrace::tui::app(ModelConfig::default(), bad, Given::default(), COLOR).is_err());
}

/// `--ascii`: the residual add's screen with every glyph and box line in
/// ASCII, one character for one, so the layout is the same.
#[test]
fn snapshot_ascii_residual_add() {
    let launch = Launch {
        ascii: true,
        at: Some("block1.resid_1".into()),
        ..Launch::default()
    };
    let app =
        shapetrace::tui::app(ModelConfig::default(), launch, Given::default(), COLOR).unwrap();
    let terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    let mut lp = shapetrace::tui::event_loop::EventLoop::new(app, terminal);
    common::settle(&mut lp);
    let f = common::frame(&lp);
    for glyph in ["◆", "╳", "⊕", "↩", "▶", "◀", "✓", "✗", "░", "▒", "▓", "█"]
    {
        assert!(!f.contains(glyph), "{glyph} in:\n{f}");
    }
    assert!(
        !f.chars().any(|c| ('\u{2500}'..='\u{257f}').contains(&c)),
        "box drawing:\n{f}"
    );
    for part in [
        "* leaves (B,T,d)",
        "< returns",
        "o add (2,4,64) + (2,4,64)",
        "+ resid_1 o<",
    ] {
        assert!(f.contains(part), "{part}:\n{f}");
    }
    // The same screen without --ascii has the same layout: the header,
    // the step list and the diagram glyph for glyph (the Detail pane's
    // formula and the footer write signs as words, `->`).
    let mut plain = common::stepper(ModelConfig::default(), Given::default());
    while plain.app.path(plain.app.cursor) != Some("block1.resid_1") {
        plain.app.update(Action::Next);
    }
    common::settle(&mut plain);
    let a = ui::areas(&plain.app, Rect::new(0, 0, 80, 24));
    let (g, f_buf) = (draw(&plain.app, 80, 24), draw(&lp.app, 80, 24));
    for r in [a.header, a.steps, a.diagram] {
        for y in r.top()..r.bottom() {
            for x in r.left()..r.right() {
                let s = g[(x, y)].symbol();
                let want =
                    shapetrace::tui::ui::ascii::of(s).map_or_else(|| s.to_string(), String::from);
                assert_eq!(f_buf[(x, y)].symbol(), want, "at ({x}, {y}):\n{f}");
            }
        }
    }
    insta::assert_snapshot!(f);
}

/// `--at PATH` opens at that step, with a fault too; a path the model has
/// not is refused with paths it has.
#[test]
fn at_opens_on_the_named_step_and_refuses_an_unknown_one() {
    let at = |path: &str, cfg: ModelConfig| {
        let launch = Launch {
            at: Some(path.into()),
            ..Launch::default()
        };
        shapetrace::tui::app(cfg, launch, Given::default(), COLOR)
    };
    let a = at("block1.attn.scores", ModelConfig::default()).unwrap();
    assert_eq!(a.path(a.cursor), Some("block1.attn.scores"));
    assert!(a.cursor > 0);
    let faulty = ModelConfig {
        fault: Some(shapetrace::config::Fault::NoCausalMask),
        ..ModelConfig::default()
    };
    let a = at("block1.attn.weights", faulty).unwrap();
    assert_eq!(a.path(a.cursor), Some("block1.attn.weights"));
    assert!(a.run.trace.config.fault.is_some());
    let e = at("block9.attn.scores", ModelConfig::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--at 'block9.attn.scores' is not a step of this model"),
        "{e}"
    );
    assert!(e.contains("block1.attn.scores"), "{e}");
    assert_eq!(e.lines().count(), 1);
}

#[test]
fn help_opens_and_closes() {
    let mut a = with(&[Action::ToggleHelp]);
    assert_eq!(a.key_mode(), KeyMode::Help);
    assert!(screen(&a).contains("cycle the teaching faults"));
    a.act(Action::ToggleHelp);
    assert!(a.overlay.help().is_none());
}

// ---- keymap ---------------------------------------------------------------

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn keymap_is_a_pure_function_of_key_and_mode() {
    use KeyCode as K;
    let n = KeyMode::Normal;
    for (code, want) in [
        (K::Right, Action::Next),
        (K::Char('l'), Action::Next),
        (K::Char(' '), Action::Next),
        (K::Char('j'), Action::Down),
        (K::Down, Action::Down),
        (K::Up, Action::Up),
        (K::Char('e'), Action::Edit),
        (K::Left, Action::Prev),
        (K::Char('k'), Action::Up),
        (K::Char('g'), Action::First),
        (K::End, Action::Last),
        (K::Char('n'), Action::NextDeparture),
        (K::Char('N'), Action::PrevDeparture),
        (K::Char('r'), Action::NextResidual),
        (K::Tab, Action::NextTab),
        (K::Char('?'), Action::ToggleHelp),
        (K::Char('a'), Action::CycleAct),
        (K::Char('m'), Action::ToggleNorm),
        (K::Char('p'), Action::TogglePlacement),
        (K::Char('f'), Action::CycleFault),
        (K::Char('z'), Action::ToggleQuiz),
        (K::Char('P'), Action::TogglePresent),
        (K::Char('q'), Action::Quit),
        (K::Esc, Action::Quit),
    ] {
        assert_eq!(map_key(key(code), n), Some(want), "{code:?}");
    }
    assert_eq!(
        map_key(key(K::Char(' ')), KeyMode::Autoplay),
        Some(Action::TogglePause)
    );
    assert_eq!(
        map_key(key(K::Char('4')), KeyMode::Typing),
        Some(Action::Char('4'))
    );
    assert_eq!(
        map_key(key(K::Char('q')), KeyMode::Typing),
        Some(Action::Char('q')),
        "typing, not quitting: the parser names what it refuses"
    );
    let ctrl_u = KeyEvent::new(K::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(map_key(ctrl_u, KeyMode::Typing), Some(Action::ClearInput));
    assert_eq!(map_key(ctrl_u, KeyMode::Normal), None);
    assert_eq!(
        map_key(key(K::Char('R')), KeyMode::Normal),
        Some(Action::PrevResidual)
    );
    assert_eq!(
        map_key(key(K::Enter), KeyMode::Typing),
        Some(Action::Submit)
    );
    assert_eq!(map_key(key(K::Char('n')), KeyMode::Help), None);
    let ctrl_c = KeyEvent::new(K::Char('c'), KeyModifiers::CONTROL);
    for mode in [
        KeyMode::Normal,
        KeyMode::Autoplay,
        KeyMode::Help,
        KeyMode::Typing,
    ] {
        assert_eq!(map_key(ctrl_c, mode), Some(Action::Quit));
    }
}

// ---- labs ------------------------------------------------------------------

fn tab(name: &str) -> Stepper {
    let mut a = app();
    while a.t(a.tab.key()) != name {
        a.act(Action::NextTab);
    }
    a
}

fn type_text(a: &mut Stepper, s: &str) {
    for c in s.chars() {
        a.act(Action::Char(c));
    }
    a.act(Action::Submit);
}

#[test]
fn tab_cycles_through_every_tab_and_back() {
    let mut a = app();
    let mut seen = vec![a.t(a.tab.key())];
    for _ in 0..6 {
        a.act(Action::NextTab);
        seen.push(a.t(a.tab.key()));
    }
    assert_eq!(
        seen,
        [
            "Steps", "Checks", "FFN", "Norms", "Budget", "Probes", "Steps"
        ]
    );
    a.act(Action::PrevTab);
    assert_eq!(a.t(a.tab.key()), "Probes");
}

#[test]
fn snapshot_ffn_lab_after_editing_x() {
    let mut a = tab("FFN");
    a.act(Action::Edit);
    assert_eq!(a.key_mode(), KeyMode::Typing);
    for _ in 0..3 {
        a.act(Action::Backspace);
    }
    type_text(&mut a, "2,-1");
    assert_eq!(a.labs.ffn.ex.z, [2.0, -2.0, -3.0]);
    a.act(Action::Last);
    let s = screen(&a);
    assert!(s.contains("z_2 = 2*0 + (-1)*2 = -2"), "{s}");
    assert!(s.contains("switched off unit(s) 2 and 3"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn ffn_lab_steps_one_product_at_a_time_and_refuses_a_bad_x() {
    let mut a = tab("FFN");
    assert_eq!(a.labs.ffn.shown, 1);
    let s = screen(&a);
    assert!(
        s.contains("▶ z_1 = 1*1 + 2*0 = 1") && s.contains("z_2 = …"),
        "{s}"
    );
    a.act(Action::Next);
    a.act(Action::Next);
    assert!(screen(&a).contains("▶ z_3 = 1*(-1) + 2*1 = 1"));
    a.act(Action::Last);
    let s = screen(&a);
    assert!(s.contains("x + y = [1, 7]"), "{s}");
    a.act(Action::Edit);
    a.act(Action::Backspace);
    a.act(Action::Backspace);
    type_text(&mut a, "");
    let e = a.labs.editing.as_ref().expect("a one-number x stays open");
    assert!(e.error.is_some());
    assert!(screen(&a).contains("✗"));
    a.act(Action::Cancel);
    assert!(a.labs.editing.is_none());
    assert_eq!(a.labs.ffn.ex.x, [1.0, 2.0]);
}

#[test]
fn norms_lab_compares_layernorm_and_rmsnorm_on_an_edited_vector() {
    let mut a = tab("Norms");
    let s = screen(&a);
    assert!(
        s.contains("= [-1, 1]") && s.contains("[0.8485, 1.1314]"),
        "{s}"
    );
    a.act(Action::Edit);
    for _ in 0..3 {
        a.act(Action::Backspace);
    }
    type_text(&mut a, "1,2,3,4");
    assert_eq!(a.labs.norms.x, [1.0, 2.0, 3.0, 4.0]);
    insta::assert_snapshot!(screen(&a));
}

#[test]
fn budget_lab_updates_live_and_matches_the_budget_api() {
    let mut a = tab("Budget");
    let s = screen(&a);
    assert!(
        s.contains("124,439,808") && s.contains("7,087,872") && s.contains("54.5%"),
        "{s}"
    );
    a.act(Action::Next); // d_model 64 → 128
    let lab = a.labs.budget.as_ref().unwrap();
    assert_eq!(lab.cfg.d_model, 128);
    let want = shapetrace::budget::Budget::of(&lab.cfg).unwrap();
    assert_eq!(lab.ours.total, want.total);
    assert!(screen(&a).contains(&shapetrace::budget::thousands(want.total)));
    a.act(Action::Down);
    a.act(Action::Down); // heads
    a.act(Action::Next);
    assert_eq!(a.labs.budget.as_ref().unwrap().cfg.attention.heads, 8);
    a.act(Action::Down);
    a.act(Action::Down);
    a.act(Action::Down); // act
    a.act(Action::Next);
    assert_eq!(a.labs.budget.as_ref().unwrap().cfg.mlp.act, Act::GeluTanh);
    a.act(Action::First);
    assert_eq!(
        &a.labs.budget.as_ref().unwrap().cfg,
        a.cfg(),
        "g resets to the stepper's model"
    );
    insta::assert_snapshot!(a.frame());
}

#[test]
fn probes_lab_shows_a_leak_only_when_the_model_leaks() {
    let mut a = tab("Probes");
    a.act(Action::First);
    a.act(Action::Next);
    a.act(Action::Next);
    assert_eq!(a.labs.probes.token, Some(2));
    let s = screen(&a);
    assert!(
        s.contains("✓ causality holds for token 2") && !s.contains("✗  "),
        "{s}"
    );
    while a.cfg().fault != Some(Fault::NoCausalMask) {
        a.act(Action::CycleFault);
    }
    let s = a.frame();
    assert!(s.contains("✗ causality fails"), "{s}");
    insta::assert_snapshot!(s);
    while a.cfg().fault != Some(Fault::NormOverSeq) {
        a.act(Action::CycleFault);
    }
    a.act(Action::Down);
    let s = screen(&a);
    assert!(
        s.contains("Probes: positionwise") && s.contains("✗ positionwise fails"),
        "{s}"
    );
}

#[test]
fn probes_run_on_a_worker_one_at_a_time_and_the_newest_wins() {
    let mut a = tab("Probes");
    let key = |a: &Stepper| a.labs.probes.key(a.generation);
    assert!(a.labs.probes.current(a.generation).is_some());
    // It opened on the middle token (nothing leaks); moving the token
    // asks the loop for a probe; the screen says so.
    assert_eq!(key(&a).token, Some(2));
    a.0.app.update(Action::First);
    assert!(
        matches!(&a.wanted[..], [Wanted::Probe { key: k, .. }] if k.token == Some(0)),
        "{:?}",
        a.wanted
    );
    assert!(screen(&a).contains("computing…"), "{}", screen(&a));
    a.0.show().unwrap();
    assert!(a.wanted.is_empty() && a.labs.probes.running.is_some());
    // Moved again while that one runs: no second probe until it is back;
    // then the one for token 1 is asked and shown, token 0's dropped.
    a.0.app.update(Action::Next);
    assert!(a.wanted.is_empty());
    settle(&mut a.0);
    assert_eq!(key(&a).token, Some(1));
    assert_eq!(a.labs.probes.view.as_ref().map(|(k, _)| *k), Some(key(&a)));
    assert!(a.frame().contains("✓ causality holds for token 1"));
    // A probe for another token, probe or model that comes back is dropped.
    let shown = key(&a);
    for stale in [
        ProbeKey {
            token: Some(0),
            ..shown
        },
        ProbeKey {
            generation: shown.generation + 1,
            ..shown
        },
    ] {
        a.0.app.finish(Done::Probe {
            key: stale,
            result: Err("stale".into()),
        });
        assert!(matches!(a.labs.probes.current(a.generation), Some(Ok(_))));
    }
    // A new model asks again.
    a.act(Action::CycleFault);
    assert_eq!(a.labs.probes.view.as_ref().map(|(k, _)| *k), Some(key(&a)));
    assert_eq!(key(&a).generation, shown.generation + 1);
}

#[test]
fn a_probe_failure_is_marked_on_its_step_with_its_message() {
    let mut a = app();
    while a.cfg().fault != Some(Fault::MergeNoTranspose) {
        a.act(Action::CycleFault);
    }
    a.act(Action::Select(11));
    assert_eq!(a.path(a.cursor), Some("block1.attn.merge"));
    let s = screen(&a);
    assert!(s.contains("✗ causality fails here"), "{s}");
    assert!(
        s.contains("✗ causality: block1.attn.merge: changing"),
        "{s}"
    );
}

/// The loop for `app` on an 80×24 test terminal, nothing run yet.
fn unstarted(app: App) -> Stepper {
    Stepper(EventLoop::new(
        app,
        Terminal::new(TestBackend::new(80, 24)).unwrap(),
    ))
}

#[test]
fn the_terminal_app_opens_on_shapes_and_takes_values_from_the_background() {
    let opened = shapetrace::tui::app(
        ModelConfig::default(),
        Launch::default(),
        Given::default(),
        COLOR,
    )
    .unwrap();
    assert_eq!(opened.run.trace.mode, shapetrace::trace::Mode::ShapeOnly);
    assert!(
        matches!(
            &opened.wanted[..],
            [Wanted::Trace {
                what: Retrace::Values,
                ..
            }]
        ),
        "the full trace is asked for"
    );
    // Before the first event is counted the gauge names no count.
    let mut a = opened.clone();
    a.progress = Some((0, 0));
    let s = screen(&a);
    assert!(
        s.contains("tracing values · keys work") && !s.contains("0/0"),
        "{s}"
    );
    a.progress = Some((10, 37));
    assert!(screen(&a).contains("tracing values: 10/37 events"));
    // The loop starts the trace on a worker; keys work meanwhile.
    let mut a = unstarted(opened);
    a.0.show().unwrap();
    assert!(a.wanted.is_empty() && a.tracing.is_some());
    a.press("r");
    assert_eq!(a.run.trace.mode, shapetrace::trace::Mode::Numeric);
    assert_eq!(
        a.path(a.cursor),
        Some("block1.resid_1"),
        "the cursor stays put"
    );
    assert!(a.progress.is_none());
    assert!(
        a.frame().contains("r add"),
        "the gauge is gone:\n{}",
        a.frame()
    );
}

/// The stepper traced with a checkpoint and an input, as
/// `shapetrace --weights … --input …` opens it (its loop not started),
/// and the run of the command line's trace.
fn given_app() -> (Stepper, shapetrace::Run) {
    let src = shapetrace::load::Sources {
        weights: Some("tests/fixtures/nanogpt-tiny.safetensors".into()),
        input: Some("tests/fixtures/nanogpt-tiny-input.npy".into()),
        ..Default::default()
    };
    let flags = shapetrace::Overlay {
        heads: Some(4),
        ..Default::default()
    };
    let (cfg, req) =
        shapetrace::load::resolve(&flags, &src, shapetrace::Request::default()).unwrap();
    let given = Given::new(&req, Some("nanogpt-tiny.safetensors".into()));
    let cli = shapetrace::run_request(&cfg, &req).unwrap();
    let app = shapetrace::tui::app(cfg, Launch::default(), given, COLOR).unwrap();
    (unstarted(app), cli)
}

#[test]
fn the_stepper_traces_loaded_weights_and_input_in_the_background() {
    let (mut a, cli) = given_app();
    assert_eq!(a.run.trace.mode, shapetrace::trace::Mode::ShapeOnly);
    assert!(
        // Cut in its middle so the tabs fit 80 columns.
        screen(&a).contains("◆ nanogpt-t…afetensors [Steps]"),
        "{}",
        screen(&a)
    );
    assert!(a.given.req.weights.is_some() && a.given.req.input.is_some());
    settle(&mut a.0);
    assert_eq!(
        a.status.as_deref(),
        Some("values from nanogpt-tiny.safetensors")
    );
    // Step 0 says where x0 came from.
    assert!(
        a.frame().contains("from the given input x0 (--input)"),
        "{}",
        a.frame()
    );
    // The same numbers as `shapetrace trace --weights … --input …`.
    let stats = |r: &shapetrace::Run| -> Vec<_> {
        r.trace
            .events
            .iter()
            .map(|e| (e.path.clone(), e.stats))
            .collect()
    };
    assert_eq!(stats(&a.run), stats(&cli));
    // ...and not those of the seeded model, so the comparison can fail.
    let seeded = shapetrace::run_request(a.cfg(), &Given::default().req).unwrap();
    assert_ne!(stats(&a.run), stats(&seeded));
    // Every live switch re-traces with the loaded weights.
    for switch in [
        Action::CycleAct,
        Action::ToggleNorm,
        Action::TogglePlacement,
        Action::CycleFault,
    ] {
        let before = a.cfg().clone();
        a.act(switch);
        assert_ne!(a.cfg(), &before, "{switch:?} switched the model");
        let seeded = shapetrace::run_request(a.cfg(), &Given::default().req).unwrap();
        assert_ne!(
            stats(&a.run),
            stats(&seeded),
            "{switch:?} traced the checkpoint"
        );
    }
}

/// The diagram draws the anatomy the trace recorded, not the config:
/// under skip-block1 block 2's stream is named x0 with a word, and a
/// trace whose config says post-LN but whose recorded anatomy is Pre-LN
/// (as a hand-edited log could) is drawn Pre-LN.
#[test]
fn the_diagram_draws_the_recorded_anatomy() {
    let mut lp = common::stepper(
        common::cfg("fault = 'skip-block1'"),
        shapetrace::tui::app::Given::default(),
    );
    let at = |lp: &common::TestLoop, path: &str| {
        lp.app
            .run
            .trace
            .events
            .iter()
            .position(|e| e.path == path)
            .unwrap()
    };
    lp.app.cursor = at(&lp, "block2.ln_1");
    lp.show().unwrap();
    let screen = common::frame(&lp);
    assert!(screen.contains("x0 ─┬─▶"), "{screen}");
    assert!(
        screen.contains("reads x0, not block 1's output"),
        "{screen}"
    );
    lp.app.cursor = at(&lp, "block1.ln_1");
    lp.show().unwrap();
    assert!(!common::frame(&lp).contains("reads x0"));

    let mut lp = common::stepper(common::cfg(""), shapetrace::tui::app::Given::default());
    lp.app.run.trace.config.norms.placement = shapetrace::config::Placement::Post;
    lp.app.cursor = at(&lp, "block1.attn.q");
    lp.show().unwrap();
    let screen = common::frame(&lp);
    assert!(
        screen.contains("pre-LN") && screen.contains("ln_1 ─▶"),
        "{screen}"
    );
}

/// A sliding window of 2 on the lesson model: the weights' heatmap shows
/// `╳` before the window as after the query (query 2 reads keys 1 and 2
/// only), the header names the window, and the why explains it.
#[test]
fn snapshot_sliding_window_heatmap() {
    let mut cfg = ModelConfig::default();
    cfg.attention.window = Some(2);
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    for _ in 0..5 {
        a.act(Action::NextDeparture);
    }
    assert_eq!(a.path(a.cursor), Some("block1.attn.weights"));
    let f = a.frame();
    let q2 = f
        .lines()
        .find(|l| l.contains("q2 "))
        .unwrap_or_else(|| panic!("no row q2:\n{f}"));
    let cells = q2.split("q2").nth(1).unwrap();
    assert_eq!(cells.matches('╳').count(), 2, "{q2}");
    assert!(cells.trim_start().starts_with('╳'), "{q2}");
    assert!(
        f.contains("window=2") && f.contains("sliding window"),
        "{f}"
    );
    insta::assert_snapshot!(f);
}

/// The encoder preset: the block's title says encoder, and the weights'
/// heatmap has no `╳`, since every query reads every key.
#[test]
fn snapshot_encoder_block() {
    let cfg = shapetrace::config::preset::by_name("lesson-encoder").unwrap();
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("block1.attn.weights") {
        a.act(Action::Next);
    }
    let f = a.frame();
    assert!(f.contains("post-LN, encoder"), "{f}");
    assert!(!f.contains('╳'), "{f}");
    insta::assert_snapshot!(f);
}

/// Parallel residuals (GPT-NeoX): both sublayers fork from x, their
/// updates meet at `⊕ update`, and one add `resid_1` closes the block.
#[test]
fn snapshot_parallel_block() {
    let cfg = shapetrace::config::preset::by_name("lesson-parallel").unwrap();
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("block1.update") {
        a.act(Action::Next);
    }
    let f = a.frame();
    for part in [
        "pre-LN, parallel",
        "├─▶ ln_2",
        "⊕ update◀",
        "⊕ resid_1 ✓",
        "2/2",
    ] {
        assert!(f.contains(part), "{part}:\n{f}");
    }
    assert!(!f.contains("resid_2"), "one add a block:\n{f}");
    insta::assert_snapshot!(f);
}

/// Parallel residuals through one shared norm (Falcon-7B): both branches
/// start from `ln_1`, computed once; there is no `ln_2`.
#[test]
fn snapshot_shared_norm_block() {
    let mut cfg = shapetrace::config::preset::by_name("lesson-parallel").unwrap();
    cfg.norms.shared = true;
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("block1.mlp.up") {
        a.act(Action::Next);
    }
    let f = a.frame();
    for part in ["parallel, 1 norm", "├─▶ ln_1", "[mlp]", "⊕ resid_1"] {
        assert!(f.contains(part), "{part}:\n{f}");
    }
    assert!(!f.contains("ln_2"), "one norm a block:\n{f}");
    insta::assert_snapshot!(f);
}

/// BERT's ends: token types and a norm on the embeddings, and the pooler,
/// which leaves (B,T,d) for one vector a sequence, in the LM head's place.
#[test]
fn snapshot_bert_pooler() {
    let cfg = common::cfg(
        "preset = \"lesson-encoder\"\nvocab = 50\ntoken_types = 2\nembed_norm = true\nhead = \"pooler\"\nfinal_norm = false",
    );
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("pooled") {
        a.act(Action::Next);
    }
    let f = a.frame();
    for part in ["[pooler]─▶ (B,d)", "(B=2,d=64)", "pooler.first", "encoder"] {
        assert!(f.contains(part), "{part}:\n{f}");
    }
    assert!(!f.contains("lm_head"), "no LM head:\n{f}");
    insta::assert_snapshot!(f);
}

/// Sandwich norms (Gemma 2): each update goes down through its own norm
/// `post_ln_i` before the add.
#[test]
fn snapshot_sandwich_block() {
    let cfg = shapetrace::config::preset::by_name("lesson-sandwich").unwrap();
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("block1.post_ln_1") {
        a.act(Action::Next);
    }
    let f = a.frame();
    for part in ["sandwich norms", "▼[post_ln_1]", "▼ post_ln_2", "resid_2"] {
        assert!(f.contains(part), "{part}:\n{f}");
    }
    insta::assert_snapshot!(f);
}

/// A mixture of experts (Mixtral): the block draws `moe` in the MLP's
/// place, the header says top 2 of 4 experts, and an expert's batch shows
/// how many tokens chose it, (n_e=5,d=64), leaving (B,T,d).
#[test]
fn snapshot_moe_dispatch() {
    let cfg = shapetrace::config::preset::by_name("lesson-moe").unwrap();
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    while a.path(a.cursor) != Some("block1.moe.expert1.dispatch") {
        a.act(Action::Next);
    }
    let f = a.frame();
    for part in [
        "top 2 of 4 experts",
        "[moe]",
        "(n_e=5,d=64)",
        "◆ leaves (B,T,d)",
        "5 of the 8 tokens",
        "all 11 checks hold",
    ] {
        assert!(f.contains(part), "{part}:\n{f}");
    }
    insta::assert_snapshot!(f);
}

/// The Budget tab's pictures (`c`) for the lesson model and for GPT-2
/// small: the splits in bars with their shares in words, and FLOPs per
/// token against T with the crossover T* = d_ff marked (256 and 3072).
#[test]
fn snapshot_budget_charts() {
    use shapetrace::tui::ui::budget_charts::{crossover, flops, params};
    for (preset, cross) in [("lesson", 256.0), ("gpt2-small", 3072.0)] {
        let cfg = shapetrace::config::preset::by_name(preset).unwrap();
        let mut a = Stepper(common::stepper(cfg.clone(), Given::default()));
        while a.t(a.tab.key()) != "Budget" {
            a.act(Action::NextTab);
        }
        a.act(Action::ToggleCharts);
        let f = a.frame();
        let b = shapetrace::Budget::of(&cfg).unwrap();
        assert_eq!(crossover(&b), Some(cross), "{preset}");
        assert_eq!(params(&b).iter().map(|(_, n)| n).sum::<u64>(), b.total);
        let mlp = flops(&b)[1].1;
        assert_eq!(mlp, 2 * b.config.layers as u64 * b.block.mlp_active_weights);
        for part in [
            "parameters",
            "embed",
            "qkvo",
            "T-term",
            &format!("T*={cross:.0}=d_ff; causal ≈{:.0}", 2.0 * cross),
            "• total ⠿ attn ▄ MLP",
            &format!("█ T*={cross:.0}"),
        ] {
            assert!(f.contains(part), "{preset}: {part}\n{f}");
        }
        insta::assert_snapshot!(format!("budget_charts_{preset}"), f);
    }
}

/// Every cell of `app`'s screen at `w`×`h` is ASCII; else the odd
/// characters and the screen.
fn all_ascii(app: &App, w: u16, h: u16) -> Result<(), String> {
    let buf = draw(app, w, h);
    let odd: String = buf
        .content
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .filter(|s| !s.is_ascii())
        .collect();
    if odd.is_empty() {
        Ok(())
    } else {
        Err(format!("{odd:?} at {w}x{h} in:\n{}", text(&buf)))
    }
}

/// The lesson's stepper under `--ascii`, settled, at 80×24.
fn ascii_lesson() -> TestLoop {
    let launch = Launch {
        ascii: true,
        ..Launch::default()
    };
    let app =
        shapetrace::tui::app(ModelConfig::default(), launch, Given::default(), COLOR).unwrap();
    let mut lp = EventLoop::new(app, Terminal::new(TestBackend::new(80, 24)).unwrap());
    settle(&mut lp);
    lp
}

/// `--ascii` (which TERM=linux selects): every screen, at 80×24 and
/// 120×40, is ASCII to the last cell: every step's Detail pane and
/// heatmap, its whole why, every tab and lab, the Budget's charts and
/// quiz, the help, the step quiz, presenter mode (and autoplay) at every
/// step, and a fault's failure with its ✗ marks.
#[test]
fn ascii_leaves_no_glyph_on_any_screen() {
    let mut lp = ascii_lesson();
    let mut bad = Vec::new();
    let mut check = |app: &App, what: &str| {
        for (w, h) in [(80, 24), (120, 40)] {
            if let Err(e) = all_ascii(app, w, h) {
                bad.push(format!("{what}: {e}"));
            }
        }
    };
    let act = |lp: &mut TestLoop, a: Action| {
        lp.app.update(a);
        settle(lp);
    };
    // An answer typed into a quiz's box and submitted.
    let answer = |lp: &mut TestLoop, text: &str| {
        for c in text.chars() {
            act(lp, Action::Char(c));
        }
        act(lp, Action::Submit);
    };
    // Every step with its heatmap, then with its whole why.
    for why in [false, true] {
        if why {
            act(&mut lp, Action::ToggleWhy);
        }
        act(&mut lp, Action::First);
        for _ in 0..lp.app.rows() {
            check(&lp.app, &format!("step {} why {why}", lp.app.cursor));
            act(&mut lp, Action::Next);
        }
        if why {
            act(&mut lp, Action::ToggleWhy);
        }
    }
    // Presenter mode at every step, and autoplay.
    act(&mut lp, Action::TogglePresent);
    act(&mut lp, Action::First);
    for _ in 0..lp.app.rows() {
        check(&lp.app, &format!("presenter at {}", lp.app.cursor));
        act(&mut lp, Action::Next);
    }
    let mut auto = lp.app.clone();
    auto.autoplay = Some(shapetrace::tui::app::Autoplay {
        every: std::time::Duration::from_secs(1),
        paused: true,
    });
    check(&auto, "autoplay, paused");
    act(&mut lp, Action::TogglePresent);
    // The help, and the step quiz asking, then told it is wrong.
    act(&mut lp, Action::ToggleHelp);
    check(&lp.app, "help");
    act(&mut lp, Action::ToggleHelp);
    act(&mut lp, Action::First);
    act(&mut lp, Action::ToggleQuiz);
    act(&mut lp, Action::NextDeparture);
    check(&lp.app, "quiz asking");
    answer(&mut lp, "(9,9)");
    check(&lp.app, "quiz told wrong");
    act(&mut lp, Action::Cancel);
    act(&mut lp, Action::ToggleQuiz);
    // Every tab, each lab moved on, the Budget's charts and its quiz.
    for _ in 0..Tab::ALL.len() {
        act(&mut lp, Action::NextTab);
        let tab = lp.app.t(lp.app.tab.key());
        check(&lp.app, &tab);
        for a in [Action::Next, Action::Next, Action::Down, Action::Next] {
            act(&mut lp, a);
        }
        check(&lp.app, &format!("{tab}, moved on"));
        if lp.app.tab == Tab::Budget {
            act(&mut lp, Action::ToggleCharts);
            check(&lp.app, "budget charts");
            act(&mut lp, Action::ToggleCharts);
            act(&mut lp, Action::ToggleQuiz);
            check(&lp.app, "budget quiz");
            answer(&mut lp, "12");
            check(&lp.app, "budget quiz told");
            act(&mut lp, Action::Cancel);
        }
    }
    // A fault that stops the forward: its ✗ marks, its failure row, the
    // presenter at it and the Checks tab.
    while lp.app.run.trace.failure.is_none() {
        act(&mut lp, Action::CycleFault);
    }
    act(&mut lp, Action::Last);
    check(&lp.app, "failure");
    act(&mut lp, Action::Prev);
    check(&lp.app, "before the failure");
    act(&mut lp, Action::NextTab);
    check(&lp.app, "checks of a fault");
    act(&mut lp, Action::PrevTab);
    act(&mut lp, Action::Last);
    act(&mut lp, Action::TogglePresent);
    check(&lp.app, "presenter at the failure");
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// `--ascii` writes the formulas' signs as words (`->`, `sqrt`, `mu`,
/// `sum`) and the arrow keys as `<-` `->`, not as letters that could be
/// read as other keys or signs; each mark keeps a sign of its own (`o`
/// holds, `X` fails), so colour is never the only signal.
#[test]
fn ascii_writes_signs_as_words() {
    let mut lp = ascii_lesson();
    let at = |lp: &mut TestLoop, path: &str| {
        lp.app.update(Action::First);
        while lp.app.path(lp.app.cursor) != Some(path) {
            lp.app.update(Action::Next);
        }
        settle(lp);
        text(&draw(&lp.app, 120, 40))
    };
    let scores = at(&mut lp, "block1.attn.scores");
    for part in ["sqrt", "k^T", ") -> (", "query v x key ->"] {
        assert!(scores.contains(part), "{part}:\n{scores}");
    }
    let weights = at(&mut lp, "block1.attn.weights");
    assert!(weights.contains("sum 1.00"), "{weights}");
    let ln = at(&mut lp, "block1.ln_1");
    for part in [" mu ", " sigma ", "<- -> step", "o 4/4"] {
        assert!(ln.contains(part), "{part}:\n{ln}");
    }
}

/// `d` shows the next device of a split model, in device order, and
/// wraps; on one device it changes nothing.
#[test]
fn d_steps_through_the_devices_of_a_split_model() {
    let cfg = ModelConfig {
        devices: shapetrace::config::Devices {
            tp: 2,
            pp: 2,
            ..Default::default()
        },
        ..ModelConfig::default()
    };
    let mut a = Stepper(common::stepper(cfg, Given::default()));
    for want in [1, 2, 3] {
        a.act(Action::CycleDevice);
        assert_eq!(a.cfg().devices.device, want);
    }
    // Device 3: stage 2's second rank, its first step the stream received.
    let frame = a.frame();
    assert!(frame.contains("stage 2 of pp=2 (device 3)"), "{frame}");
    assert!(frame.contains("⧉ device 1 of tp=2"), "{frame}");
    assert_eq!(a.path(0), Some("recv"));
    a.act(Action::CycleDevice);
    assert_eq!(a.cfg().devices.device, 0);
    assert_eq!(a.path(0), Some("input"));
    let mut one = app();
    one.act(Action::CycleDevice);
    assert_eq!(one.cfg().devices, shapetrace::config::Devices::default());
}

/// The first frame of GPT-2 small, drawn before its values are traced:
/// the tracing gauge has a row of its own, so the key hints, the contract
/// line and the message (if any) are all whole beside it (it drew over
/// the hints).
#[test]
fn the_first_frame_gives_the_tracing_gauge_a_row_of_its_own() {
    let cfg = shapetrace::config::preset::by_name("gpt2-small").unwrap();
    for (w, h) in [(80, 24), (120, 40)] {
        let app =
            shapetrace::tui::app(cfg.clone(), Launch::default(), Given::default(), COLOR).unwrap();
        let mut lp = EventLoop::new(app, Terminal::new(TestBackend::new(w, h)).unwrap());
        lp.show().unwrap();
        lp.stop_jobs();
        assert!(lp.app.progress.is_some(), "the first frame traces");
        let f = frame(&lp);
        let rows: Vec<&str> = f.lines().collect();
        let row = |needle: &str| {
            rows.iter()
                .position(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle} at {w}x{h}:\n{f}"))
        };
        let gauge = row("tracing values");
        let hints = row("? help");
        let contract = row("residual adds");
        assert!(
            rows[hints].contains("q quit") && rows[hints].contains("step"),
            "{f}"
        );
        assert_eq!(
            [gauge, hints, contract]
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            3,
            "each on a row of its own at {w}x{h}:\n{f}"
        );
        if let Some(status) = &lp.app.status {
            let start: String = status.chars().take(30).collect();
            assert!(f.contains(&start), "{status} at {w}x{h}:\n{f}");
        }
    }
}

/// Reveal mode with no quiz: the Detail pane says the step key shows the
/// hidden shape, not that a quiz asks for it.
#[test]
fn reveal_mode_says_what_shows_the_hidden_shape() {
    let mut s = app();
    s.act(Action::ToggleReveal);
    s.act(Action::Next);
    let f = s.frame();
    assert!(s.hidden(s.cursor), "{f}");
    assert!(f.contains("shape hidden: → reveals it"), "{f}");
    assert!(!f.contains("the quiz asks"), "{f}");
}
