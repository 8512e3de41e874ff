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


# -- blocks in a root container, attention inside a child, every product form -------------

def judged(shapetrace_bin, log_path: Path) -> subprocess.CompletedProcess | None:
    """`shapetrace check --log` of a log, or None without a built shapetrace."""
    if shapetrace_bin is None:
        return None
    return subprocess.run([shapetrace_bin, "check", "--log", str(log_path)], capture_output=True, text=True)


ROOTS = {
    # The model is an nn.Sequential of blocks, from a factory.
    "sequential": "def Model():\n    torch.manual_seed(0)\n    return nn.Sequential(Block(), Block())\n",
    # A class that is an nn.Sequential.
    "subclass": ("class Model(nn.Sequential):\n    def __init__(self):\n        torch.manual_seed(0)\n"
                 "        super().__init__(Block(), Block())\n"),
    # A ModuleList with a forward of its own.
    "modulelist": ("class Model(nn.ModuleList):\n    def __init__(self):\n        torch.manual_seed(0)\n"
                   "        super().__init__([Block(), Block()])\n\n    def forward(self, x):\n"
                   "        for b in self:\n            x = b(x)\n        return x\n"),
    # The blocks, then a final norm, in one Sequential: the run of blocks.
    "run": ("def Model():\n    torch.manual_seed(0)\n"
            "    return nn.Sequential(nn.Linear(64, 64), Block(), Block(), nn.LayerNorm(64))\n"),
}


@pytest.mark.parametrize("root", list(ROOTS))
def test_a_model_that_is_a_container_of_blocks_has_them_as_block1_and_block2(tmp_path, root, shapetrace_bin):
    path = tmp_path / f"root_{root}.py"
    source = BLOCK.format(split=root, q=GOOD_Q, forward=GOOD_FORWARD)
    path.write_text(source[:source.index("class Model(nn.Module):")] + ROOTS[root], encoding="utf-8")
    rc, log = export(tmp_path, path)
    ev = events(log)
    assert rc == 0 and log[0]["layers"] == 2
    assert [p for p, e in ev.items() if "check" in e] == ["block1.resid_1", "block1.resid_2", "block2.resid_1",
                                                          "block2.resid_2"]
    assert "block2.attn.wq.linear" in ev and not any(p.startswith("block1.0") for p in ev)
    assert first_leak(log) is None and first_leak(log, "positionwise") is None
    p = judged(shapetrace_bin, tmp_path / f"{path.stem}.jsonl")
    assert p is None or p.returncode == 0, p.stdout + p.stderr


def test_a_sequential_of_sublayers_is_no_stack_of_blocks():
    # Runs of two or more of one class only; an MLP's Linear, GELU, Linear is none.
    seq = ex.nn.Sequential(ex.nn.Linear(4, 8), ex.nn.GELU(), ex.nn.Linear(8, 4))
    assert ex._block_runs(seq, True) == [] and ex._block_runs(seq, False) == []


# A Block whose sublayers are wrapped: `Residual(norm, f)` adds f(norm(x))
# onto x, and the attention's class and attribute name no attention word, so
# only its scores (q @ kᵀ) say what it is.
WRAPPED = '''
import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.wq, self.wk, self.wv = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        T = x.shape[1]
        s = self.wq(x) @ self.wk(x).transpose(-2, -1) / 8
        s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        return s.softmax(dim=-1) @ self.wv(x)


class Feed(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.up(x)
        return self.down(torch.relu(h{mlp}))


class Residual(nn.Module):
    def __init__(self, f, d=64):
        super().__init__()
        self.norm, self.f = nn.LayerNorm(d), f

    def forward(self, x):
        return x + self.f(self.norm(x))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second = Residual(Mixer()), Residual(Feed())

    def forward(self, x):
        return self.second(self.first(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.layer = {layer}
        self.norm = nn.LayerNorm(64)

    def forward(self, x):
        return self.norm(self.layer(x))
'''


