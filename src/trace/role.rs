//! What each activation *is* in the model, whatever its path says.
//!
//! The checks and the whys decide by role, never by a step's name: the
//! causality probe skips the [`Role::Scores`] steps (compared after the
//! mask, as weights), the return check splits a parallel block's sum at
//! its [`Role::Update`] and looks past a sandwich norm, an
//! [`Role::OutputNorm`], to the sublayer's own output. Renaming a step changes its path and
//! nothing it is judged by.
//!
//! Our model states each role where a name alone cannot say it (which
//! projection a linear is, which norm reads a sublayer's output); every
//! other step takes its role from its op ([`Role::of_op`]), and a step that
//! only moves, casts or bends its input's values (a split into heads, a
//! cast up to f32, ALiBi, a soft cap, rotary positions, an activation)
//! keeps its input's role. The log carries the role (schema 4); a log
//! written before, or by a program that does not say, is given its roles
//! once, on reading, by [`infer`].

use super::Event;
use crate::config::names::named_enum;
use crate::ops::OpKind;
use std::collections::HashMap;

named_enum! {
    /// What an activation is in the model.
    #[derive(Default)]
    Role, "role" {
        /// The model's input: x0 (B, T, d) or the token ids (B, T).
        Input = "input",
        /// A lookup of token, position or token-type embeddings, their sum
        /// and scale: x0 of a language model.
        Embedding = "embedding",
        /// A norm's output on the stream, (B, T, d), and the norm's own
        /// casts in a 16-bit model.
        Norm = "norm",
        /// A norm on a sublayer's output before its residual add (Gemma
        /// 2's sandwich norms), and its casts.
        OutputNorm = "output-norm",
        /// The queries: (B, T, h·hd), split to (B, h, T, hd), turned by
        /// rotary positions.
        Query = "query",
        /// The keys: (B, T, kv·hd) → (B, kv, T, hd), repeated to h heads.
        Key = "key",
        /// The values, as the keys.
        Value = "value",
        /// The attention scores q·kᵀ/√hd (B, h, Tq, Tk), and what is done
        /// to them before the softmax: ALiBi, a soft cap, a cast up.
        Scores = "scores",
        /// The attention weights softmax(mask(scores)) (B, h, Tq, Tk), and
        /// their cast back.
        Weights = "weights",
        /// The weights·v of each head (B, h, T, hd).
        Context = "context",
        /// The heads side by side again (B, T, h·hd).
        MergedHeads = "merged-heads",
        /// The attention sublayer's output projection (B, T, d).
        AttnOut = "attn-out",
        /// A mixture's router: its logits and probabilities (B, T, E), the
        /// chosen experts and their weights (B, T, k).
        Router = "router",
        /// The rows routed to one expert (n_e, d).
        Dispatch = "dispatch",
        /// The MLP's hidden units (B, T, ff): up, gate, their activation
        /// and product.
        MlpHidden = "mlp-hidden",
        /// The MLP's output (B, T, d): the down projection, the experts'
        /// outputs combined.
        MlpOut = "mlp-out",
        /// Parallel sublayers' updates summed before their one residual add.
        Update = "update",
        /// A residual add x + f(x), (B, T, d).
        ResidualAdd = "residual-add",
        /// The LM head's logits (B, T, V), and their soft cap.
        Logits = "logits",
        /// BERT's pooler: the first token's vector through a dense and tanh.
        Pooled = "pooled",
        /// The loss of a training step: one number.
        Loss = "loss",
        /// A gradient dL/dX, of X's shape: the backward's.
        Gradient = "gradient",
        /// Anything else: a mask, a constant, a step no rule names.
        #[default]
        Other = "other",
    }
}

