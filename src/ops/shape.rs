//! The shape-only backend: a tensor is its shape. Every op computes its
//! output shape with [`Op::infer`] and allocates nothing else.

use super::{Backend, Init, Op, OpError, Shape, Stats};
use crate::config::DType;

/// Runs ops on shapes alone, in the given dtype.
#[derive(Debug, Clone, Copy)]
pub struct ShapeOnly(pub DType);

impl Backend for ShapeOnly {
    const NUMERIC: bool = false;
    type Tensor = Shape;

    fn dtype(&self) -> DType {
        self.0
    }

    fn shape(t: &Shape) -> &[usize] {
        t
    }

    fn param(&self, shape: &[usize], _init: Init, _seed: u64) -> Shape {
        shape.to_vec()
    }

    fn load(&self, values: &crate::ops::mapped::Mapped) -> Shape {
        values.shape().to_vec()
    }

    fn ids(&self, ids: &ndarray::Array2<i64>) -> Shape {
        ids.shape().to_vec()
    }

    fn normal(&self, shape: &[usize], _seed: u64) -> Shape {
        shape.to_vec()
    }

    fn collective(&self, op: &Op, parts: &[&Shape], rest: &[&Shape]) -> Result<Shape, OpError> {
        let mine = parts.first().map_or(&[][..], |p| p.as_slice());
        let mut shapes = vec![mine];
        shapes.extend(rest.iter().map(|s| s.as_slice()));
        op.infer(&shapes)
    }

    /// A shape-only run has its own part alone: the output's bound.
    fn parts(&self, op: &Op, ins: &[&Shape]) -> Result<Vec<Shape>, OpError> {
        let shapes: Vec<&[usize]> = ins.iter().map(|s| s.as_slice()).collect();
        Ok(vec![op.infer(&shapes)?])
    }

    fn apply(&self, op: &Op, ins: &[&Shape]) -> Result<Shape, OpError> {
        let shapes: Vec<&[usize]> = ins.iter().map(|s| s.as_slice()).collect();
        op.infer(&shapes)
    }

    fn summary(&self, _t: &Shape) -> Option<(Stats, Option<Vec<f64>>)> {
        None
    }

    fn values(&self, _t: &Shape) -> Option<Vec<f64>> {
        None
    }
}
