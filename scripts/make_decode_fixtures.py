"""Writes the greedy-decode fixtures of the tiny Hugging Face checkpoints with
transformers' own generate and key/value cache, checked against its forward
without a cache.

Each checkpoint is loaded as the other fixture scripts made it
(AutoModelForCausalLM.from_pretrained(dir, dtype=float32,
attn_implementation="eager"): F16/BF16 files widened to f32), and its
tokens.npy, (2, 4) int64, is the prompt (attention mask all ones, no
padding). With N = 3 decode steps:

  model.generate(prompt, max_new_tokens=N+1, do_sample=False, use_cache=True,
                 output_logits=True, return_dict_in_generate=True)

with eos_token_id None, so generation never stops early, and each model's
default cache (a DynamicCache; for Mistral's and Gemma 2's sliding window of
2 its layers are the sliding-window ones, which keep only the last tokens).
The script checks that the cache is used: the base model sees the 4 prompt
tokens once, then one token per step. It prints the cache's layer classes.

Files, for NAME in hf-llama-tiny, hf-mistral-tiny, hf-gemma2-tiny,
hf-qwen2-tiny, hf-neox-tiny, hf-phi3-tiny, hf-mixtral-tiny (from the
repository root, tests/fixtures/NAME/):

  decode-tokens.npy  generate's sequences: the prompt, then N+1 greedy ids,
                     (2, 4+N+1) = (2, 8) int64
  decode-logits.npy  (2, 4+N, V) = (2, 7, 96) f32: row t holds the logits at
                     position t, the ones that choose token t+1. Rows 0..2
                     are model(prompt, use_cache=False).logits[:, :3]; rows
                     3..3+N are generate's output_logits steps 0..N (raw
                     logits, before any logits processor; step 0 is the
                     prefill's last position, step k the forward of token
                     4+k-1 against the cache).

and for the tiny GPT-2 of scripts/make_lm_fixture.py (tests/fixtures/
hf-gpt2-lm.safetensors, -config.json, -tokens.npy, also (2, 4), T 4 as the
others; loaded by copying the file and its config into a temp folder and
from_pretrained, lm_head tied to wte):

  tests/fixtures/hf-gpt2-lm-decode-tokens.npy   (2, 8) int64, as above
  tests/fixtures/hf-gpt2-lm-decode-logits.npy   (2, 7, 96) f32, as above

Checks, each an assert (the script stops at the first family that fails):

  - generate's step 0 equals the full forward's row 3 to 1e-5;
  - the no-cache oracle: one forward of sequences[:, :4+N] with
    use_cache=False gives decode-logits at every row to 1e-4;
  - greedy: argmax of row 3+k is sequences[:, 4+k], for k in 0..N.

Files are little-endian, C order, written by np.save. The script prints,
per family, the largest differences it found.

Rerun from the repository root:

  .venv/bin/python scripts/make_decode_fixtures.py [--out-dir DIR]

(or, elsewhere: python3 -m venv .venv && .venv/bin/pip install torch
transformers safetensors numpy). --out-dir writes every file under DIR,
with the same relative names, instead of tests/fixtures; the checkpoints
are always read from the repository's tests/fixtures. scripts/tests/
test_decode_fixtures.py reruns hf-llama-tiny and compares.
"""

import argparse
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from transformers import AutoConfig, AutoModelForCausalLM, GenerationConfig

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
N = 3  # decode steps after the prefill's own prediction: N+1 new tokens
FOLDERS = [
    "hf-llama-tiny",
    "hf-mistral-tiny",
    "hf-gemma2-tiny",
    "hf-qwen2-tiny",
    "hf-neox-tiny",
    "hf-phi3-tiny",
    "hf-mixtral-tiny",
]
GPT2 = "hf-gpt2-lm"
WINDOWED = ["hf-mistral-tiny", "hf-gemma2-tiny"]  # sliding_window 2 (Gemma 2: layer 0 only)
STEP0_TOL = 1e-5
ORACLE_TOL = 1e-4


def load_folder(path):
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32, attn_implementation="eager")
    return model.eval()


def load_gpt2(fixtures=FIXTURES):
    """The single-file GPT-2 fixture, from a temp folder laid out as
    from_pretrained expects (config.json, model.safetensors)."""
    tmp = tempfile.mkdtemp()
    try:
        shutil.copyfile(fixtures / f"{GPT2}-config.json", os.path.join(tmp, "config.json"))
        shutil.copyfile(fixtures / f"{GPT2}.safetensors", os.path.join(tmp, "model.safetensors"))
        model = load_folder(tmp)
    finally:
        shutil.rmtree(tmp)
    assert model.lm_head.weight is model.transformer.wte.weight
    return model


def load(name, fixtures=FIXTURES):
    """(model, prompt) of one fixture by its name (a folder, or hf-gpt2-lm)."""
    if name == GPT2:
        return load_gpt2(fixtures), torch.from_numpy(np.load(fixtures / f"{GPT2}-tokens.npy"))
    return load_folder(fixtures / name), torch.from_numpy(np.load(fixtures / name / "tokens.npy"))


def base_lengths(model):
    """Records the number of positions each call of the base model gets."""
    seen = []

    def hook(_module, args, kwargs):
        x = kwargs.get("input_ids")
        if x is None:
            x = args[0] if args else kwargs.get("inputs_embeds")
        seen.append(x.shape[1])

    return seen, model.base_model.register_forward_pre_hook(hook, with_kwargs=True)