impl Role {
    /// The role a step of op `kind` takes when the model names none,
    /// `input` being the role of its first activation operand: a fixed
    /// role for the ops that make one, the input's for the ops that only
    /// move, cast or bend its values, [`Role::Other`] for the rest (a
    /// linear, an add: the model names those).
    #[must_use]
    pub fn of_op(kind: OpKind, input: Option<Role>) -> Role {
        match kind {
            OpKind::Input | OpKind::Tokens => Role::Input,
            OpKind::Embedding | OpKind::Positions | OpKind::AddPositions | OpKind::TokenType => {
                Role::Embedding
            }
            OpKind::LayerNorm | OpKind::RmsNorm => Role::Norm,
            OpKind::Scores => Role::Scores,
            OpKind::Softmax => Role::Weights,
            OpKind::WeightedSum => Role::Context,
            OpKind::MergeHeads => Role::MergedHeads,
            OpKind::LmHead => Role::Logits,
            OpKind::FirstToken => Role::Pooled,
            OpKind::RouterSoftmax | OpKind::TopK | OpKind::RouteWeights => Role::Router,
            // Tokens on their way to an expert, or its rows on their way back.
            OpKind::Dispatch | OpKind::AllToAll => Role::Dispatch,
            OpKind::Combine => Role::MlpOut,
            OpKind::SplitHeads
            | OpKind::RepeatKv
            | OpKind::Rope
            | OpKind::Reshape
            | OpKind::Relu
            | OpKind::Gelu
            | OpKind::GeluTanh
            | OpKind::Silu
            | OpKind::Tanh
            | OpKind::SwiGlu
            | OpKind::GeGlu
            | OpKind::SoftCap
            | OpKind::Scale
            | OpKind::Alibi
            | OpKind::Cast
            | OpKind::KvCache
            | OpKind::Columns
            | OpKind::AllReduce
            | OpKind::AllGather
            | OpKind::ReduceScatter
            | OpKind::Scatter
            | OpKind::Send
            | OpKind::Pad => input.unwrap_or_default(),
            OpKind::Recv => Role::Input,
            OpKind::Loss => Role::Loss,
            OpKind::Grad => Role::Gradient,
            OpKind::Linear | OpKind::Add | OpKind::Other => Role::Other,
        }
    }

    /// A norm's output, on the stream or on a sublayer's output.
    #[must_use]
    pub fn is_norm(self) -> bool {
        matches!(self, Role::Norm | Role::OutputNorm)
    }
}

/// Gives every event of a log that does not carry its role (schema 3 and
/// before, or another program's log without them) a role, in order:
/// the one place a role is read from a log rather than the model.
///
/// - A residual add (it carries its operands' check) is
///   [`Role::ResidualAdd`].
/// - Our own older log (`foreign` false): an op takes [`Role::of_op`],
///   except the steps our model names, read by its fixed step names
///   (`q_proj`, `up`, `down`, `out`, `merge`, `update`, `post_ln_1`, the
///   embeddings' steps before block 1, …).
/// - Another program's log (`foreign`), by its op's name: an input, an
///   embedding, a norm op, a softmax ([`Role::Weights`]) take theirs; a
///   step marked pre-mask is [`Role::Scores`] (the writer marks the
///   product and what scales it, never the mask); a product of the
///   weights is [`Role::Context`]; a hand-written norm's last step (its
///   module named like a norm: `ln_1`, `ln1`, `input_layernorm`, `norm`)
///   is [`Role::Norm`]; a view, cast or scale of one input keeps that
///   input's role, unless it reads a norm's output or the stream.
///
/// `given[i]` says the log gave event `i` its role, which it keeps.
pub fn infer(events: &mut [Event], given: &[bool], foreign: bool) {
    let mut by_path: HashMap<String, Role> = HashMap::new();
    // Whether the run of steps in the current module holds a norm yet.
    let mut module_normed = false;
    let n = events.len();
    for i in 0..n {
        let e = &events[i];
        let m = module(&e.path);
        if i == 0 || module(&events[i - 1].path) != m {
            module_normed = false;
        }
        let first = e.inputs.first().and_then(|p| by_path.get(p)).copied();
        let role = if given.get(i).copied().unwrap_or(false) {
            e.role
        } else if e.is_residual() {
            Role::ResidualAdd
        } else if foreign {
            // A hand-written norm's output: the last step of a module named
            // like a norm that recorded no norm of its own.
            let last = events.get(i + 1).is_none_or(|x| module(&x.path) != m);
            let hand_norm = last && !module_normed && m.rsplit('.').next().is_some_and(norm_name);
            theirs(e, first, hand_norm)
        } else {
            own(e, first)
        };
        module_normed |= role.is_norm();
        by_path.insert(events[i].path.clone(), role);
        events[i].role = role;
    }
}

