//! `--watch`: the model file is read again whenever it changes, and the
//! stepper re-traces it on the same step.
//!
//! The folder holding the file is watched, not the file: an editor that
//! saves by writing a new file and renaming it over the old one replaces
//! the file a watch on it would follow. Every event naming the file's name
//! in that folder (a write, a create, a rename onto it) reads it again,
//! after a short pause that lets a burst of writes land as one.

use super::msg::Msg;
use crate::config::ModelConfig;
use crate::config::file::Overlay;
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;

/// How long a burst of events is let settle before the file is read.
const SETTLE: Duration = Duration::from_millis(60);

/// The file's config now: read, with `flags` laid over it, and validated;
/// else the one-line reason.
///
/// # Errors
/// The reason the file cannot be read or its config used, in one line.
pub fn read(path: &Path, flags: &Overlay) -> Result<ModelConfig, String> {
    let o = Overlay::from_file(path).map_err(|e| e.to_string())?;
    o.then(flags).resolve().map_err(|e| e.to_string())
}

/// A running watch; dropping it stops it.
pub struct Watch {
    _watcher: RecommendedWatcher,
}

/// Watches `path` and sends [`Msg::Reloaded`] to `tx` with the file's
/// config each time it changes.
///
/// # Errors
/// When the folder cannot be watched (it does not exist, or the system
/// has no watches left).
pub fn start(path: &Path, flags: Overlay, tx: Sender<Msg>) -> notify::Result<Watch> {
    let path = path.to_path_buf();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(std::ffi::OsStr::to_os_string);
    let (events, changes) = channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(events)?;
    watcher.watch(&dir, RecursiveMode::NonRecursive)?;
    std::thread::Builder::new()
        .name("model file watch".into())
        .spawn(move || {
            let ours = |e: &notify::Event| {
                e.paths
                    .iter()
                    .any(|p| p.file_name().map(std::ffi::OsStr::to_os_string) == name)
            };
            while let Ok(event) = changes.recv() {
                if !event.as_ref().is_ok_and(|e| ours(e) && !e.kind.is_access()) {
                    continue;
                }
                // Let the rest of a save land, and drop its other events.
                std::thread::sleep(SETTLE);
                while changes.try_recv().is_ok() {}
                if tx.send(Msg::Reloaded(read(&path, &flags))).is_err() {
                    return;
                }
            }
        })
        .map_err(notify::Error::io)?;
    Ok(Watch { _watcher: watcher })
}
