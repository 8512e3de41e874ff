"""Axis names by dataflow, for shapetrace_export.

Every activation's axes are named by following the data from the input, the
way named tensors would, never by guessing from sizes alone:

    x                      (B, T, d)
    linear d → 3d          (B, T, 3d)        the last axis is the features
    split 3d into 3 × d    (B, T, d)
    view d → (h, hd)       (B, T, h, hd)     one axis split: h · hd = d
    transpose(1, 2)        (B, h, T, hd)     names move with their data
    q @ k.transpose        (B, h, Tq, Tk)    (…, Tq, hd) @ (…, hd, Tk)
    softmax, mask          (B, h, Tq, Tk)    kept
    transpose, view        (B, T, d)         (h, hd) merged back into d

A view or reshape whose sizes regroup across axes (positions and features cut
into what the code treats as heads) names the mixed axes with what went in
and the size that came out: (2, 5, 64) viewed as (2, 4, 5, 16) is
(B, [T·d→4], [T·d→5], hd). A reduction that keeps its axis names it
[T→1]. An axis whose origin no rule follows is named by its size alone,
[64], never "?".

The functions here read shapes and names only (no torch): `Names` keeps what
one forward has learnt (the sizes of h, hd, ff, V) and names each op's output.
"""

from __future__ import annotations

import re
from math import prod

# Ops that keep their first activation operand's shape and names.
KEEP = {
    "softmax", "log_softmax", "layernorm", "rmsnorm", "group_norm", "batch_norm", "dropout", "gelu", "relu",
    "silu", "sigmoid", "tanh", "neg", "exp", "log", "sqrt", "rsqrt", "abs", "clone", "contiguous", "to", "float",
    "half", "bfloat16", "double", "type_as", "detach", "masked_fill", "clamp", "clip", "erf", "cos", "sin",
    "leaky_relu", "elu", "mish", "softplus", "hardtanh", "relu6", "square", "reciprocal", "sign", "triu", "tril",
    "fill", "zero", "copy", "type", "requires_grad", "cpu", "cuda", "pow", "nan_to_num", "where", "scale",
}
# Element-wise ops of two or more tensors, broadcast.
BROADCAST = {"add", "add_op", "sub", "rsub", "mul", "div", "truediv", "floordiv", "maximum", "minimum", "where",
             "masked_fill", "pow", "lerp", "addcmul", "addcdiv", "eq", "ne", "lt", "gt", "le", "ge", "mod"}
REDUCE = {"mean", "sum", "var", "std", "amax", "amin", "max", "min", "norm", "logsumexp", "prod", "var_mean",
          "std_mean", "all", "any", "argmax", "argmin", "count_nonzero"}
MOVE = {"transpose", "swapaxes", "swapdims", "permute", "t", "T", "mT", "movedim", "moveaxis"}
VIEW = {"view", "reshape", "flatten", "unflatten", "view_as", "reshape_as"}

MIX = "·"


def bracket(name: str) -> bool:
    """A name that is a regrouping or reduction, not one clean axis."""
    return name.startswith("[")


