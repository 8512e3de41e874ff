"""Counts the parameters transformers builds for each committed config.json,
on the meta device (no memory, no download): the oracle of the published
counts in tests/hfconfig.rs and the table in docs/src/real-models.md.

Run from the repository root:
  python3 -m venv .venv && .venv/bin/pip install torch transformers
  .venv/bin/python scripts/count_hf_params.py
"""

import glob
import json

import torch
from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

# BERT is counted as BertModel (the encoder and its pooler), as it is
# published and as shapetrace traces it; every other family as its causal LM.
BASE_MODEL = {"bert"}

for path in sorted(glob.glob("tests/fixtures/hf/*.json")):
    with open(path) as f:
        fields = json.load(f)
    fields.pop("architectures", None)
    config = AutoConfig.for_model(**fields)
    with torch.device("meta"):
        build = AutoModel if fields["model_type"] in BASE_MODEL else AutoModelForCausalLM
        model = build.from_config(config)
    print(f"{path}: {sum(p.numel() for p in model.parameters()):,}")
