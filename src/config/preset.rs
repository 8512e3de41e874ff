//! Named presets, kept as TOML in `assets/presets/` and embedded in the
//! binary, and [`Overlay::resolve`], which lays an overlay on one.
//!
//! A preset file may start from another preset with `preset = "…"`.

use super::names::UnknownName;
use super::overlay::Overlay;
use super::{ModelConfig, ResolveError};

/// (name, TOML text) of every preset, in listing order.
pub const PRESETS: &[(&str, &str)] = &[
    ("lesson", include_str!("../../assets/presets/lesson.toml")),
    (
        "lesson-swiglu",
        include_str!("../../assets/presets/lesson-swiglu.toml"),
    ),
    (
        "lesson-gqa",
        include_str!("../../assets/presets/lesson-gqa.toml"),
    ),
    (
        "lesson-post-ln",
        include_str!("../../assets/presets/lesson-post-ln.toml"),
    ),
    (
        "lesson-lm",
        include_str!("../../assets/presets/lesson-lm.toml"),
    ),
    (
        "lesson-parallel",
        include_str!("../../assets/presets/lesson-parallel.toml"),
    ),
    (
        "lesson-sandwich",
        include_str!("../../assets/presets/lesson-sandwich.toml"),
    ),
    (
        "lesson-encoder",
        include_str!("../../assets/presets/lesson-encoder.toml"),
    ),
    (
        "lesson-moe",
        include_str!("../../assets/presets/lesson-moe.toml"),
    ),
    (
        "lesson-bf16",
        include_str!("../../assets/presets/lesson-bf16.toml"),
    ),
    (
        "gpt2-small",
        include_str!("../../assets/presets/gpt2-small.toml"),
    ),
    (
        "gpt2-medium",
        include_str!("../../assets/presets/gpt2-medium.toml"),
    ),
    (
        "gpt2-large",
        include_str!("../../assets/presets/gpt2-large.toml"),
    ),
    ("gpt2-xl", include_str!("../../assets/presets/gpt2-xl.toml")),
    (
        "shakespeare-char",
        include_str!("../../assets/presets/shakespeare-char.toml"),
    ),
];

/// The names of every preset, comma separated.
#[must_use]
pub fn allowed() -> String {
    PRESETS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

fn text(name: &str) -> &'static str {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, t)| t)
}

fn overlay(name: &str) -> Result<Overlay, UnknownName> {
    if !PRESETS.iter().any(|(n, _)| *n == name) {
        return Err(UnknownName {
            what: "preset",
            got: name.to_string(),
            allowed: allowed(),
        });
    }
    // The embedded presets are tested to parse; a broken one is a build bug.
    Ok(toml::from_str(text(name)).unwrap_or_else(|e| panic!("embedded preset {name}: {e}")))
}

/// The config of a named preset.
///
/// # Errors
/// [`UnknownName`] listing the presets when `name` is not one of them.
pub fn by_name(name: &str) -> Result<ModelConfig, UnknownName> {
    let own = overlay(name)?;
    let mut cfg = match own.preset.as_deref() {
        Some(base) => by_name(base)?,
        // A preset without a base lists every field.
        None => toml::from_str::<ModelConfig>(text(name))
            .unwrap_or_else(|e| panic!("embedded preset {name}: {e}")),
    };
    own.apply(&mut cfg);
    cfg.preset = name.to_string();
    Ok(cfg)
}

/// The lesson model.
#[must_use]
pub fn lesson() -> ModelConfig {
    by_name("lesson").unwrap_or_else(|e| panic!("embedded preset: {e}"))
}

impl Default for ModelConfig {
    /// The lesson model.
    fn default() -> Self {
        lesson()
    }
}

impl Overlay {
    /// Resolves the preset named here (or `lesson`), then lays `self` over it.
    ///
    /// # Errors
    /// An unknown preset name, or a config that fails validation.
    pub fn resolve(&self) -> Result<ModelConfig, ResolveError> {
        let mut cfg = by_name(self.preset.as_deref().unwrap_or("lesson"))?;
        self.apply(&mut cfg);
        cfg.validate()?;
        Ok(cfg)
    }
}
