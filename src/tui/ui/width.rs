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

/// Clears `area` for a box drawn over the screen, and blanks a wide
/// character just left of it whose second half the box covers: a
/// terminal would draw that character over the box's left border.
pub fn clear(area: ratatui::layout::Rect, buf: &mut ratatui::buffer::Buffer) {
    use ratatui::widgets::Widget;
    ratatui::widgets::Clear.render(area, buf);
    let Some(left) = area.x.checked_sub(1) else {
        return;
    };
    for y in area.top()..area.bottom() {
        if let Some(cell) = buf.cell_mut((left, y))
            && cell.symbol().width() > 1
        {
            cell.set_symbol(" ");
        }
    }
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

    #[test]
    fn a_box_over_half_a_wide_character_blanks_it() {
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "路徑ab", ratatui::style::Style::default());
        clear(Rect::new(3, 0, 2, 1), &mut buf);
        assert_eq!(
            buf[(2, 0)].symbol(),
            " ",
            "徑's second half is under the box"
        );
        assert_eq!(buf[(0, 0)].symbol(), "路", "whole beside it: kept");
        clear(Rect::new(1, 0, 3, 1), &mut buf);
        assert_eq!(
            buf[(0, 0)].symbol(),
            " ",
            "its second half is under the box"
        );
    }
}
