"""Writes ALiBi's biases as transformers' BLOOM computes them, the oracle of
shapetrace's `alibi` step (tests/numerics.rs).

For h = 1..=12 heads and T = 5 positions, `build_alibi_tensor` gives each
head's slope times the key position j; shapetrace adds m_h·(j − t), which
differs from it by m_h·t in each query row t, a constant the softmax
cancels. The file keeps the slopes (alibi at j = 1) per head count.

  tests/fixtures/alibi-slopes.json   {"1": [m_1], "2": [m_1, m_2], …}

Rerun from the repository root:

  python3 -m venv .venv && .venv/bin/pip install torch transformers
  .venv/bin/python scripts/make_alibi_fixture.py
"""

import json

import torch
from transformers.models.bloom.modeling_bloom import build_alibi_tensor

out = {}
for heads in range(1, 13):
    mask = torch.ones(1, 5)
    alibi = build_alibi_tensor(mask, heads, torch.float64).reshape(heads, 5)
    # alibi[h, j] = m_h · j: the slope is the value at key 1.
    assert torch.allclose(alibi, alibi[:, 1:2] * torch.arange(5, dtype=torch.float64))
    out[str(heads)] = alibi[:, 1].tolist()

with open("tests/fixtures/alibi-slopes.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(out["6"])
