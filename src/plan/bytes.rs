//! Memory sizes as people write them: `4GiB`, `512MiB`, `2G`, `1.5 GB`, `65536`.
//!
//! Every unit is binary: K, KB and KiB all mean 1024 bytes.

/// A size that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "memory size '{}' {why}; allowed: a number with an optional unit B, K, M, G or T (binary, e.g. 4GiB, 512MiB, 2G), at least 1 byte and at most 1024T (1 PiB)",
    crate::text::shown(.got)
)]
pub struct BadSize {
    /// The size as given, e.g. `4XB`.
    pub got: String,
    /// What is wrong with it, e.g. `is below 1 byte`.
    pub why: &'static str,
}

const UNITS: [(&str, u32); 5] = [("b", 0), ("k", 10), ("m", 20), ("g", 30), ("t", 40)];

/// Parses a memory size into bytes.
///
/// ```
/// use shapetrace::plan::parse_bytes;
/// assert_eq!(parse_bytes("4GiB").unwrap(), 4 << 30);
/// assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
/// assert_eq!(parse_bytes("2G").unwrap(), 2 << 30);
/// assert_eq!(parse_bytes("1.5k").unwrap(), 1536);
/// assert!(parse_bytes("lots").is_err());
/// ```
///
/// # Errors
/// [`BadSize`] for anything but a positive number and a known unit, and
/// for a size over [`super::limit::MAX_MAX_MEMORY`] (1 PiB).
pub fn parse_bytes(s: &str) -> Result<u128, BadSize> {
    let bad_as = |why| BadSize {
        got: s.to_string(),
        why,
    };
    let bad = || bad_as("is not a size");
    let t = s.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b').filter(|u| !u.is_empty()))
        .unwrap_or(unit);
    let shift = if unit.is_empty() {
        0
    } else {
        UNITS.iter().find(|(u, _)| *u == unit).ok_or_else(bad)?.1
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    let bytes = v * f64::from(1u32 << (shift / 2)) * f64::from(1u32 << (shift - shift / 2));
    if bytes < 1.0 {
        return Err(bad_as("is below 1 byte"));
    }
    #[allow(clippy::cast_precision_loss)]
    let most = super::limit::MAX_MAX_MEMORY as f64;
    if !(bytes.is_finite() && bytes <= most) {
        return Err(bad_as("is too large"));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(bytes.round() as u128)
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn units_are_binary_and_bad_sizes_are_refused() {
        assert_eq!(parse_bytes("65536").unwrap(), 65536);
        assert_eq!(parse_bytes("1 KB").unwrap(), 1024);
        assert_eq!(parse_bytes("3t").unwrap(), 3 << 40);
        assert_eq!(parse_bytes("7b").unwrap(), 7);
        for bad in ["", "-1G", "G", "4XB", "1e3", "nan", "4 GiBs"] {
            let e = parse_bytes(bad).unwrap_err();
            assert_eq!(e.why, "is not a size", "{bad}");
        }
        for (small, why) in [("0", "is below 1 byte"), ("0.4", "is below 1 byte")] {
            assert_eq!(parse_bytes(small).unwrap_err().why, why);
        }
        let huge = format!("{}T", "9".repeat(40));
        assert_eq!(parse_bytes(&huge).unwrap_err().why, "is too large");
        // Past 1 PiB, though it fits u128: refused, not accepted.
        for big in ["99999999999999999999GiB", "1025T", "1125899906842625"] {
            assert_eq!(parse_bytes(big).unwrap_err().why, "is too large", "{big}");
        }
        assert_eq!(parse_bytes("1024T").unwrap(), 1 << 50);
    }
}
