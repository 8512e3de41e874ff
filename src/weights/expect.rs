//! What a checkpoint should hold, tensor by tensor, and where each goes
//! in the model: the words every naming (GPT-2's, Llama's) is read in.

/// Where a file tensor goes in the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// To this parameter as it is (a vector, or an [in, out] matrix).
    Same(String),
    /// To this parameter, transposed from [out, in].
    Transposed(String),
    /// Split into `{prefix}.q_proj`, `k_proj`, `v_proj` (`.weight` or `.bias`)
    /// of widths d, kv, kv.
    Qkv {
        /// Our attention's path, e.g. `block1.attn` (blocks count from 1).
        prefix: String,
        /// `weight` or `bias`.
        part: &'static str,
        /// q's width, d_model.
        d: usize,
        /// k's and v's width each, kv_heads · head_dim.
        kv: usize,
        /// Whether the fused matrix is stored [out, in] (nanoGPT).
        transposed: bool,
    },
    /// An embedding or the LM head: its shape is checked when the config
    /// has a vocabulary (without one its V is unknown).
    Embedding {
        /// Our parameter: `wte`, `wpe` or `lm_head.weight`.
        to: &'static str,
        /// Whether the file stores it [V, d] for our (d, V) (the head).
        transposed: bool,
    },
}

/// One tensor the file should hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// The tensor's name in the file, e.g. `transformer.h.0.attn.c_attn.weight`.
    pub name: String,
    /// The shape the file should store it in.
    pub shape: Vec<usize>,
    /// Where it goes in the model.
    pub target: Target,
}

impl Expect {
    /// The model's parameters it fills, e.g. `block1.attn.q_proj.weight`
    /// (three for a fused q/k/v matrix).
    #[must_use]
    pub fn fills(&self) -> Vec<String> {
        match &self.target {
            Target::Same(to) | Target::Transposed(to) => vec![to.clone()],
            Target::Qkv { prefix, part, .. } => ["q", "k", "v"]
                .map(|n| format!("{prefix}.{n}_proj.{part}"))
                .to_vec(),
            Target::Embedding { to, .. } => vec![(*to).to_string()],
        }
    }
}

/// The tensors of one naming, listed in the words every family's table
/// is written in: a norm, a linear layer stored [out, in], a tensor kept
/// as it is.
#[derive(Debug, Default)]
pub struct List(pub Vec<Expect>);

impl List {
    /// `file`, stored as `shape`, goes to `to` as it is.
    pub fn same(&mut self, file: String, shape: Vec<usize>, to: String) {
        self.0.push(Expect {
            name: file,
            shape,
            target: Target::Same(to),
        });
    }

    /// A norm of width `d`: `{file}.weight` → `{ours}.weight`, and the
    /// bias β when `bias`.
    pub fn norm(&mut self, file: &str, ours: &str, d: usize, bias: bool) {
        self.same(format!("{file}.weight"), vec![d], format!("{ours}.weight"));
        if bias {
            self.same(format!("{file}.bias"), vec![d], format!("{ours}.bias"));
        }
    }

    /// A linear layer of ours (in, out), stored [out, in] (`nn.Linear`):
    /// `{file}.weight` → `{ours}.weight` transposed, and `{file}.bias`
    /// (out) when `bias`.
    pub fn linear(
        &mut self,
        file: &str,
        ours: &str,
        (fan_in, fan_out): (usize, usize),
        bias: bool,
    ) {
        self.0.push(Expect {
            name: format!("{file}.weight"),
            shape: vec![fan_out, fan_in],
            target: Target::Transposed(format!("{ours}.weight")),
        });
        if bias {
            self.same(
                format!("{file}.bias"),
                vec![fan_out],
                format!("{ours}.bias"),
            );
        }
    }

    /// An embedding table or the LM head ([`Target::Embedding`]).
    pub fn table(&mut self, file: String, shape: Vec<usize>, to: &'static str, transposed: bool) {
        self.0.push(Expect {
            name: file,
            shape,
            target: Target::Embedding { to, transposed },
        });
    }
}

/// The optional token embedding `wte` and LM head of a Hugging Face
/// checkpoint, both stored (V, d): `wte_name` as it is, `head_name`
/// transposed to our (d, V).
#[must_use]
pub fn ends(wte_name: String, head_name: &str, v: usize, d: usize) -> [Expect; 2] {
    [
        (wte_name, "wte", false),
        (head_name.to_string(), "lm_head.weight", true),
    ]
    .map(|(name, to, transposed)| Expect {
        name,
        shape: vec![v, d],
        target: Target::Embedding { to, transposed },
    })
}
