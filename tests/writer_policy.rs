//! The writer policy: no output touches an input or a device.
//!
//! - An output that is any file the run reads — the `--tokens` ids, a file
//!   in a `--weights` folder, a shard an index names, the `config.json`
//!   beside a checkpoint, a hard link to one of them — is refused before
//!   any work, one line and exit 2, and the input is left byte for byte.
//! - A character device or a FIFO is written into, never replaced: a
//!   device that refuses writes (a node like `/dev/full`) is exit 2 with
//!   the system's reason, and stays a device.
//! - A failed write to a regular file leaves the file as it was and no
//!   temp file beside it.
//!
//! Each case runs the same command on a copy where the output is no input,
//! which writes: the refusal is the policy's, not a run that failed anyway.

use assert_cmd::Command;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

#[path = "common/mod.rs"]
mod common;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// `shapetrace ARGS` run in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `shapetrace ARGS` run in `dir` by `sh` after the shell commands
/// `prefix` (a umask, a file-size limit): the process as a shell sets it up.
fn run_after(dir: &Path, prefix: &str, args: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("shapetrace");
    let script = format!("{prefix}; exec '{}' {args}", bin.display());
    std::process::Command::new("sh")
        .current_dir(dir)
        .args(["-c", &script])
        .output()
        .unwrap()
}

/// `shapetrace ARGS` run in `dir` with its stdout given as `stdout` (a
/// file opened for appending, as `>> file` gives it).
fn run_into(dir: &Path, args: &[&str], stdout: fs::File) -> std::process::Output {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("shapetrace"))
        .current_dir(dir)
        .args(args)
        .stdout(stdout)
        .output()
        .unwrap()
}

/// Copies the fixture folder `name` to `dir/to`.
fn copy_fixture(name: &str, dir: &Path, to: &str) -> PathBuf {
    let dest = dir.join(to);
    fs::create_dir(&dest).unwrap();
    for e in fs::read_dir(Path::new(FIXTURES).join(name)).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dest.join(e.file_name())).unwrap();
    }
    dest
}

/// Every file under `dir` with its bytes, to see that nothing changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let b = fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    all.sort();
    all
}

/// Runs `args` in `dir` and asserts the one-line refusal holding `needles`,
/// exit 2, and every file of `watched` unchanged.
fn refused(dir: &Path, watched: &Path, args: &[&str], needles: &[&str]) {
    let before = snapshot(watched);
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, Some(2), "{args:?}: {stderr}");
    assert!(stdout.is_empty(), "{args:?} printed {stdout}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{args:?}: {stderr:?} lacks {n:?}");
    }
    assert!(
        stderr.contains("allowed: an output path that is no input"),
        "{stderr}"
    );
    assert_eq!(snapshot(watched), before, "{args:?} changed an input");
}

/// Runs `args` in `dir` and asserts it succeeds and wrote `out`.
fn writes(dir: &Path, args: &[&str], out: &str) {
    let (code, _, stderr) = run_in(dir, args);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    assert!(dir.join(out).is_file(), "{args:?} wrote no {out}");
}

#[test]
fn an_output_onto_the_token_ids_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_fixture("hf-llama-tiny", d, "ck");
    let ids = d.join("ids");
    fs::create_dir(&ids).unwrap();
    fs::copy(d.join("ck/tokens.npy"), ids.join("t.npy")).unwrap();
    let run = |output: &str| {
        [
            "trace",
            "--weights",
            "ck",
            "--tokens",
            "ids/t.npy",
            "--output",
            output,
        ]
        .map(String::from)
    };
    let args = run("ids/t.npy");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(d, &ids, &args, &["--output ids/t.npy is the --tokens file"]);
    // The same run with its logits elsewhere writes them.
    let args = run("logits.npy");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    writes(d, &args, "logits.npy");
}

