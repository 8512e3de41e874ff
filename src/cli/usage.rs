//! A command-line error as one line, built from clap's error context.
//!
//! clap's rendered message cannot be used as it is: it spreads over lines
//! (a value holding a newline cuts its first line short, a missing argument
//! is named on the line after), and rendering drops escape sequences from
//! the value, so `--d-model $'6\e[2J4'` would be named as `64`. The context
//! keeps the flag and the raw value, which are shown escaped.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use shapetrace::i18n::Lang;
use shapetrace::text::{one_line, shown};
use shapetrace::why::Why;
use std::error::Error as _;

/// The catalog's `key` in `lang` with the named arguments.
fn say(lang: Lang, key: &str, args: &[(&str, String)]) -> String {
    let why = args
        .iter()
        .fold(Why::new(key), |w, (k, v)| w.arg(k, v.clone()));
    lang.why(&why)
}

/// A value parser's error in `lang`: an unknown name (a fault, a preset,
/// an activation …) from the catalog, any other as it words itself.
fn reason(source: &(dyn std::error::Error + 'static), lang: Lang) -> String {
    if lang != Lang::En
        && let Some(u) = source.downcast_ref::<shapetrace::config::names::UnknownName>()
    {
        return unknown_name(u, lang);
    }
    let text = source.to_string();
    if lang != Lang::En && text == "allowed: en, zh-TW (or zh_TW)" {
        return lang.t("cli-unknown-lang");
    }
    text
}

/// An unknown name in `lang`; the kind of name (`fault`, `preset`) and
/// the allowed names are identifiers and stay.
#[must_use]
pub fn unknown_name(u: &shapetrace::config::names::UnknownName, lang: Lang) -> String {
    say(
        lang,
        "cli-unknown-name",
        &[
            ("what", kind_in(u.what, lang)),
            ("got", shown(&u.got).to_string()),
            ("allowed", u.allowed.clone()),
        ],
    )
}

/// The kind of an unknown name (`fault`, `preset` …) in `lang`; a kind
/// the catalog lacks stays as the code names it.
fn kind_in(kind: &str, lang: Lang) -> String {
    let key = format!("cli-what-{}", kind.replace(' ', "-"));
    let words = lang.t(&key);
    if words.starts_with(&key) {
        kind.to_string()
    } else {
        words
    }
}

/// The language of a command line that did not parse: its `--lang`
/// value if it names one, else the environment's.
#[must_use]
pub fn lang_of_args() -> Lang {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let flag = args.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix("--lang=")
            .map(str::to_string)
            .or_else(|| (a == "--lang").then(|| args.get(i + 1).cloned()).flatten())
    });
    Lang::from_env(flag.and_then(|f| Lang::parse(&f).ok()))
}

/// The context value of `kind` as text: one string, or several joined.
fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) if !v.is_empty() => Some(v.join(", ")),
        ContextValue::StyledStr(s) => Some(s.to_string()),
        ContextValue::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// What went wrong, naming the argument and the value as given.
fn what(e: &clap::Error, lang: Lang) -> Option<String> {
    let arg = context(e, ContextKind::InvalidArg);
    let value = || context(e, ContextKind::InvalidValue);
    let say = |key: &str, args: &[(&str, String)]| say(lang, key, args);
    Some(match e.kind() {
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let (arg, value) = (arg?, value()?);
            if value.is_empty() && e.kind() == ErrorKind::InvalidValue {
                say("cli-usage-needs-value", &[("arg", arg)])
            } else {
                let why = e
                    .source()
                    .map(|s| format!(": {}", one_line(&reason(s, lang))))
                    .unwrap_or_default();
                say(
                    "cli-usage-invalid-value",
                    &[
                        ("value", shown(&value).to_string()),
                        ("arg", arg),
                        ("why", why),
                    ],
                )
            }
        }
        ErrorKind::MissingRequiredArgument => say("cli-usage-missing", &[("arg", arg?)]),
        ErrorKind::UnknownArgument => {
            say("cli-usage-unexpected", &[("arg", shown(&arg?).to_string())])
        }
        ErrorKind::InvalidSubcommand => say(
            "cli-usage-unknown-command",
            &[(
                "command",
                shown(&context(e, ContextKind::InvalidSubcommand)?).to_string(),
            )],
        ),
        ErrorKind::ArgumentConflict => {
            let arg = arg?;
            match context(e, ContextKind::PriorArg) {
                Some(p) if p == arg => say("cli-usage-twice", &[("arg", arg)]),
                Some(p) => say(
                    "cli-usage-conflict",
                    &[("arg", arg), ("other", shown(&p).to_string())],
                ),
                None => say("cli-usage-conflict-another", &[("arg", arg)]),
            }
        }
        // clap does not say which; the first one that is not UTF-8 is named.
        ErrorKind::InvalidUtf8 => {
            let bad = std::env::args_os().find(|a| a.to_str().is_none())?;
            say(
                "cli-usage-utf8",
                &[("arg", shapetrace::text::shown_os(&bad))],
            )
        }
        ErrorKind::NoEquals => say("cli-usage-no-equals", &[("arg", arg?)]),
        ErrorKind::TooManyValues => say(
            "cli-usage-too-many",
            &[("value", shown(&value()?).to_string()), ("arg", arg?)],
        ),
        ErrorKind::WrongNumberOfValues => say(
            "cli-usage-wrong-number",
            &[
                ("arg", arg?),
                ("want", context(e, ContextKind::ExpectedNumValues)?),
                ("given", context(e, ContextKind::ActualNumValues)?),
            ],
        ),
        _ => return None,
    })
}

