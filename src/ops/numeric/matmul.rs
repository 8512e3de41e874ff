//! `c = alpha · a · b` for 2-D views of f32 or f64, through the `gemm`
//! crate (pure Rust, AVX-512 / AVX2 / SSE picked at run time, threaded on
//! rayon). Measured on this project's 2-core Xeon it runs GPT-2-small's
//! (1024, 768) · (768, 3072) at about 2.5× ndarray's matrixmultiply (see
//! the `matmul` rows of `cargo bench --bench trace`).
//!
//! The numeric backend's only `unsafe` code lives here (the crate's other
//! is the allocator setting in `allocator.rs`): `gemm::gemm` takes raw
//! pointers and strides, which the views carry, and [`product`] hands back
//! memory that gemm, not a zeroing pass, initialised.

use super::Scalar;
use ndarray::{Array2, ArrayView2, ArrayViewMut2};

/// Products smaller than this many multiply-adds run on one thread.
const PAR_MIN_MACS: usize = 1 << 20;

/// `c = alpha · a · b`, overwriting `c`; on every core when `threads`
/// and the product is large.
///
/// # Shapes
/// - a: (m, k), b: (k, n), c: (m, n), any strides
///
/// # Panics
/// When the shapes do not chain; callers pass shapes `Op::infer` accepted.
pub fn matmul<F: Scalar>(
    alpha: F,
    a: &ArrayView2<F>,
    b: &ArrayView2<F>,
    c: &mut ArrayViewMut2<F>,
    threads: bool,
) {
    let (m, n) = (a.nrows(), b.ncols());
    assert!(
        a.ncols() == b.nrows() && c.dim() == (m, n),
        "matmul shapes checked by Op::infer"
    );
    let c_strides = (c.strides()[0], c.strides()[1]);
    let c_ptr = c.as_mut_ptr();
    #[allow(unsafe_code)]
    // SAFETY: `c` is a live, mutably borrowed (m, n) view with these
    // strides, so every element written is in bounds and aliases neither
    // `a` nor `b`.
    unsafe {
        gemm_into(alpha, a, b, c_ptr, c_strides, threads);
    }
}

/// `alpha · a · b` as a new row-major (m, n) array whose memory is never
/// zeroed first: the product writes every element, so a large output
/// costs one pass over memory, not two.
///
/// # Shapes
/// - a: (m, k), b: (k, n) → (m, n)
///
/// # Panics
/// When the shapes do not chain; callers pass shapes `Op::infer` accepted.
pub fn product<F: Scalar>(
    alpha: F,
    a: &ArrayView2<F>,
    b: &ArrayView2<F>,
    threads: bool,
) -> Array2<F> {
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    assert!(k == b.nrows(), "matmul shapes checked by Op::infer");
    if k == 0 {
        return Array2::zeros((m, n));
    }
    let mut c = Array2::<F>::uninit((m, n));
    let c_strides = (c.strides()[0], c.strides()[1]);
    let c_ptr = c.as_mut_ptr().cast::<F>();
    #[allow(unsafe_code)]
    // SAFETY: `c` is a fresh (m, n) allocation with these strides, owned
    // here, so every element written is in bounds and aliases nothing.
    // With k ≥ 1 gemm writes all m·n elements (it never reads them), so
    // every element is initialised before `assume_init`.
    unsafe {
        gemm_into(alpha, a, b, c_ptr, c_strides, threads);
        c.assume_init()
    }
}

/// `*c = alpha · a · b` through `gemm`, threaded when asked and large.
///
/// # Safety
/// `c` with `c_strides` must address an (a.nrows(), b.ncols()) block that
/// may be written and aliases neither `a` nor `b`; `a.ncols() == b.nrows()`.
#[allow(unsafe_code)]
unsafe fn gemm_into<F: Scalar>(
    alpha: F,
    a: &ArrayView2<F>,
    b: &ArrayView2<F>,
    c: *mut F,
    (c_rs, c_cs): (isize, isize),
    threads: bool,
) {
    let ((m, k), n) = (a.dim(), b.ncols());
    if m == 0 || n == 0 {
        return;
    }
    let (a_rs, a_cs) = (a.strides()[0], a.strides()[1]);
    let (b_rs, b_cs) = (b.strides()[0], b.strides()[1]);
    let parallelism = if threads && m * n * k >= PAR_MIN_MACS {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };

    // SAFETY: the pointers and strides of `a` and `b` come from live
    // ndarray views of the stated dimensions, and the caller vouches for
    // `c`; F is f32 or f64 (`Scalar`), both of which gemm supports; with
    // `read_dst` false the old values of `c` are never read.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c,
            c_cs,
            c_rs,
            false,
            a.as_ptr(),
            a_cs,
            a_rs,
            b.as_ptr(),
            b_cs,
            b_rs,
            F::zero(),
            alpha,
            false,
            false,
            false,
            parallelism,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{matmul, product};
    use ndarray::Array2;

    fn naive(a: &Array2<f32>, b: &Array2<f32>) -> Array2<f32> {
        let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
        Array2::from_shape_fn((m, n), |(i, j)| (0..k).map(|l| a[[i, l]] * b[[l, j]]).sum())
    }

    /// `product` hands back memory gemm never read: a destination full of
    /// NaN must come out as the product, on every kernel gemm picks
    /// (tiny, k ≤ 2, matrix-vector, threaded blocks), or gemm read it.
    #[test]
    fn gemm_overwrites_its_destination_without_reading_it() {
        let shapes = [
            (1, 1, 1),
            (16, 16, 3),
            (5, 1, 8),
            (1, 7, 8),
            (3, 4, 2),
            (300, 300, 600),
        ];
        for (m, n, k) in shapes {
            let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
            let b = Array2::from_shape_fn((k, n), |(i, j)| ((i * 5 + j) % 7) as f32 - 3.0);
            let mut c = Array2::from_elem((m, n), f32::NAN);
            matmul(1.0, &a.view(), &b.view(), &mut c.view_mut(), true);
            assert_eq!(c, naive(&a, &b), "({m},{k})·({k},{n})");
            assert_eq!(
                product(1.0, &a.view(), &b.view(), true),
                c,
                "({m},{k})·({k},{n})"
            );
            // b read transposed by its strides, as a checkpoint's [out,
            // in] weight: the same numbers.
            let stored = b.t().as_standard_layout().into_owned();
            let mut ct = Array2::from_elem((m, n), f32::NAN);
            matmul(1.0, &a.view(), &stored.t(), &mut ct.view_mut(), true);
            assert_eq!(ct, c, "({m},{k})·({k},{n}) with b transposed");
            assert_eq!(product(1.0, &a.view(), &stored.t(), true), c);
        }
        let empty = Array2::<f32>::zeros((3, 0));
        let p = product(1.0, &empty.view(), &Array2::zeros((0, 4)).view(), false);
        assert_eq!(p, Array2::<f32>::zeros((3, 4)), "k = 0 gives zeros");
        let none = product(
            1.0,
            &Array2::zeros((0, 5)).view(),
            &Array2::zeros((5, 2)).view(),
            true,
        );
        assert_eq!(none.dim(), (0, 2));
    }
}
