//! The HTML handout (`trace --format html`) and comparison (`compare
//! --format html`): every step's path and why, the Content-Security-Policy,
//! nothing referenced outside the file, hostile names escaped, the
//! attention heatmaps with their masked cells, the block's norms where the
//! config puts them, the Budget's numbers, and the comparison marking the
//! norms of Pre-LN against Post-LN as changed. Each detector is also shown
//! failing on a page broken on purpose.

use shapetrace::budget::pictures::crossover;
use shapetrace::budget::thousands;
use shapetrace::report::html::page::{CSP, esc};
use shapetrace::{Budget, ModelConfig, Request};

#[path = "common/mod.rs"]
mod common;

/// `shapetrace ARGS` that must succeed: its stdout.
fn page(args: &[&str]) -> String {
    let (code, out, err) = common::cli(args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

/// The lesson trace with the small tensors' values, as the page's run.
fn lesson_trace(toml: &str) -> shapetrace::Trace {
    let req = Request {
        values: true,
        ..Request::default()
    };
    shapetrace::trace_request(&common::cfg(toml), &req)
        .unwrap()
        .trace
}

/// What of the trace's steps (path and why) the page lacks.
fn missing_steps(html: &str, trace: &shapetrace::Trace) -> Vec<String> {
    let mut out = Vec::new();
    for e in &trace.events {
        if !html.contains(&format!(">{}</code>", esc(&e.path))) {
            out.push(format!("path {}", e.path));
        }
        let why = e.why_text();
        if !why.is_empty() && !html.contains(&esc(why)) {
            out.push(format!("why of {}", e.path));
        }
    }
    out
}

/// Every `src=`, `href=`, `srcset=`, `url(` or `@import` that reaches
/// outside the file (http:, https:, or a protocol-relative //).
fn outside_refs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = html.to_lowercase();
    for key in ["src=", "href=", "srcset=", "url(", "@import"] {
        for (at, _) in lower.match_indices(key) {
            let rest = lower[at + key.len()..].trim_start_matches([' ', '"', '\'']);
            if ["http:", "https:", "//"]
                .iter()
                .any(|p| rest.starts_with(p))
            {
                out.push(lower[at..(at + 40).min(lower.len())].to_string());
            }
        }
    }
    out
}

/// The step card of `path`.
fn card<'a>(html: &'a str, path: &str) -> &'a str {
    let marker = format!("<code class=\"path\">{}</code>", esc(path));
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("a card for {path}"));
    let start = html[..at].rfind("<article").unwrap();
    let end = at + html[at..].find("</article>").unwrap();
    &html[start..end]
}

#[test]
fn the_lesson_page_holds_every_step_with_its_why() {
    let html = page(&["trace", "--format", "html"]);
    let trace = lesson_trace("");
    assert!(trace.events.len() > 20);
    let missing = missing_steps(&html, &trace);
    assert!(missing.is_empty(), "missing: {missing:?}");
    // The detector fails on a page that lost its second half.
    let cut = &html[..html.len() / 2];
    assert!(!missing_steps(cut, &trace).is_empty());
    // Shapes with named axes, and the markers in glyphs and words.
    assert!(html.contains("(B=2,h=4,T=4,hd=16)"), "named shape");
    assert!(html.contains("◆ leaves (B,T,d)"));
    assert!(html.contains("↩ returns"));
    assert!(html.contains("✓ add"));
}

#[test]
fn the_page_refuses_outside_loads_and_references_none() {
    let html = page(&["trace", "--format", "html"]);
    let meta = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">");
    assert!(html.contains(&meta), "the CSP meta");
    assert!(CSP.contains("default-src 'none'"));
    assert!(html.contains("<style>"), "an inline stylesheet");
    assert!(!html.contains("<script"), "no script");
    assert!(!html.contains("<link"), "no linked stylesheet");
    assert_eq!(outside_refs(&html), Vec::<String>::new());
    // The detector catches each way a page could reach out.
    let bad = html.replace(
        "<style>",
        "<style>@import '//cdn.example/x.css'; body { background: url( 'https://x/y.png') }",
    ) + "<img src=\"http://example.invalid/x.png\"><a href=HTTPS://x>";
    assert_eq!(outside_refs(&bad).len(), 4, "{:?}", outside_refs(&bad));
    // Print and narrow-screen rules.
    for rule in [
        "@media print",
        "@page { size: A4",
        "break-inside: avoid",
        "@media (max-width: 600px)",
        "max-width: 100%",
    ] {
        assert!(html.contains(rule), "{rule}");
    }
}

