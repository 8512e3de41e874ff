//! The one way in: every input file (a model file, a checkpoint, an
//! `.npy`, a trace log) is opened here, so that no reader can block on a
//! FIFO nobody writes, read a folder or a device, or read more than its cap.
//!
//! Allowed: a regular file, a pipe with a writer (`--config <(generate)`,
//! `/dev/stdin` under a pipe), or `-` for standard input. Refused at once,
//! naming what it is: a folder, a socket, a device (a terminal included:
//! reading one would wait for typing), and a FIFO with no writer.

use std::fs::{self, File, FileType, OpenOptions};
use std::io::{self, Read, Seek};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The name that means standard input.
pub const STDIN: &str = "-";

/// What allowed inputs are, for every refusal.
const ALLOWED: &str = "allowed: a regular file, a pipe, or - for standard input";

/// Most bytes a pipe may pour into a temporary file for a reader that
/// needs to seek (a checkpoint, an `.npy`); a larger one must be given as a
/// regular file.
pub const MAX_PIPED: u64 = 1 << 30;

/// An opened input: a regular file, whose size is known and which can
/// seek, or a stream (a pipe, standard input) read as it comes.
pub enum Input {
    /// A regular file, which can seek.
    File {
        /// The open file.
        file: File,
        /// Its length in bytes when opened.
        size: u64,
    },
    /// A pipe or standard input, read once from start to end.
    Stream(Box<dyn Read + Send>),
}

impl Input {
    /// The size in bytes, when known before reading (a regular file).
    #[must_use]
    pub fn size(&self) -> Option<u64> {
        match self {
            Self::File { size, .. } => Some(*size),
            Self::Stream(_) => None,
        }
    }

    /// All of the input, refused once it holds more than `cap` bytes
    /// (whatever its kind: a pipe is read up to `cap + 1` bytes).
    ///
    /// # Errors
    /// A read error, or one saying the input is over `cap`.
    pub fn read_capped(self, cap: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > cap {
            return Err(io::Error::other(format!(
                "it holds more than {}; allowed: at most {}",
                human(cap),
                human(cap)
            )));
        }
        Ok(bytes)
    }

    /// [`Input::read_capped`] as UTF-8 text.
    ///
    /// # Errors
    /// As [`Input::read_capped`], or text that is not UTF-8.
    pub fn read_text(self, cap: u64) -> io::Result<String> {
        String::from_utf8(self.read_capped(cap)?)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::File { file, .. } => file.read(buf),
            Self::Stream(s) => s.read(buf),
        }
    }
}

fn human(n: u64) -> String {
    crate::text::human_bytes(u128::from(n))
}

fn refused(what: &str) -> io::Error {
    io::Error::other(format!("it is {what}; {ALLOWED}"))
}

/// Refuses a folder, a socket or a device by name. A folder's error is of
/// kind `IsADirectory`, which the catalogs word in another language.
fn check_kind(t: FileType) -> io::Result<()> {
    if t.is_dir() {
        Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("it is a folder; {ALLOWED}"),
        ))
    } else if t.is_socket() {
        Err(refused("a socket"))
    } else if t.is_char_device() || t.is_block_device() {
        Err(refused("a device"))
    } else {
        Ok(())
    }
}

/// Opens `path` (`-` for standard input) for reading, without blocking.
///
/// A FIFO is opened non-blocking; one with no writer is refused at once
/// (a non-blocking read gives end of file, where a quiet writer gives
/// `EAGAIN`), then it is read blocking like any pipe, from its first bytes.
///
/// # Errors
/// The [`io::Error`] of opening the file, or one naming why it is refused
/// (its message reads after "cannot read PATH: "); each caller maps it
/// into its own error.
pub fn open(path: &Path) -> io::Result<Input> {
    if path.as_os_str() == STDIN {
        return stdin();
    }
    // Looked at before opening, so that no device is ever opened.
    check_kind(fs::metadata(path)?.file_type())?;
    let nonblock = rustix::fs::OFlags::NONBLOCK.bits();
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nonblock.cast_signed())
        .open(path)?;
    // Looked at again on what was opened, which is what will be read.
    let meta = file.metadata()?;
    check_kind(meta.file_type())?;
    if meta.is_file() {
        blocking(&file)?;
        return Ok(Input::File {
            size: meta.len(),
            file,
        });
    }
    let mut file = file;
    let mut first = vec![0u8; 64 << 10];
    let got = loop {
        match file.read(&mut first) {
            Ok(0) => return Err(refused("a pipe with no writer")),
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break 0,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    blocking(&file)?;
    first.truncate(got);
    Ok(Input::Stream(Box::new(io::Cursor::new(first).chain(file))))
}

/// Opens `path` as [`open`] does, for a reader that seeks: a stream is
/// copied into an unnamed temporary file (memory stays flat whatever the
/// pipe holds, and the system removes the file however the run ends),
/// refused past `cap` bytes. Returns the file and its size.
///
/// # Errors
/// As [`open`], or a stream over `cap`.
pub fn open_seekable(path: &Path, cap: u64) -> io::Result<(File, u64)> {
    match open(path)? {
        Input::File { file, size } => Ok((file, size)),
        stream => {
            let mut spill = tempfile::tempfile()?;
            let size = io::copy(&mut stream.take(cap.saturating_add(1)), &mut spill)?;
            if size > cap {
                return Err(io::Error::other(format!(
                    "it holds more than {}; allowed: at most {} from a pipe; a larger file must be a regular file",
                    human(cap),
                    human(cap)
                )));
            }
            spill.seek(io::SeekFrom::Start(0))?;
            Ok((spill, size))
        }
    }
}

/// Standard input: a regular file or a pipe; a terminal, a folder or a
/// device is refused (reading a terminal would wait for typing).
fn stdin() -> io::Result<Input> {
    let file = stdin_file()?;
    let meta = file.metadata()?;
    check_kind(meta.file_type()).map_err(|e| io::Error::other(format!("standard input: {e}")))?;
    if meta.is_file() {
        return Ok(Input::File {
            size: meta.len(),
            file,
        });
    }
    Ok(Input::Stream(Box::new(file)))
}

/// Standard input as a file of its own (a duplicate of descriptor 0): its
/// metadata names what it is, and the clash check compares its inode.
///
/// # Errors
/// When descriptor 0 cannot be duplicated (it is closed).
pub fn stdin_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

/// Back to blocking reads, once it is known that a read cannot hang.
fn blocking(file: &File) -> io::Result<()> {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let flags = fcntl_getfl(file)?;
    fcntl_setfl(file, flags - OFlags::NONBLOCK)?;
    Ok(())
}

#[cfg(test)]
mod tests;
