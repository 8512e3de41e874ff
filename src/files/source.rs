//! A seekable input, from a file or from memory, behind one `Read + Seek`
//! interface, so that a reader which seeks (the safetensors reader) takes a
//! piped checkpoint the same way it takes a file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};

/// A regular file, or a stream read whole into memory.
///
/// Like `&File`, a `&Source` reads and seeks, so that a holder can read
/// through a shared reference.
#[derive(Debug)]
pub enum Source {
    File(File),
    Memory { bytes: Vec<u8>, pos: AtomicU64 },
}

impl Source {
    /// `bytes`, read from the start.
    #[must_use]
    pub fn memory(bytes: Vec<u8>) -> Self {
        Self::Memory {
            bytes,
            pos: AtomicU64::new(0),
        }
    }
}

impl Read for &Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::File(f) => {
                let mut f: &File = f;
                f.read(buf)
            }
            Source::Memory { bytes, pos } => {
                let at = usize::try_from(pos.load(Ordering::Relaxed))
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                let n = buf.len().min(bytes.len() - at);
                buf[..n].copy_from_slice(&bytes[at..at + n]);
                pos.store((at + n) as u64, Ordering::Relaxed);
                Ok(n)
            }
        }
    }
}

impl Seek for &Source {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            Source::File(f) => {
                let mut f: &File = f;
                f.seek(to)
            }
            Source::Memory { bytes, pos } => {
                let base = match to {
                    SeekFrom::Start(n) => Some(n),
                    SeekFrom::End(d) => (bytes.len() as u64).checked_add_signed(d),
                    SeekFrom::Current(d) => pos.load(Ordering::Relaxed).checked_add_signed(d),
                };
                let at = base.ok_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, "seek before the start")
                })?;
                pos.store(at, Ordering::Relaxed);
                Ok(at)
            }
        }
    }
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self).read(buf)
    }
}

impl Seek for Source {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        (&*self).seek(to)
    }
}