#[test]
fn a_hostile_file_name_is_escaped_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let name = "<script>alert(1)<script>&\"x'.json";
    let path = dir.path().join(name);
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/hf-gpt2-lm-config.json"
        ),
        &path,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let escaped = "&lt;script&gt;alert(1)&lt;script&gt;&amp;&quot;x&#39;.json";
    let raw = |html: &str| html.to_lowercase().contains("<script");
    let trace = page(&["trace", "--config", p, "--format", "html"]);
    assert!(!raw(&trace), "a raw <script in the trace page");
    assert!(trace.contains(escaped), "the name, escaped, in the title");
    let compare = page(&["compare", p, "lesson-lm", "--format", "html"]);
    assert!(!raw(&compare), "a raw <script in the comparison");
    assert!(compare.contains(escaped));
    // The detector sees the name unescaped.
    assert!(raw(&format!("<h1>{name}</h1>")));
}

/// The masked cells of a (T × T) slice under a window of `w` (0: causal
/// alone): key j after query i, or w or more before it.
fn masked_cells(t: usize, w: usize) -> usize {
    (0..t)
        .flat_map(|i| (0..t).map(move |j| (i, j)))
        .filter(|&(i, j)| j > i || (w > 0 && i - j >= w))
        .count()
}

#[test]
fn the_weights_card_draws_each_head_with_its_mask_and_values() {
    let html = page(&["trace", "--format", "html"]);
    let trace = lesson_trace("");
    let e = trace.get("block1.attn.weights").unwrap();
    let [_, heads, t, _] = *e.shape.as_slice() else {
        panic!("4-D weights")
    };
    let c = card(&html, "block1.attn.weights");
    assert_eq!(c.matches("<svg class=\"heatmap\"").count(), heads);
    assert_eq!(
        c.matches("class=\"masked\"").count(),
        heads * masked_cells(t, 0)
    );
    assert!(c.contains("╳"), "masked cells marked");
    assert!(c.contains("causal mask"), "the mask named");
    // Every unmasked cell's value in its title, as the trace holds it.
    let v = e.values.as_ref().unwrap();
    for h in 0..heads {
        for i in 0..t {
            for j in 0..=i {
                let want = format!("<title>q{i} k{j}: {:.4}</title>", v[(h * t + i) * t + j]);
                assert!(c.contains(&want), "{want}");
            }
            for j in i + 1..t {
                assert!(c.contains(&format!("<title>q{i} k{j}: masked")));
            }
        }
    }
    // Without the causal mask (the fault) no cell is masked; with a
    // window of 2 the keys before it are masked too.
    let open = page(&["trace", "--format", "html", "--fault", "no-causal-mask"]);
    let oc = card(&open, "block1.attn.weights");
    assert_eq!(oc.matches("<svg class=\"heatmap\"").count(), heads);
    assert_eq!(oc.matches("class=\"masked\"").count(), 0);
    let win = page(&["trace", "--format", "html", "--window", "2"]);
    let wc = card(&win, "block1.attn.weights");
    assert!(masked_cells(t, 2) > masked_cells(t, 0));
    assert_eq!(
        wc.matches("class=\"masked\"").count(),
        heads * masked_cells(t, 2)
    );
    // A shape-only run has no values: the card says so.
    let shapes = page(&["trace", "--format", "html", "--shape-only"]);
    let sc = card(&shapes, "block1.attn.weights");
    assert!(!sc.contains("<svg"));
    assert!(sc.contains("No heatmap"));
}

#[test]
fn the_block_drawing_puts_the_norms_where_the_config_does() {
    let pre = page(&["trace", "--format", "html"]);
    let post = page(&["trace", "--format", "html", "--preset", "lesson-post-ln"]);
    let sandwich = page(&["trace", "--format", "html", "--preset", "lesson-sandwich"]);
    let parallel = page(&["trace", "--format", "html", "--preset", "lesson-parallel"]);
    let block = |html: &str| {
        let at = html.find("<figure class=\"diagram\">").expect("a diagram");
        html[at..at + html[at..].find("</figure>").unwrap()].to_string()
    };
    let (pre, post, sandwich, parallel) = (
        block(&pre),
        block(&post),
        block(&sandwich),
        block(&parallel),
    );
    assert!(pre.contains("x = x + attn(ln_1(x))") && pre.contains("Pre-LN"));
    assert!(!pre.contains("on the stream (Post-LN)"));
    assert!(post.contains("x = ln_1(x + attn(x))") && post.contains("on the stream (Post-LN)"));
    assert!(sandwich.contains("post_ln_1") && !pre.contains("post_ln_1"));
    assert!(parallel.contains("one add") && !pre.contains("one add"));
    assert_eq!(pre.matches("class=\"add\"").count(), 2);
    assert_eq!(parallel.matches("class=\"add\"").count(), 1);
}

