//! Large text that scales with the terminal: the largest of tui-big-text's
//! pixel sizes whose text fits the width and the height given to it.
//!
//! The font is 8×8 pixels, so a character takes `8/px` columns and `8/py`
//! lines for a size of `px`×`py` pixels per cell: Full 8×8, HalfHeight 8×4,
//! Quadrant 4×4. Sextant (4×3) is left out: its glyphs (Unicode 13) fall
//! back to boxes in many terminal fonts, and even 80×24 has room for four
//! lines; a text too long for Quadrant is drawn as a plain line.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use tui_big_text::{BigText, PixelSize};

/// The sizes tried, largest first, with the cells (columns, lines) one
/// character takes.
const SIZES: [(PixelSize, u16, u16); 3] = [
    (PixelSize::Full, 8, 8),
    (PixelSize::HalfHeight, 8, 4),
    (PixelSize::Quadrant, 4, 4),
];

/// Text to draw large, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Big {
    pub text: String,
    /// `None`: too long for any size; drawn as a plain line.
    pub size: Option<PixelSize>,
    /// Lines it takes.
    pub height: u16,
}

/// The largest size at which one of `texts` (preferred first) fits `width`
/// columns and `max_h` lines: every size is tried on the first text
/// before the next text is tried.
#[must_use]
pub fn fit(texts: &[String], width: u16, max_h: u16) -> Big {
    for text in texts {
        let n = u16::try_from(text.chars().count()).unwrap_or(u16::MAX);
        for (size, cw, ch) in SIZES {
            if n.saturating_mul(cw) <= width && ch <= max_h {
                return Big {
                    text: text.clone(),
                    size: Some(size),
                    height: ch,
                };
            }
        }
    }
    Big {
        text: texts.first().cloned().unwrap_or_default(),
        size: None,
        height: 1,
    }
}

impl Big {
    /// Draws the text in `area`, `style`d.
    pub fn render(&self, style: Style, area: Rect, buf: &mut Buffer) {
        match self.size {
            Some(size) => BigText::builder()
                .pixel_size(size)
                .style(style)
                .lines(vec![Line::from(self.text.clone())])
                .build()
                .render(area, buf),
            None => Paragraph::new(Line::styled(self.text.clone(), style)).render(area, buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn the_size_follows_the_room() {
        let path = texts(&["block1.attn.weights", "attn.weights"]);
        // 19 characters: 152 columns at 8 a character, 76 at 4.
        assert_eq!(fit(&path, 200, 8).size, Some(PixelSize::Full));
        assert_eq!(fit(&path, 200, 7).size, Some(PixelSize::HalfHeight));
        assert_eq!(fit(&path, 151, 8).size, Some(PixelSize::Quadrant));
        assert_eq!(fit(&path, 100, 3).size, None, "no size is 3 lines tall");
        // Too wide for Quadrant: the path without its block.
        let short = fit(&path, 60, 4);
        assert_eq!(
            (short.text.as_str(), short.size),
            ("attn.weights", Some(PixelSize::Quadrant))
        );
        let none = fit(&path, 40, 8);
        assert_eq!((none.size, none.height), (None, 1));
        assert_eq!(
            none.text, "block1.attn.weights",
            "a plain line keeps the whole path"
        );
    }
}
