//! Outputs are never inputs: before any work, `--out` and `--output` are
//! compared with every input and with each other, so that a run can never
//! write over a file it reads (the trace over its own config, say) or write
//! two outputs into one file.

use super::{Cli, Command};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What a path names: a file by device and inode when it exists (after
/// symlinks), else the path it would be created at.
#[derive(Debug, PartialEq, Eq)]
enum Id {
    Inode { dev: u64, ino: u64, device: bool },
    New(PathBuf),
}

impl Id {
    /// A character device (`/dev/null`, a terminal) may be named twice:
    /// writing it twice loses nothing.
    fn shareable(&self) -> bool {
        matches!(self, Self::Inode { device: true, .. })
    }
}

fn inode(m: &fs::Metadata) -> Id {
    Id::Inode {
        dev: m.dev(),
        ino: m.ino(),
        device: m.file_type().is_char_device(),
    }
}

/// The identity of `path`; `-` as an input is standard input's file.
fn identity(path: &Path, input: bool) -> Id {
    if input
        && path.as_os_str() == shapetrace::files::STDIN
        && let Ok(m) = shapetrace::files::stdin_file().and_then(|f| f.metadata())
    {
        return inode(&m);
    }
    // An output onto a descriptor the shell gave (`--out -` with
    // `>> cfg.toml`) is the file behind that descriptor.
    if !input
        && let Some(fd) = crate::out::inherited(path)
        && let Ok(m) = fs::metadata(format!("/proc/self/fd/{fd}"))
    {
        return inode(&m);
    }
    if let Ok(m) = fs::metadata(path) {
        return inode(&m);
    }
    // Not there yet: where `--out` would make it.
    Id::New(crate::out::resolve(path))
}

/// An input of the command line: what the message calls it and its path.
struct Input {
    /// `the --config file`, `a file of --weights ck`.
    what: String,
    path: PathBuf,
}

impl Input {
    fn the(flag: &str, path: &Path) -> Self {
        Self {
            what: format!("the {flag} file"),
            path: path.to_path_buf(),
        }
    }
}

/// Every file the command line reads: the files its flags name, and what
/// they bring with them — the files of a `--weights` folder, the shards an
/// index names, the `config.json` beside a checkpoint, a `--tokens` .npy.
fn inputs(cli: &Cli) -> Vec<Input> {
    let m = &cli.model;
    let mut all = vec![];
    for (flag, p) in [("--config", &m.config), ("--input", &m.input)] {
        if let Some(p) = p {
            all.push(Input::the(flag, p));
        }
    }
    if let Some(w) = &m.weights {
        all.push(Input::the("--weights", w));
        let shown = shapetrace::text::shown_os(w.as_os_str());
        for p in shapetrace::weights::shards::inputs(w) {
            if p != *w {
                all.push(Input {
                    what: format!("a file --weights {shown} reads"),
                    path: p,
                });
            }
        }
    }
    // Token ids from a file (an inline list names none).
    if let Some(t) = &m.tokens {
        let p = Path::new(t);
        if t == shapetrace::files::STDIN || p.exists() {
            all.push(Input::the("--tokens", p));
        }
    }
    if let Some(Command::View(v)) = &cli.command {
        all.push(Input {
            what: "the view file".into(),
            path: v.file.clone(),
        });
    }
    // compare's sides, when they are files (or -) rather than preset names.
    if let Some(Command::Compare(c)) = &cli.command {
        for (flag, side) in [("LEFT", &c.left), ("RIGHT", &c.right)] {
            let p = Path::new(side.as_str());
            // A preset's name is the preset, even beside a file of that name.
            let preset = shapetrace::config::preset::PRESETS
                .iter()
                .any(|(n, _)| n == side);
            if side == shapetrace::files::STDIN || (!preset && p.exists()) {
                all.push(Input::the(flag, p));
            }
        }
    }
    all
}

/// The output files of the command line, by flag.
fn outputs(cli: &Cli) -> Vec<(&'static str, &Path)> {
    match &cli.command {
        Some(Command::Trace(t)) => [
            ("--out", &t.out),
            ("--output", &t.output),
            ("--grads-out", &t.grads_out),
        ]
        .into_iter()
        .filter_map(|(f, p)| p.as_deref().map(|p| (f, p)))
        .collect(),
        Some(Command::Compare(c)) => c.out.as_deref().map(|p| ("--out", p)).into_iter().collect(),
        _ => vec![],
    }
}

/// The flag in an input's words: `--config` of `the --config file`.
fn flag_of(what: &str) -> &str {
    what.split(' ').nth(1).unwrap_or(what)
}

/// Refuses a command line whose output is one of its inputs or whose two
/// outputs are one file, and one whose inputs read standard input twice.
///
/// # Errors
/// One line naming both flags and what is allowed.
pub fn check(cli: &Cli) -> Result<(), String> {
    let ins = inputs(cli);
    let stdin: Vec<&str> = ins
        .iter()
        .filter(|i| i.path.as_os_str() == shapetrace::files::STDIN)
        .map(|i| flag_of(&i.what))
        .collect();
    if let [a, b, ..] = stdin[..] {
        return Err(format!(
            "{a} - and {b} - both read standard input; allowed: - for one input at most"
        ));
    }
    let in_ids: Vec<(&str, Id)> = ins
        .iter()
        .map(|i| (i.what.as_str(), identity(&i.path, true)))
        .collect();
    let mut seen: Vec<(&str, Id)> = vec![];
    for (flag, path) in outputs(cli) {
        let id = identity(path, false);
        let shown = shapetrace::text::shown_os(path.as_os_str());
        if let Some((input, _)) = in_ids.iter().find(|(_, i)| *i == id && !i.shareable()) {
            return Err(format!(
                "{flag} {shown} is {input}; allowed: an output path that is no input"
            ));
        }
        if let Some((other, _)) = seen.iter().find(|(_, i)| *i == id && !id.shareable()) {
            return Err(format!(
                "{flag} {shown} is the {other} file; allowed: different files for --out and --output"
            ));
        }
        seen.push((flag, id));
    }
    Ok(())
}
