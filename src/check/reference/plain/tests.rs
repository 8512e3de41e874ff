use super::{Apart, against_plain, agree, largest_delta, tolerance};
use crate::check::influence::Subject;
use crate::check::plain;
use crate::config::DType;
use crate::config::file::Overlay;
use crate::ops::numeric::fused::broken;
use crate::trace::CheckName;
use crate::trace::recorder::Capture;
use crate::trace::verdict::Status;
use ndarray::Array2;

fn cfg(toml: &str) -> crate::config::ModelConfig {
    Overlay::from_toml(toml, "test").unwrap().resolve().unwrap()
}

/// A capture at `path` holding `values`.
fn capture(path: &str, values: Vec<f64>) -> Capture {
    Capture {
        path: path.to_string(),
        op: crate::ops::OpKind::Add,
        role: crate::trace::Role::ResidualAdd,
        shape: vec![values.len()],
        axes: vec!["d".into()],
        values,
    }
}

#[test]
fn the_largest_delta_is_the_largest_and_a_nan_or_a_length_is_infinite() {
    assert_eq!(largest_delta(&[1.0, 2.0], &[1.0, 2.5]), 0.5);
    assert_eq!(largest_delta(&[1.0, -3.0], &[1.25, -2.0]), 1.0);
    assert!(largest_delta(&[f64::NAN], &[1.0]).is_infinite());
    assert!(largest_delta(&[1.0], &[1.0, 2.0]).is_infinite());
}

#[test]
fn the_tolerance_is_64_epsilons_of_the_dtype() {
    let t = [DType::F64, DType::F32, DType::F16, DType::BF16].map(tolerance);
    assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
    assert_eq!(t[1], 64.0 * 2f64.powi(-23));
    assert_eq!(t[3], 64.0 * 2f64.powi(-7));
}

/// Within tol·(1 + max |want|) agrees, whatever the value's own size; a
/// value past it is apart at its output, the first such one named; an
/// output the fast path never gave is apart too.
#[test]
fn agreement_is_relative_to_the_output_s_largest_value() {
    let tol = 1e-3;
    let want = [
        Array2::from_shape_vec((1, 2), vec![10.0, 0.0]).unwrap(),
        Array2::from_shape_vec((1, 2), vec![1.0, 0.0]).unwrap(),
    ];
    let want: Vec<&Array2<f64>> = want.iter().collect();
    // 0.01 off a 0 is within 1e-3·(1 + 10) in block 1.
    let (b1, b2) = (
        capture("block1.resid_2", vec![10.0, 0.01]),
        capture("block2.resid_2", vec![1.0, 0.0015]),
    );
    let a = agree(tol, &[&b1, &b2], &want);
    assert_eq!((a.compared, a.apart), (2, None));
    assert!((a.largest - 0.01).abs() < 1e-12);
    // 0.0025 off in block 2 is past its 1e-3·(1 + 1).
    let b2 = capture("block2.resid_2", vec![1.0, 0.0025]);
    let a = agree(tol, &[&b1, &b2], &want);
    let apart = a.apart.unwrap();
    assert_eq!(apart.path, "block2.resid_2");
    assert!((apart.allowed - 2e-3).abs() < 1e-15);
    let a = agree(tol, &[&b1], &want);
    assert_eq!(
        a.apart,
        Some(Apart {
            path: "block1.resid_2".into(),
            delta: f64::INFINITY,
            allowed: tol,
        })
    );
}

/// The plain forward on weights one value off gives block 1 another
/// output than the fast path's, and the comparison says so; on the fast
/// path's own weights it agrees.
#[test]
fn a_weight_changed_under_the_plain_forward_is_found_at_its_block() {
    let c = cfg("preset = 'lesson'");
    let x0 = crate::model::input(&c, &crate::ops::numeric::Numeric::<f32>::new()).into_array();
    let fast = crate::run::fast::<f32>(&c, crate::model::Source::Seeded, x0);
    let input = fast.captures.iter().find(|k| k.path == "input").unwrap();
    let x0 = ndarray::ArrayD::from_shape_vec(input.shape.clone(), input.values.clone()).unwrap();
    let got = super::outputs(&c, &fast.captures);
    let apart = |w: &plain::Params| {
        let want = plain::forward(&c, w, &x0).unwrap();
        let want: Vec<&Array2<f64>> = want.blocks.iter().collect();
        agree(tolerance(c.dtype), &got, &want).apart
    };
    assert_eq!(apart(&fast.weights), None);
    let mut weights = fast.weights.clone();
    let down = weights.get_mut("block1.mlp.down.weight").unwrap();
    down.iter_mut().for_each(|v| *v *= 1.001);
    let a = apart(&weights).unwrap();
    assert_eq!(a.path, "block1.resid_2", "{a:?}");
}

/// A model whose attention the backend fuses: B·h·T·T = 2·16·17·17 scores.
fn fused_model() -> crate::config::ModelConfig {
    cfg("preset = 'lesson'\nseq = 17\nheads = 16\nkv_heads = 16")
}

/// With the fused attention's tile one key short (a test-only hook on
/// this thread), `reference` fails at block 1 against the plain f64
/// forward; with the bound as written it passes, naming its largest |Δ|.
#[test]
fn a_broken_tile_bound_in_the_fused_attention_fails_reference() {
    let c = fused_model();
    let trace = crate::run::trace(&c).unwrap();
    let judge = || crate::check::reference::reference(&trace, Subject::seeded(&c));
    let held = judge();
    assert_eq!(held.status, Status::Pass, "{held:?}");
    assert!(
        held.detail.contains("plain f64 forward: max |Δ| "),
        "{held:?}"
    );
    let broken = {
        let _short = broken::Short::on();
        judge()
    };
    assert_eq!(broken.name, CheckName::Reference);
    assert_eq!(broken.status, Status::Fail, "{broken:?}");
    assert!(
        broken.path.as_deref().unwrap().starts_with("block1."),
        "{broken:?}"
    );
    assert!(
        broken.detail.contains("differs from a plain f64 forward"),
        "{broken:?}"
    );
    // The hook lived only while it was on.
    assert_eq!(judge().status, Status::Pass);
    let a = against_plain(Subject::seeded(&c)).unwrap();
    assert!(a.largest < tolerance(DType::F32), "{a:?}");
}