def probed(log: list[dict]) -> set[str]:
    return {e["module"] for e in log if e["kind"] == "evidence" and e["probe"] == "positionwise" and "rows" in e}


@pytest.mark.parametrize(("layer", "at"), [("Block()", "block1.layer"),
                                           ("nn.Sequential(Block(), nn.Dropout(0.0))", "block1.layer.0")])
def test_positionwise_runs_no_module_that_holds_attention_but_the_sublayers_inside_it(tmp_path, layer, at,
                                                                                      shapetrace_bin):
    # The model is one block (no container of blocks) holding a whole Block
    # (alone, or in a Sequential with a dropout); the Block's sublayers are
    # wrapped: none of them is run alone, what is inside them is.
    path = tmp_path / "wrapped.py"
    path.write_text(WRAPPED.format(mlp="", layer=layer), encoding="utf-8")
    rc, log = export(tmp_path, path)
    assert rc == 0 and log[0]["layers"] == 1
    mods = probed(log)
    assert not {"block1.layer", at, f"{at}.first"} & mods
    assert not any(m.startswith(f"{at}.first.f") for m in mods)
    assert {f"{at}.second", f"{at}.first.norm", "block1.norm"} <= mods
    assert first_leak(log, "positionwise") is None and first_leak(log) is None
    p = judged(shapetrace_bin, tmp_path / "wrapped.jsonl")
    assert p is None or p.returncode == 0, p.stdout + p.stderr


def test_a_wrapped_mlp_that_mixes_positions_is_still_caught(tmp_path, shapetrace_bin):
    path = tmp_path / "wrapped_bad.py"
    path.write_text(WRAPPED.format(mlp=" - h.mean(dim=1, keepdim=True)", layer="Block()"), encoding="utf-8")
    rc, log = export(tmp_path, path)
    token, leak = first_leak(log, "positionwise")
    assert leak == "block1.layer.second.f.mean"
    p = judged(shapetrace_bin, tmp_path / "wrapped_bad.jsonl")
    assert p is None or (p.returncode == 1 and "✗ positionwise" in p.stdout), p.stdout + p.stderr


# Every way of writing the scores of folded heads q, k: (B·h, T, hd).
SCORES = {
    "bmm": "torch.bmm(q, k.transpose(1, 2)) / hd ** 0.5",
    "matmul_kw": "torch.matmul(input=q, other=k.transpose(1, 2)) / hd ** 0.5",
    "method": "q.matmul(k.transpose(1, 2)) / hd ** 0.5",
    "baddbmm_empty": "torch.baddbmm(torch.empty(B * H, T, T), q, k.transpose(1, 2), beta=0, alpha=hd ** -0.5)",
    "baddbmm_zeros": "torch.baddbmm(torch.zeros(B * H, T, T), q, k.transpose(1, 2), alpha=hd ** -0.5)",
    "baddbmm_inplace": "torch.empty(B * H, T, T).baddbmm_(q, k.transpose(1, 2), beta=0, alpha=hd ** -0.5)",
    # Bloom: an ALiBi bias (no mask: small values) as the term, the factors by keyword.
    "baddbmm_alibi": ("(torch.arange(T) * -0.5).expand(B * H, 1, T).baddbmm(batch1=q, batch2=k.transpose(1, 2), "
                      "beta=1.0, alpha=hd ** -0.5)"),
}
# The scores' mask is added in the product itself: they are masked scores.
MASKED_IN_PRODUCT = "torch.baddbmm(torch.full((B * H, T, T), float('-inf')).triu(1), q, k.transpose(1, 2))"


