//! The languages of the stepper: one Fluent catalog per language, each an
//! embedded file in `assets/i18n/` (`en.ftl`, `zh-TW.ftl`) holding the
//! whys (`why-*`) and the screens' words (`ui-*`, `help-*`, …).
//!
//! ```text
//! --lang zh-TW  >  LC_ALL  >  LC_MESSAGES  >  LANG  >  English
//! Lang::ZhTw.t("ui-tab-steps")      → "步驟"
//! Lang::ZhTw.t("ui-no-such-key")    → English's, else the key itself
//! ```
//!
//! A third language is one more file and one more arm in [`Lang`].

use crate::why::{Catalog, Why, load, render};
use std::sync::LazyLock;

/// A language the stepper speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English, the default and every catalog's fallback.
    #[default]
    En,
    /// Traditional Chinese, as in Taiwan (`zh-TW`).
    ZhTw,
}

/// The Traditional Chinese catalog, embedded.
pub const ZH_TW: &str = include_str!("../assets/i18n/zh-TW.ftl");

static ZH_TW_CATALOG: LazyLock<Catalog> =
    LazyLock::new(|| load("zh-TW", ZH_TW).expect("assets/i18n/zh-TW.ftl is valid Fluent (tested)"));

/// A `--lang` value that names no language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{}' is not a language; allowed: en, zh-TW (or zh_TW)", crate::text::shown(.0))]
pub struct UnknownLang(pub String);

impl Lang {
    /// Every language, English first.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::ZhTw];

    /// Its BCP 47 tag, e.g. `zh-TW`.
    #[must_use]
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhTw => "zh-TW",
        }
    }

    /// Its catalog's Fluent source.
    #[must_use]
    pub fn source(self) -> &'static str {
        match self {
            Lang::En => crate::why::EN,
            Lang::ZhTw => ZH_TW,
        }
    }

    /// Its loaded catalog.
    #[must_use]
    pub fn catalog(self) -> &'static Catalog {
        match self {
            Lang::En => &crate::why::CATALOG,
            Lang::ZhTw => &ZH_TW_CATALOG,
        }
    }

    /// The language a `--lang` value names: `en`, `zh-TW` or `zh_TW`, in
    /// any case.
    ///
    /// # Errors
    /// [`UnknownLang`] for anything else.
    pub fn parse(s: &str) -> Result<Lang, UnknownLang> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "en" => Ok(Lang::En),
            "zh-tw" => Ok(Lang::ZhTw),
            _ => Err(UnknownLang(s.to_string())),
        }
    }

    /// The language of a POSIX locale value such as `zh_TW.UTF-8`: one
    /// that starts `zh_TW` or `zh-TW` is Traditional Chinese, any other
    /// English.
    #[must_use]
    pub fn of_locale(value: &str) -> Lang {
        let v = value.as_bytes();
        let zh_tw = v.len() >= 5
            && v[..2].eq_ignore_ascii_case(b"zh")
            && matches!(v[2], b'_' | b'-')
            && v[3..5].eq_ignore_ascii_case(b"tw");
        if zh_tw { Lang::ZhTw } else { Lang::En }
    }

    /// The language to speak: `flag` if given, else the first set and
    /// non-empty of `LC_ALL`, `LC_MESSAGES` and `LANG` (POSIX's order),
    /// else English.
    #[must_use]
    pub fn resolve(
        flag: Option<Lang>,
        lc_all: Option<&str>,
        lc_messages: Option<&str>,
        lang: Option<&str>,
    ) -> Lang {
        flag.unwrap_or_else(|| {
            [lc_all, lc_messages, lang]
                .into_iter()
                .flatten()
                .find(|v| !v.is_empty())
                .map_or(Lang::En, Lang::of_locale)
        })
    }

    /// [`Lang::resolve`] with this process's environment.
    #[must_use]
    pub fn from_env(flag: Option<Lang>) -> Lang {
        let var = |k: &str| std::env::var(k).ok();
        let (all, messages, lang) = (var("LC_ALL"), var("LC_MESSAGES"), var("LANG"));
        Lang::resolve(flag, all.as_deref(), messages.as_deref(), lang.as_deref())
    }

    /// The message `key` with no arguments, in this language; English's
    /// when this catalog lacks it, the key itself when both do.
    #[must_use]
    pub fn t(self, key: &str) -> String {
        self.why(&Why::new(key))
    }

    /// `why` formatted in this language, falling back to English, then to
    /// the key, so nothing is ever blank.
    #[must_use]
    pub fn why(self, why: &Why) -> String {
        or_english(self.catalog(), why)
    }

    /// The why of a step: `stored` (the English the trace keeps) in
    /// English or when the step has no key (a log of schema 1), else
    /// its key rendered in this language.
    #[must_use]
    pub fn step_why<'a>(self, why: Option<&Why>, stored: &'a str) -> std::borrow::Cow<'a, str> {
        match (self, why) {
            (Lang::En, _) | (_, None) => stored.into(),
            (_, Some(w)) => self.why(w).into(),
        }
    }
}

