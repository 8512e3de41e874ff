#!/usr/bin/env python3
"""shapetrace_export: trace your own PyTorch transformer into a shapetrace log.

What it records
---------------
One forward pass of your ``nn.Module`` in eval mode and without gradients, on
x ~ N(0, 1) of shape (B, T, d) (``--input``), or on token ids (``--tokens``)
for a whole model whose first module is an ``nn.Embedding`` (a nanoGPT
``GPT(idx)``; a forward returning ``(logits, loss)`` is fine: the trace ends
at the logits), or a Hugging Face model itself (``--hf DIR``). Every tensor
operation the forward runs (``x + y``, ``@``, ``.view``, ``.transpose``,
``F.*``, ``torch.einsum`` ...) is seen through
``torch.overrides.TorchFunctionMode`` and written as one event with its path,
op, shape, axes, dtype, the events it read, the shapes of all its operands,
summary statistics and its ``line``: where in your own file it ran
(``stud.py:19``, the innermost frame of the Python stack outside torch and
the exporter). Module hooks name each step after the module that ran it:
``block1.attn.c_attn.linear``, ``block1.attn.softmax``, ``ln_f.layernorm``.

Axes are named by dataflow (scripts/shapetrace_axes.py), never guessed: x is
(B, T, d); a linear maps the last axis (d → d, 3d, ff, V); a view splits or
merges axes whose sizes multiply out (d → h, hd); a transpose moves names; a
product (…, Tq, hd) @ (…, hd, Tk) gives (…, Tq, Tk), in every form (``@``,
``matmul``, ``mm``, ``bmm``, ``baddbmm``, ``addmm``, ``einsum``). A view that
regroups across axes is named with what it mixed: ``(B, [T·d→4], [T·d→4],
hd)``, and a reduction that keeps its axis ``[T→1]``. So a head split by
``.view(B, H, T, hd)`` shows at once: its scores pair heads, not tokens.

The blocks are the children of the attribute given with ``--blocks``, or else
of the first ``nn.ModuleList`` / ``nn.Sequential`` of same-class modules (the
model itself too: ``nn.Sequential(Block(), Block())`` is two blocks; in an
``nn.Sequential`` that holds other modules as well, its longest run of two
or more same-class modules that hold modules of their own) whose every
child, in a first unrecorded forward, takes a (B, T, d) tensor as its first
argument and returns a (B, T, d) tensor (a ModuleList of attention heads
inside one block is passed over); with ``--hf`` the ModuleList of
``num_hidden_layers`` modules. With no such container the model itself is one
block (layers 1, paths ``block1.…``). A plain Python list of modules is
refused: PyTorch does not register what it holds.

Residual adds are found by dataflow: an add (``x + f(x)``, ``x += f(x)``,
``torch.add``, ``x.add_``) one of whose operands carries the block's stream
(its input, a clone, view or in-place update of it, or the previous residual
sum) and whose other operand was computed from it, is ``block{N}.resid_{k}``
with inputs [stream, update], judged for two (B, T, d) operands of one dtype.
A sublayer whose output takes the stream's place instead of being added to it
(``x = self.attn(self.ln_1(x))``) is marked on its output event:
``replaces_stream`` (the module) and ``replaced_at`` (the line that called it).

Markers: ``inputs`` lists the activations an event read (events computed
from the input), not constants. An event computed from no activation (a
mask or constant from ``torch.full``, ``ones``, ``triu``, ``arange``, a
parameter ...) has ``inputs: []`` and never departs; an activation departs
when its shape or dtype differs from the stream's, and ``returns`` is true on
an activation back at the stream's shape and dtype one of whose inputs had
departed. ``finite`` is false when a value is NaN or +inf; −inf is allowed
anywhere (a causal mask writes it on purpose, and a −inf that reaches a
product or a norm turns into NaN there). Scores before their mask carry
``pre_mask``: a product of two activations giving (…, Tq, Tk) (a
``baddbmm`` or ``addmm`` unless the term it adds holds a mask), and the
steps on them that add no mask; a constant holds a mask when it has −inf or
a value ≤ −1e4 (−1e9, the dtype's minimum), not an ALiBi bias of small
negative numbers. ``torch.empty``'s
unwritten memory is not judged finite where it is made (``baddbmm(empty,
q, kᵀ, beta=0)`` never reads it).

The probes' evidence, not verdicts
----------------------------------
After a forward that ran, the probes re-run the model and write what changed;
``shapetrace check --log`` judges it, with the code that judges shapetrace's
own models:

* causality: token t of batch element 0 moved (a new random row of x, or
  another token id), the whole model re-run: for every op, which (batch,
  position) rows of its output changed and by how much;
* positionwise: every norm, and every direct child of a block that is not
  attention (its attribute or class name holds none of attn, attention,
  heads, mha, sa, self: the MLP whatever its name), called alone on the
  input it got with token t moved: which rows of each op inside it changed.
  A child that holds attention (a whole Block inside the one block, a
  ``Residual(attention)`` wrapper; attention by name, or a module that
  computed scores (…, Tq, Tk) or ran torch's attention) is not run alone:
  its own children are, by the same rule.

Positions are read from the axes: the T (or Tq) axis, a merged B·T axis, or
every position when T was mixed into another axis or reduced (``[T→1]``), so
the first op that breaks a rule is the one named, with its line.

The format (schema 4, JSON Lines)
---------------------------------
::

    {"kind":"header","schema":4,"producer":"shapetrace_export 1 (torch 2.5.1)",
     "mode":"numeric","stream_shape":[2,4,64],"batch":2,"seq":4,"d_model":64,
     "layers":2,"placement":"pre","dtype":"f32","model":"student.py:Model"}
     (with --tokens also "input":"tokens","vocab":V)
    {"kind":"event","step":0,"path":"input","op":"input","role":"input","shape":[2,4,64],
     "axes":["B","T","d"],"dtype":"f32","on_stream":true,"departs":false,
     "returns":false,"inputs":[],"formula":"x0 : (2,4,64)","stats":{...}}
    {"kind":"event",...,"line":"stud.py:19","operands":[[2,4,64],[192,64],[192]],
     "args":{"dims":[1,2]}}  ... one event per step; residual adds also carry "check":{...}
    Each event says its "role" where the trace knows it from the module's
    type or the dataflow: "input", "embedding", "norm" (a norm module's
    output, whatever it is named), "scores" (a product before its mask),
    "weights" (a softmax), "residual-add"; shapetrace gives the rest theirs
    from the ops on reading (src/trace/role.rs).
    {"kind":"failure", ...}            only when the forward raised
    {"kind":"evidence","probe":"causality","module":null,"token":2,
     "rows":[{"path":"block1.attn.softmax","op":"softmax","pre_mask":false,
              "batch":2,"seq":4,"delta":[B·T largest |Δ| per row, 0 unchanged]}]}
    {"kind":"summary","events":N,"departures":N,"residual_adds":N}

How to run it
-------------
::

    python scripts/shapetrace_export.py student.py:Model --input 2,4,64 \\
        --out mine.jsonl [--blocks NAME] [--placement pre|post] [--seed 0] \\
        [--dtype f32|f64|bf16|f16]
    python scripts/shapetrace_export.py student.py:GPT --tokens 2,4 --out g.jsonl
    python scripts/shapetrace_export.py student.py:GPT --tokens ids.npy --out g.jsonl
    python scripts/shapetrace_export.py --hf DIR --tokens 2,5 --out hf.jsonl

``student.py:make_model`` names a factory function instead of a class; either
is called with no arguments. ``--tokens B,T`` draws ids below the vocabulary
of the model's first ``nn.Embedding``; ``--tokens FILE.npy`` reads (B, T)
integer ids. ``--hf DIR`` needs ``transformers``: the folder's config.json
(its weights when present, else a seeded random init), eager attention, no
cache. Exit status: 0 the forward ran and every value is finite (judge the
evidence with ``shapetrace check --log``); 1 the forward stopped, or a value is
NaN or +inf (the line says ``finite fail at PATH``); 2 bad arguments
or an output that cannot be written (one line ``shapetrace_export: …`` on
stderr naming the value and what is allowed, no log written and no file
replaced): ``--out`` a folder, in a missing or unwritable folder, a block
device, or the model file itself, the ``--tokens`` file or a file of the
``--hf`` folder (by device and inode, through symlinks and
hard links, checked before the model is imported), or a source file of the
model (the file its class is written in, or any module loaded from the
model file's folder or below it, such as a ``helper.py`` it imports the
class from; checked once the model is built, before the trace); a write
that fails (a full disk, a FIFO or ``/dev/fd/N`` pipe with no reader);
``--input`` not three positive integers, over 2^28 elements, or needing more
than the free memory (MemAvailable, a cgroup's limit) or the address space
``ulimit -v`` leaves; ``--tokens`` not B,T or a readable .npy of (B, T)
integer ids, or an id outside the vocabulary; neither or both of ``--input``
and ``--tokens``; ``--hf`` not a folder with a config.json, or without
transformers; an allocation that fails anyway (``out of memory: …``);
``--seed`` outside 0 ≤ seed < 2**63; a model file that raises or exits at
import; a model without an ``nn.Embedding`` given ``--tokens``; a model that
takes token ids given ``--input``; a plain list of blocks. A signal ends
the run as shapetrace's own commands do, the temp file removed and the
exit code 128 + its number: 130 Ctrl-C (SIGINT), 143 SIGTERM, 129 SIGHUP.

Where the log goes (the writer rules of shapetrace's own ``--out``): a
regular file or a new path is written to a temp file in its folder and
renamed over it once whole, so a failed write leaves the old file as it was
and no temp file behind; an existing file keeps its permissions, and a
symlink stays a symlink (the file it names is replaced). A character device,
a FIFO or an inherited descriptor (``-`` or ``/dev/stdout``, ``/dev/stderr``,
``/dev/fd/N``, ``/proc/self/fd/N``) is written into in place, never
replaced; with ``--out -`` the summary line goes to stderr, and a stdout
whose reader is gone (``--out - | head -c 10``) takes the rest of the log
quietly, as shapetrace's own ``--out -`` does: the exit code stays the
checks' (0 or 1). Every name and
message printed (``--out``, module paths, a model's exception) has its
control and invisible characters escaped (``\\n``, ``\\u{1b}``) and is cut
past 80 characters (240 for a message), as shapetrace prints them.

From Python::

    import shapetrace_export
    result = shapetrace_export.trace(model, x, "mine.jsonl", blocks=None,
                                     placement="pre")   # x: (B, T, d), or (B, T) int64 ids
    result.ok, result.path, result.evidence

How to judge the result
-----------------------
::

    shapetrace check --log mine.jsonl    # the shape contract, judged on the log
    shapetrace view mine.jsonl           # step through it

Depends on torch and the standard library (and scripts/shapetrace_axes.py
beside it); numpy for ``--tokens FILE.npy``, transformers for ``--hf``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import importlib.util
import inspect
import json
import math
import os
import re
import signal
import stat
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

try:
    import torch
    from torch import nn
    from torch.overrides import TorchFunctionMode
except ImportError:
    if __name__ == "__main__":
        print("shapetrace_export needs torch: pip install torch", file=sys.stderr)
        sys.exit(2)
    raise

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapetrace_axes as axes_mod  # noqa: E402  (beside this file; torch-free)

sys.path.pop(0)

SCHEMA = 4
VERSION = 1

# The role an op's event has in the model, where the op alone says it
# (shapetrace's names, assets/trace-log.schema.json); a norm module's output
# and scores before their mask are given theirs from the module and the
# dataflow, a residual add from its check.
ROLE_OF_OP = {"input": "input", "embedding": "embedding", "softmax": "weights"}

DTYPES = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.bfloat16: "bf16",
    torch.float16: "f16",
    torch.int64: "i64",
}
MODEL_DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}
PLACEMENTS = ("pre", "post")

# Names torch gives an op → the name the log writes.
OP_ALIASES = {
    "layer_norm": "layernorm",
    "rms_norm": "rmsnorm",
}
# Operators with a reflected (__radd__) or in-place (__iadd__) form.
BINARY = {"add", "sub", "mul", "truediv", "floordiv", "div", "matmul", "pow", "mod", "and", "or", "xor", "lshift", "rshift"}
# Tensor-valued attributes that only read what a tensor already is.
METADATA = {"data", "grad", "_base", "device", "dtype", "shape", "layout", "names"}
# A block child whose attribute or class name (lower-cased) holds one of these
# is attention: it mixes tokens on purpose and the positionwise probe skips it.
ATTENTION_WORDS = ("attn", "attention", "heads", "mha", "sa", "self")
# Ops that raise when x (floats) is used as token ids.
INDEX_OPS = {"embedding", "getitem", "index_select", "gather", "take", "one_hot"}
SEED_LIMIT = 2**63
# The largest input x, in elements (B·T·d): 2^28 is 1 GiB in f32, beyond
# any transformer a student traces on a CPU; a bigger one is refused
# before it is drawn, as is one the free memory cannot hold.
MAX_INPUT_ELEMENTS = 2**28


# -- what is printed -------------------------------------------------------
# The one escaping rule of shapetrace's src/text.rs: a user's string (a
# command-line value, a file or module name, an exception's message) is
# printed with its control and invisible formatting characters escaped,
# never dropped, and cut with its length past a cap.

MAX_SHOWN = 80  # longest value shown whole, in characters
MAX_MESSAGE = 3 * MAX_SHOWN  # longest message (an exception's) shown whole


def _hidden(c: str) -> bool:
    """Controls (C0, DEL, C1) and the invisible formatting characters (zero
    widths, bidi overrides, the byte-order mark), which a terminal acts on
    or hides rather than prints."""
    o = ord(c)
    return (o < 0x20 or 0x7F <= o <= 0x9F or 0x200B <= o <= 0x200F or 0x202A <= o <= 0x202E
            or 0x2028 <= o <= 0x2029 or 0x2060 <= o <= 0x2069 or o == 0xFEFF)


def _lossless(s) -> str:
    """`s` as text: a path or bytes decoded, each byte that is not UTF-8 (a
    surrogate escape from the command line) written ``\\xNN``."""
    if isinstance(s, (bytes, os.PathLike)):
        s = os.fsdecode(s)
    s = str(s)
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in s)


def shown(s, cap: int | None = MAX_SHOWN) -> str:
    """`s` safe to print: newline, tab and return as ``\\n \\t \\r``, every
    other hidden character as ``\\u{1b}``; past `cap` characters cut to
    ``… (N chars)``. Nothing is dropped, so the value named is the value given."""
    text = _lossless(s)
    out = []
    for count, c in enumerate(text):
        if cap is not None and count == cap:
            out.append(f"… ({len(text)} chars)")
            break
        if c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif _hidden(c) or 0xD800 <= ord(c) <= 0xDFFF:
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return "".join(out)


def escaped(s) -> str:
    """`s` escaped as by `shown` but never cut: the exporter's own text that quotes values."""
    return shown(s, cap=None)


