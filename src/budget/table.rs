//! The budget as text for people: the breakdown with formulas, one block's
//! subtotals, FLOPs with shares, and memory in every [`Precision`].

use super::{Budget, Precision, Row, thousands};
use crate::config::human_bytes;
use crate::i18n::Lang;
use crate::why::{Arg, Why};
use std::fmt::Write as _;

/// The catalog's `key` in `lang` with the named arguments.
fn say(lang: Lang, key: &str, args: &[(&str, String)]) -> String {
    let why = args
        .iter()
        .fold(Why::new(key), |w, (k, v)| w.arg(k, v.clone()));
    lang.why(&why)
}

/// Lines of columns, each padded to its widest cell; the columns in
/// `right` align right.
fn columns(lines: &[Vec<String>], right: &[usize]) -> String {
    let n = lines.iter().map(Vec::len).max().unwrap_or(0);
    let width = |i: usize| {
        lines
            .iter()
            .filter_map(|l| l.get(i))
            .map(|c| crate::report::table::width(c))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..n).map(width).collect();
    let mut out = String::new();
    for line in lines {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = widths[i] - crate::report::table::width(c);
                if right.contains(&i) {
                    format!("{}{c}", " ".repeat(pad))
                } else {
                    format!("{c}{}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
    }
    out
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

#[allow(clippy::cast_precision_loss)]
fn share(part: u64, whole: u64) -> String {
    percent(if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    })
}

fn row_line(r: &Row, lang: Lang) -> Vec<String> {
    // A tied head's one word of prose; the other formulas are notation.
    let formula = if r.formula == "tied to wte = 0" {
        lang.t("cli-params-tied")
    } else {
        r.formula.clone()
    };
    vec![label(&r.path, lang), thousands(r.count), formula]
}

/// A row's label in `lang`: the groups' words (`attention weights`,
/// `norms` …) from the catalog; tensor names such as `block.ln_1.weight`
/// are identifiers and stay.
fn label(path: &str, lang: Lang) -> String {
    let key = match path {
        "attention weights" => "cli-group-attention-weights",
        "MLP weights" => "cli-group-mlp-weights",
        "attention" => "cli-group-attention",
        "MLP" => "cli-group-mlp",
        "norms" => "cli-group-norms",
        "block" => "cli-group-block",
        "blocks" => "cli-group-blocks",
        _ => return path.to_string(),
    };
    lang.t(key)
}

fn line<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|s| (*s).to_string()).collect()
}

/// The whole budget as aligned text.
#[must_use]
pub fn text(b: &Budget) -> String {
    text_in(b, Lang::En)
}

