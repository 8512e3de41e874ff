//! The GGUF header, read from the file's bytes with every length checked
//! before it is used.
//!
//! ```text
//! "GGUF"  u32 version (2 or 3)  u64 tensor count  u64 metadata count
//! metadata × count:  string key, u32 value type, value
//!   string = u64 length, UTF-8 bytes; array = u32 item type, u64 count, items
//! tensor info × count:  string name, u32 n_dims (1..=4), u64 dims[n_dims]
//!   (ne[0], the contiguous axis, first), u32 ggml type, u64 offset
//! padding to the alignment (general.alignment, default 32), then the data:
//!   each tensor at data start + its offset, offsets aligned, none overlapping
//! ```
//!
//! Nothing is allocated from a count the file gives: every string and
//! array is checked against the bytes left before it is read, and the
//! header may hold at most [`MAX_HEADER`] bytes. Array items are read and
//! checked, but only their count is kept (a vocabulary's 150,000 strings
//! are walked, not stored).

use super::types::{self, GgmlType};
use std::collections::{BTreeMap, HashSet};

/// The most bytes the header (metadata and tensor infos) may hold.
pub const MAX_HEADER: u64 = 256 << 20;
/// The most axes a ggml tensor has.
pub const MAX_DIMS: u32 = 4;
/// The longest tensor name ggml allows (`GGML_MAX_NAME` less its NUL).
pub const MAX_NAME: u64 = 63;
/// How deep arrays of arrays may nest.
const MAX_DEPTH: u32 = 4;

/// One metadata value; an array keeps its item type and count.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Any integer type, widened.
    Int(i128),
    /// f32 or f64.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A string (invalid UTF-8 replaced).
    Str(String),
    /// An array: its item type's number and its length.
    Array(u32, u64),
}

/// A value as a message shows it: `7`, `'llama'`, `an array of 3 items
/// of type 4`.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => write!(f, "'{}'", crate::text::one_line(s)),
            Value::Array(t, n) => write!(f, "an array of {n} items of type {t}"),
        }
    }
}

/// One tensor as the header declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    /// Its name in the file, e.g. `blk.0.attn_q.weight`.
    pub name: String,
    /// Its dims as ggml lists them: `ne[0]` (contiguous) first.
    pub dims: Vec<u64>,
    /// Its ggml type.
    pub ty: GgmlType,
    /// Its offset from the data start.
    pub offset: u64,
    /// Its bytes (type × elements).
    pub bytes: u64,
}

/// The checked header.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// 2 or 3.
    pub version: u32,
    /// Every metadata key and value, by key.
    pub meta: BTreeMap<String, Value>,
    /// Every tensor, in file order.
    pub infos: Vec<Info>,
    /// Where the data section starts in the file.
    pub data_start: u64,
}

/// A cursor over the file's bytes that refuses to read past them.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

type R<T> = Result<T, String>;

impl<'a> Cursor<'a> {
    fn take(&mut self, n: u64, what: &str) -> R<&'a [u8]> {
        let left = self.bytes.len() - self.at;
        match usize::try_from(n) {
            Ok(n) if n <= left => {
                let s = &self.bytes[self.at..self.at + n];
                self.at += n;
                Ok(s)
            }
            _ => Err(format!(
                "{what} needs {n} bytes at byte {}, past the end of the file ({} bytes; truncated?)",
                self.at,
                self.bytes.len()
            )),
        }
    }
    fn u32(&mut self, what: &str) -> R<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &str) -> R<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn string(&mut self, what: &str) -> R<&'a [u8]> {
        let n = self.u64(what)?;
        self.take(n, &format!("{what} of length {n}"))
    }
    fn check_cap(&self) -> R<()> {
        if self.at as u64 > MAX_HEADER {
            return Err(format!(
                "its header passes the {MAX_HEADER}-byte limit (at byte {})",
                self.at
            ));
        }
        Ok(())
    }
}

/// The value types' names, for the message refusing an unknown one.
const VALUE_TYPES: &str =
    "0..=12 (u8, i8, u16, i16, u32, i32, f32, bool, string, array, u64, i64, f64)";

