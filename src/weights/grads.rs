//! Gradients written as a checkpoint: every parameter's gradient under
//! the name and layout the weights came from (the inverse of
//! [`super::Checkpoint::load`]), or under shapetrace's own names.
//!
//! - `Same`: as it is; `Transposed` and a transposed embedding or head:
//!   back to the file's [out, in] (Hugging Face GPT-2's Conv1D is stored
//!   [in, out], as ours, so it stays);
//! - a fused `c_attn` / `qkv`: q, k and v side by side again, (d, d + 2·kv);
//! - a tied head the file holds as well: wte's gradient, which is both.

use super::expect::{Expect, Target};
use ndarray::{ArrayD, Axis, concatenate};
use std::collections::HashMap;

/// `grads` (by our names) as the file `saved_as` names and lays them out;
/// by our own names when there is no file. Sorted by name.
#[must_use]
pub fn as_file(
    grads: &HashMap<String, ArrayD<f32>>,
    saved_as: Option<&[Expect]>,
) -> Vec<(String, ArrayD<f32>)> {
    let mut out: Vec<(String, ArrayD<f32>)> = match saved_as {
        None => grads.iter().map(|(n, g)| (n.clone(), g.clone())).collect(),
        Some(file) => file
            .iter()
            .filter_map(|e| Some((e.name.clone(), one(grads, e)?)))
            .collect(),
    };
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The gradient of the file's tensor `e`, laid out as the file holds it.
fn one(grads: &HashMap<String, ArrayD<f32>>, e: &Expect) -> Option<ArrayD<f32>> {
    let t = |g: &ArrayD<f32>| g.t().as_standard_layout().to_owned();
    match &e.target {
        Target::Same(to) => grads.get(to).cloned(),
        Target::Transposed(to) => grads.get(to).map(t),
        Target::Qkv {
            prefix,
            part,
            transposed,
            ..
        } => {
            let parts: Vec<&ArrayD<f32>> = ["q", "k", "v"]
                .iter()
                .map(|p| grads.get(&format!("{prefix}.{p}_proj.{part}")))
                .collect::<Option<_>>()?;
            let last = Axis(parts[0].ndim() - 1);
            let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
            let fused = concatenate(last, &views).ok()?;
            Some(if *transposed { t(&fused) } else { fused })
        }
        Target::Embedding { to, transposed } => {
            // A tied head is wte itself: its gradient is wte's, (V, d) as stored.
            let (g, tied) = match grads.get(*to) {
                Some(g) => (g, false),
                None if *to == "lm_head.weight" => (grads.get("wte")?, true),
                None => return None,
            };
            Some(if *transposed && !tied {
                t(g)
            } else {
                g.clone()
            })
        }
    }
}

/// The safetensors bytes of `tensors` (f32, little-endian, row-major),
/// with `meta` as the header's metadata.
///
/// # Errors
/// The library's message when a tensor cannot be laid out.
pub fn safetensors_bytes(
    tensors: &[(String, ArrayD<f32>)],
    meta: HashMap<String, String>,
) -> Result<Vec<u8>, String> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(n, a)| {
            let b = a.iter().flat_map(|v| v.to_le_bytes()).collect();
            (n.clone(), a.shape().to_vec(), b)
        })
        .collect();
    let views = bytes
        .iter()
        .map(|(n, shape, b)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), b)
                .map(|v| (n.clone(), v))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    safetensors::serialize(views, Some(meta)).map_err(|e| e.to_string())
}
