//! The stepper ends with its terminal: closed under it in every mode, or
//! stuck drawing to one nobody reads when SIGTERM comes.

use super::{COLS, Session, WAIT};
use portable_pty::Child;
use std::time::{Duration, Instant};

/// Waits for `child` to end after `since`; kills it (and fails) if it is
/// still there after a few seconds, so no stepper is left spinning.
pub fn outlived(mut child: Box<dyn Child + Send + Sync>, since: Instant) -> (Duration, u32) {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(
                status.signal().is_none(),
                "the stepper was killed by {:?}",
                status.signal()
            );
            return (since.elapsed(), status.exit_code());
        }
        if since.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the stepper still ran 5 s later");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Starts the stepper with `args`, waits for `ready`, presses `keys`, then
/// closes its terminal: it must be gone within a second, as a hang-up.
fn ends_with_its_terminal(args: &[&str], ready: &[&str], keys: &str) {
    let mut s = Session::start(args);
    s.wait_for(ready);
    s.press(keys);
    let (lived, code) = s.hang_up();
    assert_eq!(
        code,
        128 + 1,
        "a lost terminal ends the stepper with the code of SIGHUP (1 is a death by a signal)"
    );
    assert!(
        lived < Duration::from_secs(1),
        "the stepper outlived its terminal by {lived:?}"
    );
}

#[test]
fn closing_the_terminal_ends_the_stepper() {
    ends_with_its_terminal(&[], &["▶ 0", "input"], "n");
}

#[test]
fn closing_the_terminal_ends_a_quiz() {
    ends_with_its_terminal(&["--quiz"], &["quiz 0/0"], "");
}

#[test]
fn closing_the_terminal_ends_the_presenter() {
    ends_with_its_terminal(&["--present"], &["[Presenter]", "step 0 · "], "");
}

#[test]
fn closing_the_terminal_ends_autoplay() {
    ends_with_its_terminal(&["--autoplay", "1"], &["autoplay on"], "");
}

#[test]
fn closing_the_terminal_ends_a_stepper_tracing_in_the_background() {
    // gpt2-small opens on shapes and traces its values on another thread;
    // `a` starts a second trace as the terminal goes.
    ends_with_its_terminal(&["--preset", "gpt2-small"], &["tracing values"], "a");
}

/// True while the stepper's main thread waits inside a write to stdout
/// (a terminal nobody reads has a full buffer).
#[cfg(target_os = "linux")]
fn stuck_writing(pid: u32) -> bool {
    let write = if cfg!(target_arch = "aarch64") {
        "64"
    } else {
        "1"
    };
    std::fs::read_to_string(format!("/proc/{pid}/syscall"))
        .is_ok_and(|s| s.split(' ').take(2).eq([write, "0x1"]))
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_ends_a_stepper_stuck_drawing_to_a_terminal_nobody_reads() {
    let mut s = Session::start(&["--autoplay", "0.1"]);
    s.wait_for(&["autoplay on"]);
    s.stop_reading();
    let pid = s.child.process_id().unwrap();
    // Each resize redraws the whole screen, until the terminal is full.
    let deadline = Instant::now() + WAIT;
    let mut cols = COLS;
    while !stuck_writing(pid) {
        assert!(
            Instant::now() < deadline,
            "the stepper's writes never blocked"
        );
        cols = if cols == COLS { COLS - 2 } else { COLS };
        s.resize(cols);
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let Session { child, .. } = s;
    let (lived, code) = outlived(child, Instant::now());
    assert_eq!(code, 128 + 15);
    assert!(
        lived < Duration::from_secs(1),
        "the stepper outlived SIGTERM by {lived:?}"
    );
}