def one_line(s) -> str:
    """A message from elsewhere (an exception's first line) as one printable
    line: trimmed, escaped, cut at MAX_MESSAGE characters."""
    first = str(s).strip().split("\n")[0]
    return shown(first.strip(), MAX_MESSAGE)


def _q(s) -> str:
    """A value quoted in a message: ``'stud.py'``."""
    return f"'{shown(s)}'"


def _say(message: str) -> None:
    """One ``shapetrace_export: …`` line on stderr; a failed write (a closed
    or full stderr) is ignored so the exit code stays the one meant."""
    try:
        sys.stderr.write(f"shapetrace_export: {escaped(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _producer() -> str:
    version = torch.__version__.split("+")[0]
    return f"shapetrace_export {VERSION} (torch {version})"


def _dtype(t: torch.Tensor) -> str | None:
    """The log's name of a tensor's dtype; None for one the log does not keep (bool masks)."""
    return DTYPES.get(t.dtype)


def _shape(t: torch.Tensor) -> list[int]:
    return [int(s) for s in t.shape]


def _fmt(shape) -> str:
    return "(" + ",".join(str(int(s)) for s in shape) + ")"


def _tensors(obj) -> list[torch.Tensor]:
    """Every tensor in an op's arguments or result, in order (lists, tuples, dicts)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors(o)]
    return []


def _stats(t: torch.Tensor) -> dict:
    """Min, max, mean, population std of the finite values as float64.

    finite: no NaN and no +inf. −inf is allowed anywhere: a causal mask
    writes it on purpose (masked_fill, where, an additive ``torch.full(…,
    -inf).triu(1)``), the softmax turns it into weight 0, and a −inf that
    reaches a product or a norm turns into NaN there, which is caught.
    """
    v = t.detach().to(torch.float64).reshape(-1)
    ok = torch.isfinite(v)
    finite = not bool((torch.isnan(v) | (v == float("inf"))).any()) if v.numel() else True
    if not bool(ok.all()):
        v = v[ok]
    if v.numel() == 0:
        return {"min": 0.0, "max": 0.0, "mean": 0.0, "std": 0.0, "finite": finite}
    # Values near the f64 maximum (1e300) overflow a sum or a sum of squares
    # to inf, which JSON cannot hold: such a tensor's mean and std are taken
    # of it divided by a power of two (exact) and scaled back, which stays
    # within its largest magnitude. The power is 2^(e-1) for biggest =
    # m·2^e (0.5 ≤ m < 1), at most 2^1023: 2.0**e itself overflows for a
    # finite value of 2^1023 or more (biggest up to 1.797e308).
    scale = 1.0
    biggest = float(v.abs().max())
    if biggest > 2.0**500:
        scale = math.ldexp(1.0, math.frexp(biggest)[1] - 1)
        v = v / scale
    return {
        "min": float(v.min()) * scale,
        "max": float(v.max()) * scale,
        "mean": float(v.mean()) * scale,
        "std": float(v.std(unbiased=False)) * scale if v.numel() > 1 else 0.0,
        "finite": finite,
    }


def _op_name(func) -> tuple[str, bool]:
    """The lower-case op name of a torch function and whether it writes in place."""
    name = getattr(func, "__name__", None) or type(func).__name__
    if name == "__get__":
        name = getattr(getattr(func, "__self__", None), "__name__", "get")
    inplace = False
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
        if name.startswith("r") and name[1:] in BINARY:
            name = name[1:]
        elif name.startswith("i") and name[1:] in BINARY:
            name, inplace = name[1:], True
        elif name == "setitem":
            inplace = True
    elif name.endswith("_") and not name.startswith("_"):
        name, inplace = name[:-1], True
    name = name.lower()
    return OP_ALIASES.get(name, name), inplace


def _is_norm(m: nn.Module) -> bool:
    kinds = (nn.LayerNorm,) + ((nn.RMSNorm,) if hasattr(nn, "RMSNorm") else ())
    return isinstance(m, kinds) or "Norm" in type(m).__name__


@dataclasses.dataclass
class _Survey:
    """What a first, unrecorded forward saw: per module, the (B, T, …) shape of
    its first argument and of its first output at each call (None: not a
    tensor, or the call raised); whether the forward completed; and a token-id
    reason when x was used as token ids."""

    calls: dict
    completed: bool
    token_ids: str | None


class _RaisingOp(TorchFunctionMode):
    """Notes the first op that raised and its message."""

    def __init__(self):
        super().__init__()
        self.op: str | None = None
        self.message = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        try:
            return func(*args, **(kwargs or {}))
        except Exception as e:
            if self.op is None:
                self.op = _op_name(func)[0]
                self.message = str(e)
            raise


def survey(model: nn.Module, x: torch.Tensor) -> _Survey:
    """Run the forward once, unrecorded (RNG state kept), and note each module's calls."""
    calls: dict[int, list[list]] = {}
    stack: list[list] = []
    token_ids: list[str] = []

    def pre(mod, args):
        first = args[0] if args else None
        call = [tuple(first.shape) if isinstance(first, torch.Tensor) else None, None]
        calls.setdefault(id(mod), []).append(call)
        stack.append(call)
        if (isinstance(mod, nn.Embedding) and isinstance(first, torch.Tensor)
                and first.is_floating_point() and not token_ids):
            token_ids.append("its first module is nn.Embedding")

    def post(mod, args, output):
        call = stack.pop() if stack else [None, None]
        out = _first_tensor(output)
        call[1] = tuple(out.shape) if out is not None else None

    hooks = []
    for mod in model.modules():
        hooks.append(mod.register_forward_pre_hook(pre))
        hooks.append(mod.register_forward_hook(post, always_call=True))
    rng = torch.get_rng_state()
    raising = _RaisingOp()
    completed = True
    try:
        with torch.no_grad(), raising:
            model(x.clone())
    except Exception:  # noqa: BLE001 - the recorded forward reports it
        completed = False
    finally:
        for h in hooks:
            h.remove()
        torch.set_rng_state(rng)
    reason = token_ids[0] if token_ids else None
    if reason is None and not completed:
        # The forward stopped before its embedding ran (e.g. `B, T = idx.shape`):
        # the first module the model holds is an nn.Embedding it never reached.
        first = next((m for m in model.modules() if m is not model and not any(True for _ in m.children())), None)
        if isinstance(first, nn.Embedding) and id(first) not in calls:
            reason = "its first module is nn.Embedding"
    if (reason is None and not completed and raising.op in INDEX_OPS
            and re.search(r"ind", raising.message, re.IGNORECASE)
            and re.search(r"long|int", raising.message, re.IGNORECASE)):
        reason = f"its forward uses x as indices: {raising.op} refused the float input"
    return _Survey(calls, completed, reason)


def _takes_stream(children: list[nn.Module], seen: _Survey, want: tuple) -> bool:
    """Every child took a `want`-shaped tensor first and returned one (of a forward
    that stopped: every child that ran, at least one)."""
    ran = False
    for c in children:
        calls = seen.calls.get(id(c), [])
        if not calls and seen.completed:
            return False
        for arg, out in calls:
            if arg != want or (out is None and seen.completed) or (out is not None and out != want):
                return False
            ran = True
    return ran


def _plain_lists(model: nn.Module) -> list[tuple[str, str, int]]:
    """(Model.attr, list|tuple, how many modules) for every list or tuple attribute holding modules."""
    found = []
    for name, mod in model.named_modules():
        for attr, value in vars(mod).items():
            if attr.startswith("_") or not isinstance(value, (list, tuple)):
                continue
            n = sum(isinstance(v, nn.Module) for v in value)
            if n:
                where = ".".join(p for p in (type(model).__name__, name, attr) if p)
                found.append((where, type(value).__name__, n))
    return found


def _plain_list_message(where: str, kind: str, n: int) -> str:
    return (f"{shown(where)} is a plain Python {kind} of {n} module{'s' if n != 1 else ''}: wrap it in nn.ModuleList "
            "so PyTorch registers them (their weights are otherwise invisible to .to(), .parameters() "
            "and optimizers); allowed: nn.ModuleList or nn.Sequential")


def _block_runs(container: nn.Module, composite: bool) -> list[tuple[int, list[nn.Module]]]:
    """The candidate blocks of a ModuleList or Sequential, as (index of the
    first, modules): all its children when they share one class; else, for
    an nn.Sequential (run in order), each run of two or more consecutive
    children of one class that hold modules of their own
    (``nn.Sequential(emb, Block(), Block(), norm, head)``), longest first.
    With `composite`, only modules that hold modules of their own."""
    children = list(container.children())
    if not children:
        return []
    if len({type(c) for c in children}) == 1:
        runs = [(0, children)]
    elif isinstance(container, nn.Sequential) and composite:
        runs, start = [], 0
        for i in range(1, len(children) + 1):
            if i == len(children) or type(children[i]) is not type(children[start]):
                if i - start >= 2:
                    runs.append((start, children[start:i]))
                start = i
        runs.sort(key=lambda r: -len(r[1]))
    else:
        runs = []
    return [(k, run) for k, run in runs if not composite or any(True for _ in run[0].children())]


def find_blocks(model: nn.Module, blocks: str | None = None,
                seen: _Survey | None = None, stream_shape=None) -> tuple[str, list[nn.Module]]:
    """The blocks: the children of `blocks` (a dotted attribute), or of the shallowest
    nn.ModuleList / nn.Sequential, the model itself included, whose one or
    more children share one class, or of an nn.Sequential's longest run of
    two or more consecutive children of one class (children that hold
    modules of their own first, any children after) and, when a survey is
    given, every one of which took and returned a `stream_shape` tensor;
    else the model itself as one block ("", [model])."""
    if blocks is not None:
        if not blocks.strip():
            raise ValueError("--blocks '' names no attribute; allowed: the attribute holding the blocks, e.g. h or transformer.h")
        try:
            container = model.get_submodule(blocks)
        except AttributeError:
            owner, _, attr = blocks.rpartition(".")
            try:
                value = getattr(model.get_submodule(owner) if owner else model, attr, None)
            except AttributeError:
                value = None
            n = sum(isinstance(v, nn.Module) for v in value) if isinstance(value, (list, tuple)) else 0
            if n:
                raise ValueError(_plain_list_message(f"{type(model).__name__}.{blocks}", type(value).__name__, n)) from None
            raise ValueError(f"--blocks {_q(blocks)} names no submodule of the model; allowed: the attribute holding the blocks, e.g. h or transformer.h") from None
        children = list(container.children())
        if not children:
            raise ValueError(f"--blocks {_q(blocks)} has no children; allowed: a ModuleList or Sequential of blocks")
        return blocks, children
    want = tuple(stream_shape) if stream_shape is not None else None
    tried: set[tuple[int, int]] = set()
    # Blocks are built of modules of their own: a Sequential of one Linear is
    # passed over while a container of composite modules is left to find.
    # The model itself is a container like any other (a root
    # ``nn.Sequential(Block(), Block())``, or a Sequential subclass): its
    # children are the blocks, never "block 1" holding them all.
    for composite in (True, False):
        queue = [("", model)]
        while queue:
            name, mod = queue.pop(0)
            if isinstance(mod, (nn.ModuleList, nn.Sequential)):
                for start, children in _block_runs(mod, composite):
                    if (id(mod), start) in tried:
                        continue
                    tried.add((id(mod), start))
                    if seen is None or want is None or _takes_stream(children, seen, want):
                        return name, children
            for cname, child in mod.named_children():
                queue.append((f"{name}.{cname}" if name else cname, child))
    lists = _plain_lists(model)
    if lists:
        raise ValueError(_plain_list_message(*lists[0]))
    return "", [model]


def _display_names(model: nn.Module, container: str, blocks: list[nn.Module]) -> dict[int, tuple[str, int | None]]:
    """id(module) → (its name in the log, its block number or None): `block2.attn`, `ln_f`, ``."""
    block_no = {id(b): n for n, b in enumerate(blocks, 1)}
    out: dict[int, tuple[str, int | None]] = {}
    for name, mod in model.named_modules():
        out[id(mod)] = (escaped(name), None)
    for b in blocks:
        n = block_no[id(b)]
        for rel, mod in b.named_modules():
            out[id(mod)] = (f"block{n}" + (f".{escaped(rel)}" if rel else ""), n)
    return out


def _param_names(model: nn.Module, names: dict[int, tuple[str, int | None]]) -> dict[int, str]:
    """id(parameter or buffer) → `block1.mlp.c_fc.weight`, for a failure's operands."""
    out = {}
    for mod in model.modules():
        prefix = names.get(id(mod), ("", None))[0]
        for pname, p in list(mod.named_parameters(recurse=False)) + list(mod.named_buffers(recurse=False)):
            if p is not None:
                out.setdefault(id(p), f"{prefix}.{escaped(pname)}" if prefix else escaped(pname))
    return out


def _user_file(filename: str) -> bool:
    """Whether code in `filename` is the user's own (their model file, a
    module it imports, transformers' modeling code): not torch, not the
    standard library, not the exporter."""
    hit = _USER_FILES.get(filename)
    if hit is None:
        path = os.path.abspath(filename)
        hit = not (filename.startswith("<") or any(path.startswith(p) for p in _NOT_USER))
        _USER_FILES[filename] = hit
    return hit


_USER_FILES: dict[str, bool] = {}
_NOT_USER = tuple({os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,
                   os.path.abspath(__file__),
                   os.path.abspath(axes_mod.__file__),
                   os.path.dirname(os.path.abspath(contextlib.__file__)) + os.sep})


def _user_line() -> str | None:
    """`file.py:19`: the innermost frame of the Python stack in the user's code."""
    f = sys._getframe(1)
    while f is not None:
        if _user_file(f.f_code.co_filename):
            return f"{escaped(Path(f.f_code.co_filename).name)}:{f.f_lineno}"
        f = f.f_back
    return None


# Ops that hand their operand's data on unchanged: a copy of the stream is the stream.
_PASS_ON = {"clone", "contiguous", "view", "reshape", "to", "float", "type_as", "detach", "view_as", "reshape_as",
            "flatten", "copy"}
# Ops that cut a piece out of a tensor: a piece at the stream's shape has not returned to it.
_PIECES = {"split", "chunk", "getitem", "narrow", "unbind", "tensor_split", "select", "split_with_sizes"}
# Ops that hand out memory without writing it (``baddbmm(torch.empty(…), q, kᵀ, beta=0)``).
_UNINITIALIZED = {"empty", "empty_like", "new_empty", "empty_strided"}
# Products of two (batched) matrices: op → (position of the added term or None,
# of the first factor, of the second; their keyword names). ``baddbmm(input,
# batch1, batch2, beta=, alpha=)`` is β·input + α·batch1 @ batch2.
_PRODUCTS = {
    "matmul": (None, 0, 1, (None, "input", "other")),
    "mm": (None, 0, 1, (None, "input", "mat2")),
    "bmm": (None, 0, 1, (None, "input", "mat2")),
    "baddbmm": (0, 1, 2, ("input", "batch1", "batch2")),
    "addmm": (0, 1, 2, ("input", "mat1", "mat2")),
}
# An additive mask writes −inf, or a large negative number (−1e4, −1e9, the dtype's minimum).
MASK_VALUE = -1e4


def _holds_mask(t, sub: bool = False) -> bool:
    """Whether constant `t`, added to scores (subtracted with `sub`), masks
    them: of two or more axes and holding −inf or a value ≤ −1e4 (+inf or
    ≥ 1e4 subtracted)."""
    try:
        if not isinstance(t, torch.Tensor) or t.dim() < 2 or not t.is_floating_point() or not t.numel():
            return False
        v = t.detach()
        return bool(float(v.max()) >= -MASK_VALUE) if sub else bool(float(v.min()) <= MASK_VALUE)
    except (RuntimeError, TypeError):
        return False


def _factors(op, args, kwargs) -> tuple:
    """(added term, first factor, second factor) of a product in `_PRODUCTS`,
    each None when not passed; positional or by keyword."""
    spec = _PRODUCTS.get(op)
    if spec is None:
        return None, None, None
    *where, keys = spec
    out = []
    for pos, key in zip(where, keys):
        if pos is None:
            out.append(None)
        elif pos < len(args):
            out.append(args[pos])
        else:
            out.append(kwargs.get(key, kwargs.get("self") if key == "input" else None))
    return tuple(out)


# Ops that apply an attention mask or turn scores into weights: what follows is no longer "before the mask".
_MASKING = {"masked_fill", "where", "softmax", "log_softmax"}


class _Recorder(TorchFunctionMode):
    """Records every tensor op of one forward as a log event: its path, shape,
    axes named by dataflow, dtype, the events it read, its line in the user's
    code; residual adds found by dataflow. Every event's tensor is kept
    (cloned) for the probes' evidence; a `probe` run (one compared with
    the recorded one, never written) computes no stats and no lines."""

    def __init__(self, model, x, container, blocks, names, stream_shape=None, vocab=None, probe=False,
                 dtype=None):
        super().__init__()
        self.model = model
        self.names = names
        self.params = _param_names(model, names)
        self.blocks = {id(b) for b in blocks}
        self.stream_shape = list(stream_shape) if stream_shape is not None else _shape(x)
        self.dtype = dtype or _dtype(x)
        B, T, d = self.stream_shape
        self.namer = axes_mod.Names(B, T, d, vocab)
        self.probe = probe
        self.kept: dict[str, torch.Tensor] = {}
        self.events: list[dict] = []
        self.by_tensor: dict[int, tuple[torch.Tensor, int, str]] = {}
        self.active: set[str] = set()  # events computed from the input (activations)
        self.index: dict[str, int] = {}  # event path → its step
        self.ancestry: dict[str, int] = {}  # event path → bit set of the steps it was computed from
        self.premask: set[str] = set()
        self.counts: dict[str, int] = {}
        self.used: set[str] = set()
        self.frames: list[tuple[str, int | None]] = []
        # The block being run: its number, the events carrying its stream, its
        # residual count, and the outputs of its sublayers (path → module name).
        self.block: int | None = None
        self.block_depth = 0
        self.stream: set[str] = set()
        self.streamed: set[str] = set()  # every event that carried the block's stream, the current ones too
        self.resid = 0
        self.sublayers: dict[str, str] = {}
        self.norm_inputs: list[bool] = []
        self.failure: dict | None = None
        self.busy = False
        self._record_input(x)

    # -- tensors and events ------------------------------------------------
    def _event_of(self, t) -> str | None:
        if not isinstance(t, torch.Tensor):
            return None
        entry = self.by_tensor.get(id(t))
        if entry is None or entry[0] is not t:
            return None
        return entry[2]

    def _event(self, path: str) -> dict:
        return self.events[self.index[path]]

    def _axes_of(self, t) -> list[str] | None:
        """The axes of an activation operand; None for a parameter or constant."""
        p = self._event_of(t)
        if p is None or p not in self.active:
            return None
        return self._event(p)["axes"]

    def _mark(self, t) -> None:
        path = self._event_of(t)
        if path is not None:
            self._event(path)["on_stream"] = True

    def _unique(self, base: str) -> str:
        n = self.counts.get(base, 0)
        while True:
            n += 1
            name = base if n == 1 else f"{base}_{n}"
            if name not in self.used:
                self.counts[base] = n
                return name

    def _base(self, op: str) -> str:
        prefix = self.frames[-1][0] if self.frames else ""
        return f"{prefix}.{op}" if prefix else op

    def _current_block(self) -> int | None:
        for _, n in reversed(self.frames):
            if n is not None:
                return n
        return None

    def _in_attention(self) -> bool:
        return any(_is_attention(name.rpartition(".")[2], None) for name, _ in self.frames if name)

    def _computed_from(self, path: str, source: str) -> bool:
        return bool((self.ancestry.get(path, 0) >> self.index[source]) & 1) and path != source

    def _from_stream(self, path: str) -> bool:
        return any(self._computed_from(path, s) for s in self.streamed)

    def _push(self, path, op, t, inputs, formula, *, axes=None, check=None, on_stream=False, active=None,
              operands=None, args=None):
        """One event. An activation (computed from the input: `inputs` non-empty,
        or the input itself) departs when its shape or dtype is not the stream's;
        it returns when it is back at the stream's and one of the events it read
        had departed (token ids depart from nothing: an embedding does not return). An event computed from no activation (a mask, a constant)
        does neither."""
        shape, dtype = _shape(t), _dtype(t)
        active = bool(inputs) if active is None else active
        home = shape == self.stream_shape and dtype == self.dtype
        # Token ids (and views of them) are no stream that could be left.
        departs = active and not home and dtype != "i64"
        away = any(self._event(p)["departs"] for p in inputs if p in self.index)
        step = len(self.events)
        event = {
            "kind": "event",
            "step": step,
            "path": path,
            "op": op,
            "shape": shape,
            "axes": axes if axes is not None else self.namer.fallback(shape),
            "dtype": dtype,
            "on_stream": on_stream,
            "departs": departs,
            # A piece cut from a wider tensor (q from a fused q, k, v) has not come back.
            "returns": active and home and away and op not in _PIECES,
            "inputs": inputs,
            "formula": formula,
            # A probe's run is compared, never written: no stats, no lines.
            "stats": None if self.probe else _stats(t),
        }
        if op in _UNINITIALIZED and event["stats"] is not None:
            # torch.empty's memory is whatever was there (a NaN, maybe): it is
            # judged finite where it is read (baddbmm with β ≠ 0), not here.
            event["stats"]["finite"] = True
        line = None if self.probe else _user_line()
        if line is not None:
            event["line"] = line
        if operands is not None:
            event["operands"] = operands
        if args:
            event["args"] = args
        if check is not None:
            event["check"] = check
        role = "residual-add" if check is not None else ROLE_OF_OP.get(op)
        if role is not None:
            event["role"] = role
        self.used.add(path)
        self.index[path] = step
        anc = 1 << step
        for p in inputs:
            anc |= self.ancestry.get(p, 0)
        self.ancestry[path] = anc
        self.events.append(event)
        self.by_tensor[id(t)] = (t, t._version, path)
        self.kept[path] = t.detach().clone()
        if active:
            self.active.add(path)
        else:
            self.active.discard(path)
        return event

    def _record_input(self, x):
        ids = x.dtype == torch.int64
        axes = ["B", "T"] if ids else ["B", "T", "d"]
        self._push("input", "input", x, [], f"x0 : {_fmt(x.shape)}", axes=axes, on_stream=not ids, active=True)
        self.events[0].pop("line", None)  # the input is given, not computed by a line of the model
        if ids:
            self.events[0]["departs"] = False

    def _operand_event(self, t: torch.Tensor) -> str:
        """The event of a residual add's operand; one `constant` event (inputs [])
        for an operand no op recorded (a parameter, a buffer)."""
        path = self._event_of(t)
        if path is not None:
            return path
        base = self.params.get(id(t)) or self._base("constant")
        path = self._unique(base)
        self._push(path, "constant", t, [], f"constant : → {_fmt(t.shape)}")
        return path

    # -- module hooks ------------------------------------------------------
    def pre_hook(self, module, args):
        name, n = self.names.get(id(module), ("", None))
        self.frames.append((name, n))
        first = args[0] if args else None
        if id(module) in self.blocks:
            self.block, self.resid, self.block_depth = n, 0, len(self.frames)
            p = self._event_of(first)
            self.stream = {p} if p is not None else set()
            self.streamed = set(self.stream)
            self.sublayers = {}
            self._mark(first)
        if _is_norm(module) and module is not self.model:
            self.norm_inputs.append(self._event_of(first) in self.stream)

    def post_hook(self, module, args, output):
        depth = len(self.frames)
        name = self.frames.pop()[0] if self.frames else ""
        out = _first_tensor(output)
        path = self._event_of(out)
        if _is_norm(module) and module is not self.model:
            from_stream = self.norm_inputs.pop() if self.norm_inputs else False
            if path is not None:
                # A norm itself, not a wrapper named like one (`PreNorm(d, fn)`),
                # whose output is its sublayer's.
                if not any(True for _ in module.children()):
                    self._event(path)["role"] = "norm"
                self._mark(out)
                # A norm of the stream is the stream its block adds onto next
                # (Post-LN, or a norm written after the add).
                if from_stream and self.block is not None:
                    self.stream.add(path)
                    self.streamed.add(path)
        elif (self.block is not None and depth == self.block_depth + 1 and path is not None
              and _shape(out) == self.stream_shape and path not in self.stream and self._from_stream(path)):
            # A sublayer's output: added to the stream, or (a forgotten residual)
            # put in its place; the line that called it is the block's.
            self.sublayers[path] = (name, _user_line())
        if id(module) in self.blocks:
            if path is not None:
                self._mark(out)
                if path not in self.stream:
                    self._replaced(path)
            self.block, self.stream, self.sublayers = None, set(), {}

    def _replaced(self, path: str) -> None:
        """The stream became `path` without an add: the sublayer whose output it
        is (or was computed from, last) replaced the stream."""
        for sub in sorted(self.sublayers, key=lambda p: -self.index[p]):
            if sub == path or self._computed_from(path, sub):
                self._replaces(sub)
                return

    def _replaces(self, sub: str) -> None:
        """Event `sub`, a sublayer's output, took the stream's place: its module
        and the line that called it."""
        e = self._event(sub)
        if "replaces_stream" not in e:
            name, line = self.sublayers[sub]
            e["replaces_stream"] = name
            if line is not None:
                e["replaced_at"] = line

    # -- ops ---------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.busy:
            return func(*args, **kwargs)
        op, inplace = _op_name(func)
        operands = [t for t in _tensors(args) + _tensors(kwargs)]
        residual = None
        if op == "add" and self.block is not None and self._current_block() == self.block:
            self.busy = True
            try:
                residual = self._residual(args)
            finally:
                self.busy = False
        try:
            out = func(*args, **kwargs)
        except Exception as e:  # the step that refused its operands
            self.busy = True
            try:
                self._failed(op, operands, residual, e)
            finally:
                self.busy = False
            raise
        if op in ("setitem", "copy") or (inplace and args and isinstance(args[0], torch.Tensor)):
            if args and isinstance(args[0], torch.Tensor):
                out = args[0] if op in ("setitem", "copy") else out
        results = [t for t in _tensors(out) if _dtype(t) is not None]
        if not results or op in METADATA:
            return out
        if not inplace and op not in ("setitem", "copy") and any(r is t for r in results for t in operands):
            return out  # `.to(its own dtype)`, `.contiguous()` of a contiguous tensor: the same tensor, no step
        self.busy = True
        try:
            self._record(op, args, kwargs, operands, residual, results)
        finally:
            self.busy = False
        return out

    def _residual(self, args) -> tuple | None:
        """(stream, update) when this add is a residual add: one operand carries
        the block's stream (or a sublayer's output that took its place) and the
        other was computed from it."""
        pair = [a for a in args[:2] if isinstance(a, torch.Tensor)]
        if len(pair) != 2:
            return None
        paths = [self._event_of(t) for t in pair]
        for i in (0, 1):
            s, u = paths[i], paths[1 - i]
            if s is None or u is None or u not in self.active:
                continue
            # The update may come from an earlier state of the stream: a parallel
            # block adds attn(LN(x)) and then mlp(LN(x)) onto x + attn(…).
            if s in self.stream and u not in self.streamed and self._from_stream(u):
                return pair[i], pair[1 - i]
        for i in (0, 1):
            s, u = paths[i], paths[1 - i]
            if s in self.sublayers and u is not None and self._computed_from(u, s):
                # `x = self.attn(self.ln_1(x)); x = x + self.mlp(self.ln_2(x))`.
                self._replaces(s)
                return pair[i], pair[1 - i]
        return None

    def _inputs(self, operands) -> list[str]:
        """The activations among the operands (constants and masks are left out)."""
        seen = []
        for t in operands:
            p = self._event_of(t)
            if p is not None and p in self.active and p not in seen:
                seen.append(p)
        return seen

    def _record(self, op, args, kwargs, operands, residual, results):
        shapes = [_shape(t) for t in operands]
        if residual is not None:
            stream, update = residual
            can_log = _dtype(stream) is not None and _dtype(update) is not None
            inputs = ([self._operand_event(stream), self._operand_event(update)] if can_log
                      else [p for p in (self._event_of(stream), self._event_of(update)) if p is not None])
            self.resid += 1
            path = self._unique(f"block{self.block}.resid_{self.resid}")
            check = {
                "stream": _shape(stream),
                "update": _shape(update),
                "stream_dtype": _dtype(stream) or str(stream.dtype),
                "update_dtype": _dtype(update) or str(update.dtype),
                "ok": _shape(stream) == self.stream_shape
                and _shape(update) == self.stream_shape
                and _dtype(stream) == self.dtype
                and _dtype(update) == self.dtype,
            }
            self._mark(stream)
            self._mark(update)
            result = results[0]
            axes = axes_mod.broadcast([self._axes_of(stream), self._axes_of(update)], _shape(result))
            formula = f"add : {_fmt(stream.shape)},{_fmt(update.shape)} → {_fmt(result.shape)}"
            self._push(path, "add", result, inputs, formula, axes=axes, check=check, on_stream=True, active=True,
                       operands=[_shape(stream), _shape(update)])
            self.stream = {path}
            self.streamed.add(path)
            return
        if op == "add":
            op = "add_op"
        elif op == "addmm" and self.frames and isinstance(self._module_of_frame(), nn.Linear):
            op = "linear"
        inputs = self._inputs(operands)
        ins = ",".join(_fmt(s) for s in shapes)
        extra = _op_args(op, args, kwargs)
        for k, r in enumerate(results):
            path = self._unique(self._base(op))
            formula = f"{op} : {ins} → {_fmt(r.shape)}" if ins else f"{op} : → {_fmt(r.shape)}"
            axes = self._name(op, args, kwargs, operands, r, k) if inputs else None
            self._push(path, op, r, inputs, formula, axes=axes, operands=shapes, args=extra)
            self._follow(path, op, operands, inputs, args, kwargs)

    def _follow(self, path, op, operands, inputs, args=(), kwargs=None) -> None:
        """What the new event carries: the stream (a copy or view of it), or
        scores before the mask: a product of two activations (every form of
        it, `_PRODUCTS` and einsum) giving (…, Tq, Tk), unless a mask is added
        in the same op (baddbmm's input), or a step on such scores that adds
        no mask."""
        e = self._event(path)
        if (self.block is not None and op in _PASS_ON and len(inputs) == 1 and inputs[0] in self.stream
                and e["shape"] == self.stream_shape):
            self.stream.add(path)
            self.streamed.add(path)
        axes = e["axes"]
        if len(axes) >= 2 and axes[-2:] == ["Tq", "Tk"] and op not in _MASKING:
            scores = op == "einsum" or (op in _PRODUCTS and not self._masked_product(op, args, kwargs or {}))
            # An add of a constant that holds a mask's values masks the scores;
            # one of a bias without them (ALiBi's −slope·distance) does not.
            masked_by_add = op in ("add_op", "sub") and any(
                self._event_of(t) not in self.active and _holds_mask(t, sub=op == "sub" and t is operands[-1])
                for t in operands)
            if scores or (any(p in self.premask for p in inputs) and not masked_by_add):
                self.premask.add(path)
                e["pre_mask"] = True
                e["role"] = "scores"

    def _masked_product(self, op, args, kwargs) -> bool:
        """Whether a product that adds a term (``baddbmm(mask, q, kᵀ)``,
        ``addmm``) adds a mask with it: a term read (β ≠ 0) that is no
        activation and holds a mask's values (`_holds_mask`: −inf, −1e9, the
        dtype's minimum: what an additive causal mask writes). An ALiBi bias
        (Bloom's ``alibi.baddbmm(q, kᵀ)``) or β = 0 (``baddbmm(torch.empty(…),
        q, kᵀ, beta=0)``) leaves the scores before their mask."""
        added, _, _ = _factors(op, args, kwargs)
        beta = kwargs.get("beta", 1)
        if not isinstance(added, torch.Tensor) or self._event_of(added) in self.active:
            return False
        if isinstance(beta, (int, float)) and beta == 0:
            return False
        return _holds_mask(added)

    def _name(self, op, args, kwargs, operands, r, k) -> list[str]:
        """The axes of result `r` (the k-th of op), by dataflow."""
        n = self.namer
        shape = _shape(r)
        named = [(t, self._axes_of(t)) for t in operands]
        first_t, first = next(((t, a) for t, a in named if a is not None), (None, None))
        if first is None:
            return n.fallback(shape)
        same = _shape(first_t) == shape
        try:
            if op == "embedding":
                return first + [n.features(shape[-1], False)] if len(shape) == len(first) + 1 else n.fallback(shape)
            if op == "linear":
                return first[:-1] + [n.features(shape[-1], self._in_attention())]
            if op in _PRODUCTS:
                # The two factors of the product, wherever they are passed
                # (baddbmm's and addmm's come after the term they add).
                _, fa, fb = _factors(op, args, kwargs)
                ax_a, ax_b = self._axes_of(fa), self._axes_of(fb)
                if ax_a is not None and ax_b is not None:
                    return n.matmul(ax_a, ax_b, shape)
                if ax_a is not None and len(ax_a) == len(shape):
                    # x @ W, addmm(b, x, W) (GPT-2's Conv1D): a linear written by hand
                    return ax_a[:-1] + [n.features(shape[-1], self._in_attention())]
            if op in ("addmm", "mm", "matmul") and sum(a is not None for _, a in named) == 1:
                # x @ W, addmm(b, x, W) (GPT-2's Conv1D): a linear written by hand
                return first[:-1] + [n.features(shape[-1], self._in_attention())]
            if op in ("matmul", "bmm", "mm"):
                second = named[1][1] if len(named) > 1 else None
                if second is None:  # x @ W: a linear written by hand
                    return first[:-1] + [n.features(shape[-1], self._in_attention())]
                return n.matmul(first, second, shape)
            if op == "einsum" and args and isinstance(args[0], str):
                return n.einsum(args[0], [a for _, a in named], shape)
            if op == "scaled_dot_product_attention" and len(named) >= 3 and named[2][1] is not None:
                return first[:-1] + named[2][1][-1:]
            if op in axes_mod.MOVE:
                got = axes_mod.moved(first, op, tuple(args[1:]) + tuple(kwargs.values()))
                if got is not None and len(got) == len(shape):
                    return got
            if op in axes_mod.VIEW:
                return n.view(first, _shape(first_t), shape)
            if op in axes_mod.REDUCE and not same:
                dims = kwargs.get("dim", args[1] if len(args) > 1 and not isinstance(args[1], bool) else None)
                keep = bool(kwargs.get("keepdim", args[2] if len(args) > 2 and isinstance(args[2], bool) else False))
                got = axes_mod.reduced(first, dims, keep)
                if len(got) == len(shape):
                    return got
            if op == "unsqueeze":
                dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
                dim = dim % (len(first) + 1)
                return first[:dim] + ["1"] + first[dim:]
            if op == "squeeze" and len(shape) < len(first):
                src = _shape(first_t)
                dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
                drop = ({i for i, s in enumerate(src) if s == 1} if dim is None
                        else {d % len(src) for d in ([dim] if isinstance(dim, int) else dim)})
                got = [a for i, a in enumerate(first) if i not in drop]
                if len(got) == len(shape):
                    return got
            if op in ("cat", "concat", "concatenate", "stack") and len(shape) in (len(first), len(first) + 1):
                if op == "stack":
                    dim = kwargs.get("dim", args[1] if len(args) > 1 else 0) % len(shape)
                    return first[:dim] + [f"[{shape[dim]}]"] + first[dim:]
                return [axes_mod.sliced(a, s, s, n) for a, s in zip(first, shape)]
            if len(shape) == len(first) and not same and op in axes_mod.BROADCAST:
                return axes_mod.broadcast([a for _, a in named], shape)
            if len(shape) == len(first):
                # Same rank: a slice, a split or chunk piece, an expand or repeat.
                src = _shape(first_t)
                out = []
                for a, s, w in zip(first, shape, src):
                    if s == w or s < w:
                        out.append(axes_mod.sliced(a, s, w, n))
                    elif a == "1":
                        out.append("rep")  # a size-1 axis expanded: copies (grouped-query k and v)
                    elif a in ("h_kv", "h'") and n.h == s:
                        out.append("h")
                    else:
                        out.append(f"[{a.strip('[]')}×{s // w}]" if w and s % w == 0 else n.by_size(s))
                return out
            if op == "getitem":
                got = _indexed(first, _shape(first_t), args[1] if len(args) > 1 else None)
                if got is not None and len(got) == len(shape):
                    return got
            if op in ("unbind",) and len(shape) == len(first) - 1:
                dim = kwargs.get("dim", args[1] if len(args) > 1 else 0) % len(first)
                return first[:dim] + first[dim + 1:]
        except (TypeError, ValueError, IndexError, ZeroDivisionError):
            pass
        if same:
            return list(first)
        return n.fallback(shape)

    def _module_of_frame(self):
        name = self.frames[-1][0]
        for mod in self.model.modules():
            if self.names.get(id(mod), ("", None))[0] == name:
                return mod
        return None

    def _failed(self, op, operands, residual, error):
        first = one_line(error) or shown(type(error).__name__)
        ops = []
        for t in operands:
            d = _dtype(t)
            if d is None:
                continue
            path = self._event_of(t) or self.params.get(id(t)) or "constant"
            ops.append({"path": path, "shape": _shape(t), "dtype": d})
        line = _user_line()
        at = f" (at {line})" if line else ""
        if residual is not None:
            stream, update = residual
            path = f"block{self.block}.resid_{self.resid + 1}"
            a, b = _fmt(stream.shape), _fmt(update.shape)
            want = _fmt(self.stream_shape)
            if _shape(stream) != self.stream_shape or _shape(update) != self.stream_shape:
                detail = f"residual add {a} + {b}: both operands must be {want}{at}"
            else:
                detail = f"residual add {a} + {b} refused its operands: {first}{at}"
            self.failure = {"kind": "failure", "step": len(self.events), "path": path, "op": "add",
                            "check": "residual", "detail": detail, "operands": ops}
            return
        name = "add_op" if op == "add" else op
        base = self._base(name)
        n = self.counts.get(base, 0) + 1
        path = base if n == 1 else f"{base}_{n}"
        while path in self.used:
            n += 1
            path = f"{base}_{n}"
        self.failure = {"kind": "failure", "step": len(self.events), "path": path, "op": name,
                        "check": "op-shapes", "detail": f"{name} refused its operands: {first}{at}",
                        "operands": ops}


def _op_args(op, args, kwargs) -> dict | None:
    """What shapetrace needs, beside the operands' shapes, to judge an op's
    output shape: the dims of a transpose, softmax or reduction, the shape of
    a view, the equation of an einsum."""
    try:
        if op == "einsum" and args and isinstance(args[0], str):
            return {"equation": args[0]}
        rest = list(args[1:])
        if op in ("transpose", "swapaxes", "swapdims", "permute", "movedim"):
            dims = rest[0] if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else rest
            dims = [int(d) for d in dims if isinstance(d, int)] or [int(v) for v in kwargs.values()
                                                                    if isinstance(v, int)]
            return {"dims": dims}
        if op in ("view", "reshape"):
            dims = rest[0] if len(rest) == 1 and isinstance(rest[0], (list, tuple, torch.Size)) else rest
            if all(isinstance(d, int) for d in dims):
                return {"shape": [int(d) for d in dims]}
        if op in ("softmax", "log_softmax", "cat", "concat", "split", "chunk", "unsqueeze", "squeeze") or (
                op in axes_mod.REDUCE):
            dim = kwargs.get("dim", rest[0] if rest and isinstance(rest[0], int) and op not in
                             ("split", "chunk") else rest[1] if len(rest) > 1 else None)
            if isinstance(dim, int):
                return {"dim": dim}
            if isinstance(dim, (list, tuple)) and all(isinstance(d, int) for d in dim):
                return {"dim": list(dim)}
    except (TypeError, ValueError):
        pass
    return None


def _indexed(names: list[str], shape: list[int], index) -> list[str] | None:
    """The names after `t[index]`: an int drops its axis, a slice keeps it,
    None inserts one, ... stands for the axes not indexed."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, (torch.Tensor, list)) for i in index):
        return None
    n_axes = sum(1 for i in index if i is not None and i is not Ellipsis)
    out, k = [], 0
    for i in index:
        if i is Ellipsis:
            take = len(names) - n_axes
            out.extend(names[k:k + take])
            k += take
        elif i is None:
            out.append("1")
        elif isinstance(i, int):
            k += 1
        elif isinstance(i, slice):
            out.append(names[k])
            k += 1
        else:
            return None
    return out + names[k:]

# -- probes ------------------------------------------------------------------

def _first_tensor(out):
    ts = _tensors(out)
    return ts[0] if ts else None


def _changed(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """|a − b| beyond 1e-6·(1+|a|), elementwise; equal values (−inf in both) and NaN in both are unchanged."""
    a, b = a.detach().to(torch.float64), b.detach().to(torch.float64)
    # Equal values (a −inf a mask wrote in both runs) and NaN in both are unchanged.
    same = (torch.isnan(a) & torch.isnan(b)) | (a == b)
    diff = (a - b).abs()
    diff = torch.where(same, torch.zeros_like(diff), diff)
    diff = torch.nan_to_num(diff, nan=math.inf)
    return diff, diff > 1e-6 * (1.0 + a.abs().nan_to_num(nan=0.0, posinf=0.0, neginf=0.0))


def _tokens(T: int) -> list[int]:
    return list(range(T)) if T <= 16 else sorted({0, 1, T // 2, T - 1})


def _recorded(model, x, container, blocks, names, stream_shape, dtype, vocab, probe=False, args=(), kwargs=None):
    """One recorded forward of `model` on `x` (then `args`, `kwargs`): the
    recorder and the failure that stopped it, if one did."""
    rec = _Recorder(model, x, container, blocks, names, stream_shape=stream_shape, vocab=vocab, probe=probe,
                    dtype=dtype)
    hooks = []
    for mod in model.modules():
        hooks.append(mod.register_forward_pre_hook(rec.pre_hook))
        hooks.append(mod.register_forward_hook(rec.post_hook, always_call=True))
    failure = None
    try:
        with torch.no_grad(), rec:
            model(x, *args, **(kwargs or {}))
    except Exception as e:  # noqa: BLE001 - the failure line says what stopped it
        failure = rec.failure if rec.failure and rec.failure["step"] == len(rec.events) else None
        if failure is None:
            tb = traceback.extract_tb(e.__traceback__)
            user = [f for f in tb if _user_file(f.filename)] or tb
            where = f" (at {shown(Path(user[-1].filename).name)}:{user[-1].lineno})" if user else ""
            failure = {"kind": "failure", "step": len(rec.events), "path": "forward", "op": "raise",
                       "check": "op-shapes",
                       "detail": f"the forward raised {shown(type(e).__name__)}: {one_line(e)}{where}",
                       "operands": []}
    finally:
        for h in hooks:
            h.remove()
    return rec, failure


def _rows(axes: list[str], a: torch.Tensor, b: torch.Tensor, B: int, T: int) -> list[float] | None:
    """Per (batch, position), row-major, the largest |Δ| between `a` and `b`
    beyond rounding (0: unchanged), the batch and position axes read from the
    axes' names. None when the tensor has none or changed shape."""
    if a.shape != b.shape or not axes:
        return None
    diff, ch = _changed(a, b)
    d = torch.where(ch, diff, torch.zeros_like(diff))
    names, shape = list(axes), list(a.shape)
    mode, k = axes_mod.position_axis(names)
    if mode == "flat":
        return [float(v) for v in d.movedim(k, 0).reshape(B * T, -1).amax(-1)] if shape[k] == B * T else None
    # The batch first: B itself, B·h (a batched matmul's rows), or [B→1] (every element).
    how, bk = axes_mod.batch_axis(names)
    if how == "none" or (how == "axis" and shape[bk] != B) or (how == "first" and shape[bk] % B):
        return None
    d = d.movedim(bk, 0)
    names = [names[bk]] + names[:bk] + names[bk + 1:]
    if how == "first":
        d = d.reshape(B, shape[bk] // B, *d.shape[1:])
        names = ["B", names[0][2:]] + names[1:]
    elif how == "all":
        d = d.amax(0, keepdim=True).expand(B, *d.shape[1:])
    mode, k = axes_mod.position_axis(names)
    if mode == "axis" and d.shape[k] == T:
        rows = d.movedim(k, 1).reshape(B, T, -1).amax(-1)
    elif mode == "all":
        rows = d.reshape(B, -1).amax(-1, keepdim=True).expand(B, T)
    else:
        return None
    return [float(v) for v in rows.reshape(-1)]


def _evidence(probe, module, token, base, moved, B, T, skip=("input",)) -> dict:
    """One evidence line: every event of `base` whose rows changed in `moved`."""
    rows = []
    for e in base.events:
        p = e["path"]
        if p in skip or p not in base.kept or p not in moved.kept or p not in base.active:
            continue
        r = _rows(e["axes"], base.kept[p], moved.kept[p], B, T)
        if r is None or not any(v > 0 for v in r):
            continue
        rows.append({"path": p, "op": e["op"], "pre_mask": bool(e.get("pre_mask")), "batch": B, "seq": T,
                     "delta": [v if math.isfinite(v) else 1e300 for v in r]})
    return {"kind": "evidence", "probe": probe, "module": module, "token": token, "rows": rows}


def _skipped(probe, why, module=None) -> dict:
    return {"kind": "evidence", "probe": probe, "module": module, "skipped": why}


def _moved(x: torch.Tensor, t: int, gen: torch.Generator, vocab: int | None) -> torch.Tensor:
    """x with the row of token t of batch 0 moved: a new random row, or another token id."""
    x2 = x.clone()
    if x.dtype == torch.int64:
        step = int(torch.randint(1, max(vocab or 2, 2), (1,), generator=gen))
        x2[0, t] = (x2[0, t] + step) % (vocab or 2)
    else:
        x2[0, t] += torch.randn(x.shape[2:], generator=gen, dtype=torch.float64).to(x.dtype)
    return x2


def probe_causality(model, x, ctx, base, seed=0) -> list[dict]:
    """Evidence: token t of batch 0 moved, which rows of every op's output
    changed (shapetrace judges: none at an earlier position, none in another
    batch element)."""
    B, T = x.shape[0], x.shape[1]
    gen = torch.Generator().manual_seed(seed)
    out = []
    for t in _tokens(T):
        moved, failure = _recorded(model, _moved(x, t, gen, ctx["vocab"]), probe=True, **ctx)
        if failure is not None:
            return [_skipped("causality", f"the probe's forward stopped at {shown(failure['path'])}: "
                                          f"{escaped(failure['detail'])}")]
        out.append(_evidence("causality", None, t, base, moved, B, T))
    return out


def _positionwise_targets(model, blocks, names, base=None) -> list[tuple[str, nn.Module]]:
    """The modules the positionwise probe runs alone: every norm, and the
    sublayers of each block that mix no tokens (the MLP whatever its name).

    A block's child that is attention by its name is left out; one that holds
    attention inside it (a whole Block, when the model is one block around
    blocks of its own; a wrapper such as ``Residual(PreNorm(Attention()))``)
    is not a per-position sublayer either: its own children are looked at in
    its place, so the MLP inside it is still probed. Attention is known by a
    name (its attribute or class, `_is_attention`) or by dataflow: a module
    inside which the recorded forward (`base`) computed scores (…, Tq, Tk) or
    ran torch's attention."""
    mixing = _mixing_paths(base)

    def mixes_here(mod) -> bool:
        return names.get(id(mod), ("", None))[0] in mixing

    def holds_attention(mod) -> bool:
        path = names.get(id(mod), ("", None))[0]
        if any(p == path or p.startswith(path + ".") for p in mixing):
            return True
        return any(_is_attention(n.rpartition(".")[2], m) for n, m in mod.named_modules() if m is not mod)

    out, seen = [], set()
    for mod in model.modules():
        if mod is not model and _is_norm(mod) and id(mod) not in seen:
            seen.add(id(mod))
            out.append((names[id(mod)][0], mod))
    block_ids = {id(b) for b in blocks}

    def visit(cname: str, child: nn.Module) -> None:
        if id(child) in seen or id(child) in block_ids or _is_attention(cname, child) or mixes_here(child):
            return
        if holds_attention(child):
            seen.add(id(child))
            for gname, grand in child.named_children():
                visit(gname, grand)
            return
        # Parameterless modules (dropout, an activation) are left out.
        if not _is_norm(child) and not any(True for _ in child.parameters()):
            return
        seen.add(id(child))
        out.append((names[id(child)][0], child))

    for b in blocks:
        for cname, child in b.named_children():
            visit(cname, child)
    return out


# Torch's own attention: a module that runs one of these mixes tokens on purpose.
ATTENTION_OPS = {"scaled_dot_product_attention", "multi_head_attention_forward", "flex_attention"}


def _mixing_paths(base) -> set[str]:
    """The display paths of the modules inside which the recorded forward
    `base` computed attention scores (axes ending Tq, Tk, or marked pre_mask)
    or ran torch's attention: the module whose own step it was."""
    found: set[str] = set()
    for e in (base.events if base is not None else []):
        axes = e.get("axes") or []
        if e.get("pre_mask") or e["op"] in ATTENTION_OPS or ("Tq" in axes and "Tk" in axes):
            found.add(e["path"].rpartition(".")[0])
    return found


def _is_attention(name: str, mod: nn.Module | None) -> bool:
    words = (name.lower(), type(mod).__name__.lower() if mod is not None else "")
    return any(w in n for w in ATTENTION_WORDS for n in words)


def probe_positionwise(model, x, blocks, names, ctx, seed=0, base=None) -> list[dict]:
    """Evidence: each norm and MLP called alone on the input it got, its token t
    of batch 0 moved: which rows of each op inside it changed (shapetrace
    judges: only row (0, t))."""
    B, T = x.shape[0], x.shape[1]
    targets = _positionwise_targets(model, blocks, names, base)
    captured: dict[int, tuple] = {}

    def capture(mod, args, kwargs):
        if id(mod) not in captured:
            captured[id(mod)] = (tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args), dict(kwargs))

    hooks = [m.register_forward_pre_hook(capture, with_kwargs=True) for _, m in targets]
    try:
        with torch.no_grad():
            model(x.clone())
    except Exception as e:  # noqa: BLE001
        return [_skipped("positionwise", f"the probe's forward raised {shown(type(e).__name__)}")]
    finally:
        for h in hooks:
            h.remove()
    gen = torch.Generator().manual_seed(seed + 1)
    out = []
    alone = dict(ctx, container="", blocks=[], probe=True)
    for path, mod in targets:
        if id(mod) not in captured:
            continue
        args, kwargs = captured[id(mod)]
        if not args or not isinstance(args[0], torch.Tensor) or _shape(args[0]) != ctx["stream_shape"]:
            continue
        call = dict(alone, args=args[1:], kwargs=kwargs)
        base, failure = _recorded(mod, args[0].clone(), **call)
        if failure is not None or not base.events:
            continue
        last = base.events[-1]
        if len(last["shape"]) < 2 or tuple(last["shape"][:2]) != (B, T):
            continue
        for t in _tokens(T):
            moved, failure = _recorded(mod, _moved(args[0], t, gen, None), **call)
            if failure is not None:
                break
            out.append(_evidence("positionwise", path, t, base, moved, B, T))
    if not out:
        return [_skipped("positionwise", "no norm or MLP found to probe")]
    return out

# -- the trace ---------------------------------------------------------------

@dataclasses.dataclass
class TraceResult:
    """What `trace` wrote: ok is true when the forward ran and every value is
    finite. The probes' evidence is written, not judged: `shapetrace check
    --log` judges it."""

    ok: bool
    path: str
    events: int
    departures: int
    residual_adds: int
    failure: dict | None
    evidence: dict  # probe → how many runs it wrote, or why it was skipped
    nonfinite: str | None = None  # the first event with a NaN or +inf

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def line(self) -> str:
        head = (f"{shown(self.path)}: {self.events} events, {self.departures} departures, "
                f"{self.residual_adds} residual adds")
        if self.nonfinite is not None:
            head += f"; finite fail at {shown(self.nonfinite)}"
        if self.failure:
            f = self.failure
            return f"{head}; the forward stops at {shown(f['path'])} ({f['check']}): {escaped(f['detail'])}"
        said = ", ".join(f"{k} {v}" for k, v in self.evidence.items())
        return f"{head}; evidence: {said}; judge it with: shapetrace check --log {shown(self.path)}"


def _source_files(model) -> list[tuple[str, str]]:
    """The files the model's class is written in (its methods' code), inputs
    `out` may not be."""
    return _source_files_of(type(model))


def _source_files_of(cls) -> list[tuple[str, str]]:
    files = {f.__code__.co_filename for f in vars(cls).values() if inspect.isfunction(f)}
    return [("model", f) for f in sorted(files) if os.path.isfile(f)]


def model_sources(model, folder: Path) -> list[str]:
    """The files the model is written in, which ``--out`` may not be: the
    source files of the classes of the model and of its submodules, and every
    module file loaded from the model file's folder or below it (a
    ``helper.py`` its file imports the class from)."""
    files = set()
    for cls in {type(m) for m in model.modules()}:
        files.update(f for _, f in _source_files_of(cls))
    try:
        root = os.path.realpath(folder)
    except (OSError, ValueError):
        root = None
    for module in list(sys.modules.values()):
        try:
            f = getattr(module, "__file__", None)
        except Exception:  # noqa: BLE001 - a module whose attributes raise is no file of ours
            continue
        if not isinstance(f, str) or root is None:
            continue
        try:
            if os.path.commonpath([root, os.path.realpath(f)]) == root and os.path.isfile(f):
                files.add(f)
        except (OSError, ValueError):
            continue
    return sorted(files)


def check_sources(out: str, files: list[str]) -> None:
    """Refuses an output that is one of the model's source files (by device
    and inode, as `check_clash`), before the trace runs; a character device
    may be named anyway."""
    mine = _identity(out)
    if mine[0] == "inode" and mine[3]:
        return
    for f in files:
        if _identity(f) == mine:
            rel = os.path.relpath(f)
            raise OutputError(f"--out {_q(out)} is a source file of the model "
                              f"({shown(f if rel.startswith('..') else rel)}); "
                              "allowed: an output path that is no input")


def _model_name(model) -> str:
    cls = type(model)
    try:
        src = Path(inspect.getsourcefile(cls) or "").name
    except TypeError:
        src = ""
    return f"{src or cls.__module__}:{cls.__name__}"


# -- the output ------------------------------------------------------------
# The writer policy of shapetrace's src/out.rs and src/cli/clash.rs: a
# regular file (or a new path) is staged in a temp file beside it and
# renamed over it once whole; a device, FIFO, socket or inherited
# descriptor is written into in place, never replaced; a block device is
# refused; an output that is one of the inputs is refused before any work.


class OutputError(ValueError):
    """An output that cannot be written: its message names it and why."""


def _inherited(path: str) -> int | None:
    """The descriptor an output path names when the process was given it:
    ``-`` and ``/dev/stdout`` 1, ``/dev/stderr`` 2, ``/dev/fd/N`` and
    ``/proc/self/fd/N`` N. Renaming over such a path would replace the file
    behind it, so it is written through the descriptor."""
    if path in ("-", "/dev/stdout"):
        return 1
    if path == "/dev/stderr":
        return 2
    for prefix in ("/dev/fd/", "/proc/self/fd/"):
        n = path[len(prefix):]
        if path.startswith(prefix) and n.isascii() and n.isdigit():
            return int(n)
    return None


def _resolve(path: str) -> str:
    """Where writing `path` lands: its chain of symlinks followed (each link
    read against its own folder, a dangling one too), the folder resolved."""
    at = path
    for _ in range(40):  # as the kernel does, give up on a loop after 40 links
        try:
            at = os.path.join(os.path.dirname(at), os.readlink(at))
        except OSError:
            break
    folder, name = os.path.split(at)
    try:
        return os.path.join(os.path.realpath(folder or ".", strict=True), name)
    except OSError:
        return at


def _identity(path: str) -> tuple:
    """What `path` names: a file by device and inode (through symlinks; an
    inherited descriptor's file), else the path it would be created at."""
    fd = _inherited(path)
    try:
        st = os.fstat(fd) if fd is not None else os.stat(path)
    except (OSError, ValueError):
        return ("new", _resolve(path))
    return ("inode", st.st_dev, st.st_ino, stat.S_ISCHR(st.st_mode))


def check_clash(out: str, inputs: list[tuple[str, str]]) -> None:
    """Refuses an output that is one of the inputs (what, path): the model's
    own file, through a symlink or a hard link too. A character device
    (/dev/null) may be named twice: writing it loses nothing."""
    mine = _identity(out)
    if mine[0] == "inode" and mine[3]:
        return
    for what, path in inputs:
        if _identity(path) == mine:
            raise OutputError(f"--out {_q(out)} is the {what} file; allowed: an output path that is no input")


def _write_all(fd: int, data: bytes) -> None:
    """Every byte of `data` onto `fd` (one place for a test to make a write fail)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _sink(fd: int) -> None:
    """`fd` pointed at /dev/null, so nothing more (nor Python's flush at
    exit) reaches the closed pipe it was."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _reason(e: OSError) -> str:
    return e.strerror or one_line(e)


class Output:
    """An output made ready before any work: see `prepare`."""

    def __init__(self, name: str, kind: str, path: str | None = None, fd: int | None = None,
                 tmp: str | None = None):
        self.name = name  # as given on the command line
        self.kind = kind  # "fd", "direct" or "staged"
        self.path = path  # the device or FIFO, or the file a staged write replaces
        self.fd = fd  # the inherited descriptor, or the staged temp file's
        self.tmp = tmp

    @property
    def is_stdout(self) -> bool:
        return self.kind == "fd" and self.fd == 1

    @classmethod
    def prepare(cls, out: str, inputs: list[tuple[str, str]] = ()) -> "Output":
        """`out` made ready to be written, or refused in one line (OutputError):

        - an inherited descriptor (``-``, ``/dev/stdout``, ``/dev/fd/N`` …)
          must be open, and is written through;
        - a character device, FIFO or socket is opened and written at the
          end, in place, never replaced; a block device is refused;
        - a regular file or a new path (behind symlinks: the file they name)
          gets a temp file in its folder now, renamed over it once whole.
        """
        if not out:
            raise OutputError("--out '' names no file; allowed: a path to a new or existing file")
        check_clash(out, list(inputs))
        fd = _inherited(out)
        if fd is not None:
            try:
                os.fstat(fd)
            except OSError as e:
                raise OutputError(f"--out {_q(out)} cannot be written: {_reason(e)}") from None
            return cls(out, "fd", fd=fd)
        target = _resolve(out)
        try:
            st = os.stat(target)
        except FileNotFoundError:
            st = None
        except (OSError, ValueError) as e:
            raise OutputError(f"--out {_q(out)} cannot be written: {_reason(e) if isinstance(e, OSError) else e}") from None
        if out.endswith("/") or (st is not None and stat.S_ISDIR(st.st_mode)):
            raise OutputError(f"--out {_q(out)} is a folder; allowed: a file to write, e.g. mine.jsonl")
        if st is not None and stat.S_ISBLK(st.st_mode):
            raise OutputError(f"--out {_q(out)} is a block device (writing into a disk destroys it); "
                              "allowed: a file, a character device, a FIFO or an inherited descriptor")
        if st is not None and not stat.S_ISREG(st.st_mode):
            if not os.access(target, os.W_OK):
                raise OutputError(f"--out {_q(out)} cannot be written: {os.strerror(errno.EACCES)}")
            return cls(out, "direct", path=target)
        return cls._staged(out, target)

    @classmethod
    def _staged(cls, out: str, target: str) -> "Output":
        folder = os.path.dirname(target) or "."
        if not os.path.isdir(folder):
            what = "is not a folder" if os.path.exists(folder) else "does not exist"
            raise OutputError(f"--out {_q(out)}: folder {_q(folder)} {what}; allowed: a file in an existing folder")
        try:
            # A short prefix: the temp name must fit where the target's name just fits.
            fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)[:32]}.", suffix=".tmp", dir=folder)
        except OSError as e:
            raise OutputError(f"--out {_q(out)} cannot be written: cannot create a file in {_q(folder)}: "
                              f"{_reason(e)}") from None
        return cls(out, "staged", path=target, fd=fd, tmp=tmp)

    def write(self, data: bytes) -> None:
        """`data` into the output: through the descriptor, into the device or
        FIFO, or into the temp file renamed over the target. A failed write
        raises OutputError and leaves a staged target as it was."""
        try:
            if self.kind == "fd":
                try:
                    if self.fd == 1:
                        sys.stdout.flush()
                    _write_all(self.fd, data)
                except BrokenPipeError:
                    if self.fd != 1:
                        raise
                    # A closed stdout (``--out - | head``) is a sink, as in
                    # shapetrace: the run ends quietly, its exit code the checks'.
                    _sink(1)
            elif self.kind == "direct":
                fd = os.open(self.path, os.O_WRONLY | os.O_NOCTTY)
                try:
                    _write_all(fd, data)
                finally:
                    os.close(fd)
            else:
                self._commit(data)
        except OSError as e:
            raise OutputError(f"--out {_q(self.name)} cannot be written: {_reason(e)}") from None
        finally:
            self.discard()

    def _commit(self, data: bytes) -> None:
        _write_all(self.fd, data)
        os.fsync(self.fd)
        try:
            mode = stat.S_IMODE(os.stat(self.path).st_mode)  # an existing file keeps its permissions
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(self.fd, mode)
        os.close(self.fd)
        self.fd = None
        os.replace(self.tmp, self.path)
        self.tmp = None

    def discard(self) -> None:
        """Closes and removes a temp file not renamed into place (no-op after `write`)."""
        if self.kind != "staged":
            return
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None


