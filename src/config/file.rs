//! Model files (`--config FILE.toml`): a TOML [`Overlay`], or a Hugging
//! Face config.json turned into one.
//!
//! Every key is optional; a missing key keeps the base preset's value. An
//! unknown key is an error that names the key, its line and the keys allowed.

pub use super::overlay::Overlay;

/// A model file that could not be read or parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FileError {
    /// The file could not be opened or read.
    #[error("{}", self.why().map_or_else(String::new, |w| w.text()))]
    Read {
        /// The model file.
        path: String,
        /// The system's reason, e.g. `No such file or directory`.
        reason: String,
        /// Its kind, which words it in another language.
        kind: std::io::ErrorKind,
    },
    /// The file is not valid TOML, or has an unknown key or a bad value.
    #[error("{}:{line}:{col}: {msg}", crate::text::shown(.path))]
    Parse {
        /// The model file.
        path: String,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        col: usize,
        /// The parser's message, then the offending line.
        msg: String,
    },
    /// The file is over [`MAX_FILE`] bytes.
    #[error("{}", self.why().map_or_else(String::new, |w| w.text()))]
    TooLarge {
        /// The model file.
        path: String,
        /// Its size in bytes.
        size: u64,
    },
    /// A Hugging Face config.json that could not be used.
    #[error(transparent)]
    Hf(#[from] super::hf::HfError),
    /// A GGUF file whose metadata could not be used.
    #[error(transparent)]
    Gguf(#[from] crate::weights::WeightsError),
}

impl FileError {
    /// This error as a catalog message (`err-read`, `err-file-too-large`),
    /// whose English is the `Display`; `None` for a parser's message,
    /// which stays the parser's English, and for the errors it wraps.
    #[must_use]
    pub fn why(&self) -> Option<crate::why::Why> {
        use crate::why::Why;
        let path = |p: &str| crate::text::shown(p).to_string();
        match self {
            Self::Read {
                path: p,
                reason,
                kind,
            } => Some(crate::text::read_error(&path(p), reason, *kind)),
            Self::TooLarge { path: p, size } => Some(
                Why::new("err-file-too-large")
                    .arg("path", path(p))
                    .arg("size", size.to_string())
                    .arg("max", MAX_FILE.to_string()),
            ),
            Self::Parse { .. } | Self::Hf(_) | Self::Gguf(_) => None,
        }
    }
}

/// The parser's message, then the offending line itself (which names the key).
fn with_line(msg: &str, text: &str, line: usize) -> String {
    let msg = crate::text::one_line(msg);
    match text
        .lines()
        .nth(line - 1)
        .map(crate::text::one_line)
        .filter(|l| !l.is_empty())
    {
        Some(l) if l.chars().count() <= 60 => format!("{msg} (in `{l}`)"),
        Some(l) => format!("{msg} (in `{}…`)", l.chars().take(57).collect::<String>()),
        None => msg,
    }
}
/// Largest model file read, TOML or JSON.
pub const MAX_FILE: u64 = 1 << 20;

impl Overlay {
    /// Parses TOML text; `path` only labels errors.
    ///
    /// # Errors
    /// [`FileError::Parse`] with the line and column of the first problem.
    pub fn from_toml(text: &str, path: &str) -> Result<Self, FileError> {
        toml::from_str(text).map_err(|e| {
            let start = e.span().map_or(0, |s| s.start).min(text.len());
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            FileError::Parse {
                path: path.to_string(),
                line,
                col,
                msg: with_line(e.message(), text, line),
            }
        })
    }

    /// Reads and parses a model file: a GGUF file's metadata when it starts
    /// with the magic `GGUF` ([`crate::weights::gguf`]; only its header is
    /// read, whatever its size), a Hugging Face config.json when its
    /// text is JSON (see [`super::hf::is_json`]), native TOML otherwise. A
    /// file over [`MAX_FILE`] bytes is refused before it is read, a pipe
    /// once it has given more; `-` is standard input.
    ///
    /// # Errors
    /// [`FileError`] when the file cannot be read or parsed.
    pub fn from_file(path: &std::path::Path) -> Result<Self, FileError> {
        let label = crate::text::lossless(path.as_os_str());
        let file_name = || {
            path.file_name().map_or_else(
                || crate::text::shown(&label).to_string(),
                crate::text::shown_os,
            )
        };
        if crate::weights::gguf::is_gguf(path) {
            let g = crate::weights::gguf::Gguf::open(path)?;
            return Ok(g
                .overlay(&file_name())
                .map_err(crate::weights::WeightsError::from)?);
        }
        let read = |e: std::io::Error| FileError::Read {
            path: label.clone(),
            reason: e.to_string(),
            kind: e.kind(),
        };
        let input = crate::files::open(path).map_err(read)?;
        if let Some(size) = input.size().filter(|&s| s > MAX_FILE) {
            return Err(FileError::TooLarge { path: label, size });
        }
        let text = input.read_text(MAX_FILE).map_err(read)?;
        let text = super::hf::strip_bom(&text);
        if super::hf::is_json(text) {
            let mut o = super::hf::parse(text, &label)?;
            // The name is printed at the top of params, check and the
            // stepper: the file's name in it is shown, escaped, its bytes
            // that are not UTF-8 named.
            o.name = Some(format!("{} ({})", o.name.unwrap_or_default(), file_name()));
            return Ok(o);
        }
        Self::from_toml(text, &label)
    }
}
