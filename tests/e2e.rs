//! End to end: the real binary in a pseudo-terminal, driven by keys, its
//! screen read back through a terminal emulator.

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const ROWS: u16 = 30;
const COLS: u16 = 100;
const WAIT: Duration = Duration::from_secs(20);

/// Feeds output into the emulator until every one of `want` is on screen
/// (a frame may arrive in several writes).
fn wait_for(parser: &mut vt100::Parser, rx: &Receiver<Vec<u8>>, want: &[&str]) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let screen = parser.screen().contents();
        if want.iter().all(|w| screen.contains(w)) {
            return screen;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "{want:?} never all appeared; the screen was:\n{screen}"
        );
        if let Ok(bytes) = rx.recv_timeout(left.min(Duration::from_millis(200))) {
            parser.process(&bytes);
        }
    }
}

#[test]
fn a_user_steps_switches_a_fault_and_quits_cleanly() {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_shapetrace"));
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("NO_COLOR");
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let mut keys = pty.master.take_writer().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let size = |n: u16| std::num::NonZero::new(n).unwrap();
    let mut parser = vt100::Parser::new(size(ROWS), size(COLS), 0);
    let mut press = |s: &str| {
        keys.write_all(s.as_bytes()).unwrap();
        keys.flush().unwrap();
    };

    wait_for(&mut parser, &rx, &["residual adds ✓ 4/4", "▶ 0", "input"]);
    assert!(
        parser.screen().alternate_screen(),
        "the stepper runs on the alternate screen"
    );

    press("n");
    wait_for(&mut parser, &rx, &["now block1.attn.q", "◆ leaves (B,T,d)"]);
    press("r");
    wait_for(
        &mut parser,
        &rx,
        &["now block1.resid_1", "✓ add (2,4,64) + (2,4,64)"],
    );
    press("f");
    wait_for(&mut parser, &rx, &["fault ffn-no-down"]);
    press("G");
    wait_for(
        &mut parser,
        &rx,
        &["✗ residual stops here", "later steps cannot run"],
    );
    press("?");
    wait_for(&mut parser, &rx, &["cycle the teaching faults"]);
    press("?");
    press("q");

    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the stepper did not quit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status {status:?}");
    while let Ok(bytes) = rx.recv_timeout(Duration::from_millis(300)) {
        parser.process(&bytes);
    }
    assert!(
        !parser.screen().alternate_screen(),
        "the main screen is back"
    );
    assert!(!parser.screen().hide_cursor(), "the cursor is shown again");
}
