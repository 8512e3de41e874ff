//! Opening an input file so that its size is known before anything is read:
//! each reader refuses a file, or bounds what it reads, from that size.

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens `path` for reading and returns the file with its size in bytes,
/// taken from its metadata; nothing is read yet.
///
/// # Errors
/// The [`io::Error`] from opening the file or reading its metadata; each
/// caller maps it into its own error.
pub fn open(path: &Path) -> io::Result<(File, u64)> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    Ok((file, size))
}
