//! A command-line error as one line, built from clap's error context.
//!
//! clap's rendered message cannot be used as it is: it spreads over lines
//! (a value holding a newline cuts its first line short, a missing argument
//! is named on the line after), and rendering drops escape sequences from
//! the value, so `--d-model $'6\e[2J4'` would be named as `64`. The context
//! keeps the flag and the raw value, which are shown escaped.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use shapetrace::text::{one_line, shown};
use std::error::Error as _;

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
fn what(e: &clap::Error) -> Option<String> {
    let arg = context(e, ContextKind::InvalidArg);
    let value = || context(e, ContextKind::InvalidValue);
    Some(match e.kind() {
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let (arg, value) = (arg?, value()?);
            if value.is_empty() && e.kind() == ErrorKind::InvalidValue {
                format!("{arg} needs a value, none was given")
            } else {
                let why = e
                    .source()
                    .map(|s| format!(": {}", one_line(&s.to_string())))
                    .unwrap_or_default();
                format!("invalid value '{}' for {arg}{why}", shown(&value))
            }
        }
        ErrorKind::MissingRequiredArgument => format!("missing required argument {}", arg?),
        ErrorKind::UnknownArgument => format!("unexpected argument '{}'", shown(&arg?)),
        ErrorKind::InvalidSubcommand => format!(
            "unknown command '{}'",
            shown(&context(e, ContextKind::InvalidSubcommand)?)
        ),
        ErrorKind::ArgumentConflict => {
            let arg = arg?;
            match context(e, ContextKind::PriorArg) {
                Some(p) if p == arg => format!("{arg} is given twice; allowed: once"),
                Some(p) => format!("{arg} cannot be used with {}", shown(&p)),
                None => format!("{arg} cannot be used with another argument"),
            }
        }
        // clap does not say which; the first one that is not UTF-8 is named.
        ErrorKind::InvalidUtf8 => {
            let bad = std::env::args_os().find(|a| a.to_str().is_none())?;
            format!(
                "argument '{}' is not valid UTF-8; allowed: UTF-8 text",
                shapetrace::text::shown_os(&bad)
            )
        }
        ErrorKind::NoEquals => format!("{} needs '=' before its value", arg?),
        ErrorKind::TooManyValues => format!("unexpected value '{}' for {}", shown(&value()?), arg?),
        ErrorKind::WrongNumberOfValues => format!(
            "{} takes {} values, given {}",
            arg?,
            context(e, ContextKind::ExpectedNumValues)?,
            context(e, ContextKind::ActualNumValues)?
        ),
        _ => return None,
    })
}

/// clap's own message when the context says too little: its lines up to
/// the usage, joined and escaped.
fn rendered(e: &clap::Error) -> String {
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
        "invalid arguments".into()
    } else {
        one_line(line)
    }
}

/// The one line for a parse error: what went wrong (the argument named,
/// the value escaped), what is allowed, and a suggestion when clap has one.
#[must_use]
pub fn line(e: &clap::Error) -> String {
    let mut line = what(e).unwrap_or_else(|| rendered(e));
    if let Some(valid) = context(e, ContextKind::ValidValue) {
        line = format!("{line}; allowed: {valid}");
    }
    let suggested = context(e, ContextKind::SuggestedArg)
        .or_else(|| context(e, ContextKind::SuggestedSubcommand))
        .or_else(|| context(e, ContextKind::SuggestedValue));
    if let Some(s) = suggested {
        line = format!("{line}; did you mean {}?", shown(&s));
    }
    format!("{line} (see shapetrace --help)")
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
