//! Where the binary writes: messages on stderr that cannot fail loudly,
//! stdout that survives a closed pipe and names itself when full, and
//! `--out` files that are never left half-written, even by a signal.

mod cleanup;

use color_eyre::eyre::{Result, bail, eyre};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes one `shapetrace: ...` line on stderr. Every message of the binary
/// goes through here: a failed write (`2>/dev/full`, a closed stderr) is
/// ignored, where `eprintln!` would panic and the run end in an abort, so
/// the process still ends with the exit code it meant.
pub fn say(line: impl std::fmt::Display) {
    let _ = writeln!(io::stderr().lock(), "shapetrace: {line}");
}

/// Stdout that turns a closed pipe into a sink: the run goes on quietly and
/// its exit code still says how the checks went (`check | head -1` still
/// exits 1 on a failing model). Any other failed write says it was stdout.
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
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!("cannot write to stdout: {}", os_reason(&e)),
            )),
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

/// Writes all of `text` to stdout and flushes it, so that a full stdout is
/// an error here and not lost at exit.
///
/// # Errors
/// "cannot write to stdout: REASON" (a closed pipe is no error).
pub fn print(text: &str) -> io::Result<()> {
    let mut out = stdout();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// The system's reason, without the temp file's path that tempfile adds
/// or the error number.
fn os_reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" at path ").next().unwrap_or(&text);
    text.split(" (os error ").next().unwrap_or(text).to_string()
}

/// The descriptor an output path names when it is one the process was
/// given: `-` and `/dev/stdout` are 1, `/dev/stderr` is 2, `/dev/fd/N` and
/// `/proc/self/fd/N` are N. Opening such a path anew would start a new
/// file description (at offset 0, without the shell's append), and
/// renaming a temp file over it would replace the file behind it.
pub fn inherited(path: &Path) -> Option<u32> {
    let text = path.to_str()?;
    match text {
        "-" | "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => text
            .strip_prefix("/dev/fd/")
            .or_else(|| text.strip_prefix("/proc/self/fd/"))
            .and_then(|n| n.parse().ok()),
    }
}

/// Where writing `path` lands: a chain of symlinks followed to the file it
/// names (each link read against its own folder, a dangling one too), the
/// folder then resolved. `--out` writes there, and the clash check compares
/// it with the inputs: one resolver, so the two cannot disagree.
#[must_use]
pub fn resolve(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    // As the kernel does, give up on a loop after 40 links.
    for _ in 0..40 {
        match fs::read_link(&at) {
            Ok(to) => at = at.parent().unwrap_or(Path::new("")).join(to),
            Err(_) => break,
        }
    }
    let dir = match at.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (fs::canonicalize(dir), at.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => at,
    }
}

/// An output file made ready to be written: see [`prepare`].
pub struct Target {
    flag: String,
    shown: String,
    to: To,
}

enum To {
    /// A device or a named pipe, written straight into; or another
    /// descriptor the process was given (`--out >(gzip > t.gz)` gives
    /// `/dev/fd/63`), opened again for appending, never replaced.
    Direct { path: PathBuf, append: bool },
    /// Standard output (`-`, `/dev/stdout`, `/dev/fd/1`): the descriptor the
    /// shell gave, so `>> log` appends as a redirect would.
    Stdout,
    /// Standard error (`/dev/stderr`, `/dev/fd/2`).
    Stderr,
    /// A temp file beside `target`, renamed over it once whole.
    Staged { tmp: Temp, target: PathBuf },
}

/// A registered temp file: removed, and forgotten by the signal thread,
/// unless it was renamed into place.
struct Temp(Option<tempfile::NamedTempFile>);

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(tmp) = self.0.take() {
            let mut live = cleanup::live();
            cleanup::forget(&mut live, tmp.path());
            drop(tmp);
        }
    }
}

