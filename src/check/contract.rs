//! Contract checks on a finished (or replayed) trace: op shapes, residual
//! adds, stream shapes, returns, wiring and finiteness.
//!
//! The rules one step can break are decided by [`crate::trace::judge`],
//! the same judges that stopped the forward; a check that judged nothing
//! (no add reached, a forward stopped at its input) is `skip`, not `pass`.

use super::CheckResult;
use crate::arch::SublayerKind;
use crate::config::Placement;
use crate::shape::fmt_shape;
use crate::trace::OpKind;
use crate::trace::{CheckName, Mode, Role, Trace, block_of, judge};
use crate::why::Why;

/// The six contract checks, in a fixed order, and `routing` after
/// `wiring` when the anatomy has a mixture of experts.
#[must_use]
pub fn all(trace: &Trace) -> Vec<CheckResult> {
    let mut out = vec![
        op_shapes(trace),
        residual(trace),
        stream(trace),
        returns(trace),
        wiring(trace),
    ];
    if trace
        .anatomy
        .sublayers
        .iter()
        .any(|s| s.kind == SublayerKind::Moe)
    {
        out.push(super::routing::routing(trace));
    }
    out.push(finite(trace));
    out
}

/// The failure, as this check's verdict, if this check stopped the forward.
fn stopped_by(trace: &Trace, name: CheckName) -> Option<CheckResult> {
    let f = trace.failure.as_ref().filter(|f| f.check == name)?;
    let r = CheckResult::fail(name, &f.path, format!("{}: {}", f.path, f.detail));
    Some(match &f.detail_why.0 {
        Some(why) => r.with(judge::at(why, &f.path)),
        None => r,
    })
}

/// The verdict of a judge that refused the step at `path`.
fn failed(name: CheckName, path: &str, detail: &Why) -> CheckResult {
    CheckResult::fail(name, path, "").said(judge::at(detail, path))
}

/// Where the forward stopped, for a check that judged nothing.
fn nothing(trace: &Trace) -> Why {
    match &trace.failure {
        Some(f) => Why::new("check-nothing-stopped").arg("path", f.path.as_str()),
        None => Why::new("check-nothing"),
    }
}

/// The skip of a check that judged nothing.
fn skip_nothing(name: CheckName, trace: &Trace) -> CheckResult {
    CheckResult::skip(name, "").said(nothing(trace))
}

/// Every op accepted its operand shapes.
#[must_use]
pub fn op_shapes(trace: &Trace) -> CheckResult {
    let name = CheckName::OpShapes;
    if let Some(r) = stopped_by(trace, name) {
        return r;
    }
    let ops = trace
        .events
        .iter()
        .filter(|e| e.op != OpKind::Input)
        .count();
    if ops == 0 {
        return skip_nothing(name, trace);
    }
    CheckResult::pass(name, "").said(Why::new("check-op-shapes-pass").arg("ops", ops))
}

