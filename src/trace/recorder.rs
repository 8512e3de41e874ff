//! Builds a [`Trace`](super::Trace) while the model runs.
//!
//! The model hands every step to the recorder, which runs the op on its
//! backend and records the event. The judges of [`super::judge`] decide
//! the rules a single step can break, and the recorder stops the forward
//! at the first step one refuses, so the trace ends with the failure: an
//! op refusing its operands (`op-shapes`), a residual add of the wrong
//! operands (`residual`), a stream tensor off (B,T,d) (`stream`) and a
//! non-finite value (`finite`).
//!
//! Paths come from scopes, as candle's `VarBuilder::pp`: inside
//! `rec.pp("block1")` and then `.pp("attn")`, the step `scores` is
//! recorded as `block1.attn.scores`.

use super::judge;
use super::{CheckName, Event, Failure, Operand, Role};
use crate::config::DType;
use crate::ops::{Axis, Backend, Op, OpKind, Route, Shape, Stats, fmt_shape};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::Ordering;

mod about;
pub mod comm;
mod fused;
mod parts;
mod push;
pub mod tape;

use about::About;
use fused::Fused;
use push::Pending;

pub use parts::{Capture, In, Param, Stop, Val, Watch};

/// Records events while running ops on a backend.
pub struct Recorder<'b, B: Backend> {
    backend: &'b B,
    stream: Shape,
    dtype: DType,
    watch: Watch,
    /// The path steps are recorded under, e.g. `block1.attn`.
    scope: String,
    events: Vec<Event>,
    captures: Vec<Capture>,
    failure: Option<Failure>,
    cancelled: bool,
    /// Inside a group the backend ran in one pass: what its steps record.
    fused: Option<Fused<B::Tensor>>,
    /// The role the model gave the next step ([`Recorder::role`]).
    next_role: Option<Role>,
    /// The steps and parameters the backward reads, when
    /// [`Watch::tape`] asks for them.
    tape: Option<tape::Tape>,
    /// This device's place in its group, when the model is split across
    /// devices and computes values ([`comm`]).
    link: Option<comm::Link<'b, B::Tensor>>,
    /// This device's pipeline stage's ends, when the stack is split into
    /// stages and computes values.
    pipe: Option<comm::Pipe<B::Tensor>>,
}

/// A fused group's steps take the pass's outputs one for one.
const FUSED_STEPS: &str = "a fused pass gives one output per step of its group";

/// What a finished recorder holds.
pub struct Recording {
    /// Every step recorded, in execution order.
    pub events: Vec<Event>,
    /// Where the forward stopped; `None` when it ran to the end.
    pub failure: Option<Failure>,
    /// Full values of every tensor, when [`Watch::capture`] asked for them
    /// (the probes); else empty.
    pub captures: Vec<Capture>,
    /// The cancel hook stopped the run.
    pub cancelled: bool,
    /// The forward's tape, when [`Watch::tape`] asked for it.
    pub tape: Option<tape::Tape>,
}

/// A recorder inside one more scope; the scope ends when it is dropped.
pub struct Scoped<'r, 'b, B: Backend> {
    rec: &'r mut Recorder<'b, B>,
    outer: usize,
}

impl<'b, B: Backend> Deref for Scoped<'_, 'b, B> {
    type Target = Recorder<'b, B>;
    fn deref(&self) -> &Self::Target {
        self.rec
    }
}

impl<B: Backend> DerefMut for Scoped<'_, '_, B> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.rec
    }
}

impl<B: Backend> Drop for Scoped<'_, '_, B> {
    fn drop(&mut self) {
        self.rec.scope.truncate(self.outer);
    }
}

impl<'b, B: Backend> Recorder<'b, B> {
    /// A recorder expecting stream tensors of `stream` shape (B,T,d),
    /// keeping and telling as `watch` says.
    pub fn new(backend: &'b B, stream: Shape, watch: Watch) -> Self {
        let tape = watch.tape.then(tape::Tape::default);
        Self {
            backend,
            stream,
            dtype: backend.dtype(),
            watch,
            scope: String::new(),
            events: Vec::new(),
            captures: Vec::new(),
            failure: None,
            cancelled: false,
            fused: None,
            next_role: None,
            tape,
            link: None,
            pipe: None,
        }
    }