/// Reads one value of type `ty`.
fn value(c: &mut Cursor<'_>, ty: u32, key: &str, depth: u32) -> R<Value> {
    let int = |b: &[u8], signed: bool| -> i128 {
        let mut a = [0u8; 16];
        a[..b.len()].copy_from_slice(b);
        let u = u128::from_le_bytes(a);
        let bits = b.len() * 8;
        if signed && b[b.len() - 1] & 0x80 != 0 {
            (u | (u128::MAX << bits)).cast_signed()
        } else {
            u.cast_signed()
        }
    };
    let what = || format!("the value of {key}");
    Ok(match ty {
        0 | 1 => Value::Int(int(c.take(1, &what())?, ty == 1)),
        2 | 3 => Value::Int(int(c.take(2, &what())?, ty == 3)),
        4 | 5 => Value::Int(int(c.take(4, &what())?, ty == 5)),
        10 | 11 => Value::Int(int(c.take(8, &what())?, ty == 11)),
        // An f32 as its shortest decimal (1e-5, not 9.99999974e-6), as a
        // config.json would give it.
        6 => {
            let x = f32::from_bits(c.u32(&what())?);
            Value::Float(x.to_string().parse().unwrap_or(f64::from(x)))
        }
        12 => Value::Float(f64::from_bits(c.u64(&what())?)),
        7 => match c.take(1, &what())?[0] {
            0 => Value::Bool(false),
            1 => Value::Bool(true),
            b => return Err(format!("{key} is a bool of byte {b}; allowed: 0 or 1")),
        },
        8 => Value::Str(
            String::from_utf8_lossy(c.string(&format!("the string of {key}"))?).into_owned(),
        ),
        9 => {
            if depth >= MAX_DEPTH {
                return Err(format!("{key} nests arrays over {MAX_DEPTH} deep"));
            }
            let item = c.u32(&format!("the item type of array {key}"))?;
            if item > 12 {
                return Err(format!(
                    "array {key} has item type {item}; allowed: {VALUE_TYPES}"
                ));
            }
            let n = c.u64(&format!("the length of array {key}"))?;
            // Each item takes at least one byte: a count past the bytes
            // left is refused before any is read.
            let left = (c.bytes.len() - c.at) as u64;
            if n > left {
                return Err(format!(
                    "array {key} declares {n} items, more than the {left} bytes left in the file"
                ));
            }
            for _ in 0..n {
                value(c, item, key, depth + 1)?;
                c.check_cap()?;
            }
            Value::Array(item, n)
        }
        t => return Err(format!("{key} has value type {t}; allowed: {VALUE_TYPES}")),
    })
}

/// Rounds `n` up to a multiple of `align` (a power of two).
fn aligned(n: u64, align: u64) -> Option<u64> {
    n.checked_add(align - 1).map(|m| m & !(align - 1))
}

