"""Measures what autograd keeps for the backward of one GPT-2-small block,
written nanoGPT's way, as an outside oracle for the memory of a training step.

The block (f32, CPU, no dropout: nanoGPT's dropout=0 modules are left out):

  x = x + attn(ln_1(x));  x = x + mlp(ln_2(x))
  ln_1, ln_2   LayerNorm(768, bias=True)
  attn         c_attn Linear(768, 2304) fused q|k|v; q, k, v = split(768, dim=2);
               each .view(B, T, 12, 64).transpose(1, 2);
               att = (q @ k.transpose(-2, -1)) * (1 / sqrt(64));
               att = att.masked_fill(bias[:, :, :T, :T] == 0, -inf);
               att = softmax(att, dim=-1); y = att @ v;
               y = y.transpose(1, 2).contiguous().view(B, T, C); c_proj Linear(768, 768)
               bias: the causal mask buffer, tril(ones(1024, 1024)).view(1, 1, 1024, 1024)
  mlp          c_fc Linear(768, 3072), nn.GELU() (exact erf), c_proj Linear(3072, 768)

The forward runs at B = 1 on x ~ N(0, 1) (seed 0, requires_grad=True) inside
torch.autograd.graph.saved_tensors_hooks. The pack hook records every tensor
autograd saves (shape, dtype, untyped_storage().data_ptr(), storage nbytes) and
hands back its index; afterwards the script walks the graph from the output's
grad_fn and reads every node's _saved_* attributes, and the unpack hook says
which record each one was, so every record gets the name of the node that
saved it (AddmmBackward0, NativeLayerNormBackward0, ...; #n numbers nodes of
one class in forward order), and forward hooks on the modules give the
innermost module running when it was saved. Records whose storage
is a parameter's (the Linear weights as mat2 = W.t(), the LayerNorm weight and
bias) are left out; every other storage counts once, at its full nbytes, even
when several saved tensors are views of it (q, k, v are views of c_attn's
output; att @ v saves the softmax output that softmax itself saved).

Assumptions, and what they mean for the numbers:
  - Values do not matter, only shapes: parameters keep PyTorch's default init.
  - The eager CPU kernels of this torch (2.15): F.linear on a contiguous
    (B, T, C) input with a bias is addmm on its (B*T, C) view; q @ k^T and
    att @ v go through matmul's expand + reshape + bmm, and at B = 1 that
    reshape is a view (the size-1 batch merges with the heads), so bmm saves
    views of c_attn's output. At B > 1 the reshape of the transposed q/k/v
    copies, and bmm saves the three copies (4sbh each) instead of c_attn's
    output (12sbh): other storages, same total (checked at B = 2, T = 256:
    31,531,008 bytes, the formula below to the byte).
  - x requires grad so that the first op saves "as in a real step"; it makes
    no difference here: ln_1 saves its input anyway because its weight
    requires grad (the script runs both ways and records the two totals).
  - The block's input x is counted (ln_1 saves it), as Korthikanti et al. do;
    in a full model the previous block's output is that same storage.

Korthikanti et al. ("Reducing Activation Recomputation in Large Transformer
Models", 2022), per layer, 16-bit activations, dropout masks of 1 byte:
  attention 11sbh + 5as^2b = QKV input 2sbh + Q, K 4sbh + softmax output
      2as^2b + its dropout mask as^2b + dropout output 2as^2b + V 2sbh
      + out-proj input 2sbh + dropout mask sbh
  MLP 19sbh = fc1 input 2sbh + GELU input 8sbh + fc2 input 8sbh + mask sbh
  two LayerNorm inputs 4sbh
  total sbh(34 + 5as/h) bytes.
Adapted here to 4-byte activations and no dropout: every 2-byte term doubles,
the three masks (sbh + sbh + as^2b) vanish, and att @ v saves the softmax
output itself, so the "dropout output" term (2as^2b) vanishes too:
  attention 4sbh + 8sbh + 4as^2b + 4sbh + 4sbh = 20sbh + 4as^2b
  MLP 4sbh + 16sbh + 16sbh = 36sbh;  LayerNorms 8sbh
  total sbh(64 + 4as/h) bytes.
What PyTorch saves beyond that formula: each LayerNorm's mean and rstd, f32
(B, T, 1) each (2 x 2 x 4sb = 16sb), the masked_fill mask, bool (1, 1, T, T)
(s^2 bytes: broadcast over batch and heads, so not as^2b): 64sbh + 4as^2b
+ 16sb + s^2 bytes, which is what the script measures, to the byte. The
script prints both formulas and that sum next to the measured total.
Not in the total: the scale 1/sqrt(64), which MulBackward0 keeps as a 0-dim
float64 wrapped-number tensor (8 bytes) that never goes through the pack
hook; the graph walk finds it and the fixture lists it apart.

Writes tests/fixtures/saved-tensors-gpt2-block.json: rows (one per saved
tensor, forward order) for T = 256, the per-node summary, and the totals for
T = 128, 256 and 512 so the T^2 term shows.

Rerun from the repository root:

  python3 -m venv .venv && .venv/bin/pip install torch numpy
  .venv/bin/python scripts/make_saved_tensors_fixture.py
"""

