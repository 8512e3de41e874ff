//! The presenter for a projector and heatmaps a student can read, drawn on
//! a `TestBackend` at the sizes a room has (100×30, 200×50) and
//! snapshotted as text; autoplay's end; horizontal scrolling.

mod common;

use common::{TestLoop, settle};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shapetrace::ModelConfig;
use shapetrace::config::Fault;
use shapetrace::tui::action::{Action, KeyMode, map_key};
use shapetrace::tui::app::{App, Given};
use shapetrace::tui::theme::COLOR;
use shapetrace::tui::ui::num;
use shapetrace::tui::{Launch, app};

/// The stepper on `cfg`, its full trace shown.
fn stepper(cfg: ModelConfig) -> TestLoop {
    common::stepper(cfg, Given::default())
}

fn act(lp: &mut TestLoop, actions: &[Action]) {
    for &a in actions {
        lp.app.update(a);
        settle(lp);
    }
}

/// The screen of `app` at `w`×`h`, one line per row.
fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = term.backend().buffer().clone();
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells
        .chunks(usize::from(w))
        .map(|row| row.concat().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Moves the cursor to the step at `path`.
fn goto(lp: &mut TestLoop, path: &str) {
    let i = lp.app.run.trace.events.iter().position(|e| e.path == path);
    let i = i.unwrap_or_else(|| panic!("{path} is not a step"));
    act(lp, &[Action::Select(i)]);
    assert_eq!(lp.app.path(lp.app.cursor), Some(path));
}

/// The presenter on the lesson's first attention weights.
fn weights() -> TestLoop {
    let mut lp = stepper(ModelConfig::default());
    act(&mut lp, &[Action::TogglePresent]);
    goto(&mut lp, "block1.attn.weights");
    lp
}

/// The presenter on the failure of `ffn-no-down`.
fn failure() -> TestLoop {
    let cfg = ModelConfig {
        fault: Some(Fault::FfnNoDown),
        ..ModelConfig::default()
    };
    let mut lp = stepper(cfg);
    act(&mut lp, &[Action::TogglePresent, Action::Last]);
    lp
}

#[test]
fn presenter_weights_100x30() {
    insta::assert_snapshot!(screen(&weights().app, 100, 30));
}

#[test]
fn presenter_weights_200x50() {
    insta::assert_snapshot!(screen(&weights().app, 200, 50));
}

#[test]
fn presenter_failure_100x30() {
    insta::assert_snapshot!(screen(&failure().app, 100, 30));
}

#[test]
fn presenter_failure_200x50() {
    insta::assert_snapshot!(screen(&failure().app, 200, 50));
}

#[test]
fn detail_heatmap_shows_legend_axes_and_numbers() {
    let mut lp = stepper(ModelConfig::default());
    goto(&mut lp, "block1.attn.weights");
    insta::assert_snapshot!(screen(&lp.app, 80, 24));
}

#[test]
fn wide_heatmap_scrolled() {
    let mut lp = stepper(ModelConfig::default());
    goto(&mut lp, "block1.ln_1");
    act(&mut lp, &[Action::ScrollRight, Action::ScrollRight]);
    insta::assert_snapshot!(screen(&lp.app, 80, 24));
}

// ---- behaviour ----------------------------------------------------------

/// Lines of `screen` holding `needle`.
fn lines_with<'a>(screen: &'a str, needle: &str) -> Vec<&'a str> {
    screen.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn autoplay_stays_on_the_last_step_and_space_replays() {
    let launch = Launch {
        autoplay: Some(0.5),
        ..Launch::default()
    };
    let mut a = app(ModelConfig::default(), launch, Given::default(), COLOR).unwrap();
    let last = a.rows() - 1;
    a.update(Action::Last);
    a.update(Action::Tick);
    assert_eq!(a.cursor, last, "the last step stays on screen");
    assert!(a.autoplay.unwrap().paused, "autoplay stops there");
    a.update(Action::Tick);
    assert_eq!(a.cursor, last, "a paused autoplay does not move");
    let s = screen(&a, 100, 30);
    let steps = a.run.trace.step_count();
    assert_eq!(steps, last + 1, "the steps are numbered from 0");
    assert!(s.contains(&format!("step {last} · {steps} steps")), "{s}");
    a.update(Action::TogglePause);
    assert_eq!(a.cursor, 0, "space on the last step replays from the first");
    assert!(!a.autoplay.unwrap().paused);
    a.update(Action::Tick);
    assert_eq!(a.cursor, 1);
}

#[test]
fn the_step_counter_counts_like_the_stepper() {
    let lp = weights();
    let s = screen(&lp.app, 100, 30);
    let steps = lp.app.run.trace.step_count();
    let step = lp.app.run.trace.events[lp.app.cursor].step;
    assert!(s.contains(&format!("step {step} · {steps} steps ·")), "{s}");
    assert!(!s.contains("of 0–"), "no range in the counter:\n{s}");
}

