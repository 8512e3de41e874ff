//! A why's arguments: a few named values, kept sorted by name in one small
//! vector. Every step of a trace holds one; a B-tree map's first node has
//! room for 11 entries and weighs about 640 bytes, a third of a step's
//! memory, where a why has two to eight arguments (README, "Numbers or
//! shapes, and the memory limit"). Written and read as the JSON object a
//! map of the same entries is, keys in order.

use super::Arg;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// Named arguments, sorted by name, each name once.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Args(Vec<(String, Arg)>);

impl Args {
    /// No arguments.
    #[must_use]
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// Sets argument `name` to `value`, replacing an earlier one.
    pub fn insert(&mut self, name: String, value: Arg) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }

    /// The argument `name`, if given.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Arg> {
        let i = self
            .0
            .binary_search_by(|(k, _)| k.as_str().cmp(name))
            .ok()?;
        Some(&self.0[i].1)
    }

    /// How many arguments there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The arguments in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Arg)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// Heap bytes the arguments' list holds (not their strings).
    #[must_use]
    pub fn list_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<(String, Arg)>()
    }
}

impl<'a> IntoIterator for &'a Args {
    type Item = (&'a String, &'a Arg);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Arg)>,
        fn(&'a (String, Arg)) -> (&'a String, &'a Arg),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl fmt::Debug for Args {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Args {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Args {
    /// As a map of the same entries reads (a repeated name: the last).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, Arg>::deserialize(d)?;
        Ok(Self(map.into_iter().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::{Arg, Args};
    use std::collections::BTreeMap;

    #[test]
    fn args_stay_sorted_and_read_and_write_as_the_map_did() {
        let mut a = Args::new();
        for (k, v) in [("shape", "(2,4)"), ("d", "x"), ("k", "y"), ("d", "z")] {
            a.insert(k.into(), Arg::Text(v.into()));
        }
        a.insert("n".into(), Arg::Num(7));
        let map: BTreeMap<String, Arg> = a.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, serde_json::to_string(&map).unwrap());
        assert_eq!(json, r#"{"d":"z","k":"y","n":7,"shape":"(2,4)"}"#);
        assert_eq!(serde_json::from_str::<Args>(&json).unwrap(), a);
        assert_eq!(a.get("d"), Some(&Arg::Text("z".into())));
        assert_eq!((a.len(), a.get("q")), (4, None));
        assert_eq!(format!("{a:?}"), format!("{map:?}"));
    }
}