/// Every residual add has two (B,T,d) operands of the input dtype, and a
/// complete run makes one per sublayer.
#[must_use]
pub fn residual(trace: &Trace) -> CheckResult {
    let name = CheckName::Residual;
    if let Some(r) = stopped_by(trace, name) {
        return operand_from(trace, r);
    }
    // Under sequence parallelism one device's positions, (B, T/N, d).
    let stream = trace
        .residual_adds()
        .next()
        .map_or_else(|| trace.stream_shape.clone(), |e| trace.stream_for(e));
    let expect = (stream.as_slice(), trace.config.dtype);
    let mut n = 0;
    for e in trace.residual_adds() {
        n += 1;
        let Some(c) = &e.check else { continue };
        let here = trace.stream_for(e);
        let judged = judge::residual(
            (&c.stream, c.stream_dtype),
            (&c.update, c.update_dtype),
            (here.as_slice(), expect.1),
        );
        if let Err((_, detail)) = judged {
            return failed(name, &e.path, &detail);
        }
    }
    let want = trace.expected_residual_adds();
    // Another program's log names the sublayer whose output the block
    // used in place of its stream (`x = self.attn(self.ln_1(x))`).
    if let Some(r) = replaced_stream(trace, n, want) {
        return r;
    }
    if trace.failure.is_none() && n != want {
        let per = trace.anatomy.adds_per_block();
        // The first block whose adds are not one per sublayer, if any.
        // A pipeline stage holds its own run of the blocks.
        let held = trace.config.held_blocks();
        let odd = held
            .map(|b| {
                (
                    b,
                    trace
                        .residual_adds()
                        .filter(|e| e.block() == Some(b))
                        .count(),
                )
            })
            .find(|&(_, adds)| adds != per);
        let (path, adds) = match odd {
            Some((b, adds)) => (format!("block{b}"), adds),
            None => (String::new(), 0),
        };
        let why = Why::new("check-residual-count")
            .arg("n", n.to_string())
            .arg("want", want.to_string())
            .arg("per", per.to_string())
            .arg(
                "block",
                if path.is_empty() {
                    "none"
                } else {
                    path.as_str()
                },
            )
            .arg("adds", adds.to_string());
        return CheckResult::fail(name, &path, "").said(why);
    }
    if n == 0 {
        return skip_nothing(name, trace);
    }
    let s = fmt_shape(expect.0);
    // Parallel residuals declare one add a block, of two summed updates.
    let parallel = if trace.anatomy.parallel {
        trace.anatomy.sublayers.len()
    } else {
        0
    };
    CheckResult::pass(name, "").said(
        Why::new("check-residual-pass")
            .arg("n", n)
            .arg("shape", s)
            .arg("dtype", expect.1.to_string())
            .arg("parallel", parallel),
    )
}

/// The failure `r` of the residual add where the forward stopped, with
/// where in the writer's code its operand off (B,T,d) (or off the stream's
/// dtype) was made: that operand's event's `line`, the update looked at
/// before the stream. `r` itself when no such operand has a line (every
/// step of shapetrace's own traces).
fn operand_from(trace: &Trace, r: CheckResult) -> CheckResult {
    let Some(f) = &trace.failure else { return r };
    let want = (trace.stream_shape.as_slice(), trace.config.dtype);
    let off = f
        .operands
        .iter()
        .enumerate()
        .rev()
        .find(|(_, o)| (o.shape.as_slice(), o.dtype) != want);
    let Some((i, o)) = off else { return r };
    let Some(line) = trace
        .events
        .iter()
        .rev()
        .find(|e| e.path == o.path)
        .and_then(|e| e.line.as_deref())
    else {
        return r;
    };
    let why = Why::new("check-residual-operand-from")
        .arg("detail", r.detail.as_str())
        .arg("role", if i == 0 { "stream" } else { "update" })
        .arg("operand", o.path.as_str())
        .arg("shape", fmt_shape(&o.shape))
        .arg("line", line);
    CheckResult::fail(CheckName::Residual, &f.path, "").said(why)
}

/// The first event of another program's log whose sublayer output
/// replaced the stream (`replaces_stream`), as a failure of `residual`
/// naming the sublayer, the line of the block's forward that called it
/// (`replaced_at`; the sublayer's own last `line` when the log does not
/// say) and the add to write; with the count
/// of adds made against the `want` declared.
fn replaced_stream(trace: &Trace, n: usize, want: usize) -> Option<CheckResult> {
    let (i, e) = trace
        .events
        .iter()
        .enumerate()
        .find(|(_, e)| e.replaces_stream.is_some())?;
    let module = e.replaces_stream.as_deref().unwrap_or_default();
    let sub = module.rsplit('.').next().unwrap_or(module);
    let block = module.split('.').next().unwrap_or_default();
    // The norm the sublayer read: the block's last norm before it, named
    // as the block names its module (`ln_1`, `norm1`).
    let norm = trace.events[..i]
        .iter()
        .rev()
        .take_while(|x| x.block() == block_of(block))
        .find(|x| x.role == Role::Norm)
        .and_then(|x| x.path.split('.').nth(1));
    let add = match norm {
        Some(ln) => format!("x = x + self.{sub}(self.{ln}(x))"),
        None => format!("x = x + self.{sub}(x)"),
    };
    let adds = trace
        .residual_adds()
        .filter(|x| x.block() == block_of(block))
        .count();
    let why = Why::new("check-residual-replaced")
        .arg("module", module)
        .arg(
            "line",
            e.replaced_at
                .as_deref()
                .or(e.line.as_deref())
                .unwrap_or("none"),
        )
        .arg("add", add)
        .arg("n", n.to_string())
        .arg("want", want.to_string())
        .arg("per", trace.anatomy.adds_per_block().to_string())
        .arg("block", block)
        .arg("adds", adds.to_string());
    Some(CheckResult::fail(CheckName::Residual, &e.path, "").said(why))
}

