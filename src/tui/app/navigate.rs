//! Moving through the steps: one at a time, by pages, to the next
//! departure or residual add, to a clicked row, and by autoplay.

use super::{Action, App, Event, HEATMAP_SCROLL as SCROLL, Row};

/// Steps a page key moves.
const PAGE: usize = 10;

impl App {
    /// The nearest event after `from` (or before it) that `pred` picks.
    pub(super) fn find(
        &self,
        from: usize,
        forward: bool,
        pred: impl Fn(&Event) -> bool,
    ) -> Option<usize> {
        let ev = &self.run.trace.events;
        if forward {
            (from + 1..ev.len()).find(|&i| pred(&ev[i]))
        } else {
            (0..from.min(ev.len())).rev().find(|&i| pred(&ev[i]))
        }
    }

    /// Moves through the steps.
    pub(super) fn navigate(&mut self, action: Action) {
        use Action as A;
        match action {
            A::Next | A::Down => self.goto(self.cursor + 1),
            A::Prev | A::Up => self.cursor = self.cursor.saturating_sub(1),
            A::First => self.cursor = 0,
            A::Last => self.goto(usize::MAX),
            A::PageDown => self.goto(self.cursor + PAGE),
            A::PageUp => self.cursor = self.cursor.saturating_sub(PAGE),
            A::NextDeparture | A::PrevDeparture => {
                let to = self.find(self.cursor, action == A::NextDeparture, |e| e.departs);
                self.jump(to, "ui-what-departure");
            }
            A::NextResidual | A::PrevResidual => {
                let to = self.find(self.cursor, action == A::NextResidual, Event::is_residual);
                self.jump(to, "ui-what-residual-add");
            }
            A::NextPass | A::PrevPass => {
                let to = self.pass_start(action == A::NextPass);
                self.jump(to, "ui-what-pass");
            }
            A::Select(i) if i < self.rows() => self.goto(i),
            // A replayed log's header may say 0 heads: one is shown.
            A::NextHead => self.head = (self.head + 1) % self.cfg().attention.heads.max(1),
            A::PrevHead => {
                let n = self.cfg().attention.heads.max(1);
                self.head = (self.head + n - 1) % n;
            }
            A::ScrollLeft => self.col = self.col.saturating_sub(SCROLL),
            A::ScrollRight => self.scroll_right(),
            _ => {}
        }
    }

    /// The first step of the next pass of generation (`forward`), or of
    /// the pass the cursor is in (of the one before, at its first step).
    fn pass_start(&self, forward: bool) -> Option<usize> {
        use crate::trace::pass_of;
        let ev = &self.run.trace.events;
        let here = ev.get(self.cursor).and_then(|e| pass_of(&e.path));
        here?;
        let start = |i: usize| {
            let pass = pass_of(&ev[i].path);
            (0..=i)
                .rev()
                .take_while(|&j| pass_of(&ev[j].path) == pass)
                .last()
        };
        if forward {
            return self.find(self.cursor, true, |e| pass_of(&e.path) != here);
        }
        match start(self.cursor.min(ev.len() - 1)) {
            Some(s) if s < self.cursor => Some(s),
            _ => {
                let before = self.find(self.cursor, false, |e| pass_of(&e.path) != here)?;
                start(before)
            }
        }
    }

    /// Moves to `to`, or says there is no further `what` (the catalog key
    /// of its name) that way.
    pub(super) fn jump(&mut self, to: Option<usize>, what: &str) {
        match to {
            Some(i) => {
                self.goto(i);
                self.status = None;
            }
            None => self.no_further(what),
        }
    }

    /// Says there is no further `what` (the catalog key of its name, e.g.
    /// `ui-what-departure`) in the direction asked, in the app's language.
    pub(super) fn no_further(&mut self, what: &str) {
        let what = self.t(what);
        self.status =
            Some(self.tr(&crate::why::Why::new("ui-status-no-further").arg("what", what)));
    }

    /// Scrolls a wide heatmap right, up to the last whole scroll step of
    /// the widest 2-D slice the current step has.
    fn scroll_right(&mut self) {
        let cols = match self.row(self.cursor) {
            Some(Row::Event(e)) if e.shape.len() >= 3 => e.shape.last().copied().unwrap_or(1),
            _ => 1,
        };
        self.col = (self.col + SCROLL).min(cols.saturating_sub(1) / SCROLL * SCROLL);
    }

    /// One autoplay step: the next step, or a pause on the last one, which
    /// stays on screen.
    pub(super) fn tick(&mut self) {
        let Some(auto) = self.autoplay else { return };
        if auto.paused {
            return;
        }
        // Reveal mode: a tick shows the hidden step before moving on.
        if self.reveal_hides() {
            self.overlay = super::Overlay::Reveal(self.cursor);
        } else if self.cursor + 1 < self.rows() {
            self.goto(self.cursor + 1);
        } else if let Some(a) = &mut self.autoplay {
            a.paused = true;
            self.status = Some(self.t("ui-status-autoplay-end"));
        }
    }

    /// Space under autoplay: pause or resume; on the last step, replay
    /// from the first.
    pub(super) fn toggle_pause(&mut self) {
        let last = self.cursor + 1 >= self.rows();
        if let Some(a) = &mut self.autoplay {
            let replay = a.paused && last;
            a.paused = !a.paused;
            if replay {
                self.cursor = 0;
                if let super::Overlay::Reveal(r) = &mut self.overlay {
                    *r = 0;
                }
            }
        }
    }
}
