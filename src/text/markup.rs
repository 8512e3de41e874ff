//! A user's string in each output kind, by one rule per kind: the
//! terminal's escaping of [`super::escaped`] first (a control character
//! is written out, never dropped), then what the format itself would act
//! on.
//!
//! ```text
//! name:      a|b<script>\e[2J
//! terminal:  a|b<script>\u{1b}[2J
//! markdown:  a\|b&lt;script&gt;\\u{1b}\[2J
//! html:      a|b&lt;script&gt;\u{1b}[2J
//! ```
//!
//! A long list of names (20,000 unknown fields) is cut with a count by
//! [`listed`].

use super::{escaped, shown};

/// Where a user's string is written, each with its own escaping
/// ([`Kind::escape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A terminal or plain text file: controls escaped.
    Terminal,
    /// Markdown: as the terminal, and HTML's `& < >`, a table's `|`, code's
    /// backtick, a link's or an image's brackets (`![t](http://…)` would be
    /// fetched) and the escaping backslash written so a previewer shows
    /// them and runs or fetches nothing.
    Markdown,
    /// HTML text or a quoted attribute: as the terminal, and `& < > " '`
    /// as entities.
    Html,
}

impl Kind {
    /// `s` as this kind shows it, never cut (cut it first with
    /// [`super::shown`] where a value may run long).
    #[must_use]
    pub fn escape(self, s: &str) -> String {
        let plain = escaped(s).to_string();
        if self == Kind::Terminal {
            return plain;
        }
        let mut out = String::with_capacity(plain.len());
        for c in plain.chars() {
            match (self, c) {
                (_, '&') => out.push_str("&amp;"),
                (_, '<') => out.push_str("&lt;"),
                (_, '>') => out.push_str("&gt;"),
                (Kind::Html, '"') => out.push_str("&quot;"),
                (Kind::Html, '\'') => out.push_str("&#39;"),
                (Kind::Markdown, '|' | '`' | '\\' | '[' | ']') => {
                    out.push('\\');
                    out.push(c);
                }
                (_, c) => out.push(c),
            }
        }
        out
    }
}

/// `s` for a Markdown document: see [`Kind::Markdown`].
#[must_use]
pub fn markdown(s: &str) -> String {
    Kind::Markdown.escape(s)
}

/// `s` for an HTML page: see [`Kind::Html`].
#[must_use]
pub fn html(s: &str) -> String {
    Kind::Html.escape(s)
}

/// How many names a list in a message shows before it counts the rest.
pub const MAX_LISTED: usize = 10;

/// `names` joined by `, `, each shown as by [`shown`] (cut at
/// [`super::MAX_SHOWN`]), the list cut after [`MAX_LISTED`] with a count:
/// `a, b, c, … and 19,990 more`.
#[must_use]
pub fn listed<S: AsRef<str>>(names: &[S]) -> String {
    let cut: Vec<String> = names
        .iter()
        .take(MAX_LISTED)
        .map(|n| shown(n.as_ref()).to_string())
        .collect();
    counted(&cut, names.len(), ", ")
}

/// The tool's own lines that each quote a name already shown (`unknown
/// h.0.x (2,4)`), joined by `sep`, each escaped but not cut, the list cut
/// after [`MAX_LISTED`] with a count.
#[must_use]
pub fn listed_by<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let cut: Vec<String> = items
        .iter()
        .take(MAX_LISTED)
        .map(|n| escaped(n.as_ref()).to_string())
        .collect();
    counted(&cut, items.len(), sep)
}

/// The first of `of` items, joined, and `… and N more` for the rest.
fn counted(first: &[String], of: usize, sep: &str) -> String {
    let mut s = first.join(sep);
    if of > first.len() {
        s.push_str(sep);
        let rest = u64::try_from(of - first.len()).unwrap_or(u64::MAX);
        s.push_str(&format!("… and {} more", crate::budget::thousands(rest)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a|b`c\\d<script>&\"'\u{1b}]8;;x\u{7}\n";

    #[test]
    fn each_kind_escapes_what_it_would_act_on() {
        assert_eq!(
            Kind::Terminal.escape(HOSTILE),
            "a|b`c\\d<script>&\"'\\u{1b}]8;;x\\u{7}\\n"
        );
        assert_eq!(
            markdown(HOSTILE),
            "a\\|b\\`c\\\\d&lt;script&gt;&amp;\"'\\\\u{1b}\\]8;;x\\\\u{7}\\\\n"
        );
        assert_eq!(
            html(HOSTILE),
            "a|b`c\\d&lt;script&gt;&amp;&quot;&#39;\\u{1b}]8;;x\\u{7}\\n"
        );
        for kind in [Kind::Terminal, Kind::Markdown, Kind::Html] {
            assert!(!kind.escape(HOSTILE).chars().any(char::is_control));
            assert_eq!(
                kind.escape("block1.attn (B=2,T=4)"),
                "block1.attn (B=2,T=4)"
            );
        }
    }

    /// An image or a link in a name is text in Markdown: a previewer
    /// fetches no remote image and offers no link.
    #[test]
    fn markdown_images_and_links_are_text() {
        assert_eq!(
            markdown("![t](http://x.example/p.png)[a](javascript:x)"),
            "!\\[t\\](http://x.example/p.png)\\[a\\](javascript:x)"
        );
    }

    #[test]
    fn long_lists_are_cut_with_a_count() {
        let names: Vec<String> = (0..20_000).map(|i| format!("f{i}")).collect();
        let l = listed(&names);
        assert!(l.starts_with("f0, f1, "), "{l}");
        assert!(l.ends_with("f9, … and 19,990 more"), "{l}");
        assert_eq!(listed(&["a\u{1b}", "b"]), "a\\u{1b}, b");
        let problems: Vec<String> = (0..12).map(|i| format!("unknown t{i} (2,4)")).collect();
        let l = listed_by(&problems, "; ");
        assert!(l.ends_with("unknown t9 (2,4); … and 2 more"), "{l}");
    }
}
