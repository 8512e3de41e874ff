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
            "by_component",
            "block",
            "ffn_attention_ratio",
            "flops",
            "bytes"
        ])
    );
    assert_eq!(
        keys(&v["non_embedding"]),
        sorted(&["minus_position", "minus_all"])
    );
    assert_eq!(
        keys(&v["block"]),
        sorted(&[
            "attention_weights",
            "mlp_weights",
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
            &["7.9 GiB", "--max-memory limit of 4.0 GiB"],
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