/// Every stream tensor is (B,T,d).
#[must_use]
pub fn stream(trace: &Trace) -> CheckResult {
    let name = CheckName::Stream;
    if let Some(r) = stopped_by(trace, name) {
        return r;
    }
    let dtype = trace.config.dtype;
    let on: Vec<_> = trace.events.iter().filter(|e| e.on_stream).collect();
    for e in &on {
        let want = trace.stream_for(e);
        if let Err(detail) = judge::stream(&e.path, (&e.shape, e.dtype), (&want, dtype)) {
            return failed(name, &e.path, &detail);
        }
    }
    if on.is_empty() {
        return skip_nothing(name, trace);
    }
    CheckResult::pass(name, "").said(
        Why::new("check-stream-pass")
            .arg("n", on.len())
            .arg("shape", stream_words(trace))
            .arg("dtype", dtype.to_string()),
    )
}

/// Inside every completed sublayer, each departure from (B,T,d) returns to
/// it before the sublayer's residual add. The `mlp-returns-input` fault
/// fails it: the hidden layer (B,T,d_ff) is computed and dropped, and the
/// add still gets a (B,T,d) update, the MLP's own input.
#[must_use]
pub fn returns(trace: &Trace) -> CheckResult {
    let name = CheckName::Returns;
    let want = &trace.stream_shape;
    let home =
        |x: &crate::trace::Event| x.shape == trace.stream_for(x) && x.dtype == trace.config.dtype;
    let mut start = 0;
    let (mut departures, mut sublayers) = (0, 0);
    for (i, e) in trace.events.iter().enumerate() {
        // Parallel residuals sum the sublayers' updates (`update`) before
        // their one add: each operand of the sum ends a sublayer of its own.
        let summed = trace.anatomy.parallel && e.role == Role::Update;
        if !e.is_residual() && !summed {
            continue;
        }
        let inside = &trace.events[start..i];
        // (the sublayer's events, its output): the add's second operand,
        // or each operand of the sum, split where the first one was made.
        let split = e
            .inputs
            .first()
            .and_then(|p| inside.iter().position(|x| &x.path == p))
            .filter(|_| summed)
            .map_or(0, |k| k + 1);
        let parts = if summed {
            vec![
                (&inside[..split], e.inputs.first()),
                (&inside[split..], e.inputs.get(1)),
            ]
        } else {
            vec![(inside, e.inputs.get(1))]
        };
        for (inside, output) in parts {
            sublayers += 1;
            departures += inside.iter().filter(|x| x.departs).count();
            let at = |p: &String| inside.iter().rposition(|x| &x.path == p);
            let mut update = output.and_then(at);
            // Sandwich norms: the sublayer's own output is what its norm
            // on the output read (through its casts in a 16-bit model).
            // Each step back is to an earlier event, so a log whose norm
            // reads itself cannot loop.
            while let Some(k) = update.filter(|&k| inside[k].role == Role::OutputNorm) {
                update = inside[k].inputs.first().and_then(at).filter(|&j| j < k);
            }
            // The output norm's own casts (a 16-bit model) come after the
            // sublayer's output: they are the norm's, not the sublayer's.
            let last = inside
                .iter()
                .rposition(|x| x.departs && x.role != Role::OutputNorm);
            if let Some(last_departure) = last {
                let back = inside[last_departure..].iter().any(&home);
                // The output comes after the last departure, on (B,T,d).
                let update_back = update.is_some_and(|k| k > last_departure && home(&inside[k]));
                if !(back && update_back) {
                    let d = &inside[last_departure];
                    let why = Why::new("check-returns-fail")
                        .arg("path", e.path.as_str())
                        .arg("left", d.path.as_str())
                        .arg("shape", fmt_shape(want))
                        .arg("dtype", trace.config.dtype.to_string())
                        .arg("as", fmt_shape(&d.shape))
                        .arg("as_dtype", d.dtype.to_string());
                    return CheckResult::fail(name, &e.path, "").said(why);
                }
            }
        }
        start = i + 1;
    }
    let key = match departures {
        _ if sublayers == 0 => "check-returns-none",
        0 => "check-returns-stayed",
        _ => "check-returns-pass",
    };
    // Departures after the last completed add belong to the sublayer where
    // the forward stopped; the check that stopped it judges them.
    let open = trace.events[start..]
        .iter()
        .filter(|x| x.departs && x.block().is_some())
        .count();
    let (open, at) = match (&trace.failure, open) {
        (Some(f), 1..) => (open, f.path.as_str()),
        _ => (0, ""),
    };
    let why = Why::new(key)
        .arg("n", departures)
        .arg("shape", stream_words(trace))
        .arg("open", open)
        .arg("path", at);
    if sublayers == 0 {
        return CheckResult::skip(name, "").said(why);
    }
    CheckResult::pass(name, "").said(why)
}

