//! The split view at depth in a real terminal: the real binary in a
//! pseudo-terminal (as `tests/e2e.rs`), its screen read back through a
//! terminal emulator. `--config` a 4096-block lesson, `--compare` the
//! 4-expert mixture (lesson-moe) at 4096 blocks: the view is drawn and `q` quits, both
//! within the wait; a `q` typed while the two traces are still being
//! aligned quits as soon as the stepper reads keys.

use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// Long enough for a debug build's two 4096-block traces on a busy
/// machine; the release binary takes about a second.
const WAIT: Duration = Duration::from_secs(90);

struct Session {
    child: Box<dyn Child + Send + Sync>,
    keys: Box<dyn Write + Send>,
    rx: Receiver<Vec<u8>>,
    parser: vt100::Parser,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Session {
    fn start(dir: &std::path::Path, args: &[&str]) -> Self {
        let size = PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        };
        let pty = native_pty_system().openpty(size).unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_shapetrace"));
        cmd.args(args);
        cmd.cwd(dir);
        cmd.env("TERM", "xterm-256color");
        cmd.env("LANG", "C.UTF-8");
        cmd.env_remove("LC_ALL");
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let keys = pty.master.take_writer().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let n = |n: u16| std::num::NonZero::new(n).unwrap();
        Self {
            child,
            keys,
            rx,
            parser: vt100::Parser::new(n(24), n(80), 0),
            _master: pty.master,
        }
    }

    /// Feeds output to the emulator until all of `want` is on screen.
    fn wait_for(&mut self, want: &[&str]) {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.parser.screen().contents();
            if want.iter().all(|w| screen.contains(w)) {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "{want:?} never appeared:\n{screen}");
            if let Ok(bytes) = self.rx.recv_timeout(left.min(Duration::from_millis(200))) {
                self.parser.process(&bytes);
            }
        }
    }

    fn press(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// The exit code, waited for at most `within`.
    fn exit_within(&mut self, within: Duration) -> u32 {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the stepper did not end within {within:?} of q");
            }
            while let Ok(bytes) = self.rx.try_recv() {
                self.parser.process(&bytes);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The two model files of the command.
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l4096.toml"), "layers = 4096\n").unwrap();
    std::fs::write(
        dir.path().join("moe4096.toml"),
        "preset = \"lesson-moe\"\nlayers = 4096\n",
    )
    .unwrap();
    dir
}

const ARGS: [&str; 4] = ["--config", "l4096.toml", "--compare", "moe4096.toml"];

#[test]
fn the_split_view_at_4096_blocks_is_drawn_and_q_quits() {
    let dir = files();
    let mut s = Session::start(dir.path(), &ARGS);
    s.wait_for(&["moe4096.toml", "block1.ln_1"]);
    s.press("q");
    assert_eq!(s.exit_within(Duration::from_secs(5)), 0);
    assert!(!s.parser.screen().alternate_screen(), "the screen is back");
}

#[test]
fn q_typed_while_the_traces_align_quits() {
    let dir = files();
    let mut s = Session::start(dir.path(), &ARGS);
    std::thread::sleep(Duration::from_millis(300));
    s.press("q");
    assert_eq!(s.exit_within(WAIT), 0);
}
