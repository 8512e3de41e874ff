//! Why the stepper traces again: the first full trace after it opened on
//! shapes, or a key that switched one setting of the model.

use crate::config::ModelConfig;
use std::fmt;

/// Why a trace is run: the first full trace, with values, after the
/// stepper opened on shapes; or a live switch of the model.
/// Shown as `values` or the switch's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retrace {
    /// The full trace that replaces the shape-only one `App::open` shows.
    Values,
    /// A key changed one setting of the model.
    Switch(Switch),
}

/// A setting of the model a key switches live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// The FFN's activation function.
    Activation,
    /// LayerNorm or RMSNorm.
    Norm,
    /// Pre-LN or post-LN.
    Placement,
    /// The teaching fault, or none.
    Fault,
}

impl Switch {
    /// The setting's new value in `cfg`, as shown, e.g. `relu`.
    pub(super) fn value(self, cfg: &ModelConfig) -> String {
        match self {
            Switch::Activation => cfg.act.to_string(),
            Switch::Norm => cfg.norm.to_string(),
            Switch::Placement => cfg.placement.to_string(),
            Switch::Fault => cfg
                .fault
                .map_or_else(|| "none".to_string(), |f| f.to_string()),
        }
    }
}

impl fmt::Display for Switch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Switch::Activation => "activation",
            Switch::Norm => "norm",
            Switch::Placement => "placement",
            Switch::Fault => "fault",
        })
    }
}

impl fmt::Display for Retrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Retrace::Values => f.write_str("values"),
            Retrace::Switch(s) => fmt::Display::fmt(s, f),
        }
    }
}
