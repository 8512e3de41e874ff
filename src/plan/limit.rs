//! The memory a run may hold: `--max-memory` (or its default), and the
//! process's own limit when that is lower.
//!
//! A process started under `ulimit -v` (`RLIMIT_AS`) or `ulimit -d`
//! (`RLIMIT_DATA`) that allocates past it is aborted by the allocator
//! (exit 134), so the plan weighs a run against what is left under those
//! limits too, and refuses it up front instead. They are read from
//! `/proc/self/limits` and what the process holds already from
//! `/proc/self/status` (Linux; elsewhere only `--max-memory` applies).

use std::sync::atomic::{AtomicU64, Ordering};

/// The largest `--max-memory` accepted: 1 PiB (1024T).
pub const MAX_MAX_MEMORY: u128 = 1 << 50;

/// The command line's `--max-memory`, for the requests a command makes
/// on its own (`params`' and `compare`'s shape-only traces); 0 when unset.
static GIVEN: AtomicU64 = AtomicU64::new(0);

/// Makes `bytes` the limit of every request that names none
/// ([`super::Request::max_memory`] `None`) in this process: the command
/// line's `--max-memory`. Capped at [`MAX_MAX_MEMORY`].
pub fn set_max_memory(bytes: u128) {
    let b = u64::try_from(bytes.min(MAX_MAX_MEMORY)).unwrap_or(u64::MAX);
    GIVEN.store(b, Ordering::Relaxed);
}

/// The limit [`set_max_memory`] set, if any.
#[must_use]
pub fn given_max_memory() -> Option<u128> {
    match GIVEN.load(Ordering::Relaxed) {
        0 => None,
        b => Some(u128::from(b)),
    }
}

/// A limit the process runs under, and the bytes left below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessLimit {
    /// Which limit, as a user sets it: `ulimit -v` or `ulimit -d`.
    pub name: &'static str,
    /// Bytes the process may still take under it.
    pub left: u128,
}

/// The lower of the process's address-space and data limits, as bytes
/// left; `None` when neither is set (or on a system without `/proc`).
#[must_use]
pub fn process_limit() -> Option<ProcessLimit> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    [
        ("Max address space", "VmSize:", "ulimit -v"),
        ("Max data size", "VmData:", "ulimit -d"),
    ]
    .into_iter()
    .filter_map(|(row, used, name)| {
        let soft = soft_limit(&limits, row)?;
        let held = kib(&status, used).unwrap_or(0);
        Some(ProcessLimit {
            name,
            left: soft.saturating_sub(held),
        })
    })
    .min_by_key(|l| l.left)
}

/// The soft limit in bytes on `row` of `/proc/self/limits`; `None` when
/// unlimited or absent.
fn soft_limit(limits: &str, row: &str) -> Option<u128> {
    let rest = limits.lines().find_map(|l| l.strip_prefix(row))?;
    rest.split_whitespace().next()?.parse().ok()
}

/// The `field` of `/proc/self/status` (`VmSize:   1234 kB`) in bytes.
fn kib(status: &str, field: &str) -> Option<u128> {
    let rest = status.lines().find_map(|l| l.strip_prefix(field))?;
    let n: u128 = rest.split_whitespace().next()?.parse().ok()?;
    Some(n * 1024)
}

#[cfg(test)]
mod tests {
    use super::{kib, soft_limit};

    #[test]
    fn limits_and_usage_are_read_off_procs_rows() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max data size             unlimited            unlimited            bytes\n\
                      Max address space         536870912            unlimited            bytes\n";
        assert_eq!(soft_limit(limits, "Max address space"), Some(512 << 20));
        assert_eq!(soft_limit(limits, "Max data size"), None);
        assert_eq!(soft_limit(limits, "Max stack size"), None);
        let status = "Name:\tshapetrace\nVmSize:\t   20480 kB\nVmData:\t    4096 kB\n";
        assert_eq!(kib(status, "VmSize:"), Some(20 << 20));
        assert_eq!(kib(status, "VmData:"), Some(4 << 20));
    }
}