class Names:
    """What one forward has learnt about its axes: the stream's (B, T, d) and
    the sizes met since (h and hd at the first split of d, V at an embedding)."""

    def __init__(self, batch: int, seq: int, d: int, vocab: int | None = None):
        self.B, self.T, self.d = batch, seq, d
        self.h: int | None = None
        self.hd: int | None = None
        self.vocab = vocab

    # -- the features a linear gives --------------------------------------------
    def features(self, n: int, attention: bool) -> str:
        """The name of a linear's output axis of size n: d, 3d (a fused q, k, v),
        d/2 (grouped-query k or v), V (the vocabulary), else ff (an MLP's hidden)."""
        if n == self.d:
            return "d"
        if self.vocab is not None and n == self.vocab and not attention:
            return "V"
        if n % self.d == 0 and attention:
            return f"{n // self.d}d"
        if self.d % n == 0 and attention:
            return f"d/{self.d // n}"
        if attention and self.hd and n % self.hd == 0:
            return f"{n // self.hd}hd"
        return "ff"

    # -- one axis cut into several, several merged into one ----------------------
    def split(self, name: str, sizes: list[int]) -> list[str]:
        """Names of one axis `name` viewed as `sizes` (their product its size)."""
        if len(sizes) == 1:
            return [name]
        if name == "d" and len(sizes) == 2:
            if self.h is None:
                self.h, self.hd = sizes
            if sizes[1] == self.hd:
                return ["h" if sizes[0] == self.h else "h'", "hd"]
        if name.endswith("d") and name[:-1].isdigit() and len(sizes) == 3 and sizes[1] * sizes[2] == self.d:
            if self.h is None:
                self.h, self.hd = sizes[1], sizes[2]
            return ["qkv", "h", "hd"]
        if len(sizes) == 3 and sizes[0] in (2, 3) and sizes[1] * sizes[2] == self.d:
            # A fused q, k, v (or k, v) cut in one view: (3, h, hd) whatever the linear's name.
            if self.h is None:
                self.h, self.hd = sizes[1], sizes[2]
            return ["qkv" if sizes[0] == 3 else "kv", "h", "hd"]
        if name.startswith("d/") and len(sizes) == 2 and sizes[1] == self.hd:
            return ["h_kv", "hd"]
        if len(sizes) == 2 and sizes[1] == self.hd and name.endswith("hd"):
            return ["h_kv" if sizes[0] != self.h else "h", "hd"]
        if name.startswith(f"B{MIX}") and len(sizes) == 2 and sizes[0] == self.B:
            return ["B", name[2:]]  # B·T → (B, T), B·h → (B, h)
        return [f"{name}{i}" for i in range(1, len(sizes) + 1)]

    def merge(self, names: list[str], size: int) -> str:
        """The name of adjacent axes `names` merged into one of `size`."""
        if len(names) == 1:
            return names[0]
        if names == ["h", "hd"] or (names == ["h'", "hd"] and size == self.d):
            return "d"
        if names == ["h_kv", "rep"] and size == self.h:
            return "h"  # grouped-query heads repeated for every query head
        if names == ["h_kv", "hd"]:
            return "d/" + str(self.d // size) if size and self.d % size == 0 else f"[h_kv{MIX}hd]"
        if names == ["qkv", "h", "hd"]:
            return f"{size // self.d}d" if size % self.d == 0 else f"[{MIX.join(names)}]"
        if names[0] == "B" and len(names) == 2 and not bracket(names[1]):
            return f"B{MIX}{names[1]}"  # B·T, B·h: rows of a batched matmul, each still one (b, ·)
        return f"[{MIX.join(_bare(n) for n in names)}]"

    # -- view / reshape ------------------------------------------------------------
    def view(self, names: list[str], sizes: list[int], out: list[int]) -> list[str]:
        """Names of a tensor of `sizes` named `names` viewed as `out`: the axes
        regrouped at every point where the running products agree; a group that
        cuts across axes is named with what went in and the size that came out."""
        if prod(sizes) != prod(out) or 0 in out:
            return self.fallback(out)
        try:
            return self._view(names, sizes, out)
        except IndexError:
            return self.fallback(out)

    def _view(self, names: list[str], sizes: list[int], out: list[int]) -> list[str]:
        result: list[str] = []
        i = j = 0
        while i < len(sizes) or j < len(out):
            # One minimal group: grow the side whose running product is smaller.
            gi, gj = [i], [j]
            pi = sizes[i] if i < len(sizes) else 1
            pj = out[j] if j < len(out) else 1
            i, j = i + 1, j + 1
            while pi != pj:
                if pi < pj:
                    pi *= sizes[i]
                    gi.append(i)
                    i += 1
                else:
                    pj *= out[j]
                    gj.append(j)
                    j += 1
            # Size-1 axes on either side join the group they sit before.
            while j < len(out) and out[j] == 1 and (i >= len(sizes) or sizes[i] != 1):
                gj.append(j)
                j += 1
            gi = [k for k in gi if k < len(sizes)]
            gj = [k for k in gj if k < len(out)]
            result.extend(self._group([names[k] for k in gi], [sizes[k] for k in gi], [out[k] for k in gj]))
        return result

    def _group(self, names: list[str], sizes: list[int], out: list[int]) -> list[str]:
        if not out:
            return []
        real = [(n, s) for n, s in zip(names, sizes) if s != 1]
        shaped = [s for s in out if s != 1]
        if not real:
            return ["1"] * len(out)
        names, sizes = [n for n, _ in real], [s for _, s in real]
        if len(names) == 1:
            got = iter(self.split(names[0], shaped))
        elif len(shaped) == 1:
            got = iter([self.merge(names, shaped[0])])
        elif sizes == shaped:
            got = iter(names)
        else:
            got = iter(self._mixed(names, sizes, shaped))
        return [next(got) if s != 1 else "1" for s in out]

    def _mixed(self, names: list[str], sizes: list[int], out: list[int]) -> list[str]:
        """Axes regrouped across their boundaries: trailing output axes that cut
        the last input axis cleanly keep its name (hd of d); the rest are mixed."""
        tail: list[str] = []
        last = sizes[-1]
        while len(out) > 1 and last % out[-1] == 0 and last // out[-1] > 1:
            piece = out.pop()
            tail.insert(0, "hd" if names[-1] == "d" and piece == self.hd else f"{names[-1]}'")
            last //= piece
        went = MIX.join(_bare(n) for n in names)
        return [f"[{went}→{s}]" for s in out] + tail

    # -- everything else --------------------------------------------------------
    def by_size(self, size: int) -> str:
        """An axis no rule follows: the stream's name when its size is unique
        among B, T and d, else the size itself in brackets."""
        if size == 1:
            return "1"
        known = {"B": self.B, "T": self.T, "d": self.d}
        hits = [n for n, s in known.items() if s == size]
        return hits[0] if len(hits) == 1 else f"[{size}]"

    def fallback(self, shape: list[int]) -> list[str]:
        return [self.by_size(s) for s in shape]

    def matmul(self, a: list[str], b: list[str], shape: list[int]) -> list[str]:
        """(…, X, K) @ (…, K, Y) → (…, X, Y); two token axes become Tq, Tk."""
        if len(a) == 1 or len(b) == 1:
            return self.fallback(shape)
        x, y = a[-2], b[-1]
        if x in ("T", "Tq") and y in ("T", "Tk", "Tq"):
            x, y = "Tq", "Tk"
        elif x == "Tq":
            x = "T"  # weights @ v: each query is a position again
        batch = broadcast([a[:-2], b[:-2]], shape[:-2])
        return batch + [x, y]

    def einsum(self, equation: str, operands: list[list[str] | None], shape: list[int]) -> list[str]:
        eq = equation.replace(" ", "")
        if "->" not in eq or "." in eq:
            return self.fallback(shape)
        ins, out = eq.split("->")
        letters: dict[str, str] = {}
        for spec, names in zip(ins.split(","), operands):
            if names is None or len(spec) != len(names):
                continue
            for c, n in zip(spec, names):
                if c not in letters or letters[c] == "1":
                    letters[c] = n
        got = [letters.get(c, self.by_size(s)) for c, s in zip(out, shape)]
        if len(got) != len(shape):
            return self.fallback(shape)
        tokens = [k for k, n in enumerate(got) if n in ("T", "Tq", "Tk")]
        if len(tokens) == 2:
            got[tokens[0]], got[tokens[1]] = "Tq", "Tk"
        elif len(tokens) == 1:
            got[tokens[0]] = "T"  # weights · v: each query is a position again
        return got


def _bare(name: str) -> str:
    """A name without its outer brackets, to join into another: [T·d→4] → T·d→4."""
    return name[1:-1] if bracket(name) and name.endswith("]") else name


def broadcast(all_names: list[list[str] | None], shape: list[int]) -> list[str]:
    """The names of a broadcast result of `shape`: per axis (aligned right),
    the first operand's name where its size is the result's, a size-1 axis
    lending nothing."""
    out: list[str] = []
    n = len(shape)
    for k in range(n):
        name = None
        for names in all_names:
            if names is None:
                continue
            idx = len(names) - n + k
            if idx < 0:
                continue
            if names[idx] != "1":
                name = names[idx]
                break
        out.append(name if name is not None else ("1" if shape[k] == 1 else f"[{shape[k]}]"))
    return out


def moved(names: list[str], op: str, args: tuple) -> list[str] | None:
    """The names after a transpose or permute, or None when its arguments are not read."""
    n = len(names)
    if op in ("t", "T") or (op == "mT" and n >= 2):
        return names[::-1] if op != "mT" else names[:-2] + [names[-1], names[-2]]
    ints = [a for a in args if isinstance(a, int)]
    if op == "permute":
        dims = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else ints
        if sorted(d % n for d in dims) != list(range(n)):
            return None
        return [names[d % n] for d in dims]
    if op in ("transpose", "swapaxes", "swapdims") and len(ints) == 2:
        a, b = (d % n for d in ints)
        out = list(names)
        out[a], out[b] = out[b], out[a]
        return out
    if op in ("movedim", "moveaxis") and len(ints) == 2:
        a, b = (d % n for d in ints)
        out = list(names)
        out.insert(b, out.pop(a))
        return out
    return None


def reduced(names: list[str], dims, keepdim: bool) -> list[str]:
    """The names after a reduction over `dims` (None: every axis)."""
    n = len(names)
    if dims is None:
        return [f"[{MIX.join(names)}→1]"] * n if keepdim else []
    if isinstance(dims, int):
        dims = [dims]
    dims = {d % n for d in dims} if n else set()
    if keepdim:
        return [f"[{names[k].strip('[]')}→1]" if k in dims else names[k] for k in range(n)]
    return [names[k] for k in range(n) if k not in dims]


def sliced(name: str, size: int, was: int, names: Names) -> str:
    """An axis cut to `size` from `was` (a split, a chunk, a slice): d when a
    fused 3d is cut into d, its own name otherwise (half of hd is still hd's)."""
    if size == was:
        return name
    if size == names.d and re.fullmatch(r"\d+d", name):
        return "d"
    return name


def position_axis(axes: list[str]) -> tuple[str, int | None]:
    """Where a tensor's positions are, for the probes' evidence:
    ("axis", k) the T (or Tq) axis; ("flat", k) a B·T axis; ("all", None) T
    was mixed into or reduced with another axis (every position counts as
    touched); ("none", None) no position at all."""
    for k, a in enumerate(axes):
        if a in ("T", "Tq"):
            return "axis", k
    for k, a in enumerate(axes):
        if a == "B·T":
            return "flat", k
    if any(bracket(a) and re.search(r"(^|[\[·])T(q|k)?([·→\]]|$)", a) for a in axes):
        return "all", None
    return "none", None


def batch_axis(axes: list[str]) -> tuple[str, int | None]:
    """Where a tensor's batch elements are: ("axis", k) the B axis; ("first",
    k) B merged first with another axis (B·h of a batched matmul); ("all", k)
    B reduced ([B→1]: every batch element counts as touched); ("none", None)."""
    for k, a in enumerate(axes):
        if a == "B":
            return "axis", k
    for k, a in enumerate(axes):
        if a.startswith(f"B{MIX}") and a != f"B{MIX}T":
            return "first", k
    for k, a in enumerate(axes):
        if bracket(a) and re.search(r"(^|[\[·])B([·→\]])", a):
            return "all", k
    return "none", None
