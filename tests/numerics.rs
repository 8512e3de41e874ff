//! The numeric ops against hand-computed cases.

use ndarray::{ArrayD, IxDyn};
use shapetrace::config::NormKind;
use shapetrace::ops::numeric::{Numeric, Tensor};
use shapetrace::ops::{Backend, Fusion, Masking, NormAxis, Op, OpKind, Unary};
mod common;

fn arr(shape: &[usize], v: &[f64]) -> Tensor<f64> {
    ArrayD::from_shape_vec(IxDyn(shape), v.to_vec())
        .unwrap()
        .into()
}

fn norm(kind: NormKind, x: &[f64]) -> Vec<f64> {
    let b = Numeric::<f64>::new();
    let op = Op::Norm {
        kind,
        axis: NormAxis::Feature,
        eps: 1e-12,
    };
    let ones = arr(&[x.len()], &vec![1.0; x.len()]);
    b.apply(&op, &[&arr(&[1, 1, x.len()], x), &ones])
        .unwrap()
        .array()
        .iter()
        .copied()
        .collect()
}

/// `got`'s min, max, mean and std each within `tol` (relative, past 1) of
/// `want`'s.
fn stats_close(got: shapetrace::ops::Stats, want: shapetrace::ops::Stats, tol: f64, what: &str) {
    for (a, c) in [
        (got.min, want.min),
        (got.max, want.max),
        (got.mean, want.mean),
        (got.std, want.std),
    ] {
        assert!(
            (a - c).abs() <= tol * (1.0 + c.abs()),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
    }
}

#[test]
fn layernorm_of_3_4_is_minus_1_1() {
    close(&norm(NormKind::LayerNorm, &[3.0, 4.0]), &[-1.0, 1.0]);
}

#[test]
fn rmsnorm_of_3_4_is_3_4_over_root_12_5() {
    let r = 12.5_f64.sqrt();
    close(&norm(NormKind::RmsNorm, &[3.0, 4.0]), &[3.0 / r, 4.0 / r]);
}

#[test]
fn gelu_is_the_exact_erf_form_and_gelu_tanh_the_approximation() {
    let b = Numeric::<f64>::new();
    let x = arr(&[3], &[-1.0, 0.0, 1.0]);
    let exact: Vec<f64> = b
        .apply(&Op::Act(Unary::Gelu), &[&x])
        .unwrap()
        .array()
        .iter()
        .copied()
        .collect();
    // torch.nn.GELU()(torch.tensor([-1., 0., 1.], dtype=torch.float64))
    close(
        &exact,
        &[-0.158_655_253_931_457_05, 0.0, 0.841_344_746_068_542_9],
    );
    let tanh: Vec<f64> = b
        .apply(&Op::Act(Unary::GeluTanh), &[&x])
        .unwrap()
        .array()
        .iter()
        .copied()
        .collect();
    close(
        &tanh,
        &[-0.158_808_009_391_723_2, 0.0, 0.841_191_990_608_276_8],
    );
}

#[test]
fn attention_weights_rows_sum_to_one_and_masked_cells_are_exactly_zero() {
    let values = shapetrace::Request {
        values: true,
        ..shapetrace::Request::default()
    };
    let t = shapetrace::trace_request(&shapetrace::ModelConfig::default(), &values)
        .unwrap()
        .trace;
    let w = t.get("block1.attn.weights").unwrap();
    let v = w.values.as_ref().unwrap();
    let n = w.shape[3];
    for (r, row) in v.chunks(n).enumerate() {
        let i = r % w.shape[2]; // query position
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-6, "row {r}");
        for (j, &x) in row.iter().enumerate() {
            if j > i {
                assert_eq!(x, 0.0, "masked cell ({i},{j}) of row {r}");
            } else {
                assert!(x > 0.0);
            }
        }
    }
}

