//! `--ascii`: every glyph the stepper may draw that an old projector's or
//! a console's font may lack, in ASCII. One table, [`GLYPHS`], gives each
//! glyph two forms:
//!
//! - its **words** (`→` `->`, `√` `sqrt`, `μ` `mu`, `²` `^2`), for text
//!   that flows: the catalog's messages, the whys, the formulas, the
//!   Detail pane's lines and the heatmap's titles pass through [`text`]
//!   before they are laid out ([`crate::tui::app::App::t`] and
//!   [`crate::tui::app::App::tr`] do it for every catalog message);
//! - its **cell**, one character, for a glyph drawn in a fixed place
//!   (box drawing, the heatmap's shades, the step list's markers, the
//!   presenter's large letters): [`asciify`] replaces what is left on the
//!   screen cell for cell, so no layout moves.
//!
//! The words beside each marker (`leaves`, `returns`, `add`, `only`) carry
//! the meaning either way; each mark keeps an ASCII form of its own
//! (`o` holds, `X` fails), so colour is never the only signal.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::borrow::Cow;

/// Each glyph, its words and its cell.
pub const GLYPHS: &[(char, &str, &str)] = &[
    // Arrows.
    ('→', "->", ">"),
    ('←', "<-", "<"),
    ('↔', "<->", "-"),
    ('↑', "^", "^"),
    ('↓', "v", "v"),
    // The trace's markers.
    ('◆', "*", "*"),
    ('↩', "<", "<"),
    ('╳', "x", "x"),
    ('⊕', "+", "+"),
    ('▶', ">", ">"),
    ('▸', ">", ">"),
    ('►', ">", ">"),
    ('▷', ">", ">"),
    ('›', ">", ">"),
    ('◀', "<", "<"),
    ('◂', "<", "<"),
    ('◄', "<", "<"),
    ('▼', "v", "v"),
    ('▾', "v", "v"),
    ('▲', "^", "^"),
    ('▴', "^", "^"),
    ('✓', "o", "o"),
    ('✗', "X", "X"),
    ('•', "*", "*"),
    ('●', "*", "*"),
    ('○', "O", "O"),
    ('…', "...", "."),
    ('⋯', "...", "."),
    ('⚠', "!", "!"),
    ('⧗', "~", "~"),
    ('⧉', "#", "#"),
    ('⊟', "-", "-"),
    ('▄', "_", "_"),
    // The heatmap's shades, light to dark: · ░ ▒ ▓ █ (`·` also separates
    // and multiplies: `q·kᵀ`).
    ('·', ".", "."),
    ('░', ":", ":"),
    ('▒', "=", "="),
    ('▓', "%", "%"),
    ('█', "#", "#"),
    // The formulas' signs and letters.
    ('×', "x", "x"),
    ('⊙', "*", "*"),
    ('−', "-", "-"),
    ('–', "-", "-"),
    ('—', "--", "-"),
    ('±', "+/-", "+"),
    ('≈', "~=", "~"),
    ('∝', "~", "~"),
    ('≤', "<=", "<"),
    ('≥', ">=", ">"),
    ('≠', "!=", "#"),
    ('∞', "inf", "~"),
    ('√', "sqrt", "V"),
    ('²', "^2", "2"),
    ('³', "^3", "3"),
    ('⁻', "^-", "-"),
    ('¹', "1", "1"),
    ('½', "1/2", "/"),
    ('ᵀ', "^T", "T"),
    ('ⱼ', "_j", "j"),
    ('ₑ', "_e", "e"),
    ('′', "'", "'"),
    ('⌈', "ceil(", "["),
    ('⌉', ")", "]"),
    ('μ', "mu", "u"),
    ('σ', "sigma", "s"),
    ('Σ', "sum", "S"),
    ('Δ', "delta", "d"),
    ('θ', "theta", "0"),
    ('ε', "eps", "e"),
    ('γ', "gamma", "g"),
    ('β', "beta", "b"),
    ('é', "e", "e"),
    // A circumflex over the letter before it (`x̂`): `x_hat`, or the
    // letter alone in its cell.
    ('\u{302}', "_hat", ""),
];

/// The glyph's words and cell, from [`GLYPHS`] or a range of them (box
/// drawing, braille, block quadrants).
fn forms(c: char) -> Option<(&'static str, &'static str)> {
    if let Some((_, words, cell)) = GLYPHS.iter().find(|(g, ..)| *g == c) {
        return Some((words, cell));
    }
    let cell = match c {
        // Box drawing: lines, then corners and joints.
        '─' | '━' | '═' | '╌' | '┄' | '╴' | '╶' => "-",
        '│' | '┃' | '║' | '╎' | '┆' | '╵' | '╷' => "|",
        '\u{2500}'..='\u{257f}' => "+",
        // Braille (the Budget chart's curves): a dot, or blank.
        '\u{2800}' => " ",
        '\u{2801}'..='\u{28ff}' => ".",
        // The presenter's large letters, drawn in block quadrants.
        '\u{2580}'..='\u{259f}' => "#",
        _ => return None,
    };
    Some((cell, cell))
}

