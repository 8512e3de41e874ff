"""The committed decode fixtures (scripts/make_decode_fixtures.py) are what
transformers' cached greedy decode gives today: hf-llama-tiny's is rerun in
memory and compared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LLAMA = REPO / "tests" / "fixtures" / "hf-llama-tiny"


def _transformers():
    # As test_dataflow.py: CI installs transformers, so there a missing one fails.
    if os.environ.get("SHAPETRACE_CHECK_LOGS") == "required":
        import transformers  # noqa: F401
        return
    pytest.importorskip("transformers")


def test_llama_tiny_decode_matches_the_committed_fixture():
    _transformers()
    import numpy as np
    import torch

    import make_decode_fixtures as mk

    model, prompt = mk.load("hf-llama-tiny")
    seq, logits, report = mk.decode(model, prompt)  # asserts the cache, step 0, the no-cache oracle, greedy
    assert report["seen"] == [4, 1, 1, 1]

    tokens = np.load(LLAMA / "decode-tokens.npy")
    want = np.load(LLAMA / "decode-logits.npy")
    assert tokens.dtype == np.dtype("<i8") and tokens.shape == (2, 4 + mk.N + 1)
    assert want.dtype == np.dtype("<f4") and want.shape == (2, 4 + mk.N, 96)
    assert np.array_equal(tokens[:, :4], np.load(LLAMA / "tokens.npy"))
    assert np.array_equal(seq.numpy(), tokens)
    np.testing.assert_allclose(logits.numpy(), want, rtol=0, atol=1e-5)