#[test]
fn a_bare_reshape_is_not_a_merge() {
    let b = Numeric::<f64>::new();
    // (B=1, h=2, T=2, hd=1): head 0 = [a, b], head 1 = [c, d].
    let x = arr(&[1, 2, 2, 1], &[1.0, 2.0, 3.0, 4.0]);
    let merged: Vec<f64> = b
        .apply(&Op::MergeHeads(shapetrace::ops::Merge::Transpose), &[&x])
        .unwrap()
        .array()
        .iter()
        .copied()
        .collect();
    let reshaped: Vec<f64> = b
        .apply(&Op::MergeHeads(shapetrace::ops::Merge::BareReshape), &[&x])
        .unwrap()
        .array()
        .iter()
        .copied()
        .collect();
    assert_eq!(merged, [1.0, 3.0, 2.0, 4.0]); // token t = [head0[t], head1[t]]
    assert_eq!(reshaped, [1.0, 2.0, 3.0, 4.0]); // token 0 = head 0 at both positions
}

#[test]
fn ops_refuse_shapes_that_do_not_fit_without_panicking() {
    let b = Numeric::<f64>::new();
    let x = arr(&[1, 2, 3], &[0.0; 6]);
    let w = arr(&[4, 5], &[0.0; 20]);
    let e = b.apply(&Op::Linear, &[&x, &w]).unwrap_err();
    assert!(e.0.contains("(1,2,3) · (4,5)"), "{e}");
    let e = b
        .apply(&Op::Add, &[&x, &arr(&[1, 2, 4], &[0.0; 8])])
        .unwrap_err();
    assert!(e.0.contains("(1,2,3) and (1,2,4) differ"), "{e}");
}

#[test]
fn stats_taken_inside_the_kernels_equal_stats_read_afterwards() {
    use shapetrace::ops::Init;
    let b = Numeric::<f32>::new();
    let x = b.normal(&[2, 40, 96], 1);
    let w = b.param(&[96, 96], Init::Normal(0.1), 2);
    let g = b.param(&[96], Init::Normal(1.0), 3);
    let q = b.normal(&[2, 3, 40, 32], 4);
    let norm = Op::Norm {
        kind: NormKind::LayerNorm,
        axis: NormAxis::Feature,
        eps: 1e-5,
    };
    let cases: Vec<(Op, Vec<&Tensor<f32>>)> = vec![
        (Op::Linear, vec![&x, &w, &g]),
        (norm, vec![&x, &g, &g]),
        (Op::Act(Unary::GeluTanh), vec![&x]),
        (Op::Add, vec![&x, &x]),
        (Op::Scores { head_dim: 32 }, vec![&q, &q]),
        (
            Op::Softmax {
                mask: Masking::Causal,
            },
            vec![&q],
        ),
        (
            Op::SplitHeads {
                heads: 3,
                axis: "h".into(),
            },
            vec![&x],
        ),
        (Op::MergeHeads(shapetrace::ops::Merge::Transpose), vec![&q]),
    ];
    for (op, ins) in cases {
        let y = b.apply(&op, &ins).unwrap();
        if let Op::SplitHeads { .. } = op {
            // (2,40,96) → (2,3,40,32): head 1 of token 5 is x[.., 5, 32..64].
            assert_eq!(y.array()[[1, 1, 5, 7]], x.array()[[1, 5, 32 + 7]]);
        }
        let (fused, _) = b.summary(&y).unwrap();
        let (read, _) = b.summary(&y.clone()).unwrap(); // another address: read afresh
        stats_close(fused, read, 1e-6, &format!("{op:?}"));
        assert_eq!(fused.finite, read.finite);
    }
}

