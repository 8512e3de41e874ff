//! The `params`, `ffn` and `norms` subcommands as a user runs them.

use std::process::{Command, Output};

fn shapetrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs `args`, expects exit 0 and every needle in stdout.
fn prints(args: &[&str], needles: &[&str]) {
    let o = shapetrace(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}");
    let out = stdout(&o);
    for needle in needles {
        assert!(
            out.contains(needle),
            "{args:?}: '{needle}' missing in\n{out}"
        );
    }
}

#[test]
fn params_gpt2_small_prints_124439808_with_the_breakdown() {
    prints(
        &["params", "--preset", "gpt2-small"],
        &[
            "gpt2-small: 124,439,808 parameters",
            "✓ matches the closed form",
            "block.attn.q_proj.weight",
            "4·d² = 4·768² = 2,359,296",
            "7,087,872",
            "V·d = 50,257·768 = 38,597,376",
            "tied to wte = 0",
            "14,155,776",
            "3,145,728",
            "MLP 54.5%",
            "6·N + 12·L·H·Q·T",
            "bf16",
        ],
    );
}

#[test]
fn params_json_has_exactly_the_contract_keys() {
    let o = shapetrace(&["params", "--preset", "gpt2-small", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let sorted = |k: &[&str]| {
        let mut k: Vec<String> = k.iter().map(|s| (*s).to_string()).collect();
        k.sort();
        k
    };
    let keys = |v: &serde_json::Value| {
        let k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        sorted(&k)
    };
    assert_eq!(
        keys(&v),
        sorted(&[
            "total",
            "total_no_bias",
            "non_embedding",
            "active_per_token",
            "by_component",
            "block",
            "ffn_attention_ratio",
            "flops",
            "bytes",
            "kv_cache"
        ])
    );
    assert_eq!(
        keys(&v["non_embedding"]),
        sorted(&["minus_position", "minus_all", "minus_all_and_head"])
    );
    assert_eq!(
        keys(&v["block"]),
        sorted(&[
            "attention_weights",
            "mlp_weights",
            "mlp_active_weights",
            "attention",
            "mlp",
            "norms",
            "total",
            "total_no_bias"
        ])
    );
    let flops = sorted(&[
        "seq",
        "per_token_per_block",
        "ffn_share",
        "forward_per_token",
        "training_per_token",
    ]);
    assert_eq!(keys(&v["flops"]), flops);
    assert_eq!(
        keys(&v["flops"]["per_token_per_block"]),
        sorted(&["matmul", "attention_full", "attention_causal", "total"])
    );
    assert_eq!(
        keys(&v["bytes"]),
        sorted(&["dtype", "weights", "activations"])
    );
    for r in v["by_component"].as_array().unwrap() {
        assert_eq!(keys(r), sorted(&["path", "count", "formula"]));
    }
    assert_eq!(v["total"], 124_439_808);
    assert_eq!(v["flops"]["per_token_per_block"]["total"], 17_301_504);
    assert_eq!(v["bytes"]["dtype"], "f32");
    let f16 = shapetrace(&["params", "--format", "json", "--bytes-dtype", "f16"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&f16)).unwrap();
    assert_eq!(v["bytes"]["dtype"], "f16");
    assert_eq!(v["bytes"]["weights"], 2 * v["total"].as_u64().unwrap());
}

#[test]
fn ffn_prints_the_worked_example_and_its_variant() {
    prints(
        &["ffn"],
        &[
            "z_3 = 1*(-1) + 2*1 = 1",
            "z = [1, 4, 1]",
            "h = [1, 4, 1]",
            "y_1 = 1*1 + 4*0 + 1*(-1) = 0",
            "y = [0, 5]",
            "x + y = [1, 2] + [0, 5] = [1, 7]",
        ],
    );
    prints(
        &["ffn", "--x", "2,-1"],
        &[
            "z = [2, -2, -3]",
            "h = [2, 0, 0]: units 2 and 3 are switched off",
            "y = [2, 0]",
        ],
    );
}

#[test]
fn norms_prints_layernorm_against_rmsnorm() {
    let out = stdout(&shapetrace(&["norms"]));
    assert!(
        out.contains("= [-1, 1]") && out.contains("[3, 4] / √12.5"),
        "{out}"
    );
    let out = stdout(&shapetrace(&["norms", "--x", "1,2,3"]));
    assert!(out.contains("mean     = (1 + 2 + 3) / 3 = 2"), "{out}");
}

#[test]
fn no_out_proj_fails_only_the_params_and_reference_checks() {
    let o = shapetrace(&["check", "--fault", "no-out-proj"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("2 of 10 checks fail"), "{out}");
    assert!(
        out.contains("✗ params") && out.contains("block1.attn") && out.contains("✗ reference"),
        "{out}"
    );
    assert!(
        out.contains("✓ op-shapes") && out.contains("✓ residual"),
        "{out}"
    );
}

#[test]
fn bad_lab_input_gets_one_line_and_exit_2() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["ffn", "--x", "1,foo"],
            &["'foo'", "1,foo", "numbers separated by commas"],
        ),
        (
            &["ffn", "--x", "1,2,3"],
            &["1,2,3", "3 numbers", "exactly 2"],
        ),
        (&["norms", "--x", ""], &["empty", "3,4"]),
        (&["norms", "--x", "nan"], &["'nan'", "finite"]),
        (
            &["params", "--preset", "gpt2-small", "--seq", "2048"],
            &["seq 2048", "context 1024"],
        ),
        (&["params", "--vocab", "-3"], &["-3", "whole number from 0"]),
        (
            &["params", "--bytes-dtype", "f8"],
            &["'f8'", "f32, f16, bf16, f64"],
        ),
        (
            &["check", "--preset", "gpt2-xl", "--numeric"],
            &["8.8 GiB", "--max-memory limit of 4.0 GiB"],
        ),
    ];
    for (args, needles) in cases {
        let o = shapetrace(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        for n in *needles {
            assert!(err.contains(n), "{args:?}: '{n}' not in {err}");
        }
    }
}

#[test]
fn probes_show_the_leak_of_a_missing_mask_and_exit_1() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shapetrace"))
            .args(args)
            .output()
            .unwrap()
    };
    let ok = run(&["probes", "--token", "1"]);
    assert_eq!(ok.status.code(), Some(0));
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(
        text.contains("✓ causality holds for token 1")
            && !text.lines().skip(1).any(|l| l.contains('✗')),
        "{text}"
    );
    let bad = run(&["probes", "--token", "1", "--fault", "no-causal-mask"]);
    assert_eq!(bad.status.code(), Some(1));
    let text = String::from_utf8_lossy(&bad.stdout);
    assert!(text.contains("block1.attn.weights  b0 ✗ ● ● ●"), "{text}");
    let pw = run(&[
        "probes",
        "--kind",
        "positionwise",
        "--fault",
        "norm-over-seq",
    ]);
    assert_eq!(pw.status.code(), Some(1));
    let out_of_range = run(&["probes", "--token", "4"]);
    assert_eq!(out_of_range.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out_of_range.stderr)
            .contains("--token 4 is out of range; allowed: 0..=3")
    );
}

