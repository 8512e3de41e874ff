//! Generation: the prompt's prefill, then one token at a time through the
//! key/value cache.
//!
//! ```text
//! prefill:   ids (B, T)  → logits (B, T, V);  every layer's cache ← k, v   (B, kv, T, hd)
//! decode n:  ids (B, 1)  → logits (B, 1, V);  the new token at position T + n − 1
//!            q (B, h, 1, hd)                   the new token alone asks
//!            k_cache, v_cache (B, kv, S, hd)   the cache with its k and v written in
//!            scores, weights (B, h, 1, S)      one row over every cached key
//!            context (B, h, 1, hd) → … → (B, 1, d)
//! ```
//!
//! Each decode step feeds the argmax of the previous pass's last logits
//! (greedy). A model without a vocabulary feeds the next row of its input
//! instead, x0 (B, 1, d) drawn from the run seed, and ends in the blocks'
//! output. Under a sliding window of w the cache is a ring of w slots
//! ([`crate::ops::Op::KvCache`]).
//!
//! Each pass is recorded in a scope of its own, `prefill` and `decode1` …
//! `decodeN`, with its own stream shape: (B, T, d) for the prefill,
//! (B, 1, d) for a decode step.

use super::{Model, input};
use crate::config::ModelConfig;
use crate::ops::Backend;
use crate::seed::seed_for;
use crate::trace::recorder::{Recorder, Stop, Val};
use ndarray::Array2;

/// One attention layer's cache: its keys (after their rotation) and
/// values, k_cache and v_cache, (B, kv, S, hd).
#[derive(Debug, Clone)]
pub struct Cache<T> {
    /// The keys of every cached position.
    pub k: Val<T>,
    /// The values of every cached position.
    pub v: Val<T>,
}

/// One attention layer's place in generation: the position of the
/// pass's first token and the cache written so far.
#[derive(Debug, Clone)]
pub struct Kv<T> {
    /// The position of the pass's first token: 0 for the prefill, T + n − 1
    /// for decode step n (the tokens before it, however many the cache
    /// keeps).
    pub at: usize,
    /// `None` until the prefill writes it.
    pub cache: Option<Cache<T>>,
}

/// What a generation run gives back.
pub struct Decoded<T> {
    /// Each pass's output, in order: the logits (B, T, V) then (B, 1, V)
    /// for each step, or the blocks' outputs (B, T, d) then (B, 1, d).
    pub outputs: Vec<T>,
    /// The token ids each pass fed, (B, T) then (B, 1) each; empty
    /// without a vocabulary.
    pub fed: Vec<Array2<i64>>,
}

/// The name of pass `n`: `prefill` for 0, `decode{n}` after.
#[must_use]
pub fn pass_name(n: usize) -> String {
    if n == 0 {
        "prefill".to_string()
    } else {
        format!("decode{n}")
    }
}

/// The seed of the input row a model without a vocabulary feeds at decode
/// step `n` (from 1).
#[must_use]
pub fn step_seed(cfg: &ModelConfig, n: usize) -> u64 {
    seed_for(cfg.seed, &format!("input.decode{n}"))
}

impl<T: Clone> Kv<T> {
    /// Every block's place before generation starts: no cache yet.
    #[must_use]
    pub fn empty(blocks: usize) -> Vec<Self> {
        (0..blocks).map(|_| Kv { at: 0, cache: None }).collect()
    }
}

impl<T: Clone> Model<T> {
    /// Records the prefill of `prompt` (ids (B, T), or with no vocabulary
    /// the seeded x0 (B, T, d)) and `cfg.decode` steps after it, each pass
    /// in its own scope (see the module's docs).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops a pass.
    pub fn generate<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        cfg: &ModelConfig,
        prompt: Option<Array2<i64>>,
    ) -> Result<Decoded<T>, Stop> {
        let backend = rec.backend();
        let mut kv = Kv::empty(self.blocks.len());
        let mut out = Decoded {
            outputs: Vec::new(),
            fed: Vec::new(),
        };
        let mut ids = prompt.filter(|_| self.ends.is_some());
        for n in 0..=cfg.decode {
            let y = self.pass(rec, cfg, &mut kv, n, ids.as_ref())?; // (B, t, V) or (B, t, d)
            // Greedy: each sequence's next token is its last row's argmax.
            if let Some(fed) = ids.take() {
                out.fed.push(fed);
                ids = Some(argmax_last(backend, y.tensor(), cfg.batch));
            }
            out.outputs.push(y.into_tensor());
        }
        Ok(out)
    }

    /// Records pass `n` of generation in its own scope: the prefill of the
    /// prompt (n = 0: T tokens at positions 0..T) or decode step n (one
    /// token at position T + n − 1), each block's attention reading and
    /// writing its cache in `kv`. `ids` are the pass's token ids, (B, T)
    /// or (B, 1); without a vocabulary the pass reads the seeded x0, (B,
    /// T, d) or (B, 1, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the pass.
    pub fn pass<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        cfg: &ModelConfig,
        kv: &mut Vec<Kv<T>>,
        n: usize,
        ids: Option<&Array2<i64>>,
    ) -> Result<Val<T>, Stop> {
        let backend = rec.backend();
        // The prefill's T tokens, then one token a step.
        let t = if n == 0 { cfg.seq } else { 1 };
        rec.set_stream(vec![cfg.batch, t, cfg.d_model]);
        let at = if n == 0 { 0 } else { cfg.seq + n - 1 };
        for layer in kv.iter_mut() {
            layer.at = at;
        }
        let mut pass = rec.pp(&pass_name(n));
        match (&self.ends, ids) {
            (Some(ends), Some(ids)) => {
                let x0 = ends.embed_at(&mut pass, backend.ids(ids), at)?; // (B, t, d)
                let x = self.stack_kv(&mut pass, Some(x0), Some(kv))?; // (B, t, d)
                ends.head(&mut pass, &x) // (B, t, V)
            }
            _ => {
                let x0 = if n == 0 {
                    input(cfg, backend)
                } else {
                    backend.normal(&[cfg.batch, 1, cfg.d_model], step_seed(cfg, n))
                };
                let x0 = pass.input(x0)?; // (B, t, d)
                self.stack_kv(&mut pass, Some(x0), Some(kv)) // (B, t, d)
            }
        }
    }
}

/// The argmax over the vocabulary of each sequence's last row of logits
/// (B, t, V) → ids (B, 1); ties go to the lower id. Token 0 where the
/// backend holds no values (shapes only).
fn argmax_last<B: Backend>(backend: &B, logits: &B::Tensor, batch: usize) -> Array2<i64> {
    let shape = B::shape(logits);
    let (t, v) = (
        shape.get(1).copied().unwrap_or(1),
        shape.last().copied().unwrap_or(1),
    );
    let values = backend.values(logits);
    Array2::from_shape_fn((batch, 1), |(b, _)| {
        let Some(values) = &values else { return 0 };
        let row = &values[(b * t + t - 1) * v..(b * t + t) * v];
        let mut best = 0;
        for (i, x) in row.iter().enumerate() {
            if *x > row[best] {
                best = i;
            }
        }
        i64::try_from(best).unwrap_or(0)
    })
}
