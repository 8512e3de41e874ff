//! Where the binary writes: stdout that survives a closed pipe, and
//! `--out` files that are never left half-written.

use color_eyre::eyre::{Result, bail, eyre};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Stdout that turns a closed pipe into a sink: the run goes on quietly and
/// its exit code still says how the checks went (`check | head -1` still
/// exits 1 on a failing model).
pub struct Stdout {
    inner: io::StdoutLock<'static>,
    closed: bool,
}

/// The process's stdout, closed-pipe safe.
#[must_use]
pub fn stdout() -> Stdout {
    Stdout {
        inner: io::stdout().lock(),
        closed: false,
    }
}

impl Stdout {
    fn guard<T: Default>(&mut self, r: io::Result<T>, ok: T) -> io::Result<T> {
        match r {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(ok)
            }
            r => r,
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let r = self.inner.write(buf);
        self.guard(r, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.guard(r, ())
    }
}

/// The system's reason, without the temp file's path that tempfile adds.
fn os_reason(e: &io::Error) -> String {
    let text = e.to_string();
    text.split(" at path ").next().unwrap_or(&text).to_string()
}

/// Writes `--out path`.
///
/// - A regular file (new or existing, or behind a symlink) is written to a
///   temp file beside it, then renamed over it, so a failed write never
///   leaves a truncated file; an existing file keeps its permissions.
/// - A device or a named pipe (say `/dev/stdout`) is written straight
///   into, as a shell redirect would.
///
/// # Errors
/// One line naming the path and why it cannot be written.
pub fn write_file(
    flag: &str,
    path: &Path,
    render: impl Fn(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        bail!("{flag} needs a file name; allowed: a path to a new or existing file");
    }
    // Follow a symlink to the file it names, so the link stays a link.
    let target: PathBuf = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).or_else(|_| fs::read_link(path))?
        }
        _ => path.to_path_buf(),
    };
    let fail = |e: io::Error| eyre!("cannot write {flag} {shown}: {}", os_reason(&e));
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => {
            bail!("cannot write {flag} {shown}: it is a folder; allowed: a file path")
        }
        Ok(m) if !m.is_file() => {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(fail)?;
            return render(&mut f).map_err(fail);
        }
        _ => {}
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        bail!(
            "cannot write {flag} {shown}: folder {} does not exist",
            dir.display()
        );
    }
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|e| {
        eyre!(
            "cannot write {flag} {shown}: cannot create a file in {}: {}",
            dir.display(),
            os_reason(&e)
        )
    })?;
    render(tmp.as_file_mut()).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    let perms = match fs::metadata(&target) {
        Ok(m) => m.permissions(),
        Err(_) => {
            // A temp file is private (0600); a new output is an ordinary file.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::Permissions::from_mode(0o644)
            }
            #[cfg(not(unix))]
            tmp.as_file().metadata().map_err(fail)?.permissions()
        }
    };
    fs::set_permissions(tmp.path(), perms).map_err(fail)?;
    tmp.persist(&target).map_err(|e| fail(e.error))?;
    Ok(())
}