/// Lines the big text takes: those above the step counter, below the header.
fn big_lines(s: &str) -> usize {
    s.lines().position(|l| l.starts_with(" step ")).unwrap() - 2
}

#[test]
fn large_text_grows_with_the_terminal() {
    let lp = weights();
    let (small, large) = (screen(&lp.app, 100, 30), screen(&lp.app, 200, 50));
    assert!(
        big_lines(&large) > big_lines(&small),
        "200×50 gets larger text than 100×30:\n{small}\n{large}"
    );
    // Nothing is cut: the path fits whole at both sizes, and every query row
    // of the heatmap is there with its sum.
    for s in [&small, &large] {
        assert_eq!(lines_with(s, "Σ 1.00").len(), 4, "{s}");
        for q in ["q0", "q1", "q2", "q3"] {
            assert_eq!(lines_with(s, &format!("│{q} ")).len(), 1, "{q} in\n{s}");
        }
    }
}

#[test]
fn the_heatmap_prints_the_tensors_own_numbers_and_row_sums() {
    let mut lp = stepper(ModelConfig::default());
    goto(&mut lp, "block1.attn.weights");
    for head in 0..4 {
        let s = screen(&lp.app, 80, 24);
        let e = &lp.app.run.trace.events[lp.app.cursor];
        let v = e.values.as_ref().unwrap();
        for q in 0..4 {
            let row = lines_with(&s, &format!("│q{q}  "));
            assert_eq!(row.len(), 1, "q{q} in\n{s}");
            let line = row[0];
            let cells = &v[(head * 4 + q) * 4..(head * 4 + q + 1) * 4];
            for (k, x) in cells.iter().enumerate() {
                if k > q {
                    assert_eq!(*x, 0.0, "masked weight");
                } else {
                    assert!(
                        line.contains(&num(*x)),
                        "h{head} q{q} k{k} {}: {line}",
                        num(*x)
                    );
                }
            }
            let masked = line.matches('╳').count();
            assert_eq!(masked, 3 - q, "keys after q{q} are masked: {line}");
            let sum: f64 = cells.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4);
            assert!(line.contains(&format!("Σ{sum:.2}")), "{line}");
        }
        assert!(
            s.contains(&format!("b0 h{head} 4×4 · query ↓ × key →")),
            "{s}"
        );
        act(&mut lp, &[Action::NextHead]);
    }
}

#[test]
fn the_legend_gives_each_shade_its_value() {
    let mut lp = stepper(ModelConfig::default());
    goto(&mut lp, "block1.attn.scores");
    let s = screen(&lp.app, 100, 40);
    let e = &lp.app.run.trace.events[lp.app.cursor];
    let v = &e.values.as_ref().unwrap()[..16];
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let legend = format!("·{lo:.2} ░{:.2}", lo + (hi - lo) / 4.0);
    assert!(s.contains(&legend), "{legend} in\n{s}");
    assert!(s.contains(&format!("█{hi:.2}")), "{s}");
    assert!(!s.contains("╳"), "scores are drawn before the mask:\n{s}");
}

#[test]
fn a_wide_tensor_scrolls_instead_of_being_resampled() {
    let mut lp = stepper(ModelConfig::default());
    goto(&mut lp, "block1.ln_1");
    let s = screen(&lp.app, 100, 40);
    assert!(s.contains("cols 0–"), "{s}");
    assert!(s.contains("of 64  ▸"), "{s}");
    act(&mut lp, &[Action::ScrollRight, Action::ScrollRight]);
    assert_eq!(lp.app.col, 16);
    let s = screen(&lp.app, 100, 40);
    assert!(s.contains("cols 16–"), "{s}");
    assert!(s.contains("of 64 ◂▸"), "{s}");
    // Each row's first cell is column 16's own shade.
    let e = &lp.app.run.trace.events[lp.app.cursor];
    let v = &e.values.as_ref().unwrap()[..4 * 64];
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    for t in 0..4 {
        let level = ((v[t * 64 + 16] - lo) / (hi - lo) * 4.0).round() as usize;
        let glyph = ["·", "░", "▒", "▓", "█"][level];
        let row = lines_with(&s, &format!("│t{t}  "));
        assert!(
            row[0].contains(&format!("│t{t}  {glyph}{glyph}")),
            "{}",
            row[0]
        );
    }
    for _ in 0..20 {
        act(&mut lp, &[Action::ScrollRight]);
    }
    assert_eq!(lp.app.col, 56, "stops on the last page of 64 columns");
    let s = screen(&lp.app, 100, 40);
    assert!(s.contains("cols 56–63 of 64 ◂ "), "{s}");
    for _ in 0..20 {
        act(&mut lp, &[Action::ScrollLeft]);
    }
    assert_eq!(lp.app.col, 0);
    goto(&mut lp, "block1.attn.weights");
    act(&mut lp, &[Action::ScrollRight]);
    assert_eq!(lp.app.col, 0, "a 4-wide slice has nothing to scroll");
}