#[test]
fn an_output_into_a_weights_folder_onto_its_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ck = copy_fixture("hf-llama-tiny", d, "ck");
    for (out, file) in [
        ("ck/model.safetensors", "model.safetensors"),
        ("ck/config.json", "config.json"),
        // Not read by this run, but a file of the checkpoint all the same.
        ("ck/hidden.npy", "hidden.npy"),
    ] {
        refused(
            d,
            &ck,
            &["trace", "--weights", "ck", "--format", "json", "--out", out],
            &[&format!("--out {out} is a file --weights ck reads"), file],
        );
    }
    // A new file in the folder is no input.
    writes(
        d,
        &[
            "trace",
            "--weights",
            "ck",
            "--format",
            "json",
            "--out",
            "ck/t.jsonl",
        ],
        "ck/t.jsonl",
    );
}

#[test]
fn an_output_onto_the_config_beside_a_checkpoint_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ck = copy_fixture("hf-llama-tiny", d, "ck");
    refused(
        d,
        &ck,
        &[
            "trace",
            "--weights",
            "ck/model.safetensors",
            "--out",
            "ck/config.json",
        ],
        &["--out ck/config.json is a file --weights ck/model.safetensors reads"],
    );
}

#[test]
fn an_output_onto_a_shard_an_index_names_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sh = copy_fixture("hf-llama-tiny-sharded", d, "sh");
    let index = "sh/model.safetensors.index.json";
    let shard = "sh/model-00002-of-00003.safetensors";
    refused(
        d,
        &sh,
        &[
            "trace",
            "--weights",
            index,
            "--format",
            "json",
            "--out",
            shard,
        ],
        &[&format!("--out {shard} is a file --weights {index} reads")],
    );
    // Through a symlink elsewhere to the shard.
    std::os::unix::fs::symlink(shard, d.join("link.jsonl")).unwrap();
    refused(
        d,
        &sh,
        &[
            "trace",
            "--weights",
            index,
            "--format",
            "json",
            "--out",
            "link.jsonl",
        ],
        &["--out link.jsonl is a file --weights"],
    );
    writes(
        d,
        &[
            "trace",
            "--weights",
            index,
            "--format",
            "json",
            "--out",
            "t.jsonl",
        ],
        "t.jsonl",
    );
}

#[test]
fn an_output_that_is_a_hard_link_to_the_config_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = d.join("in");
    fs::create_dir(&cfg).unwrap();
    fs::write(cfg.join("cfg.toml"), "d_model = 8\nheads = 2\n").unwrap();
    fs::hard_link(cfg.join("cfg.toml"), d.join("hard.toml")).unwrap();
    refused(
        d,
        &cfg,
        &["trace", "--config", "in/cfg.toml", "--out", "hard.toml"],
        &["--out hard.toml is the --config file"],
    );
}

/// A character device like `/dev/full` (1, 7), made in `dir`: every write
/// to it fails with ENOSPC. Needs root, as CI and the development
/// machines run.
fn full_device(dir: &Path) -> PathBuf {
    let node = dir.join("full");
    let made = std::process::Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "7"])
        .status()
        .unwrap();
    assert!(made.success(), "mknod needs root");
    node
}

#[test]
fn a_device_that_refuses_writes_is_exit_2_and_stays_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let node = full_device(d);
    for args in [
        &["trace", "--out", "full"][..],
        &["trace", "--numeric", "--output", "full"][..],
        &["compare", "lesson", "lesson-gqa", "--out", "full"][..],
    ] {
        let (code, _, stderr) = run_in(d, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("cannot write") && stderr.contains("No space left on device"),
            "{stderr}"
        );
        let kind = fs::symlink_metadata(&node).unwrap().file_type();
        assert!(kind.is_char_device(), "{args:?} replaced the device");
    }
    // The folder holds the node alone: no temp file was made beside it.
    assert_eq!(fs::read_dir(d).unwrap().count(), 1);
}

#[test]
fn a_fifo_is_written_into_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f");
    common::mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let (code, _, stderr) = run_in(dir.path(), &["trace", "--format", "json", "--out", "f"]);
    assert_eq!(code, Some(0), "{stderr}");
    let got = reader.join().unwrap();
    assert!(got.starts_with("{\"kind\":\"header\""), "{got:.80}");
    assert!(got.trim_end().ends_with('}') && got.contains("\"kind\":\"summary\""));
    let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced");
}

