//! The one way a user's string reaches a terminal.
//!
//! File names, preset names, a log's paths and the text parsers quote all
//! come from the user and can hold newlines, terminal escapes (`\e[2J`
//! clears the screen) or bidi overrides, or run to megabytes. Every message,
//! table and header shows such a string through [`shown`] (a value) or
//! [`one_line`] (a whole message that quotes values), which share one
//! escaping rule: characters are escaped, never dropped, so the value named
//! is the value given (`6\e[2J4` is shown as `6\u{1b}[2J4`, not `64`).
//!
//! The same messages word a byte count one way, with [`human_bytes`].
//!
//! Markdown and HTML get the same escaping and then their own, through
//! [`markup::Kind::escape`] ([`markdown`], [`html`]); a long list of names
//! is cut with a count by [`listed`].

use std::fmt;

pub mod markup;
pub use markup::{Kind, html, listed, listed_by, markdown};

/// Longest user value shown whole, in characters: one value plus the rest of
/// its message fits a wide terminal line. Longer ones are cut with `…` and
/// their length.
pub const MAX_SHOWN: usize = 80;

/// Longest message from a parser shown whole, in characters; it quotes a
/// value or a line of the input, so it gets room for a few of them.
pub const MAX_MESSAGE: usize = 3 * MAX_SHOWN;

/// Longest list of allowed values shown whole, in characters: the tool's
/// own names (every fault, every preset) fit many times over, while a
/// message that quotes megabytes of a user's input after `; allowed: ` is
/// still bounded.
pub const MAX_ALLOWED: usize = 25 * MAX_SHOWN;

/// Where a refusal's list of allowed values starts.
const ALLOWED: &str = "; allowed: ";

/// A user's string as it may be printed: control and invisible formatting
/// characters escaped, cut at a cap. Build it with [`shown`].
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    text: &'a str,
    cap: usize,
}

/// `s` made safe and short enough to print: see [`Shown`].
#[must_use]
pub fn shown(s: &str) -> Shown<'_> {
    Shown {
        text: s,
        cap: MAX_SHOWN,
    }
}

/// `s` escaped as by [`shown`] but never cut: for text of the tool's own
/// that may quote a user's value (a check's detail, a log's verdicts), where
/// the numbers at its end are the point.
#[must_use]
pub fn escaped(s: &str) -> Shown<'_> {
    Shown {
        text: s,
        cap: usize::MAX,
    }
}

/// An argument or file name that need not be UTF-8, shown as by [`shown`]
/// with each byte that is not UTF-8 written `\xNN` (where `Path::display`
/// would print `�`, naming another value).
#[must_use]
pub fn shown_os(s: &std::ffi::OsStr) -> String {
    shown(&lossless(s)).to_string()
}

/// `s` as text, each byte that is not UTF-8 written `\xNN`; nothing else
/// is escaped or cut yet. Errors keep a file's name in this form and show
/// it through [`shown`] when they are printed.
#[must_use]
pub fn lossless(s: &std::ffi::OsStr) -> String {
    let mut text = String::new();
    for chunk in s.as_encoded_bytes().utf8_chunks() {
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            text.push_str(&format!("\\x{b:02x}"));
        }
    }
    text
}

/// A parser's whole message as one printable line: trimmed, escaped as by
/// [`shown`], cut at [`MAX_MESSAGE`] characters. A refusal's list of
/// allowed values (from its last `; allowed: `) is the tool's own and is
/// kept whole up to [`MAX_ALLOWED`] characters: a refusal names every
/// value it would take.
#[must_use]
pub fn one_line(s: &str) -> String {
    let s = s.trim();
    let (head, tail) = s.rfind(ALLOWED).map_or((s, ""), |at| s.split_at(at));
    let mut line = Shown {
        text: head,
        cap: MAX_MESSAGE,
    }
    .to_string();
    if !tail.is_empty() {
        line.push_str(
            &Shown {
                text: tail,
                cap: MAX_ALLOWED,
            }
            .to_string(),
        );
    }
    line
}