// ---- lesson 5.3's FFN lab ------------------------------------------------

use ndarray::{Array1, Array2, array};

/// The numbers of the first `[…]` after `key` in `line`.
fn vec_after(line: &str, key: &str) -> Vec<f64> {
    let at = line
        .find(key)
        .unwrap_or_else(|| panic!("'{key}' not in {line}"))
        + key.len();
    let rest = &line[at..];
    let (open, close) = (rest.find('[').unwrap(), rest.find(']').unwrap());
    rest[open + 1..close]
        .split(',')
        .map(|v| v.trim().parse().unwrap())
        .collect()
}

/// The first line of `out` containing `needle`.
fn line_with<'a>(out: &'a str, needle: &str) -> &'a str {
    out.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("'{needle}' not in\n{out}"))
}

/// relu(x·W1)·W2 on the rows of x, computed here with ndarray.
fn mlp(x: &Array2<f64>, w1: &Array2<f64>, w2: &Array2<f64>) -> Array2<f64> {
    x.dot(w1).mapv(|v| v.max(0.0)).dot(w2)
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| (p - q).abs() < 1e-3)
}

const WALK: [&str; 7] = ["ffn", "--x", "1,-2", "--w1", "1,1;0,-1", "--w2", "1;1"];

#[test]
fn ffn_walkthrough_reaches_4_and_shows_why_it_cannot_sit_on_the_stream() {
    let out = stdout(&shapetrace(&WALK));
    let want = mlp(
        &array![[1., -2.]],
        &array![[1., 1.], [0., -1.]],
        &array![[1.], [1.]],
    );
    assert_eq!(want.row(0).to_vec(), [4.0]);
    assert_eq!(
        vec_after(line_with(&out, "   y = ["), "y = "),
        want.row(0).to_vec()
    );
    assert!(out.contains("z_2 = 1*1 + (-2)*(-1) = 3"), "{out}");
    let residual = line_with(&out, "(2) + (1)");
    assert!(
        residual.contains("x has 2 features, y has 1")
            && residual.contains("cannot sit on a residual stream"),
        "{residual}"
    );
    // A W2 that maps back to d = 2 adds, with no such line.
    let ok = stdout(&shapetrace(&[
        "ffn", "--x", "1,-2", "--w1", "1,1;0,-1", "--w2", "1,0;0,1",
    ]));
    assert!(
        ok.contains("x + y = [1, -2] + [1, 3] = [2, 1]") && !ok.contains("cannot sit"),
        "{ok}"
    );
}