#[test]
fn a_failed_write_leaves_the_regular_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("t.jsonl"), "old\n").unwrap();
    // A file-size limit of 8 KiB, with SIGXFSZ ignored so that the write
    // past it fails with EFBIG (as a full disk fails with ENOSPC).
    let out = run_after(
        d,
        "trap '' XFSZ; ulimit -f 16",
        "trace --format json --out t.jsonl",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot write --out t.jsonl: File too large"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(d.join("t.jsonl")).unwrap(), "old\n");
    let left: Vec<_> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["t.jsonl"], "a temp file was left");
    // Without the limit the same command replaces the file whole.
    let (code, _, stderr) = run_in(d, &["trace", "--format", "json", "--out", "t.jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        fs::read_to_string(d.join("t.jsonl"))
            .unwrap()
            .contains("\"kind\":\"summary\"")
    );
}

/// `--out -` (or `--output -`) with stdout appended to an input is that
/// input: refused as a named path onto it would be.
#[test]
fn standard_output_onto_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = d.join("in");
    fs::create_dir(&cfg).unwrap();
    fs::write(cfg.join("cfg.toml"), "d_model = 8\nheads = 2\n").unwrap();
    let before = snapshot(&cfg);
    for flag in ["--out", "--output"] {
        let appended = fs::OpenOptions::new()
            .append(true)
            .open(cfg.join("cfg.toml"))
            .unwrap();
        let args = ["trace", "--numeric", "--config", "in/cfg.toml", flag, "-"];
        let out = run_into(d, &args, appended);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains(&format!("{flag} - is the --config file")),
            "{stderr}"
        );
        assert_eq!(snapshot(&cfg), before, "{flag} - appended to the config");
    }
    // Appended to another file, the same command writes there.
    let other = fs::File::create(d.join("t.txt")).unwrap();
    let out = run_into(
        d,
        &["trace", "--config", "in/cfg.toml", "--out", "-"],
        other,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        fs::read_to_string(d.join("t.txt"))
            .unwrap()
            .contains("resid_1")
    );
}

/// `new/` names a folder, never a file called `new`.
#[test]
fn an_output_ending_in_a_slash_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run_in(dir.path(), &["trace", "--out", "new/"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--out new/: it names a folder; allowed: a file path"),
        "{stderr}"
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A new output is made 0666 less the umask, as a shell redirect makes
/// it; an existing one keeps its own mode.
#[test]
fn a_new_output_follows_the_umask_and_an_old_one_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (umask, want) in [("077", 0o600), ("022", 0o644)] {
        let name = format!("t{umask}.txt");
        let out = run_after(d, &format!("umask {umask}"), &format!("trace --out {name}"));
        assert_eq!(out.status.code(), Some(0));
        let mode = fs::metadata(d.join(&name)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, want, "umask {umask}");
    }
    fs::set_permissions(d.join("t077.txt"), fs::Permissions::from_mode(0o640)).unwrap();
    let (code, _, _) = run_in(d, &["trace", "--out", "t077.txt"]);
    assert_eq!(code, Some(0));
    let mode = fs::metadata(d.join("t077.txt"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640);
}

/// A preset's name is the preset even beside a file of that name: an
/// output onto that file is no clash with the side.
#[test]
fn a_file_named_like_a_preset_side_is_no_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("lesson"), "old\n").unwrap();
    let (code, _, stderr) = run_in(d, &["compare", "lesson", "lesson-gqa", "--out", "lesson"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        fs::read_to_string(d.join("lesson"))
            .unwrap()
            .contains("lesson-gqa")
    );
    // Named as a file, it is the side, and refused.
    fs::write(d.join("lesson"), "d_model = 8\nheads = 2\n").unwrap();
    let (code, _, stderr) = run_in(d, &["compare", "./lesson", "lesson-gqa", "--out", "lesson"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is the LEFT file"), "{stderr}");
}
