//! The frame every HTML page shares: the head (a Content-Security-Policy
//! that lets the browser load nothing from outside the file, the inline
//! stylesheet with its print and narrow-screen rules), escaping, and the
//! tables.

use std::fmt::Write as _;

/// The policy: nothing from anywhere, but the inline styles and `data:`
/// images. No script runs, no font, frame or stylesheet loads.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// `s` safe inside HTML text and attribute values: the one HTML
/// escaping of every writer, [`crate::text::html`] (control characters
/// written out as a terminal shows them, `& < > " '` as entities).
#[must_use]
pub fn esc(s: &str) -> String {
    crate::text::html(s)
}

/// The stylesheet. Highlights are glyphs and words first; colours only
/// repeat them.
const STYLE: &str = r#"
:root { --ink: #1b1b1b; --dim: #555; --line: #bbb; --card: #fafafa; --bad: #a40000; --good: #1d6b1d; --away: #7a4b00; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; line-height: 1.4; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; margin-top: 2rem; }
code, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; overflow-wrap: break-word; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .25rem .45rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
th { background: #eee; }
svg { max-width: 100%; height: auto; display: block; }
.settings { width: auto; min-width: 20rem; }
.pair { display: flex; gap: 1rem; flex-wrap: wrap; }
.pair > div { flex: 1 1 20rem; min-width: 0; }
.step { border: 1px solid var(--line); border-radius: 4px; background: var(--card); padding: .4rem .6rem; margin: .45rem 0; break-inside: avoid; page-break-inside: avoid; }
.step header { display: flex; flex-wrap: wrap; gap: .2rem 1rem; align-items: baseline; }
.step .n { color: var(--dim); min-width: 2.5rem; }
.step .path { font-weight: bold; }
.step .marker { margin-left: auto; }
.step p { margin: .25rem 0; }
.step .why { color: var(--dim); }
.departs { border-left: 4px solid var(--away); }
.returns { border-left: 4px double var(--good); }
.add-ok { border-left: 4px solid var(--good); }
.add-bad, .fail { border-left: 4px solid var(--bad); }
.verdict-fail { color: var(--bad); font-weight: bold; }
.verdict-pass { color: var(--good); }
.status-changed, .status-only-left, .status-only-right { font-weight: bold; }
.heatmaps { display: flex; flex-wrap: wrap; gap: .8rem; margin-top: .4rem; }
.heatmaps figure { margin: 0; flex: 0 1 16rem; }
figcaption { font-size: .85rem; color: var(--dim); }
.note { color: var(--dim); font-size: .9rem; }
@page { size: A4; margin: 14mm; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  .step, figure, table.settings, .chart { break-inside: avoid; page-break-inside: avoid; }
  th { background: none; }
}
@media (max-width: 600px) {
  body { margin: .5rem; padding: 0 .25rem; }
  code, td, .step p { overflow-wrap: anywhere; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack thead { display: none; }
  table.stack tr { border: 1px solid var(--line); margin: .4rem 0; }
  table.stack td { border: none; border-bottom: 1px dotted var(--line); }
  table.stack td::before { content: attr(data-label) ": "; font-weight: bold; }
  .settings { min-width: 0; width: 100%; }
  .step .marker { margin-left: 0; }
  .heatmaps figure { flex-basis: 100%; }
}
"#;

/// The page around `body`: doctype, CSP, title, style.
#[must_use]
pub fn page(title: &str, body: &str) -> String {
    format!("{}{body}{FOOT}", head(title))
}

/// The page up to its body's first line: doctype, CSP, title, style. A
/// long page writes this, then its body part by part, then [`FOOT`].
#[must_use]
pub fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(title)
    )
}

/// The page's end, after its body.
pub const FOOT: &str = "</body>\n</html>\n";

/// A table of key–value rows (the keys are the tool's own words).
#[must_use]
pub fn settings_table(rows: &[(&'static str, String)]) -> String {
    let mut s = String::from(
        "<table class=\"settings\">\n<thead><tr><th>setting</th><th>value</th></tr></thead>\n<tbody>\n",
    );
    for (k, v) in rows {
        let _ = writeln!(
            s,
            "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
            esc(k),
            esc(v)
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

/// A table that stacks into cards on a narrow screen: `head` the column
/// names, each row's cells already HTML (each labelled with its column
/// for the stacked layout), with the row's class.
#[must_use]
pub fn stack_table(head: &[String], rows: &[(String, Vec<String>)]) -> String {
    let mut s = String::from("<table class=\"stack\">\n<thead><tr>");
    for h in head {
        let _ = write!(s, "<th>{h}</th>");
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for (class, cells) in rows {
        let _ = write!(s, "<tr class=\"{class}\">");
        for (h, c) in head.iter().zip(cells) {
            let _ = write!(s, "<td data-label=\"{h}\">{c}</td>");
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_markup_character_becomes_an_entity() {
        let e = esc(r#"<script>a&"b"'</script>"#);
        assert_eq!(e, "&lt;script&gt;a&amp;&quot;b&quot;&#39;&lt;/script&gt;");
        assert_eq!(esc("plain (B=2,T=4)"), "plain (B=2,T=4)");
    }
}