/// The stream's shape in words: (B,T,d), and under sequence parallelism
/// `(2,4,64) or, on this device's positions, (2,2,64)` where the device
/// holds its part of the positions (or, under expert parallelism, of the
/// sequences).
fn stream_words(trace: &Trace) -> String {
    let whole = fmt_shape(&trace.stream_shape);
    let part = trace
        .events
        .iter()
        .map(|e| trace.stream_for(e))
        .find(|s| s != &trace.stream_shape);
    match part {
        // Expert parallelism splits the sequences (B), sequence
        // parallelism the positions (T).
        Some(p) if p.first() != trace.stream_shape.first() => {
            format!("{whole} or, on this device's sequences, {}", fmt_shape(&p))
        }
        Some(p) => format!("{whole} or, on this device's positions, {}", fmt_shape(&p)),
        None => whole,
    }
}

/// Block 1 reads the input, each later block reads the previous block's
/// output, and the final norm reads the last block's output; in a model
/// declared Pre-LN, every residual add adds onto the stream itself (x0 or
/// an earlier sum), never onto a norm's output.
///
/// Events are grouped by block; an input from outside an event's own block
/// must be the last activation before that block began (a step of another
/// program's log computed from no activation, `inputs: []`, is none).
#[must_use]
pub fn wiring(trace: &Trace) -> CheckResult {
    let name = CheckName::Wiring;
    let ev = &trace.events;
    let mut entry: Option<&str> = None;
    // The steps before the first block (ids, embeddings) and after the
    // last (final norm, LM head) read each other.
    let mut outside: Vec<&str> = Vec::new();
    for (i, e) in ev.iter().enumerate() {
        let n = e.block();
        if i == 0 || n != ev[i - 1].block() {
            // The previous output: the last activation before the block,
            // not a step computed from no activation (a rotary table, a
            // mask, a constant: no inputs, and not the input, the ids or a
            // pipeline stage's received stream).
            entry = ev[..i]
                .iter()
                .rev()
                .find(|x| {
                    matches!(x.op, OpKind::Input | OpKind::Tokens | OpKind::Recv)
                        || !x.inputs.is_empty()
                })
                .map(|x| x.path.as_str());
        }
        let own = n.map(|n| format!("block{n}."));
        let stray = e.inputs.iter().find(|p| {
            let inside = own.as_ref().is_some_and(|o| p.starts_with(o.as_str()))
                || (n.is_none() && outside.contains(&p.as_str()));
            !inside && Some(p.as_str()) != entry
        });
        if n.is_none() {
            outside.push(&e.path);
        }
        if let Some(p) = stray {
            let who = n.map_or_else(|| e.path.clone(), |n| format!("block{n}"));
            let why = Why::new("check-wiring-fail")
                .arg("who", who)
                .arg("reads", p.as_str())
                .arg("path", e.path.as_str())
                .arg("want", entry.unwrap_or("nothing"));
            return CheckResult::fail(name, &e.path, "").said(why);
        }
    }
    if matches!(
        trace.config.norms.placement,
        Placement::Pre | Placement::Sandwich
    ) && let Some(r) = normed_stream(trace)
    {
        return r;
    }
    if trace.config.norms.placement == Placement::Post
        && let Some(r) = unnormed_stream(trace)
    {
        return r;
    }
    let blocks = ev
        .iter()
        .filter_map(crate::trace::Event::block)
        .max()
        .unwrap_or(0);
    if blocks == 0 {
        return skip_nothing(name, trace);
    }
    // A pipeline stage after the first starts from what it received.
    let first = ev
        .iter()
        .filter_map(crate::trace::Event::block)
        .min()
        .unwrap_or(1);
    if ev.first().is_some_and(|e| e.op == OpKind::Recv) {
        return CheckResult::pass(name, "").said(
            Why::new("check-wiring-pass-stage")
                .arg("first", first)
                .arg("more", blocks - first)
                .arg("blocks", blocks),
        );
    }
    CheckResult::pass(name, "").said(Why::new("check-wiring-pass").arg("blocks", blocks))
}