/// A decode step's one token, rotated from `start`, turns as the same row
/// at that position of the whole sequence does; from 0 it does not.
#[test]
fn rope_from_a_start_turns_a_row_as_its_position_in_the_whole_sequence() {
    let b = Numeric::<f64>::new();
    let rope = |start| Op::Rope {
        theta: 10_000.0,
        scaling: None,
        dims: 8,
        start,
    };
    let x = b.normal(&[1, 2, 6, 8], 3).into_array();
    let whole = b
        .apply(&rope(0), &[&x.clone().into()])
        .unwrap()
        .into_array();
    let last = x.slice(ndarray::s![.., .., 5..6, ..]).to_owned().into_dyn();
    let step = b
        .apply(&rope(5), &[&last.clone().into()])
        .unwrap()
        .into_array();
    let want = whole.slice(ndarray::s![.., .., 5..6, ..]);
    assert!(
        step.iter()
            .zip(want.iter())
            .all(|(a, w)| (a - w).abs() < 1e-12)
    );
    let at_zero = b.apply(&rope(0), &[&last.into()]).unwrap().into_array();
    assert!(
        at_zero
            .iter()
            .zip(want.iter())
            .any(|(a, w)| (a - w).abs() > 1e-3)
    );
}

/// Masks sit at the bottom right: of Tq queries over Tk keys, row i is
/// position i + Tk − Tq. A decode step's one row reads every cached key;
/// aligned at the top left (`decode-mask-top-left`) it reads key 0 alone.
#[test]
fn masks_align_a_short_query_block_with_the_last_keys() {
    use shapetrace::ops::Masking;
    assert_eq!(Masking::Causal.keys(0, 1, 7), 0..7);
    assert_eq!(Masking::Window(3).keys(0, 1, 7), 4..7);
    assert_eq!(Masking::TopLeft.keys(0, 1, 7), 0..1);
    // Square, the alignments agree: the training-time mask.
    for t in 0..4 {
        assert_eq!(
            Masking::Causal.keys(t, 4, 4),
            Masking::TopLeft.keys(t, 4, 4)
        );
        assert_eq!(Masking::Causal.keys(t, 4, 4), 0..t + 1);
    }
}

#[test]
fn rope_turns_each_pair_by_position_times_frequency() {
    let b = Numeric::<f64>::new();
    let (t, hd) = (5, 8);
    let x = b.normal(&[1, 2, t, hd], 9);
    let y = b
        .apply(
            &Op::Rope {
                theta: 10_000.0,
                scaling: None,
                dims: hd,
                start: 0,
            },
            &[&x],
        )
        .unwrap();
    let (x, y) = (x.into_array(), y.into_array());
    for h in 0..2 {
        for pos in 0..t {
            for i in 0..hd / 2 {
                let a = pos as f64 * 10_000f64.powf(-2.0 * i as f64 / hd as f64);
                let (x1, x2) = (x[[0, h, pos, i]], x[[0, h, pos, i + hd / 2]]);
                let want = [x1 * a.cos() - x2 * a.sin(), x2 * a.cos() + x1 * a.sin()];
                let got = [y[[0, h, pos, i]], y[[0, h, pos, i + hd / 2]]];
                assert!((want[0] - got[0]).abs() < 1e-12 && (want[1] - got[1]).abs() < 1e-12);
            }
        }
    }
    // Position 0 is left alone; an odd head size is refused.
    assert_eq!(
        y.slice(ndarray::s![.., .., 0, ..]),
        x.slice(ndarray::s![.., .., 0, ..])
    );
    let odd = b.normal(&[1, 1, 2, 3], 1);
    assert!(
        b.apply(
            &Op::Rope {
                theta: 10_000.0,
                scaling: None,
                dims: 2,
                start: 0,
            },
            &[&odd],
        )
        .is_err()
    );
}

