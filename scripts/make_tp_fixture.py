"""Writes the tensor-parallel fixture of the tiny Hugging Face Llama: each
rank's local shapes and logits when PyTorch's own DTensor tensor parallelism
shards it over two CPU processes.

The checkpoint is tests/fixtures/hf-llama-tiny (scripts/make_llama_fixture.py:
LlamaForCausalLM, hidden 64, 4 heads, 2 K/V heads, head_dim 16, intermediate
128, 2 layers, vocab 96), loaded by transformers with
from_pretrained(dir, dtype=float32, attn_implementation="eager"), eval mode;
its prompt is tests/fixtures/hf-llama-tiny/tokens.npy, (2, 4) int64.

torch.multiprocessing.spawn starts world_size 2 processes on this machine
(MASTER_ADDR 127.0.0.1, a free port found by binding a socket to port 0,
GLOO_SOCKET_IFNAME lo unless already set, one intra-op thread each). Each one
runs init_process_group("gloo"), init_device_mesh("cpu", (2,)) and, on every
decoder layer, torch.distributed.tensor.parallel.parallelize_module with the
Megatron plan:

  self_attn.q_proj, self_attn.k_proj, self_attn.v_proj   ColwiseParallel()
  self_attn.o_proj                                       RowwiseParallel()
  mlp.gate_proj, mlp.up_proj                             ColwiseParallel()
  mlp.down_proj                                          RowwiseParallel()

(default layouts: colwise takes the replicated input and returns its shard of
the output features as a plain local tensor; rowwise takes that local shard
and all-reduces the partial sums into a replicated plain tensor).
The vocabulary is split too, as torchtitan splits it (ENDS below):

  model.embed_tokens   RowwiseParallel(input_layouts=Replicate())
                       its rows of the vocabulary; a token another rank holds
                       looks up zeros (MaskPartial), the lookups all-reduced
  lm_head              ColwiseParallel(output_layouts=Replicate())
                       its rows' scores, all-gathered into the full logits

The RMSNorms are left alone: full, replicated.
Then model(tokens, use_cache=False) under no_grad.

Head counts: nothing is adjusted. The installed modeling_llama.py views the
projections as (*input_shape, -1, head_dim) and merges them back with
reshape(*input_shape, -1), so a rank's 32 q features become 2 local query
heads and its 16 k/v features 1 local K/V head; num_key_value_groups stays
4 // 2 = 2 = 2 // 1, and rank r's query heads 2r, 2r+1 are exactly those that
read its K/V head r. The script proves it: the sharded logits must equal the
unsharded ones. (A transformers whose attention views with the config's head
counts would need self_attn's counts halved; this one does not.)

Forward hooks, registered after parallelize_module (so they run after its
output redistribution), record every rank's LOCAL output shape of the seven
linears of every layer (a DTensor's to_local() shape, a plain tensor's shape),
and every parameter's local shape (DTensor parameters: to_local()).

Files (from the repository root, tests/fixtures/hf-llama-tiny-tp/):

  shapes.json        {"world_size": 2, "source": "tests/fixtures/hf-llama-tiny",
                      "torch": <version>, "transformers": <version>,
                      "plan": {"q_proj": "colwise", ...}, "ends": {"lm_head": "colwise", ...},
                      "ranks": [{"rank": 0, "outputs": {"model.layers.0.self_attn.q_proj":
                                 [2, 4, 32], ...}, "params": {"model.layers.0.self_attn.
                                 q_proj.weight": [32, 64], ...}}, {"rank": 1, ...}],
                      "max_abs_diff_vs_unsharded": <the largest |sharded - unsharded|
                                 logit over both ranks>}
                     keys sorted, indent 1, a trailing newline; a rerun writes the
                     same bytes but for the two versions
  logits-rank0.npy   rank 0's logits, the full (2, 4, 96) f32 (lm_head's output
                     gathered), as np.save writes them
  logits-rank1.npy   rank 1's, the same shape

Checks, each stopping the script with a one-line message and exit status 1
before anything is written: both ranks' logits equal the unsharded model's
(same checkpoint, same tokens, one process) to 1e-5; on every rank and layer
the local q_proj output is (2, 4, 32), k_proj and v_proj (2, 4, 16) (one of
the two K/V heads), gate_proj and up_proj (2, 4, 64), o_proj and down_proj the
full (2, 4, 64). The processes are joined with a deadline (killed after
TIMEOUT seconds) and every collective has one, so the script never hangs;
each rank ends with destroy_process_group. It takes a few seconds on 2 cores.

Rerun from the repository root:

  .venv/bin/python scripts/make_tp_fixture.py [--out DIR]

(or, elsewhere: python3 -m venv .venv && .venv/bin/pip install torch
transformers safetensors numpy). The checkpoint is always read from the
repository's tests/fixtures/hf-llama-tiny. scripts/tests/test_tp_fixture.py
reruns it into a temp folder and compares with the committed files.
"""

