//! Helpers shared by the integration tests.
#![allow(dead_code)]

use shapetrace::{ModelConfig, Overlay};

/// The lesson config with `toml` laid over it.
pub fn cfg(toml: &str) -> ModelConfig {
    Overlay::from_toml(toml, "test")
        .expect("test overlay parses")
        .resolve()
        .expect("test config is valid")
}

/// Runs the binary with `args`: its exit code, stdout and stderr.
pub fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let o = assert_cmd::Command::cargo_bin("shapetrace")
        .expect("the binary is built")
        .args(args)
        .output()
        .expect("the binary runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The largest |a − b| of two arrays of one shape.
pub fn largest_delta(a: &ndarray::ArrayD<f32>, b: &ndarray::ArrayD<f32>) -> f32 {
    assert_eq!(a.shape(), b.shape());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// One line per event: step, path, shape, dtype and the departs flag.
pub fn shape_lines(trace: &shapetrace::Trace) -> String {
    trace
        .events
        .iter()
        .map(|e| {
            let d = if e.departs { "departs" } else { "" };
            format!(
                "{:>2} {:<22} {:<12} {} {d}",
                e.step,
                e.path,
                shapetrace::ops::fmt_shape(&e.shape),
                e.dtype
            )
            .trim_end()
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Makes a named pipe (FIFO) at `path`, readable and writable by its owner.
pub fn mkfifo(path: &std::path::Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
}

/// The stepper's screen for `app` at `w`×`h`, as one string of its cells.
pub fn screen_of(app: &shapetrace::tui::app::App, w: u16, h: u16) -> String {
    let mut term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| f.render_widget(app, f.area()))
        .expect("test draw");
    term.backend()
        .buffer()
        .content
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect()
}

/// The event paths, in order.
pub fn paths(trace: &shapetrace::Trace) -> Vec<String> {
    trace.events.iter().map(|e| e.path.clone()).collect()
}

/// Small valid configs of every kind (activation, norm, placement, bias,
/// grouped-query attention, final norm, dtype); with `faults`, some carry
/// a teaching fault that shows on them.
pub fn small_configs(faults: bool) -> impl proptest::strategy::Strategy<Value = ModelConfig> {
    use proptest::prelude::*;
    use shapetrace::config::{Act, DType, Fault, NormKind, Placement, PosEmb};
    let fault = if faults {
        proptest::option::of(0..Fault::ALL.len()).boxed()
    } else {
        Just(None).boxed()
    };
    (
        (
            1usize..=3,
            1usize..=6,
            1usize..=3,
            1usize..=4,
            1usize..=3,
            1usize..=3,
        ),
        (
            0usize..4,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        (any::<u64>(), fault, any::<bool>()),
    )
        .prop_map(
            |(
                (b, t, kv, group, hd, layers),
                (act, rms, post, bias, fin, f64),
                (seed, fault, rope),
            )| {
                let heads = kv * group;
                let mut c = ModelConfig {
                    batch: b,
                    seq: t,
                    d_model: heads * hd * 2,
                    layers,
                    bias,
                    dtype: if f64 { DType::F64 } else { DType::F32 },
                    seed,
                    ..ModelConfig::default()
                };
                (c.attention.heads, c.attention.kv_heads) = (heads, kv);
                (c.mlp.d_ff, c.mlp.act) = (heads * hd * 3, Act::ALL[act]);
                c.norms.kind = if rms {
                    NormKind::RmsNorm
                } else {
                    NormKind::LayerNorm
                };
                c.norms.placement = if post {
                    Placement::Post
                } else {
                    Placement::Pre
                };
                c.norms.final_norm = fin;
                c.positions.kind = if rope { PosEmb::Rope } else { PosEmb::Learned };
                c.fault = fault.map(|i| Fault::ALL[i]);
                if c.validate().is_err() {
                    c.fault = None; // a fault that would not show on this model
                }
                c
            },
        )
}

/// The largest difference between two arrays' values, in order.
pub fn max_diff<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
) -> f32 {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// How long a test waits for the stepper's jobs (traces, probes) before
/// it fails.
pub const JOB_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// The stepper's event loop on an 80×24 test terminal.
pub type TestLoop = shapetrace::tui::event_loop::EventLoop<ratatui::backend::TestBackend>;

/// The stepper as the command line opens it for `cfg` and `given`
/// (`shapetrace::tui::app`), on an 80×24 test terminal, its event loop
/// turned until the first full trace is shown.
pub fn stepper(cfg: ModelConfig, given: shapetrace::tui::app::Given) -> TestLoop {
    use shapetrace::tui::{Launch, theme::COLOR};
    let app =
        shapetrace::tui::app(cfg, Launch::default(), given, COLOR).expect("the stepper opens");
    let terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("test terminal");
    let mut lp = shapetrace::tui::event_loop::EventLoop::new(app, terminal);
    settle(&mut lp);
    lp
}

/// Whether the app waits for a job: asked for and not started, or a
/// trace or probe started and not back.
pub fn busy(app: &shapetrace::tui::app::App) -> bool {
    !app.wanted.is_empty() || app.tracing.is_some() || app.labs.probes.running.is_some()
}

/// Turns the loop as the terminal does until every message sent to it is
/// taken and every job the app asked for is back and drawn; fails after
/// [`JOB_WAIT`].
pub fn settle(lp: &mut TestLoop) {
    let deadline = std::time::Instant::now() + JOB_WAIT;
    lp.show().expect("test draw");
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(
            !left.is_zero(),
            "the stepper's jobs were not back within {JOB_WAIT:?}"
        );
        // Wait only for a job; queued messages are taken at once.
        let wait = if busy(&lp.app) {
            left
        } else {
            std::time::Duration::ZERO
        };
        let came = lp.turn(wait).expect("test turn");
        if !came && !busy(&lp.app) {
            return;
        }
    }
}

/// The text of the loop's last frame, one line per row, trailing spaces cut.
pub fn frame(lp: &TestLoop) -> String {
    let buf = lp.terminal.backend().buffer();
    let w = usize::from(buf.area.width);
    let cells: Vec<&str> = buf
        .content
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect();
    cells
        .chunks(w)
        .map(|row| row.concat().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `s` with the digits of every largest difference from the plain f64
/// forward (the number after `|Δ| `, or `\|Δ\| ` in Markdown) masked as
/// `#`, its width kept: its last digits depend on the order the CPU's
/// kernels add in, so a snapshot keeps its form and place, not them.
pub fn mask_delta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("Δ") {
        let (before, after) = rest.split_at(at + "Δ".len());
        out.push_str(before);
        let bar = ["\\| ", "| "].into_iter().find(|b| after.starts_with(b));
        let Some(bar) = bar else {
            rest = after;
            continue;
        };
        out.push_str(bar);
        let number = &after[bar.len()..];
        let end = number
            .find(|c: char| !(c.is_ascii_digit() || ".e-+".contains(c)))
            .unwrap_or(number.len());
        out.extend(
            number[..end]
                .chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c }),
        );
        rest = &number[end..];
    }
    out.push_str(rest);
    out
}

/// `args` exit 2 with one line on stderr holding `want`, and nothing on
/// stdout.
pub fn refused_in_one_line(args: &[&str], want: &str) {
    let (code, out, err) = cli(args);
    assert_eq!(code, Some(2), "{args:?}: {out}{err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: {out}");
}

/// The config and the final output of a numeric run of the files `src`
/// (with no flags), whose trace must complete; `label` names it in a panic.
pub fn run_sources(
    label: &str,
    src: &shapetrace::load::Sources,
) -> (ModelConfig, ndarray::ArrayD<f32>) {
    let req = shapetrace::Request {
        keep_output: true,
        ..shapetrace::Request::default()
    };
    let (cfg, req) = shapetrace::load::resolve(&Overlay::default(), src, req)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(
        traced.trace.failure.is_none(),
        "{label}: {:?}",
        traced.trace.failure
    );
    (cfg, traced.output.unwrap())
}
