//! The trace log: JSON Lines.
//!
//! ```text
//! {"kind":"header","schema":1,"mode":"numeric", …config…, "stream_shape":[2,4,64]}
//! {"kind":"event","step":0,"path":"input", …}        one per step
//! {"kind":"failure","path":…,"check":…,"detail":…}   only if the forward stopped
//! {"kind":"summary","events":N,"departures":N,"residual_adds":N,"checks":[…]}
//! ```

use super::{CheckName, Event, Failure, Mode, Trace};
use crate::check::{CheckResult, Status};
use crate::config::ModelConfig;
use crate::ops::Shape;
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Write};

/// The schema version written in the header.
pub const SCHEMA: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Header {
    schema: u32,
    mode: Mode,
    #[serde(flatten)]
    config: ModelConfig,
    stream_shape: Shape,
}

#[derive(Serialize)]
struct Summary<'a> {
    events: usize,
    departures: usize,
    residual_adds: usize,
    checks: &'a [CheckResult],
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Line<'a> {
    Header(&'a Header),
    Event(&'a Event),
    Failure(&'a Failure),
    Summary(Summary<'a>),
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ReadLine {
    Header(Header),
    Event(Event),
    Failure(Failure),
    Summary(ReadSummary),
}

/// The summary line as read back: its counts are checked against the
/// events, its verdicts are what `view` shows.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadSummary {
    events: usize,
    departures: usize,
    residual_adds: usize,
    checks: Vec<ReadCheck>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadCheck {
    name: CheckName,
    ok: bool,
    status: Status,
    path: Option<String>,
    detail: String,
}

/// A log read back: the trace and the verdicts its summary recorded.
///
/// Replaying never re-judges: the checks are the ones the run that wrote
/// the log gave, so `view` needs no model (a log's header may describe one
/// far too large to build).
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    pub trace: Trace,
    /// The summary's verdicts; `None` when the log ends without a summary
    /// (cut short, or a run that was stopped).
    pub checks: Option<Vec<CheckResult>>,
}

impl Replay {
    /// The note an incomplete log opens with: `incomplete log: 12 events,
    /// no summary`.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        self.checks.is_none().then(|| {
            format!(
                "incomplete log: {} events, no summary",
                self.trace.events.len()
            )
        })
    }
}

/// A trace log that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot read {}: {reason}", crate::text::shown(.path))]
    Read { path: String, reason: String },
    #[error("{}:{line}: {msg}", crate::text::shown(.path))]
    Line {
        path: String,
        line: usize,
        msg: String,
    },
}

fn write_line(out: &mut impl Write, line: &Line) -> io::Result<()> {
    serde_json::to_writer(&mut *out, line)?;
    out.write_all(b"\n")
}

/// Writes `trace` and `checks` as JSON Lines.
///
/// # Errors
/// Any write error, e.g. a closed pipe.
pub fn write(out: &mut impl Write, trace: &Trace, checks: &[CheckResult]) -> io::Result<()> {
    let header = Header {
        schema: SCHEMA,
        mode: trace.mode,
        config: trace.config.clone(),
        stream_shape: trace.stream_shape.clone(),
    };
    write_line(out, &Line::Header(&header))?;
    for e in &trace.events {
        write_line(out, &Line::Event(e))?;
    }
    if let Some(f) = &trace.failure {
        write_line(out, &Line::Failure(f))?;
    }
    let summary = Summary {
        events: trace.events.len(),
        departures: trace.departures().count(),
        residual_adds: trace.residual_adds().count(),
        checks,
    };
    write_line(out, &Line::Summary(summary))?;
    out.flush()
}

