//! Two models compared, as one self-contained HTML page in the handout's
//! style: both sides' settings and blocks, the aligned steps with their
//! status in a word and a glyph (`same`, `≠ changed`, `◀ only LEFT`,
//! `only RIGHT ▶`), the changed steps with what each side reads, and the
//! parameter, FLOP and byte differences with their formulas.

use super::diagram;
use super::page::{self, esc};
use crate::compare::{Comparison, Side, Status, Step};
use crate::report::compare::{amount, change, headline, reads, status};
use crate::report::sheet::settings;
use crate::text::shown;
use crate::trace::Trace;
use std::fmt::Write as _;

/// The class of a step's row.
fn class(s: Status) -> &'static str {
    match s {
        Status::Same => "status-same",
        Status::Changed => "status-changed",
        Status::OnlyLeft => "status-only-left",
        Status::OnlyRight => "status-only-right",
    }
}

fn shape(side: Option<&Side>) -> String {
    side.map_or_else(
        || "—".into(),
        |x| {
            format!(
                "<code>{}</code> {}",
                esc(&shown(&x.named).to_string()),
                esc(&x.dtype)
            )
        },
    )
}

/// A row's path; where the rows pair by role and the two sides' paths
/// differ, both: `block1.attn.scores ↔ block1.self_attn.matmul`.
fn path(s: &Step) -> String {
    match (&s.left, &s.right) {
        (Some(l), Some(r)) if l.path != r.path => format!("{} ↔ {}", l.path, r.path),
        _ => s.path.clone(),
    }
}

/// The comparison of `c`, whose sides were traced as `left` and `right`.
#[must_use]
pub fn compare(c: &Comparison, left: &Trace, right: &Trace) -> String {
    let (l, r) = (shown(&c.left).to_string(), shown(&c.right).to_string());
    let title = format!("shapetrace: {l} vs {r}");
    let mut b = format!("<h1>{}</h1>\n", esc(&title));
    let _ = writeln!(
        b,
        "<p><strong>{}</strong> · nothing on this page is loaded from outside the file.</p>",
        esc(&headline(c))
    );
    b.push_str("<h2 id=\"settings\">Settings</h2>\n<div class=\"pair\">\n");
    for (name, t, tag) in [(&l, left, "left"), (&r, right, "right")] {
        let _ = writeln!(b, "<div><h3>{} ({tag})</h3>", esc(name));
        b.push_str(&page::settings_table(&settings(t)));
        b.push_str(&diagram::figure(t, tag));
        b.push_str("</div>\n");
    }
    b.push_str("</div>\n<h2 id=\"steps\">Steps</h2>\n");
    b.push_str("<p class=\"note\">Status: same · ≠ changed (what changed named) · ◀ only in the left model · only in the right model ▶.</p>\n");
    let head = vec![
        "path".to_string(),
        esc(&l),
        format!("{} reads", esc(&l)),
        esc(&r),
        format!("{} reads", esc(&r)),
        "status".to_string(),
    ];
    let rows: Vec<(String, Vec<String>)> = c
        .steps
        .iter()
        .map(|s| {
            (
                class(s.status).to_string(),
                vec![
                    format!("<code>{}</code>", esc(&shown(&path(s)).to_string())),
                    shape(s.left.as_ref()),
                    esc(&shown(&reads(s.left.as_ref())).to_string()),
                    shape(s.right.as_ref()),
                    esc(&shown(&reads(s.right.as_ref())).to_string()),
                    esc(&status(c, s)),
                ],
            )
        })
        .collect();
    b.push_str(&page::stack_table(&head, &rows));
    b.push_str("<h2 id=\"changes\">Changes</h2>\n");
    let changed: Vec<_> = c
        .steps
        .iter()
        .filter(|s| s.status != Status::Same)
        .collect();
    if changed.is_empty() {
        b.push_str("<p>= No step differs.</p>\n");
    } else {
        b.push_str("<ul class=\"changes\">\n");
        for s in changed {
            let _ = writeln!(
                b,
                "<li><code>{}</code>: {} — {} reads {} · {} reads {}</li>",
                esc(&shown(&path(s)).to_string()),
                esc(&status(c, s)),
                esc(&l),
                esc(&shown(&reads(s.left.as_ref())).to_string()),
                esc(&r),
                esc(&shown(&reads(s.right.as_ref())).to_string())
            );
        }
        b.push_str("</ul>\n");
    }
    b.push_str("<h2 id=\"counts\">Parameters, FLOPs and bytes</h2>\n");
    let head = vec![
        "count".to_string(),
        esc(&l),
        esc(&r),
        "Δ (right − left)".to_string(),
        "formulas".to_string(),
    ];
    let rows: Vec<(String, Vec<String>)> = c
        .counts
        .iter()
        .map(|k| {
            let formulas = if k.left_formula == k.right_formula {
                format!("both: <code>{}</code>", esc(&k.left_formula))
            } else {
                format!(
                    "{}: <code>{}</code><br>{}: <code>{}</code>",
                    esc(&l),
                    esc(&k.left_formula),
                    esc(&r),
                    esc(&k.right_formula)
                )
            };
            (
                if k.delta == Some(0) {
                    "same"
                } else {
                    "changed"
                }
                .to_string(),
                vec![
                    esc(k.what),
                    amount(k.left),
                    amount(k.right),
                    esc(&change(k.delta)),
                    formulas,
                ],
            )
        })
        .collect();
    b.push_str(&page::stack_table(&head, &rows));
    page::page(&title, &b)
}