@pytest.mark.parametrize("form", list(SCORES) + ["masked_in_product"])
def test_scores_are_pre_mask_in_every_product_form(tmp_path, form, shapetrace_bin):
    path = tmp_path / f"scores_{form}.py"
    scores = SCORES.get(form, MASKED_IN_PRODUCT)
    source = BMM.format(dim=-1, norm=-1).replace("s = torch.bmm(q, k.transpose(1, 2)) / hd ** 0.5", f"s = {scores}")
    assert f"s = {scores}" in source
    path.write_text(source, encoding="utf-8")
    rc, log = export(tmp_path, path)
    ev = events(log)
    assert rc == 0
    # The product: the step of that line that read both q and k.
    product = next(e for e in ev.values() if e.get("line") == line_of(path, "s = ") and len(e["inputs"]) == 2)
    assert product["axes"] == ["B·h", "Tq", "Tk"]
    assert product.get("pre_mask", False) is (form != "masked_in_product"), product
    assert first_leak(log) is None and first_leak(log, "positionwise") is None
    p = judged(shapetrace_bin, tmp_path / f"{path.stem}.jsonl")
    assert p is None or p.returncode == 0, p.stdout + p.stderr


def test_torch_empty_is_judged_where_it_is_read():
    # Unwritten memory may hold NaN: baddbmm(empty, …, beta=0) never reads it,
    # and a NaN the model writes (torch.full) is judged where it is made.
    torch = ex.torch
    model = ex.nn.Linear(4, 4)
    x = torch.zeros(1, 2, 4)
    rec = ex._Recorder(model, x, "", [model], ex._display_names(model, "", [model]))
    nan = torch.full((2, 2), float("nan"))
    for op in ("empty", "empty_like", "new_empty", "full"):
        rec._push(op, op, nan.clone(), [], op)
    assert [e["stats"]["finite"] for e in rec.events[1:]] == [True, True, True, False]


# The mask added to the scores, or a bias that is none (then masked_fill masks).
ADDED = {
    "inf_triu": ('s = s + torch.full((T, T), float("-inf")).triu(1)', False),
    "minus_1e9": ("s = s + (1.0 - torch.ones(T, T).tril()) * -1e9", False),
    "sub_1e9": ("s = s - (1.0 - torch.ones(T, T).tril()) * 1e9", False),
    "alibi": ("s = s + (torch.arange(T)[None, :] - torch.arange(T)[:, None]).abs() * -0.5\n"
              "        s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float('-inf'))", True),
}


@pytest.mark.parametrize("form", list(ADDED))
def test_an_added_mask_masks_the_scores_and_a_bias_does_not(tmp_path, form, shapetrace_bin):
    path = tmp_path / f"added_{form}.py"
    line, pre_mask = ADDED[form]
    source = BMM.format(dim=-1, norm=-1).replace('s = s + torch.full((T, T), float("-inf")).triu(1)', line)
    assert line in source
    path.write_text(source, encoding="utf-8")
    rc, log = export(tmp_path, path)
    ev = events(log)
    added = next(e for e in ev.values() if e.get("line") == line_of(path, line.split("\n")[0])
                 and e["op"] in ("add_op", "sub") and e["inputs"])
    assert rc == 0 and added["axes"] == ["B·h", "Tq", "Tk"]
    assert added.get("pre_mask", False) is pre_mask, added
    assert first_leak(log) is None
    p = judged(shapetrace_bin, tmp_path / f"{path.stem}.jsonl")
    assert p is None or p.returncode == 0, p.stdout + p.stderr


def test_a_mask_added_the_wrong_way_leaks_at_its_add(tmp_path):
    path = tmp_path / "added_wrong.py"
    source = BMM.format(dim=-1, norm=-1).replace('float("-inf")).triu(1)', 'float("-inf")).tril(-1)')
    path.write_text(source, encoding="utf-8")
    token, leak = first_leak(export(tmp_path, path)[1])
    assert leak == "block1.attn.add_op"


