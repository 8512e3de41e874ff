//! Every entry point answers bad input the same way: exit code 2, one line
//! on stderr naming the bad value and what is allowed, no panic, and no
//! partial output file. Each case runs in a fresh folder holding only its
//! input files, with `--out` pointed into it where the command writes.

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

#[path = "common/mod.rs"]
mod common;

// Each family of the hardening round keeps its cases in a file of its own.
#[path = "bad_input/files.rs"]
mod files;
#[path = "bad_input/memory.rs"]
mod memory;
#[path = "bad_input/messages.rs"]
mod messages;

/// How long one case may run: a case that hangs fails instead.
const CASE_TIMEOUT: Duration = Duration::from_secs(30);

/// A case: a name, files to create (name, bytes), the arguments, and words
/// the message must contain (the bad value, then what is allowed).
struct Case {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    args: Vec<String>,
    needles: Vec<String>,
    /// Run in the case's folder before the command (a FIFO, a symlink).
    setup: Option<fn(&Path)>,
}

fn case(name: &'static str, args: &[&str], needles: &[&str]) -> Case {
    Case {
        name,
        files: Vec::new(),
        args: args.iter().map(ToString::to_string).collect(),
        needles: needles.iter().map(ToString::to_string).collect(),
        setup: None,
    }
}

fn with_setup(mut c: Case, setup: fn(&Path)) -> Case {
    c.setup = Some(setup);
    c
}

fn with_file(mut c: Case, file: &'static str, bytes: impl Into<Vec<u8>>) -> Case {
    c.files.push((file, bytes.into()));
    c
}

/// A safetensors file whose header length field says `len`.
fn safetensors_raw(len: u64, header: &[u8]) -> Vec<u8> {
    [&len.to_le_bytes()[..], header].concat()
}

/// The committed nanoGPT fixture with one byte string replaced.
fn fixture_with(from: &[u8], to: &[u8]) -> Vec<u8> {
    let b = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nanogpt-tiny.safetensors"
    ))
    .unwrap();
    let at = b
        .windows(from.len())
        .position(|w| w == from)
        .expect("the fixture holds the string");
    [&b[..at], to, &b[at + from.len()..]].concat()
}

/// A little-endian .npy of `descr` and `shape` with `data` zero bytes.
fn npy(descr: &str, shape: &str, data: usize) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (h.len() + 11) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let len = u16::try_from(h.len()).unwrap().to_le_bytes();
    [
        &b"\x93NUMPY\x01\x00"[..],
        &len,
        h.as_bytes(),
        &vec![0u8; data],
    ]
    .concat()
}