/// Characters a terminal would act on or hide rather than print: controls
/// (C0, DEL, C1) and the invisible formatting ones (zero widths, bidi
/// overrides, the byte-order mark), which can make text read as other text.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2028}'..='\u{2029}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        for (count, c) in self.text.chars().enumerate() {
            if count == self.cap {
                let total = self.text.chars().count();
                return write!(f, "… ({total} chars)");
            }
            match c {
                '\n' => f.write_str("\\n")?,
                '\t' => f.write_str("\\t")?,
                '\r' => f.write_str("\\r")?,
                c if hidden(c) => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// Formats a byte count with a binary unit, e.g. `1.5 GiB`.
#[must_use]
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    #[allow(clippy::cast_precision_loss)]
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// `n` and the English `noun`, plural when `n` is not 1: "1 tensor",
/// "3 tensors".
#[must_use]
pub fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// "cannot read PATH: REASON" as a catalog message (`err-read`): the
/// system's `reason` in English, a common `kind` worded by the catalog in
/// another language.
#[must_use]
pub fn read_error(path: &str, reason: &str, kind: std::io::ErrorKind) -> crate::why::Why {
    use std::io::ErrorKind as K;
    let io = match kind {
        K::NotFound => "not-found",
        K::PermissionDenied => "denied",
        K::IsADirectory => "directory",
        _ => "other",
    };
    crate::why::Why::new("err-read")
        .arg("path", path)
        .arg("reason", reason)
        .arg("io", io)
}

#[cfg(test)]
mod tests {
    use super::{MAX_SHOWN, one_line, shown};

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            one_line(" unknown `a\nb\u{1b}[2J` é "),
            "unknown `a\\nb\\u{1b}[2J` é"
        );
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn nothing_is_dropped_so_the_value_named_is_the_value_given() {
        assert_eq!(shown("6\u{1b}[2J4").to_string(), "6\\u{1b}[2J4");
        assert_eq!(shown("2\n").to_string(), "2\\n");
        assert_eq!(shown("\u{7f}\u{9b}").to_string(), "\\u{7f}\\u{9b}");
        // Values are not trimmed: " lesson" is not the preset "lesson".
        assert_eq!(shown(" lesson\t").to_string(), " lesson\\t");
    }

    #[test]
    fn invisible_formatting_is_escaped() {
        assert_eq!(
            shown("a\u{202e}b\u{200b}c\u{feff}").to_string(),
            "a\\u{202e}b\\u{200b}c\\u{feff}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn bytes_that_are_not_utf8_are_named_not_replaced() {
        use std::os::unix::ffi::OsStrExt;
        let s = std::ffi::OsStr::from_bytes(b"a\xff\x1b.toml");
        assert_eq!(super::shown_os(s), "a\\xff\\u{1b}.toml");
    }

    #[test]
    fn a_refusal_lists_every_allowed_value_and_still_bounds_the_input() {
        // 40 names of 12 characters: 520 characters, over MAX_MESSAGE.
        let names: Vec<String> = (0..40).map(|i| format!("fault-{i:06}")).collect();
        let allowed = names.join(", ");
        let msg = format!("unknown fault 'no-mask'; allowed: {allowed}");
        assert!(msg.chars().count() > super::MAX_MESSAGE);
        assert_eq!(one_line(&msg), msg);
        // A long value before the list is still cut, the list kept whole.
        let long = format!(
            "unknown fault '{}'; allowed: {allowed}",
            "x".repeat(100_000)
        );
        let l = one_line(&long);
        assert!(l.ends_with(&format!("; allowed: {allowed}")), "{l}");
        assert!(l.chars().count() < super::MAX_MESSAGE + allowed.len() + 40);
        // Megabytes after `; allowed: ` are bounded too.
        let flood = format!("bad; allowed: {}", "y".repeat(1_000_000));
        assert!(one_line(&flood).chars().count() < super::MAX_ALLOWED + 40);
    }

    #[test]
    fn long_values_are_cut_with_their_length() {
        let long = "x".repeat(200_000);
        let s = shown(&long).to_string();
        assert_eq!(s, format!("{}… (200000 chars)", "x".repeat(MAX_SHOWN)));
        let exact = "y".repeat(MAX_SHOWN);
        assert_eq!(shown(&exact).to_string(), exact);
        // The cap counts characters, not bytes.
        let wide = "é".repeat(MAX_SHOWN + 1);
        assert!(shown(&wide).to_string().ends_with("… (81 chars)"));
    }

    /// Every `#[error(…)]` in the crate, as text.
    fn error_attributes(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                error_attributes(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (at, _) in text.match_indices("#[error(") {
                    let end = text[at..].find(")]").map_or(text.len(), |e| at + e);
                    out.push((path.display().to_string(), text[at..end].to_string()));
                }
            }
        }
    }

    /// The next error type is held to the rule too: a field holding a
    /// user's string is never put into a message as it is.
    #[test]
    fn no_error_message_shows_a_user_field_unescaped() {
        let mut attrs = Vec::new();
        error_attributes(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut attrs,
        );
        assert!(attrs.len() > 20, "{} error messages", attrs.len());
        for (file, attr) in &attrs {
            for field in ["path", "input", "descr", "label", "source"] {
                assert!(
                    !attr.contains(&format!("{{{field}}}")),
                    "{file}: `{{{field}}}` in {attr}: show it with shown(.{field})"
                );
            }
        }
    }

    #[test]
    fn no_shown_text_holds_a_control_character() {
        let all: String = (0u32..0x110).filter_map(char::from_u32).collect();
        let long: String = all.repeat(3);
        for s in [shown(&all).to_string(), one_line(&long)] {
            assert!(!s.chars().any(char::is_control), "{s:?}");
        }
    }
}
