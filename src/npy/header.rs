//! The `.npy` version and header dict, read strictly.
//!
//! NumPy writes `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 64), }`
//! and reads it back with a Python literal evaluator. Searching the text
//! for each key (as this reader once did) accepts headers NumPy would not:
//! an expression `(2*1, 4, 64)`, a key given twice, extra keys. So the
//! header is parsed as the one dict literal it must be: exactly the keys
//! `descr` (a string), `fortran_order` (`True` or `False`) and `shape` (a
//! tuple of whole numbers), each once, in any order, with Python's quotes,
//! spacing and trailing commas. Anything else is refused naming what was
//! found, in words the caller shows escaped.

/// What the header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

/// The versions read, as NumPy defines them.
pub const VERSIONS: &str = "1.0, 2.0, 3.0";

/// How many bytes hold the header length for version `major.minor`: 2 for
/// 1.0, 4 for 2.0 and 3.0; any other version is refused naming it.
///
/// # Errors
/// The version and the ones allowed.
pub fn length_bytes(major: u8, minor: u8) -> Result<usize, String> {
    match (major, minor) {
        (1, 0) => Ok(2),
        (2 | 3, 0) => Ok(4),
        _ => Err(format!(
            "version {major}.{minor} (versions read: {VERSIONS})"
        )),
    }
}

const KEYS: &str = "'descr', 'fortran_order', 'shape'";

struct Cursor<'a> {
    rest: &'a str,
}

impl Cursor<'_> {
    fn skip_space(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t', '\n', '\r']);
    }

    /// Skips spacing, then takes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        match self.rest.strip_prefix(c) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    /// What comes next, for a message: a short quote, or the end.
    fn found(&self) -> String {
        let t = self.rest.trim_end();
        if t.is_empty() {
            return "the end of the header".into();
        }
        let quote: String = t.chars().take(16).collect();
        let more = if t.chars().count() > 16 { "…" } else { "" };
        format!("`{quote}{more}`")
    }

    fn expected(&self, what: &str) -> String {
        format!("expected {what}, found {}", self.found())
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    /// A quoted string without escapes.
    fn string(&mut self, what: &str) -> Result<String, String> {
        self.skip_space();
        let Some(q) = self.rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
            return Err(self.expected(what));
        };
        let body = &self.rest[1..];
        match body.find([q, '\\', '\n']) {
            Some(end) if body[end..].starts_with(q) => {
                self.rest = &body[end + 1..];
                Ok(body[..end].to_string())
            }
            _ => Err(self.expected(what)),
        }
    }

    fn boolean(&mut self) -> Result<bool, String> {
        self.skip_space();
        for (word, v) in [("True", true), ("False", false)] {
            if let Some(r) = self.rest.strip_prefix(word)
                && !r.starts_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                self.rest = r;
                return Ok(v);
            }
        }
        Err(self.expected("True or False for 'fortran_order'"))
    }

    fn whole(&mut self) -> Result<usize, String> {
        self.skip_space();
        let end = self
            .rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.rest.len());
        let n = self.rest[..end]
            .parse()
            .map_err(|_| self.expected("a whole number in 'shape'"))?;
        self.rest = &self.rest[end..];
        Ok(n)
    }

    /// `()`, `(3,)`, `(2, 4, 64)` or `(2, 4, 64,)`; `(3)` is a number in
    /// Python, not a tuple.
    fn tuple(&mut self) -> Result<Vec<usize>, String> {
        self.expect('(', "a tuple like (2, 4, 64) for 'shape'")?;
        let mut dims = Vec::new();
        if self.eat(')') {
            return Ok(dims);
        }
        loop {
            dims.push(self.whole()?);
            if self.eat(',') {
                if self.eat(')') {
                    return Ok(dims);
                }
            } else if self.eat(')') && dims.len() > 1 {
                return Ok(dims);
            } else {
                return Err(self.expected("',' in the 'shape' tuple"));
            }
        }
    }
}

/// Parses the header text (after the length field, padding included).
///
/// # Errors
/// What is wrong and what was found, e.g. "unknown key 'extra'".
pub fn parse(text: &str) -> Result<Header, String> {
    let mut c = Cursor { rest: text };
    c.expect('{', "a dict literal starting with '{'")?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        if c.eat('}') {
            break;
        }
        let key = c.string("a quoted key")?;
        c.expect(':', "':' after the key")?;
        let twice = match key.as_str() {
            "descr" => descr.replace(c.string("a quoted string for 'descr'")?),
            "fortran_order" => fortran.replace(c.boolean()?).map(|b| b.to_string()),
            "shape" => shape.replace(c.tuple()?).map(|_| String::new()),
            other => {
                return Err(format!(
                    "unknown key '{other}' in the header (keys read: {KEYS})"
                ));
            }
        };
        if twice.is_some() {
            return Err(format!("key '{key}' appears twice in the header"));
        }
        if !c.eat(',') {
            c.expect('}', "',' or '}' after a value")?;
            break;
        }
    }
    c.skip_space();
    if !c.rest.is_empty() {
        return Err(format!("found {} after the header's dict", c.found()));
    }
    let missing = |k: &str| format!("no '{k}' in the header (keys read: {KEYS})");
    Ok(Header {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::{Header, length_bytes, parse};

    fn ok(text: &str) -> Header {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn refused(text: &str, needle: &str) {
        let e = parse(text).expect_err(text);
        assert!(e.contains(needle), "{text}: {e}");
    }

    #[test]
    fn what_numpy_writes_is_read() {
        let h = ok("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 64), }      \n");
        assert_eq!(h.descr, "<f4");
        assert!(!h.fortran_order);
        assert_eq!(h.shape, vec![2, 4, 64]);
        assert_eq!(
            ok("{\"shape\": (3,), \"descr\": \"<f8\", \"fortran_order\": True}").shape,
            vec![3]
        );
        assert_eq!(
            ok("{'descr':'<f4','fortran_order':False,'shape':()}").shape,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn anything_but_the_plain_literal_is_refused() {
        refused(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2*1, 4, 64), }",
            "`*1, 4, 64), }`",
        );
        refused(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 64), 'extra': 1}",
            "unknown key 'extra'",
        );
        refused(
            "{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}",
            "'descr' appears twice",
        );
        refused("{'descr': '<f4', 'shape': (2,)}", "no 'fortran_order'");
        refused(
            "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
            "True or False",
        );
        refused(
            "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}",
            "True or False",
        );
        refused(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
            "','",
        );
        refused(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
            "after the header's dict",
        );
        refused("dict(descr='<f4')", "a dict literal");
        refused(
            "{'descr': '<\\x66', 'fortran_order': False, 'shape': (2,)}",
            "'descr'",
        );
        refused("{'descr': '<f4' 'fortran_order': False}", "',' or '}'");
        refused("", "the end of the header");
    }

    #[test]
    fn only_the_known_versions_are_read() {
        assert_eq!(length_bytes(1, 0), Ok(2));
        assert_eq!(length_bytes(2, 0), Ok(4));
        assert_eq!(length_bytes(3, 0), Ok(4));
        let e = length_bytes(9, 0).unwrap_err();
        assert!(
            e.contains("version 9.0") && e.contains("1.0, 2.0, 3.0"),
            "{e}"
        );
        assert!(length_bytes(1, 1).is_err());
    }
}
