//! The element types of numeric runs, f32 and f64, and the few functions
//! the kernels need of them.
//!
//! f32 has its own `exp`: Cody–Waite range reduction and the Cephes
//! polynomial, written without branches so the compiler vectorises the
//! loops that call it (softmax, tanh GELU, SiLU). Its relative error is
//! about 2e-7, under one part in 10⁶ of the values the trace reports.

use crate::config::DType;
use ndarray::{LinalgScalar, ScalarOperand};

/// An element type the numeric backend runs in.
pub trait Scalar:
    LinalgScalar
    + ScalarOperand
    + num_traits::Float
    + num_traits::FromPrimitive
    + std::ops::AddAssign
    + std::ops::MulAssign
    + Send
    + Sync
    + std::fmt::Debug
{
    /// The dtype the trace reports for this type.
    const DTYPE: DType;
    /// The error function, for the exact GELU.
    fn erf(self) -> Self;
    /// `v` rounded to this type.
    fn of(v: f64) -> Self;
    /// This value widened to f64.
    fn f64(self) -> f64;
    /// eˣ, fast where it can be; NaN stays NaN.
    #[inline]
    fn exp_fast(self) -> Self {
        self.exp()
    }
    /// A mapped checkpoint's f32 values read as this type in place: only
    /// f32 can; others get `None` and convert (see `tensor.rs`).
    #[inline]
    fn in_place(_values: ndarray::ArrayViewD<'_, f32>) -> Option<ndarray::ArrayViewD<'_, Self>> {
        None
    }
    /// f32 values as this type: handed over as they are for f32.
    #[inline]
    fn from_f32s(values: ndarray::ArrayD<f32>) -> ndarray::ArrayD<Self> {
        values.mapv(|v| Self::of(f64::from(v)))
    }
}

impl Scalar for f32 {
    const DTYPE: DType = DType::F32;
    #[inline]
    fn in_place(values: ndarray::ArrayViewD<'_, f32>) -> Option<ndarray::ArrayViewD<'_, Self>> {
        Some(values)
    }
    #[inline]
    fn from_f32s(values: ndarray::ArrayD<f32>) -> ndarray::ArrayD<Self> {
        values
    }
    #[inline]
    fn erf(self) -> Self {
        libm::erff(self)
    }
    #[inline]
    #[allow(clippy::cast_possible_truncation)]
    fn of(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    #[allow(clippy::excessive_precision)]
    fn exp_fast(self) -> Self {
        const LOG2E: f32 = std::f32::consts::LOG2_E;
        const LN2_HI: f32 = 0.693_359_375;
        const LN2_LO: f32 = -2.121_944_4e-4;
        // 1.5·2²³: adding it rounds to an integer n held in the low bits of
        // the sum, read back below without a float-to-int conversion.
        const ROUND: f32 = 12_582_912.0;
        // Clamped by comparisons, which a NaN fails, so it stays NaN and
        // is NaN at the end (no select of its own, unlike `clamp`).
        let x = if self < -87.0 { -87.0 } else { self };
        let x = if x > 88.0 { 88.0 } else { x };
        let t = x * LOG2E + ROUND;
        let n = t - ROUND;
        let r = x - n * LN2_HI - n * LN2_LO;
        let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2)
            * r
            + 1.666_666_5e-1)
            * r
            + 0.5;
        // 2ⁿ: the exponent field n + 127, from t's bits 0x4B40_0000 + n.
        let two_n = f32::from_bits(t.to_bits().wrapping_sub(0x4B40_0000 - 127) << 23);
        (p * r * r + r + 1.0) * two_n
    }
}

impl Scalar for f64 {
    const DTYPE: DType = DType::F64;
    #[inline]
    fn erf(self) -> Self {
        libm::erf(self)
    }
    #[inline]
    fn of(v: f64) -> Self {
        v
    }
    #[inline]
    fn f64(self) -> f64 {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::Scalar;

    #[test]
    fn fast_exp_is_within_3e_7_relative_and_keeps_nan() {
        let mut x = -87.0_f32;
        while x < 88.0 {
            let (fast, exact) = (x.exp_fast(), f64::from(x).exp());
            let rel = ((f64::from(fast) - exact) / exact).abs();
            assert!(rel < 3e-7, "exp({x}) = {fast}, want {exact}: {rel:e}");
            x += 0.0137;
        }
        assert!(f32::NAN.exp_fast().is_nan());
        assert!(f32::NEG_INFINITY.exp_fast() < 1e-37);
        assert_eq!(0.0_f32.exp_fast(), 1.0);
    }
}