/// Partial rotary (GPT-NeoX): the first `dims` features turn as a head of
/// `dims` would, with frequencies over `dims`; the rest pass unchanged. An
/// odd or oversized share is refused.
#[test]
fn partial_rope_turns_the_first_dims_and_leaves_the_rest() {
    let b = Numeric::<f64>::new();
    let (t, hd, dims) = (5, 8, 4);
    let x = b.normal(&[1, 2, t, hd], 9);
    let rope = |dims| Op::Rope {
        theta: 10_000.0,
        scaling: None,
        dims,
        start: 0,
    };
    let y = b.apply(&rope(dims), &[&x]).unwrap().into_array();
    let x = x.into_array();
    let first = x
        .slice(ndarray::s![.., .., .., ..dims])
        .to_owned()
        .into_dyn();
    let alone = b
        .apply(&rope(dims), &[&first.clone().into()])
        .unwrap()
        .into_array();
    assert_eq!(
        y.slice(ndarray::s![.., .., .., ..dims])
            .to_owned()
            .into_dyn(),
        alone
    );
    assert_eq!(
        y.slice(ndarray::s![.., .., .., dims..]),
        x.slice(ndarray::s![.., .., .., dims..])
    );
    assert_ne!(
        y.slice(ndarray::s![.., .., 1.., ..dims]),
        x.slice(ndarray::s![.., .., 1.., ..dims])
    );
    let x = b.normal(&[1, 2, t, hd], 9);
    for bad in [3, hd + 2] {
        assert!(b.apply(&rope(bad), &[&x]).is_err(), "dims {bad}");
    }
}

/// ALiBi's slopes are BLOOM's (tests/fixtures/alibi-slopes.json, written
/// by scripts/make_alibi_fixture.py with transformers' build_alibi_tensor)
/// for 1 to 12 heads, and the step adds m_h·(j − t) to every score.
#[test]
fn alibi_adds_blooms_slopes_times_the_distance() {
    let text = std::fs::read_to_string("tests/fixtures/alibi-slopes.json").unwrap();
    let want: std::collections::BTreeMap<String, Vec<f64>> = serde_json::from_str(&text).unwrap();
    assert_eq!(want.len(), 12);
    for (heads, slopes) in &want {
        // BLOOM computes them in f32: 2^(−1/2) to 7 digits.
        let got = shapetrace::ops::alibi_slopes(heads.parse().unwrap());
        assert_eq!(got.len(), slopes.len());
        for (g, w) in got.iter().zip(slopes) {
            assert!((g - w).abs() < 1e-7, "{heads} heads: {got:?} vs {slopes:?}");
        }
    }
    let b = Numeric::<f64>::new();
    let (h, t) = (6, 5);
    let s = b.normal(&[2, h, t, t], 3);
    let y = b.apply(&Op::Alibi, &[&s]).unwrap().into_array();
    let s = s.into_array();
    let m = &want["6"];
    for bi in 0..2 {
        for hi in 0..h {
            for q in 0..t {
                for j in 0..t {
                    let d = y[[bi, hi, q, j]] - s[[bi, hi, q, j]];
                    let want = m[hi] * (j as f64 - q as f64);
                    assert!((d - want).abs() < 1e-12, "{hi} {q} {j}: {d} vs {want}");
                }
            }
        }
    }
    assert!(
        b.apply(&Op::Alibi, &[&b.normal(&[2, 3], 1)]).is_err(),
        "rank 4 only"
    );
}

/// A soft cap is c·tanh(x/c): inside (−c, c), near x for small x; a fused
/// projection's columns are the slices of each period.
#[test]
fn soft_caps_and_fused_columns_compute_their_formulas() {
    let b = Numeric::<f64>::new();
    let x = b.normal(&[2, 3, 12], 4);
    let capped = b
        .apply(&Op::SoftCap { cap: 0.5 }, &[&x])
        .unwrap()
        .into_array();
    let xs = x.clone().into_array();
    for (y, v) in capped.iter().zip(xs.iter()) {
        assert!((y - 0.5 * (v / 0.5).tanh()).abs() < 1e-12);
        assert!(y.abs() < 0.5);
    }
    // Grouped: columns 1..3 of every 4 → (2, 3, 6).
    let op = Op::Columns {
        lo: 1,
        hi: 3,
        period: 4,
        axis: "kv·hd".into(),
    };
    let y = b.apply(&op, &[&x]).unwrap().into_array();
    assert_eq!(y.shape(), [2, 3, 6]);
    for g in 0..3 {
        for j in 0..2 {
            assert_eq!(y[[1, 2, 2 * g + j]], xs[[1, 2, 4 * g + 1 + j]]);
        }
    }
    let bad = Op::Columns {
        lo: 1,
        hi: 3,
        period: 5,
        axis: "d".into(),
    };
    assert!(b.apply(&bad, &[&x]).is_err(), "12 is no multiple of 5");
}

