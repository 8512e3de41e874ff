//! Everything a caller of the library can get wrong, each with a one-line
//! message: one error type over every layer's own.

use crate::i18n::Lang;
use crate::why::Why;
use crate::{config, npy, plan, text, trace, weights};

/// Everything a caller can get wrong, each with a one-line message.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An impossible or unsupported configuration.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// An overlay whose base preset is unknown or whose result breaks a rule.
    #[error(transparent)]
    Resolve(#[from] config::ResolveError),
    /// A model file (`--config`) that could not be read or parsed.
    #[error(transparent)]
    File(#[from] config::file::FileError),
    /// A trace log (`view FILE`) that could not be read.
    #[error(transparent)]
    Log(#[from] trace::log::LogError),
    /// A config error in a model built from a model file.
    #[error("{}", self.en())]
    InModelFile {
        /// The model file the config came from.
        path: String,
        /// The error the config itself gave.
        inner: Box<Error>,
    },
    /// A checkpoint (`--weights`) that could not be used.
    #[error(transparent)]
    Weights(#[from] weights::WeightsError),
    /// An `.npy` file (`--input`, `--output`) that could not be used.
    #[error(transparent)]
    Npy(#[from] npy::NpyError),
    /// A memory size (`--max-memory`) that could not be parsed.
    #[error(transparent)]
    Size(#[from] plan::bytes::BadSize),
    /// The given input is not the model's stream shape (B, T, d_model).
    #[error("{}", self.en())]
    InputShape {
        /// The input's shape, e.g. `(2,4,32)`.
        got: String,
        /// The stream shape the model expects, e.g. `(2,4,64)`.
        want: String,
        /// The model's d_model.
        d: usize,
    },
    /// `--decode` with `--input`: a decode step feeds a token (or, with no
    /// vocabulary, a seeded row), which a given x0 has none of.
    #[error("{}", self.en())]
    DecodeInput {
        /// The decode steps asked for.
        steps: usize,
    },
    /// The `--input` file is not rank 3. `got` is the file's shape, which
    /// may list thousands of dimensions.
    #[error("{}", self.en())]
    InputRank {
        /// The file's shape, e.g. `(2,4)`.
        got: String,
    },
    /// `--batch` or `--seq` disagrees with the B or T of the `--input`
    /// file or of the `--tokens` ids.
    #[error("{}", self.en())]
    InputDims {
        /// The flag given, `batch` or `seq`.
        flag: &'static str,
        /// The flag's value.
        value: usize,
        /// Where B and T came from: `--input` or `--tokens`.
        from: &'static str,
        /// The `--input` file or the `--tokens` value.
        path: String,
        /// The axis the flag sets, `B` or `T`.
        dim: &'static str,
        /// That axis's size in the file.
        file: usize,
    },
    /// `--tokens` that cannot be used: unparsable, or ids outside 0..V.
    #[error(transparent)]
    Tokens(#[from] crate::tokens::TokensError),
    /// `--tokens` and `--input` together: a run starts at one of them.
    #[error("{}", self.en())]
    TokensAndInput,
    /// `--tokens` for a model with no vocabulary to look them up in.
    #[error("{}", self.en())]
    TokensNoVocab,
    /// A name that is none of the allowed ones: a preset
    /// (`config::preset::by_name`), a fault, an activation, …
    #[error(transparent)]
    Name(#[from] config::names::UnknownName),
    /// A lab's input that cannot be used (the FFN by hand, the norms).
    #[error(transparent)]
    Lesson(#[from] crate::lesson::LessonError),
    /// The caller set the cancel flag before the run finished.
    #[error("{}", self.en())]
    Cancelled,
}

impl Error {
    /// This error's one line in `lang`, from the catalogs: the `Display`
    /// is [`Lang::En`]'s. A message that still holds the library's English
    /// words (a checkpoint's, a log's, a parser's) stays English, whole.
    #[must_use]
    pub fn in_lang(&self, lang: Lang) -> String {
        self.worded_in(lang).unwrap_or_else(|| self.to_string())
    }

    /// This error in `lang` when the catalogs word all of it; `None`
    /// otherwise (a model file's error whose inner one they do not word
    /// stays English around it too).
    fn worded_in(&self, lang: Lang) -> Option<String> {
        match self {
            Self::InModelFile { path, inner } => inner.worded_in(lang).map(|inner| {
                lang.why(
                    &Why::new("err-in-model-file")
                        .arg("inner", inner)
                        .arg("path", text::shown(path).to_string()),
                )
            }),
            _ => self.why().map(|w| lang.why(&w)),
        }
    }

    /// This error as a catalog message, where the catalogs word it.
    fn why(&self) -> Option<Why> {
        let shown = |s: &str| text::shown(s).to_string();
        let w = match self {
            Self::Config(c) | Self::Resolve(config::ResolveError::Invalid(c)) => return c.why(),
            Self::File(f) => return f.why(),
            Self::Npy(n) => n.why(),
            Self::Tokens(t) => t.why(),
            Self::InputShape { got, want, d } => Why::new("err-input-shape")
                .arg("got", shown(got))
                .arg("want", want.as_str())
                .arg("d", *d),
            Self::DecodeInput { steps } => {
                Why::new("err-decode-input").arg("steps", steps.to_string())
            }
            Self::InputRank { got } => Why::new("err-input-rank").arg("got", shown(got)),
            Self::InputDims {
                flag,
                value,
                from,
                path,
                dim,
                file,
            } => Why::new("err-input-dims")
                .arg("flag", *flag)
                .arg("value", value.to_string())
                .arg("from", *from)
                .arg("path", shown(path))
                .arg("dim", *dim)
                .arg("file", *file),
            Self::TokensAndInput => Why::new("err-tokens-and-input"),
            Self::TokensNoVocab => Why::new("err-tokens-no-vocab"),
            Self::Cancelled => Why::new("err-cancelled"),
            Self::InModelFile { .. }
            | Self::Resolve(config::ResolveError::Preset(_))
            | Self::Log(_)
            | Self::Weights(_)
            | Self::Size(_)
            | Self::Name(_)
            | Self::Lesson(_) => return None,
        };
        Some(w)
    }

    /// The English of a variant whose `Display` is its catalog message
    /// (`#[error("{}", self.en())]`); each is listed in [`Self::why`],
    /// which `every_worded_error_formats_in_both_languages` holds.
    fn en(&self) -> String {
        match self {
            Self::InModelFile { path, inner } => Why::new("err-in-model-file")
                .arg("inner", inner.to_string())
                .arg("path", text::shown(path).to_string())
                .text(),
            _ => self
                .why()
                .expect("a variant displayed from the catalog is worded by why()")
                .text(),
        }
    }
}

/// The one line of `e` in `lang` when `e` is one of this library's errors
/// the catalogs word (see [`Error::in_lang`]); `None` for any other error.
#[must_use]
pub fn in_lang(e: &(dyn std::error::Error + 'static), lang: Lang) -> Option<String> {
    let why = if let Some(e) = e.downcast_ref::<Error>() {
        return e.worded_in(lang);
    } else if let Some(c) = e.downcast_ref::<config::ConfigError>() {
        c.why()
    } else if let Some(config::ResolveError::Invalid(c)) = e.downcast_ref() {
        c.why()
    } else if let Some(f) = e.downcast_ref::<config::file::FileError>() {
        f.why()
    } else if let Some(n) = e.downcast_ref::<npy::NpyError>() {
        Some(n.why())
    } else {
        e.downcast_ref::<crate::tokens::TokensError>()
            .map(crate::tokens::TokensError::why)
    };
    why.map(|w| lang.why(&w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{ItemFault, TokensError};

    /// One of each error the catalogs word: every message formats in both
    /// languages with all its arguments (a missing one would show the key).
    fn worded() -> Vec<Error> {
        let c = |c: config::ConfigError| Error::Config(c);
        vec![
            Error::InputShape {
                got: "(2,4,32)".into(),
                want: "(2,4,64)".into(),
                d: 64,
            },
            Error::DecodeInput { steps: 3 },
            Error::InputRank {
                got: "(2,4)".into(),
            },
            Error::InputDims {
                flag: "batch",
                value: 3,
                from: "--tokens",
                path: "1,2".into(),
                dim: "B",
                file: 1,
            },
            Error::TokensAndInput,
            Error::TokensNoVocab,
            Error::Cancelled,
            Error::InModelFile {
                path: "m.toml".into(),
                inner: Box::new(c(config::ConfigError::Zero { name: "heads" })),
            },
            Error::Tokens(TokensError::Item {
                item: "x".into(),
                row: 0,
                col: 1,
                why: ItemFault::NotWhole,
            }),
            Error::Tokens(TokensError::Range {
                id: 99,
                row: 0,
                col: 0,
                vocab: 0,
            }),
            Error::Npy(npy::NpyError::Fortran {
                path: "a.npy".into(),
            }),
            c(config::ConfigError::SeqOverContext { seq: 9, context: 8 }),
            c(config::ConfigError::Eps(-1.0)),
            c(config::ConfigError::Stages {
                got: 3,
                pp: 2,
                allowed: "1, 3".into(),
            }),
        ]
    }

    #[test]
    fn every_worded_error_formats_in_both_languages() {
        for e in worded() {
            let en = e.to_string();
            let zh = e.in_lang(Lang::ZhTw);
            assert!(!en.contains("err-"), "{en}");
            assert!(!zh.contains("err-"), "{zh}");
            assert_ne!(en, zh, "{en}: not worded in zh-TW");
            assert!(
                zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{zh}"
            );
        }
    }

    #[test]
    fn an_error_the_catalogs_do_not_word_stays_english() {
        let e = Error::Config(config::ConfigError::NeedsRotary("rotary_dims"));
        assert_eq!(e.in_lang(Lang::ZhTw), e.to_string());
        assert_eq!(in_lang(&e, Lang::ZhTw), None);
        // Whole: no Chinese frame around an English inner error.
        let framed = Error::InModelFile {
            path: "m.toml".into(),
            inner: Box::new(e),
        };
        assert_eq!(framed.in_lang(Lang::ZhTw), framed.to_string());
        assert!(
            framed.to_string().ends_with("(model from m.toml)"),
            "{framed}"
        );
        // And a missing argument is caught: the test above can fail.
        let broken = Lang::En.why(&Why::new("err-config-zero"));
        assert!(broken.contains("err-config-zero"), "{broken}");
    }
}
