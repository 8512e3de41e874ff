//! A config read off a checkpoint's tensor shapes, for `--weights` without
//! `--config` or `--preset`.
//!
//! - d_model: `h.0.ln_1.weight` (d); layers: how many `h.{i}` blocks
//! - d_ff: `h.0.mlp.c_fc.weight`; kv-heads: from the width of c_attn
//! - bias: whether `h.0.attn.c_attn.bias` exists; final norm: `ln_f.weight`
//! - vocab and context: `wte.weight` and `wpe.weight`, when present
//! - activation: exact GELU for nanoGPT, tanh GELU for Hugging Face GPT-2
//! - heads: not in the file; the caller gives them (`--heads`)
//!
//! Llama/Mistral names are read in [`super::llama`].

use super::names::Layout;
use super::{Checkpoint, WeightsError};
use crate::config::file::Overlay;
use crate::config::{Act, NormKind, Placement};

impl Checkpoint {
    /// How many blocks the file holds (block i's tensor named below, from
    /// 0 on), and their width d_model (its first axis in block 0), if it
    /// has one.
    ///
    /// ```text
    /// GPT-2   h.{i}.ln_1.weight (d)          Llama, GPT-NeoX  layers.{i}.input_layernorm.weight (d)
    /// OPT     layers.{i}.self_attn_layer_norm.weight (d)
    /// BERT    encoder.layer.{i}.output.LayerNorm.weight (d)
    /// Falcon  h.{i}.self_attention.dense.weight (d, h·hd)
    /// ```
    #[must_use]
    pub fn blocks(&self) -> (usize, Option<usize>) {
        // GPT-NeoX numbers its layers as Llama does.
        if matches!(self.naming.layout, Layout::Llama | Layout::NeoX) {
            return self.llama_blocks();
        }
        let (r, h) = (&self.naming.root, &self.file);
        let name = |i: usize| match self.naming.layout {
            Layout::Opt => format!("{r}layers.{i}.self_attn_layer_norm.weight"),
            Layout::Bert => format!("{r}encoder.layer.{i}.output.LayerNorm.weight"),
            Layout::Falcon => format!("{r}h.{i}.self_attention.dense.weight"),
            _ => format!("{r}h.{i}.ln_1.weight"),
        };
        let layers = (0..).take_while(|&i| h.shape(&name(i)).is_some()).count();
        let d = h.shape(&name(0));
        (layers, d.and_then(|s| s.first().copied()))
    }

    /// The model these tensors describe, with `heads` attention heads.
    ///
    /// # Errors
    /// [`WeightsError::NeedHeads`] when `heads` is `None` (for Llama
    /// names [`WeightsError::LlamaHeads`], also when they do not fit), and
    /// [`WeightsError::Mismatch`] when block 0 is incomplete.
    pub fn infer(&self, heads: Option<usize>) -> Result<Overlay, WeightsError> {
        if self.naming.layout.needs_config() {
            return Err(WeightsError::NeedsConfig {
                path: self.path().to_string(),
                family: self.naming.layout.family(),
            });
        }
        if self.naming.layout == Layout::Llama {
            return self.infer_llama(heads);
        }
        let r = &self.naming.root;
        let h = &self.file;
        let dim = |name: String, axis: usize| h.shape(&name).and_then(|s| s.get(axis).copied());
        let missing = |what: &str| WeightsError::Mismatch {
            path: self.path().to_string(),
            why: String::new(),
            count: 1,
            list: format!("missing {r}h.0.{what}, needed to infer the model"),
            hint: "",
        };
        let (layers, d) = self.blocks();
        let d = d.ok_or_else(|| missing("ln_1.weight"))?;
        // The out axis of a matrix: first in nanoGPT's layout, last in Conv1D's.
        let out_axis = usize::from(self.naming.layout == Layout::HfConv1d);
        let d_ff =
            dim(format!("{r}h.0.mlp.c_fc.weight"), out_axis).ok_or_else(|| missing("mlp.c_fc"))?;
        let qkv = dim(format!("{r}h.0.attn.c_attn.weight"), out_axis).unwrap_or(3 * d);
        let Some(heads) = heads else {
            return Err(WeightsError::NeedHeads {
                d_model: d,
                allowed: crate::config::divisors(d),
            });
        };
        // Heads that do not divide d are named by the config's validation.
        let kv_width = qkv.saturating_sub(d) / 2;
        let kv_heads = (kv_width / (d / heads.max(1)).max(1)).max(1);
        Ok(Overlay {
            d_model: Some(d),
            heads: Some(heads),
            kv_heads: Some(kv_heads),
            d_ff: Some(d_ff),
            layers: Some(layers),
            act: Some(match self.naming.layout {
                Layout::HfConv1d => Act::GeluTanh,
                _ => Act::Gelu,
            }),
            norm: Some(NormKind::LayerNorm),
            placement: Some(Placement::Pre),
            bias: Some(h.shape(&format!("{r}h.0.attn.c_attn.bias")).is_some()),
            final_norm: Some(h.shape(&format!("{r}ln_f.weight")).is_some()),
            vocab: Some(dim(format!("{r}wte.weight"), 0).unwrap_or(0)),
            context: Some(dim(format!("{r}wpe.weight"), 0).unwrap_or(0)),
            // A file with its own head is untied: its head is what runs.
            tied: Some(
                h.shape(&format!("{}lm_head.weight", self.naming.outer))
                    .is_none(),
            ),
            eps: Some(1e-5),
            ..Overlay::default()
        })
    }
}
