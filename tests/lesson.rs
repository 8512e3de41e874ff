//! The lesson API: the FFN by hand line by line, the position-wise probe
//! shown able to fail, the gated FFN, the norms and bad vectors.

use ndarray::{Array1, Array2, Axis, array};
use shapetrace::lesson::by_hand::{FfnByHand, Stage};
use shapetrace::lesson::norms::NormCompare;
use shapetrace::lesson::{
    LessonError, changed_rows, ffn, gated_ffn, is_positionwise, parse_vector, relu, swiglu_width,
};

fn texts(f: &FfnByHand, stage: Stage) -> Vec<&str> {
    f.steps
        .iter()
        .filter(|s| s.stage == stage)
        .map(|s| s.text.as_str())
        .collect()
}

#[test]
fn ffn_by_hand_writes_out_every_dot_product_of_the_worked_example() {
    let f = FfnByHand::lesson(&[1.0, 2.0]).unwrap();
    assert_eq!(
        texts(&f, Stage::Hidden),
        [
            "z_1 = 1*1 + 2*0 = 1",
            "z_2 = 1*0 + 2*2 = 4",
            "z_3 = 1*(-1) + 2*1 = 1"
        ]
    );
    assert_eq!(
        texts(&f, Stage::Output),
        ["y_1 = 1*1 + 4*0 + 1*(-1) = 0", "y_2 = 1*0 + 4*1 + 1*1 = 5"]
    );
    assert_eq!(f.z, [1.0, 4.0, 1.0]);
    assert_eq!(f.h, [1.0, 4.0, 1.0]);
    assert_eq!(f.y, [0.0, 5.0]);
    assert_eq!(f.out, [1.0, 7.0]);
    assert!(f.off_units().is_empty());
    assert_eq!(f.steps.len(), 3 + 3 + 2 + 2, "one step per number");
    assert_eq!(f.steps[0].products, [(1.0, 1.0), (2.0, 0.0)]);
    let text = f.text();
    assert!(text.contains("x + y = [1, 2] + [0, 5] = [1, 7]"), "{text}");
    assert!(text.contains("ReLU changes nothing"), "{text}");
}

#[test]
fn ffn_by_hand_variant_switches_off_units_2_and_3() {
    let f = FfnByHand::lesson(&[2.0, -1.0]).unwrap();
    assert_eq!(
        texts(&f, Stage::Hidden),
        [
            "z_1 = 2*1 + (-1)*0 = 2",
            "z_2 = 2*0 + (-1)*2 = -2",
            "z_3 = 2*(-1) + (-1)*1 = -3"
        ]
    );
    assert_eq!(f.z, [2.0, -2.0, -3.0]);
    assert_eq!(f.h, [2.0, 0.0, 0.0]);
    assert_eq!(f.y, [2.0, 0.0]);
    assert_eq!(f.off_units(), [2, 3]);
    assert_eq!(
        f.rows_view(),
        "y = 2*[1, 0] + 0*[0, 1] + 0*[-1, 1] = [2, 0]"
    );
    assert!(
        f.text()
            .contains("h = [2, 0, 0]: units 2 and 3 are switched off")
    );
}

#[test]
fn ffn_by_hand_refuses_a_vector_of_the_wrong_length() {
    let e = FfnByHand::lesson(&[1.0, 2.0, 3.0]).unwrap_err();
    assert!(
        matches!(
            e,
            LessonError::Length {
                got: 3,
                want: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn ffn_matches_the_by_hand_example_and_is_positionwise() {
    let w1 = array![[1., 0., -1.], [0., 2., 1.]];
    let w2 = array![[1., 0.], [0., 1.], [-1., 1.]];
    let (b1, b2) = (Array1::zeros(3), Array1::zeros(2));
    let x = array![[1., 2.], [2., -1.]];
    let y = ffn(&x, &w1, &b1, &w2, &b2, relu).unwrap();
    assert_eq!(y, array![[0., 5.], [2., 0.]]);
    let f = |x: &Array2<f64>| ffn(x, &w1, &b1, &w2, &b2, relu).unwrap();
    let x = Array2::from_shape_fn((5, 2), |(i, j)| (i as f64) - (j as f64) * 0.5);
    assert!(is_positionwise(f, &x, 10, 1));
    assert!(
        ffn(&x, &w2, &b1, &w1, &b2, relu).is_err(),
        "sizes do not chain"
    );
}

#[test]
fn the_positionwise_probe_fails_on_a_function_that_mixes_tokens() {
    let x = Array2::from_shape_fn((4, 3), |(i, j)| (i * 3 + j) as f64);
    // Causal running mean: row t reads rows ≤ t.
    let causal = |x: &Array2<f64>| {
        let mut y = x.clone();
        for t in 1..x.nrows() {
            let prev = y.row(t - 1).to_owned();
            let mut row = y.row_mut(t);
            row += &prev;
        }
        y
    };
    assert!(!is_positionwise(causal, &x, 10, 0));
    assert_eq!(changed_rows(causal, &x, 1, 0), [false, true, true, true]);
    let mean = |x: &Array2<f64>| x - &x.mean_axis(Axis(0)).unwrap();
    assert_eq!(changed_rows(mean, &x, 0, 0), [true, true, true, true]);
}

#[test]
fn gated_ffn_keeps_the_shape_and_the_width_helper_rounds_up() {
    let x = Array2::from_elem((3, 4), 0.5);
    let wg = Array2::from_elem((4, 6), 0.1);
    let wd = Array2::from_elem((6, 4), 0.1);
    assert_eq!(gated_ffn(&x, &wg, &wg, &wd).unwrap().dim(), (3, 4));
    assert!(gated_ffn(&x, &wg, &wd, &wd).is_err());
    assert_eq!(swiglu_width(256, Some(8)), 176);
    assert_eq!(swiglu_width(256, Some(1)), 171);
    assert_eq!(swiglu_width(3, None), 2);
}

#[test]
fn layernorm_and_rmsnorm_of_3_4() {
    let n = NormCompare::new(&[3.0, 4.0]).unwrap();
    assert_eq!((n.mean, n.var, n.mean_sq), (3.5, 0.25, 12.5));
    for (got, want) in n.layer.iter().zip([-1.0, 1.0]) {
        assert!((got - want).abs() < 1e-4, "{got}");
    }
    for (got, x) in n.rms.iter().zip([3.0, 4.0]) {
        assert!((got - x / 12.5f64.sqrt()).abs() < 1e-5, "{got}");
    }
    let text = n.text();
    assert!(text.contains("= [-1, 1]"), "{text}");
    assert!(text.contains("[3, 4] / √12.5 = [0.8485, 1.1314]"), "{text}");
}

#[test]
fn vectors_parse_or_name_the_bad_entry() {
    assert_eq!(parse_vector("2,-1").unwrap(), [2.0, -1.0]);
    assert_eq!(parse_vector(" 3 , 4.5 ").unwrap(), [3.0, 4.5]);
    let e = parse_vector("1,foo").unwrap_err().to_string();
    assert!(
        e.contains("'foo'") && e.contains("1,foo") && e.contains("allowed"),
        "{e}"
    );
    assert!(parse_vector("1,inf").is_err());
    assert_eq!(parse_vector("").unwrap_err(), LessonError::Empty);
}
