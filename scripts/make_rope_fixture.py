"""Writes tests/fixtures/rope-scaling.json: the rotary frequencies Hugging Face
`transformers` computes for Llama 3's and linear rope scaling, the oracle of
tests/hfconfig.rs (shapetrace's `RopeScaling::frequency` must equal them).

For each case: the config's rope settings, the head width, and
`inv_freq` (one frequency per pair of a head) as transformers' rotary
embedding holds it (in f32: the test allows f32 rounding).

Run from the repository root:
  python3 -m venv .venv && .venv/bin/pip install torch transformers
  .venv/bin/python scripts/make_rope_fixture.py
"""

import json

import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

CASES = [
    ("llama3", 64, 500000.0, {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
    ("llama3-small", 16, 10000.0, {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                    "high_freq_factor": 4.0, "original_max_position_embeddings": 64}),
    ("linear", 16, 10000.0, {"rope_type": "linear", "factor": 4.0}),
    ("default", 16, 10000.0, {"rope_type": "default"}),
]

out = []
for name, hd, theta, scaling in CASES:
    params = dict(scaling, rope_theta=theta)
    cfg = LlamaConfig(hidden_size=hd * 2, num_attention_heads=2, head_dim=hd,
                      max_position_embeddings=131072, rope_parameters=params)
    rot = LlamaRotaryEmbedding(cfg)
    inv = rot.inv_freq.double()
    out.append({"name": name, "head_dim": hd, "rope_theta": theta, "config": params,
                "inv_freq": inv.tolist()})
    print(name, inv[:4].tolist())

with open("tests/fixtures/rope-scaling.json", "w") as f:
    json.dump({"transformers": __import__("transformers").__version__, "cases": out}, f, indent=1)
