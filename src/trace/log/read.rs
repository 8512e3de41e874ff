//! Reading a trace log back: every line is checked as it comes (its
//! size, its JSON, its order, its shapes and names), and the summary's
//! counts of shapetrace's own log against the events before it. Nothing
//! is judged here: the summary's counts and verdicts, and another
//! program's evidence, are what [`super::Replay`] gives back for the
//! checks.

use super::evidence::RawEvidence;
use super::{
    Counts, Header, LogError, MAX_LINE_BYTES, MAX_LOG_BYTES, MAX_LOG_VALUES, READS, Replay,
};
use crate::trace::{CheckName, Event, Failure, Trace};
use crate::trace::{CheckResult, Status};
use lines::printable;
use lines::{event_fits, json_error, query_and_key};

mod foreign;
pub use foreign::{LaterWhys, Whys};
use serde::Deserialize;
use std::io::{self, BufRead};

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ReadLine {
    Header(Header),
    Event(Event),
    Failure(Failure),
    Evidence(RawEvidence),
    Summary(ReadSummary),
}

/// The summary line as read back: its counts are checked against the
/// events by the checks, its verdicts are what `view` shows of
/// shapetrace's own logs. Another program's may give no verdicts.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadSummary {
    events: usize,
    departures: usize,
    residual_adds: usize,
    #[serde(default)]
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

/// Reads a trace written by [`write`]; `path` only labels errors.
///
/// # Errors
/// [`LogError::Line`] naming the first bad line: not JSON, an unknown
/// kind, a wrong schema version, or lines out of order.
pub fn read(input: impl BufRead, path: &str) -> Result<Replay, LogError> {
    read_expecting(input, path, 0, Whys::Now)
}

/// The fewest bytes an event line can have (168, written without
/// spaces): a file of `n` bytes holds at most `n / 160` events.
const MIN_EVENT_LINE: u64 = 160;

/// [`read`], with room made up front for `expect` events: the events'
/// list of a 64 MiB log is not grown by doubling (the old list and its
/// copy both held at once), and room never written takes no memory.
fn read_expecting(
    input: impl BufRead,
    path: &str,
    expect: usize,
    whys: Whys,
) -> Result<Replay, LogError> {
    let bad = |line: usize, msg: String| LogError::Line {
        path: path.to_string(),
        line,
        column: None,
        msg: crate::text::one_line(&msg),
    };
    let bad_json = |line: usize, e: &serde_json::Error| {
        let (msg, column) = json_error(e);
        LogError::Line {
            path: path.to_string(),
            line,
            column,
            msg: crate::text::one_line(&msg),
        }
    };
    let mut header: Option<Header> = None;
    let mut events: Vec<Event> = Vec::with_capacity(expect);
    // Whether each event's line gave its role.
    let mut roles_given: Vec<bool> = Vec::with_capacity(expect);
    let mut failure = None;
    let mut evidence = Vec::new();
    let mut counts = None;
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
        // Without its line break, so the parser's column is within the line.
        let line = line.trim_end_matches(['\n', '\r']);
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| bad_json(n, &e))?;
        // As config.json, indexes and safetensors headers: a key given
        // twice would mean its last copy here and its first elsewhere.
        if let Some(d) = crate::json::duplicate_key(line.as_bytes()) {
            return Err(LogError::Line {
                path: path.to_string(),
                line: n,
                column: Some(d.column),
                msg: format!(
                    "key '{}' appears twice; allowed: each key once",
                    crate::text::shown(&d.key)
                ),
            });
        }
        lines::no_null_value(&value).map_err(|msg| bad(n, msg))?;
        if value.get("kind").and_then(serde_json::Value::as_str) == Some("header") {
            let schema = value.get("schema").and_then(serde_json::Value::as_u64);
            if !schema.is_some_and(|s| READS.iter().any(|&r| u64::from(r) == s)) {
                let got = value
                    .get("schema")
                    .map_or_else(|| "missing".to_string(), ToString::to_string);
                let allowed: Vec<String> = READS.iter().map(ToString::to_string).collect();
                return Err(bad(
                    n,
                    format!(
                        "schema {got} is not supported; allowed: {}",
                        allowed.join(", ")
                    ),
                ));
            }
        }
        let mut value = value;
        let role_given = value.get("role").is_some();
        foreign::known_op(&mut value);
        if value.get("kind").and_then(serde_json::Value::as_str) == Some("header")
            && value
                .get("schema")
                .and_then(serde_json::Value::as_u64)
                .is_some_and(|s| s >= 3)
        {
            foreign::fill_header(&mut value);
        }
        let parsed: ReadLine = serde_json::from_value(value).map_err(|e| bad_json(n, &e))?;
        if checks.is_some() {
            return Err(bad(n, "a line after the summary, which ends a log".into()));
        }
        match (parsed, &header) {
            (ReadLine::Header(h), None) => {
                // Replaying builds no model, so the header's model is not
                // validated here: one the tool would refuse to build still
                // replays (the stepper's live switches then say why not).
                if let Some(a) = &h.anatomy {
                    a.fits(h.config.layers).map_err(|msg| bad(n, msg))?;
                }
                printable(h.producer.as_deref()).map_err(|msg| bad(n, msg))?;
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
            (ReadLine::Event(mut e), Some(_)) => {
                query_and_key(&mut e.axes);
                event_fits(&e, events.len()).map_err(|msg| bad(n, msg))?;
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
                roles_given.push(role_given);
            }
            (ReadLine::Failure(f), Some(_)) => {
                let names = [&f.path, &f.detail, &f.why_text];
                printable(names.into_iter().map(String::as_str)).map_err(|msg| bad(n, msg))?;
                failure = Some(f);
            }
            (ReadLine::Evidence(raw), Some(h)) => {
                evidence.push(
                    raw.checked(h.config.seq, &mut values)
                        .map_err(|msg| bad(n, msg))?,
                );
                if values > MAX_LOG_VALUES {
                    return Err(bad(
                        n,
                        format!(
                            "the log keeps more than {MAX_LOG_VALUES} values; allowed: at most {MAX_LOG_VALUES} over all events and evidence"
                        ),
                    ));
                }
            }
            (ReadLine::Summary(sum), Some(h)) => {
                let said = Counts {
                    events: sum.events,
                    departures: sum.departures,
                    residual_adds: sum.residual_adds,
                };
                // Shapetrace's own log counts what it wrote: a miscount is
                // a damaged log. Another program's is judged by the checks.
                let own = h
                    .producer
                    .as_deref()
                    .is_none_or(|p| p.starts_with("shapetrace "));
                if own {
                    miscount(said, &events).map_err(|msg| bad(n, msg))?;
                }
                counts = Some(said);
                checks = Some(summary_checks(sum).map_err(|msg| bad(n, msg))?);
            }
        }
    }
    let h = header.ok_or_else(|| bad(1, "empty log: no header line".into()))?;
    // Derived where the writer left it out (another program's log): the
    // stream's dtype, for a step that keeps (B,T,d) but leaves that dtype.
    for e in events.iter_mut().filter(|e| e.leaves_dtype.is_none()) {
        e.leaves_dtype =
            (e.shape == h.stream_shape && e.dtype != h.config.dtype).then_some(h.config.dtype);
    }
    // A log that does not say what each step is (schema 3 and before, or
    // a writer that leaves roles out): its roles, from its ops and dataflow.
    let foreign = h
        .producer
        .as_deref()
        .is_some_and(|p| !p.starts_with("shapetrace "));
    crate::trace::role::infer(&mut events, &roles_given, foreign);
    // Another program's log: each step's why from its kind and shapes.
    if h.producer
        .as_deref()
        .is_some_and(|p| !p.starts_with("shapetrace "))
    {
        let stream = (h.stream_shape.as_slice(), h.config.dtype);
        foreign::word_whys(&mut events, failure.as_mut(), stream, whys);
    }
    // A log from before the anatomy was recorded: its config's.
    let anatomy = h
        .anatomy
        .unwrap_or_else(|| crate::arch::Arch::of(&h.config).anatomy);
    let trace = Trace {
        config: h.config,
        mode: h.mode,
        stream_shape: h.stream_shape,
        anatomy,
        events,
        failure,
        seeded: h.seeded,
    };
    Ok(Replay {
        trace,
        checks,
        producer: h.producer,
        evidence,
        counts,
    })
}

