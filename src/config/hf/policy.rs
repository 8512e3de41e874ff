//! The one policy for a config.json's fields, in every family:
//!
//! - a field known to change nothing shapetrace computes (token ids,
//!   dropout rates, the storage dtype, generation settings, …) is
//!   accepted silently: [`SILENT`];
//! - a field that changes the computation or the count is applied, or
//!   refused (exit 2) naming the field and what is supported: the family
//!   readers `gpt2.rs` and `llama.rs` read every such field;
//! - a field seen nowhere here is accepted with a one-line note naming it,
//!   so that a newer transformers release still loads: [`note`].

use super::fields::Fields;

/// Fields that change nothing shapetrace computes, in any family.
pub const SILENT: &[&str] = &[
    // What the file is and what wrote it.
    "architectures",
    "model_type",
    "transformers_version",
    "_name_or_path",
    "torch_dtype",
    "dtype",
    "auto_map",
    // Token ids and labels: the tokenizer's business.
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "sep_token_id",
    "decoder_start_token_id",
    "id2label",
    "label2id",
    "problem_type",
    "tokenizer_class",
    "prefix",
    // Training only: dropout is off in a forward for inference, and the
    // initial range is replaced by the weights used.
    "initializer_range",
    "attention_dropout",
    "hidden_dropout",
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "summary_first_dropout",
    // Llama's tensor-parallel split of its matmuls: the same sums.
    "pretraining_tp",
    // A mixture of experts' training terms: the load-balancing loss, the
    // router logits it reads, and noise on the router applied only while
    // training (transformers' Mixtral checks `self.training`).
    "router_aux_loss_coef",
    "output_router_logits",
    "router_jitter_noise",
    // GPT-2's upcast of the softmax to f32, which shapetrace's 16-bit
    // runs always do, and its double-heads classifier, not traced.
    "reorder_and_upcast_attn",
    "summary_type",
    "summary_use_proj",
    "summary_activation",
    "summary_proj_to_labels",
    // How the framework runs or returns, not what it computes.
    "use_cache",
    "attn_implementation",
    "_attn_implementation",
    "cache_implementation",
    "return_dict",
    "output_attentions",
    "output_hidden_states",
    "torchscript",
    "chunk_size_feed_forward",
    "task_specific_params",
    // Generation settings.
    "max_length",
    "min_length",
    "do_sample",
    "num_beams",
    "temperature",
    "top_k",
    "top_p",
    "repetition_penalty",
];

/// The note naming every field present that no family reader read and
/// [`SILENT`] does not list (`extra` adds keys found inside a field),
/// each escaped, the first few of a long list then a count.
pub fn note(f: &Fields, extra: Vec<String>) -> Option<String> {
    let mut unknown: Vec<String> = f.unread(SILENT).into_iter().map(String::from).collect();
    unknown.extend(extra);
    (!unknown.is_empty()).then(|| {
        format!(
            "{}: {} unknown to shapetrace for model_type {}, read as changing nothing: {}",
            crate::text::shown(f.path),
            if unknown.len() == 1 {
                "a field"
            } else {
                "fields"
            },
            crate::text::shown(f.model_type),
            crate::text::listed(&unknown)
        )
    })
}