#[test]
fn scroll_keys_are_free_keys_and_typing_keeps_them() {
    let k =
        |c| ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char(c));
    assert_eq!(map_key(k('<'), KeyMode::Normal), Some(Action::ScrollLeft));
    assert_eq!(
        map_key(k('>'), KeyMode::Autoplay),
        Some(Action::ScrollRight)
    );
    assert_eq!(map_key(k('<'), KeyMode::Typing), Some(Action::Char('<')));
}

#[test]
fn a_failure_names_its_operands_and_the_fault() {
    let lp = failure();
    let s = screen(&lp.app, 100, 30);
    let f = lp.app.run.trace.failure.as_ref().unwrap();
    assert!(s.contains("residual stops the forward"), "{s}");
    for o in &f.operands {
        assert!(s.contains(&o.path), "{} in\n{s}", o.path);
    }
    assert!(s.contains("fault ffn-no-down"), "{s}");
}

#[test]
fn without_the_mask_the_heatmap_shows_no_mask() {
    let cfg = ModelConfig {
        fault: Some(Fault::NoCausalMask),
        ..ModelConfig::default()
    };
    let mut lp = stepper(cfg);
    goto(&mut lp, "block1.attn.weights");
    let s = screen(&lp.app, 80, 24);
    assert!(!s.contains('╳'), "nothing is masked:\n{s}");
    let e = &lp.app.run.trace.events[lp.app.cursor];
    let v = e.values.as_ref().unwrap();
    // q0 now attends to every key: its later keys are printed, not masked.
    let row = lines_with(&s, "│q0  ")[0];
    for x in &v[1..4] {
        assert!(*x > 0.0);
        assert!(row.contains(&num(*x)), "{row}");
    }
    assert!(row.contains("Σ1.00"), "{row}");
}

#[test]
fn a_scroll_left_from_a_wider_step_does_not_hide_a_slice_that_fits() {
    let mut lp = stepper(ModelConfig::default());
    goto(&mut lp, "block1.mlp.act");
    act(&mut lp, &[Action::ScrollRight]);
    assert!(screen(&lp.app, 80, 24).contains("cols 8–"));
    goto(&mut lp, "block1.attn.q");
    assert_eq!(lp.app.col, 8, "the scroll is kept for the next wide step");
    let s = screen(&lp.app, 80, 24);
    assert!(
        s.contains("b0 h0 4×16 · T ↓ × hd →") && !s.contains("cols "),
        "{s}"
    );
    act(&mut lp, &[Action::TogglePresent]);
    let s = screen(&lp.app, 200, 50);
    assert!(!s.contains("cols "), "all 16 columns fit at 200×50:\n{s}");
    // Wide enough to print every number of the head's 4×16 slice.
    let e = &lp.app.run.trace.events[lp.app.cursor];
    for x in &e.values.as_ref().unwrap()[..16] {
        assert!(
            lines_with(&s, "│t0 ")[0].contains(&num(*x)),
            "{}:\n{s}",
            num(*x)
        );
    }
}

#[test]
fn without_colour_the_presenter_says_the_same() {
    let mut lp = weights();
    let colour = screen(&lp.app, 100, 30);
    lp.app.theme = shapetrace::tui::theme::MONO;
    assert_eq!(
        screen(&lp.app, 100, 30),
        colour,
        "glyphs and numbers carry it all"
    );
    assert!(colour.contains('╳') && colour.contains("Σ 1.00") && colour.contains("█"));
}

/// Reveal mode (`o`): the presenter names the next step and hides its
/// shape until → is pressed once more; a step already shown stays shown.
#[test]
fn reveal_mode_hides_each_next_shape_until_the_step_key() {
    let mut lp = stepper(ModelConfig::default());
    act(&mut lp, &[Action::TogglePresent]);
    goto(&mut lp, "block1.attn.v");
    assert_eq!(
        map_key(
            ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char(
                'o'
            )),
            KeyMode::Normal
        ),
        Some(Action::ToggleReveal)
    );
    act(&mut lp, &[Action::ToggleReveal, Action::Next]);
    assert_eq!(lp.app.path(lp.app.cursor), Some("block1.attn.scores"));
    let hidden = screen(&lp.app, 100, 30);
    // The path is drawn large; the shape is `?`, the prompt a word.
    assert!(hidden.contains("predict the shape"), "{hidden}");
    assert!(hidden.contains("Press → to reveal it"), "{hidden}");
    assert!(
        !hidden.contains("(2,4,4,4)"),
        "the shape is hidden:\n{hidden}"
    );
    act(&mut lp, &[Action::Next]);
    assert_eq!(
        lp.app.path(lp.app.cursor),
        Some("block1.attn.scores"),
        "the key revealed, not stepped"
    );
    let shown = screen(&lp.app, 100, 30);
    assert!(shown.contains("(B=2,h=4,Tq=4,Tk=4)"), "{shown}");
    act(&mut lp, &[Action::Prev, Action::Next]);
    assert!(!lp.app.hidden(lp.app.cursor), "a shown step stays shown");
    act(&mut lp, &[Action::ToggleReveal, Action::Next]);
    assert!(!lp.app.hidden(lp.app.cursor), "off: every shape shown");
    insta::assert_snapshot!(hidden);
}

