//! `view --format html` of a log just under the 64 MiB cap stays under
//! 512 MB resident: the page is written card by card, never held whole.
//! Peaks are read from the kernel's account of waited-for children
//! (`getrusage(RUSAGE_CHILDREN)`): the largest child so far, and every
//! other child of this binary is a small one.
//!
//! ```sh
//! cargo test --release --test hardening_escape html_view -- --nocapture
//! ```

use nix::sys::resource::{UsageWho, getrusage};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// The line no run may cross, in kB.
const LIMIT_KB: i64 = 512 * 1000;

/// The cap a log may have, as `src/trace/log.rs` sets it.
const CAP: usize = 64 << 20;

/// A log of minimal events under `header`, as many as fit under the cap.
fn log_at_the_cap(header: &str, op: &str) -> (String, usize) {
    let mut s = format!("{header}\n");
    let mut n = 0;
    let mut line = String::new();
    loop {
        line.clear();
        let _ = writeln!(
            line,
            r#"{{"kind":"event","step":{n},"path":"s{n}","op":"{op}","shape":[2,4,64],"axes":["B","T","d"],"dtype":"f32","on_stream":false,"departs":false,"returns":false,"inputs":[],"formula":"","stats":null}}"#
        );
        if s.len() + line.len() > CAP - 256 {
            return (s, n);
        }
        s.push_str(&line);
        n += 1;
    }
}

/// The page of `file` written to nothing; the children's peak after it, kB.
fn view_html(dir: &Path, file: &str) -> i64 {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .current_dir(dir)
        .args(["view", "--format", "html", file])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "view --format html {file}");
    getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss()
}

#[test]
fn html_view_of_a_log_at_the_cap_stays_under_512_mb() {
    let dir = tempfile::tempdir().unwrap();
    // shapetrace's own header (schema 2: no whys to word).
    let own = String::from_utf8(
        super::run(dir.path(), &["trace", "--format", "json", "--shape-only"]).stdout,
    )
    .unwrap();
    let mut header: serde_json::Value = serde_json::from_str(own.lines().next().unwrap()).unwrap();
    header["schema"] = 2.into();
    let obj = header.as_object_mut().unwrap();
    obj.remove("producer");
    obj.remove("anatomy");
    // Another program's (schema 3): the reader words each step's why.
    let foreign = r#"{"kind":"header","schema":3,"mode":"shape-only","producer":"bench 1","stream_shape":[2,4,64],"layers":1}"#;
    for (name, header, op) in [
        ("own", header.to_string(), "linear"),
        ("foreign", foreign.to_string(), "x"),
    ] {
        let (log, events) = log_at_the_cap(&header, op);
        let file = format!("{name}.jsonl");
        std::fs::File::create(dir.path().join(&file))
            .unwrap()
            .write_all(log.as_bytes())
            .unwrap();
        drop(log);
        let peak = view_html(dir.path(), &file);
        println!(
            "view --format html, {name} log of {events} events: peak {} MB",
            peak / 1000
        );
        assert!(events > 300_000, "{name}: {events} events");
        assert!(peak < LIMIT_KB, "{name}: peak {peak} kB of {LIMIT_KB}");
    }
}