#[test]
fn rotary_models_trace_q_rot_and_k_rot_and_stay_causal() {
    let mut cfg = shapetrace::ModelConfig::default();
    cfg.positions.kind = shapetrace::config::PosEmb::Rope;
    cfg.attention.kv_heads = 2;
    let run = shapetrace::run(&cfg).unwrap();
    let paths: Vec<&str> = run.trace.events.iter().map(|e| e.path.as_str()).collect();
    let at = |p: &str| paths.iter().position(|q| *q == p).unwrap();
    assert!(at("block1.attn.v") < at("block1.attn.q_rot"));
    assert!(at("block1.attn.k_rot") < at("block1.attn.k_rep"));
    assert_eq!(
        run.trace.get("block1.attn.k_rot").unwrap().shape,
        [2, 2, 4, 16]
    );
    assert_eq!(
        run.trace.get("block1.attn.scores").unwrap().inputs,
        ["block1.attn.q_rot", "block1.attn.k_rep"]
    );
    assert!(run.ok(), "{:?}", run.checks);
    // Learned positions have no rotation.
    let plain = shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap();
    assert!(plain.get("block1.attn.q_rot").is_none());
}

#[test]
fn heads_split_in_place_equal_heads_split_from_a_borrow() {
    let b = Numeric::<f32>::new();
    let split = Op::SplitHeads {
        heads: 4,
        axis: "h".into(),
    };
    // Small enough for a preview, and large enough for the parallel stats.
    for shape in [[2, 4, 64], [1, 512, 256]] {
        let x = b.normal(&shape, 7);
        let borrowed = b.apply(&split, &[&x]).unwrap();
        let (s1, p1) = b.summary(&borrowed).unwrap();
        let owned = b.apply_owned(&split, x.clone(), &[]).unwrap();
        let (s2, p2) = b.summary(&owned).unwrap();
        assert_eq!(owned.shape(), [shape[0], 4, shape[1], shape[2] / 4]);
        assert_eq!(borrowed, owned, "the same (B,h,T,hd) values");
        assert_eq!((s1, p1), (s2, p2));
        // Head 3 of token 1 is x[.., 1, 3·hd..4·hd].
        let hd = shape[2] / 4;
        let (o, x) = (owned.array(), x.array());
        assert_eq!(o[[0, 3, 1, 2]], x[[0, 1, 3 * hd + 2]]);
        assert_eq!(b.values(&owned).unwrap()[hd], f64::from(x[[0, 1, 0]]));
    }
}

