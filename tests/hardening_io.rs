//! Input and output that the bad-input table cannot show: a stderr that
//! cannot be written, a full stdout, a signal in the middle of `--out`, and
//! pipes as inputs (the ways `<(…)`, `-` and `/dev/stdin` give them).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::mkfifo;

const BIN: &str = env!("CARGO_BIN_EXE_shapetrace");

fn full() -> File {
    OpenOptions::new().write(true).open("/dev/full").unwrap()
}

fn code(args: &[&str], stdout: Stdio, stderr: Stdio) -> Option<i32> {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .status()
        .unwrap()
        .code()
}

/// With stderr unwritable, a refusal still exits 2 and a success 0 (its
/// note lost), not 134 from an abort.
#[test]
fn an_unwritable_stderr_keeps_the_exit_code() {
    let refused = code(&["trace", "--heads", "0"], Stdio::null(), full().into());
    assert_eq!(refused, Some(2));
    // A command line clap refuses takes the same way out.
    let unparsed = code(&["trace", "--batch", "x"], Stdio::null(), full().into());
    assert_eq!(unparsed, Some(2));
    // gpt2-xl is over the default memory limit: a note goes to stderr.
    let noted = code(
        &["trace", "--preset", "gpt2-xl"],
        Stdio::null(),
        full().into(),
    );
    assert_eq!(noted, Some(0));
}

/// Each printing command on a full stdout exits 2 with one line saying
/// that stdout could not be written.
#[test]
fn a_full_stdout_is_named_and_exits_2() {
    for cmd in ["params", "ffn", "norms", "probes", "check", "trace"] {
        let out = Command::new(BIN).arg(cmd).stdout(full()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert_eq!(
            err, "shapetrace: cannot write to stdout: No space left on device\n",
            "{cmd}"
        );
    }
}

fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect()
}

/// A signal while `--out` is being written removes its temp file, leaves
/// the old file as it was, and exits 128 + the signal's number.
///
/// Held open without timing: `--output` is a FIFO nobody reads, written
/// after `--out`'s temp file is made, so the run waits there until the
/// signal comes.
#[test]
fn a_signal_during_out_removes_the_temp_file_and_keeps_the_target() {
    for (signal, n) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("k.jsonl"), "old").unwrap();
        mkfifo(&dir.path().join("o.npy"));
        let mut child = Command::new(BIN)
            .current_dir(dir.path())
            .args([
                "trace",
                "--numeric",
                "--output",
                "o.npy",
                "--out",
                "k.jsonl",
            ])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while temp_files(dir.path()).is_empty() {
            if start.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                panic!("no temp file while --output waits");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let sent = Command::new("kill")
            .args(["-s", signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(128 + n), "{signal}");
        assert_eq!(temp_files(dir.path()), Vec::<String>::new(), "{signal}");
        assert_eq!(
            fs::read_to_string(dir.path().join("k.jsonl")).unwrap(),
            "old"
        );
    }
}

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn ok_stdout(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A config from a pipe, given as `<(…)`, `/dev/stdin` or `-`, is read.
#[test]
fn a_piped_config_is_read() {
    let cfg = b"d_model = 8\nheads = 2\n";
    for name in ["-", "/dev/stdin"] {
        let out = with_stdin(&["trace", "--config", name], cfg);
        assert!(ok_stdout(&out).contains("(2,4,8)"), "{name}");
    }
    let out = Command::new("bash")
        .args([
            "-c",
            &format!("{BIN} trace --config <(printf 'd_model = 8\\nheads = 2\\n')"),
        ])
        .output()
        .unwrap();
    assert!(ok_stdout(&out).contains("(2,4,8)"));
}

/// A piped trace log, given as `-` or `/dev/stdin`, is viewed.
#[test]
fn a_piped_log_is_viewed() {
    let log = Command::new(BIN)
        .args(["trace", "--format", "json"])
        .output()
        .unwrap()
        .stdout;
    for name in ["-", "/dev/stdin"] {
        let out = with_stdin(&["view", name, "--format", "table"], &log);
        assert!(ok_stdout(&out).contains("block1.ln_1"), "{name}");
    }
}

/// A piped checkpoint is read into memory and seeks as the file does.
#[test]
fn a_piped_checkpoint_is_read() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nanogpt-tiny.safetensors"
    );
    let args = ["check", "--weights", "-", "--heads", "2"];
    let piped = with_stdin(&args, &fs::read(fixture).unwrap());
    let file = Command::new(BIN)
        .args(["check", "--weights", fixture, "--heads", "2"])
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), file.status.code());
    // The same checks, under another name on the first line.
    let checks = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(checks(&piped).contains("all values of 42 tensors are finite"));
    assert_eq!(checks(&piped), checks(&file));
}