/// `s` with every glyph in its words: `q·kᵀ/√16 → (2,4,4)` reads
/// `q.k^T/sqrt16 -> (2,4,4)`. Characters without a form (the letters of
/// another language) stay.
#[must_use]
pub fn text(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match forms(c) {
            Some((words, _)) => out.push_str(words),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Keys as a hint or the help names them under `--ascii`: the arrow keys
/// `<-` `->` `Up` `Dn` (`<` and `>` alone are keys of their own), one
/// space between two of them: `←→` reads `<- ->`.
#[must_use]
pub fn keys(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let arrow = |c: char| match c {
        '←' => Some("<-"),
        '→' => Some("->"),
        '↑' => Some("Up"),
        '↓' => Some("Dn"),
        _ => None,
    };
    let mut out = String::new();
    let mut after_arrow = false;
    for c in s.chars() {
        match arrow(c) {
            Some(a) => {
                if after_arrow {
                    out.push(' ');
                }
                out.push_str(a);
                after_arrow = true;
            }
            None => {
                out.push_str(&text(c.encode_utf8(&mut [0; 4])));
                after_arrow = false;
            }
        }
    }
    Cow::Owned(out)
}

/// `s` in words when `on`, else as it is: the one call every pane makes.
#[must_use]
pub fn text_if(on: bool, s: &str) -> Cow<'_, str> {
    if on { text(s) } else { Cow::Borrowed(s) }
}

/// The one-column ASCII stand-in for a cell's `symbol`, if it needs one:
/// its glyph's cell form, a combining mark dropped.
#[must_use]
pub fn of(symbol: &str) -> Option<String> {
    if symbol.is_ascii() {
        return None;
    }
    let mut out = String::new();
    for c in symbol.chars() {
        match forms(c) {
            Some((_, cell)) => out.push_str(cell),
            None if c.is_ascii() => out.push(c),
            None => return None,
        }
    }
    Some(if out.is_empty() { " ".into() } else { out })
}

/// Replaces every glyph left in `area` of `buf` by its cell form.
pub fn asciify(buf: &mut Buffer, area: Rect) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            if let Some(cell) = buf.cell_mut((x, y))
                && let Some(s) = of(cell.symbol())
            {
                cell.set_symbol(&s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_for_flowing_text_and_one_character_for_a_cell() {
        assert_eq!(
            text("q·kᵀ/√16 : (2,4,4,16) → (2,4,4,4)"),
            "q.k^T/sqrt16 : (2,4,4,16) -> (2,4,4,4)"
        );
        assert_eq!(
            text(" μ 0.1 σ 1.0 Σ 1 ← ↑ ↓ x² ∝ ✓ ✗"),
            " mu 0.1 sigma 1.0 sum 1 <- ^ v x^2 ~ o X"
        );
        assert_eq!(text("dx̂"), "dx_hat");
        assert_eq!(keys("←→"), "<- ->");
        assert_eq!(keys("↑↓ / g Home"), "Up Dn / g Home");
        assert!(matches!(text("plain"), Cow::Borrowed(_)));
        assert_eq!(text("步驟 →"), "步驟 ->", "another language's letters stay");
        for (g, _, cell) in GLYPHS {
            assert!(cell.len() <= 1, "{g}: one cell");
            assert!(cell.is_ascii());
        }
        assert_eq!(of("→").as_deref(), Some(">"));
        assert_eq!(of("┼").as_deref(), Some("+"));
        assert_eq!(of("x\u{302}").as_deref(), Some("x"));
        assert_eq!(of("a"), None);
        assert_eq!(of("步"), None);
    }

    /// Every glyph the English catalog holds has an ASCII form, so no
    /// message of it draws a glyph under `--ascii`.
    #[test]
    fn every_glyph_of_the_english_catalog_has_a_form() {
        let catalog = include_str!("../../../assets/i18n/en.ftl");
        let lacking: String = catalog
            .lines()
            .filter(|l| !l.starts_with('#'))
            .flat_map(str::chars)
            .filter(|c| !c.is_ascii() && forms(*c).is_none())
            .collect();
        assert!(lacking.is_empty(), "no ASCII form: {lacking}");
        assert!(
            text(catalog)
                .lines()
                .filter(|l| !l.starts_with('#'))
                .all(str::is_ascii)
        );
    }
}