/// The summary's counts agree with the events before it.
fn miscount(said: Counts, events: &[Event]) -> Result<(), String> {
    let counted = [
        ("events", said.events, events.len()),
        (
            "departures",
            said.departures,
            events.iter().filter(|e| e.departs).count(),
        ),
        (
            "residual_adds",
            said.residual_adds,
            events.iter().filter(|e| e.is_residual()).count(),
        ),
    ];
    match counted.into_iter().find(|(_, said, found)| said != found) {
        Some((what, said, found)) => Err(format!(
            "the summary says {said} {what}, the log holds {found}"
        )),
        None => Ok(()),
    }
}

/// The summary's verdicts, once every check is named once with a
/// consistent `ok`. Its counts are the checks' to compare with the events.
fn summary_checks(sum: ReadSummary) -> Result<Vec<CheckResult>, String> {
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
        out.push(CheckResult::new(c.name, c.status, c.path, c.detail));
    }
    Ok(out)
}

/// Reads a trace log from a file (`-`: standard input), refusing one over
/// [`MAX_LOG_BYTES`] before reading it (a pipe once that much is read).
///
/// # Errors
/// [`LogError::Read`] when the file cannot be opened or is too large;
/// [`LogError::Line`] for the first bad line.
pub fn read_file(path: &std::path::Path) -> Result<Replay, LogError> {
    read_file_with(path, Whys::Now)
}

/// [`read_file`], wording another program's whys `whys`.
///
/// # Errors
/// As [`read_file`].
pub fn read_file_with(path: &std::path::Path, whys: Whys) -> Result<Replay, LogError> {
    let label = crate::text::lossless(path.as_os_str());
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
    let expect = input.size().map_or(0, |n| n / MIN_EVENT_LINE);
    let expect = usize::try_from(expect).unwrap_or(0);
    read_capped(input, &label, MAX_LOG_BYTES, expect, whys)
}

/// [`read`] of at most `max` bytes of `from`, which may give no size up
/// front (a device or a pipe): its reading stops one byte past `max`;
/// room is made for `expect` events.
fn read_capped(
    from: impl io::Read,
    label: &str,
    max: u64,
    expect: usize,
    whys: Whys,
) -> Result<Replay, LogError> {
    let mut limited = io::BufReader::new(from.take(max + 1));
    let trace = read_expecting(&mut limited, label, expect, whys);
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

pub(in crate::trace::log) mod lines;
#[cfg(test)]
mod tests;