/// The text inside the box titled ` {title} ` on `buf`, its rows joined,
/// every blank taken out (wrapping moves only blanks).
fn boxed(buf: &ratatui::buffer::Buffer, title: &str) -> Option<String> {
    let (w, h) = (buf.area.width, buf.area.height);
    let sym = |x: u16, y: u16| buf[(x, y)].symbol().to_string();
    let label: Vec<String> = format!(" {title} ").chars().map(String::from).collect();
    for y in 0..h {
        for x in 0..w.saturating_sub(label.len() as u16 + 1) {
            let corner = sym(x, y);
            if !(corner == "┌" || corner == "+")
                || !(0..label.len()).all(|k| sym(x + 1 + k as u16, y) == label[k])
            {
                continue;
            }
            let right = (x + 1..w).find(|&r| matches!(sym(r, y).as_str(), "┐" | "+"))?;
            let bottom = (y + 1..h).find(|&b| matches!(sym(x, b).as_str(), "└" | "+"))?;
            let mut s = String::new();
            for yy in y + 1..bottom {
                for xx in x + 1..right {
                    s.push_str(&sym(xx, yy));
                }
            }
            return Some(s.chars().filter(|c| !c.is_whitespace()).collect());
        }
    }
    None
}

/// At 100×30 and 80×24 the presenter shows each step's why whole, or the
/// whole sentences that fit and a note that the rest is in the Detail
/// pane: never a sentence cut in its middle (it cut `…not (2,4,64): one
/// table per`).
#[test]
fn the_presenter_never_cuts_a_why_mid_sentence() {
    let mut lp = stepper(ModelConfig::default());
    act(&mut lp, &[Action::TogglePresent, Action::First]);
    let mut cut = 0;
    for _ in 0..lp.app.rows() {
        let e = &lp.app.run.trace.events[lp.app.cursor];
        let why = lp.app.lang.step_why(e.why.as_ref(), e.why_text());
        let why: String = why.chars().filter(|c| !c.is_whitespace()).collect();
        for (w, h) in [(100, 30), (80, 24)] {
            let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
            term.draw(|f| f.render_widget(&lp.app, f.area())).unwrap();
            let buf = term.backend().buffer();
            let shown = boxed(buf, "Why").unwrap_or_else(|| panic!("no why box at {w}x{h}"));
            if shown.starts_with(&why) {
                continue;
            }
            cut += 1;
            let at = format!("{} at {w}x{h}: {shown}", e.path);
            let note = shown
                .find("…moreintheDetailpane")
                .unwrap_or_else(|| panic!("no note: {at}"));
            let kept = &shown[..note];
            assert!(why.starts_with(kept), "{at}");
            assert!(
                kept.is_empty() || kept.ends_with(['.', '?', '!']),
                "cut mid-sentence: {at}"
            );
        }
        act(&mut lp, &[Action::Next]);
    }
    assert!(cut > 0, "some why is too long for 80x24");
}

/// The presenter (and autoplay, which shows its line) counts the steps the
/// HTML handout counts: `step N · 37 steps` where the handout says `37 steps`,
/// for the lesson and GPT-2 small.
#[test]
fn the_presenter_counts_the_steps_the_handout_counts() {
    for cfg in [
        ModelConfig::default(),
        shapetrace::config::preset::by_name("gpt2-small").unwrap(),
    ] {
        // The shapes the stepper opens on, before its values are traced.
        let mut a = app(cfg.clone(), Launch::default(), Given::default(), COLOR).unwrap();
        a.update(Action::TogglePresent);
        let s = screen(&a, 100, 30);
        let of = s
            .split("step 0 · ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no step counter:\n{s}"));
        let run = shapetrace::run_request(&cfg, &shapetrace::Request::shapes()).unwrap();
        let html = shapetrace::report::html::trace(&run.trace, &run.checks, None);
        let steps = html
            .split(" steps ·")
            .next()
            .and_then(|h| h.rsplit(' ').next())
            .unwrap();
        assert_eq!(of, steps, "{}: the presenter and the handout", cfg.preset);
    }
}
