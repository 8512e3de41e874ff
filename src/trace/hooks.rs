//! Ways to watch and stop a recording from elsewhere (another thread, a UI).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// How far a run has got: `done` of `expected` events recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Events recorded so far.
    pub done: usize,
    /// Events the run is expected to record in all (from a shape-only pass);
    /// at least `done`.
    pub expected: usize,
}

/// Called after each recorded event of a numeric run.
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Ways to watch and stop a run from elsewhere (another thread, a UI).
#[derive(Clone, Default)]
pub struct Hooks {
    /// Told after every event of a numeric run.
    pub progress: Option<ProgressFn>,
    /// Set it to true to stop the run before its next op; the run then
    /// returns `Error::Cancelled`.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}