/// clap's own message when the context says too little: its lines up to
/// the usage, joined and escaped.
fn rendered(e: &clap::Error, lang: Lang) -> String {
    let text = e.render().to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines.join(" ");
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    if line.is_empty() {
        lang.t("cli-usage-invalid")
    } else {
        one_line(line)
    }
}

/// The one line for a parse error: what went wrong (the argument named,
/// the value escaped), what is allowed, and a suggestion when clap has one.
#[must_use]
#[cfg(test)]
pub fn line(e: &clap::Error) -> String {
    line_in(e, Lang::En)
}

/// [`line`] in `lang`.
#[must_use]
pub fn line_in(e: &clap::Error, lang: Lang) -> String {
    let mut line = what(e, lang).unwrap_or_else(|| rendered(e, lang));
    if let Some(valid) = context(e, ContextKind::ValidValue) {
        line = say(
            lang,
            "cli-usage-allowed",
            &[("line", line), ("allowed", valid)],
        );
    }
    let suggested = context(e, ContextKind::SuggestedArg)
        .or_else(|| context(e, ContextKind::SuggestedSubcommand))
        .or_else(|| context(e, ContextKind::SuggestedValue));
    if let Some(s) = suggested {
        line = say(
            lang,
            "cli-usage-did-you-mean",
            &[("line", line), ("suggested", shown(&s).to_string())],
        );
    }
    say(lang, "cli-usage-see-help", &[("line", line)])
}

#[cfg(test)]
mod tests {
    use super::line;
    use crate::cli::Cli;
    use clap::Parser;

    fn error(args: &[&str]) -> String {
        let e = Cli::try_parse_from([&["shapetrace"], args].concat()).unwrap_err();
        line(&e)
    }

    #[test]
    fn a_value_with_a_newline_names_its_flag_on_one_line() {
        let l = error(&["check", "--batch", "2\n"]);
        assert!(l.contains("'2\\n'") && l.contains("--batch"), "{l}");
        assert!(!l.contains('\n'), "{l}");
    }

    #[test]
    fn an_escape_in_a_value_is_shown_not_dropped() {
        let l = error(&["check", "--d-model", "6\u{1b}[2J4"]);
        assert!(
            l.contains("'6\\u{1b}[2J4'") && l.contains("--d-model"),
            "{l}"
        );
        assert!(!l.contains("'64'"), "{l}");
    }

    #[test]
    fn a_missing_argument_is_named() {
        let l = error(&["view", "--format", "table"]);
        assert!(l.contains("missing required argument <FILE.jsonl>"), "{l}");
    }

    #[test]
    fn an_unknown_fault_lists_every_fault_whole() {
        let l = error(&["trace", "--fault", "no-mask"]);
        assert!(!l.contains("chars)"), "{l}");
        for f in shapetrace::config::Fault::ALL {
            assert!(l.contains(f.as_str()), "{f} missing from {l}");
        }
        assert!(l.ends_with("(see shapetrace --help)"), "{l}");
    }

    #[test]
    fn a_flag_given_twice_is_named_once() {
        let l = error(&["trace", "--out", "a", "--out", "b"]);
        assert!(l.contains("--out <FILE> is given twice"), "{l}");
    }

    #[test]
    fn unknown_names_list_what_is_allowed() {
        let l = error(&["check", "--act", "\u{1b}x"]);
        assert!(l.contains("\\u{1b}x") && l.contains("allowed"), "{l}");
        let l = error(&["--bogus\u{7}"]);
        assert!(l.contains("unexpected argument '--bogus\\u{7}'"), "{l}");
        let l = error(&["chek"]);
        assert!(l.contains("'chek'") && l.contains("did you mean"), "{l}");
    }
}
