use super::{read, read_capped};
use std::io::{BufReader, Read};

/// Past the cap a log is refused whatever its lines; within it, the
/// same bytes are judged by their lines.
#[test]
fn a_log_past_the_cap_is_refused_for_its_size() {
    let blank = &b"\n\n\n\n\n\n"[..];
    let err = read_capped(blank, "pipe", 4, 0, super::Whys::Now)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "cannot read pipe: it holds more than the 4 B a trace log may have"
    );
    let err = read_capped(blank, "pipe", 6, 0, super::Whys::Now)
        .unwrap_err()
        .to_string();
    assert!(!err.contains("more than"), "{err}");
}

/// A line with no end (a device of zeros, say) is refused once it
/// passes the line cap, not read on to the file cap; a line of bytes
/// that are not UTF-8 is named as such.
#[test]
fn endless_or_binary_lines_are_refused_at_once() {
    let endless = BufReader::new(std::io::repeat(b'x'));
    let err = read(endless, "zeros").unwrap_err().to_string();
    assert_eq!(
        err,
        "zeros:1: longer than the 1.0 MiB a trace line may have"
    );
    let binary = BufReader::new(&b"\n\xff\xfe\n"[..]);
    let err = read(binary, "bin").unwrap_err().to_string();
    assert!(err.starts_with("bin:2: not UTF-8"), "{err}");
    // Under the cap a long line is read, and judged as JSON.
    let long = BufReader::new(std::io::repeat(b' ').take(1 << 19).chain(&b"{"[..]));
    let err = read(long, "long").unwrap_err().to_string();
    // The column is within the line: 2^19 spaces, then the `{`.
    let at = (1 << 19) + 1;
    assert!(
        err.starts_with(&format!("long:1:{at}: EOF while parsing")),
        "{err}"
    );
}