/// [`text`] in `lang`: its headings, labels and sentences from the
/// catalog (a split model's device lines are English still); the
/// formulas are the lesson's notation in every language.
#[must_use]
pub fn text_in(b: &Budget, lang: Lang) -> String {
    let c = &b.config;
    let mut out = String::new();
    let model = lang.t("cli-params-model");
    let name = if c.preset.is_empty() {
        model.as_str()
    } else {
        &c.preset
    };
    // A split model: every count is one device's, said before any.
    if let Some(s) = &b.devices {
        let how = match (s.tp > 1, s.pp > 1, s.experts) {
            (_, _, Some(((held, e), (b, batch)))) => say(
                lang,
                "cli-split-how-ep",
                &[
                    ("held", held.to_string()),
                    ("experts", e.to_string()),
                    ("b", b.to_string()),
                    ("batch", batch.to_string()),
                ],
            ),
            (tp, pp, None) => {
                let form = match (tp, pp) {
                    (true, true) => "tp-pp",
                    (false, true) => "pp",
                    _ => "tp",
                };
                let sp = if s.sp {
                    format!(" {}", lang.t("cli-split-sp"))
                } else {
                    String::new()
                };
                say(
                    lang,
                    "cli-split-how",
                    &[
                        ("form", form.to_string()),
                        ("tp", s.tp.to_string()),
                        ("pp", s.pp.to_string()),
                        ("sp", sp),
                    ],
                )
            }
        };
        let _ = writeln!(
            out,
            "{}",
            say(
                lang,
                "cli-split-over",
                &[
                    ("n", (s.tp * s.ep * s.pp).to_string()),
                    ("how", how),
                    ("device", s.device.to_string()),
                ],
            )
        );
    }
    let _ = writeln!(
        out,
        "{}",
        say(
            lang,
            "cli-params-total",
            &[
                ("name", name.to_string()),
                ("total", thousands(b.total)),
                ("nobias", thousands(b.total_no_bias)),
            ]
        )
    );
    let verdict = if b.closed_total == b.total {
        "cli-params-closed-matches"
    } else {
        "cli-params-closed-differs"
    };
    let _ = writeln!(
        out,
        "{}\n",
        say(lang, verdict, &[("closed", thousands(b.closed_total))])
    );
    if let Some(s) = &b.devices {
        split(&mut out, s, lang);
    }

    let _ = writeln!(out, "{}", lang.t("cli-params-parameters"));
    let mut lines: Vec<Vec<String>> = b.by_component.iter().map(|r| row_line(r, lang)).collect();
    // The final norm as one number, as the lesson counts it.
    let ln_f = b.final_norm();
    if ln_f > 0 {
        let at = lines
            .iter()
            .rposition(|l| l[0].starts_with("ln_f."))
            .map_or(lines.len(), |i| i + 1);
        lines.insert(
            at,
            line([
                &lang.t("cli-params-ln-f"),
                &thousands(ln_f),
                &lang.t("cli-params-ln-f-note"),
            ]),
        );
    }
    lines.push(line([&lang.t("cli-params-sum"), &thousands(b.total)]));
    lines.push(line([
        &lang.t("cli-params-sum-no-bias"),
        &thousands(b.total_no_bias),
    ]));
    let ne = b.non_embedding;
    let non_embedding = lang.t("cli-params-non-embedding");
    let minus_pos = thousands(ne.minus_position);
    lines.push(line([
        &non_embedding,
        &minus_pos,
        &lang.t("cli-params-minus-wpe"),
    ]));
    let minus_all = thousands(ne.minus_all);
    lines.push(line([
        &non_embedding,
        &minus_all,
        &lang.t("cli-params-minus-wte-wpe"),
    ]));
    if ne.minus_all_and_head != ne.minus_all {
        lines.push(line([
            &non_embedding,
            &thousands(ne.minus_all_and_head),
            &lang.t("cli-params-minus-head"),
        ]));
    }
    // A mixture of experts: all of them are stored, k of E run per token.
    if let Some(m) = c.mixture {
        let held = c.held_experts().len();
        let how = if held < m.experts {
            lang.why(
                &Why::new("cli-params-active-held")
                    .arg("held", held)
                    .arg("k", m.top_k),
            )
        } else {
            lang.why(
                &Why::new("cli-params-active-skips")
                    .arg("skipped", m.experts - m.top_k)
                    .arg("experts", m.experts),
            )
        };
        lines.push(line([
            &lang.t("cli-params-active"),
            &thousands(b.active_per_token),
            &how,
        ]));
    }
    out.push_str(&columns(&lines, &[1]));

    let _ = writeln!(out, "\n{}", lang.t("cli-params-one-block"));
    let mut lines: Vec<Vec<String>> = b.groups.iter().map(|r| row_line(r, lang)).collect();
    let weights = b.block.attention_weights + b.block.mlp_weights;
    lines.insert(
        2.min(lines.len()),
        line([
            &lang.t("cli-params-block-weights"),
            &thousands(weights),
            &lang.t("cli-params-block-weights-note"),
        ]),
    );
    lines.push(line([
        &lang.t("cli-params-block-no-bias"),
        &thousands(b.block.total_no_bias),
    ]));
    out.push_str(&columns(&lines, &[1]));
    let _ = writeln!(
        out,
        "  {}",
        say(
            lang,
            "cli-params-ratio",
            &[
                ("ratio", format!("{:.2}", b.ffn_attention_ratio)),
                (
                    "mlp",
                    share(
                        b.block.mlp_weights,
                        b.block.mlp_weights + b.block.attention_weights
                    )
                ),
                (
                    "attention",
                    share(
                        b.block.attention_weights,
                        b.block.mlp_weights + b.block.attention_weights
                    )
                ),
            ]
        )
    );
    flops(&mut out, b, lang);
    memory(&mut out, b, lang);
    kv_cache(&mut out, b, lang);
    out
}

