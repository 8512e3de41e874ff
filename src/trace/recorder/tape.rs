//! The tape: what the backward reads of a forward. Every step in the
//! order it ran, with its op, its operands (by path or parameter name)
//! and its output's values; every parameter once, with its values. A
//! shape-only run keeps the shapes alone.
//!
//! The recorder keeps one when [`super::Watch::tape`] asks for it (a run
//! with `--backward`); fused groups then run step by step, so that every
//! value the backward needs is built.

use crate::ops::{Axis, Op};
use ndarray::ArrayD;

/// Where an operand comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// The output of an earlier step, by its path: `block1.attn.q`.
    Act(String),
    /// A parameter, by its name: `block1.attn.q_proj.weight`.
    Param(String),
}

/// One step of the forward, as the backward reads it.
#[derive(Debug, Clone)]
pub struct Step {
    /// The event's path, which names its output: `block1.attn.scores`.
    pub path: String,
    /// The op; `None` for the forward's leaves, x0 (`input`) and the
    /// token ids (`tokens`).
    pub op: Option<Op>,
    /// Its operands, in the op's order.
    pub ins: Vec<Key>,
    /// The output's shape.
    pub shape: Vec<usize>,
    /// The output's axis names.
    pub axes: Vec<Axis>,
    /// The output's values widened to f64; `None` shape-only.
    pub out: Option<ArrayD<f64>>,
}

/// A parameter as the forward read it.
#[derive(Debug, Clone)]
pub struct TapeParam {
    /// Its name: `wte`, `block1.mlp.up.weight`.
    pub name: String,
    /// Its shape: (V, d), (d, d_ff).
    pub shape: Vec<usize>,
    /// Its axis names.
    pub axes: Vec<Axis>,
    /// Its values widened to f64; `None` shape-only.
    pub values: Option<ArrayD<f64>>,
}

/// The forward's steps and parameters, in the order they were first read.
#[derive(Debug, Clone, Default)]
pub struct Tape {
    /// Every step, in the order it ran.
    pub steps: Vec<Step>,
    /// Every parameter, in the order the forward first read it.
    pub params: Vec<TapeParam>,
}

impl Tape {
    /// The step whose output is at `path`.
    #[must_use]
    pub fn step(&self, path: &str) -> Option<&Step> {
        self.steps.iter().rev().find(|s| s.path == path)
    }

    /// The parameter named `name`.
    #[must_use]
    pub fn param(&self, name: &str) -> Option<&TapeParam> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The values an operand held; `None` shape-only.
    #[must_use]
    pub fn values(&self, key: &Key) -> Option<&ArrayD<f64>> {
        match key {
            Key::Act(p) => self.step(p)?.out.as_ref(),
            Key::Param(n) => self.param(n)?.values.as_ref(),
        }
    }

    /// The shape of an operand.
    #[must_use]
    pub fn shape(&self, key: &Key) -> Option<&[usize]> {
        match key {
            Key::Act(p) => self.step(p).map(|s| s.shape.as_slice()),
            Key::Param(n) => self.param(n).map(|p| p.shape.as_slice()),
        }
    }
}