/// A valid trace log of the lesson model, for mutating.
fn lesson_log() -> String {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .args(["trace", "--format", "json"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn cases() -> Vec<Case> {
    let log = lesson_log();
    let lines: Vec<&str> = log.lines().collect();
    let swapped = {
        let mut l = lines.clone();
        l.swap(2, 3);
        l.join("\n")
    };
    let two_headers = format!("{}\n{}", lines[0], log);
    let no_header = lines[1..].join("\n");
    let bad_event = log.replacen(
        "\"kind\":\"event\",\"step\":4,",
        "\"kind\":\"event\",\"step\":\"four\",",
        1,
    );
    let unknown_kind = log.replacen("\"kind\":\"summary\"", "\"kind\":\"epilogue\"", 1);
    let mut all = vec![
        // Dimensions.
        case(
            "zero d_model",
            &["check", "--d-model", "0"],
            &["d_model", "at least 1"],
        ),
        case("zero seq", &["check", "--seq", "0"], &["seq", "at least 1"]),
        // The families' block settings.
        case("negative soft cap", &["check", "--attn-softcap", "-1"], &["attn_softcap -1", "a finite number ≥ 0"]),
        case("soft cap not a number", &["check", "--logit-softcap", "x"], &["'x'", "a number ≥ 0"]),
        case("full_every without a window", &["check", "--full-every", "2"], &["full_every 2", "0 without a window"]),
        case("shared norm without parallel", &["check", "--shared-norm"], &["shared_norm true", "with parallel"]),
        case("rotary dims with learned positions", &["check", "--rotary-dims", "4"], &["rotary_dims", "rotary positions"]),
        case("query scale too large", &["check", "--query-scale", "99999999"], &["query_scale 99999999", "1..="]),
        case(
            "zero batch",
            &["check", "--batch", "0"],
            &["batch", "at least 1"],
        ),
        case(
            "zero heads",
            &["check", "--heads", "0"],
            &["heads", "at least 1"],
        ),
        case(
            "zero layers",
            &["check", "--layers", "0"],
            &["layers", "at least 1"],
        ),
        case(
            "zero d_ff",
            &["check", "--d-ff", "0"],
            &["d_ff", "at least 1"],
        ),
        case(
            "negative d_model",
            &["check", "--d-model", "-8"],
            &["'-8'", "whole number"],
        ),
        case(
            "negative layers",
            &["trace", "--layers", "-1"],
            &["'-1'", "whole number"],
        ),
        case(
            "fractional seq",
            &["check", "--seq", "2.5"],
            &["'2.5'", "whole number"],
        ),
        case(
            "huge seq",
            &["check", "--seq", "99999999999"],
            &["99999999999", "1..="],
        ),
        case(
            "huge d_model",
            &["check", "--d-model", "2000000"],
            &["2000000", "1..="],
        ),
        case(
            "memory limit not a size",
            &["check", "--max-memory", "banana"],
            &["'banana' is not a size", "allowed: a number with an optional unit"],
        ),
        case(
            "memory limit negative",
            &["check", "--max-memory", "-1GiB"],
            &["'-1GiB' is not a size", "at least 1 byte"],
        ),
        case(
            "memory",
            &["check", "--numeric", "--d-model", "65536", "--seq", "65536"],
            &["GiB", "limit"],
        ),
        case(
            "heads do not divide",
            &["check", "--heads", "5"],
            &["heads 5", "1, 2, 4, 8"],
        ),
        case(
            "kv-heads do not divide",
            &["check", "--kv-heads", "3"],
            &["kv-heads 3", "1, 2, 4"],
        ),
        case(
            "kv-heads above heads",
            &["check", "--kv-heads", "8"],
            &["kv-heads 8", "1, 2, 4"],
        ),
        // Names.
        case(
            "unknown activation",
            &["check", "--act", "tanh"],
            &["'tanh'", "relu, gelu, gelu-tanh, swiglu"],
        ),
        case(
            "unknown norm",
            &["check", "--norm", "batchnorm"],
            &["'batchnorm'", "layernorm, rmsnorm"],
        ),
        case(
            "unknown placement",
            &["check", "--placement", "middle"],
            &["'middle'", "pre, post"],
        ),
        case(
            "unknown dtype",
            &["check", "--dtype", "f8"],
            &["'f8'", "f32, f64, bf16, f16"],
        ),
        case(
            "unknown fault",
            &["check", "--fault", "oops"],
            &["'oops'", "ffn-no-down"],
        ),
        case(
            "unknown preset",
            &["check", "--preset", "gpt5"],
            &["'gpt5'", "lesson"],
        ),
        case(
            "unknown format",
            &["trace", "--format", "xml", "--out", "out.jsonl"],
            &["'xml'", "table, json, markdown, html"],
        ),
        case(
            "values on the html handout",
            &["trace", "--values", "--format", "html", "--out", "out.html"],
            &["--values", "--format json"],
        ),
        case(
            "html handout into a missing folder",
            &["trace", "--format", "html", "--out", "gone/t.html"],
            &["gone", "does not exist"],
        ),
        case(
            "html comparison of an unknown side",
            &["compare", "lesson", "nosuch", "--format", "html", "--out", "c.html"],
            &["RIGHT 'nosuch'", "lesson"],
        ),
        case(
            "unknown flag",
            &["check", "--heds", "4"],
            &["--heds", "--heads"],
        ),
        case(
            "unknown subcommand",
            &["frobnicate"],
            &["frobnicate", "--help"],
        ),
        case(
            "negative seed",
            &["check", "--seed", "-1"],
            &["'-1'", "whole number from 0"],
        ),
        case(
            "zero autoplay",
            &["--autoplay", "0"],
            &["--autoplay 0", "0.1 to 3600"],
        ),
        case(
            "split view beside an unknown model",
            &["--compare", "nope"],
            &["--compare 'nope'", "neither a preset nor a model file"],
        ),
        case(
            "split view with a subcommand",
            &["--compare", "lesson-gqa", "trace"],
            &["--compare", "no subcommand"],
        ),
        // Conflicts.
        case(
            "bias and no bias",
            &["params", "--bias", "--no-bias"],
            &["--bias", "--no-bias"],
        ),
        case(
            "tied and untied",
            &["params", "--tied", "--untied"],
            &["--tied", "--untied"],
        ),
        case(
            "fault needs biases",
            &["check", "--fault", "bias-w1-64", "--no-bias"],
            &["bias-w1-64", "--no-bias"],
        ),
        case(
            "fault needs 2 layers",
            &["check", "--fault", "skip-block1", "--layers", "1"],
            &["skip-block1", "2 layers"],
        ),
        case(
            "values on a table",
            &["trace", "--values", "--out", "out.txt"],
            &["--values", "--format json"],
        ),
        case(
            "seq over context",
            &["check", "--context", "2"],
            &["seq 4", "context 2"],
        ),
        // Lesson inputs.
        case(
            "ffn x not a number",
            &["ffn", "--x", "1,foo"],
            &["'foo'", "numbers separated by commas"],
        ),
        case(
            "ffn x wrong length",
            &["ffn", "--x", "1,2,3"],
            &["3 numbers", "exactly 2"],
        ),
        case(
            "norms x empty",
            &["norms", "--x", ""],
            &["empty", "numbers separated by commas"],
        ),
        case(
            "probe token out of range",
            &["probes", "--token", "4"],
            &["--token 4", "0..=3"],
        ),
        // Model files.
        with_file(
            case(
                "model file malformed",
                &["check", "--config", "m.toml"],
                &["m.toml:1:", "d_model"],
            ),
            "m.toml",
            "d_model = [64\n",
        ),
        with_file(
            case(
                "model file wrong type",
                &["check", "--config", "m.toml"],
                &["m.toml:1:11", "expected usize"],
            ),
            "m.toml",
            "d_model = \"big\"\n",
        ),
        with_file(
            case(
                "model file unknown key",
                &["check", "--config", "m.toml"],
                &["m.toml:2:1", "heds", "heads"],
            ),
            "m.toml",
            "d_model = 64\nheds = 4\n",
        ),
        with_file(
            case(
                "model file absurd size",
                &["check", "--config", "m.toml"],
                &["d_model 100000000", "1..="],
            ),
            "m.toml",
            "d_model = 100000000\n",
        ),
        with_file(
            case(
                "model file negative",
                &["check", "--config", "m.toml"],
                &["-4", "expected usize"],
            ),
            "m.toml",
            "d_model = -4\n",
        ),
        with_file(
            case(
                "model file duplicate key",
                &["check", "--config", "m.toml"],
                &["duplicate key", "d_model = 32"],
            ),
            "m.toml",
            "d_model = 64\nd_model = 32\n",
        ),
        with_file(
            case(
                "model file bad value",
                &["check", "--config", "m.toml"],
                &["heads 3", "m.toml"],
            ),
            "m.toml",
            "heads = 3\n",
        ),
        case(
            "model file missing",
            &["check", "--config", "missing.toml"],
            &["missing.toml", "No such file"],
        ),
        // Trace logs.
        case(
            "log missing",
            &["view", "gone.jsonl", "--format", "table"],
            &["gone.jsonl", "No such file"],
        ),
        // Devices are refused by name, never read.
        case(
            "weights endless device",
            &["check", "--weights", "/dev/zero", "--heads", "4"],
            &["cannot read /dev/zero", "it is a device", "allowed: a regular file"],
        ),
        case(
            "input endless device",
            &["check", "--input", "/dev/zero"],
            &["cannot read /dev/zero", "it is a device", "allowed: a regular file"],
        ),
        case(
            "log endless device",
            &["view", "/dev/zero", "--format", "table"],
            &["cannot read /dev/zero", "it is a device", "allowed: a regular file"],
        ),
        with_file(
            case(
                "log empty",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:1", "no header"],
            ),
            "t.jsonl",
            "",
        ),
        with_file(
            case(
                "log not json",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:1", "expected"],
            ),
            "t.jsonl",
            "hello\n",
        ),
        with_file(
            case(
                "log wrong schema",
                &["view", "t.jsonl", "--format", "table"],
                &["schema 9", "allowed: 1, 2, 3, 4"],
            ),
            "t.jsonl",
            log.replacen("\"schema\":4", "\"schema\":9", 1),
        ),
        with_file(
            case(
                "log no header",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:1", "header"],
            ),
            "t.jsonl",
            no_header,
        ),
        with_file(
            case(
                "log two headers",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:2", "second header"],
            ),
            "t.jsonl",
            two_headers,
        ),
        with_file(
            case(
                "log steps out of order",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:3", "out of order"],
            ),
            "t.jsonl",
            swapped,
        ),
        with_file(
            case(
                "log bad field type",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:6", "four"],
            ),
            "t.jsonl",
            bad_event,
        ),
        with_file(
            case(
                "log unknown kind",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:39", "epilogue"],
            ),
            "t.jsonl",
            unknown_kind,
        ),
        with_file(
            case(
                "log truncated",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:3", "EOF"],
            ),
            "t.jsonl",
            format!("{}\n{}\n{{\"kind\":\"event\",", lines[0], lines[1]),
        ),
        // Block settings a model file gives that would change nothing.
        with_file(case("logit cap without a vocabulary", &["check", "--config", "m.toml"], &["logit_softcap set", "only with a vocabulary"]), "m.toml", "logit_softcap = 30.0"),
        with_file(case("norm_bias on rmsnorm", &["check", "--config", "m.toml"], &["norm_bias true", "rmsnorm has no β"]), "m.toml", "norm = \"rmsnorm\"\nnorm_bias = true"),
        with_file(case("alibi in an encoder", &["check", "--config", "m.toml"], &["pos_emb alibi", "in an encoder"]), "m.toml", "preset = \"lesson-encoder\"\npos_emb = \"alibi\""),
        with_file(case("pooler untied", &["check", "--config", "m.toml"], &["tied false", "head pooler"]), "m.toml", "vocab = 9\nhead = \"pooler\"\ntied = false"),
        with_file(case("experts with a fused gate_up", &["check", "--config", "m.toml"], &["fused_gate_up true", "without experts"]), "m.toml", "preset = \"lesson-moe\"\nact = \"swiglu\"\nfused_gate_up = true"),
        // Hugging Face config.json.
        with_file(case("config.json unsupported model", &["check", "--config", "c.json"], &["'t5'", "gpt2, llama, mistral"]), "c.json", r#"{"model_type":"t5"}"#),
        with_file(case("config.json missing field", &["check", "--config", "c.json"], &["n_embd", "gpt2"]), "c.json", r#"{"model_type":"gpt2"}"#),
        with_file(case("config.json malformed", &["check", "--config", "c.json"], &["c.json", "not valid JSON"]), "c.json", r#"{"model_type":"#),
        // safetensors checkpoints.
        case("weights missing", &["check", "--weights", "w.safetensors", "--heads", "4"], &["w.safetensors", "No such file"]),
        with_file(case("weights truncated", &["check", "--weights", "w.safetensors", "--heads", "4"], &["4 bytes", "8-byte header length"]), "w.safetensors", "abcd"),
        with_file(case("weights header beyond the file", &["check", "--weights", "w.safetensors", "--heads", "4"], &["a header of 1000 bytes", "not a safetensors file"]), "w.safetensors", safetensors_raw(1000, b"{}")),
        with_file(case("weights header not JSON", &["check", "--weights", "w.safetensors", "--heads", "4"], &["w.safetensors", "bad header"]), "w.safetensors", safetensors_raw(5, b"hello")),
        with_file(case("weights offsets out of range", &["check", "--weights", "w.safetensors", "--heads", "4"], &["256 data bytes", "holds 0"]), "w.safetensors", safetensors_raw(83, br#"{"transformer.h.0.ln_1.weight":{"dtype":"F32","shape":[64],"data_offsets":[0,256]}}"#)),
        with_file(case("weights wrong dtype", &["check", "--weights", "w.safetensors", "--heads", "4"], &["w.safetensors", "data type"]), "w.safetensors", fixture_with(br#"c_attn.weight":{"dtype":"F32""#, br#"c_attn.weight":{"dtype":"I64""#)),
        with_file(case("weights duplicate names", &["check", "--weights", "w.safetensors", "--heads", "4"], &["w.safetensors", "twice"]), "w.safetensors", fixture_with(b"h.0.ln_2.weight", b"h.0.ln_1.weight")),
        with_file(case("weights wrong shape", &["check", "--weights", "w.safetensors", "--heads", "4"], &["expected (64,64)", "found (256,64)"]), "w.safetensors", fixture_with(b"\"shape\":[192,64]", b"\"shape\":[64,192]")),
        // .npy inputs.
        with_file(case("input wrong shape", &["check", "--input", "x.npy"], &["(2,4,32)", "d_model 64"]), "x.npy", npy("<f4", "(2, 4, 32)", 2 * 4 * 32 * 4)),
        with_file(case("input against --seq", &["check", "--input", "x.npy", "--seq", "3"], &["--seq 3 contradicts --input x.npy, whose T is 4", "allowed: --seq 4, or no --seq"]), "x.npy", npy("<f4", "(2, 4, 64)", 2 * 4 * 64 * 4)),
        with_file(case("input against --batch", &["check", "--input", "x.npy", "--batch", "1"], &["--batch 1 contradicts --input x.npy, whose B is 2"]), "x.npy", npy("<f4", "(2, 4, 64)", 2 * 4 * 64 * 4)),
        with_file(case("input wrong dtype", &["check", "--input", "x.npy"], &["'<f8'", "'<f4'"]), "x.npy", npy("<f8", "(2, 4, 64)", 2 * 4 * 64 * 8)),
        with_file(case("input corrupt", &["check", "--input", "x.npy"], &["x.npy", "not a valid .npy"]), "x.npy", b"\x93NUMPY garbage".to_vec()),
        case("input missing", &["check", "--input", "x.npy"], &["x.npy", "No such file"]),
        case("bad memory size", &["check", "--max-memory", "4XB"], &["'4XB'", "4GiB"]),
        with_file(case("log with a wrong stream shape", &["view", "t.jsonl", "--format", "table"], &["t.jsonl:1", "stream_shape"]), "t.jsonl", log.replacen("\"stream_shape\":[2,4,64]", "\"stream_shape\":[2,4,65]", 1)),
        case("too many elements", &["check", "--shape-only", "--batch", "1048576", "--seq", "1048576"], &["elements", "2^48"]),
        case("probes on a large model", &["probes", "--preset", "gpt2-small"], &["too large to re-run", "limit"]),
        with_file(case("params with weights", &["params", "--weights", "w.safetensors", "--heads", "4"], &["--weights", "allowed"]), "w.safetensors", fixture_with(b"h.0.", b"h.0.")),
        // Outputs.
        case(
            "out in a missing folder",
            &["trace", "--out", "nope/t.jsonl"],
            &["nope/t.jsonl", "does not exist"],
        ),
        case(
            "out is a folder",
            &["trace", "--out", "."],
            &["--out .", "folder"],
        ),
    ];
    all.extend(files::cases());
    all.extend(memory::cases(&log));
    all.extend(messages::cases());
    all
}

/// The names in `dir`, hidden ones too.
fn names_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_bad_input_is_answered_with_one_line_and_exit_code_2() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in &c.files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let before: Vec<String> = names_in(dir.path());
        if let Some(setup) = c.setup {
            setup(dir.path());
        }
        let made: Vec<String> = names_in(dir.path())
            .into_iter()
            .filter(|n| !before.contains(n))
            .collect();
        let out = Command::cargo_bin("shapetrace")
            .unwrap()
            .current_dir(dir.path())
            .args(&c.args)
            .timeout(CASE_TIMEOUT)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let mut wrong = Vec::new();
        if out.status.code() != Some(2) {
            wrong.push(format!("exit {:?}", out.status.code()));
        }
        if err.trim_end().lines().count() != 1 {
            wrong.push("not one line".to_string());
        }
        // No control character (C0, DEL or C1; ESC above all) but the
        // closing newline reaches the terminal.
        if err.trim_end_matches('\n').chars().any(char::is_control) {
            wrong.push("a raw control character".to_string());
        }
        if err.contains("panicked") {
            wrong.push("panicked".to_string());
        }
        for n in &c.needles {
            if !err.contains(n) {
                wrong.push(format!("no '{n}'"));
            }
        }
        let left: Vec<String> = names_in(dir.path())
            .into_iter()
            .filter(|f| !c.files.iter().any(|(n, _)| n == f) && !made.contains(f))
            .collect();
        if !left.is_empty() {
            wrong.push(format!("left files {left:?}"));
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}: {} — stderr: {}",
                c.name,
                wrong.join(", "),
                err.trim_end()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases wrong:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