import argparse
import datetime
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
SOURCE = "tests/fixtures/hf-llama-tiny"
OUT = REPO / "tests" / "fixtures" / "hf-llama-tiny-tp"
WORLD = 2
TIMEOUT = 120  # seconds: for the collectives, and for joining the processes
TOL = 1e-5
PLAN = {
    "self_attn.q_proj": "colwise",
    "self_attn.k_proj": "colwise",
    "self_attn.v_proj": "colwise",
    "self_attn.o_proj": "rowwise",
    "mlp.gate_proj": "colwise",
    "mlp.up_proj": "colwise",
    "mlp.down_proj": "rowwise",
}
# The vocabulary's split: the embedding's rows and the head's output features.
ENDS = {
    "model.embed_tokens": "rowwise",
    "lm_head": "colwise",
}
# Local output features per rank (B, T = 2, 4): the checks of the docstring.
LOCAL_OUT = {
    "self_attn.q_proj": 32,
    "self_attn.k_proj": 16,
    "self_attn.v_proj": 16,
    "self_attn.o_proj": 64,
    "mlp.gate_proj": 64,
    "mlp.up_proj": 64,
    "mlp.down_proj": 64,
}


class Failed(Exception):
    """A check that failed: its message is the script's one line."""


def load():
    """(model, tokens): the tiny Llama in f32, eager attention, eval mode."""
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging

    logging.disable_progress_bar()  # three loads, three bars: only noise
    model = AutoModelForCausalLM.from_pretrained(REPO / SOURCE, dtype=torch.float32, attn_implementation="eager")
    tokens = torch.from_numpy(np.load(REPO / SOURCE / "tokens.npy"))
    assert tokens.dtype == torch.int64 and tokens.shape == (2, 4), (tokens.dtype, tokens.shape)
    return model.eval(), tokens


def logits_of(model, tokens):
    with torch.no_grad():
        return model(input_ids=tokens, use_cache=False).logits


def local_shape(t):
    from torch.distributed.tensor import DTensor

    return list((t.to_local() if isinstance(t, DTensor) else t).shape)


