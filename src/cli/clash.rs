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
    if let Ok(m) = fs::metadata(path) {
        return inode(&m);
    }
    // Not there yet: where `--out` would make it.
    Id::New(crate::out::resolve(path))
}

/// The inputs of the command line, by the flag that names them.
fn inputs(cli: &Cli) -> Vec<(&'static str, &Path)> {
    let m = &cli.model;
    let mut all = vec![];
    for (flag, p) in [
        ("--config", &m.config),
        ("--weights", &m.weights),
        ("--input", &m.input),
    ] {
        if let Some(p) = p {
            all.push((flag, p.as_path()));
        }
    }
    if let Some(Command::View(v)) = &cli.command {
        all.push(("view", v.file.as_path()));
    }
    // compare's sides, when they are files rather than preset names.
    if let Some(Command::Compare(c)) = &cli.command {
        for (flag, side) in [("LEFT", &c.left), ("RIGHT", &c.right)] {
            let p = Path::new(side.as_str());
            if p.exists() {
                all.push((flag, p));
            }
        }
    }
    all
}

/// The output files of the command line, by flag.
fn outputs(cli: &Cli) -> Vec<(&'static str, &Path)> {
    match &cli.command {
        Some(Command::Trace(t)) => [("--out", &t.out), ("--output", &t.output)]
            .into_iter()
            .filter_map(|(f, p)| p.as_deref().map(|p| (f, p)))
            .collect(),
        Some(Command::Compare(c)) => c.out.as_deref().map(|p| ("--out", p)).into_iter().collect(),
        _ => vec![],
    }
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
        .filter(|(_, p)| p.as_os_str() == shapetrace::files::STDIN)
        .map(|(f, _)| *f)
        .collect();
    if let [a, b, ..] = stdin[..] {
        return Err(format!(
            "{a} - and {b} - both read standard input; allowed: - for one input at most"
        ));
    }
    let in_ids: Vec<(&str, Id)> = ins.iter().map(|(f, p)| (*f, identity(p, true))).collect();
    let mut seen: Vec<(&str, Id)> = vec![];
    for (flag, path) in outputs(cli) {
        let id = identity(path, false);
        let shown = shapetrace::text::shown_os(path.as_os_str());
        if let Some((input, _)) = in_ids.iter().find(|(_, i)| *i == id && !i.shareable()) {
            return Err(format!(
                "{flag} {shown} is the {input} file; allowed: an output path that is no input"
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
