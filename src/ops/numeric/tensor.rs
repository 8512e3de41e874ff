//! The numeric backend's tensor: an owned array (every activation, every
//! seeded weight), or a checkpoint's weight left where it lies in the
//! file's mapping ([`Mapped`]).
//!
//! An op reads its operands through [`Tensor::array`] (activations: the
//! array itself; a mapped tensor in an activation's place is converted for
//! that op) or [`Tensor::read`] (weights: a view of the mapping for F32, or
//! the values widened to f32 for that op alone, dropped after it; or kept
//! from the first read on, when the memory limit holds the model in f32).
//! So an F32 checkpoint is never copied, and a 16-bit one costs one
//! weight's f32 values at a time, not the model's, unless the limit
//! affords the model's.

use super::Scalar;
use crate::ops::mapped::Mapped;
use ndarray::{ArrayD, CowArray, IxDyn};
use std::borrow::Cow;

/// Values of `F`: owned, or a mapped checkpoint tensor.
#[derive(Debug, Clone)]
pub enum Tensor<F> {
    /// An array in memory.
    Owned(ArrayD<F>),
    /// A checkpoint tensor, read in place (F32) or widened per op (F16,
    /// BF16). Only an f32 backend holds these.
    Mapped(Mapped),
}

impl<F> From<ArrayD<F>> for Tensor<F> {
    fn from(a: ArrayD<F>) -> Self {
        Tensor::Owned(a)
    }
}

impl<F: Scalar> Tensor<F> {
    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        match self {
            Tensor::Owned(a) => a.shape(),
            Tensor::Mapped(m) => m.shape(),
        }
    }

    /// The array, borrowed when owned; a mapped tensor converted to an
    /// owned row-major array.
    #[must_use]
    pub fn array(&self) -> Cow<'_, ArrayD<F>> {
        match self {
            Tensor::Owned(a) => Cow::Borrowed(a),
            Tensor::Mapped(m) => Cow::Owned(F::from_f32s(m.widen())),
        }
    }

    /// The values as a view: of the array, of the mapping (F32 in place),
    /// or of the values widened to `F` for as long as it is held (in the
    /// stored order, strided as the mapping is: a transposed weight is
    /// multiplied as it lies, never copied into rows).
    #[must_use]
    pub fn read(&self) -> CowArray<'_, F, IxDyn> {
        match self {
            Tensor::Owned(a) => CowArray::from(a.view()),
            Tensor::Mapped(m) => match m.view().and_then(F::in_place) {
                Some(v) => CowArray::from(v),
                None => match m.kept().and_then(|k| F::in_place(k.view())) {
                    Some(v) => CowArray::from(v),
                    None => CowArray::from(F::from_f32s(m.widen_strided())),
                },
            },
        }
    }

    /// The array, handed over (a mapped tensor converted).
    #[must_use]
    pub fn into_array(self) -> ArrayD<F> {
        match self {
            Tensor::Owned(a) => a,
            Tensor::Mapped(m) => F::from_f32s(m.widen()),
        }
    }

    /// The mapped tensor behind it, if it is one.
    #[must_use]
    pub fn mapped(&self) -> Option<&Mapped> {
        match self {
            Tensor::Owned(_) => None,
            Tensor::Mapped(m) => Some(m),
        }
    }
}

/// Equal shapes and values, however each is held.
impl<F: Scalar> PartialEq for Tensor<F> {
    fn eq(&self, other: &Self) -> bool {
        self.read() == other.read()
    }
}