def rank_main(rank, port, tmp):
    """One rank: shard, run, and leave rank{r}.json and rank{r}.npy in tmp."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Replicate
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    torch.set_num_threads(1)
    torch.manual_seed(0)  # nothing is drawn; only so that no run depends on a global state
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    model, tokens = load()
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=datetime.timedelta(seconds=TIMEOUT))
    try:
        mesh = init_device_mesh("cpu", (WORLD,))
        style = {"colwise": ColwiseParallel, "rowwise": RowwiseParallel}
        outputs = {}

        def record(name):
            def hook(module, args, out):
                outputs[name] = local_shape(out)
            return hook

        for i, layer in enumerate(model.model.layers):
            parallelize_module(layer, mesh, {sub: style[kind]() for sub, kind in PLAN.items()})
            for sub in PLAN:
                layer.get_submodule(sub).register_forward_hook(record(f"model.layers.{i}.{sub}"))
        ends = {
            "model.embed_tokens": RowwiseParallel(input_layouts=Replicate()),
            "lm_head": ColwiseParallel(output_layouts=Replicate()),
        }
        assert set(ends) == set(ENDS)
        parallelize_module(model, mesh, ends)
        params = {name: local_shape(p) for name, p in model.named_parameters()}
        logits = logits_of(model, tokens)
        if isinstance(logits, DTensor):  # lm_head is not sharded: a plain tensor, but be sure
            logits = logits.full_tensor()
        np.save(Path(tmp) / f"rank{rank}.npy", logits.detach().numpy().astype(np.float32))
        (Path(tmp) / f"rank{rank}.json").write_text(json.dumps({"rank": rank, "outputs": outputs, "params": params}))
        dist.barrier()
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(tmp):
    """Spawns the ranks and joins them within TIMEOUT seconds."""
    import torch.multiprocessing as mp

    if sys.platform.startswith("linux"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    ctx = mp.spawn(rank_main, args=(free_port(), tmp), nprocs=WORLD, join=False)
    deadline = time.monotonic() + TIMEOUT
    try:
        while not ctx.join(timeout=max(0.1, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                raise Failed(f"the {WORLD} ranks did not finish within {TIMEOUT} s")
    except mp.ProcessRaisedException as e:
        print(e, file=sys.stderr)  # the rank's traceback
        raise Failed(f"rank {e.error_index} raised: {str(e).strip().splitlines()[-1]}") from None
    except mp.ProcessExitedException as e:
        raise Failed(f"rank {e.error_index} exited with status {e.exit_code}") from None
    finally:
        for p in ctx.processes:
            if p.is_alive():
                p.kill()
                p.join(5)


def check(ranks, logits, want):
    """The checks of the docstring; returns the largest logit difference."""
    diff = 0.0
    for r, got in enumerate(logits):
        if got.shape != want.shape or got.dtype != np.float32:
            raise Failed(f"rank {r}'s logits are {got.dtype} {got.shape}, not float32 {want.shape}")
        diff = max(diff, float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))))
    if not diff <= TOL:
        raise Failed(f"the sharded logits differ from the unsharded ones by {diff:.3g} > {TOL:g}")
    for rec in ranks:
        n = sum(1 for k in rec["outputs"] if k.startswith("model.layers."))
        if n != len(PLAN) * 2:
            raise Failed(f"rank {rec['rank']} recorded {n} linear outputs, not {len(PLAN) * 2}")
        for name, shape in rec["outputs"].items():
            sub = name.split(".", 3)[3]
            if shape != [2, 4, LOCAL_OUT[sub]]:
                raise Failed(f"rank {rec['rank']}: {name} gave a local {tuple(shape)}, "
                             f"not {(2, 4, LOCAL_OUT[sub])}")
    return diff


def fixture(tmp):
    """(shapes.json's object, [rank 0's logits, rank 1's]) after the checks."""
    import transformers

    torch.set_num_threads(1)
    torch.manual_seed(0)
    run_ranks(tmp)
    ranks = [json.loads((Path(tmp) / f"rank{r}.json").read_text()) for r in range(WORLD)]
    logits = [np.load(Path(tmp) / f"rank{r}.npy") for r in range(WORLD)]
    model, tokens = load()
    want = logits_of(model, tokens).numpy()
    diff = check(ranks, logits, want)
    shapes = {
        "world_size": WORLD,
        "source": SOURCE,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "plan": {sub.split(".")[-1]: kind for sub, kind in PLAN.items()},
        "ends": ENDS,
        "ranks": ranks,
        "max_abs_diff_vs_unsharded": diff,
    }
    return shapes, logits


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT, help=f"the folder to write (default {OUT.relative_to(REPO)})")
    a = p.parse_args()
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shapes, logits = fixture(tmp)
    except Failed as e:
        sys.exit(f"make_tp_fixture: {e}")
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "shapes.json").write_text(json.dumps(shapes, sort_keys=True, indent=1) + "\n")
    for r, x in enumerate(logits):
        np.save(a.out / f"logits-rank{r}.npy", x)
    print(f"{WORLD} ranks, max |sharded - unsharded| {shapes['max_abs_diff_vs_unsharded']:.3g}; "
          f"wrote {a.out} in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
