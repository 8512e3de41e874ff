//! `shapetrace faults`: every teaching fault's row
//! ([`crate::config::fault::TABLE`]) for people (a table), programs (JSON)
//! and the README (Markdown), in the catalog's words.
//!
//! ```text
//! fault             caught by            args                  the mistake
//! ffn-no-down       residual             -                     the MLP returns its hidden layer: …
//! norm-no-cast-back stream               --dtype bf16          the norm upcasts to f32 and …
//! ```

use crate::config::FaultSpec;
use crate::config::fault::TABLE;
use crate::i18n::Lang;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

/// One fault as `faults --format json` writes it.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// The name `--fault` takes, e.g. `ffn-no-down`.
    pub name: &'static str,
    /// The mistake in one sentence.
    pub mistake: String,
    /// The checks that fail on the lesson model run with `args`, in the
    /// order `check` runs them.
    pub caught_by: Vec<&'static str>,
    /// The flags that make the fault show on the lesson model.
    pub args: Vec<&'static str>,
    /// Where the first of `caught_by` points on the lesson model.
    pub at: &'static str,
    /// Why those checks catch it.
    pub why: String,
    /// What a model needs for the fault to show, as validation says it.
    pub needs: Vec<&'static str>,
}

impl Listed {
    fn of(spec: &FaultSpec, lang: Lang) -> Self {
        Self {
            name: spec.fault.as_str(),
            mistake: lang.t(&spec.mistake_key()),
            caught_by: spec.caught_by.iter().map(|c| c.as_str()).collect(),
            args: spec.args.to_vec(),
            at: spec.at,
            why: lang.t(&spec.why_key()),
            needs: spec.needs.iter().map(|n| n.words()).collect(),
        }
    }

    fn args_text(&self) -> String {
        if self.args.is_empty() {
            "-".into()
        } else {
            self.args.join(" ")
        }
    }
}

/// Every fault, in `--fault`'s order.
#[must_use]
pub fn listed(lang: Lang) -> Vec<Listed> {
    TABLE.iter().map(|s| Listed::of(s, lang)).collect()
}

/// The faults as a JSON array, one object per fault.
#[must_use]
pub fn json(lang: Lang) -> String {
    let mut s = serde_json::to_string_pretty(&listed(lang)).unwrap_or_default();
    s.push('\n');
    s
}

/// The faults as aligned columns (by display width, so a catalog's
/// wide characters keep them aligned): name, caught by, args, the mistake.
#[must_use]
pub fn table(lang: Lang) -> String {
    let all = listed(lang);
    let head = [
        lang.t("faults-col-fault"),
        lang.t("faults-col-caught-by"),
        lang.t("faults-col-args"),
        lang.t("faults-col-mistake"),
    ];
    let rows: Vec<[String; 4]> = all
        .iter()
        .map(|l| {
            [
                l.name.to_string(),
                l.caught_by.join(", "),
                l.args_text(),
                l.mistake.clone(),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].width())
            .chain([head[i].width()])
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2)];
    let line = |r: &[String; 4]| {
        let mut s = String::new();
        for (cell, w) in r.iter().zip(widths) {
            s.push_str(cell);
            s.push_str(&" ".repeat(w - cell.width() + 2));
        }
        s.push_str(&r[3]);
        s.push('\n');
        s
    };
    std::iter::once(line(&head))
        .chain(rows.iter().map(line))
        .collect()
}

/// The faults as the README's Markdown table: the fault, the mistake,
/// the checks that catch it (the first with where it points) and why,
/// and the flags it needs on the lesson model.
#[must_use]
pub fn markdown(lang: Lang) -> String {
    let mut s = format!(
        "| {} | {} | {} | {} |\n| --- | --- | --- | --- |\n",
        lang.t("faults-col-fault"),
        lang.t("faults-col-mistake"),
        lang.t("faults-col-caught-by"),
        lang.t("faults-col-args"),
    );
    for l in listed(lang) {
        let checks: Vec<String> = l.caught_by.iter().map(|c| format!("`{c}`")).collect();
        let args = if l.args.is_empty() {
            "-".to_string()
        } else {
            format!("`{}`", l.args.join(" "))
        };
        s.push_str(&format!(
            "| `{}` | {} | {} {} `{}`: {} | {} |\n",
            l.name,
            l.mistake,
            checks.join(", "),
            lang.t("faults-at"),
            l.at,
            l.why,
            args
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{Lang, table};
    use unicode_width::UnicodeWidthStr;

    /// The display column where a line's second cell starts.
    fn second_cell(line: &str) -> usize {
        let end = line.find("  ").unwrap_or(line.len());
        let rest = &line[end..];
        let gap = rest.len() - rest.trim_start().len();
        line[..end + gap].width()
    }

    /// In both languages every line's second cell starts at one display
    /// column, the header's translated (wide) words included; counting
    /// chars instead of display width would shift the Chinese header.
    #[test]
    fn the_table_s_columns_align_by_display_width() {
        for lang in [Lang::En, Lang::ZhTw] {
            let text = table(lang);
            let starts: Vec<usize> = text.lines().map(second_cell).collect();
            assert!(starts.len() > 10, "{text}");
            assert!(starts.iter().all(|&s| s == starts[0]), "{lang:?}:\n{text}");
        }
        let zh = table(Lang::ZhTw);
        let header = zh.lines().next().unwrap_or("");
        assert_ne!(header.chars().count(), header.width(), "{header}");
    }
}