#[test]
fn ffn_counts_64_96_and_128_with_their_formulas() {
    let out = stdout(&shapetrace(&["ffn", "--d", "4", "--f", "8"]));
    for needle in [
        "2·d·f = 2·4·8 = 64",
        "3·d·f = 3·4·8 = 96",
        "4·d² + 2·d·f = 4·4² + 2·4·8 = 64 + 64 = 128",
        "no biases",
    ] {
        assert!(out.contains(needle), "'{needle}' not in\n{out}");
    }
    // The counts follow d and f: f = 9 is not 64.
    let out = stdout(&shapetrace(&["ffn", "--d", "4", "--f", "9"]));
    assert!(
        out.contains("2·d·f = 2·4·9 = 72") && !out.contains("= 64 + 64"),
        "{out}"
    );
    // The seeded matrices have the asked shapes.
    assert!(line_with(&out, "W1 = ").contains("(4×9"), "{out}");
}

#[test]
fn ffn_refuses_bad_sizes_and_matrices_on_one_line_with_exit_2() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["ffn", "--d", "17"], &["d = 17", "1 to 16"]),
        (&["ffn", "--f", "0"], &["f = 0", "1 to 16"]),
        (
            &["ffn", "--d", "3", "--w1", "1,1;0,-1"],
            &["d = 3", "so d = 2"],
        ),
        (
            &["ffn", "--f", "3", "--w1", "1,1;0,-1"],
            &["f = 3", "so f = 2"],
        ),
        (
            &["ffn", "--w1", "1,1;0,-1", "--w2", "1;1;1"],
            &["W2", "3 rows", "2 rows"],
        ),
        (
            &["ffn", "--w1", "1,1;0"],
            &["'1,1;0'", "ragged", "row 2 has 1 number"],
        ),
        (
            &["ffn", "--w1", "1,a;0,1"],
            &["'1,a;0,1'", "'a'", "not a finite number"],
        ),
        (&["ffn", "--w2", ""], &["W2", "empty"]),
        (&["ffn", "--w1", "1,nan;0,1"], &["'nan'", "finite"]),
        (&["ffn", "--x", "inf,1"], &["'inf'", "finite"]),
        (
            &["ffn", "--d", "4", "--x", "1,2"],
            &["x = 1,2", "exactly 4"],
        ),
        (&["ffn", "--gated", "--w1", "1,1"], &["--w1", "--gated"]),
        (
            &["ffn", "--mistake", "cols"],
            &["'cols'", "rows, relu-after-w2"],
        ),
    ];
    for (args, needles) in cases {
        let o = shapetrace(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: half a sheet printed");
        for n in *needles {
            assert!(err.contains(n), "{args:?}: '{n}' not in {err}");
        }
    }
}

