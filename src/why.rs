//! The "why" of every step: where each output axis's size comes from
//! ([`AxisSource`]) and a few plain sentences built from those numbers
//! ([`Why`]: a catalog key and its arguments).
//!
//! ```text
//! hd ← d / heads = 64 / 4        Tk ← T of block1.attn.k
//! why-split { d: 64, heads: 4, hd: 16, T: 4 }
//!   → "d_model 64 = 4 heads × 16: each head attends in its own 16-wide slice; …"
//! ```
//!
//! The words live in a Project Fluent catalog, `assets/i18n/en.ftl`
//! (embedded), so a second language is one more file. The trace keeps the
//! key, its arguments and the English text, so a reader of the log needs
//! no catalog. A new op is one message there and one arm in [`explain()`].

mod args;
pub mod explain;
mod failure;
mod foreign;

pub use args::Args;
pub use explain::{Step, explain, input, recv, tokens};
pub use failure::failure;
pub use foreign::foreign;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// The English catalog, embedded.
pub const EN: &str = include_str!("../assets/i18n/en.ftl");

/// Where the size of one output axis comes from: `hd = 16 ← d / heads =
/// 64 / 4`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxisSource {
    /// The axis, e.g. `hd`.
    pub axis: crate::shape::Axis,
    /// Its size, e.g. 16.
    pub size: usize,
    /// Where that size comes from: an operand's axis (`T of
    /// block1.attn.k`), a weight's columns, or arithmetic on the config
    /// (`d / heads = 64 / 4`).
    pub from: String,
}

impl AxisSource {
    /// `hd=16 ← d / heads = 64 / 4`.
    #[must_use]
    pub fn line(&self) -> String {
        format!("{}={} ← {}", self.axis, self.size, self.from)
    }
}

/// One argument of a catalog message: a number or a word (a shape, a path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Arg {
    /// A size or count, formatted as a number.
    Num(u64),
    /// A word: a shape such as `(2,4,64)`, a path, an axis name.
    Text(String),
}

impl From<usize> for Arg {
    fn from(n: usize) -> Self {
        Arg::Num(n as u64)
    }
}

impl From<String> for Arg {
    fn from(s: String) -> Self {
        Arg::Text(s)
    }
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Arg::Text(s.to_string())
    }
}

/// A catalog message and its arguments: the why of one step or failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Why {
    /// The catalog key, e.g. `why-split`.
    pub key: String,
    /// The message's arguments by name.
    pub args: Args,
}

impl Why {
    /// The message `key` with no arguments yet.
    #[must_use]
    pub fn new(key: &str) -> Self {
        Self {
            key: key.to_string(),
            args: Args::new(),
        }
    }

    /// Adds argument `name`.
    #[must_use]
    pub fn arg(mut self, name: &str, value: impl Into<Arg>) -> Self {
        self.args.insert(name.to_string(), value.into());
        self
    }

    /// The message in English; a key the catalog lacks or a missing
    /// argument shows as the key, so nothing is ever blank.
    #[must_use]
    pub fn text(&self) -> String {
        render(&CATALOG, self).unwrap_or_else(|e| format!("{} ({e})", self.key))
    }
}

/// A message that does not format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// The catalog has no message of this key.
    #[error("no message {0} in the catalog")]
    Missing(String),
    /// The message exists but its arguments do not fill it.
    #[error("message {key} does not format: {errors}")]
    Format {
        /// The message key, e.g. `why-split`.
        key: String,
        /// Fluent's errors, joined.
        errors: String,
    },
}

/// A loaded catalog for one language.
pub type Catalog = FluentBundle<FluentResource>;

/// Loads a catalog from Fluent source, without Unicode isolation marks
/// (terminal text stays clean).
///
/// # Errors
/// The parser's errors, when the source is not valid Fluent.
pub fn load(lang: &str, source: &str) -> Result<Catalog, String> {
    let res = FluentResource::try_new(source.to_string()).map_err(|(_, e)| format!("{e:?}"))?;
    let id: unic_langid::LanguageIdentifier = lang.parse().map_err(|e| format!("{e}"))?;
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    bundle.set_use_isolating(false);
    bundle.add_resource(res).map_err(|e| format!("{e:?}"))?;
    Ok(bundle)
}

/// The English catalog.
pub static CATALOG: LazyLock<Catalog> =
    LazyLock::new(|| load("en", EN).expect("assets/i18n/en.ftl is valid Fluent (tested)"));

/// `why` formatted by `catalog`.
///
/// # Errors
/// [`CatalogError`] when the key is missing or an argument it uses is not given.
pub fn render(catalog: &Catalog, why: &Why) -> Result<String, CatalogError> {
    let pattern = catalog
        .get_message(&why.key)
        .and_then(|m| m.value())
        .ok_or_else(|| CatalogError::Missing(why.key.clone()))?;
    let mut args = FluentArgs::new();
    for (k, v) in &why.args {
        let v = match v {
            Arg::Num(n) => FluentValue::from(*n),
            Arg::Text(s) => FluentValue::from(s.as_str()),
        };
        args.set(k.as_str(), v);
    }
    let mut errors = Vec::new();
    let text = catalog.format_pattern(pattern, Some(&args), &mut errors);
    if errors.is_empty() {
        Ok(text.into_owned())
    } else {
        Err(CatalogError::Format {
            key: why.key.clone(),
            errors: format!("{errors:?}"),
        })
    }
}

/// The message keys in a Fluent source, in order.
#[must_use]
pub fn keys(source: &str) -> Vec<&str> {
    source
        .lines()
        .filter_map(|l| l.split_once(" ="))
        .map(|(k, _)| k)
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .collect()
}