/// Reads a trace written by [`write`]; `path` only labels errors.
///
/// # Errors
/// [`LogError::Line`] naming the first bad line: not JSON, an unknown
/// kind, a wrong schema version, or lines out of order.
pub fn read(input: impl BufRead, path: &str) -> Result<Replay, LogError> {
    let bad = |line: usize, msg: String| LogError::Line {
        path: path.to_string(),
        line,
        msg: crate::text::one_line(&msg),
    };
    let mut header: Option<Header> = None;
    let mut events: Vec<Event> = Vec::new();
    let mut failure = None;
    let mut checks: Option<Vec<CheckResult>> = None;
    let mut values = 0usize;
    let mut input = input;
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        // One byte past the cap shows a line too long, without holding it.
        let mut cap = io::Read::take(&mut input, MAX_LINE_BYTES + 1);
        let got = cap
            .read_until(b'\n', &mut buf)
            .map_err(|e| bad(n, e.to_string()))?;
        if got == 0 {
            break;
        }
        if buf.len() as u64 > MAX_LINE_BYTES {
            let most = crate::config::human_bytes(u128::from(MAX_LINE_BYTES));
            return Err(bad(
                n,
                format!("longer than the {most} a trace line may have"),
            ));
        }
        let line = std::str::from_utf8(&buf).map_err(|e| bad(n, format!("not UTF-8: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(n, e.to_string()))?;
        if value.get("kind").and_then(serde_json::Value::as_str) == Some("header") {
            let schema = value.get("schema").and_then(serde_json::Value::as_u64);
            if schema != Some(u64::from(SCHEMA)) {
                let got = value
                    .get("schema")
                    .map_or_else(|| "missing".to_string(), ToString::to_string);
                return Err(bad(
                    n,
                    format!("schema {got} is not supported; allowed: {SCHEMA}"),
                ));
            }
        }
        let parsed: ReadLine = serde_json::from_value(value).map_err(|e| bad(n, e.to_string()))?;
        if checks.is_some() {
            return Err(bad(n, "a line after the summary, which ends a log".into()));
        }
        match (parsed, &header) {
            (ReadLine::Header(h), None) => {
                // The header's model is re-run by the probes: it must be one
                // the tool would build itself.
                h.config
                    .validate()
                    .map_err(|e| bad(n, format!("the header's model is invalid: {e}")))?;
                if h.stream_shape != h.config.stream_shape() {
                    return Err(bad(
                        n,
                        "stream_shape does not match batch, seq and d_model".into(),
                    ));
                }
                header = Some(h);
            }
            (ReadLine::Header(_), Some(_)) => return Err(bad(n, "a second header".into())),
            (_, None) => return Err(bad(n, "expected the header line first".into())),
            (ReadLine::Event(e), Some(_)) => {
                if e.step != events.len() {
                    return Err(bad(
                        n,
                        format!("step {} out of order; expected {}", e.step, events.len()),
                    ));
                }
                let size = e.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
                if size.is_none_or(|s| {
                    u128::try_from(s).unwrap_or(u128::MAX) > crate::config::MAX_ELEMENTS
                }) {
                    return Err(bad(
                        n,
                        format!(
                            "shape {} is too large; allowed: at most 2^48 elements",
                            crate::ops::fmt_shape(&e.shape)
                        ),
                    ));
                }
                if let Some(v) = &e.values
                    && (Some(v.len()) != size || v.len() > crate::ops::PREVIEW_MAX)
                {
                    return Err(bad(
                        n,
                        format!(
                            "{} values for shape {}; allowed: one per element, at most {}",
                            v.len(),
                            crate::ops::fmt_shape(&e.shape),
                            crate::ops::PREVIEW_MAX
                        ),
                    ));
                }
                values += e.values.as_ref().map_or(0, Vec::len);
                if values > MAX_LOG_VALUES {
                    return Err(bad(
                        n,
                        format!(
                            "the log keeps more than {MAX_LOG_VALUES} values; allowed: at most {MAX_LOG_VALUES} over all events"
                        ),
                    ));
                }
                events.push(e);
            }
            (ReadLine::Failure(f), Some(_)) => failure = Some(f),
            (ReadLine::Summary(sum), Some(_)) => {
                checks = Some(summary_checks(sum, &events).map_err(|msg| bad(n, msg))?);
            }
        }
    }
    let h = header.ok_or_else(|| bad(1, "empty log: no header line".into()))?;
    let trace = Trace {
        config: h.config,
        mode: h.mode,
        stream_shape: h.stream_shape,
        events,
        failure,
    };
    Ok(Replay { trace, checks })
}

/// The summary's verdicts, once its counts agree with the events before
/// it and every check is named once with a consistent `ok`.
fn summary_checks(sum: ReadSummary, events: &[Event]) -> Result<Vec<CheckResult>, String> {
    let counted = [
        ("events", sum.events, events.len()),
        (
            "departures",
            sum.departures,
            events.iter().filter(|e| e.departs).count(),
        ),
        (
            "residual_adds",
            sum.residual_adds,
            events.iter().filter(|e| e.is_residual()).count(),
        ),
    ];
    for (what, said, found) in counted {
        if said != found {
            return Err(format!(
                "the summary says {said} {what}, the log holds {found}"
            ));
        }
    }
    let mut out: Vec<CheckResult> = Vec::with_capacity(sum.checks.len());
    for c in sum.checks {
        if out.iter().any(|o| o.name == c.name) {
            return Err(format!("the summary names check {} twice", c.name));
        }
        if c.ok != (c.status != Status::Fail) {
            return Err(format!(
                "check {} says ok {} with status {}",
                c.name,
                c.ok,
                c.status.as_str()
            ));
        }
        out.push(CheckResult {
            name: c.name,
            status: c.status,
            path: c.path,
            detail: c.detail,
        });
    }
    Ok(out)
}

/// Longest line [`read`] takes: an event with 4096 values in it is about
/// 100 KiB.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// Largest trace log [`read_file`] opens: a shape-only trace of the
/// deepest model allowed (4096 blocks) is about 24 MiB. Held in memory,
/// an event takes at most about three times its line.
pub const MAX_LOG_BYTES: u64 = 64 << 20;

/// Most values a log may keep over all its events (`--values` keeps those
/// of tensors of at most 4096 elements): 128 MiB as f64, where a value
/// can take as little as two bytes of the log.
pub const MAX_LOG_VALUES: usize = 16 << 20;

/// Reads a trace log from a file (`-`: standard input), refusing one over
/// [`MAX_LOG_BYTES`] before reading it (a pipe once that much is read).
///
/// # Errors
/// [`LogError::Read`] when the file cannot be opened or is too large;
/// [`LogError::Line`] for the first bad line.
pub fn read_file(path: &std::path::Path) -> Result<Replay, LogError> {
    let label = path.display().to_string();
    let fail = |reason: String| LogError::Read {
        path: label.clone(),
        reason,
    };
    let input = crate::files::open(path).map_err(|e| fail(e.to_string()))?;
    if let Some(len) = input.size().filter(|&n| n > MAX_LOG_BYTES) {
        return Err(fail(format!(
            "{} is larger than the {} a trace log may have",
            crate::config::human_bytes(u128::from(len)),
            crate::config::human_bytes(u128::from(MAX_LOG_BYTES))
        )));
    }
    read_capped(input, &label, MAX_LOG_BYTES)
}

/// [`read`] of at most `max` bytes of `from`, which may give no size up
/// front (a device or a pipe): its reading stops one byte past `max`.
fn read_capped(from: impl io::Read, label: &str, max: u64) -> Result<Replay, LogError> {
    let mut limited = io::BufReader::new(from.take(max + 1));
    let trace = read(&mut limited, label);
    if limited.get_ref().limit() == 0 {
        return Err(LogError::Read {
            path: label.to_string(),
            reason: format!(
                "it holds more than the {} a trace log may have",
                crate::config::human_bytes(u128::from(max))
            ),
        });
    }
    trace
}

#[cfg(test)]
mod tests {
    use super::{read, read_capped};
    use std::io::{BufReader, Read};

    /// Past the cap a log is refused whatever its lines; within it, the
    /// same bytes are judged by their lines.
    #[test]
    fn a_log_past_the_cap_is_refused_for_its_size() {
        let blank = &b"\n\n\n\n\n\n"[..];
        let err = read_capped(blank, "pipe", 4).unwrap_err().to_string();
        assert_eq!(
            err,
            "cannot read pipe: it holds more than the 4 B a trace log may have"
        );
        let err = read_capped(blank, "pipe", 6).unwrap_err().to_string();
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
        assert!(err.starts_with("long:1: EOF while parsing"), "{err}");
    }
}
