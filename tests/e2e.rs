//! End to end: the real binary in a pseudo-terminal, driven by keys and
//! signals, its screen read back through a terminal emulator.

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const ROWS: u16 = 30;
const COLS: u16 = 100;
const WAIT: Duration = Duration::from_secs(20);

#[path = "e2e/ends.rs"]
mod ends;

/// The binary running in a pseudo-terminal.
struct Session {
    child: Box<dyn Child + Send + Sync>,
    keys: Box<dyn Write + Send>,
    rx: Receiver<Vec<u8>>,
    parser: vt100::Parser,
    master: Box<dyn MasterPty + Send>,
    /// Asks the reader to stop after its next read and drop its end of the
    /// terminal (the terminal only hangs up once every end is closed).
    stop_reading: Arc<AtomicBool>,
    reader: JoinHandle<()>,
}

impl Session {
    fn start(args: &[&str]) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_shapetrace"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let keys = pty.master.take_writer().unwrap();
        let (tx, rx) = channel();
        let stop_reading = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stop_reading);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() || stop.load(Ordering::SeqCst) {
                    break;
                }
            }
        });
        let size = |n: u16| std::num::NonZero::new(n).unwrap();
        let parser = vt100::Parser::new(size(ROWS), size(COLS), 0);
        Self {
            child,
            keys,
            rx,
            parser,
            master: pty.master,
            stop_reading,
            reader,
        }
    }

    /// Feeds output into the emulator until every one of `want` is on
    /// screen (a frame may arrive in several writes).
    fn wait_for(&mut self, want: &[&str]) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.parser.screen().contents();
            if want.iter().all(|w| screen.contains(w)) {
                return screen;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{want:?} never all appeared; the screen was:\n{screen}"
            );
            if let Ok(bytes) = self.rx.recv_timeout(left.min(Duration::from_millis(200))) {
                self.parser.process(&bytes);
            }
        }
    }

    fn press(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Waits for the exit, then drains the output; returns the exit code.
    fn exit_code(&mut self) -> u32 {
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the stepper did not end");
            std::thread::sleep(Duration::from_millis(50));
        };
        while let Ok(bytes) = self.rx.recv_timeout(Duration::from_millis(300)) {
            self.parser.process(&bytes);
        }
        status.exit_code()
    }

    /// Makes the reader let go of its end of the terminal after its next
    /// read; a resize makes the stepper draw, so that read comes.
    fn stop_reading(&mut self) {
        self.stop_reading.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + WAIT;
        let mut cols = COLS;
        while !self.reader.is_finished() {
            assert!(Instant::now() < deadline, "the reader never let go");
            cols = if cols == COLS { COLS - 2 } else { COLS };
            self.resize(cols);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn resize(&self, cols: u16) {
        self.master
            .resize(PtySize {
                rows: ROWS,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    /// Closes the terminal under the stepper, as closing its window or
    /// `tmux kill-session` does; returns how long the stepper outlived it
    /// and its exit code.
    fn hang_up(mut self) -> (Duration, u32) {
        self.stop_reading();
        let Self {
            child,
            keys,
            master,
            ..
        } = self;
        drop(keys);
        drop(master);
        ends::outlived(child, Instant::now())
    }

    fn assert_restored(&self) {
        assert!(
            !self.parser.screen().alternate_screen(),
            "the main screen is back"
        );
        assert!(
            !self.parser.screen().hide_cursor(),
            "the cursor is shown again"
        );
    }
}

#[test]
fn a_user_steps_switches_a_fault_and_quits_cleanly() {
    let mut s = Session::start(&[]);
    s.wait_for(&["residual adds ✓ 4/4", "▶ 0", "input"]);
    assert!(
        s.parser.screen().alternate_screen(),
        "the stepper runs on the alternate screen"
    );
    s.press("n");
    s.wait_for(&["now block1.attn.q", "◆ leaves (B,T,d)"]);
    s.press("r");
    s.wait_for(&["now block1.resid_1", "✓ add (2,4,64) + (2,4,64)"]);
    s.press("f");
    s.wait_for(&["fault ffn-no-down"]);
    s.press("G");
    s.wait_for(&["✗ residual stops here", "later steps cannot run"]);
    s.press("?");
    s.wait_for(&["cycle the teaching faults"]);
    s.press("?");
    s.press("q");
    assert_eq!(s.exit_code(), 0);
    s.assert_restored();
}

#[test]
fn sigterm_restores_the_terminal() {
    let mut s = Session::start(&["--quiz"]);
    s.wait_for(&["quiz 0/0"]);
    let pid = s.child.process_id().unwrap().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(s.exit_code(), 128 + 15);
    s.assert_restored();
}

#[test]
fn a_saved_trace_replays_in_the_stepper() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("class.jsonl");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .args([
            "trace",
            "--format",
            "json",
            "--values",
            "--fault",
            "attn-no-merge",
            "--out",
        ])
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut s = Session::start(&["view", log.to_str().unwrap()]);
    s.wait_for(&["class.jsonl", "fault attn-no-merge", "replaying"]);
    s.press("G");
    s.wait_for(&["✗ residual stops here", "(2,4,64)+(2,4,4,16)"]);
    s.press("q");
    assert_eq!(s.exit_code(), 0);
    s.assert_restored();
}

#[test]
fn the_stepper_opens_a_checkpoint_with_its_input() {
    let fix = |f: &str| format!("{}/tests/fixtures/{f}", env!("CARGO_MANIFEST_DIR"));
    let (weights, input) = (
        fix("nanogpt-tiny.safetensors"),
        fix("nanogpt-tiny-input.npy"),
    );
    let mut s = Session::start(&["--weights", &weights, "--input", &input, "--heads", "4"]);
    s.wait_for(&[
        // Too long for the tab bar at 100 columns: cut in its middle.
        "◆ nanogpt-tiny.safete…nogpt-tiny-input.npy [Steps]",
        "values from nanogpt-tiny.safetensors + nanogpt-tiny-input.npy",
        "weights from file",
    ]);
    s.press("q");
    assert_eq!(s.exit_code(), 0);
    s.assert_restored();
}

#[test]
fn the_split_view_opens_beside_a_second_model_in_a_real_terminal() {
    let mut s = Session::start(&["--compare", "lesson-gqa"]);
    // Once the left model's values are in, as a user waits for them.
    s.wait_for(&["lesson-gqa", "= input", "switch ◀ lesson", "seed=0"]);
    // To the first row that differs: k_proj, 2 kv heads' worth of columns,
    // then (after v_proj) k itself with 2 kv heads.
    s.press("n");
    s.wait_for(&["▶ ≠ block1.attn.k_proj", "kv·hd=32", "≠ shape"]);
    s.press("nn");
    s.wait_for(&["▶ ≠ block1.attn.k ", "kv=2", "> block1.attn.k_rep"]);
    // The right side gets the switch: Post-LN on the right only.
    s.press("b");
    s.wait_for(&["switch ▶ lesson-gqa"]);
    s.press("p");
    s.wait_for(&["lesson-gqa placement → post", "≠ block1.ln_1"]);
    s.press("|");
    s.wait_for(&["now block1.attn.k"]);
    s.press("q");
    assert_eq!(s.exit_code(), 0);
    s.assert_restored();
}