#[test]
fn the_budget_pictures_carry_the_library_numbers() {
    let html = page(&["trace", "--format", "html"]);
    let b = Budget::of(&ModelConfig::default()).unwrap();
    let t = crossover(&b).unwrap();
    assert!(html.contains(&format!("T* = {t:.0} = d_ff")), "T* marked");
    assert!(html.contains(&format!("causal ≈ 2·T* = {:.0}", 2.0 * t)));
    for (name, n) in shapetrace::budget::pictures::params(&b) {
        assert!(
            html.contains(&format!("<title>{name}: {} (", thousands(n))),
            "{name}"
        );
    }
    assert!(html.contains("attention T-term (dashed)") && html.contains("MLP matmuls (solid)"));
    // An encoder has no causal half.
    let enc = page(&["trace", "--format", "html", "--preset", "lesson-encoder"]);
    assert!(!enc.contains("causal ≈ 2·T*"));
}

#[test]
fn out_writes_the_same_page_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("trace.html");
    let stdout = page(&["trace", "--format", "html"]);
    let written = page(&["trace", "--format", "html", "--out", f.to_str().unwrap()]);
    assert!(written.is_empty());
    assert_eq!(std::fs::read_to_string(&f).unwrap(), stdout);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temp file left");
}

/// The `<tr>` of `path` in the comparison's step table.
fn row<'a>(html: &'a str, path: &str) -> &'a str {
    let cell = format!("<code>{}</code></td>", esc(path));
    let at = html
        .find(&cell)
        .unwrap_or_else(|| panic!("a row for {path}"));
    let start = html[..at].rfind("<tr").unwrap();
    &html[start..at + html[at..].find("</tr>").unwrap()]
}

#[test]
fn the_comparison_marks_the_moved_norms_as_changed() {
    let html = page(&["compare", "lesson", "lesson-post-ln", "--format", "html"]);
    assert!(html.contains(&format!("content=\"{CSP}\"")));
    assert_eq!(outside_refs(&html), Vec::<String>::new());
    for ln in ["block1.ln_1", "block1.ln_2", "block2.ln_1"] {
        let r = row(&html, ln);
        assert!(r.contains("status-changed") && r.contains("≠"), "{ln}: {r}");
    }
    assert!(row(&html, "block1.attn.q").contains("status-same"));
    assert!(
        html.contains("Post-LN") && html.contains("Pre-LN"),
        "both blocks drawn"
    );
    assert!(html.contains("both: <code>"), "the formulas");
    // The same model on both sides changes nothing.
    let same = page(&["compare", "lesson", "lesson", "--format", "html"]);
    assert!(row(&same, "block1.ln_1").contains("status-same"));
    assert!(same.contains("No step differs"));
    // Only-one-side steps say so in words and glyphs.
    let gqa = page(&["compare", "lesson", "lesson-gqa", "--format", "html"]);
    let k_rep = row(&gqa, "block1.attn.k_rep");
    assert!(k_rep.contains("status-only-right") && k_rep.contains("only lesson-gqa ▶"));
    assert!(row(&gqa, "block1.attn.k").contains("≠ shape"));
}

#[test]
fn a_stopped_forward_shows_its_failed_step_and_check() {
    let html = page(&["trace", "--format", "html", "--fault", "ffn-no-down"]);
    let c = card(&html, "block1.resid_2");
    assert!(c.contains("class=\"step fail\""), "{c}");
    assert!(c.contains("✗ residual stops the forward"), "{c}");
    assert!(html.contains("✗ FAILS"), "a failed check in words");
    // The lesson model has neither.
    let ok = page(&["trace", "--format", "html"]);
    assert!(!ok.contains("class=\"step fail\"") && !ok.contains("✗ FAILS"));
    assert!(card(&ok, "block1.resid_2").contains("✓ add"));
}