/// `why` formatted by `catalog`, else by the English catalog, else the
/// key and the error.
#[must_use]
pub fn or_english(catalog: &Catalog, why: &Why) -> String {
    render(catalog, why)
        .or_else(|_| render(Lang::En.catalog(), why))
        .unwrap_or_else(|e| format!("{} ({e})", why.key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_and_the_flag_pick_the_language() {
        let r = Lang::resolve;
        assert_eq!(r(None, None, None, Some("zh_TW.UTF-8")), Lang::ZhTw);
        assert_eq!(r(None, None, None, Some("zh-TW")), Lang::ZhTw);
        assert_eq!(r(Some(Lang::En), None, None, Some("zh_TW.UTF-8")), Lang::En);
        assert_eq!(r(Some(Lang::ZhTw), Some("C"), None, None), Lang::ZhTw);
        // LC_ALL over LC_MESSAGES over LANG; an empty one is unset.
        assert_eq!(
            r(None, Some("en_US.UTF-8"), None, Some("zh_TW.UTF-8")),
            Lang::En
        );
        assert_eq!(r(None, Some(""), Some("zh_TW"), Some("C")), Lang::ZhTw);
        assert_eq!(r(None, None, Some("C"), Some("zh_TW.UTF-8")), Lang::En);
        // Simplified Chinese and other locales are English, for now.
        assert_eq!(r(None, None, None, Some("zh_CN.UTF-8")), Lang::En);
        assert_eq!(r(None, None, None, Some("zh")), Lang::En);
        assert_eq!(r(None, None, None, None), Lang::En);
    }

    #[test]
    fn the_flag_takes_en_and_zh_tw_in_either_spelling() {
        assert_eq!(Lang::parse("en"), Ok(Lang::En));
        assert_eq!(Lang::parse("zh-TW"), Ok(Lang::ZhTw));
        assert_eq!(Lang::parse("zh_tw"), Ok(Lang::ZhTw));
        let e = Lang::parse("fr").unwrap_err();
        assert_eq!(
            e.to_string(),
            "'fr' is not a language; allowed: en, zh-TW (or zh_TW)"
        );
    }

    #[test]
    fn a_missing_key_falls_back_to_english_then_to_the_key() {
        assert_eq!(Lang::En.t("ui-tab-steps"), "Steps");
        assert_eq!(Lang::ZhTw.t("ui-tab-steps"), "步驟");
        // A catalog that lacks a key: the English message.
        let partial = load("zh-TW", "ui-tab-steps = 步驟").expect("valid Fluent");
        assert_eq!(or_english(&partial, &Why::new("ui-tab-checks")), "Checks");
        assert_eq!(or_english(&partial, &Why::new("ui-tab-steps")), "步驟");
        let none = Lang::ZhTw.t("ui-no-such-key");
        assert!(none.starts_with("ui-no-such-key"), "{none}");
    }

    #[test]
    fn both_catalogs_have_the_same_keys() {
        let keys = |l: Lang| {
            crate::why::keys(l.source())
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>()
        };
        let en = keys(Lang::En);
        for l in Lang::ALL {
            let k = keys(l);
            let missing: Vec<_> = en.difference(&k).collect();
            let extra: Vec<_> = k.difference(&en).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{}: missing {missing:?}, extra {extra:?}",
                l.tag()
            );
        }
    }
}