/// `--config -` reading a file through standard input is that file: an
/// `--out` naming it is refused and the file kept.
#[test]
fn an_out_that_is_the_file_on_standard_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cfg.toml");
    fs::write(&cfg, "d_model = 8\n").unwrap();
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(["trace", "--config", "-", "--out", "cfg.toml"])
        .stdin(File::open(&cfg).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "shapetrace: --out cfg.toml is the --config file; allowed: an output path that is no input\n"
    );
    assert_eq!(fs::read_to_string(&cfg).unwrap(), "d_model = 8\n");
}

/// A dangling link in a folder names a file beside it: `--out` writes
/// there (read against the link's folder, not the working one), and the
/// config of the same name one folder up is left as it was.
#[test]
fn a_dangling_link_in_a_folder_is_written_where_it_points() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("cfg.toml"), "preset = \"lesson\"\n").unwrap();
    fs::create_dir(d.join("sub")).unwrap();
    std::os::unix::fs::symlink("cfg.toml", d.join("sub/link")).unwrap();
    let out = Command::new(BIN)
        .current_dir(d)
        .args(["trace", "--config", "cfg.toml", "--out", "sub/link"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        fs::read_to_string(d.join("cfg.toml")).unwrap(),
        "preset = \"lesson\"\n"
    );
    assert!(
        fs::read_to_string(d.join("sub/cfg.toml"))
            .unwrap()
            .starts_with("step")
    );
    assert!(
        fs::symlink_metadata(d.join("sub/link"))
            .unwrap()
            .is_symlink()
    );
}

/// `--out -` and `--out /dev/stdout` write into the descriptor the shell
/// gave: a `>>` redirect is appended to, not replaced.
#[test]
fn out_to_standard_output_appends_as_the_redirect_asks() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["-", "/dev/stdout", "/dev/fd/1"] {
        let log = dir.path().join("log.txt");
        fs::write(&log, "previous\n").unwrap();
        let file = OpenOptions::new().append(true).open(&log).unwrap();
        let status = Command::new(BIN)
            .current_dir(dir.path())
            .args(["trace", "--out", name])
            .stdout(file)
            .status()
            .unwrap();
        assert!(status.success(), "{name}");
        let text = fs::read_to_string(&log).unwrap();
        assert!(text.starts_with("previous\nstep"), "{name}: {text}");
        assert!(!dir.path().join("-").exists(), "{name} made a file named -");
    }
}

/// Another descriptor the shell gave (`9>>log`, or `>(cmd)`'s
/// `/dev/fd/63`) is written into as given: appended to, never replaced by a
/// renamed temp file, which `/proc/self/fd` could not even hold.
#[test]
fn out_to_another_inherited_descriptor_appends() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    fs::write(&log, "previous\n").unwrap();
    let status = Command::new("bash")
        .current_dir(dir.path())
        .args(["-c", "\"$0\" trace --out /dev/fd/9 9>>log.txt", BIN])
        .status()
        .unwrap();
    assert!(status.success());
    let text = fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("previous\nstep"), "{text}");
}
