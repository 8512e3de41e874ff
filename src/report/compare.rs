//! A [`Comparison`] for people: a table for the terminal and a markdown
//! handout. Every difference is a word and a glyph (`≠`, `◀`, `▶`), never
//! a colour alone.

use crate::budget::thousands;
use crate::compare::{AlignBy, Change, Comparison, Side, Status, Step};
use crate::i18n::Lang;
use crate::shape::fmt_shape;
use crate::why::Why;
use std::fmt::Write;

/// The status of a step in words: `same`, `≠ inputs, position`, `◀ only
/// LEFT`, `only RIGHT ▶`.
#[must_use]
pub fn status(c: &Comparison, s: &Step) -> String {
    status_in(Lang::En, c, s)
}

/// [`status`] in `lang`, from the catalog (the stepper's split view).
#[must_use]
pub fn status_in(lang: Lang, c: &Comparison, s: &Step) -> String {
    match s.status {
        Status::Same => lang.t("ui-split-same"),
        Status::OnlyLeft => lang.why(&Why::new("ui-split-only-left").arg("name", shown(&c.left))),
        Status::OnlyRight => {
            lang.why(&Why::new("ui-split-only-right").arg("name", shown(&c.right)))
        }
        Status::Changed => {
            let words: Vec<String> = s
                .changes
                .iter()
                .map(|ch| {
                    lang.t(match ch {
                        Change::Shape => "ui-change-shape",
                        Change::Dtype => "ui-change-dtype",
                        Change::Op => "ui-change-op",
                        Change::Inputs => "ui-change-inputs",
                        Change::Position => "ui-change-position",
                    })
                })
                .collect();
            lang.why(&Why::new("ui-split-changed").arg("what", words.join(", ")))
        }
    }
}

/// The headline: the two names and the steps by state, and where a
/// side's forward stopped (the steps after it were not reached, so they
/// count as the other side's only).
#[must_use]
pub fn headline(c: &Comparison) -> String {
    let s = c.summary;
    let (l, r) = (shown(&c.left), shown(&c.right));
    let mut out = format!(
        "{l} vs {r}: {} same, {} changed, {} only in {l}, {} only in {r}",
        s.same, s.changed, s.only_left, s.only_right
    );
    if c.aligned_by == AlignBy::Role {
        out.push_str(" · steps paired by role (different producers: paths and op names differ)");
    }
    for (name, stop) in [(&l, &c.left_stopped), (&r, &c.right_stopped)] {
        if let Some(stop) = stop {
            out.push_str(&format!(
                " · ✗ {name}: {stop}, the steps after it not reached"
            ));
        }
    }
    out
}

/// A model's name as typed, escaped for one line.
fn shown(name: &str) -> String {
    crate::text::shown(name).to_string()
}

/// A side's shape and dtype, `(B=2,T=4,d=64) f32`, or `—` where it has
/// no such step.
#[must_use]
pub fn cell(side: Option<&Side>) -> String {
    side.map_or_else(|| "—".into(), |s| format!("{} {}", s.named, s.dtype))
}

pub(crate) fn reads(side: Option<&Side>) -> String {
    side.map_or_else(
        || "—".into(),
        |s| {
            if s.inputs.is_empty() {
                "nothing".into()
            } else {
                s.inputs.join(", ")
            }
        },
    )
}

/// Every step, then the counts, as a terminal table. A step whose inputs
/// changed gets a second line saying what each side reads. Steps paired
/// by role show each side's own path and the role.
#[must_use]
pub fn table(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", headline(c));
    let width =
        |f: &dyn Fn(&Step) -> usize, min: usize| c.steps.iter().map(f).max().unwrap_or(0).max(min);
    let wl = width(
        &|s| cell(s.left.as_ref()).chars().count(),
        c.left.chars().count(),
    );
    let wr = width(
        &|s| cell(s.right.as_ref()).chars().count(),
        c.right.chars().count(),
    );
    if c.aligned_by == AlignBy::Role {
        let path = |side: Option<&Side>| side.map_or_else(|| "—".to_string(), |x| shown(&x.path));
        let wlp = width(&|s| path(s.left.as_ref()).chars().count(), 4);
        let wrp = width(&|s| path(s.right.as_ref()).chars().count(), 4);
        let wrole = width(&|s| role(s).chars().count(), 4);
        let _ = writeln!(
            out,
            "{:wrole$}  {:wlp$}  {:wl$}  {:wrp$}  {:wr$}  status",
            "role",
            "path",
            shown(&c.left),
            "path",
            shown(&c.right)
        );
        for s in &c.steps {
            let (l, r) = (cell(s.left.as_ref()), cell(s.right.as_ref()));
            let _ = writeln!(
                out,
                "{:wrole$}  {:wlp$}  {l:wl$}  {:wrp$}  {r:wr$}  {}",
                role(s),
                path(s.left.as_ref()),
                path(s.right.as_ref()),
                status(c, s)
            );
        }
        out.push('\n');
        out.push_str(&counts(c));
        return out;
    }
    let wp = width(&|s| s.path.chars().count(), 4);
    let _ = writeln!(
        out,
        "{:wp$}  {:wl$}  {:wr$}  status",
        "path",
        shown(&c.left),
        shown(&c.right)
    );
    for s in &c.steps {
        let (l, r) = (cell(s.left.as_ref()), cell(s.right.as_ref()));
        let _ = writeln!(out, "{:wp$}  {l:wl$}  {r:wr$}  {}", s.path, status(c, s));
        if s.changes.contains(&Change::Inputs) {
            let _ = writeln!(
                out,
                "{:wp$}  reads {} │ reads {}",
                "",
                reads(s.left.as_ref()),
                reads(s.right.as_ref())
            );
        }
    }
    out.push('\n');
    out.push_str(&counts(c));
    out
}