/// A trace recorded with captures (every op one at a time, every tensor
/// built) against one without (attention's core, and the MLP's up
/// projection with its activation, fused when large): the same events, the
/// stats within rounding.
#[test]
fn fused_passes_record_what_the_ops_one_at_a_time_record() {
    use shapetrace::model::Model;
    use shapetrace::trace::recorder::{Recorder, Watch};
    let mut seen_fused = 0;
    for (preset, fault) in [
        ("lesson", None),
        ("lesson-gqa", None),
        ("lesson", Some(shapetrace::config::Fault::NoCausalMask)),
    ] {
        let mut cfg = shapetrace::config::preset::by_name(preset).unwrap();
        (cfg.seq, cfg.positions.context, cfg.fault) = (48, Some(48), fault);
        let b = Numeric::<f32>::new();
        let model = Model::build(&cfg, &b);
        let x0 = shapetrace::model::input(&cfg, &b);
        let run = |capture: bool| {
            let mut rec = Recorder::new(
                &b,
                cfg.stream_shape(),
                Watch {
                    capture,
                    ..Watch::default()
                },
            );
            let out = model.forward(&mut rec, x0.clone()).unwrap().into_tensor();
            (rec.finish().events, out)
        };
        let ((fused, y1), (whole, y2)) = (run(false), run(true));
        assert_eq!(fused.len(), whole.len());
        for (f, w) in fused.iter().zip(&whole) {
            let same = (&f.path, &f.op, &f.shape, &f.axes, &f.inputs, &f.formula);
            assert_eq!(
                same,
                (&w.path, &w.op, &w.shape, &w.axes, &w.inputs, &w.formula)
            );
            stats_close(f.stats.unwrap(), w.stats.unwrap(), 1e-5, &f.path);
        }
        let d = common::max_diff(y1.array().iter(), y2.array().iter());
        assert!(d < 1e-5, "{preset}: outputs differ by {d}");
        // The backend does fuse these (2, 4, 48, 48) scores, and keeps
        // tensors small enough to preview whole.
        let q = b.normal(&[2, 4, 48, 16], 1);
        seen_fused += usize::from(
            b.fused(
                &Fusion::Attention {
                    head_dim: 16,
                    mask: Masking::Causal,
                },
                &[&q, &q, &q],
            )
            .is_some(),
        );
        let small = b.normal(&[2, 4, 4, 16], 1);
        assert!(
            b.fused(
                &Fusion::Attention {
                    head_dim: 16,
                    mask: Masking::Causal
                },
                &[&small, &small, &small]
            )
            .is_none()
        );
        // And the MLP's up projection with its activation, (2, 48, 4d),
        // but not (2, 4, 4d).
        let (x, w) = (b.normal(&[2, 48, 64], 2), b.normal(&[64, 256], 3));
        assert!(
            b.fused(&Fusion::LinearAct(Unary::GeluTanh), &[&x, &w])
                .is_some()
        );
        let x = b.normal(&[2, 4, 64], 2);
        assert!(
            b.fused(&Fusion::LinearAct(Unary::GeluTanh), &[&x, &w])
                .is_none()
        );
    }
    assert_eq!(seen_fused, 3);
}

/// The fused core against scores, softmax and weighted sum one at a time,
/// where the trace's own runs never reach: one head (its products on every
/// core), several row tiles with a short last one, keys fewer or more than
/// the queries, with and without the causal mask, and within sliding
/// windows (shorter than a tile, and longer).
#[test]
fn fused_attention_is_the_three_ops_across_tiles_heads_and_lengths() {
    let b = Numeric::<f32>::new();
    for (heads, t, s, mask) in [
        (1, 300, 300, Masking::Causal),
        (3, 520, 520, Masking::Causal),
        (2, 300, 333, Masking::Full),
        (2, 270, 900, Masking::Causal),
        (2, 300, 300, Masking::Window(5)),
        (1, 520, 520, Masking::Window(200)),
    ] {
        let what = format!("{heads} heads, T {t}, S {s}, {mask:?}");
        let q = b.normal(&[1, heads, t, 16], 1);
        let (k, v) = (
            b.normal(&[1, heads, s, 16], 2),
            b.normal(&[1, heads, s, 8], 3),
        );
        let (stats, context) = b
            .fused(&Fusion::Attention { head_dim: 16, mask }, &[&q, &k, &v])
            .expect(&what);
        let (scores, weights) = (stats[0], stats[1]);
        let sc = b.apply(&Op::Scores { head_dim: 16 }, &[&q, &k]).unwrap();
        let w = b.apply(&Op::Softmax { mask }, &[&sc]).unwrap();
        let cx = b.apply(&Op::WeightedSum, &[&w, &v]).unwrap();
        let stats = |t: &Tensor<f32>| b.summary(t).unwrap().0;
        stats_close(scores, stats(&sc), 1e-6, &format!("{what}: scores"));
        stats_close(weights, stats(&w), 1e-6, &format!("{what}: weights"));
        assert_eq!(context.shape(), cx.shape(), "{what}");
        let d = common::max_diff(context.array().iter(), cx.array().iter());
        assert!(d < 1e-5, "{what}: contexts differ by {d}");
    }
}

