//! Reading a config.json's fields: each read is checked (type, range) and
//! remembered, so that what no reader asked for can be named afterwards.

use super::HfError;
use crate::config::Act;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;

/// A config.json's top-level object, with the fields read so far.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    pub path: &'a str,
    pub model_type: &'a str,
    read: RefCell<BTreeSet<String>>,
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>, path: &'a str, model_type: &'a str) -> Self {
        Self {
            map,
            path,
            model_type,
            read: RefCell::new(BTreeSet::new()),
        }
    }

    /// The field's value, remembered as read; `None` when absent or null.
    pub fn get(&self, field: &str) -> Option<&'a Value> {
        self.read.borrow_mut().insert(field.to_string());
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// Whether the file has the field at all (null included), remembered
    /// as read: where transformers' default differs from null's "none".
    pub fn has(&self, field: &str) -> bool {
        self.read.borrow_mut().insert(field.to_string());
        self.map.contains_key(field)
    }

    /// The fields present that no reader asked for and `known` does not
    /// list, in the file's key order (sorted).
    pub fn unread(&self, known: &[&str]) -> Vec<&'a str> {
        let read = self.read.borrow();
        self.map
            .keys()
            .filter(|k| !read.contains(*k) && !known.contains(&k.as_str()))
            .map(String::as_str)
            .collect()
    }

    pub fn bad(&self, field: &'static str, allowed: &str) -> HfError {
        HfError::Bad {
            path: self.path.into(),
            field,
            got: self
                .map
                .get(field)
                .map_or("absent".into(), ToString::to_string),
            allowed: allowed.into(),
        }
    }

    /// A whole number ≥ 1, `None` when absent or null.
    pub fn opt_dim(&self, field: &'static str) -> Result<Option<usize>, HfError> {
        match self.get(field) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|&n| n >= 1)
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| self.bad(field, "a whole number ≥ 1")),
        }
    }

    pub fn dim(&self, field: &'static str) -> Result<usize, HfError> {
        self.opt_dim(field)?.ok_or_else(|| HfError::Missing {
            path: self.path.into(),
            field,
            model_type: self.model_type.into(),
        })
    }

    pub fn flag(&self, field: &'static str, default: bool) -> Result<bool, HfError> {
        match self.get(field) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| self.bad(field, "true or false")),
        }
    }

    pub fn positive(&self, field: &'static str, default: f64) -> Result<f64, HfError> {
        match self.get(field) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|e| *e > 0.0)
                .ok_or_else(|| self.bad(field, "a number > 0")),
        }
    }

    /// An activation by Hugging Face's name (`ACT2FN`). The three tanh
    /// forms (`gelu_new`, `gelu_fast`, `gelu_pytorch_tanh`) are one
    /// function, ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), written three
    /// ways; `silu` is returned as the gated [`Act::Swiglu`] and a
    /// non-gated family takes it back to [`Act::Silu`].
    pub fn act(&self, field: &'static str, default: &str, allowed: &str) -> Result<Act, HfError> {
        let name = match self.get(field) {
            None => default,
            Some(v) => v.as_str().ok_or_else(|| self.bad(field, allowed))?,
        };
        match name {
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Ok(Act::GeluTanh),
            "gelu" => Ok(Act::Gelu),
            "relu" => Ok(Act::Relu),
            "silu" | "swish" => Ok(Act::Swiglu),
            _ => Err(self.bad(field, allowed)),
        }
    }

    /// An element-wise activation by Hugging Face's name (GPT-NeoX, Falcon,
    /// OPT, BERT: their MLP has two matrices), `default` when absent; a
    /// gated name (`silu`) is refused.
    pub fn plain_act(&self, field: &'static str, default: &str) -> Result<Act, HfError> {
        const ACTS: &str = "gelu, gelu_new, gelu_fast, gelu_pytorch_tanh, relu";
        match self.act(field, default, ACTS)? {
            Act::Swiglu => Err(self.bad(field, ACTS)),
            act => Ok(act),
        }
    }

    /// Refuses `field` when it is present with a value other than `fine`
    /// (which is what shapetrace computes).
    pub fn only(&self, field: &'static str, fine: &Value, allowed: &str) -> Result<(), HfError> {
        match self.get(field) {
            Some(v) if v != fine => Err(self.bad(field, allowed)),
            _ => Ok(()),
        }
    }
}