/// The role a row was paired by, in words (`scores`, `linear`), empty
/// for rows paired by path.
#[must_use]
pub fn role(s: &Step) -> String {
    s.role
        .and_then(|r| serde_json::to_value(r).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A count, or `—` on a side that is a trace log.
#[must_use]
pub fn amount(n: Option<u64>) -> String {
    n.map_or_else(|| "—".into(), thousands)
}

/// [`delta`], or `unknown` when a side is a trace log.
#[must_use]
pub fn change(d: Option<i128>) -> String {
    d.map_or_else(|| "unknown".into(), delta)
}

/// A difference in words: `same`, `+1,024`, `−8,320`.
#[must_use]
pub fn delta(d: i128) -> String {
    let n = u64::try_from(d.unsigned_abs()).unwrap_or(u64::MAX);
    match d {
        0 => "same".to_string(),
        d if d > 0 => format!("+{}", thousands(n)),
        _ => format!("−{}", thousands(n)),
    }
}

/// The counts with both formulas, as lines.
fn counts(c: &Comparison) -> String {
    let mut out = String::new();
    let w = c
        .counts
        .iter()
        .map(|k| k.what.chars().count())
        .max()
        .unwrap_or(0);
    for k in &c.counts {
        let delta = change(k.delta);
        let _ = writeln!(
            out,
            "{:w$}  {} → {}  ({delta})",
            k.what,
            amount(k.left),
            amount(k.right)
        );
        if k.left_formula == k.right_formula {
            let _ = writeln!(out, "{:w$}    both: {}", "", k.left_formula);
        } else {
            let _ = writeln!(out, "{:w$}    {}: {}", "", shown(&c.left), k.left_formula);
            let _ = writeln!(out, "{:w$}    {}: {}", "", shown(&c.right), k.right_formula);
        }
    }
    out
}

/// The comparison as a markdown handout: a table of every step (shape,
/// dtype and reads on each side, and the status), then the counts.
#[must_use]
pub fn markdown(c: &Comparison) -> String {
    // Everything through the one Markdown escaping, so no name from a file
    // runs as HTML in a previewer. A model's name or a path is cut as the
    // terminal cuts it; the tool's own words (the headline, reads,
    // statuses, formulas) are whole.
    let esc = |s: &str| crate::text::markdown(&shown(s).to_string());
    let words = crate::text::markdown;
    let mut out = String::new();
    let _ = writeln!(out, "# {} vs {}\n", esc(&c.left), esc(&c.right));
    let _ = writeln!(out, "{}\n", words(&headline(c)));
    let shape = |side: Option<&Side>| {
        side.map_or_else(
            || "—".into(),
            |x| format!("`{}` {}", fmt_shape(&x.shape), x.dtype),
        )
    };
    if c.aligned_by == AlignBy::Role {
        let _ = writeln!(
            out,
            "| role | {l} path | {l} | {r} path | {r} | status |\n| --- | --- | --- | --- | --- | --- |",
            l = esc(&c.left),
            r = esc(&c.right)
        );
    } else {
        let _ = writeln!(
            out,
            "| path | {l} | {l} reads | {r} | {r} reads | status |\n| --- | --- | --- | --- | --- | --- |",
            l = esc(&c.left),
            r = esc(&c.right)
        );
    }
    for s in &c.steps {
        if c.aligned_by == AlignBy::Role {
            let path = |side: Option<&Side>| side.map_or_else(|| "—".into(), |x| esc(&x.path));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                role(s),
                path(s.left.as_ref()),
                shape(s.left.as_ref()),
                path(s.right.as_ref()),
                shape(s.right.as_ref()),
                words(&status(c, s))
            );
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            esc(&s.path),
            shape(s.left.as_ref()),
            words(&reads(s.left.as_ref())),
            shape(s.right.as_ref()),
            words(&reads(s.right.as_ref())),
            words(&status(c, s))
        );
    }
    let _ = writeln!(
        out,
        "\n| count | {} | {} | Δ | formulas |\n| --- | --- | --- | --- | --- |",
        esc(&c.left),
        esc(&c.right)
    );
    for k in &c.counts {
        let formulas = if k.left_formula == k.right_formula {
            words(&k.left_formula)
        } else {
            format!(
                "{}: {} · {}: {}",
                esc(&c.left),
                words(&k.left_formula),
                esc(&c.right),
                words(&k.right_formula)
            )
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {formulas} |",
            k.what,
            amount(k.left),
            amount(k.right),
            change(k.delta)
        );
    }
    out
}