#[test]
fn ffn_refuses_values_that_overflow_f64() {
    let o = shapetrace(&["ffn", "--x", "1e308,1e308"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("1e308") && err.contains("overflows"), "{err}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("inf"));
    // Large values whose products stay finite are worked, exactly.
    let out = stdout(&shapetrace(&["ffn", "--x", "1e150,1e150"]));
    assert_eq!(
        vec_after(line_with(&out, "   z = ["), "z = "),
        [1e150, 2e150, 0.0]
    );
}

#[test]
fn each_mistake_changes_the_numbers_as_the_wrong_formula_does() {
    // rows: x·W1ᵀ instead of x·W1, on the walk-through.
    let mut args = WALK.to_vec();
    args.extend(["--mistake", "rows"]);
    let out = stdout(&shapetrace(&args));
    let (x, w1, w2) = (
        array![[1., -2.]],
        array![[1., 1.], [0., -1.]],
        array![[1.], [1.]],
    );
    let (wrong, right) = (mlp(&x, &w1.t().to_owned(), &w2), mlp(&x, &w1, &w2));
    let line = line_with(&out, "✗ mistake rows");
    let y_at = line.find("y = ").unwrap();
    assert_eq!(vec_after(&line[y_at..], "y = "), wrong.row(0).to_vec());
    assert_eq!(vec_after(&line[y_at..], "(correct "), right.row(0).to_vec());
    assert_ne!(wrong, right);
    // relu-after-w2: relu(x·W1·W2) instead of relu(x·W1)·W2, on the lesson's matrices.
    let out = stdout(&shapetrace(&[
        "ffn",
        "--x",
        "2,-1",
        "--mistake",
        "relu-after-w2",
    ]));
    let (x, w1, w2) = (
        array![[2., -1.]],
        array![[1., 0., -1.], [0., 2., 1.]],
        array![[1., 0.], [0., 1.], [-1., 1.]],
    );
    let wrong = x.dot(&w1).dot(&w2).mapv(|v: f64| v.max(0.0));
    let right = mlp(&x, &w1, &w2);
    assert_ne!(wrong, right);
    let line = line_with(&out, "✗ mistake relu-after-w2");
    let y_at = line.find("y = ").unwrap();
    assert_eq!(vec_after(&line[y_at..], "y = "), wrong.row(0).to_vec());
    assert_eq!(vec_after(&line[y_at..], "(correct "), right.row(0).to_vec());
    // Without --mistake the same x gives the right numbers and no ✗ line.
    let out = stdout(&shapetrace(&["ffn", "--x", "2,-1"]));
    assert!(!out.contains("✗ mistake"));
    assert_eq!(
        vec_after(line_with(&out, "   y = ["), "y = "),
        right.row(0).to_vec()
    );
}

#[test]
fn gated_ffn_matches_silu_gate_times_up_then_down() {
    let out = stdout(&shapetrace(&[
        "ffn", "--gated", "--x", "1,-2", "--wg", "1,1;0,-1", "--wu", "2,0;1,1", "--wd", "1,0;0,1",
    ]));
    let silu = |v: f64| v / (1.0 + (-v).exp());
    let x = array![[1., -2.]];
    let g = x.dot(&array![[1., 1.], [0., -1.]]).mapv(silu);
    let u = x.dot(&array![[2., 0.], [1., 1.]]);
    let y = (g * u).dot(&array![[1., 0.], [0., 1.]]);
    assert!(
        close(
            &vec_after(line_with(&out, "   y = ["), "y = "),
            &y.row(0).to_vec()
        ),
        "{out}"
    );
    assert!(out.contains("3·d·f = 3·2·2 = 12"), "{out}");
}

#[test]
fn ffn_answers_predict_first_with_the_positionwise_probe() {
    let out = stdout(&shapetrace(&WALK));
    assert!(
        out.contains(
            "Predict first: does a position-wise MLP directly average neighbouring tokens?"
        )
    );
    let (w1, w2) = (array![[1., 1.], [0., -1.]], array![[1.], [1.]]);
    // Each token's printed y is the MLP of its own x alone, before and after.
    let mut unchanged = 0;
    for t in 0..3 {
        let line = line_with(&out, &format!("token {t}  x = "));
        let xs = vec_after(line, "x = ");
        let x = Array2::from_shape_vec((1, 2), xs).unwrap();
        let ys = &line[line.find("y = ").unwrap()..];
        let (before, after) = (vec_after(ys, "y = "), vec_after(ys, "→ "));
        assert_eq!(before, mlp(&x, &w1, &w2).row(0).to_vec(), "{line}");
        if t == 1 {
            let moved = &x + &Array1::from_elem(2, 1.0);
            assert!(line.contains("● changed"), "{line}");
            assert_ne!(before, after);
            assert_eq!(after, mlp(&moved, &w1, &w2).row(0).to_vec());
        } else {
            assert_eq!(before, after, "{line}");
            assert!(line.contains("· unchanged"), "{line}");
            unchanged += 1;
        }
    }
    assert_eq!(unchanged, 2);
    assert!(line_with(&out, "Answer:").contains("Answer: no."), "{out}");
}

#[test]
fn ffn_draws_missing_matrices_from_the_seed_and_keeps_the_lesson_default() {
    let w1 = |args: &[&str]| line_with(&stdout(&shapetrace(args)), "W1 = ").to_string();
    let lesson = "W1 = [[1, 0, -1], [0, 2, 1]]";
    assert!(w1(&["ffn"]).starts_with(lesson));
    assert!(w1(&["ffn", "--d", "2", "--f", "3"]).starts_with(lesson));
    let (one, again, two) = (
        w1(&["ffn", "--seed", "1"]),
        w1(&["ffn", "--seed", "1"]),
        w1(&["ffn", "--seed", "2"]),
    );
    assert_eq!(one, again, "a seed draws the same matrices");
    assert_ne!(one, two, "another seed draws others");
    assert!(!one.starts_with(lesson) && one.contains("(2×3"), "{one}");
    // A given W1 with a drawn W2 of the matching shape.
    let out = stdout(&shapetrace(&["ffn", "--x", "1,-2", "--w1", "1,1,0;0,-1,2"]));
    assert!(line_with(&out, "W2 = ").contains("(3×2"), "{out}");
}