import json
import math
import os
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

N_EMBD, N_HEAD, BLOCK_SIZE = 768, 12, 1024
B = 1
T_ROWS = 256
T_TOTALS = (128, 256, 512)
OUT = os.path.join("tests", "fixtures", "saved-tensors-gpt2-block.json")


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD, bias=True)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD, bias=True)
        self.n_head, self.n_embd = N_HEAD, N_EMBD
        self.register_buffer(
            "bias",
            torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE)).view(1, 1, BLOCK_SIZE, BLOCK_SIZE),
        )

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD, bias=True)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD, bias=True)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD, bias=True)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(N_EMBD, bias=True)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def trace(block, T, x_requires_grad=True):
    """Runs the forward under the hooks; returns the saved-tensor records."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(B, T, N_EMBD, generator=g).requires_grad_(x_requires_grad)
    records = []  # forward order: dict with the tensor kept alive
    last = [None]
    module_stack = ["block"]
    handles = []
    for name, mod in block.named_modules():
        if name:
            handles.append(mod.register_forward_pre_hook(
                lambda m, a, name=name: module_stack.append(name) and None))
            handles.append(mod.register_forward_hook(  # must return None
                lambda m, a, o: module_stack.pop() and None))

    def pack(t):
        records.append({"tensor": t, "nodes": [], "module": module_stack[-1]})
        return len(records) - 1

    def unpack(i):
        last[0] = i
        return records[i]["tensor"]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = block(x)
    for h in handles:
        h.remove()

    # Walk the graph; reading a _saved_* attribute runs unpack, which names
    # the record.
    seen, stack, order = set(), [y.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node)
        for nxt, _ in node.next_functions:
            stack.append(nxt)
    unhooked = []  # saved tensors the pack hook never saw
    for node in order:
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            last[0] = None
            try:
                val = getattr(node, attr)
            except RuntimeError:
                continue
            vals = val if isinstance(val, (tuple, list)) else (val,)
            if not any(isinstance(v, torch.Tensor) for v in vals):
                continue
            if last[0] is not None:
                records[last[0]]["nodes"].append((node, attr[len("_saved_"):]))
            else:
                t = next(v for v in vals if isinstance(v, torch.Tensor))
                unhooked.append({
                    "node": type(node).__name__, "arg": attr[len("_saved_"):],
                    "shape": list(t.shape), "dtype": dtype_name(t.dtype),
                    "bytes": t.untyped_storage().nbytes(),
                })

    # Name each node after its class and its rank among nodes of that class,
    # in forward order (BmmBackward0#1 is q @ k^T, #2 is att @ v).
    label, ranks = {}, {}
    for r in records:
        for node, _ in r["nodes"]:
            if node not in label:
                cls = type(node).__name__
                ranks[cls] = ranks.get(cls, 0) + 1
                label[node] = f"{cls}#{ranks[cls]}"

    param_ptrs = {p.untyped_storage().data_ptr() for p in block.parameters()}
    buffer_ptrs = {b.untyped_storage().data_ptr() for b in block.buffers()}
    rows, storages = [], OrderedDict()
    excluded = {"count": 0, "nodes": []}
    for i, r in enumerate(records):
        t = r["tensor"]
        node, arg = r["nodes"][0] if r["nodes"] else (None, "?")
        node = label.get(node, "(unmapped)")
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if ptr in param_ptrs:
            excluded["count"] += 1
            excluded["nodes"].append(f"{node}.{arg}")
            continue
        if ptr not in storages:
            storages[ptr] = {"label": f"s{len(storages)}", "nbytes": st.nbytes(), "rows": []}
        s = storages[ptr]
        row = {
            "node": node,
            "arg": arg,
            "module": r["module"],
            "shape": list(t.shape),
            "dtype": dtype_name(t.dtype),
            "contiguous": t.is_contiguous(),
            "view_bytes": t.numel() * t.element_size(),
            "bytes": s["nbytes"],
            "counted": not s["rows"],
            "storage": s["label"],
            "buffer": ptr in buffer_ptrs,
        }
        if len(r["nodes"]) > 1:
            row["also_saved_by"] = [f"{label[n]}.{a}" for n, a in r["nodes"][1:]]
        s["rows"].append(row)
        rows.append(row)
    for s in storages.values():
        for row in s["rows"]:
            row["shared_with"] = [
                f"{o['node']}.{o['arg']}" for o in s["rows"] if o is not row
            ]
    total = sum(s["nbytes"] for s in storages.values())
    return rows, total, excluded, len(records), unhooked


def by_node(rows):
    out = OrderedDict()
    for r in rows:
        e = out.setdefault(r["node"].split("#")[0], {"count": 0, "bytes_counted": 0, "view_bytes": 0})
        e["count"] += 1
        e["view_bytes"] += r["view_bytes"]
        if r["counted"]:
            e["bytes_counted"] += r["bytes"]
    return out


def formulas(T):
    s, b, h, a = T, B, N_EMBD, N_HEAD
    sbh = s * b * h
    korthikanti = sbh * (34 + 5 * a * s / h)
    f32 = sbh * (64 + 4 * a * s / h)
    extra = 16 * s * b + s * s  # LN mean/rstd, bool mask (1,1,T,T)
    return {
        "korthikanti_16bit_dropout": int(korthikanti),
        "adapted_f32_no_dropout": int(f32),
        "adapted_plus_ln_stats_and_mask": int(f32 + extra),
    }


def main():
    torch.manual_seed(0)
    block = Block().float().train()

    totals = OrderedDict()
    rows256 = None
    for T in T_TOTALS:
        rows, total, excluded, n_packed, unhooked = trace(block, T)
        _, total_no_grad_x, _, _, _ = trace(block, T, x_requires_grad=False)
        totals[str(T)] = {
            "total_bytes_unique_storages": total,
            "total_bytes_if_x_does_not_require_grad": total_no_grad_x,
            "saved_tensors_packed": n_packed,
            "saved_tensors_excluded_as_parameters": excluded["count"],
            **formulas(T),
        }
        if T == T_ROWS:
            rows256, excluded256, unhooked256 = rows, excluded, unhooked

    nodes = by_node(rows256)
    fixture = OrderedDict(
        model="GPT-2-small block, nanoGPT style (h 768, 12 heads of 64, MLP 3072, "
        "LayerNorm with bias, exact GELU, no dropout), f32, CPU, torch "
        + torch.__version__.split("+")[0],
        B=B,
        T=T_ROWS,
        dtype="f32",
        total_bytes_unique_storages=totals[str(T_ROWS)]["total_bytes_unique_storages"],
        note="rows: one per tensor autograd saved, forward order, parameters left out; "
        "bytes = the full nbytes of its storage, counted once (counted=true on the first "
        "row that saves it); view_bytes = numel*itemsize of the saved view.",
        excluded_parameter_saves=excluded256["nodes"],
        saved_without_pack_hook=unhooked256,
        rows=rows256,
        by_node=nodes,
        totals_by_T=totals,
    )
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    # One line per row and per by_node entry, so the file reads as a table.
    parts = []
    for k, v in fixture.items():
        if k == "rows":
            body = ",\n".join("  " + json.dumps(r) for r in v)
            parts.append(f' "rows": [\n{body}\n ]')
        elif k in ("by_node", "totals_by_T"):
            body = ",\n".join(f"  {json.dumps(n)}: {json.dumps(e)}" for n, e in v.items())
            parts.append(f' "{k}": {{\n{body}\n }}')
        else:
            parts.append(f" {json.dumps(k)}: {json.dumps(v)}")
    with open(OUT, "w") as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")

    print(f"T = {T_ROWS}, B = {B}: saved tensors (parameters left out)")
    print(f"  {'node.arg':34} {'module':12} {'shape':18} {'dtype':8} {'storage':7} {'bytes':>10}  shared with")
    for r in rows256:
        mark = "" if r["counted"] else "  (not counted again)"
        print(
            f"  {r['node'] + '.' + r['arg']:34} {r['module']:12} {str(r['shape']):18} {r['dtype']:8} "
            f"{r['storage']:7} {r['bytes']:>10}  {', '.join(r['shared_with']) or '-'}{mark}"
        )
    print(f"  left out as parameters: {', '.join(excluded256['nodes'])}")
    for u in unhooked256:
        print(f"  saved without the pack hook (not in the totals): {u}")
    print()
    print(f"  {'node':28} {'count':>5} {'bytes counted':>14} {'view bytes':>12}")
    for n, e in nodes.items():
        print(f"  {n:28} {e['count']:>5} {e['bytes_counted']:>14} {e['view_bytes']:>12}")
    print()
    for T, t in totals.items():
        print(
            f"T = {T:>3}: measured {t['total_bytes_unique_storages']:>11,} B"
            f" (x without grad: {t['total_bytes_if_x_does_not_require_grad']:,})"
            f" | Korthikanti sbh(34+5as/h) {t['korthikanti_16bit_dropout']:>11,}"
            f" | f32 no dropout sbh(64+4as/h) {t['adapted_f32_no_dropout']:>11,}"
            f" | + LN stats, mask {t['adapted_plus_ln_stats_and_mask']:>11,}"
        )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
