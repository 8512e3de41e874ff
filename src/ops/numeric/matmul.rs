//! `c = alpha · a · b` for 2-D views of f32 or f64, through the `gemm`
//! crate (pure Rust, AVX-512 / AVX2 / SSE picked at run time, threaded on
//! rayon). Measured on this project's 2-core Xeon it runs GPT-2-small's
//! (1024, 768) · (768, 3072) at about 2.5× ndarray's matrixmultiply (see
//! the `matmul` rows of `cargo bench --bench trace`).
//!
//! The one `unsafe` call of the crate lives here: `gemm::gemm` takes raw
//! pointers and strides. The views carry exactly those, checked below.

use super::Scalar;
use ndarray::{ArrayView2, ArrayViewMut2};

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
    let ((m, k), (k2, n)) = (a.dim(), b.dim());
    assert!(
        k == k2 && c.dim() == (m, n),
        "matmul shapes checked by Op::infer"
    );
    if m == 0 || n == 0 {
        return;
    }
    let (a_rs, a_cs) = (a.strides()[0], a.strides()[1]);
    let (b_rs, b_cs) = (b.strides()[0], b.strides()[1]);
    let (c_rs, c_cs) = (c.strides()[0], c.strides()[1]);
    let parallelism = if threads && m * n * k >= PAR_MIN_MACS {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    #[allow(unsafe_code)]
    // SAFETY: each pointer and its strides come from a live ndarray view of
    // the stated dimensions, so every element gemm reads or writes is in
    // bounds; `c` is borrowed mutably, so it aliases neither `a` nor `b`;
    // F is f32 or f64 (`Scalar`), both of which gemm supports; with
    // `read_dst` false the old values of `c` are never read.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
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