def decode(model, prompt, n=N):
    """Greedy decode of n+1 tokens with transformers' cache; returns
    (sequences (B, T+n+1) int64, logits (B, T+n, V) f32, report dict).
    Asserts the checks in the module docstring."""
    assert prompt.dtype == torch.int64 and prompt.ndim == 2, prompt
    b, t = prompt.shape
    mask = torch.ones_like(prompt)
    gen = GenerationConfig(
        do_sample=False,
        num_beams=1,
        max_new_tokens=n + 1,
        min_new_tokens=0,
        eos_token_id=None,
        pad_token_id=0,  # no padding happens (no eos, equal lengths); silences the warning
        use_cache=True,
        output_logits=True,
        return_dict_in_generate=True,
    )
    with torch.no_grad():
        full = model(input_ids=prompt, attention_mask=mask, use_cache=False).logits.float()
        seen, handle = base_lengths(model)
        # generate fills the None fields of `gen` from the model's own
        # generation config (eos 2, or GPT-2's 95): clear it there too.
        eos, model.generation_config.eos_token_id = model.generation_config.eos_token_id, None
        try:
            out = model.generate(prompt, attention_mask=mask, generation_config=gen)
        finally:
            handle.remove()
            model.generation_config.eos_token_id = eos
        seq = out.sequences
        steps = torch.stack([s.float() for s in out.logits], dim=1)  # (B, n+1, V)
        oracle = model(input_ids=seq[:, : t + n], attention_mask=torch.ones_like(seq[:, : t + n]),
                       use_cache=False).logits.float()

    assert seq.shape == (b, t + n + 1), seq.shape
    assert torch.equal(seq[:, :t], prompt)
    assert steps.shape[1] == n + 1, steps.shape
    # The cache is used: the prompt once, then one token per step.
    assert seen == [t] + [1] * n, f"the base model saw {seen} positions per call, not a cached decode"

    logits = torch.cat([full[:, : t - 1], steps], dim=1)  # (B, t+n, V)
    step0 = (steps[:, 0] - full[:, t - 1]).abs().max().item()
    per_row = (oracle - logits).abs().amax(dim=(0, 2))  # (t+n,)
    greedy = logits[:, t - 1 :].argmax(-1)
    cache = out.get("cache", None)  # transformers 5 names it so (past_key_values is deprecated)
    report = dict(
        step0=step0,
        oracle=per_row.max().item(),
        oracle_rows=[float(f"{v:.3g}") for v in per_row.tolist()],
        cache=type(cache).__name__ + "(" + ", ".join(sorted({type(l).__name__ for l in getattr(cache, "layers", [])}))
        + ")",
        seen=seen,
    )
    assert step0 <= STEP0_TOL, f"generate's step 0 differs from the full forward's row {t - 1} by {step0:.3g}"
    assert per_row.max().item() <= ORACLE_TOL, (
        f"the cached decode differs from the no-cache forward of the sequence by {per_row.tolist()} per row "
        f"(max over batch and vocab)"
    )
    assert torch.equal(greedy, seq[:, t:]), f"argmax {greedy.tolist()} is not the generated {seq[:, t:].tolist()}"
    return seq, logits, report


def window_bites(name, seq, logits, fixtures=FIXTURES):
    """Largest change of the decode rows (positions 3..) when the same
    weights run with the sliding window widened to 64 (no cache): the
    window must matter in the rows the fixture pins."""
    path = fixtures / name
    config = AutoConfig.from_pretrained(path)
    assert config.sliding_window == 2, config.sliding_window
    config.sliding_window = 64
    wide = AutoModelForCausalLM.from_pretrained(path, config=config, dtype=torch.float32,
                                                attn_implementation="eager").eval()
    t = seq.shape[1] - 1
    with torch.no_grad():
        other = wide(input_ids=seq[:, :t], attention_mask=torch.ones_like(seq[:, :t]), use_cache=False).logits
    delta = (other.float() - logits)[:, 3:].abs().max().item()
    assert delta > 1e-2, f"{name}: widening the window changes the decode rows by {delta:.3g} only"
    return delta


def save(path, a, dtype):
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.ascontiguousarray(a.numpy().astype(dtype)))


def targets(name, out):
    if name == GPT2:
        return out / f"{GPT2}-decode-tokens.npy", out / f"{GPT2}-decode-logits.npy"
    return out / name / "decode-tokens.npy", out / name / "decode-logits.npy"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out-dir", type=Path, default=FIXTURES, help="where to write (default tests/fixtures)")
    a = p.parse_args()
    torch.manual_seed(0)  # nothing is sampled; only so that no run depends on a global state
    for name in FOLDERS + [GPT2]:
        model, prompt = load(name)
        seq, logits, r = decode(model, prompt)
        tok_path, log_path = targets(name, a.out_dir)
        save(tok_path, seq, "<i8")
        save(log_path, logits, "<f4")
        print(
            f"{name}: cache {r['cache']}, base model positions per call {r['seen']}; "
            f"|step 0 - full row 3| {r['step0']:.2g}; |cached - no-cache| per row {r['oracle_rows']}; "
            f"new ids {seq[:, prompt.shape[1]:].tolist()}"
        )
        if name in WINDOWED:
            print(f"  the sliding window of 2, widened to 64, moves the decode rows by "
                  f"{window_bites(name, seq, logits):.3g} (no cache)")
        for path in (tok_path, log_path):
            print(f"  wrote {path}  {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