fn flops(out: &mut String, b: &Budget, lang: Lang) {
    let f = &b.flops;
    let (k, s) = (f.per_token_per_block, f.split);
    let t = f.seq;
    let _ = writeln!(
        out,
        "\n{}",
        say(lang, "cli-flops-block", &[("t", t.to_string())])
    );
    let c = &b.config;
    // The weights one token is multiplied by: a mixture's router and k experts.
    let weights = b.block.attention_weights + b.block.mlp_active_weights;
    // The exact count exploits the mask: causal, or the sliding window's band.
    let exact = if let Some(window) = c.attention.window {
        say(
            lang,
            "cli-flops-window-exact",
            &[("window", window.to_string())],
        )
    } else {
        lang.t("cli-flops-causal-exact")
    };
    // q·kᵀ and weights·v run over the heads' width h·hd: d unless head_dim
    // is given apart from it.
    // Split across N devices, each runs h/N of the heads.
    let n = c.devices.tp;
    let width = match (c.attn_width() == c.d_model, n > 1) {
        (true, false) => "d",
        (false, false) => "h·hd",
        (true, true) => "d/N",
        (false, true) => "h·hd/N",
    };
    let scores = format!(
        "4·T·{width} = 4·{}·{}; {exact} {}",
        thousands(t as u64),
        thousands((c.attn_width() / n) as u64),
        thousands(k.attention_causal)
    );
    let sum = format!("{} + {}", thousands(k.matmul), thousands(k.attention_full));
    let entry =
        |name: &str, n: u64, note: &str| line([name, &thousands(n), &share(n, k.total), note]);
    let lines = vec![
        entry(&lang.t("cli-flops-qkvo"), s.attn_proj, ""),
        entry(&lang.t("cli-flops-mlp"), s.ffn, ""),
        entry(
            &lang.t("cli-flops-matmuls"),
            k.matmul,
            &say(lang, "cli-flops-weights", &[("n", thousands(weights))]),
        ),
        entry(&lang.t("cli-flops-scores"), k.attention_full, &scores),
        entry(&lang.t("cli-params-sum"), k.total, &sum),
    ];
    out.push_str(&columns(&lines, &[1, 2]));
    let _ = writeln!(
        out,
        "  {}",
        say(
            lang,
            "cli-flops-by-sublayer",
            &[
                ("attention", percent(f.attention_share())),
                ("mlp", percent(f.ffn_share)),
            ]
        )
    );

    let _ = writeln!(out, "\n{}", lang.t("cli-flops-model"));
    let (seq_full, seq_causal) = f.forward_per_sequence();
    let per_token = if s.head > 0 {
        let (l, k, h) = (s.layers, thousands(k.total), thousands(s.head));
        say(
            lang,
            "cli-flops-per-token-head",
            &[("l", l.to_string()), ("k", k), ("h", h)],
        )
    } else {
        format!("L·block = {}·{}", s.layers, thousands(k.total))
    };
    let per_seq = say(lang, "cli-flops-per-sequence", &[("t", t.to_string())]);
    let per_tok = lang.t("cli-flops-per-token");
    let and = |a: &str| {
        say(
            lang,
            "cli-flops-and",
            &[("a", a.to_string()), ("b", exact.clone())],
        )
    };
    let lines = vec![
        line([&per_tok, &thousands(f.forward_per_token), &per_token]),
        line([&and(&per_tok), &thousands(f.forward_per_token_causal())]),
        line([&per_seq, &thousands(seq_full)]),
        line([&and(&per_seq), &thousands(seq_causal)]),
    ];
    out.push_str(&columns(&lines, &[1]));

    let _ = writeln!(out, "\n{}", lang.t("cli-flops-training"));
    let nano = format!(
        "6·N + 12·L·H·Q·T = {} + {}",
        thousands(s.six_n),
        thousands(s.attention_term)
    );
    let lines = vec![
        line([
            &lang.t("cli-flops-three-forward"),
            &thousands(3 * f.forward_per_token),
            &lang.t("cli-flops-backward-twice"),
        ]),
        line([
            "nanoGPT estimate_mfu",
            &thousands(f.training_per_token),
            &nano,
        ]),
    ];
    out.push_str(&columns(&lines, &[1]));
}