/// Makes `--out path` (`flag` names it) ready to be written, before anything
/// is rendered, so that two outputs of one run are both ready (or both
/// refused) before either is written.
///
/// - A regular file (new or existing, or behind a symlink) gets a temp file
///   beside it, registered so that SIGINT, SIGTERM or SIGHUP removes it;
///   [`Target::write`] renames it over the file once whole, so a failed or
///   interrupted write never leaves a truncated file or a stray temp file,
///   and an existing file keeps its permissions.
/// - A device or a named pipe (say `/dev/stdout`) is written straight
///   into, as a shell redirect would.
///
/// # Errors
/// One line naming the path and why it cannot be written.
pub fn prepare(flag: &str, path: &Path) -> Result<Target> {
    let shown = shapetrace::text::shown_os(path.as_os_str());
    if path.as_os_str().is_empty() {
        bail!("{flag} needs a file name; allowed: a path to a new or existing file");
    }
    let made = |to| Target {
        flag: flag.to_string(),
        shown: shown.clone(),
        to,
    };
    match inherited(path) {
        Some(1) => return Ok(made(To::Stdout)),
        Some(2) => return Ok(made(To::Stderr)),
        Some(_) => {
            return Ok(made(To::Direct {
                path: path.to_path_buf(),
                append: true,
            }));
        }
        None => {}
    }
    // `new/` names a folder: never a file called `new`.
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        bail!("cannot write {flag} {shown}: it names a folder; allowed: a file path");
    }
    // Follow a symlink to the file it names, so the link stays a link.
    let target = resolve(path);
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => {
            bail!("cannot write {flag} {shown}: it is a folder; allowed: a file path")
        }
        // A disk or a partition: writing a trace into one destroys it.
        Ok(m) if std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) => {
            bail!("cannot write {flag} {shown}: it is a block device; allowed: a file path")
        }
        Ok(m) if !m.is_file() => {
            return Ok(made(To::Direct {
                path: target,
                append: false,
            }));
        }
        _ => {}
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        bail!(
            "cannot write {flag} {shown}: folder {} does not exist; allowed: a path in an existing folder",
            shapetrace::text::shown_os(dir.as_os_str())
        );
    }
    cleanup::watch();
    let mut live = cleanup::live();
    // Made 0666 less the umask, as a shell redirect makes a new file.
    let tmp = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(|e| {
            eyre!(
                "cannot write {flag} {shown}: cannot create a file in {}: {}",
                shapetrace::text::shown_os(dir.as_os_str()),
                os_reason(&e)
            )
        })?;
    live.push(tmp.path().to_path_buf());
    Ok(made(To::Staged {
        tmp: Temp(Some(tmp)),
        target,
    }))
}

impl Target {
    /// Renders into the target: straight in, or into the temp file and then
    /// renamed over it.
    ///
    /// # Errors
    /// One line naming the path and why it cannot be written.
    pub fn write(self, render: impl Fn(&mut dyn Write) -> io::Result<()>) -> Result<()> {
        let Self { flag, shown, to } = self;
        let fail = |e: io::Error| eyre!("cannot write {flag} {shown}: {}", os_reason(&e));
        let (mut tmp, target) = match to {
            To::Stdout => return render(&mut stdout()).map_err(fail),
            To::Stderr => return render(&mut io::stderr().lock()).map_err(fail),
            To::Direct { path, append } => {
                let mut f = fs::OpenOptions::new()
                    .write(true)
                    .append(append)
                    .open(&path)
                    .map_err(fail)?;
                return render(&mut f).map_err(fail);
            }
            To::Staged { tmp, target } => (tmp, target),
        };
        let file = tmp
            .0
            .as_mut()
            .expect("a staged temp file is held until it is renamed");
        render(file.as_file_mut()).map_err(fail)?;
        file.as_file().sync_all().map_err(fail)?;
        // An existing file keeps its permissions; a new one has the temp
        // file's, 0666 less the umask.
        if let Ok(m) = fs::metadata(&target) {
            fs::set_permissions(file.path(), m.permissions()).map_err(fail)?;
        }
        // Renamed under the registry's lock: a signal now waits for the
        // rename, then finds nothing left to remove.
        let mut live = cleanup::live();
        let file = tmp.0.take().expect("taken once");
        cleanup::forget(&mut live, file.path());
        file.persist(&target).map_err(|e| fail(e.error))?;
        Ok(())
    }
}
