//! Bad-input cases of the hardening family "files": inputs that would
//! block or are no files (a FIFO with no writer, a folder), and outputs
//! that are inputs (directly, through a symlink, or each other).

use super::{Case, case, with_file, with_setup};
use std::path::Path;

/// A FIFO named `f` that nobody writes: reading it would block for ever.
fn fifo(dir: &Path) {
    super::common::mkfifo(&dir.join("f"));
}

/// A folder named `d`.
fn folder(dir: &Path) {
    std::fs::create_dir(dir.join("d")).unwrap();
}

/// `link.toml`, a symlink to `cfg.toml`.
fn link(dir: &Path) {
    std::os::unix::fs::symlink("cfg.toml", dir.join("link.toml")).unwrap();
}

/// `sub/link`, a link into the folder above to `cfg.toml`, through a
/// second link (`sub/hop`), each read against its own folder.
fn nested_link(dir: &Path) {
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink("../cfg.toml", dir.join("sub/hop")).unwrap();
    std::os::unix::fs::symlink("hop", dir.join("sub/link")).unwrap();
}

/// `blk`, a block device node (a loop device's numbers; nothing is written
/// to it). Making one needs root, as CI and the development machines run.
fn block(dir: &Path) {
    let made = std::process::Command::new("mknod")
        .arg(dir.join("blk"))
        .args(["b", "7", "200"])
        .status()
        .unwrap();
    assert!(made.success(), "mknod needs root");
}

const NO_WRITER: [&str; 3] = [
    "cannot read f",
    "a pipe with no writer",
    "allowed: a regular file, a pipe, or - for standard input",
];
const FOLDER: [&str; 3] = ["cannot read d", "it is a folder", "allowed: a regular file"];
/// A checkpoint folder holds its model.safetensors or index: an empty one
/// names both and what `--weights` takes.
const EMPTY_CHECKPOINT: [&str; 3] = [
    "d is a folder without model.safetensors",
    "model.safetensors.index.json",
    "allowed: a .safetensors file",
];
const CFG: &str = "d_model = 8\nheads = 2\n";

pub fn cases() -> Vec<Case> {
    vec![
        with_setup(
            case(
                "out is a block device",
                &["trace", "--out", "blk"],
                &["--out blk", "block device", "allowed: a file path"],
            ),
            block,
        ),
        // Outputs are made ready before the run: a bad folder is named
        // first, not after a run (that here could not even complete).
        case(
            "output in a missing folder before the run",
            &["trace", "--fault", "ffn-no-down", "--output", "nope/y.npy"],
            &[
                "--output nope/y.npy",
                "folder nope does not exist",
                "allowed: a path in an existing folder",
            ],
        ),
        with_setup(
            with_file(
                case(
                    "out is the config through two links in a folder",
                    &["trace", "--config", "cfg.toml", "--out", "sub/link"],
                    &["--out sub/link is the --config file"],
                ),
                "cfg.toml",
                CFG,
            ),
            nested_link,
        ),
        // Output paths are the user's strings too: shown escaped.
        case(
            "out in a missing folder named with an escape",
            &["trace", "--out", "no\u{1b}[2J/t.jsonl"],
            &[
                "--out no\\u{1b}[2J/t.jsonl",
                "folder no\\u{1b}[2J does not exist",
            ],
        ),
        // A FIFO with no writer: each of these hung before.
        with_setup(
            case("config fifo", &["trace", "--config", "f"], &NO_WRITER),
            fifo,
        ),
        with_setup(
            case("weights fifo", &["check", "--weights", "f"], &NO_WRITER),
            fifo,
        ),
        with_setup(
            case("input fifo", &["check", "--input", "f"], &NO_WRITER),
            fifo,
        ),
        with_setup(
            case("view fifo", &["view", "f", "--format", "table"], &NO_WRITER),
            fifo,
        ),
        with_setup(case("view fifo stepper", &["view", "f"], &NO_WRITER), fifo),
        // A folder is named, not read as bytes.
        with_setup(
            case(
                "weights folder",
                &["check", "--weights", "d"],
                &EMPTY_CHECKPOINT,
            ),
            folder,
        ),
        with_setup(
            case("config folder", &["trace", "--config", "d"], &FOLDER),
            folder,
        ),
        with_setup(
            case("view folder", &["view", "d", "--format", "table"], &FOLDER),
            folder,
        ),
        // Outputs that are inputs.
        with_file(
            case(
                "out is the config",
                &["trace", "--config", "cfg.toml", "--out", "cfg.toml"],
                &[
                    "--out cfg.toml is the --config file",
                    "allowed: an output path that is no input",
                ],
            ),
            "cfg.toml",
            CFG,
        ),
        with_file(
            case(
                "out is the weights",
                &[
                    "trace",
                    "--weights",
                    "w.safetensors",
                    "--out",
                    "w.safetensors",
                ],
                &[
                    "--out w.safetensors is the --weights file",
                    "allowed: an output path",
                ],
            ),
            "w.safetensors",
            "not read",
        ),
        with_file(
            case(
                "output is the input",
                &["trace", "--input", "in.npy", "--output", "in.npy"],
                &[
                    "--output in.npy is the --input file",
                    "allowed: an output path",
                ],
            ),
            "in.npy",
            "not read",
        ),
        with_setup(
            with_file(
                case(
                    "out is the config through a symlink",
                    &["trace", "--config", "cfg.toml", "--out", "link.toml"],
                    &[
                        "--out link.toml is the --config file",
                        "allowed: an output path",
                    ],
                ),
                "cfg.toml",
                CFG,
            ),
            link,
        ),
        with_setup(
            with_file(
                case(
                    "config through a symlink is the out",
                    &["trace", "--config", "link.toml", "--out", "cfg.toml"],
                    &[
                        "--out cfg.toml is the --config file",
                        "allowed: an output path",
                    ],
                ),
                "cfg.toml",
                CFG,
            ),
            link,
        ),
        case(
            "standard input twice",
            &["check", "--config", "-", "--input", "-"],
            &[
                "--config - and --input - both read standard input",
                "allowed: - for one input",
            ],
        ),
        case(
            "out is the output",
            &["trace", "--numeric", "--out", "x", "--output", "x"],
            &["--output x is the --out file", "allowed: different files"],
        ),
        with_file(
            case(
                "existing out is the output",
                &["trace", "--numeric", "--out", "x", "--output", "./x"],
                &["--output ./x is the --out file", "allowed: different files"],
            ),
            "x",
            "old",
        ),
    ]
}
