"""The exporter reads a student's model by dataflow: axes named from x, residual
adds and replaced streams, each step's line, the probes' evidence per op,
token ids and transformers models. Each rule is paired with the model that
breaks it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import shapetrace_axes as axes
import shapetrace_export as ex

REPO = Path(__file__).resolve().parents[2]

# One block, written the way the lesson writes it; the pieces a test swaps
# are the head split, the head merge and the block's forward.
BLOCK = '''
import torch
from torch import nn
from torch.nn import functional as F

SPLIT = "{split}"


class Attn(nn.Module):
    def __init__(self, d=64, h=4):
        super().__init__()
        self.h = h
        self.wq = nn.Linear(d, d)
        self.wk = nn.Linear(d, d)
        self.wv = nn.Linear(d, d)
        self.wo = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        H, hd = self.h, C // self.h
        q = {q}
        k = self.wk(x).view(B, T, H, hd).transpose(1, 2)
        v = self.wv(x).view(B, T, H, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / hd ** 0.5
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = att @ v
        return self.wo(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = Attn(d)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
{forward}
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
'''
GOOD_Q = "self.wq(x).view(B, T, H, hd).transpose(1, 2)"
GOOD_FORWARD = """        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))"""


def student(tmp_path: Path, name: str, q: str = GOOD_Q, forward: str = GOOD_FORWARD) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(BLOCK.format(split=name, q=q, forward=forward), encoding="utf-8")
    return path


def export(tmp_path: Path, path: Path, *args: str) -> tuple[int, list[dict]]:
    out = tmp_path / f"{path.stem}.jsonl"
    spec = [f"{path}:Model"] if path.suffix == ".py" else ["--hf", str(path)] if path.is_dir() else [str(path)]
    rc = ex.main([*spec, *(args or ("--input", "2,4,64")), "--out", str(out)])
    return rc, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []


def events(log: list[dict]) -> dict[str, dict]:
    return {e["path"]: e for e in log if e["kind"] == "event"}


def line_of(path: Path, text: str) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return f"{path.name}:{next(n for n, line in enumerate(lines, 1) if text in line)}"


def first_leak(log: list[dict], probe: str = "causality") -> tuple[int, str] | None:
    """The first (token, path) whose rows changed where the probe forbids it, in the
    order shapetrace judges them (pre-mask scores skipped for causality)."""
    for e in log:
        if e["kind"] != "evidence" or e["probe"] != probe or "skipped" in e:
            continue
        for r in e["rows"]:
            if probe == "causality" and r["pre_mask"]:
                continue
            for i, v in enumerate(r["delta"]):
                b, t = divmod(i, r["seq"])
                bad = (b != 0 or t < e["token"]) if probe == "causality" else (b, t) != (0, e["token"])
                if v > 0 and bad:
                    return e["token"], r["path"]
    return None


# -- the axes, by the rules alone ---------------------------------------------

def test_a_head_split_and_merge_name_h_and_hd_then_d():
    n = axes.Names(2, 5, 64)
    assert n.view(["B", "T", "d"], [2, 5, 64], [2, 5, 4, 16]) == ["B", "T", "h", "hd"]
    assert n.view(["B", "T", "h", "hd"], [2, 5, 4, 16], [2, 5, 64]) == ["B", "T", "d"]


def test_a_view_across_positions_and_features_is_named_mixed():
    n = axes.Names(2, 5, 64)
    n.h, n.hd = 4, 16
    # .view(B, H, T, hd) of (B, T, d): T and d cut into what the code calls heads.
    assert n.view(["B", "T", "d"], [2, 5, 64], [2, 4, 5, 16]) == ["B", "[T·d→4]", "[T·d→5]", "hd"]
    # The merge without its transpose: h and T·hd mixed.
    assert n.view(["B", "h", "T", "hd"], [2, 4, 5, 16], [2, 5, 64]) == ["B", "[h·T·hd→5]", "[h·T·hd→64]"]


def test_products_and_reductions():
    n = axes.Names(2, 4, 64)
    assert n.matmul(["B", "h", "T", "hd"], ["B", "h", "hd", "T"], [2, 4, 4, 4]) == ["B", "h", "Tq", "Tk"]
    assert n.matmul(["B", "h", "Tq", "Tk"], ["B", "h", "T", "hd"], [2, 4, 4, 16]) == ["B", "h", "T", "hd"]
    # Heads written on the positions' axis: attention between heads of one token.
    assert n.matmul(["B", "T", "h", "hd"], ["B", "T", "hd", "h"], [2, 4, 4, 4]) == ["B", "T", "h", "h"]
    assert axes.reduced(["B", "T", "d"], 1, True) == ["B", "[T→1]", "d"]
    assert axes.reduced(["B", "T", "d"], -1, False) == ["B", "T"]


def test_where_the_positions_are():
    assert axes.position_axis(["B", "h", "Tq", "Tk"]) == ("axis", 2)
    assert axes.position_axis(["B·T", "d"]) == ("flat", 0)
    assert axes.position_axis(["B", "[T→1]", "d"]) == ("all", None)
    assert axes.position_axis(["B", "h", "[T·hd]"]) == ("all", None)
    assert axes.position_axis(["B", "h", "d"]) == ("none", None)


# -- the exporter on student files ---------------------------------------------

def test_no_activation_has_an_unknown_axis(tmp_path):
    rc, log = export(tmp_path, student(tmp_path, "good"))
    assert rc == 0
    ev = events(log)
    assert all("?" not in a for e in ev.values() for a in e["axes"])
    scores = [e for e in ev.values() if e["path"].startswith("block1.attn.matmul")][0]
    assert scores["axes"] == ["B", "h", "Tq", "Tk"] and scores.get("pre_mask") is True
    assert ev["block1.mlp.0.linear"]["axes"] == ["B", "T", "ff"]
    assert first_leak(log) is None and first_leak(log, "positionwise") is None


def test_a_view_without_its_transpose_names_other_axes_and_the_merge_line(tmp_path):
    bad = student(tmp_path, "view_bad", q="self.wq(x).view(B, H, T, hd)")
    rc, log = export(tmp_path, bad)
    assert rc == 0
    ev = events(log)
    # h = T = 4: the data's axes are (B, T, h, hd), and its scores pair heads, not tokens.
    assert ev["block1.attn.view"]["axes"] == ["B", "T", "h", "hd"]
    # Only q is cut wrongly: its positions meet k's heads in the scores' product.
    token, path = first_leak(log)
    assert ev[path]["line"] == line_of(bad, "att = (q @ k.transpose")
    assert ev["block1.attn.matmul"]["axes"][-2:] != ["Tq", "Tk"]
    # The same file with the transpose leaks nowhere.
    assert first_leak(export(tmp_path, student(tmp_path, "view_good"))[1]) is None


def test_every_step_names_the_line_that_ran_it(tmp_path):
    good = student(tmp_path, "lines")
    ev = events(export(tmp_path, good)[1])
    assert ev["block1.attn.wq.linear"]["line"] == line_of(good, "q = self.wq")
    assert ev["block1.attn.softmax"]["line"] == line_of(good, ".softmax(dim=-1)")
    assert ev["block1.resid_1"]["line"] == line_of(good, "x = x + self.attn")
    assert "line" not in ev["input"]


def test_a_clone_and_in_place_adds_are_residual_adds(tmp_path):
    forward = """        x = x.clone()
        x += self.attn(self.ln_1(x))
        x.add_(self.mlp(self.ln_2(x)))"""
    rc, log = export(tmp_path, student(tmp_path, "iadd", forward=forward))
    ev = events(log)
    adds = [p for p, e in ev.items() if "check" in e]
    assert rc == 0 and adds == ["block1.resid_1", "block1.resid_2", "block2.resid_1", "block2.resid_2"]
    assert not any("replaces_stream" in e for e in ev.values())
    # torch.add(x, f(x)) counts too.
    forward = """        x = torch.add(x, self.attn(self.ln_1(x)))
        x = torch.add(x, self.mlp(self.ln_2(x)))"""
    ev = events(export(tmp_path, student(tmp_path, "tadd", forward=forward))[1])
    assert sum("check" in e for e in ev.values()) == 4


def test_a_parallel_block_adds_both_sublayers_onto_the_stream(tmp_path):
    # GPT-J's block: one norm, attention and MLP side by side; the second add's
    # update comes from the stream before the first add.
    forward = """        y = self.ln_1(x)
        x = x + self.attn(y) + self.mlp(y)"""
    rc, log = export(tmp_path, student(tmp_path, "parallel", forward=forward))
    ev = events(log)
    assert rc == 0
    assert [p for p, e in ev.items() if "check" in e] == ["block1.resid_1", "block1.resid_2", "block2.resid_1",
                                                          "block2.resid_2"]
    assert not any("replaces_stream" in e for e in ev.values())


def test_a_fused_qkv_cut_in_one_view_is_named_qkv_h_hd():
    n = axes.Names(2, 4, 64)
    assert n.view(["B", "T", "ff"], [2, 4, 192], [2, 4, 3, 4, 16]) == ["B", "T", "qkv", "h", "hd"]


def test_a_forgotten_residual_counts_the_add_it_makes_and_names_the_call(tmp_path):
    forward = """        x = self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))"""
    path = student(tmp_path, "forgot", forward=forward)
    ev = events(export(tmp_path, path)[1])
    assert [p for p, e in ev.items() if "check" in e] == ["block1.resid_1", "block2.resid_1"]
    replaced = [e for e in ev.values() if "replaces_stream" in e]
    assert [e["replaces_stream"] for e in replaced] == ["block1.attn", "block2.attn"]
    assert {e["replaced_at"] for e in replaced} == {line_of(path, "x = self.attn(")}
    # Both sublayers in a chain, no add at all: the last one is named.
    forward = "        x = self.mlp(self.ln_2(self.attn(self.ln_1(x))))"
    ev = events(export(tmp_path, student(tmp_path, "chain", forward=forward))[1])
    assert not any("check" in e for e in ev.values())
    assert [e["replaces_stream"] for e in ev.values() if "replaces_stream" in e] == ["block1.mlp", "block2.mlp"]


def test_returns_means_the_data_came_back(tmp_path):
    ev = events(export(tmp_path, student(tmp_path, "returns"))[1])
    # wk reads the norm's output, on the stream: it leaves, it does not return.
    assert ev["block1.attn.wk.linear"]["returns"] is False
    assert ev["block1.attn.view_4"]["returns"] is True  # (B, T, h, hd) merged back into (B, T, d)


def test_a_norm_over_the_positions_is_named_at_its_mean(tmp_path):
    path = tmp_path / "norm_bad.py"
    path.write_text(BLOCK.format(split="", q=GOOD_Q, forward=GOOD_FORWARD).replace(
        "        self.ln_1 = nn.LayerNorm(d)",
        "        self.ln_1 = SeqNorm()").replace("class Block(nn.Module):", '''class SeqNorm(nn.Module):
    def forward(self, x):
        mu = x.mean(dim=1, keepdim=True)
        return x - mu


class Block(nn.Module):'''), encoding="utf-8")
    rc, log = export(tmp_path, path)
    ev = events(log)
    token, leak = first_leak(log, "positionwise")
    assert leak == "block1.ln_1.mean" and ev[leak]["axes"] == ["B", "[T→1]", "d"]
    assert ev[leak]["line"] == line_of(path, "x.mean(dim=1")


def test_evidence_rows_are_batch_by_position(tmp_path):
    rc, log = export(tmp_path, student(tmp_path, "rows"))
    lines = [e for e in log if e["kind"] == "evidence"]
    assert {e["probe"] for e in lines} == {"causality", "positionwise"}
    for e in lines:
        for r in e["rows"]:
            assert (r["batch"], r["seq"]) == (2, 4) and len(r["delta"]) == 8 and max(r["delta"]) > 0
    assert "checks" not in log[-1]


# -- token ids -------------------------------------------------------------------

GPT = (REPO / "scripts" / "students" / "gpt_tokens.py")


@pytest.mark.skipif(not GPT.exists(), reason="the whole-GPT student file is not in this checkout")
def test_a_whole_gpt_traces_from_ids_to_logits(tmp_path):
    rc, log = export(tmp_path, Path(f"{GPT}:GPT"), "--tokens", "2,4")
    ev = list(events(log).values())
    assert rc == 0
    assert (ev[0]["shape"], ev[0]["dtype"], ev[0]["axes"]) == ([2, 4], "i64", ["B", "T"])
    vocab = log[0]["vocab"]
    assert ev[-1]["shape"] == [2, 4, vocab] and ev[-1]["axes"] == ["B", "T", "V"]
    assert log[0]["input"] == "tokens" and log[0]["stream_shape"] == [2, 4, 64]
    assert first_leak(log) is None


@pytest.mark.skipif(not GPT.exists(), reason="the whole-GPT student file is not in this checkout")
def test_token_ids_from_a_file(tmp_path):
    np = pytest.importorskip("numpy")
    np.save(tmp_path / "ids.npy", np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64))
    rc, log = export(tmp_path, Path(f"{GPT}:GPT"), "--tokens", str(tmp_path / "ids.npy"))
    assert rc == 0 and events(log)["input"]["shape"] == [2, 3]
    np.save(tmp_path / "big.npy", np.array([[1, 2, 999]], dtype=np.int64))
    rc, _ = export(tmp_path, Path(f"{GPT}:GPT"), "--tokens", str(tmp_path / "big.npy"))
    assert rc == 2


@pytest.mark.parametrize("args, message", [
    (["--tokens", "0,4"], "--tokens '0,4' is not allowed; allowed: B,T with 1 <= B <= 4096"),
    (["--tokens", "two"], "--tokens 'two' is neither B,T nor a .npy file; allowed: e.g. 2,4 or ids.npy"),
    (["--tokens", "nope.npy"], "--tokens file 'nope.npy' does not exist or is not a file"),
    (["--tokens", "2,4", "--input", "2,4,64"], "give the input as one of --input B,T,d (floats) or --tokens"),
    (["--hf", "nowhere", "--tokens", "2,4"], "--hf 'nowhere' and the model"),
])
def test_bad_token_and_hf_arguments(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    good = student(tmp_path, "args")
    rc = ex.main([f"{good}:Model", *args, "--out", "x.jsonl"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith(f"shapetrace_export: {message}") and err.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists()


def test_bad_hf_folders(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    for args, message in (
        (["--hf", "missing", "--tokens", "2,4"], "--hf 'missing' is not a folder"),
        (["--hf", "empty", "--tokens", "2,4"], "--hf 'empty' has no config.json"),
        (["--hf", "empty"], "--hf traces from token ids; allowed: --tokens B,T or --tokens FILE.npy"),
        ([], "no model given; allowed: FILE.py:NAME, or --hf DIR"),
    ):
        assert ex.main([*args, "--out", "x.jsonl"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"shapetrace_export: {message}") and err.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists()


def test_a_model_without_an_embedding_refuses_tokens(tmp_path, capsys):
    rc = ex.main([f"{student(tmp_path, 'noemb')}:Model", "--tokens", "2,4", "--out", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and "has no nn.Embedding" in err


# -- transformers ------------------------------------------------------------------

def _transformers():
    if os.environ.get("SHAPETRACE_CHECK_LOGS") == "required":
        import transformers  # noqa: F401 - CI installs it: a missing one fails
        return
    pytest.importorskip("transformers")


def test_a_transformers_llama_is_traced_from_its_folder(tmp_path, shapetrace_bin):
    _transformers()
    rc, log = export(tmp_path, REPO / "tests" / "fixtures" / "hf-llama-tiny", "--tokens", "2,5")
    assert rc == 0
    ev = events(log)
    assert log[0]["layers"] == 2 and "(llama)" in log[0]["model"]
    assert [p for p, e in ev.items() if "check" in e] == ["block1.resid_1", "block1.resid_2", "block2.resid_1",
                                                          "block2.resid_2"]
    assert ev["block1.self_attn.q_proj.linear"]["line"].startswith("modeling_llama.py:")
    # Grouped-query k: two kv heads, repeated for the four query heads.
    assert ev["block1.self_attn.view_2"]["axes"] == ["B", "T", "h_kv", "hd"]
    assert ev["block1.self_attn.matmul"]["axes"] == ["B", "h", "Tq", "Tk"]
    assert all("?" not in a for e in ev.values() for a in e["axes"])
    assert first_leak(log) is None and first_leak(log, "positionwise") is None
    if shapetrace_bin is not None:
        out = tmp_path / "hf-llama-tiny.jsonl"
        p = subprocess.run([shapetrace_bin, "check", "--log", str(out)], capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr


# -- styles beyond the lesson's ------------------------------------------------------

BMM = '''
import torch
from torch import nn
from torch.nn import functional as F


class Attn(nn.Module):
    def __init__(self, d=64, h=4):
        super().__init__()
        self.h, self.qkv, self.wo = h, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        H, hd = self.h, C // self.h
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(B, T, H, hd).transpose(1, 2).reshape(B * H, T, hd) for t in (q, k, v))
        s = torch.bmm(q, k.transpose(1, 2)) / hd ** 0.5
        s = s + torch.full((T, T), float("-inf")).triu(1)
        w = F.softmax(s, dim={dim})
        y = torch.bmm(w, v).view(B, H, T, hd).transpose(1, 2).reshape(B, T, C)
        return self.wo(y)


class Norm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x - x.mean(dim=self.dim, keepdim=True)


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.ln_1, self.attn, self.ln_2 = Norm({norm}), Attn(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        B, T, C = x.shape
        return x + self.mlp(self.ln_2(x).reshape(B * T, C)).reshape(B, T, C)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.blocks = nn.Sequential(Block(), Block())

    def forward(self, x):
        return self.blocks(x)
'''


def bmm(tmp_path, name, dim=-1, norm=-1) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(BMM.format(dim=dim, norm=norm), encoding="utf-8")
    return path


def test_batched_matmul_heads_are_named_b_h_and_split_back(tmp_path):
    rc, log = export(tmp_path, bmm(tmp_path, "bmm"))
    ev = events(log)
    assert rc == 0
    assert ev["block1.attn.reshape"]["axes"] == ["B·h", "T", "hd"]
    assert ev["block1.attn.bmm"]["axes"] == ["B·h", "Tq", "Tk"]
    assert ev["block1.attn.view_4"]["axes"] == ["B", "h", "T", "hd"]
    assert ev["block1.attn.reshape_4"]["axes"] == ["B", "T", "d"]
    assert ev["block1.mlp.0.linear"]["axes"] == ["B·T", "ff"]
    # The chunks of the fused q, k, v are pieces, not a return to the stream.
    assert ev["block1.attn.chunk"]["returns"] is False and ev["block1.attn.reshape_4"]["returns"] is True
    assert all("?" not in a and a.count("[") == a.count("]") for e in ev.values() for a in e["axes"])
    assert first_leak(log) is None and first_leak(log, "positionwise") is None


def test_a_softmax_over_queries_is_named_in_batched_matmul_code(tmp_path, shapetrace_bin):
    path = bmm(tmp_path, "bmm_sm", dim=1)
    rc, log = export(tmp_path, path)
    token, leak = first_leak(log)
    assert leak == "block1.attn.softmax" and events(log)[leak]["line"] == line_of(path, "F.softmax(s, dim=1)")


def test_a_norm_over_the_batch_is_named_at_its_mean(tmp_path, shapetrace_bin):
    path = bmm(tmp_path, "norm0", norm=0)
    rc, log = export(tmp_path, path)
    ev = events(log)
    token, leak = first_leak(log)
    assert leak == "block1.ln_1.mean" and ev[leak]["axes"] == ["[B→1]", "T", "d"]
    assert first_leak(log, "positionwise")[1] == "block1.ln_1.mean"
    if shapetrace_bin is not None:
        p = subprocess.run([shapetrace_bin, "check", "--log", str(tmp_path / "norm0.jsonl")], capture_output=True,
                           text=True)
        assert p.returncode == 1 and f"mean at {line_of(path, 'x.mean(dim=self.dim')}" in p.stdout, p.stdout
        assert "reduction over the batch axis (dim=0)" in p.stdout, p.stdout


def test_token_ids_viewed_do_not_leave_the_stream(tmp_path):
    path = tmp_path / "ids.py"
    path.write_text('''
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Linear(16, 16)

    def forward(self, x):
        return x + self.mlp(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.wte = nn.Embedding(11, 16)
        self.h = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(16, 11)

    def forward(self, idx):
        x = self.wte(idx.view(-1, idx.shape[-1]))
        for b in self.h:
            x = b(x)
        return self.head(torch.einsum("btd,de->bte", x, torch.eye(16)))
''', encoding="utf-8")
    rc, log = export(tmp_path, path, "--tokens", "2,3")
    ev = events(log)
    assert rc == 0
    assert ev["view"]["departs"] is False and ev["wte.embedding"]["returns"] is False
    # An einsum that keeps one token axis names it T, not Tq.
    assert ev["einsum"]["axes"] == ["B", "T", "d"]
    assert ev["head.linear"]["axes"] == ["B", "T", "V"]
