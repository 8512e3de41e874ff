//! A value heatmap of one 2-D slice of a small tensor, drawn with shade
//! glyphs so it reads without colour, with a legend of the glyphs, axis
//! labels and, when the slice is small enough, the numbers themselves.
//!
//! The slice is batch 0 and, for a 4-D (B, h, rows, cols) tensor, head h:
//! `slice[i][j] = values[(h·rows + i)·cols + j]`. A value v gets the shade
//! `round(4·(v − lo)/(hi − lo))` of `· ░ ▒ ▓ █`, with lo and hi taken over
//! the unmasked cells. Masked attention cells (key j after query i) show `╳`.
//! A slice wider than the pane scrolls (`<` `>`) instead of being resampled.

pub mod big;
mod compact;
mod reach;

pub use compact::{legend, lines};
pub use reach::Reach;

use crate::i18n::Lang;
use crate::trace::{Event, Role};
use crate::why::Why;
use unicode_width::UnicodeWidthStr;

/// The shades, lowest first.
pub const SHADES: [&str; 5] = ["·", "░", "▒", "▓", "█"];
use crate::tui::app::HEATMAP_SCROLL as SCROLL;
/// Slices with at most this many columns print their numbers.
const NUMBER_COLS: usize = 8;

/// A cell of the slice: masked, or a value with its shade.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    Masked,
    Value { v: f64, shade: usize },
}

/// One 2-D slice of an event's values, ready to draw.
#[derive(Debug, Clone)]
pub struct Grid<'a> {
    slice: &'a [f64],
    pub rows: usize,
    pub cols: usize,
    /// The head shown, for a 4-D tensor.
    pub head: Option<usize>,
    /// Scores and weights: rows are queries, columns are keys.
    pub attention: bool,
    /// Softmax weights: each row sums to 1, so the sums are shown.
    pub sums: bool,
    /// The mask of a softmax's weights, whose masked cells show `╳`.
    mask: Option<Reach>,
    row_axis: String,
    col_axis: String,
    pub lo: f64,
    pub hi: f64,
    /// The language of the title's and legend's words (English from
    /// [`Grid::of`]).
    pub lang: Lang,
    /// Whether its words and signs are drawn in ASCII (`--ascii`).
    pub ascii: bool,
}

