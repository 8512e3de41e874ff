//! Closed sets of names (activations, norms, …) that parse from the command
//! line and from model files with one error that lists what is allowed, and
//! the names of the contract checks (which a fault's row in
//! [`super::fault`] lists and a trace log's summary carries).

/// A name that was not one of the allowed ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{}'; allowed: {allowed}", crate::text::shown(.got))]
pub struct UnknownName {
    /// What kind of name, e.g. `activation`.
    pub what: &'static str,
    /// The name given.
    pub got: String,
    /// The allowed names, comma-separated.
    pub allowed: String,
}

/// Declares a fieldless enum whose variants have fixed kebab names, with
/// `ALL`, `as_str`, `Display`, `FromStr`, equality with `&str` and serde
/// support through the names.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $var),+ }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];

            /// The name used on the command line and in files.
            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s),+ }
            }

            /// The allowed names, comma separated.
            #[must_use]
            pub fn allowed() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        /// A name compares equal to its string, as the trace log writes it.
        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::config::names::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| {
                    $crate::config::names::UnknownName { what: $what, got: s.to_string(), allowed: Self::allowed() }
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use named_enum;

named_enum! {
    /// The name of a contract check.
    CheckName, "check" {
        /// Every op accepted its operand shapes.
        OpShapes = "op-shapes",
        /// Every residual add has two (B,T,d) operands of the input dtype.
        Residual = "residual",
        /// Every stream tensor is (B,T,d).
        Stream = "stream",
        /// Every departure returns to (B,T,d) before its residual add.
        Returns = "returns",
        /// Each block reads the previous block's output.
        Wiring = "wiring",
        /// In a mixture of experts, every token's k routes reach an expert
        /// and come back, weighted by weights that sum to 1.
        Routing = "routing",
        /// Every value is finite.
        Finite = "finite",
        /// The built model has the parameter count of the closed-form
        /// formula of its declared architecture.
        Params = "params",
        /// MLPs and norms act on each token alone.
        Positionwise = "positionwise",
        /// No output depends on a later token or another batch element.
        Causality = "causality",
        /// Each block's output agrees with a plain f64 forward written
        /// apart from the fast backend (under a fault, with that of the
        /// architecture the config declares), on the same weights and input.
        Reference = "reference",
        /// Each decode step's output, through the key/value cache, equals
        /// the full forward's at its position, computed without a cache.
        Decode = "decode",
        /// Every gradient has its tensor's shape, and agrees with central
        /// finite differences of the loss in f64.
        Grads = "grads",
        /// A model split across devices computes what the one-device
        /// model does: every device's slice computed, the communication
        /// done in memory, each residual add equal to one device's.
        Shard = "shard",
    }
}