def test_a_whole_gpt_written_as_one_sequential_finds_its_blocks(tmp_path, shapetrace_bin):
    # nn.Sequential(embedding, blocks…, norm, head) on token ids: the run of blocks.
    path = tmp_path / "seq_gpt.py"
    source = BLOCK.format(split="gpt", q=GOOD_Q, forward=GOOD_FORWARD)
    path.write_text(source[:source.index("class Model(nn.Module):")]
                    + "def Model():\n    torch.manual_seed(0)\n"
                      "    return nn.Sequential(nn.Embedding(50, 64), Block(), Block(), nn.LayerNorm(64), "
                      "nn.Linear(64, 50))\n", encoding="utf-8")
    rc, log = export(tmp_path, path, "--tokens", "2,4")
    ev = events(log)
    assert rc == 0 and log[0]["layers"] == 2
    assert [p for p, e in ev.items() if "check" in e] == ["block1.resid_1", "block1.resid_2", "block2.resid_1",
                                                          "block2.resid_2"]
    assert "0.embedding" in ev and ev["4.linear"]["axes"] == ["B", "T", "V"]
    p = judged(shapetrace_bin, tmp_path / "seq_gpt.jsonl")
    assert p is None or p.returncode == 0, p.stdout + p.stderr


# -- roles ---------------------------------------------------------------------

def test_each_event_says_the_role_the_trace_knows(tmp_path):
    """A norm module is a norm whatever its attribute is named (here `pre` and
    `post`, which no name rule reads as a norm); the product before the mask
    is the scores, the softmax the weights, each add onto the stream a
    residual add. The steps the trace cannot place carry no role: shapetrace
    gives them theirs on reading."""
    forward = """        x = x + self.attn(self.pre(x))
        x = x + self.mlp(self.post(x))"""
    path = tmp_path / "renamed_norms.py"
    text = BLOCK.format(split="renamed_norms", q=GOOD_Q, forward=forward)
    text = text.replace("self.ln_1 = nn.LayerNorm(d)", "self.pre = nn.LayerNorm(d)")
    text = text.replace("self.ln_2 = nn.LayerNorm(d)", "self.post = nn.LayerNorm(d)")
    path.write_text(text, encoding="utf-8")
    rc, log = export(tmp_path, path)
    assert rc == 0
    assert log[0]["schema"] == 4
    evs = [e for e in log if e["kind"] == "event"]
    roles = [e.get("role") for e in evs]
    assert evs[0]["role"] == "input"
    assert roles.count("norm") == 4, [(e["path"], e.get("role")) for e in evs]
    assert all(e["path"].split(".")[1] in ("pre", "post") for e in evs if e.get("role") == "norm")
    assert roles.count("residual-add") == 4
    assert all("check" in e for e in evs if e.get("role") == "residual-add")
    scores = [e for e in evs if e.get("role") == "scores"]
    assert scores and all(e.get("pre_mask") for e in scores)
    assert roles.count("weights") == 2
    # A linear is not placed by the trace: no role written.
    assert all("role" not in e for e in evs if e["op"] == "linear")


def test_a_wrapper_named_like_a_norm_gives_no_norm_role(tmp_path):
    """`PreNorm(d, fn)` (a norm and the sublayer it feeds): its LayerNorm's
    output is the norm, the wrapper's output (the sublayer's) is not."""
    forward = """        x = x + self.attn(x)
        x = x + self.mlp(self.ln_2(x))"""
    path = tmp_path / "prenorm_wrapper.py"
    text = BLOCK.format(split="prenorm_wrapper", q=GOOD_Q, forward=forward)
    text = text.replace("self.attn = Attn(d)", "self.attn = PreNorm(d, Attn(d))")
    text = text.replace("class Block(nn.Module):", """class PreNorm(nn.Module):
    def __init__(self, d, fn):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class Block(nn.Module):""")
    path.write_text(text, encoding="utf-8")
    rc, log = export(tmp_path, path)
    assert rc == 0
    normed = [e["path"] for e in log if e["kind"] == "event" and e.get("role") == "norm"]
    assert normed and all(p.endswith("norm.layernorm") or ".ln_" in p for p in normed), normed