/// The key/value cache decoding holds, in every dtype, with its formula,
/// beside what one K/V head per query head (MHA) would hold.
fn kv_cache(out: &mut String, b: &Budget, lang: Lang) {
    let kv = &b.kv_cache;
    let _ = writeln!(out, "\n{}", lang.t("cli-kv-title"));
    let key = if kv.windows.iter().any(Option::is_some) {
        "cli-kv-at-context-capped"
    } else {
        "cli-kv-at-context"
    };
    let mut lines = vec![vec![
        lang.t("cli-head-dtype"),
        lang.t("cli-flops-per-token"),
        String::new(),
        say(lang, key, &[("ctx", thousands(kv.context))]),
    ]];
    for &p in Precision::ALL {
        let mark = if p == b.bytes.dtype { " ◀" } else { "" };
        let at = kv.at(kv.context, p);
        lines.push(vec![
            format!("{p}{mark}"),
            format!("{} B", thousands(kv.per_token(p))),
            kv.formula(p),
            human_bytes(u128::from(at)),
            format!("({} B)", thousands(at)),
        ]);
    }
    out.push_str(&columns(&lines, &[1, 3]));
    let p = b.bytes.dtype;
    if kv.kv_heads < kv.heads {
        let _ = writeln!(
            out,
            "  {}",
            lang.why(
                &Why::new("cli-kv-mha")
                    .arg("bytes", thousands(kv.per_token_mha(p)))
                    .arg("dtype", p.to_string())
                    .arg("heads", Arg::Num(kv.heads))
                    .arg("kv", Arg::Num(kv.kv_heads))
                    .arg("times", Arg::Num(kv.heads / kv.kv_heads.max(1)))
            )
        );
    }
    let windowed = kv.windows.iter().flatten().count();
    if let Some(w) = kv.windows.iter().flatten().next() {
        let _ = writeln!(
            out,
            "  {}",
            lang.why(
                &Why::new("cli-kv-window")
                    .arg("window", thousands(*w))
                    .arg("windowed", windowed)
                    .arg("layers", Arg::Num(kv.layers))
            )
        );
    }
}

fn memory(out: &mut String, b: &Budget, lang: Lang) {
    let c = &b.config;
    // Under --ep a device runs B/N of the sequences.
    let ep = c.devices.ep.max(1);
    let batch = if ep > 1 {
        say(
            lang,
            "cli-memory-ep-batch",
            &[("n", (c.batch / ep).to_string())],
        )
    } else {
        format!("B = {}", c.batch)
    };
    let _ = writeln!(
        out,
        "\n{}",
        say(
            lang,
            "cli-memory-title",
            &[("batch", batch), ("t", c.seq.to_string())]
        )
    );
    let mut lines = vec![line([
        &lang.t("cli-head-dtype"),
        &lang.t("cli-memory-weights"),
        "",
        &lang.t("cli-memory-activations"),
    ])];
    for &p in Precision::ALL {
        let m = b.bytes_in(p);
        let mark = if p == b.bytes.dtype { " ◀" } else { "" };
        let bytes = |n: u64| format!("({} B)", thousands(n));
        lines.push(vec![
            format!("{p}{mark}"),
            human_bytes(u128::from(m.weights)),
            bytes(m.weights),
            human_bytes(u128::from(m.activations)),
            bytes(m.activations),
        ]);
    }
    out.push_str(&columns(&lines, &[1, 3]));
}

