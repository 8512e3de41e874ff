//! The trace log: JSON Lines.
//!
//! ```text
//! {"kind":"header","schema":4,"mode":"numeric", …config…, "stream_shape":[2,4,64], "anatomy":{…}}
//! {"kind":"event","step":0,"path":"input", …, "sources":[…], "why":{…}, "why_text":"…"}   one per step
//! {"kind":"failure","path":…,"check":…,"detail":…}   only if the forward stopped
//! {"kind":"evidence","probe":"causality","token":2,"rows":[…]}   another program's probes
//! {"kind":"summary","events":N,"departures":N,"residual_adds":N,"checks":[…]}
//! ```

use super::CheckResult;
use super::{Event, Failure, Mode, Trace};
use crate::arch::Anatomy;
use crate::config::ModelConfig;
use crate::ops::Shape;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};

/// The schema version written in the header. Version 2 added each
/// event's `sources`, `why` and `why_text` (and the failure's `why`), and
/// names the scores' and weights' axes `Tq` and `Tk`. Version 3 is the
/// published format (`assets/trace-log.schema.json`) that any program may
/// write: the header names its `producer` and needs only the stream's
/// shape of the model's fields, and an op shapetrace has no name for is
/// kept by the writer's own name. Version 4 gives each event its `role`
/// (what the tensor is in the model: `scores`, `mlp-hidden`,
/// `residual-add` …); a log without roles is given them on reading.
pub const SCHEMA: u32 = 4;

/// The schema versions [`read`] takes: version 1 logs read with empty
/// whys; version 3 logs of another program get whys from their steps'
/// kinds and shapes; logs before version 4 (and any event without its
/// `role`) get their roles from their ops and dataflow.
pub const READS: [u32; 4] = [1, 2, 3, 4];

/// The first line: the schema, the mode and the model that was traced.
#[derive(Serialize, Deserialize)]
struct Header {
    schema: u32,
    mode: Mode,
    #[serde(flatten)]
    config: ModelConfig,
    stream_shape: Shape,
    /// The program that wrote the log: `shapetrace 0.1.0`, or another
    /// (`shapetrace_export 1 (torch 2.5.1)`); absent before schema 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    producer: Option<String>,
    /// The block the model ran; absent from logs written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    anatomy: Option<Anatomy>,
    /// What the model read that its checkpoint lacked, drawn from the
    /// seed (`--fill-missing seeded`); absent when nothing was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    seeded: Vec<String>,
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

/// A log read back: the trace and the verdicts its summary recorded.
///
/// Replaying never re-judges: the checks are the ones the run that wrote
/// the log gave, so `view` needs no model (a log's header may describe one
/// far too large to build).
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The trace the log holds, events in order, with its failure if any.
    pub trace: Trace,
    /// The summary's verdicts; `None` when the log ends without a summary
    /// (cut short, or a run that was stopped).
    pub checks: Option<Vec<CheckResult>>,
    /// The program that wrote the log (schema 3), e.g. `shapetrace_export
    /// 1 (torch 2.5.1)`; `None` for older logs of shapetrace's.
    pub producer: Option<String>,
    /// The log's evidence lines, in order: what its writer's probes saw,
    /// judged by `check::of_log` as shapetrace's own probes are. Empty for
    /// shapetrace's own logs.
    pub evidence: Vec<Evidence>,
    /// The counts the summary states; `None` without a summary. The
    /// reader refuses shapetrace's own log when they miscount; another
    /// program's is checked against its events by `check::of_log`.
    pub counts: Option<Counts>,
}

/// What a log's summary says it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Events.
    pub events: usize,
    /// Events that depart from (B,T,d) or the stream's dtype.
    pub departures: usize,
    /// Residual adds.
    pub residual_adds: usize,
}

impl Replay {
    /// Whether another program wrote the log (its `producer` is not
    /// shapetrace): its summary's verdicts are not shapetrace's.
    #[must_use]
    pub fn foreign(&self) -> bool {
        self.producer
            .as_deref()
            .is_some_and(|p| !p.starts_with("shapetrace "))
    }

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
    /// The file cannot be opened, is larger than a trace log may be, or
    /// cannot be read.
    #[error("cannot read {}: {reason}", crate::text::shown(.path))]
    Read {
        /// The file's name as given, `-` for standard input.
        path: String,
        /// What went wrong, e.g. the OS error or the size limit.
        reason: String,
    },
    /// A line of the log is not a valid record (bad JSON, unknown kind,
    /// wrong schema, out of order).
    #[error("{}:{line}{}: {msg}", crate::text::shown(.path), column.map_or_else(String::new, |c| format!(":{c}")))]
    Line {
        /// The file's name as given, `-` for standard input.
        path: String,
        /// The file's line, from 1.
        line: usize,
        /// The column within that line, from 1, when the JSON parser
        /// points inside it.
        column: Option<usize>,
        /// What is wrong with the line, on one line.
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
        producer: Some(format!("shapetrace {}", env!("CARGO_PKG_VERSION"))),
        anatomy: Some(trace.anatomy.clone()),
        seeded: trace.seeded.clone(),
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

mod evidence;
mod read;

pub use evidence::{Evidence, EvidenceRow, Probe};
pub use read::{LaterWhys, Whys, read, read_file, read_file_with};
