//! Temp files that must not outlive the process: a process-wide registry
//! of the live temp paths, and a thread that, on SIGINT, SIGTERM or SIGHUP,
//! removes them and exits 128 + the signal's number.
//!
//! The thread starts with the first temp file, so only a command that
//! writes an output file takes over these signals; the stepper, which
//! owns its own, never writes one.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// The temp files being written now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry, even after a thread panicked holding it: a list of paths
/// cannot be left half-changed by a panic.
pub fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts the signal thread once. Called before a temp file is created, so
/// that no signal can land between its creation and its registration.
pub fn watch() {
    static START: Once = Once::new();
    START.call_once(|| {
        // Without the thread a signal still ends the process; only the
        // cleanup is lost, so a failure to start it is not an error.
        if let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            let _ = std::thread::Builder::new()
                .name("out-cleanup".into())
                .spawn(move || {
                    if let Some(n) = signals.forever().next() {
                        remove_all(&mut live());
                        std::process::exit(128 + n);
                    }
                });
        }
    });
}

/// Removes every registered temp file and forgets it. The caller holds the
/// lock, so no writer can rename a temp file while it goes.
pub fn remove_all(live: &mut Vec<PathBuf>) {
    for p in live.drain(..) {
        let _ = std::fs::remove_file(p);
    }
}

/// Forgets `path` (renamed into place, or removed by its owner).
pub fn forget(live: &mut Vec<PathBuf>, path: &Path) {
    live.retain(|p| p != path);
}

#[cfg(test)]
mod tests {
    use super::{forget, live, remove_all};

    /// What is registered is removed; what was forgotten is left alone.
    #[test]
    fn registered_temp_files_are_removed_forgotten_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join(".tmpa"), dir.path().join("kept"));
        std::fs::write(&a, "half").unwrap();
        std::fs::write(&b, "whole").unwrap();
        let mut reg = live();
        reg.push(a.clone());
        reg.push(b.clone());
        forget(&mut reg, &b);
        remove_all(&mut reg);
        assert!(reg.is_empty());
        drop(reg);
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "whole");
    }
}