# What shapetrace reads (src/trace/log.rs): a longer line or log is refused
# there, so it is refused here, before anything is written.
MAX_LINE_BYTES = 1 << 20
MAX_LOG_BYTES = 64 << 20


def _serialize(lines: list[dict]) -> bytes:
    """The log's JSON Lines; a value beyond JSON (NaN, ±inf) raises ValueError,
    as does a line or a log longer than shapetrace reads."""
    out = []
    for line in lines:
        data = (json.dumps(line, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n").encode(
            "utf-8", "backslashreplace")
        if len(data) > MAX_LINE_BYTES:
            raise ValueError(f"the log's line for {shown(line.get('path', line['kind']))} would be "
                             f"{_human_bytes(len(data))}; allowed: at most {_human_bytes(MAX_LINE_BYTES)}, "
                             "the longest line shapetrace reads")
        out.append(data)
    size = sum(map(len, out))
    if size > MAX_LOG_BYTES:
        raise ValueError(f"the log would be {_human_bytes(size)} ({len(lines)} lines); allowed: at most "
                         f"{_human_bytes(MAX_LOG_BYTES)}, what shapetrace reads: trace fewer blocks")
    return b"".join(out)


def trace(model: nn.Module, x: torch.Tensor, out: "str | Output", blocks: str | None = None,
          placement: str = "pre", seed: int = 0, model_name: str | None = None) -> TraceResult:
    """Trace `model` on `x` (B, T, d floats, or (B, T) token ids of int64 for a
    model whose first module is an nn.Embedding), run the probes, write the
    log to `out` (a path, made ready before the forward runs, or a prepared
    Output)."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement {_q(placement)} is not allowed; allowed: pre, post")
    ids = isinstance(x, torch.Tensor) and x.dim() == 2 and x.dtype == torch.int64
    if not isinstance(x, torch.Tensor) or not ids and (x.dim() != 3 or _dtype(x) not in MODEL_DTYPES):
        raise ValueError("x must be a (B, T, d) tensor of f32, f64, bf16 or f16, or (B, T) token ids of int64")
    target = out if isinstance(out, Output) else Output.prepare(str(out), _source_files(model))
    try:
        lines, result = _run(model, x, blocks, placement, seed, model_name)
        target.write(_serialize(lines))
    finally:
        target.discard()
    result.path = target.name
    return result


def first_embedding(model: nn.Module) -> nn.Embedding | None:
    """The model's first nn.Embedding (the token embedding), if any."""
    return next((m for m in model.modules() if isinstance(m, nn.Embedding)), None)


def _stream_of(model: nn.Module, x: torch.Tensor) -> tuple[list[int], str, int | None]:
    """The stream's shape (B, T, d), its dtype and the vocabulary: x's own for
    floats; for token ids, d and V from the first nn.Embedding and the dtype
    of its weight."""
    if x.dtype != torch.int64:
        return _shape(x), _dtype(x), None
    emb = first_embedding(model)
    if emb is None:
        raise ValueError(f"{shown(type(model).__name__)} has no nn.Embedding to take token ids; "
                         "allowed: --tokens for a model whose first module is an nn.Embedding, --input B,T,d otherwise")
    B, T = _shape(x)
    return [B, T, int(emb.embedding_dim)], _dtype(emb.weight) or "f32", int(emb.num_embeddings)


def _run(model, x, blocks, placement, seed, model_name) -> tuple[list[dict], TraceResult]:
    """The log's lines and the result of one traced forward and its probes."""
    was_training = model.training
    model.eval()
    try:
        stream_shape, dtype, vocab = _stream_of(model, x)
        if vocab is not None and (int(x.min()) < 0 or int(x.max()) >= vocab):
            raise ValueError(f"token id {int(x.max()) if int(x.max()) >= vocab else int(x.min())} is outside the "
                             f"vocabulary; allowed: 0 <= id < {vocab} (the first nn.Embedding's num_embeddings)")
        seen = survey(model, x)
        if seen.token_ids is not None:
            raise ValueError(
                f"{shown(type(model).__name__)} takes token ids ({seen.token_ids}): pass --tokens B,T "
                "(ids below its vocabulary) or --tokens FILE.npy; or trace its block stack with --input B,T,d")
        container, block_list = find_blocks(model, blocks, seen, stream_shape)
    except BaseException:
        model.train(was_training)
        raise
    names = _display_names(model, container, block_list)
    header = {
        "kind": "header", "schema": SCHEMA, "producer": _producer(), "mode": "numeric",
        "stream_shape": stream_shape, "batch": stream_shape[0], "seq": stream_shape[1],
        "d_model": stream_shape[2], "layers": len(block_list), "placement": placement,
        "dtype": dtype, "model": escaped(model_name or _model_name(model)),
    }
    if vocab is not None:
        header["input"] = "tokens"
        header["vocab"] = vocab
    ctx = {"container": container, "blocks": block_list, "names": names, "stream_shape": stream_shape,
           "dtype": dtype, "vocab": vocab}
    try:
        # x is cloned: the forward may write into its input (x += …).
        rec, failure = _recorded(model, x.clone(), **ctx)
        if failure is None:
            evidence = (probe_causality(model, x, ctx, rec, seed)
                        + probe_positionwise(model, x, block_list, names, ctx, seed, rec))
        else:
            evidence = []
    finally:
        model.train(was_training)
    events = rec.events
    summary = {
        "kind": "summary",
        "events": len(events),
        "departures": sum(e["departs"] for e in events),
        "residual_adds": sum("check" in e for e in events),
    }
    lines = [header, *events, *([failure] if failure else []), *evidence, summary]
    nonfinite = next((e["path"] for e in events if not e["stats"]["finite"]), None)
    told: dict[str, str] = {}
    for probe in ("causality", "positionwise"):
        runs = [e for e in evidence if e["probe"] == probe]
        skipped = next((e["skipped"] for e in runs if "skipped" in e), None)
        if skipped is not None:
            told[probe] = f"skipped ({skipped})"
        elif runs:
            modules = {e["module"] for e in runs}
            told[probe] = (f"{len(runs)} tokens moved" if probe == "causality"
                           else f"{len(modules)} modules × {len(runs) // max(len(modules), 1)} tokens moved")
    ok = failure is None and nonfinite is None
    return lines, TraceResult(ok, "", summary["events"], summary["departures"], summary["residual_adds"], failure,
                              told, nonfinite)


# -- the command line --------------------------------------------------------

class _Usage(Exception):
    """A bad argument: one line on stderr, exit 2."""


def _model_file(spec: str) -> tuple[Path, str]:
    """FILE.py:NAME split, the file checked to exist (before any work)."""
    file, sep, attr = spec.rpartition(":")
    if not sep or not file or not attr:
        raise _Usage(f"model {_q(spec)} is not FILE.py:NAME; allowed: e.g. student.py:Model or student.py:make_model")
    path = Path(file)
    if not path.exists():
        raise _Usage(f"model file {_q(file)} does not exist; allowed: a Python file")
    if not path.is_file():
        raise _Usage(f"model file {_q(file)} is not a file; allowed: a Python file")
    return path, attr


def _load(path: Path, attr: str):
    """Imports the model file and calls NAME with no arguments."""
    file, spec = str(path), f"{path}:{attr}"
    name = re.sub(r"\W", "_", path.stem)
    loader = importlib.util.spec_from_file_location(f"shapetrace_student_{name}", path)
    if loader is None or loader.loader is None:
        raise _Usage(f"model file {_q(file)} cannot be imported; allowed: a Python file")
    module = importlib.util.module_from_spec(loader)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        loader.loader.exec_module(module)
    except SystemExit as e:
        raise _Usage(f"importing {_q(file)} called sys.exit({shown(repr(e.code))}); "
                     "allowed: a file that defines the model without exiting") from None
    except Exception as e:  # noqa: BLE001
        raise _Usage(f"importing {_q(file)} raised {shown(type(e).__name__)}: {one_line(e)}") from None
    finally:
        sys.path.pop(0)
    factory = getattr(module, attr, None)
    if factory is None or not callable(factory):
        raise _Usage(f"{_q(file)} has no class or function {_q(attr)}; allowed: a class or factory taking no arguments")
    try:
        model = factory()
    except SystemExit as e:
        raise _Usage(f"{shown(spec)}() called sys.exit({shown(repr(e.code))}); "
                     "allowed: a class or factory that returns the model") from None
    except Exception as e:  # noqa: BLE001
        raise _Usage(f"{shown(spec)}() raised {shown(type(e).__name__)}: {one_line(e)}") from None
    if not isinstance(model, nn.Module):
        raise _Usage(f"{shown(spec)}() returned {shown(type(model).__name__)}; allowed: an nn.Module")
    return model, f"{_lossless(path.name)}:{_lossless(attr)}"


def _input_shape(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    if len(parts) != 3 or not all(re.fullmatch(r"[0-9]{1,12}", p) for p in parts) or any(int(p) < 1 for p in parts):
        raise _Usage(f"--input {_q(text)} is not B,T,d; allowed: three positive integers, e.g. 2,4,64")
    return tuple(int(p) for p in parts)  # type: ignore[return-value]


def _human_bytes(n: int) -> str:
    """A byte count with a binary unit, as shapetrace words it: ``1.5 GiB``."""
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    v, unit = float(n), 0
    while v >= 1024 and unit + 1 < len(units):
        v, unit = v / 1024, unit + 1
    return f"{n} B" if unit == 0 else f"{v:.1f} {units[unit]}"


def _available_memory() -> int | None:
    """Bytes this process may still allocate: the system's MemAvailable, or
    less under a cgroup memory limit; None where neither can be read."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
            used = int(f.read().strip())
        if limit != "max":
            found.append(max(0, int(limit) - used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def _address_space() -> tuple[int, int] | None:
    """(bytes left, limit) under the address-space limit (``ulimit -v``,
    RLIMIT_AS): the limit less what the process maps already (its VmSize,
    torch's libraries and threads included); None when there is no limit."""
    try:
        import resource
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    used = 0
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return max(0, limit - used), limit


def check_input_size(text: str, shape: tuple[int, int, int], dtype: torch.dtype) -> None:
    """Refuses an input x too large to draw, before it is drawn: over
    MAX_INPUT_ELEMENTS, or needing more than the free memory (MemAvailable,
    the cgroup's limit) or the address space ``ulimit -v`` leaves, for x
    drawn in f32, x in its dtype and the trace's two copies of it."""
    elements = shape[0] * shape[1] * shape[2]
    if elements > MAX_INPUT_ELEMENTS:
        raise _Usage(f"--input {_q(text)} is {elements} elements; allowed: B·T·d at most "
                     f"{MAX_INPUT_ELEMENTS} (2^28)")
    need = elements * (4 + 3 * torch.empty((), dtype=dtype).element_size())
    space = _address_space()
    if space is not None and need > space[0]:
        raise _Usage(f"--input {_q(text)} needs at least {_human_bytes(need)} for x and its copies, "
                     f"more than the {_human_bytes(space[0])} left under the address-space limit "
                     f"(ulimit -v {space[1] // 1024}, {_human_bytes(space[1])}); allowed: a smaller B,T,d "
                     "or a higher ulimit -v")
    free = _available_memory()
    if free is not None and need > free:
        raise _Usage(f"--input {_q(text)} needs at least {_human_bytes(need)} for x and its copies, "
                     f"more than the {_human_bytes(free)} free; allowed: a smaller B,T,d")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Usage(message)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line, every value checked; no file is touched yet."""
    p = _Parser(prog="shapetrace_export.py", description="Trace a PyTorch module into a shapetrace log (schema 4).",
                epilog="exit status: 0 the forward ran and every value is finite (the probes' evidence is in the "
                       "log: judge it with shapetrace check --log); 1 the forward stopped, or a value is NaN or "
                       "+inf; 2 a bad argument, an output that cannot be written or is an input (the model file, "
                       "a source file of the model, the exporter, the --tokens file, a file of --hf), an input too "
                       "large, out of memory (one line on stderr, no file replaced); 128 + the signal's number when "
                       "interrupted (130 SIGINT, 143 SIGTERM, 129 SIGHUP), the temp file removed")
    p.add_argument("model", nargs="?", default=None,
                   help="FILE.py:Class or FILE.py:factory, called with no arguments (not with --hf)")
    p.add_argument("--input", default=None, help=f"B,T,d of the input x ~ N(0,1), e.g. 2,4,64 "
                                                 f"(B·T·d at most {MAX_INPUT_ELEMENTS}, and within the free "
                                                 "memory and ulimit -v)")
    p.add_argument("--tokens", default=None,
                   help="B,T token ids drawn below the vocabulary of the model's first nn.Embedding, or FILE.npy "
                        "of (B, T) integer ids: the trace starts at the ids and ends at the logits")
    p.add_argument("--hf", default=None, metavar="DIR",
                   help="a Hugging Face model folder (config.json, and weights if present; random init otherwise): "
                        "the transformers model itself is traced from --tokens")
    p.add_argument("--out", required=True, help="the log to write (JSON Lines): a file, replaced whole once written; "
                                                "a device, FIFO or - (stdout; the summary then goes to stderr, and "
                                                "a closed pipe is no error), written into; never the model file "
                                                "or a source file of the model")
    p.add_argument("--blocks", default=None, help="the attribute holding the blocks (default: the first ModuleList/Sequential of same-class modules)")
    p.add_argument("--placement", default="pre", help="the block the model means to be: pre or post (default pre)")
    p.add_argument("--seed", default="0", help="seed of the input and the probes' noise (default 0)")
    p.add_argument("--dtype", default="f32", help="f32, f64, bf16 or f16 (default f32)")
    a = p.parse_args(argv)
    if a.hf is not None and a.model is not None:
        raise _Usage(f"--hf {_q(a.hf)} and the model {_q(a.model)} were both given; allowed: one of them")
    if a.hf is None and a.model is None:
        raise _Usage("no model given; allowed: FILE.py:NAME, or --hf DIR")
    if a.hf is not None and a.tokens is None:
        raise _Usage("--hf traces from token ids; allowed: --tokens B,T or --tokens FILE.npy")
    if (a.input is None) == (a.tokens is None):
        raise _Usage("give the input as one of --input B,T,d (floats) or --tokens B,T|FILE.npy (token ids)"
                     + ("; both were given" if a.input is not None else ""))
    if a.placement not in PLACEMENTS:
        raise _Usage(f"--placement {_q(a.placement)} is not allowed; allowed: pre, post")
    if a.dtype not in MODEL_DTYPES:
        raise _Usage(f"--dtype {_q(a.dtype)} is not allowed; allowed: f32, f64, bf16, f16")
    if not re.fullmatch(r"[0-9]{1,19}", a.seed) or int(a.seed) >= SEED_LIMIT:
        raise _Usage(f"--seed {_q(a.seed)} is not allowed; allowed: an integer with 0 <= seed < 2**63")
    a.seed = int(a.seed)
    if a.blocks is not None and not a.blocks.strip():
        raise _Usage("--blocks '' names no attribute; allowed: the attribute holding the blocks, e.g. h or transformer.h")
    a.ids = None
    if a.input is not None:
        a.shape = _input_shape(a.input)
        check_input_size(a.input, a.shape, MODEL_DTYPES[a.dtype])
    elif re.fullmatch(r"[0-9]+,[0-9]+", a.tokens):
        a.shape = _token_shape(a.tokens)
    else:
        a.ids = _token_file(a.tokens)
        a.shape = tuple(a.ids.shape)
    if a.hf is not None:
        _hf_folder(a.hf)
    return a


def _token_shape(text: str) -> tuple[int, int]:
    B, T = (int(v) for v in text.split(","))
    if not (1 <= B <= 4096 and 1 <= T <= 65536) or B * T > 2**22:
        raise _Usage(f"--tokens {_q(text)} is not allowed; allowed: B,T with 1 <= B <= 4096, 1 <= T <= 65536 and "
                     f"B·T at most {2**22}, or FILE.npy")
    return B, T


def _token_file(text: str) -> torch.Tensor:
    """The ids of a .npy file of shape (B, T) and an integer dtype."""
    path = Path(text)
    if not text.endswith(".npy"):
        raise _Usage(f"--tokens {_q(text)} is neither B,T nor a .npy file; allowed: e.g. 2,4 or ids.npy")
    if not path.is_file():
        raise _Usage(f"--tokens file {_q(text)} does not exist or is not a file; allowed: a .npy of (B, T) ids")
    try:
        import numpy as np
        ids = np.load(path, allow_pickle=False)
    except ImportError:
        raise _Usage("--tokens FILE.npy needs numpy: pip install numpy; allowed without it: --tokens B,T") from None
    except Exception as e:  # noqa: BLE001 - a file that is no .npy
        raise _Usage(f"--tokens file {_q(text)} is not a readable .npy ({one_line(e)}); "
                     "allowed: a .npy of (B, T) integer ids") from None
    if ids.ndim != 2 or ids.dtype.kind not in "iu" or 0 in ids.shape:
        raise _Usage(f"--tokens file {_q(text)} holds {ids.dtype} of shape {tuple(ids.shape)}; "
                     "allowed: (B, T) integer ids, B and T at least 1")
    if ids.size > 2**22:
        raise _Usage(f"--tokens file {_q(text)} holds {ids.size} ids; allowed: at most {2**22}")
    if int(ids.min()) < 0 or int(ids.max()) > 2**62:
        raise _Usage(f"--tokens file {_q(text)} holds id {int(ids.min()) if int(ids.min()) < 0 else int(ids.max())}; "
                     "allowed: ids from 0 below the model's vocabulary")
    return torch.from_numpy(ids.astype("int64"))


def _hf_folder(text: str) -> Path:
    folder = Path(text)
    if not folder.is_dir():
        raise _Usage(f"--hf {_q(text)} is not a folder; allowed: a folder holding a Hugging Face config.json")
    if not (folder / "config.json").is_file():
        raise _Usage(f"--hf {_q(text)} has no config.json; allowed: a folder holding a Hugging Face config.json")
    return folder


# Files of a Hugging Face folder that a model is read from (--out may not be one).
_HF_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")


def load_hf(folder: Path, dtype: torch.dtype) -> tuple[nn.Module, str, str | None]:
    """The transformers model of `folder` (its weights if present, else
    randomly initialised from config.json, seeded), eager attention so its
    scores are steps, no cache; its name and its blocks' attribute."""
    try:
        import transformers
    except ImportError:
        raise _Usage("--hf needs transformers: pip install transformers") from None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    try:
        config = transformers.AutoConfig.from_pretrained(str(folder), local_files_only=True)
    except Exception as e:  # noqa: BLE001
        raise _Usage(f"--hf {_q(str(folder))}: transformers cannot read its config.json ({one_line(e)}); "
                     "allowed: a config.json of a model transformers knows") from None
    weights = any((folder / w).is_file() for w in _HF_WEIGHTS) or any(folder.glob("model-*.safetensors"))
    kinds = [transformers.AutoModelForCausalLM, transformers.AutoModel]
    last: Exception | None = None
    for kind in kinds:
        try:
            if weights:
                model = kind.from_pretrained(str(folder), config=config, local_files_only=True,
                                             attn_implementation="eager", dtype=dtype)
            else:
                model = kind.from_config(config, attn_implementation="eager", dtype=dtype)
            break
        except ValueError as e:  # this config is no causal LM: try the encoder
            last = e
    else:
        raise _Usage(f"--hf {_q(str(folder))}: transformers has no model for {shown(config.model_type)} "
                     f"({one_line(last)}); allowed: a causal LM or an encoder") from None
    model.config.use_cache = False
    layers = getattr(config, "num_hidden_layers", None)
    blocks = next((name for name, m in model.named_modules()
                   if isinstance(m, nn.ModuleList) and layers is not None and len(m) == layers), None)
    return model, f"{_lossless(folder.resolve().name)} ({_lossless(config.model_type)})", blocks


def _export(a: argparse.Namespace) -> tuple[TraceResult, Output]:
    """Checks the files, then imports, builds and traces the model."""
    inputs = [("exporter", __file__), ("exporter", axes_mod.__file__)]
    if a.hf is not None:
        folder = Path(a.hf)
        inputs += [("--hf", str(f)) for f in sorted(folder.iterdir()) if f.is_file()]
    else:
        path, attr = _model_file(a.model)
        inputs.append(("model", str(path)))
    if a.ids is not None:
        inputs.append(("--tokens", a.tokens))
    out = Output.prepare(a.out, inputs=inputs)
    try:
        torch.manual_seed(a.seed)
        dtype = MODEL_DTYPES[a.dtype]
        blocks = a.blocks
        if a.hf is not None:
            model, name, found = load_hf(Path(a.hf), dtype)
            blocks = blocks or found
        else:
            model, name = _load(path, attr)
            # Before the trace: --out may not be a file the model is written in.
            check_sources(a.out, model_sources(model, path.resolve().parent))
            model = model.to(dtype)
        gen = torch.Generator().manual_seed(a.seed)
        if a.tokens is not None:
            x = a.ids if a.ids is not None else _draw_ids(model, a.shape, gen)
        else:
            x = torch.randn(a.shape, generator=gen, dtype=torch.float32).to(dtype)
        try:
            result = trace(model, x, out, blocks=blocks, placement=a.placement, seed=a.seed, model_name=name)
        except SystemExit as e:
            raise _Usage(f"the model called sys.exit({shown(repr(e.code))}) during the trace; "
                         "allowed: a forward that returns or raises") from None
    finally:
        out.discard()
    return result, out


def _draw_ids(model: nn.Module, shape: tuple[int, int], gen: torch.Generator) -> torch.Tensor:
    emb = first_embedding(model)
    if emb is None:
        raise _Usage(f"--tokens: {shown(type(model).__name__)} has no nn.Embedding whose vocabulary the ids are "
                     "drawn below; allowed: --input B,T,d for a model that takes x")
    return torch.randint(0, int(emb.num_embeddings), shape, generator=gen, dtype=torch.int64)


def _print(line: str, to_stderr: bool) -> int:
    """The summary line, escaped, on stdout (stderr when the log went to
    stdout). A closed stdout is ignored; a full one is a write error (2)."""
    stream = sys.stderr if to_stderr else sys.stdout
    try:
        stream.write(escaped(line) + "\n")
        stream.flush()
    except BrokenPipeError:
        _sink(stream.fileno())
    except OSError as e:
        if not to_stderr:
            _say(f"cannot write to stdout: {_reason(e)}")
            return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line: 0 the trace holds, 1 it fails a check (the log says
    which), 2 a bad argument or an output that cannot be written (one line
    on stderr, no log written and no file replaced), 128 + a signal's
    number interrupted (130 SIGINT, 143 SIGTERM, 129 SIGHUP)."""
    try:
        result, out = _export(_arguments(argv))
    except (_Usage, ValueError) as e:  # OutputError is a ValueError
        _say(str(e))
        return 2
    except KeyboardInterrupt as e:
        return _interrupted(e)
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        _say(_failure_line(e))
        return 2
    try:
        if _print(result.line(), to_stderr=out.is_stdout):
            return 2
    except KeyboardInterrupt as e:
        return _interrupted(e, written=True)
    return 0 if result.ok else 1


def _failure_line(e: Exception) -> str:
    """The one line of an exception the exporter did not expect: an
    allocation that failed (MemoryError, torch's allocator's RuntimeError)
    says so; anything else is a bug to report."""
    what = f"{shown(type(e).__name__)}: {one_line(e)}"
    if isinstance(e, MemoryError) or (isinstance(e, RuntimeError)
                                      and re.search(r"alloc|out of memory", str(e), re.IGNORECASE)):
        return f"out of memory: {what} (no log written); allowed: a smaller --input or model"
    return f"the exporter failed: {what} (no log written; please report it)"


class _Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, ending the run as Ctrl-C does."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _interrupted(e: KeyboardInterrupt, written: bool = False) -> int:
    """128 + the signal's number, as shapetrace exits: 130 Ctrl-C (SIGINT),
    143 SIGTERM, 129 SIGHUP; the temp file is already removed."""
    signum = int(getattr(e, "signum", signal.SIGINT))
    _say(f"interrupted ({signal.Signals(signum).name}); " + ("the log was written" if written else "no log written"))
    return 128 + signum


def _interrupt(signum, frame):
    raise _Signalled(signum)


if __name__ == "__main__":
    # SIGTERM and SIGHUP end the run as Ctrl-C does: the temp file is removed,
    # and the exit code is 128 + the signal's number.
    for _sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(_sig, _interrupt)
    sys.exit(main())
