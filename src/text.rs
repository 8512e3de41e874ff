//! Messages from parsers quote the input they choke on, and that input can
//! hold newlines or terminal escapes; errors must stay one printable line.

/// `s` with every control character written as its escape (`\n`,
/// `\u{1b}`), trimmed: one line, safe to print to a terminal.
#[must_use]
pub fn one_line(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            one_line(" unknown `a\nb\u{1b}[2J` é "),
            "unknown `a\\nb\\u{1b}[2J` é"
        );
        assert_eq!(one_line("plain"), "plain");
    }
}
