"""The committed gradient fixture (scripts/make_grads_fixture.py) is what
transformers' backward gives today: rerun in memory and compared."""

from __future__ import annotations

import os

import pytest


def _transformers():
    # As test_dataflow.py: CI installs transformers, so there a missing one fails.
    if os.environ.get("SHAPETRACE_CHECK_LOGS") == "required":
        import transformers  # noqa: F401
        return
    pytest.importorskip("transformers")


def test_gpt2_grads_match_the_committed_fixture():
    _transformers()
    import torch
    from safetensors import safe_open

    import make_grads_fixture as mk

    loss, grads = mk.grads()
    with safe_open(str(mk.OUT), framework="pt") as f:
        assert float(f.metadata()["loss"]) == pytest.approx(loss, rel=1e-6)
        assert set(f.keys()) == set(grads)
        for name, g in grads.items():
            want = f.get_tensor(name)
            assert want.dtype == torch.float32 and want.shape == g.shape, name
            assert torch.allclose(want, g, rtol=0, atol=1e-6 * float(g.abs().max())), name
    # A gradient has its parameter's shape, Conv1D's [in, out] included.
    assert grads["transformer.h.0.mlp.c_fc.weight"].shape == (64, 256)
    assert grads["transformer.wte.weight"].shape == (96, 64)