/// A split model: what the device sends per forward.
fn split(out: &mut String, s: &super::devices::Split, lang: Lang) {
    if let Some((v, padded, rows)) = s.vocab {
        let _ = writeln!(
            out,
            "{}\n",
            say(
                lang,
                "cli-split-vocab",
                &[
                    ("v", thousands(v as u64)),
                    ("padded", thousands(padded as u64)),
                    (
                        "pad",
                        match padded - v {
                            0 => "none",
                            1 => "one",
                            _ => "many",
                        }
                        .to_string(),
                    ),
                    ("zeros", (padded - v).to_string()),
                    ("rows", thousands(rows as u64)),
                ],
            )
        );
    }
    if s.pp > 1 {
        pipeline(out, s, lang);
    }
    // A collective in a ring receives what it sends; a pipeline's send
    // and recv are one way.
    let how = if s.ep > 1 {
        "cli-comm-how-ep"
    } else if s.pp > 1 {
        "cli-comm-how-pp"
    } else {
        "cli-comm-how-ring"
    };
    let _ = writeln!(
        out,
        "{}",
        say(lang, "cli-comm-title", &[("how", lang.t(how))])
    );
    let mut lines = vec![line([
        &lang.t("cli-comm-step"),
        &lang.t("cli-comm-count"),
        &lang.t("cli-head-shape"),
        &lang.t("cli-comm-each"),
        "",
    ])];
    for r in &s.steps {
        let each = human_bytes(u128::from(r.each));
        let how = match r.op.as_str() {
            "all_reduce" => "cli-comm-all-reduce",
            "send" => "cli-comm-send",
            "recv" => "cli-comm-recv",
            "all_to_all (dispatch)" => "cli-comm-dispatch",
            "all_to_all (return)" => "cli-comm-return",
            _ => "cli-comm-gather",
        };
        lines.push(vec![
            r.op.clone(),
            thousands(r.count),
            crate::ops::fmt_shape(&r.shape),
            each,
            lang.t(how),
        ]);
    }
    lines.push(vec![
        lang.t("cli-comm-one-block"),
        String::new(),
        String::new(),
        human_bytes(u128::from(s.per_block)),
    ]);
    lines.push(vec![
        lang.t("cli-comm-one-forward"),
        String::new(),
        String::new(),
        human_bytes(u128::from(s.per_forward)),
        format!("({} B)", thousands(s.per_forward)),
    ]);
    out.push_str(&columns(&lines, &[1, 3]));
    out.push('\n');
}

/// A pipeline's stages: this device's blocks, the bubble, and the
/// micro-batches 1F1B keeps in flight in training.
fn pipeline(out: &mut String, s: &super::devices::Split, lang: Lang) {
    let (idle, of) = s.bubble;
    #[allow(clippy::cast_precision_loss)]
    let share = idle as f64 / of as f64;
    let end = match (s.stage == 0, s.stage + 1 == s.pp) {
        (true, false) => "first",
        (false, true) => "last",
        _ => "none",
    };
    let _ = writeln!(
        out,
        "{}",
        lang.why(
            &Why::new("cli-pipe-stages")
                .arg("pp", s.pp)
                .arg("blocks", s.blocks.1 + 1 - s.blocks.0)
                .arg("device", s.device)
                .arg("stage", s.stage + 1)
                .arg("from", s.blocks.0)
                .arg("to", s.blocks.1)
                .arg("end", end)
        )
    );
    let _ = writeln!(
        out,
        "  {}",
        say(
            lang,
            "cli-pipe-bubble",
            &[
                ("pp", s.pp.to_string()),
                ("m", s.micro_batches.to_string()),
                ("idle", idle.to_string()),
                ("of", of.to_string()),
                ("share", percent(share)),
            ],
        )
    );
    // In training, the backward needs each micro-batch's activations:
    // 1F1B keeps at most M−s in flight on stage s, GPipe all m.
    let in_flight = (s.pp - s.stage).min(s.micro_batches);
    let _ = writeln!(
        out,
        "  {}\n",
        lang.why(
            &Why::new("cli-pipe-in-flight")
                .arg("pp", s.pp)
                .arg("s", s.stage)
                .arg("m", s.micro_batches)
                .arg("n", in_flight)
        )
    );
}
