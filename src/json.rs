//! JSON read strictly: a key given twice in one object is refused.
//!
//! serde_json (and the safetensors crate on top of it) keeps the last of
//! two equal keys, so `{"n_embd": 64, "n_embd": 32}` would silently mean
//! 32 while another tool reads 64. TOML refuses such a file; config.json
//! and a safetensors header are held to the same rule with [`duplicate_key`],
//! run before the real parse.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

/// A key that appears twice in one object, and where its second copy ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The key given twice.
    pub key: String,
    /// 1-based line where its second copy ends.
    pub line: usize,
    /// Column where its second copy ends, as serde_json counts it.
    pub column: usize,
}

impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key '{}' appears twice (line {} column {}); allowed: each key once",
            crate::text::shown(&self.key),
            self.line,
            self.column
        )
    }
}

/// Walks any JSON value, remembering the first repeated key it meets.
#[derive(Clone, Copy)]
struct Walk<'a>(&'a RefCell<Option<String>>);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                *self.0.borrow_mut() = Some(key);
                return Err(de::Error::custom("duplicate key"));
            }
            seen.insert(key);
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

/// The first key repeated within one object of `text`, if any. Text that
/// is not JSON gives `None`: the real parse that follows names its error.
#[must_use]
pub fn duplicate_key(text: &[u8]) -> Option<Duplicate> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(text);
    let err = Walk(&found).deserialize(&mut de).err()?;
    let key = found.into_inner()?;
    Some(Duplicate {
        key,
        line: err.line(),
        column: err.column(),
    })
}

/// What the top level of a JSON document is, for messages: "an object",
/// "an array", "a string", …
#[must_use]
pub fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_key;

    #[test]
    fn a_repeated_key_is_found_at_any_depth() {
        let d = duplicate_key(br#"{"a": 1, "b": {"c": [{"x": 1, "x": 2}]}}"#).unwrap();
        assert_eq!(d.key, "x");
        assert_eq!(d.line, 1);
        let d = duplicate_key(b"{\"n_embd\": 64,\n \"n_embd\": 32}").unwrap();
        assert_eq!((d.key.as_str(), d.line), ("n_embd", 2));
        assert!(d.to_string().contains("'n_embd' appears twice"));
    }

    #[test]
    fn equal_keys_in_different_objects_are_fine() {
        assert_eq!(
            duplicate_key(br#"{"a": {"k": 1}, "b": {"k": 2}, "k": 3}"#),
            None
        );
        assert_eq!(duplicate_key(br#"[{"k": 1}, {"k": 2}]"#), None);
    }

    #[test]
    fn keys_are_compared_after_unescaping() {
        let d = duplicate_key(br#"{"ab": 1, "\u0061b": 2}"#).unwrap();
        assert_eq!(d.key, "ab");
    }

    #[test]
    fn text_that_is_not_json_is_left_to_the_parser() {
        assert_eq!(duplicate_key(b"{\"a\": "), None);
        assert_eq!(duplicate_key(b"hello"), None);
    }
}