/// Parses and checks the header of `bytes`, the whole file.
///
/// # Errors
/// One line naming the bad value and what is allowed.
pub fn parse(bytes: &[u8]) -> R<Parsed> {
    let mut c = Cursor { bytes, at: 0 };
    let magic = c.take(4, "the magic")?;
    if magic != b"GGUF" {
        return Err(format!(
            "its first 4 bytes are {}, not the magic GGUF",
            crate::text::shown(&format!("{magic:02x?}"))
        ));
    }
    let version = c.u32("the version")?;
    if version != 2 && version != 3 {
        let hint = if (1..=3).contains(&version.swap_bytes()) {
            " (a big-endian file)"
        } else if version == 1 {
            " (GGUF v1, 32-bit counts)"
        } else {
            ""
        };
        return Err(format!(
            "version {version}{hint}; allowed: 2 or 3, little-endian"
        ));
    }
    let n_tensors = c.u64("the tensor count")?;
    let n_kv = c.u64("the metadata count")?;
    let left = (bytes.len() - c.at) as u64;
    // A key-value takes at least 13 bytes, a tensor info 28.
    if n_kv > left / 13 || n_tensors > left / 28 {
        return Err(format!(
            "it declares {n_tensors} tensors and {n_kv} metadata keys, more than its {left} bytes after the counts can hold"
        ));
    }
    let mut meta = BTreeMap::new();
    for _ in 0..n_kv {
        let key = c.string("a metadata key")?;
        let key = std::str::from_utf8(key)
            .map_err(|_| {
                format!(
                    "metadata key {} is not UTF-8",
                    crate::text::shown(&String::from_utf8_lossy(key))
                )
            })?
            .to_string();
        let ty = c.u32(&format!("the type of {key}"))?;
        let v = value(&mut c, ty, &crate::text::shown(&key).to_string(), 0)?;
        c.check_cap()?;
        if meta.insert(key.clone(), v).is_some() {
            return Err(format!(
                "metadata key {} is given twice",
                crate::text::shown(&key)
            ));
        }
    }
    let alignment = match meta.get("general.alignment") {
        None => 32,
        Some(Value::Int(a))
            if u64::try_from(*a).is_ok_and(|a| a > 0 && a <= 1 << 16 && a.is_power_of_two()) =>
        {
            u64::try_from(*a).unwrap_or(32)
        }
        Some(v) => {
            return Err(format!(
                "general.alignment is {v}; allowed: a power of two from 1 to 65536"
            ));
        }
    };
    let mut infos = Vec::new();
    let mut seen = HashSet::new();
    for i in 0..n_tensors {
        let name = c.string(&format!("tensor {i}'s name"))?;
        let name = std::str::from_utf8(name).map_err(|_| {
            format!(
                "tensor {i}'s name {} is not UTF-8",
                crate::text::shown(&String::from_utf8_lossy(name))
            )
        })?;
        let shown = crate::text::shown(name).to_string();
        if name.len() as u64 > MAX_NAME {
            return Err(format!(
                "tensor name {shown} is {} bytes; allowed: at most {MAX_NAME}",
                name.len()
            ));
        }
        if !seen.insert(name.to_string()) {
            return Err(format!("tensor {shown} is named twice"));
        }
        let n_dims = c.u32(&format!("{shown}'s n_dims"))?;
        if n_dims == 0 || n_dims > MAX_DIMS {
            return Err(format!(
                "tensor {shown} has n_dims {n_dims}; allowed: 1 to {MAX_DIMS}"
            ));
        }
        let mut dims = Vec::new();
        for _ in 0..n_dims {
            dims.push(c.u64(&format!("{shown}'s dims"))?);
        }
        if let Some(d) = dims.iter().find(|&&d| d == 0 || d > i64::MAX as u64) {
            return Err(format!(
                "tensor {shown} has a dim of {d}; allowed: 1 to {}",
                i64::MAX
            ));
        }
        let ty = c.u32(&format!("{shown}'s type"))?;
        let ty = GgmlType::known(ty).ok_or_else(|| {
            format!(
                "tensor {shown} has ggml type {ty}; allowed: {}",
                types::names()
            )
        })?;
        let offset = c.u64(&format!("{shown}'s offset"))?;
        c.check_cap()?;
        let count = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
        let ne0 = dims[0];
        let bytes = count
            .and_then(|n| ty.bytes(n))
            .filter(|_| ne0 % ty.block() == 0);
        let Some(bytes) = bytes else {
            return Err(format!(
                "tensor {shown} of dims {dims:?} is no whole number of {} blocks ({} weights each along ne[0] = {ne0}), or too large",
                ty.name(),
                ty.block()
            ));
        };
        if offset % alignment != 0 {
            return Err(format!(
                "tensor {shown} has offset {offset}; allowed: a multiple of the alignment {alignment}"
            ));
        }
        infos.push(Info {
            name: name.to_string(),
            dims,
            ty,
            offset,
            bytes,
        });
    }
    let data_start = aligned(c.at as u64, alignment).unwrap_or(u64::MAX);
    let data_len = (bytes.len() as u64).saturating_sub(data_start);
    let mut order: Vec<&Info> = infos.iter().collect();
    order.sort_by_key(|i| i.offset);
    let mut end = 0u64;
    let mut last = "";
    for i in order {
        let stop = i.offset.saturating_add(i.bytes);
        if stop > data_len {
            return Err(format!(
                "tensor {} lies at data bytes {}..{stop}, past the end of the file (its data section holds {data_len} bytes)",
                crate::text::shown(&i.name),
                i.offset
            ));
        }
        if i.offset < end {
            return Err(format!(
                "tensor {} at data bytes {}..{stop} overlaps tensor {} ending at {end}",
                crate::text::shown(&i.name),
                i.offset,
                crate::text::shown(last)
            ));
        }
        end = stop;
        last = &i.name;
    }
    Ok(Parsed {
        version,
        meta,
        infos,
        data_start,
    })
}