impl<'a> Grid<'a> {
    /// The slice of `e` for `head`, or `None` without values or for a
    /// tensor that is not 3-D or 4-D.
    #[must_use]
    pub fn of(e: &'a Event, head: usize, mask: Reach) -> Option<Self> {
        let values = e.values.as_ref()?;
        let (h, rows, cols) = match e.shape.as_slice() {
            [_, r, c] => (None, *r, *c),
            [_, hs, r, c] => (Some(head % hs.max(&1)), *r, *c),
            _ => return None,
        };
        if rows == 0 || cols == 0 {
            return None;
        }
        let start = h.unwrap_or(0) * rows * cols;
        let slice = values.get(start..start + rows * cols)?;
        let attention = matches!(e.role, Role::Scores | Role::Weights);
        let axis = |k: usize| {
            e.axes
                .get(e.axes.len().wrapping_sub(k))
                .map(ToString::to_string)
        };
        let mut g = Grid {
            slice,
            rows,
            cols,
            head: h,
            attention,
            sums: e.role == Role::Weights,
            mask: (e.role == Role::Weights)
                .then_some(mask)
                .filter(|m| m.masks()),
            row_axis: axis(2).unwrap_or_else(|| "T".into()),
            col_axis: axis(1).unwrap_or_else(|| "d".into()),
            lo: 0.0,
            hi: 0.0,
            lang: Lang::En,
            ascii: false,
        };
        let (lo, hi) = (0..rows * cols)
            .filter(|k| !g.masked(k / cols, k % cols))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), k| {
                (lo.min(slice[k]), hi.max(slice[k]))
            });
        (g.lo, g.hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) };
        Some(g)
    }

    /// The same slice, its words in `lang` and, when `ascii`, in ASCII.
    #[must_use]
    pub fn speaking(self, (lang, ascii): (Lang, bool)) -> Self {
        Self {
            lang,
            ascii,
            ..self
        }
    }

    /// `s` as this heatmap draws it: in ASCII words under `--ascii`.
    #[must_use]
    pub fn say(&self, s: &str) -> String {
        super::ascii::text_if(self.ascii, s).into_owned()
    }

    /// The mark before a softmax row's sum: `Σ`, or `sum ` in ASCII.
    #[must_use]
    pub fn sum_mark(&self) -> &'static str {
        if self.ascii { "sum " } else { "Σ" }
    }

    fn masked(&self, i: usize, j: usize) -> bool {
        self.mask
            .is_some_and(|m| !m.reads(i, j, self.rows, self.cols))
    }

    /// The cell at query/row `i`, key/column `j`.
    #[must_use]
    pub fn cell(&self, i: usize, j: usize) -> Cell {
        if self.masked(i, j) {
            return Cell::Masked;
        }
        let v = self.slice[i * self.cols + j];
        let level = if self.hi > self.lo {
            ((v - self.lo) / (self.hi - self.lo) * 4.0).round()
        } else {
            2.0
        };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let shade = level.clamp(0.0, 4.0) as usize;
        Cell::Value { v, shade }
    }

    /// The sum of row `i` (masked cells hold 0).
    #[must_use]
    pub fn row_sum(&self, i: usize) -> f64 {
        self.slice[i * self.cols..(i + 1) * self.cols].iter().sum()
    }

    /// Small enough to print every number.
    #[must_use]
    pub fn numbers(&self) -> bool {
        self.cols <= NUMBER_COLS
    }

    /// Row and column axis words: `query`/`key`, else the axes' names.
    #[must_use]
    pub fn axis_names(&self) -> (String, String) {
        if self.attention {
            (self.lang.t("heat-query"), self.lang.t("heat-key"))
        } else {
            (self.row_axis.clone(), self.col_axis.clone())
        }
    }

    /// The label of row `i`: `q2` for a query, `t2` for a position.
    #[must_use]
    pub fn row_label(&self, i: usize) -> String {
        let p = if self.attention { "q" } else { "t" };
        format!("{p}{i}")
    }

    /// The label of column `j`: `k2` for a key, else the index.
    #[must_use]
    pub fn col_label(&self, j: usize) -> String {
        if self.attention {
            format!("k{j}")
        } else {
            j.to_string()
        }
    }

    /// The widest printed value.
    #[must_use]
    pub fn num_width(&self) -> usize {
        self.slice
            .iter()
            .map(|v| num(*v).chars().count())
            .max()
            .unwrap_or(1)
    }

    /// The first column shown for a scroll offset of `col`: whole scroll
    /// steps, never past the last column.
    #[must_use]
    pub fn first_col(&self, col: usize) -> usize {
        col.min((self.cols - 1) / SCROLL * SCROLL)
    }

    /// The legend: each shade with the value it stands for, and `╳`.
    #[must_use]
    pub fn legend(&self, width: usize) -> String {
        let mask = if self.mask.is_some() {
            format!(" {}", self.lang.t("heat-masked"))
        } else {
            String::new()
        };
        let step = (self.hi - self.lo) / 4.0;
        #[allow(clippy::cast_precision_loss)]
        let full: Vec<String> = SHADES
            .iter()
            .enumerate()
            .map(|(k, s)| format!("{s}{}", num(self.lo + step * k as f64)))
            .collect();
        let long = self.say(&format!("{}{mask}", full.join(" ")));
        if long.width() <= width {
            return long;
        }
        self.say(&format!("{} … {}{mask}", full[0], full[4]))
    }

    /// The title: batch, head, size and what rows and columns are.
    #[must_use]
    pub fn title(&self, width: usize, scroll: Option<String>) -> String {
        let (r, c) = self.axis_names();
        let head = self.head.map_or_else(String::new, |h| format!(" h{h}"));
        // Dropped in this order while too wide: the head keys, the size,
        // the axes' names; past that it is cut, never wrapped (a wrapped
        // title would take a row the grid was promised).
        let keys = self.head.map(|_| self.lang.t("heat-head-keys"));
        let fits = |p: &[&Option<String>]| {
            let all: Vec<&str> = p.iter().filter_map(|s| s.as_deref()).collect();
            let s = self.say(&all.join(" · "));
            let ok = s.width() <= width;
            (s, ok)
        };
        let sized = Some(format!("b0{head} {}×{}", self.rows, self.cols));
        let b = Some(format!("b0{head}"));
        let axes = Some(format!("{r} ↓ × {c} →"));
        let (s, _) = [
            fits(&[&sized, &axes, &scroll, &keys]),
            fits(&[&sized, &axes, &scroll]),
            fits(&[&b, &axes, &scroll]),
            fits(&[&b, &scroll]),
        ]
        .into_iter()
        .find(|(_, ok)| *ok)
        .unwrap_or_else(|| fits(&[&b, &scroll]));
        super::width::take(&s, width).to_string()
    }
}

/// `v` in at most about five characters: `0.52`, `-12.3`, `1.2e5`, and a
/// small one that two decimals would show as `0.00` (a gradient's):
/// `4e-4`; below 1e-6 (rounding's noise about 0) `0.00` again.
#[must_use]
pub fn num(v: f64) -> String {
    let a = v.abs();
    if (1e-6..0.005).contains(&a) {
        format!("{v:.0e}")
    } else if a < 10.0 {
        format!("{v:.2}")
    } else if a < 100.0 {
        format!("{v:.1}")
    } else if a < 10_000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.0e}")
    }
}

/// `cols 8–23 of 64 ◂ ▸`: the columns shown and which way more are, in
/// `lang`.
#[must_use]
pub fn scroll_note(lang: Lang, first: usize, shown: usize, cols: usize) -> Option<String> {
    if shown >= cols {
        return None;
    }
    let left = if first > 0 { "◂" } else { " " };
    let right = if first + shown < cols { "▸" } else { " " };
    let which = Why::new("heat-scroll")
        .arg("first", first)
        .arg("last", first + shown - 1)
        .arg("cols", cols);
    Some(format!("{} {left}{right} < >", lang.why(&which)))
}

#[cfg(test)]
mod num_tests {
    use super::num;

    #[test]
    fn a_gradient_sized_value_is_not_shown_as_zero() {
        assert_eq!(num(4.4e-4), "4e-4");
        assert_eq!(num(-2.3e-3), "-2e-3");
        // Two decimals where they say something, and 0 for rounding's noise.
        assert_eq!(num(0.52), "0.52");
        assert_eq!(num(-2e-9), "-0.00");
        assert_eq!(num(0.0), "0.00");
        assert_eq!(num(12.34), "12.3");
    }
}
