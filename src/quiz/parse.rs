//! What a student types for a shape: sizes `2,4,4,16` (also `(2, 4, 4, 16)`,
//! `[2,4,4,16]`, `2 4 4 16`, `2×4×4×16`), axis names `B,h,T,hd` (nanoGPT's
//! `B,nh,T,hs` too), or both `B=2,h=4,T=4,hd=16`; each axis on its own may
//! be a size, a name or `name=size`.

use super::axis::{Axis, KNOWN};
use crate::text::shown;

/// The most axes an answer may have (the trace's own limit).
pub const MAX_AXES: usize = 8;

/// One typed axis: its name, its size, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dim {
    /// The axis named, if a name was typed.
    pub axis: Option<Axis>,
    /// The size typed, if any.
    pub size: Option<usize>,
}

/// A parsed answer, outermost axis first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// One per typed axis.
    pub dims: Vec<Dim>,
}

impl Answer {
    /// Whether no axis was named: sizes alone.
    #[must_use]
    pub fn sizes_only(&self) -> bool {
        self.dims.iter().all(|d| d.axis.is_none())
    }
}

/// Why typed text is not an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Nothing typed.
    #[error("type a shape: sizes 2,4,64, axis names B,T,d, or both B=2,T=4,d=64")]
    Empty,
    /// A lone or mismatched bracket.
    #[error("'{}' opens a bracket it does not close (or closes one it did not open)", shown(.0))]
    Unbalanced(String),
    /// Nothing between two commas.
    #[error("axis {0} is empty: one size or name between each pair of commas")]
    EmptyAxis(usize),
    /// Neither a size nor a known axis name.
    #[error("'{}' is not an axis name; allowed: {KNOWN}, or a size", shown(.0))]
    NotAxis(String),
    /// Not a whole number ≥ 1.
    #[error("'{}' is not a size; allowed: whole numbers ≥ 1", shown(.0))]
    NotSize(String),
    /// More axes than a tensor has.
    #[error("{0} axes is too many; allowed: at most {MAX_AXES}")]
    TooMany(usize),
}

/// Parses a typed shape.
///
/// # Errors
/// [`ParseError`] naming the piece that is neither a size nor a name.
pub fn parse(text: &str) -> Result<Answer, ParseError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ParseError::Empty);
    }
    let inner = unbracket(text)?;
    // `()` or `[]`: no axis at all, a scalar's shape (the loss's).
    if inner.trim().is_empty() {
        return Ok(Answer { dims: Vec::new() });
    }
    // `B = 2` is one axis: close the spaces around `=` before splitting.
    let joined = inner.replace('×', ",");
    let joined = joined
        .split('=')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("=");
    let pieces: Vec<&str> = if joined.contains(',') {
        joined.split(',').map(str::trim).collect()
    } else {
        joined.split_whitespace().collect()
    };
    if pieces.len() > MAX_AXES {
        return Err(ParseError::TooMany(pieces.len()));
    }
    let dims = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| dim(p, i + 1))
        .collect::<Result<Vec<_>, _>>()?;
    if dims.is_empty() {
        return Err(ParseError::Empty);
    }
    Ok(Answer { dims })
}

/// `(…)` or `[…]` → `…`; a lone or mismatched bracket is refused.
fn unbracket(text: &str) -> Result<&str, ParseError> {
    let opens = |c: char| matches!(c, '(' | '[');
    let closes = |c: char| matches!(c, ')' | ']');
    let first = text.chars().next().filter(|&c| opens(c));
    let last = text.chars().last().filter(|&c| closes(c));
    let inner = match (first, last) {
        (Some('('), Some(')')) | (Some('['), Some(']')) => &text[1..text.len() - 1],
        (None, None) => text,
        _ => return Err(ParseError::Unbalanced(text.into())),
    };
    if inner.chars().any(|c| opens(c) || closes(c)) {
        return Err(ParseError::Unbalanced(text.into()));
    }
    Ok(inner)
}

fn dim(piece: &str, at: usize) -> Result<Dim, ParseError> {
    if piece.is_empty() {
        return Err(ParseError::EmptyAxis(at));
    }
    if let Some((name, size)) = piece.split_once('=') {
        return Ok(Dim {
            axis: Some(axis(name)?),
            size: Some(size_of(size)?),
        });
    }
    // A name first: `4d` is d_ff, not a malformed size.
    if let Some(a) = Axis::named(piece) {
        return Ok(Dim {
            axis: Some(a),
            size: None,
        });
    }
    if piece.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(Dim {
            axis: None,
            size: Some(size_of(piece)?),
        });
    }
    Err(ParseError::NotAxis(piece.into()))
}

fn axis(name: &str) -> Result<Axis, ParseError> {
    Axis::named(name).ok_or_else(|| ParseError::NotAxis(name.into()))
}

fn size_of(text: &str) -> Result<usize, ParseError> {
    text.parse()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| ParseError::NotSize(text.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(a: &Answer) -> Vec<Option<usize>> {
        a.dims.iter().map(|d| d.size).collect()
    }

    #[test]
    fn every_form_of_sizes_reads_the_same() {
        let want = vec![Some(2), Some(4), Some(4), Some(16)];
        for text in [
            "2,4,4,16",
            "(2, 4, 4, 16)",
            "[2,4,4,16]",
            "2 4 4 16",
            " 2×4×4×16 ",
        ] {
            let a = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(sizes(&a), want, "{text}");
            assert!(a.sizes_only(), "{text}");
        }
    }

    #[test]
    fn names_aliases_and_both() {
        let names = |t: &str| -> Vec<Option<Axis>> {
            parse(t).unwrap().dims.into_iter().map(|d| d.axis).collect()
        };
        let want = names("B,h,T,hd");
        assert_eq!(want[1], Some(Axis::Heads));
        assert_eq!(names("B,nh,T,hs"), want);
        assert_eq!(names("(B, heads, T, head_dim)"), want);
        let both = parse("B=2, h = 4,T=4,hd=16").unwrap();
        assert!(!both.sizes_only());
        assert_eq!(both.dims[1].axis, Some(Axis::Heads));
        assert_eq!(both.dims[1].size, Some(4));
        assert_eq!(names("B,T,4d")[2], Some(Axis::Hidden));
        assert_eq!(names("B,T,C")[2], Some(Axis::Model));
    }

    #[test]
    fn malformed_input_is_refused_with_a_message_naming_it() {
        for (text, says) in [
            ("", "type a shape"),
            ("2,,4", "axis 2 is empty"),
            ("2,4,", "axis 3 is empty"),
            ("(2,4", "bracket"),
            ("[2,4)", "bracket"),
            ("2,4,Q", "'Q' is not an axis name"),
            ("2,0,4", "'0' is not a size"),
            ("2,4.5", "'4.5' is not a size"),
            ("h=x", "'x' is not a size"),
            ("1,1,1,1,1,1,1,1,1", "9 axes is too many"),
            ("2,4,\u{1b}x", "'\\u{1b}x' is not"),
        ] {
            let e = parse(text).expect_err(text).to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