#[test]
fn a_replayed_log_becomes_the_same_kind_of_page() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("t.jsonl");
    let l = log.to_str().unwrap();
    page(&["trace", "--format", "json", "--values", "--out", l]);
    let html = page(&["view", l, "--format", "html"]);
    assert!(html.contains(&format!("content=\"{CSP}\"")));
    let missing = missing_steps(&html, &lesson_trace(""));
    assert!(missing.is_empty(), "missing: {missing:?}");
    let c = card(&html, "block1.attn.weights");
    assert_eq!(
        c.matches("<svg class=\"heatmap\"").count(),
        4,
        "the logged values drawn"
    );
    assert!(c.contains("class=\"masked\""));
    // A log without values has no heatmap to draw.
    page(&["trace", "--format", "json", "--out", l]);
    let bare = page(&["view", l, "--format", "html"]);
    assert!(card(&bare, "block1.attn.weights").contains("No heatmap"));
    // Another program's log shows the settings it holds and who wrote it.
    let student = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/students/nanogpt_style.jsonl"
    );
    let theirs = page(&["view", student, "--format", "html"]);
    assert!(theirs.contains("<th scope=\"row\">written by</th>"));
    assert!(!bare.contains("<th scope=\"row\">written by</th>"));
    assert!(bare.contains("<th scope=\"row\">preset</th>"));
}

#[test]
fn a_deep_model_draws_the_first_attention_steps_only() {
    let html = page(&["trace", "--format", "html", "--layers", "14"]);
    let max = shapetrace::report::html::MAX_HEATMAP_STEPS;
    assert_eq!(
        html.matches("<svg class=\"heatmap\"").count(),
        max * 4,
        "4 heads in each of the first {max} blocks"
    );
    assert_eq!(
        html.matches("draws the first").count(),
        14 - max,
        "the later weights say why they have none"
    );
    // Two blocks: every one drawn, no note.
    assert!(!page(&["trace", "--format", "html"]).contains("draws the first"));
}

#[test]
fn a_log_whose_shape_overflows_gets_no_heatmap_and_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("t.jsonl");
    let l = log.to_str().unwrap();
    page(&["trace", "--format", "json", "--values", "--out", l]);
    let text = std::fs::read_to_string(&log).unwrap();
    let mut changed = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["path"] == "block1.attn.weights" {
                v["shape"] = serde_json::json!([1u64, 1u64 << 32, 1u64 << 32, 1u64]);
                v["values"] = serde_json::json!([]);
                changed += 1;
            }
            v.to_string()
        })
        .collect();
    assert_eq!(changed, 1);
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let (code, out, err) = common::cli(&["view", l, "--format", "html"]);
    assert_ne!(code, Some(101), "a panic: {err}");
    if code == Some(0) {
        assert!(card(&out, "block1.attn.weights").contains("No heatmap"));
    } else {
        assert_eq!(code, Some(2), "{err}");
    }
}

/// The page of another program's log is written card by card, its whys
/// worded as each card is (the reader keeps none of them): the same page,
/// byte for byte, as from a log read with every why; so is the Markdown.
#[test]
fn a_foreign_logs_page_words_its_whys_card_by_card_the_same() {
    use shapetrace::trace::log::{Whys, read_file_with};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/students");
    for name in ["einsum_style.jsonl", "mlp_no_down.jsonl"] {
        let path = std::path::Path::new(dir).join(name);
        let now = read_file_with(&path, Whys::Now).unwrap();
        let later = read_file_with(&path, Whys::Later).unwrap();
        assert!(later.trace.events.iter().all(|e| e.why_text.is_empty()));
        let checks = shapetrace::check::as_logged(&now);
        let whole = shapetrace::report::html::trace_of_log(&now, &checks);
        let mut streamed = Vec::new();
        shapetrace::report::html::write_trace_of_log(&mut streamed, &later, &checks).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), whole, "{name}");
        assert!(whole.contains("<p class=\"why\">why: "), "{name}");
        let cli = page(&["view", "--format", "html", path.to_str().unwrap()]);
        assert_eq!(cli, whole, "{name}");
        // The Markdown handout words them row by row the same way.
        let md = shapetrace::report::handout::markdown_of_log(&now, &checks);
        let cli = page(&["view", "--format", "markdown", path.to_str().unwrap()]);
        assert!(cli.ends_with(&md) && md.contains(" | why | "), "{name}");
        assert_eq!(
            md,
            shapetrace::report::handout::markdown_of_log(&later, &checks)
        );
    }
}