/// The fused pass fails where the three ops fail: a non-finite score stops
/// the forward at `scores`, with the finite check.
#[test]
fn fused_attention_still_stops_at_non_finite_scores() {
    let b = Numeric::<f32>::new();
    let mut q = b.normal(&[1, 2, 80, 8], 1).into_array();
    q[[0, 1, 3, 2]] = f32::INFINITY;
    let q = Tensor::from(q);
    let (sw, _) = b
        .fused(
            &Fusion::Attention {
                head_dim: 8,
                mask: Masking::Causal,
            },
            &[&q, &q, &q],
        )
        .unwrap();
    assert!(!sw[0].finite && !sw[1].finite);
    // And the fused MLP reports a non-finite pre-activation, so the
    // forward stops at `mlp.up`, where it arose.
    let mut x = b.normal(&[1, 80, 8], 2).into_array();
    x[[0, 5, 1]] = f32::NAN;
    let x = Tensor::from(x);
    let w = b.normal(&[8, 64], 3);
    let (pre, _) = b.fused(&Fusion::LinearAct(Unary::Relu), &[&x, &w]).unwrap();
    assert!(!pre[0].finite);
}

/// Every event's stats, however taken (in the kernel's pass, or carried
/// over from the input by split and merged heads, which only move values),
/// equal the stats of its values read afterwards. Captures run the ops one
/// at a time; the fused passes are held to these stats by
/// `fused_passes_record_what_the_ops_one_at_a_time_record`. The lesson at
/// T=48 makes every head tensor too large to preview, so the carried stats
/// are the ones recorded.
#[test]
fn recorded_stats_are_the_stats_of_the_recorded_values() {
    use shapetrace::model::Model;
    use shapetrace::trace::recorder::{Recorder, Watch};
    let mut cfg = shapetrace::config::preset::by_name("lesson").unwrap();
    (cfg.seq, cfg.positions.context) = (48, Some(48));
    let b = Numeric::<f32>::new();
    let model = Model::build(&cfg, &b);
    let mut rec = Recorder::new(
        &b,
        cfg.stream_shape(),
        Watch {
            capture: true,
            ..Watch::default()
        },
    );
    model
        .forward(&mut rec, shapetrace::model::input(&cfg, &b))
        .unwrap();
    let done = rec.finish();
    let f64s = Numeric::<f64>::new();
    let stats_of = |path: &str| {
        let c = done.captures.iter().find(|c| c.path == path).unwrap();
        let t = ArrayD::from_shape_vec(IxDyn(&c.shape), c.values.clone()).unwrap();
        f64s.summary(&Tensor::from(t)).unwrap().0
    };
    let mut carried = 0;
    for e in &done.events {
        stats_close(e.stats.unwrap(), stats_of(&e.path), 1e-5, &e.path);
        carried += usize::from(matches!(e.op, OpKind::SplitHeads | OpKind::MergeHeads));
    }
    assert_eq!(carried, 2 * 4, "q, k, v and merge in each of 2 blocks");
    // The check tells tensors apart: stats carried from the wrong input
    // (k's for q) would fail it.
    let (q, k) = (stats_of("block1.attn.q"), stats_of("block1.attn.k"));
    assert!((q.std - k.std).abs() > 1e-3 * q.std.abs());
}
