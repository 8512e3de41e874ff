"""The committed tensor-parallel fixture (scripts/make_tp_fixture.py) is what
PyTorch's DTensor tensor parallelism gives today: the script is rerun, two
gloo ranks on loopback, into a temp folder and its files compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "make_tp_fixture.py"
FIXTURE = REPO / "tests" / "fixtures" / "hf-llama-tiny-tp"


def _transformers():
    # As test_dataflow.py: CI installs transformers, so there a missing one fails.
    if os.environ.get("SHAPETRACE_CHECK_LOGS") == "required":
        import transformers  # noqa: F401
        return
    pytest.importorskip("transformers")


def test_llama_tiny_tp_matches_the_committed_fixture(tmp_path):
    _transformers()
    import numpy as np

    run = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]

    got = json.loads((tmp_path / "shapes.json").read_text())
    want = json.loads((FIXTURE / "shapes.json").read_text())
    for key in ("world_size", "source", "plan", "ends"):
        assert got[key] == want[key], key
    assert [r["rank"] for r in got["ranks"]] == [r["rank"] for r in want["ranks"]] == [0, 1]
    for g, w in zip(got["ranks"], want["ranks"]):
        assert g["outputs"] == w["outputs"], g["rank"]
        assert g["params"] == w["params"], g["rank"]
    assert got["ranks"] == want["ranks"]
    assert 0 <= got["max_abs_diff_vs_unsharded"] <= 1e-5

    for r in range(2):
        g = np.load(tmp_path / f"logits-rank{r}.npy")
        w = np.load(FIXTURE / f"logits-rank{r}.npy")
        assert g.dtype == w.dtype == np.dtype("<f4") and g.shape == w.shape == (2, 4, 96), r
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)

    # Colwise: a rank holds half the heads (2 of 4 query heads, 1 of 2 K/V heads)
    # and half the MLP's features; rowwise outputs are all-reduced back to full.
    rank0 = want["ranks"][0]
    assert rank0["outputs"]["model.layers.0.self_attn.q_proj"] == [2, 4, 32]
    assert rank0["outputs"]["model.layers.0.self_attn.k_proj"] == [2, 4, 16]
    assert rank0["outputs"]["model.layers.0.mlp.gate_proj"] == [2, 4, 64]
    assert rank0["outputs"]["model.layers.0.self_attn.o_proj"] == [2, 4, 64]
    assert rank0["params"]["model.layers.0.self_attn.o_proj.weight"] == [64, 32]
    # The vocabulary is split by rows: 48 of the 96 tokens' rows on each rank,
    # of the embedding and of the head (torch's (out, in): (V/2, d)).
    assert rank0["params"]["lm_head.weight"] == [48, 64]
    assert rank0["params"]["model.embed_tokens.weight"] == [48, 64]
