//! What every handout shows, whatever its format: the title's name, the
//! settings rows and the step rows with their formula and why. The
//! Markdown handout ([`super::handout`]) and the HTML one
//! ([`super::html`]) lay these out; neither computes them itself.
//!
//! ```text
//! settings:  ("B (batch)", "2"), ("T (seq)", "4"), ("norm", "layernorm (pre)"), …
//! step:      5 block1.attn.q split_heads (B=2,h=4,T=4,hd=16) f32 "◆ leaves (B,T,d)"
//! ```

use super::table::rows;
use crate::text::{escaped, shown};
use crate::trace::Trace;

/// One step as a handout shows it; every text is already escaped for a
/// terminal (control characters written out), not yet for a format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepRow {
    /// The step number.
    pub step: String,
    /// Its path, e.g. `block1.attn.q`.
    pub path: String,
    /// The op's label.
    pub op: String,
    /// The shape with axis names, `(B=2,h=4,T=4,hd=16)`.
    pub shape: String,
    /// The dtype (empty for the failed step).
    pub dtype: String,
    /// Departure, return or residual add, as glyph and words.
    pub marker: String,
    /// The formula with the shape arithmetic.
    pub formula: String,
    /// Why the shape is what it is: the catalog's text.
    pub why: String,
}

/// The model's name for a title: its preset, or `custom model`.
pub(crate) fn name(trace: &Trace) -> String {
    let c = &trace.config;
    if c.preset.is_empty() {
        "custom model".to_string()
    } else {
        shown(&c.preset).to_string()
    }
}

/// The positions a model adds, as the settings say them: a model with no
/// vocabulary starts from x0 and has no wpe to add, whatever its
/// (default) learned kind says; rotary and ALiBi positions act inside
/// attention, embeddings or not.
fn positions(c: &crate::ModelConfig) -> String {
    use crate::config::PosEmb;
    if c.positions.kind == PosEmb::Learned && c.vocab.size.is_none() {
        "none (starts from x0, no position embedding)".to_string()
    } else {
        c.positions.kind.to_string()
    }
}

/// The settings table: every choice that decides a shape.
pub(crate) fn settings(trace: &Trace) -> Vec<(&'static str, String)> {
    let c = &trace.config;
    let preset = if c.preset.is_empty() {
        "(none)".to_string()
    } else {
        shown(&c.preset).to_string()
    };
    let mut rows = vec![
        ("preset", preset),
        ("B (batch)", c.batch.to_string()),
        ("T (seq)", c.seq.to_string()),
        ("d_model", c.d_model.to_string()),
        ("heads", c.attention.heads.to_string()),
        ("kv heads", c.attention.kv_heads.to_string()),
        ("hd (d_model / heads)", c.head_dim().to_string()),
        ("d_ff", c.mlp.d_ff.to_string()),
        ("norm", format!("{} ({})", c.norms.kind, c.norms.placement)),
        ("activation", c.mlp.act.to_string()),
        ("positions", positions(c)),
        ("blocks", c.layers.to_string()),
        ("dtype", c.dtype.to_string()),
        (
            "fault",
            c.fault.map_or_else(
                || "none".into(),
                |f| {
                    let words = crate::i18n::Lang::En.t(&f.spec().mistake_key());
                    format!("{f}: {words}")
                },
            ),
        ),
    ];
    // A generating run: the prompt's T, then its decode steps.
    if c.decode > 0 {
        let steps = format!(
            "{} (the prompt's prefill, then one token a step through the key/value cache)",
            c.decode
        );
        rows.insert(3, ("decode steps", steps));
    }
    // A training step: the loss and every gradient after the forward.
    if c.backward {
        let words = "yes: the loss, then every gradient from the head back to the embeddings";
        rows.push(("backward", words.into()));
    }
    // A split model: whose steps these are.
    let d = c.devices;
    if d.split() {
        let sp = if d.sp {
            ", sequence parallel: norms and residual adds on T/N positions"
        } else {
            ""
        };
        let words = format!(
            "rank {} of {} (tensor parallel{sp}): each holds heads/{} heads and d_ff/{} hidden units",
            d.rank(),
            d.tp,
            d.tp,
            d.tp
        );
        rows.push(("devices", words));
    }
    // Expert parallelism: whose experts and sequences these are.
    if d.experts_split() {
        let held = c.held_experts();
        let words = format!(
            "rank {} of {} (expert parallel): experts {}..={} of {} and batch/{} sequences; each expert's tokens arrive by all_to_all and go back by another",
            d.rank(),
            d.ep,
            held.start + 1,
            held.end,
            c.experts(),
            d.ep
        );
        rows.push(("devices", words));
    }
    // A pipeline: whose blocks these are.
    if d.piped() {
        let held = c.held_blocks();
        let words = format!(
            "device {} is stage {} of {} (pipeline parallel): blocks {}..={}, the stream received from the stage before and sent to the stage after; {} micro-batch(es) a step",
            d.device,
            d.stage() + 1,
            d.pp,
            held.start(),
            held.end(),
            d.micro_batches
        );
        rows.push(("stages", words));
    }
    rows
}

/// The settings a log of another program holds: the stream, the blocks,
/// the declared placement, the dtype and who wrote it.
pub(crate) fn settings_of_log(trace: &Trace, producer: &str) -> Vec<(&'static str, String)> {
    let c = &trace.config;
    vec![
        ("written by", shown(producer).to_string()),
        ("B (batch)", c.batch.to_string()),
        ("T (seq)", c.seq.to_string()),
        ("d_model", c.d_model.to_string()),
        ("blocks", c.layers.to_string()),
        ("declared", format!("{}-LN", c.norms.placement)),
        ("dtype", c.dtype.to_string()),
    ]
}

/// Every step, then the step that stopped the forward if one did, each
/// with its formula (the failure's detail) and why, one at a time.
pub(crate) fn steps(trace: &Trace) -> impl Iterator<Item = StepRow> + '_ {
    let whys = trace
        .events
        .iter()
        .map(|e| (e.formula.as_str(), e.why_text()))
        .chain(
            trace
                .failure
                .iter()
                .map(|f| (f.detail.as_str(), f.why_text())),
        );
    rows(trace).zip(whys).map(
        |([step, path, op, shape, dtype, marker], (formula, why))| StepRow {
            step,
            path,
            op,
            shape,
            dtype,
            marker,
            formula: escaped(formula).to_string(),
            why: escaped(why).to_string(),
        },
    )
}
