//! `--ascii`: every glyph the stepper draws that an old projector's or a
//! console's font may lack, and the box drawing, as one ASCII character
//! each, so the layout stays as it is. The words beside each glyph
//! (`leaves`, `returns`, `add`, `only`) carry the meaning either way.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The ASCII stand-in for `glyph`, if it needs one.
#[must_use]
pub fn of(glyph: &str) -> Option<&'static str> {
    Some(match glyph {
        // The trace's markers.
        "◆" => "*",
        "↩" => "<",
        "╳" => "x",
        "⊕" => "+",
        "▶" | "▸" | "►" => ">",
        "◀" | "◂" | "◄" => "<",
        "▼" | "▾" => "v",
        "▲" | "▴" => "^",
        "✓" => "o",
        "✗" => "X",
        "•" | "●" => "*",
        "○" => "O",
        "…" | "⋯" => ".",
        "⚠" => "!",
        "▷" => ">",
        "⧗" => "~",
        "⊙" => "@",
        "ᵀ" => "T",
        "›" => ">",
        "▄" => "_",
        // The heatmap's shades, light to dark: · ░ ▒ ▓ █.
        "·" => ".",
        "░" => ":",
        "▒" => "=",
        "▓" => "%",
        "█" => "#",
        // Box drawing: lines, then corners and joints.
        "─" | "━" | "═" | "╌" | "┄" => "-",
        "│" | "┃" | "║" | "╎" | "┆" => "|",
        "┌" | "┐" | "└" | "┘" | "├" | "┤" | "┬" | "┴" | "┼" | "╭" | "╮" | "╰" | "╯" | "╔" | "╗"
        | "╚" | "╝" | "╠" | "╣" | "╦" | "╩" | "╬" | "┏" | "┓" | "┗" | "┛" => {
            "+"
        }
        // Braille (the Budget chart's curves): a dot, or blank.
        s if s.chars().count() == 1 => match s.chars().next() {
            Some('\u{2800}') => " ",
            Some('\u{2801}'..='\u{28ff}') => ".",
            // The presenter's large letters, drawn in block quadrants.
            Some('\u{2580}'..='\u{259f}') => "#",
            _ => return None,
        },
        _ => return None,
    })
}

/// Replaces every such glyph in `area` of `buf` by its stand-in.
pub fn asciify(buf: &mut Buffer, area: Rect) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            if let Some(cell) = buf.cell_mut((x, y))
                && let Some(s) = of(cell.symbol())
            {
                cell.set_symbol(s);
            }
        }
    }
}
