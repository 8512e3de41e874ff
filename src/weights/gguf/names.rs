//! llama.cpp's tensor names under Hugging Face Llama's, and its
//! converter's q/k row order undone.
//!
//! ```text
//! token_embd.weight            model.embed_tokens.weight
//! output_norm.weight           model.norm.weight
//! output.weight                lm_head.weight (absent when tied)
//! blk.N.attn_norm.*            model.layers.N.input_layernorm.*
//! blk.N.attn_{q,k,v}.*         model.layers.N.self_attn.{q,k,v}_proj.*
//! blk.N.attn_output.*          model.layers.N.self_attn.o_proj.*
//! blk.N.ffn_norm.*             model.layers.N.post_attention_layernorm.*
//! blk.N.ffn_{gate,up,down}.*   model.layers.N.mlp.{gate,up,down}_proj.*
//! anything else                its own name (the Llama naming lists it as unknown)
//! ```
//!
//! convert_hf_to_gguf.py stores a llama q (k) projection, torch [out, in]
//! with out = heads · hd, with its rows reordered per head: row h·hd + 2i + j
//! of the file is row h·hd + j·hd/2 + i of the model (i < hd/2, j < 2), so
//! that ggml's adjacent-pair rotation computes the model's half-split
//! one. [`unpermute`] puts them back.

/// Whole names: llama.cpp's prefix, Hugging Face's.
const WHOLE: [(&str, &str); 3] = [
    ("token_embd.", "model.embed_tokens."),
    ("output_norm.", "model.norm."),
    ("output.", "lm_head."),
];

/// A block's parts: after `blk.N.`, after `model.layers.N.`.
const PARTS: [(&str, &str); 9] = [
    ("attn_norm.", "input_layernorm."),
    ("attn_q.", "self_attn.q_proj."),
    ("attn_k.", "self_attn.k_proj."),
    ("attn_v.", "self_attn.v_proj."),
    ("attn_output.", "self_attn.o_proj."),
    ("ffn_norm.", "post_attention_layernorm."),
    ("ffn_gate.", "mlp.gate_proj."),
    ("ffn_up.", "mlp.up_proj."),
    ("ffn_down.", "mlp.down_proj."),
];

/// `name` renamed by the tables, from the left names to the right ones
/// (`to_hf`) or back: a whole name's prefix, else `{block}N.` and a part.
fn renamed(name: &str, to_hf: bool) -> String {
    let (blk, layers) = ("blk.", "model.layers.");
    let (from_block, to_block) = if to_hf { (blk, layers) } else { (layers, blk) };
    let pick = |(a, b): (&'static str, &'static str)| if to_hf { (a, b) } else { (b, a) };
    for (from, to) in WHOLE.map(pick) {
        if let Some(rest) = name.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    let Some((n, rest)) = name
        .strip_prefix(from_block)
        .and_then(|r| r.split_once('.'))
        .filter(|(n, _)| n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty())
    else {
        return name.to_string();
    };
    for (from, to) in PARTS.map(pick) {
        if let Some(tail) = rest.strip_prefix(from) {
            return format!("{to_block}{n}.{to}{tail}");
        }
    }
    name.to_string()
}

/// The Hugging Face name of the GGUF tensor `name`.
#[must_use]
pub fn hf_name(name: &str) -> String {
    renamed(name, true)
}

/// The GGUF name of the Hugging Face tensor `name` (the file's own, for
/// messages): `model.norm.weight` → `output_norm.weight`.
#[must_use]
pub fn gguf_name(name: &str) -> String {
    renamed(name, false)
}

/// Which projection's rows the converter reordered: `Some(true)` for q,
/// `Some(false)` for k, by the GGUF name.
#[must_use]
pub fn permuted(name: &str) -> Option<bool> {
    let rest = name.strip_prefix("blk.")?.split_once('.')?.1;
    match rest {
        "attn_q.weight" | "attn_q.bias" => Some(true),
        "attn_k.weight" | "attn_k.bias" => Some(false),
        _ => None,
    }
}

/// `values`, rows of `width` elements, `heads · hd` of them, in the
/// model's order again (see the module's table). The caller checked that
/// the rows split into `heads` heads of an even `hd`.
#[must_use]
pub fn unpermute(values: &[f32], width: usize, heads: usize) -> Vec<f32> {
    let rows = values.len() / width.max(1);
    let hd = rows / heads.max(1);
    let half = hd / 2;
    let mut out = vec![0.0; values.len()];
    for h in 0..heads {
        for i in 0..half {
            for j in 0..2 {
                let from = (h * hd + 2 * i + j) * width;
                let to = (h * hd + j * half + i) * width;
                out[to..to + width].copy_from_slice(&values[from..from + width]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_hugging_face_llama() {
        assert_eq!(
            hf_name("blk.12.ffn_down.weight"),
            "model.layers.12.mlp.down_proj.weight"
        );
        assert_eq!(hf_name("output.weight"), "lm_head.weight");
        assert_eq!(hf_name("blk.x.ffn_down.weight"), "blk.x.ffn_down.weight");
        assert_eq!(permuted("blk.0.attn_k.weight"), Some(false));
        assert_eq!(permuted("blk.0.attn_v.weight"), None);
    }

    #[test]
    fn unpermute_undoes_the_converters_reorder() {
        // 2 heads of hd 4, rows of width 1: the converter's reshape(2, 2,
        // 2).swapaxes(1, 2) maps model rows [0 1 2 3 | 4 5 6 7] to
        // [0 2 1 3 | 4 6 5 7].
        let stored = [0., 2., 1., 3., 4., 6., 5., 7.];
        assert_eq!(
            unpermute(&stored, 1, 2),
            vec![0., 1., 2., 3., 4., 5., 6., 7.]
        );
        assert_ne!(
            unpermute(&stored, 1, 1),
            vec![0., 1., 2., 3., 4., 5., 6., 7.]
        );
    }
}