/// The first residual add of a Pre-LN trace whose stream operand is a
/// norm's output: `x = LN(x + f(x))` where `x = x + f(LN(x))` was declared;
/// naming the norm's `line` in the writer's code when the log gives it.
fn normed_stream(trace: &Trace) -> Option<CheckResult> {
    let ev = &trace.events;
    ev.iter().enumerate().find_map(|(i, e)| {
        let stream = e.inputs.first().filter(|_| e.is_residual())?;
        let mut from = ev[..i].iter().rev().find(|x| &x.path == stream)?;
        // In a 16-bit model a norm's output reaches the stream through its cast.
        while from.op == OpKind::Cast {
            let input = from.inputs.first()?;
            from = ev[..i].iter().rev().find(|x| &x.path == input)?;
        }
        matches!(from.op, OpKind::LayerNorm | OpKind::RmsNorm).then(|| {
            CheckResult::fail(CheckName::Wiring, &e.path, "").said(
                Why::new("check-wiring-normed")
                    .arg("path", e.path.as_str())
                    .arg("stream", stream.as_str())
                    .arg("line", from.line.as_deref().unwrap_or("none")),
            )
        })
    })
}

/// The first residual add of a Post-LN trace, past the model's first, whose
/// stream operand is no norm's output: `x = x + f(LN(x))` where
/// `x = LN(x + f(x))` was declared. A norm is a step whose role is a
/// norm's (in another program's log, a norm written by hand is given that
/// role on reading, [`crate::trace::role::infer`]).
fn unnormed_stream(trace: &Trace) -> Option<CheckResult> {
    let ev = &trace.events;
    let norm = |x: &crate::trace::Event| x.role.is_norm();
    ev.iter()
        .enumerate()
        .filter(|(_, e)| e.is_residual())
        .skip(1)
        .find_map(|(i, e)| {
            let stream = e.inputs.first()?;
            let mut from = ev[..i].iter().rev().find(|x| &x.path == stream)?;
            while from.op == OpKind::Cast {
                let input = from.inputs.first()?;
                from = ev[..i].iter().rev().find(|x| &x.path == input)?;
            }
            (!norm(from)).then(|| {
                CheckResult::fail(CheckName::Wiring, &e.path, "").said(
                    Why::new("check-wiring-unnormed")
                        .arg("path", e.path.as_str())
                        .arg("stream", stream.as_str())
                        .arg("line", e.line.as_deref().unwrap_or("none")),
                )
            })
        })
}

/// Every recorded value is finite.
#[must_use]
pub fn finite(trace: &Trace) -> CheckResult {
    let name = CheckName::Finite;
    if let Some(r) = stopped_by(trace, name) {
        return r;
    }
    if trace.mode == Mode::ShapeOnly {
        return CheckResult::skip(name, "").said(Why::new("check-shape-only"));
    }
    for e in &trace.events {
        if let Err(detail) = judge::finite(&e.path, e.stats.as_ref()) {
            return failed(name, &e.path, &detail);
        }
    }
    if trace.events.is_empty() {
        return skip_nothing(name, trace);
    }
    CheckResult::pass(name, "").said(Why::new("check-finite-pass").arg("n", trace.events.len()))
}
