//! Text measured in terminal columns, not characters: a CJK character
//! takes two columns, so `format!("{:<w$}")` (which pads by characters)
//! and `.chars().count()` misalign a column of Traditional Chinese.
//! Nothing here cuts a wide character in two.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The longest start of `s` at most `cols` columns wide.
pub fn take(s: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        used += c.width().unwrap_or(0);
        if used > cols {
            return &s[..i];
        }
    }
    s
}

/// The longest end of `s` at most `cols` columns wide.
pub fn take_last(s: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        used += c.width().unwrap_or(0);
        if used > cols {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// `s` padded with spaces on the right to `cols` columns (as it is when
/// wider).
pub fn pad(s: &str, cols: usize) -> String {
    format!("{s}{}", " ".repeat(cols.saturating_sub(s.width())))
}

/// `s` padded with spaces on the left to `cols` columns.
pub fn pad_left(s: &str, cols: usize) -> String {
    format!("{}{s}", " ".repeat(cols.saturating_sub(s.width())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_count_two_columns_and_are_never_cut() {
        assert_eq!(take("步驟ab", 3), "步");
        assert_eq!(take("步驟ab", 4), "步驟");
        assert_eq!(take("ab", 9), "ab");
        assert_eq!(take_last("ab步驟", 3), "驟");
        assert_eq!(take_last("ab步驟", 5), "b步驟");
        assert_eq!(pad("步驟", 6), "步驟  ");
        assert_eq!(pad_left("步驟", 6), "  步驟");
        assert_eq!(pad("step", 2), "step");
    }
}
