//! A probe's [`Influence`] as a grid of cells, one a batch element and
//! position of each shown tensor, and as text with a verdict.

use super::{Influence, RowChange};

/// One cell of a probe grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// Not changed.
    Same,
    /// Changed, as it may.
    Changed,
    /// Changed where the probe forbids it.
    Leak,
    /// Unchanged where the declared mask lets the moved token reach it.
    Missing,
}

impl Cell {
    /// `·`, `●`, `✗` or `○`.
    #[must_use]
    pub fn glyph(self) -> &'static str {
        match self {
            Cell::Same => "·",
            Cell::Changed => "●",
            Cell::Leak => "✗",
            Cell::Missing => "○",
        }
    }
}

impl Influence {
    /// The shown rows as (path, cells per batch element per position), at
    /// most `max_b` batch elements and `max_t` positions.
    ///
    /// A leak in a row the probe does not show (say the MLP's hidden units) is shown too
    /// when no shown row leaks, so a failing verdict always has its ✗.
    #[must_use]
    pub fn grid(&self, max_b: usize, max_t: usize) -> Vec<(&str, Vec<Vec<Cell>>)> {
        let shown_leaks = self
            .rows
            .iter()
            .any(|r| self.kind.shows(r) && self.leaks_in(r));
        self.rows
            .iter()
            .filter(|r| self.kind.shows(r) || (!shown_leaks && self.leaks_in(r)))
            .map(|r| {
                let cells = (0..r.batch.min(max_b))
                    .map(|b| {
                        (0..r.seq.min(max_t))
                            .map(|t| match (r.at(b, t), self.forbids(r, b, t)) {
                                (false, _) if self.misses(r, b, t) => Cell::Missing,
                                (false, _) => Cell::Same,
                                (true, false) => Cell::Changed,
                                (true, true) => Cell::Leak,
                            })
                            .collect()
                    })
                    .collect();
                (r.path.as_str(), cells)
            })
            .collect()
    }

    /// The grid as text, with a verdict line.
    #[must_use]
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let grid = self.grid(usize::MAX, usize::MAX);
        let w = grid.iter().map(|(p, _)| p.len()).max().unwrap_or(6).max(6) + 2;
        let mut out = format!(
            "{}: token {} of batch 0 moved; ● changed, ✗ changed where it must not, ○ unchanged where the mask lets it reach, · unchanged\n",
            self.kind.name(),
            self.token
        );
        let leaks = self
            .rows
            .iter()
            .filter(|r| self.kind.judges(r))
            .map(|r| {
                let changed = r.changed().filter(|&(b, t, _)| self.forbids(r, b, t));
                changed.count() + (0..r.seq).filter(|&t| self.misses(r, 0, t)).count()
            })
            .sum::<usize>();
        for (path, batches) in &grid {
            let _ = write!(out, "{path:<w$}");
            for (b, cells) in batches.iter().enumerate() {
                let row: Vec<&str> = cells.iter().map(|c| c.glyph()).collect();
                let _ = write!(out, "b{b} {}  ", row.join(" "));
            }
            out = out.trim_end().to_string();
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{}",
            if leaks == 0 {
                format!("✓ {} holds for token {}", self.kind.name(), self.token)
            } else {
                format!(
                    "✗ {} fails: {leaks} row(s) changed that must not, or did not that must",
                    self.kind.name()
                )
            }
        );
        out
    }

    /// Whether the probe fails on this token ([`Influence::first_leak`]).
    #[must_use]
    pub fn leaks(&self) -> bool {
        self.first_leak().is_some()
    }

    /// Whether judged row `r` changed where the probe forbids it, or did
    /// not where the declared mask lets the moved token reach.
    fn leaks_in(&self, r: &RowChange) -> bool {
        self.kind.judges(r)
            && (r.changed().any(|(b, t, _)| self.forbids(r, b, t))
                || (0..r.seq).any(|t| self.misses(r, 0, t)))
    }
}