/// The role of a step of our own model in a log written before roles.
fn own(e: &Event, first: Option<Role>) -> Role {
    let leaf = e.path.rsplit('.').next().unwrap_or(&e.path);
    let named = match leaf {
        "q_proj" => Some(Role::Query),
        "k_proj" => Some(Role::Key),
        "v_proj" => Some(Role::Value),
        "out" => Some(Role::AttnOut),
        "merge" => Some(Role::MergedHeads),
        "up" | "gate" | "gate_up" => Some(Role::MlpHidden),
        "down" => Some(Role::MlpOut),
        "update" => Some(Role::Update),
        "router" => Some(Role::Router),
        "pooler" => Some(Role::Pooled),
        _ => None,
    };
    // A sandwich norm and its casts: `post_ln_1`, `post_ln_1.to_f32`.
    let sandwich = e.path.split('.').any(|p| p.starts_with("post_ln_"));
    // Before block 1, every step up to x0 (`input`, and BERT's norm on it
    // and its casts) is the embeddings'.
    let embeddings = e.block().is_none()
        && (e.path == "input" || e.path.starts_with("input.") || e.path.starts_with("emb"));
    match named {
        Some(r)
            if matches!(
                e.op,
                OpKind::Linear
                    | OpKind::Columns
                    | OpKind::Add
                    | OpKind::MergeHeads
                    | OpKind::Reshape
            ) =>
        {
            r
        }
        _ if sandwich => Role::OutputNorm,
        _ if embeddings && e.op != OpKind::Input => Role::Embedding,
        _ => match Role::of_op(e.op, first) {
            // A norm's casts (`ln_1.to_f32`) are the norm's.
            Role::Other | Role::Input | Role::ResidualAdd | Role::Embedding
                if e.op == OpKind::Cast && e.path.split('.').any(norm_name) =>
            {
                Role::Norm
            }
            r => r,
        },
    }
}

/// The role of a step of another program's log, by its op's name (ours
/// where shapetrace has one, `linear`, `softmax`; the writer's otherwise).
fn theirs(e: &Event, first: Option<Role>, hand_norm: bool) -> Role {
    let name = e.op_label().to_ascii_lowercase();
    match name.as_str() {
        "input" | "tokens" => Role::Input,
        "embedding" => Role::Embedding,
        _ if e.pre_mask => Role::Scores,
        "softmax" | "log_softmax" => Role::Weights,
        "matmul" | "bmm" | "einsum" | "baddbmm" | "mm" if first == Some(Role::Weights) => {
            Role::Context
        }
        "scaled_dot_product_attention" => Role::Context,
        "layernorm" | "rmsnorm" | "layer_norm" | "rms_norm" | "group_norm" => Role::Norm,
        _ if hand_norm => Role::Norm,
        "view" | "reshape" | "transpose" | "permute" | "contiguous" | "flatten" | "unflatten"
        | "expand" | "repeat" | "repeat_interleave" | "squeeze" | "unsqueeze" | "t" | "to"
        | "float" | "half" | "bfloat16" | "double" | "type_as" | "type" | "dropout" | "clone" => {
            match first {
                // A step after a norm's output or a residual add is the
                // next sublayer's, not the norm's or the add's.
                Some(Role::Norm | Role::ResidualAdd | Role::Input) | None => Role::Other,
                Some(r) => r,
            }
        }
        _ => Role::Other,
    }
}

/// The module a step ran in: its path without the step's own name.
fn module(path: &str) -> &str {
    path.rsplit_once('.').map_or("", |(m, _)| m)
}

/// Whether a module's name is a norm's: `input_layernorm`, `norm`,
/// `ln`, `ln_1`, `ln1`, `ln_f`, `lnf`.
fn norm_name(leaf: &str) -> bool {
    let leaf = leaf.to_ascii_lowercase();
    let after_ln = leaf.strip_prefix("ln");
    leaf.contains("norm")
        || after_ln.is_some_and(|r| {
            r.is_empty()
                || r == "f"
                || r.starts_with('_')
                || r.starts_with(|c: char| c.is_ascii_digit())
        })
}