    /// The recorder of one device of a group: its communication steps
    /// meet the other devices' through `link`.
    #[must_use]
    pub fn on_device(mut self, place: comm::Place<'b, B::Tensor>) -> Self {
        self.link = place.link;
        self.pipe = place.pipe;
        self
    }

    /// The recorder of a model whose stream and weights are `dtype`: a
    /// 16-bit model run on an f32 backend, every op's output rounded to
    /// it. The backend's own dtype otherwise.
    #[must_use]
    pub fn in_dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The backend the ops run on.
    #[must_use]
    pub fn backend(&self) -> &'b B {
        self.backend
    }

    /// The shape stream tensors are expected to have now.
    #[must_use]
    pub fn stream(&self) -> &Shape {
        &self.stream
    }

    /// From now on stream tensors are expected of `stream` shape: a
    /// decode step's (B, 1, d) after the prefill's (B, T, d).
    pub fn set_stream(&mut self, stream: Shape) {
        self.stream = stream;
    }

    /// Ends the recording.
    #[must_use]
    pub fn finish(self) -> Recording {
        Recording {
            events: self.events,
            failure: self.failure,
            captures: self.captures,
            cancelled: self.cancelled,
            tape: self.tape,
        }
    }

    /// The recorder inside scope `name`: steps are recorded under
    /// `{scope}.{name}`.
    pub fn pp(&mut self, name: &str) -> Scoped<'_, 'b, B> {
        let outer = self.scope.len();
        if outer > 0 {
            self.scope.push('.');
        }
        self.scope.push_str(name);
        Scoped { rec: self, outer }
    }

    /// The next step is `role` in the model (a linear is a query, a key,
    /// the MLP's hidden units …), where its op alone does not say; every
    /// other step takes its role from its op ([`Role::of_op`]).
    pub fn role(&mut self, role: Role) -> &mut Self {
        self.next_role = Some(role);
        self
    }

    /// The path of step `name` in the current scope.
    #[must_use]
    fn path(&self, name: &str) -> String {
        match self.scope.as_str() {
            "" => name.to_string(),
            s => format!("{s}.{name}"),
        }
    }

    /// Records the model input x0, named `input`, with axes (B,T,d).
    ///
    /// # Errors
    /// [`Stop`] when x0 is not (B,T,d) or not finite.
    pub fn input(&mut self, t: B::Tensor) -> Result<Val<B::Tensor>, Stop> {
        let shape = B::shape(&t).to_vec();
        let formula = format!("x0 : {}", fmt_shape(&shape));
        let (sources, why) = crate::why::input(&shape);
        let event = Pending {
            sources,
            why,
            path: self.path("input"),
            op: OpKind::Input,
            role: Role::Input,
            shape,
            dtype: self.dtype,
            axes: vec![Axis::Batch, Axis::Seq, Axis::Model],
            inputs: vec![],
            formula,
            on_stream: true,
        };
        // A 16-bit model's input is stored in 16 bits, as its steps are.
        let t = if self.dtype.is_half() {
            self.backend.cast(t, self.dtype)
        } else {
            t
        };
        self.keep_step(&event, None, Vec::new(), &t);
        self.push(event, t, None, None)
    }

    /// Records a pipeline stage's input, named `recv`: the previous stage's
    /// output (`from`, from 0), received into `buffer`, a tensor this
    /// device allocated of the stream's shape with `axes`. With
    /// `wait: false` (`pp-recv-no-wait`) the buffer is read before the
    /// receive completes.
    ///
    /// # Errors
    /// [`Stop`] when the previous stage stopped before sending, the
    /// tensor that arrived is not the buffer's shape, or the run was
    /// cancelled.
    pub fn recv(
        &mut self,
        from: usize,
        buffer: B::Tensor,
        axes: &[Axis],
        wait: bool,
    ) -> Result<Val<B::Tensor>, Stop> {
        self.check_cancel()?;
        let op = Op::Recv { from };
        let shape = B::shape(&buffer).to_vec();
        let (sources, why) = crate::why::recv(&shape, axes, from);
        let event = Pending {
            sources,
            why,
            path: self.path("recv"),
            op: op.kind(),
            role: Role::Input,
            formula: op.formula(&[&shape], &shape),
            shape,
            dtype: self.dtype,
            axes: axes.to_vec(),
            inputs: vec![],
            on_stream: true,
        };
        let parts = if wait {
            self.meet(&op, buffer)
        } else {
            Ok(vec![Arc::new(buffer)])
        };
        let t = match parts {
            Ok(parts) => {
                let refs: Vec<&B::Tensor> = parts.iter().map(|p| &**p).collect();
                self.backend
                    .collective(&op, &refs, &[])
                    .map_err(|e| self.refused(&event.path, &op, &[], &e))?
            }
            Err(gone) => return Err(self.left(&event.path, &op, gone, Vec::new())),
        };
        self.keep_step(&event, None, Vec::new(), &t);
        self.push(event, t, None, None)
    }

    /// Records the token ids (B, T), int64, named `tokens`: a language
    /// model's input, which the token embedding looks up.
    ///
    /// # Errors
    /// [`Stop`] when the run was cancelled.
    pub fn tokens(&mut self, t: B::Tensor) -> Result<Val<B::Tensor>, Stop> {
        self.check_cancel()?;
        let shape = B::shape(&t).to_vec();
        let formula = format!("ids : {} int64", fmt_shape(&shape));
        let (sources, why) = crate::why::tokens(&shape);
        let event = Pending {
            sources,
            why,
            path: self.path("tokens"),
            op: OpKind::Tokens,
            role: Role::Input,
            shape,
            dtype: DType::I64,
            axes: vec![Axis::Batch, Axis::Seq],
            inputs: vec![],
            formula,
            on_stream: false,
        };
        self.keep_step(&event, None, Vec::new(), &t);
        self.push(event, t, None, None)
    }

    /// Step `name`: `op` on `ins`, inside a sublayer.
    ///
    /// # Errors
    /// [`Stop`] when the op refuses its operands or gives non-finite values.
    pub fn op(
        &mut self,
        name: &str,
        op: &Op,
        ins: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        self.run(name, op, None, ins, false)
    }

    /// As [`Recorder::op`], handing over the first operand `x`, which the
    /// backend may compute into (softmax, activations): no new buffer.
    ///
    /// # Errors
    /// As [`Recorder::op`].
    pub fn op_owned(
        &mut self,
        name: &str,
        op: &Op,
        x: Val<B::Tensor>,
        rest: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        self.run(name, op, Some((x, 0)), rest, false)
    }

    /// A step whose output is a sublayer interface: a norm's output or a
    /// sublayer's output, which must be (B,T,d).
    ///
    /// # Errors
    /// As [`Recorder::op`], and when the output is not (B,T,d).
    pub fn interface(
        &mut self,
        name: &str,
        op: &Op,
        ins: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        self.run(name, op, None, ins, true)
    }

    /// The residual add `stream + update`, judged before it runs. The
    /// update is handed over: the sum is computed into it (addition
    /// commutes, so the values are those of `stream + update`).
    ///
    /// # Errors
    /// [`Stop`] when either operand is not (B,T,d) in the input dtype.
    pub fn residual(
        &mut self,
        name: &str,
        stream: &Val<B::Tensor>,
        update: Val<B::Tensor>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let expect = (self.stream.as_slice(), self.dtype);
        let judged = judge::residual(
            (&stream.shape, stream.dtype),
            (&update.shape, update.dtype),
            expect,
        );
        let check = match judged {
            Ok(check) => check,
            Err((check, detail)) => {
                let operands = self.operands(&[In::Act(stream), In::Act(&update)]);
                let path = self.path(name);
                let failure = (CheckName::Residual, detail, operands, Some(check));
                return Err(self.fail(&path, OpKind::Add, failure));
            }
        };
        self.next_role = Some(Role::ResidualAdd);
        let mut out = self.run(name, &Op::Add, Some((update, 1)), &[In::Act(stream)], true)?;
        if let Some(e) = self.events.last_mut() {
            e.check = Some(check);
        }
        out.axes.clone_from(&stream.axes);
        Ok(out)
    }

    /// Step `name`: the communication `op` on this device's `x` (and
    /// `rest`, an all-reduce's bias), meeting every device's part. As a
    /// sublayer's `interface` its output must be the stream's shape.
    ///
    /// # Errors
    /// [`Stop`] when the op refuses its operands, or a device left the
    /// group before handing in its part.
    pub fn collective(
        &mut self,
        name: &str,
        op: &Op,
        x: &Val<B::Tensor>,
        rest: &[In<B::Tensor>],
        interface: bool,
    ) -> Result<Val<B::Tensor>, Stop> {
        let named = self.next_role.take();
        self.check_cancel()?;
        let path = self.path(name);
        let mut all = vec![In::Act(x)];
        all.extend_from_slice(rest);
        let role = named.unwrap_or_else(|| Role::of_op(op.kind(), Some(x.role)));
        let about = self.describe(op, &all);
        let (shape, dtype) = self.judged(&path, op, &all, &about)?;
        let keys = self.keep_params(&all);
        let stream = self.stream.clone();
        let (event, operands) = about.event(
            (path, name, role),
            op,
            (shape, dtype),
            (interface, &stream, self.dtype),
        );
        let mine = x.tensor().clone();
        let parts = self.meet(op, mine);
        let parts = match parts {
            Ok(parts) => parts,
            Err(gone) => return Err(self.left(&event.path, op, gone, operands)),
        };
        let refs: Vec<&B::Tensor> = parts.iter().map(|p| &**p).collect();
        let rest: Vec<&B::Tensor> = rest.iter().map(In::tensor).collect();
        let t = self
            .backend
            .collective(op, &refs, &rest)
            .map_err(|e| self.refused(&event.path, op, &operands, &e))?;
        drop(parts);
        // A 16-bit output is stored as the framework stores it: rounded.
        let t = if dtype.is_half() {
            self.backend.cast(t, dtype)
        } else {
            t
        };
        self.keep_step(&event, Some(op), keys, &t);
        self.push(event, t, Some(operands), None)
    }

    /// Step `name`: the all-to-all `op` on this device's operands `ins`
    /// (x and the expert ids, or the ids and its experts' outputs), every
    /// device handing each device a part. Gives the output and the rows
    /// each device sent this one, in device order: the data's (empty in a
    /// shape-only run, whose output is the bound).
    ///
    /// # Errors
    /// [`Stop`] when the op refuses its operands, or a device left the
    /// group before handing in its parts.
    pub fn all_to_all(
        &mut self,
        name: &str,
        op: &Op,
        ins: &[In<B::Tensor>],
    ) -> Result<(Val<B::Tensor>, Vec<usize>), Stop> {
        let named = self.next_role.take();
        self.check_cancel()?;
        let path = self.path(name);
        let role = named.unwrap_or_else(|| Role::of_op(op.kind(), None));
        let about = self.describe(op, ins);
        let (shape, dtype) = self.judged(&path, op, ins, &about)?;
        let keys = self.keep_params(ins);
        let stream = self.stream.clone();
        let at = (false, stream.as_slice(), self.dtype);
        let (mut event, operands) =
            about
                .clone()
                .event((path.clone(), name, role), op, (shape, dtype), at);
        let tensors: Vec<&B::Tensor> = ins.iter().map(In::tensor).collect();
        if !B::NUMERIC {
            let t = self
                .backend
                .collective(op, &tensors[..1], &tensors[1..])
                .map_err(|e| self.refused(&event.path, op, &operands, &e))?;
            if let Op::AllToAll {
                route: Route::Dispatch { .. },
                ..
            } = op
            {
                mark_bound(&mut event);
            }
            self.keep_step(&event, Some(op), keys, &t);
            return Ok((self.push(event, t, Some(operands), None)?, Vec::new()));
        }
        let parts = self
            .backend
            .parts(op, &tensors)
            .map_err(|e| self.refused(&event.path, op, &operands, &e))?;
        drop(tensors);
        let got = match &mut self.link {
            Some(link) => link.all_to_all(parts),
            // One device alone keeps its one part.
            None => Ok(parts.into_iter().map(Arc::new).collect()),
        };
        let got = match got {
            Ok(got) => got,
            Err(gone) => return Err(self.left(&event.path, op, gone, operands)),
        };
        let rows: Vec<usize> = got
            .iter()
            .map(|p| B::shape(p).first().copied().unwrap_or(0))
            .collect();
        let refs: Vec<&B::Tensor> = got.iter().map(|p| &**p).collect();
        let t = self
            .backend
            .collective(op, &refs, &[])
            .map_err(|e| self.refused(&event.path, op, &operands, &e))?;
        drop(refs);
        drop(got);
        let t = if dtype.is_half() {
            self.backend.cast(t, dtype)
        } else {
            t
        };
        // The event again, with the rows that arrived and the shape they make.
        let op = match op {
            Op::AllToAll { devices, route } => Op::AllToAll {
                devices: *devices,
                route: route.arrived(rows.clone()),
            },
            op => op.clone(),
        };
        let (event, operands) =
            about.event((path, name, role), &op, (B::shape(&t).to_vec(), dtype), at);
        self.keep_step(&event, Some(&op), keys, &t);
        Ok((self.push(event, t, Some(operands), None)?, rows))
    }

    /// The stop of a device whose step `op` at `path` waited for device
    /// `gone`, which stopped first: a cancel if the run was cancelled,
    /// else an `op-shapes` failure naming it.
    fn left(&mut self, path: &str, op: &Op, gone: usize, operands: Vec<Operand>) -> Stop {
        // A device that left because the run was cancelled.
        if self.check_cancel().is_err() {
            return Stop;
        }
        let detail = crate::why::Why::new("judge-device-left")
            .arg("at", "")
            .arg("device", gone)
            .arg("op", op.kind().to_string());
        self.fail(
            path,
            op.kind(),
            (CheckName::OpShapes, detail, operands, None),
        )
    }

    /// This device's part of communication step `op`, `mine`, handed to
    /// the others and every part it needs back: the group's parts in
    /// device order; a send's own tensor, once sent; a receive's tensor as
    /// it arrived, then the buffer it arrived in. A scatter cuts this
    /// device's own tensor, and a shape-only run has only its own.
    ///
    /// # Errors
    /// The number of a device that stopped before handing in its part.
    fn meet(&mut self, op: &Op, mine: B::Tensor) -> Result<Vec<Arc<B::Tensor>>, usize> {
        let own = |t| Ok(vec![Arc::new(t)]);
        if !B::NUMERIC {
            return own(mine);
        }
        match (op, &mut self.link, &self.pipe) {
            (Op::Scatter { .. }, ..) => own(mine),
            (Op::Send { .. }, _, Some(comm::Pipe { to: Some(to), .. })) => {
                let sent = Arc::new(mine);
                // A next stage that already stopped reads nothing: this
                // stage's forward is done either way.
                let _ = to.send(Arc::clone(&sent));
                Ok(vec![sent])
            }
            (
                Op::Recv { .. },
                _,
                Some(comm::Pipe {
                    from: Some((from, device)),
                    ..
                }),
            ) => {
                let got = from.recv().map_err(|_| *device)?;
                Ok(vec![got, Arc::new(mine)])
            }
            (Op::Send { .. } | Op::Recv { .. }, ..) => own(mine),
            (_, Some(link), _) => link.exchange(mine),
            _ => own(mine),
        }
    }

    /// Runs step `name` of `op` on `ins`, with `owned`'s value handed over
    /// when given, as operand number `at` of the event (the backend gets
    /// it first).
    fn run(
        &mut self,
        name: &str,
        op: &Op,
        owned: Option<(Val<B::Tensor>, usize)>,
        ins: &[In<B::Tensor>],
        on_stream: bool,
    ) -> Result<Val<B::Tensor>, Stop> {
        let named = self.next_role.take();
        self.check_cancel()?;
        let path = self.path(name);
        let mut all: Vec<In<B::Tensor>> = ins.to_vec();
        if let Some((x, at)) = &owned {
            all.insert(*at, In::Act(x));
        }
        let first = all.iter().find_map(|i| match i {
            In::Act(v) => Some(v.role),
            In::Param(_) => None,
        });
        let role = named.unwrap_or_else(|| Role::of_op(op.kind(), first));
        let about = self.describe(op, &all);
        let (shape, dtype) = self.judged(&path, op, &all, &about)?;
        let keys = self.keep_params(&all);
        drop(all);
        let stream = self.stream.clone();
        // A dispatch's rows are the data's: the event is made again from
        // the backend's output, and a shape-only run marks its bound.
        let data_dependent =
            matches!(op, Op::Dispatch { .. }).then(|| (about.clone(), path.clone()));
        // The heads a merge puts side by side: h, or one device's h/N.
        let heads = about
            .operand_axes
            .first()
            .and_then(|a| a.get(1))
            .cloned()
            .unwrap_or(Axis::Heads);
        let (mut event, operands) = about.event(
            (path, name, role),
            op,
            (shape, dtype),
            (on_stream, &stream, self.dtype),
        );
        if data_dependent.is_some() && !B::NUMERIC {
            mark_bound(&mut event);
        }
        // Heads merged to a width other than d_model (a head_dim given
        // apart from it) are h·hd wide, not d.
        if matches!(op, Op::MergeHeads(_)) && event.shape.last() != stream.last() {
            let wide = Axis::Product(vec![heads, Axis::HeadDim]);
            if let Some(last) = event.axes.last_mut() {
                last.clone_from(&wide);
            }
            if let Some(last) = event.sources.last_mut() {
                last.axis = wide;
            }
        }
        // Inside a fused group the pass has computed this step already.
        if let Some(f) = &mut self.fused {
            return match f.stats.pop_front() {
                Some(stats) => {
                    let (path, shape, axes) =
                        (event.path.clone(), event.shape.clone(), event.axes.clone());
                    self.note(event, Some((stats, None)), operands)?;
                    Ok(Val::unbuilt(path, shape, axes, dtype).as_role(role))
                }
                None => {
                    // The backend gave one output per step of the group.
                    let last = f.last.take().expect(FUSED_STEPS);
                    self.push(event, last, Some(operands), None)
                }
            };
        }
        let rest: Vec<&B::Tensor> = ins.iter().map(In::tensor).collect();
        let result = match owned {
            Some((x, _)) => self.backend.apply_owned(op, x.into_tensor(), &rest),
            None => self.backend.apply(op, &rest),
        };
        // The judge accepted these shapes, and the backend infers as it does.
        let t = result.map_err(|e| self.refused(&event.path, op, &operands, &e))?;
        // A 16-bit output is stored as the framework stores it: rounded.
        let t = if dtype.is_half() {
            self.backend.cast(t, dtype)
        } else {
            t
        };
        self.keep_step(&event, Some(op), keys, &t);
        let (event, operands) = match data_dependent {
            Some((about, path)) if B::shape(&t) != event.shape.as_slice() => about.event(
                (path, name, role),
                op,
                (B::shape(&t).to_vec(), dtype),
                (on_stream, &stream, self.dtype),
            ),
            _ => (event, operands),
        };
        // Split or merged heads hold their input's values: the same stats.
        let same = match op {
            Op::SplitHeads { .. } | Op::MergeHeads(_) => {
                event.inputs.first().and_then(|p| self.stats_of(p))
            }
            _ => None,
        };
        self.push(event, t, Some(operands), same)
    }

    /// The stop of step `path` whose backend refused `op` on `operands`
    /// with `e` (`op-shapes`).
    fn refused(
        &mut self,
        path: &str,
        op: &Op,
        operands: &[Operand],
        e: &crate::ops::OpError,
    ) -> Stop {
        let detail = crate::why::Why::new("judge-op-refused")
            .arg("at", "")
            .arg("op", op.kind().to_string())
            .arg("error", e.to_string());
        let failure = (CheckName::OpShapes, detail, operands.to_vec(), None);
        self.fail(path, op.kind(), failure)
    }

    /// The output shape and dtype of `op` on `all`, as the judges give
    /// them; the step at `path` fails `op-shapes` when they refuse.
    fn judged(
        &mut self,
        path: &str,
        op: &Op,
        all: &[In<B::Tensor>],
        about: &About,
    ) -> Result<(Shape, DType), Stop> {
        let shapes: Vec<&[usize]> = all.iter().map(|i| Self::shape_of(i)).collect();
        let dtypes: Vec<DType> = all.iter().map(|i| self.dtype_of(i)).collect();
        let judged = judge::op_shapes(op, &shapes)
            .and_then(|shape| Ok((shape, judge::op_dtype(op, &dtypes)?)));
        judged.map_err(|detail| {
            let failure = (CheckName::OpShapes, detail, about.operands.clone(), None);
            self.fail(path, op.kind(), failure)
        })
    }

    /// The tape's keys of `all`, each parameter's values kept on the tape
    /// the first time a step reads it; empty without a tape.
    fn keep_params(&mut self, all: &[In<B::Tensor>]) -> Vec<tape::Key> {
        let Some(tape) = &mut self.tape else {
            return Vec::new();
        };
        all.iter()
            .map(|i| match i {
                In::Act(v) => tape::Key::Act(v.path.clone()),
                In::Param(p) => {
                    if tape.param(&p.name).is_none() {
                        tape.params.push(tape::TapeParam {
                            name: p.name.clone(),
                            shape: B::shape(&p.t).to_vec(),
                            axes: p.axes.clone(),
                            values: self.backend.values(&p.t).and_then(|v| {
                                ndarray::ArrayD::from_shape_vec(B::shape(&p.t), v).ok()
                            }),
                        });
                    }
                    tape::Key::Param(p.name.clone())
                }
            })
            .collect()
    }

    /// Keeps the step of `event`, `op` on `ins`, and its output `t` on the
    /// tape, if there is one.
    fn keep_step(&mut self, event: &Pending, op: Option<&Op>, ins: Vec<tape::Key>, t: &B::Tensor) {
        let Some(tape) = &mut self.tape else {
            return;
        };
        let out = self
            .backend
            .values(t)
            .and_then(|v| ndarray::ArrayD::from_shape_vec(B::shape(t), v).ok());
        tape.steps.push(tape::Step {
            path: event.path.clone(),
            op: op.cloned(),
            ins,
            shape: B::shape(t).to_vec(),
            axes: event.axes.clone(),
            out,
        });
    }

    /// The axes, inputs and operands of an event of `op` on `all`.
    fn describe(&self, op: &Op, all: &[In<B::Tensor>]) -> About {
        About {
            axes: op.axes(&all.iter().map(In::axes).collect::<Vec<_>>()),
            inputs: all
                .iter()
                .filter_map(|i| match i {
                    In::Act(v) => Some(v.path.clone()),
                    In::Param(_) => None,
                })
                .collect(),
            operands: self.operands(all),
            operand_axes: all.iter().map(|i| i.axes().to_vec()).collect(),
            operand_roles: all
                .iter()
                .map(|i| match i {
                    In::Act(v) => Some(v.role),
                    In::Param(_) => None,
                })
                .collect(),
        }
    }

    /// The shape of an operand.
    fn shape_of<'a>(i: &'a In<'a, B::Tensor>) -> &'a [usize] {
        match i {
            In::Act(v) => &v.shape,
            In::Param(p) => B::shape(&p.t),
        }
    }

    /// The stats recorded for the event at `path`, the latest such.
    fn stats_of(&self, path: &str) -> Option<Stats> {
        self.events.iter().rev().find(|e| e.path == path)?.stats
    }

    /// Stops the run when the cancel hook is set.
    fn check_cancel(&mut self) -> Result<(), Stop> {
        if let Some(c) = &self.watch.hooks.cancel
            && c.load(Ordering::Relaxed)
        {
            self.cancelled = true;
            return Err(Stop);
        }
        Ok(())
    }

    /// The dtype of an operand: an activation's own; a parameter is
    /// stored in the model's dtype.
    fn dtype_of(&self, i: &In<B::Tensor>) -> DType {
        match i {
            In::Act(v) => v.dtype,
            In::Param(_) => self.dtype,
        }
    }

    /// The path, shape and dtype of each operand, for a failure.
    fn operands(&self, ins: &[In<B::Tensor>]) -> Vec<Operand> {
        ins.iter()
            .map(|i| Operand {
                path: i.path().to_string(),
                shape: Self::shape_of(i).to_vec(),
                dtype: self.dtype_of(i),
            })
            .collect()
    }
}

/// A shape-only dispatch records the bound of its rows, not their count:
/// its first axis reads `n_e≤8`, not `n_e=8`, and its why says so.
fn mark_bound(event: &mut Pending) {
    let bound = |a: &mut Axis| *a = Axis::Bound(Box::new(a.clone()));
    if let Some(a) = event.axes.first_mut() {
        bound(a);
    }
    if let Some(s) = event.sources.first_mut() {
        bound(&mut s.axis);
    }
    let expert = event
        .path
        .rsplit('.')
        .find_map(|p| p.strip_prefix("expert"))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let at = |i: usize| event.shape.get(i).copied().unwrap_or(0);
    event.why = crate::why::Why::new("why-dispatch-bound")
        .arg("e", expert)
        .arg("bound", at(0))
        .arg("d", at(1));
}
