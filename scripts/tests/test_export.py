"""The exporter's bad-input table and its good paths (issue 27).

Every bad input ends in one line ``shapetrace_export: …`` on stderr naming
the value and what is allowed, exit 2, with no file replaced, truncated or
left behind. Each case is a function that asserts all of that; it runs
against the exporter as it is (and must pass) and against a "mutant", the
exporter with one fix undone (and must fail), so no case is one that cannot
fail.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import shapetrace_export as ex

EXPORTER = Path(ex.__file__)
GOOD = ("stud.py:Model", "--input", "2,4,64")


# -- helpers -------------------------------------------------------------------

def run(capsys, *args) -> tuple[int, str, str]:
    """The exporter's main() in this process: exit code, stdout, stderr."""
    rc = ex.main([str(a) for a in args])
    got = capsys.readouterr()
    return rc, got.out, got.err


# What the exporter says of the nanoGPT-style student's probes, and how many
# lines its log holds: the header, 58 events, 4 + 7 × 4 evidence lines, the summary.
EVIDENCE = "evidence: causality 4 tokens moved, positionwise 7 modules × 4 tokens moved"
LINES = 1 + 58 + 4 + 7 * 4 + 1


def assert_one_line(err: str, message: str) -> None:
    assert err == f"shapetrace_export: {message}\n"


def assert_no_temp(folder: Path) -> None:
    left = [p for p in os.listdir(folder) if p.endswith(".tmp")]
    assert not left, f"temp files left behind: {left}"


def snapshot(path: Path) -> tuple:
    """What must not change about a file: its type, inode, mode and bytes."""
    st = os.lstat(path)
    body = path.read_bytes() if stat.S_ISREG(st.st_mode) else None
    return stat.S_IFMT(st.st_mode), st.st_ino, stat.S_IMODE(st.st_mode), st.st_rdev, body


def read_log(path: Path) -> list[dict]:
    """Every line as strict JSON (NaN and ±Infinity refused)."""
    def refuse(c):
        raise AssertionError(f"{c} is not JSON")
    return [json.loads(line, parse_constant=refuse) for line in path.read_text(encoding="utf-8").splitlines()]


def mknod(path: Path, kind: int, major: int, minor: int) -> Path:
    try:
        os.mknod(path, kind | 0o666, os.makedev(major, minor))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return path


class FifoReader(threading.Thread):
    """Reads a FIFO until its writer closes it, without ever blocking in open(),
    so a FIFO replaced by a file cannot hang the test."""

    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = b""
        self.stop = threading.Event()
        self.start()

    def run(self):
        deadline = time.monotonic() + 60
        while not self.stop.is_set() and time.monotonic() < deadline:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:  # a writer is there, nothing to read yet
                time.sleep(0.005)
                continue
            if chunk:
                self.data += chunk
            elif self.data:  # the writer closed it
                break
            else:  # no writer yet
                time.sleep(0.005)
        os.close(self.fd)

    def result(self) -> bytes:
        self.join(10)
        return self.data


# -- mutants: the exporter with one fix undone ------------------------------------

def _renames_everything(out, inputs=()):
    """Issue 27's writer: every --out a temp file renamed over the path given."""
    return ex.Output._staged(out, os.path.abspath(out))


def _old_commit(self, data):
    """The old staged write: a new file's mode, not the target's."""
    ex._write_all(self.fd, data)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(self.fd, 0o666 & ~umask)
    os.close(self.fd)
    self.fd = None
    os.replace(self.tmp, self.path)
    self.tmp = None


def _truncating_commit(self, data):
    """A writer that writes into the target itself."""
    fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC)
    try:
        ex._write_all(fd, data)
    finally:
        os.close(fd)


def _old_stats(t):
    v = t.detach().to(ex.torch.float64).reshape(-1)
    v = v[ex.torch.isfinite(v)]
    return {"min": float(v.min()), "max": float(v.max()), "mean": float(v.mean()),
            "std": float(v.std(unbiased=False)), "finite": True}


def _old_input_shape(text):
    dims = tuple(int(p) for p in text.split(","))
    if len(dims) != 3 or any(d < 1 for d in dims):
        raise ex._Usage("bad")
    return dims


def _raw_mkstemp(out, target):
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target))
    return ex.Output(out, "staged", path=target, fd=fd, tmp=tmp)


def _any_size(lines):
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _long_temp_name(cls, out, target):
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp",
                               dir=os.path.dirname(target))
    return cls(out, "staged", path=target, fd=fd, tmp=tmp)


def _overflowing_stats(t):
    """The scale of the old _stats: 2.0 ** e, which overflows for a finite value of 2^1023 or more."""
    import math
    v = t.detach().to(ex.torch.float64).reshape(-1)
    finite = not bool((ex.torch.isnan(v) | (v == float("inf"))).any())
    v = v[ex.torch.isfinite(v)]
    scale = 1.0
    biggest = float(v.abs().max())
    if biggest > 2.0**500:
        scale = 2.0 ** math.frexp(biggest)[1]
        v = v / scale
    return {"min": float(v.min()) * scale, "max": float(v.max()) * scale, "mean": float(v.mean()) * scale,
            "std": float(v.std(unbiased=False)) * scale, "finite": finite}


def _old_failure_line(e):
    return f"the exporter failed: {ex.shown(type(e).__name__)}: {ex.one_line(e)} (no log written; please report it)"


MUTANTS = {
    "renames everything": [("Output.prepare", staticmethod(_renames_everything))],
    "keeps no mode": [("Output._commit", _old_commit)],
    "writes in place": [("Output._commit", _truncating_commit)],
    "leaves its temp file": [("Output.discard", lambda self: None)],
    "shows raw text": [("shown", lambda s, cap=80: str(s))],
    "draws any input": [("check_input_size", lambda *a: None)],
    "old stats": [("_stats", _old_stats)],
    "int() parses input": [("_input_shape", _old_input_shape)],
    "writes any size": [("_serialize", _any_size)],
    "long temp name": [("Output._staged", classmethod(_long_temp_name))],
    "checks no sources": [("check_sources", lambda *a: None)],
    "scale 2^e": [("_stats", _overflowing_stats)],
    "ignores ulimit -v": [("_address_space", lambda: None)],
    "allocation is a bug": [("_failure_line", _old_failure_line)],
    "raw OSError": [("Output._staged", classmethod(lambda cls, out, target: _raw_mkstemp(out, target)))],
}


def apply(monkeypatch, mutant: str) -> None:
    for name, value in MUTANTS[mutant]:
        owner, _, attr = name.rpartition(".")
        monkeypatch.setattr(getattr(ex, owner) if owner else ex, attr, value)


# -- the bad-input table: each case asserts exit 2, one line, the files' state ---

def case_out_is_the_model_file(stud, capsys):
    before = snapshot(stud)
    rc, out, err = run(capsys, *GOOD, "--out", "stud.py")
    assert (rc, out) == (2, "")
    assert_one_line(err, "--out 'stud.py' is the model file; allowed: an output path that is no input")
    assert snapshot(stud) == before
    assert not (stud.parent / "imported").exists(), "refused only after importing the model"
    assert_no_temp(stud.parent)


def case_out_is_a_symlink_to_the_model(stud, capsys):
    os.symlink("stud.py", stud.parent / "link.py")
    before = snapshot(stud)
    rc, _, err = run(capsys, *GOOD, "--out", "link.py")
    assert rc == 2
    assert_one_line(err, "--out 'link.py' is the model file; allowed: an output path that is no input")
    assert snapshot(stud) == before and os.path.islink(stud.parent / "link.py")
    assert_no_temp(stud.parent)


def case_out_is_a_hard_link_to_the_model(stud, capsys):
    os.link(stud, stud.parent / "hard.py")
    before = snapshot(stud)
    rc, _, err = run(capsys, *GOOD, "--out", "hard.py")
    assert rc == 2
    assert_one_line(err, "--out 'hard.py' is the model file; allowed: an output path that is no input")
    assert snapshot(stud) == before
    assert_no_temp(stud.parent)


def case_out_is_the_model_by_another_path(stud, capsys):
    (stud.parent / "sub").mkdir()
    before = snapshot(stud)
    rc, _, err = run(capsys, *GOOD, "--out", "sub/../stud.py")
    assert rc == 2
    assert_one_line(err, "--out 'sub/../stud.py' is the model file; allowed: an output path that is no input")
    assert snapshot(stud) == before


def case_fifo_gets_the_log_in_place(stud, capsys):
    fifo = stud.parent / "pipe"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    try:
        rc, out, err = run(capsys, *GOOD, "--out", "pipe")
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
        lines = reader.result().decode().splitlines()
    finally:
        reader.stop.set()
    assert (rc, err) == (0, "")
    assert out.startswith("pipe: ")
    assert json.loads(lines[0])["kind"] == "header" and json.loads(lines[-1])["kind"] == "summary"
    assert_no_temp(stud.parent)


def case_full_device_refuses_the_write(stud, capsys):
    full = mknod(stud.parent / "full", stat.S_IFCHR, 1, 7)
    before = snapshot(full)
    rc, out, err = run(capsys, *GOOD, "--out", "full")
    assert (rc, out) == (2, "")
    assert_one_line(err, "--out 'full' cannot be written: No space left on device")
    assert snapshot(full) == before, "the device node was replaced"
    assert_no_temp(stud.parent)


def case_null_device_is_written_in_place(stud, capsys):
    null = mknod(stud.parent / "null", stat.S_IFCHR, 1, 3)
    before = snapshot(null)
    rc, out, err = run(capsys, *GOOD, "--out", "null")
    assert (rc, err) == (0, "") and out.startswith("null: 58 events")
    assert snapshot(null) == before, "the device node was replaced"
    assert_no_temp(stud.parent)


def case_block_device_is_refused(stud, capsys):
    blk = mknod(stud.parent / "disk", stat.S_IFBLK, 7, 0)
    before = snapshot(blk)
    rc, _, err = run(capsys, *GOOD, "--out", "disk")
    assert rc == 2
    assert_one_line(err, "--out 'disk' is a block device (writing into a disk destroys it); allowed: a file, "
                         "a character device, a FIFO or an inherited descriptor")
    assert snapshot(blk) == before
    assert not (stud.parent / "imported").exists()


def case_socket_is_not_replaced(stud, capsys):
    path = stud.parent / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    try:
        before = snapshot(path)
        rc, _, err = run(capsys, *GOOD, "--out", "sock")
    finally:
        s.close()
    assert rc == 2
    assert_one_line(err, "--out 'sock' cannot be written: No such device or address")
    assert snapshot(path) == before


def case_failed_write_leaves_the_target(stud, capsys, monkeypatch):
    target = stud.parent / "mine.jsonl"
    target.write_text("the old log\n")
    os.chmod(target, 0o640)
    before = snapshot(target)

    def half_then_full(fd, data):
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(ex, "_write_all", half_then_full)
    rc, out, err = run(capsys, *GOOD, "--out", "mine.jsonl")
    assert (rc, out) == (2, "")
    assert_one_line(err, "--out 'mine.jsonl' cannot be written: No space left on device")
    assert snapshot(target) == before
    assert_no_temp(stud.parent)


def case_existing_file_keeps_its_mode(stud, capsys):
    target = stud.parent / "mine.jsonl"
    target.write_text("the old log\n")
    os.chmod(target, 0o640)
    rc, _, err = run(capsys, *GOOD, "--out", "mine.jsonl")
    assert (rc, err) == (0, "")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert read_log(target)[0]["kind"] == "header"
    assert_no_temp(stud.parent)


def case_symlinked_output_stays_a_link(stud, capsys):
    (stud.parent / "logs").mkdir()
    os.symlink("logs/real.jsonl", stud.parent / "mine.jsonl")
    rc, _, err = run(capsys, *GOOD, "--out", "mine.jsonl")
    assert (rc, err) == (0, "")
    assert os.path.islink(stud.parent / "mine.jsonl"), "the symlink was replaced"
    assert read_log(stud.parent / "logs" / "real.jsonl")[-1]["kind"] == "summary"


def case_unwritable_folder(stud, capsys):
    folder = stud.parent / "ro"
    folder.mkdir()
    os.chmod(folder, 0o555)
    if os.access(folder, os.W_OK):  # root writes anyway: a folder no one may write
        folder = Path("/sys")
    target = folder / "x.jsonl"
    rc, _, err = run(capsys, *GOOD, "--out", target)
    assert rc == 2
    assert_one_line(err, f"--out {ex._q(str(target))} cannot be written: cannot create a file in "
                         f"{ex._q(os.path.realpath(folder))}: Permission denied")
    assert not target.exists()
    assert not (stud.parent / "imported").exists()


def case_missing_folder(stud, capsys):
    rc, _, err = run(capsys, *GOOD, "--out", "nope/x.jsonl")
    assert rc == 2
    assert_one_line(err, "--out 'nope/x.jsonl': folder 'nope' does not exist; allowed: a file in an existing folder")
    assert not (stud.parent / "nope").exists()


def case_input_too_large(stud, capsys):
    rc, _, err = run(capsys, "stud.py:Model", "--input", "100000,100000,100000", "--out", "x.jsonl")
    assert rc == 2
    assert_one_line(err, "--input '100000,100000,100000' is 1000000000000000 elements; "
                         "allowed: B·T·d at most 268435456 (2^28)")
    assert not (stud.parent / "x.jsonl").exists()


def case_input_beyond_free_memory(stud, capsys, monkeypatch):
    monkeypatch.setattr(ex, "_available_memory", lambda: 1 << 20)
    rc, _, err = run(capsys, "stud.py:Model", "--input", "64,64,64", "--out", "x.jsonl")
    assert rc == 2
    assert_one_line(err, "--input '64,64,64' needs at least 4.0 MiB for x and its copies, more than the "
                         "1.0 MiB free; allowed: a smaller B,T,d")


def case_input_with_underscores(stud, capsys):
    rc, _, err = run(capsys, "stud.py:Model", "--input", "1_0,4,64", "--out", "x.jsonl")
    assert rc == 2
    assert_one_line(err, "--input '1_0,4,64' is not B,T,d; allowed: three positive integers, e.g. 2,4,64")
    assert not (stud.parent / "x.jsonl").exists()


BIG = """
import torch
from torch import nn
class Model(nn.Module):
    def forward(self, x):
        return x * 1e307
"""


def case_values_near_the_f64_maximum(stud, capsys):
    (stud.parent / "big.py").write_text(BIG)
    rc, out, err = run(capsys, "big.py:Model", "--input", "4,8,64", "--dtype", "f64", "--out", "big.jsonl")
    assert (rc, err) == (0, ""), err
    events = [line for line in read_log(stud.parent / "big.jsonl") if line["kind"] == "event"]
    s = events[-1]["stats"]
    assert s["finite"] and 1e307 < s["max"] < 1.8e308 and -1.8e308 < s["min"] < -1e307
    assert abs(s["mean"]) < 1e307 and 5e306 < s["std"] < 1.8e308


BIGGEST = """
import torch
from torch import nn
class Model(nn.Module):
    def forward(self, x):
        return x.clamp(-1, 1) * 1.7e308
"""


def case_values_of_2_to_the_1023_or_more(stud, capsys):
    (stud.parent / "biggest.py").write_text(BIGGEST)
    rc, out, err = run(capsys, "biggest.py:Model", "--input", "4,8,64", "--dtype", "f64", "--out", "biggest.jsonl")
    assert (rc, err) == (0, ""), out + err
    events = [line for line in read_log(stud.parent / "biggest.jsonl") if line["kind"] == "event"]
    s = events[-1]["stats"]
    assert s["finite"] and (s["min"], s["max"]) == (-1.7e308, 1.7e308)
    assert abs(s["mean"]) < 1.7e308 and 1e307 < s["std"] < 1.7e308


HELPER = """
from torch import nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 64)
    def forward(self, x):
        return self.lin(x)
"""


def _fresh(*names):
    """Forgets modules a case's model imports, so it imports its own files."""
    for name in list(sys.modules):
        if name.split(".")[0] in names:
            del sys.modules[name]


def test_stats_at_the_f64_maximum():
    biggest = ex.torch.finfo(ex.torch.float64).max
    s = ex._stats(ex.torch.tensor([biggest, -biggest] * 5 + [float("-inf")], dtype=ex.torch.float64))
    assert s == {"min": -biggest, "max": biggest, "mean": 0.0, "std": biggest, "finite": True}


def case_out_is_the_module_the_class_lives_in(stud, capsys):
    (stud.parent / "helper.py").write_text(HELPER)
    (stud.parent / "stud2.py").write_text("from helper import Model\n")
    before = snapshot(stud.parent / "helper.py")
    _fresh("helper")
    try:
        rc, out, err = run(capsys, "stud2.py:Model", "--input", "2,4,64", "--out", "helper.py")
    finally:
        _fresh("helper")
    assert (rc, out) == (2, "")
    assert_one_line(err, "--out 'helper.py' is a source file of the model (helper.py); "
                         "allowed: an output path that is no input")
    assert snapshot(stud.parent / "helper.py") == before
    assert_no_temp(stud.parent)


def case_out_is_a_module_loaded_from_below_the_model(stud, capsys):
    pkg = stud.parent / "stpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text("WIDTH = 64\n")
    (stud.parent / "stud3.py").write_text("import torch\nfrom stpkg.util import WIDTH\n"
                                          "class Model(torch.nn.Linear):\n    def __init__(self):\n"
                                          "        super().__init__(WIDTH, WIDTH)\n")
    os.link(pkg / "util.py", stud.parent / "util-link.py")
    before = snapshot(pkg / "util.py")
    _fresh("stpkg")
    try:
        rc, out, err = run(capsys, "stud3.py:Model", "--input", "2,4,64", "--out", "util-link.py")
    finally:
        _fresh("stpkg")
    assert (rc, out) == (2, "")
    assert_one_line(err, "--out 'util-link.py' is a source file of the model (stpkg/util.py); "
                         "allowed: an output path that is no input")
    assert snapshot(pkg / "util.py") == before
    assert_no_temp(stud.parent)
    assert_no_temp(pkg)


def case_input_beyond_the_address_space(stud, capsys, monkeypatch):
    import resource
    limit = 6000000 * 1024  # ulimit -v 6000000
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limit, limit) if which == resource.RLIMIT_AS
                        else (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    monkeypatch.setattr(ex, "_available_memory", lambda: None)

    def loads(*a, **kw):
        raise AssertionError("not refused before the model was loaded")
    monkeypatch.setattr(ex, "_export", loads)
    rc, out, err = run(capsys, "stud.py:Model", "--input", "16384,16384,1", "--out", "x.jsonl")
    assert (rc, out) == (2, "")
    assert err.startswith("shapetrace_export: --input '16384,16384,1' needs at least 4.0 GiB for x and its "
                          "copies, more than the ")
    assert err.endswith(" left under the address-space limit (ulimit -v 6000000, 5.7 GiB); allowed: a smaller "
                        "B,T,d or a higher ulimit -v\n") and err.count("\n") == 1
    assert not (stud.parent / "x.jsonl").exists()


def case_allocation_failure_is_one_line(stud, capsys, monkeypatch):
    def no_memory(*a, **kw):
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
                           "memory: you tried to allocate 2147483648 bytes.\nError code 12")
    monkeypatch.setattr(ex.torch, "randn", no_memory)
    rc, out, err = run(capsys, *GOOD, "--out", "x.jsonl")
    assert (rc, out) == (2, "")
    assert_one_line(err, "out of memory: RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. "
                         "DefaultCPUAllocator: can't allocate memory: you tried to allocate 2147483648 bytes. "
                         "(no log written); allowed: a smaller --input or model")
    assert not (stud.parent / "x.jsonl").exists()
    assert_no_temp(stud.parent)


def case_escapes_in_the_out_name(stud, capsys):
    folder = "no\x1b[2Jpe\u202e"
    rc, _, err = run(capsys, *GOOD, "--out", folder + "/a\nb.jsonl")
    assert rc == 2
    assert_one_line(err, "--out 'no\\u{1b}[2Jpe\\u{202e}/a\\nb.jsonl': folder 'no\\u{1b}[2Jpe\\u{202e}' "
                         "does not exist; allowed: a file in an existing folder")
    assert "\x1b" not in err and "\u202e" not in err


def case_escapes_in_an_exception(stud, capsys):
    (stud.parent / "bad.py").write_text(
        "def make():\n    raise ValueError('bad \\x1b]0;owned\\x07 \\u202eend\\x85.\\nsecond line')\n")
    rc, _, err = run(capsys, "bad.py:make", "--input", "2,4,64", "--out", "x.jsonl")
    assert rc == 2
    assert_one_line(err, "bad.py:make() raised ValueError: bad \\u{1b}]0;owned\\u{7} \\u{202e}end\\u{85}.")


def case_long_value_is_cut(stud, capsys):
    name = "x" * 200 + "/y.jsonl"
    rc, _, err = run(capsys, *GOOD, "--out", name)
    assert rc == 2
    assert err.startswith(f"shapetrace_export: --out '{'x' * 80}… (208 chars)': folder ")


def case_log_longer_than_shapetrace_reads(stud, capsys, monkeypatch):
    assert run(capsys, *GOOD, "--out", "whole.jsonl")[0] == 0
    whole = (stud.parent / "whole.jsonl").read_bytes()
    monkeypatch.setattr(ex, "MAX_LOG_BYTES", 16 << 10)
    assert len(whole) > 16 << 10
    rc, out, err = run(capsys, *GOOD, "--out", "mine.jsonl")
    assert (rc, out) == (2, "")
    lines = whole.count(b"\n")
    assert_one_line(err, f"the log would be {ex._human_bytes(len(whole))} ({lines} lines); "
                         "allowed: at most 16.0 KiB, what shapetrace reads: trace fewer blocks")
    assert not (stud.parent / "mine.jsonl").exists()
    assert_no_temp(stud.parent)


def case_longest_file_name(stud, capsys):
    name = "a" * 249 + ".jsonl"  # 255 bytes, the most a name may have
    rc, out, err = run(capsys, *GOOD, "--out", name)
    assert (rc, err) == (0, "")
    assert read_log(stud.parent / name)[0]["kind"] == "header"


CASES = {f.__name__[5:]: f for f in [
    case_out_is_the_model_file, case_out_is_a_symlink_to_the_model, case_out_is_a_hard_link_to_the_model,
    case_out_is_the_model_by_another_path, case_fifo_gets_the_log_in_place, case_full_device_refuses_the_write,
    case_null_device_is_written_in_place, case_block_device_is_refused, case_socket_is_not_replaced,
    case_failed_write_leaves_the_target, case_existing_file_keeps_its_mode, case_symlinked_output_stays_a_link,
    case_unwritable_folder, case_missing_folder, case_input_too_large, case_input_beyond_free_memory,
    case_input_with_underscores, case_values_near_the_f64_maximum, case_escapes_in_the_out_name,
    case_escapes_in_an_exception, case_long_value_is_cut, case_log_longer_than_shapetrace_reads,
    case_longest_file_name, case_values_of_2_to_the_1023_or_more, case_out_is_the_module_the_class_lives_in,
    case_out_is_a_module_loaded_from_below_the_model, case_input_beyond_the_address_space,
    case_allocation_failure_is_one_line,
]}


def _call(case, stud, capsys, monkeypatch):
    names = case.__code__.co_varnames[: case.__code__.co_argcount]
    kwargs = {"stud": stud, "capsys": capsys, "monkeypatch": monkeypatch}
    return case(**{k: v for k, v in kwargs.items() if k in names})


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input(name, stud, capsys, monkeypatch):
    _call(CASES[name], stud, capsys, monkeypatch)


# Each case fails with the fix it guards undone.
PAIRS = [
    ("out_is_the_model_file", "renames everything"),
    ("out_is_a_symlink_to_the_model", "renames everything"),
    ("out_is_a_hard_link_to_the_model", "renames everything"),
    ("out_is_the_model_by_another_path", "renames everything"),
    ("fifo_gets_the_log_in_place", "renames everything"),
    ("full_device_refuses_the_write", "renames everything"),
    ("null_device_is_written_in_place", "renames everything"),
    ("block_device_is_refused", "renames everything"),
    ("socket_is_not_replaced", "renames everything"),
    ("symlinked_output_stays_a_link", "renames everything"),
    ("failed_write_leaves_the_target", "writes in place"),
    ("failed_write_leaves_the_target", "leaves its temp file"),
    ("existing_file_keeps_its_mode", "keeps no mode"),
    ("unwritable_folder", "raw OSError"),
    ("missing_folder", "raw OSError"),
    ("input_too_large", "draws any input"),
    ("input_beyond_free_memory", "draws any input"),
    ("input_with_underscores", "int() parses input"),
    ("values_near_the_f64_maximum", "old stats"),
    ("escapes_in_the_out_name", "shows raw text"),
    ("escapes_in_an_exception", "shows raw text"),
    ("long_value_is_cut", "shows raw text"),
    ("log_longer_than_shapetrace_reads", "writes any size"),
    ("longest_file_name", "long temp name"),
    ("values_of_2_to_the_1023_or_more", "scale 2^e"),
    ("out_is_the_module_the_class_lives_in", "checks no sources"),
    ("out_is_a_module_loaded_from_below_the_model", "checks no sources"),
    ("input_beyond_the_address_space", "ignores ulimit -v"),
    ("allocation_failure_is_one_line", "allocation is a bug"),
]


@pytest.mark.parametrize(("name", "mutant"), PAIRS)
def test_case_fails_without_its_fix(name, mutant, stud, capsys, monkeypatch):
    apply(monkeypatch, mutant)
    with pytest.raises(AssertionError):
        _call(CASES[name], stud, capsys, monkeypatch)


def test_every_case_is_paired_with_a_mutant():
    assert {n for n, _ in PAIRS} == set(CASES)


# -- more bad arguments: one line, exit 2 -------------------------------------

@pytest.mark.parametrize("value", ["2,4", "2,4,0", "2,4,64,", " 2,4,64", "٣,4,64", "2.0,4,64", "-1,4,64",
                                   "9" * 5000 + ",1,1", ""])
def test_bad_input_shapes(value, stud, capsys):
    rc, _, err = run(capsys, "stud.py:Model", f"--input={value}", "--out", "x.jsonl")
    assert rc == 2
    assert_one_line(err, f"--input {ex._q(value)} is not B,T,d; allowed: three positive integers, e.g. 2,4,64")


@pytest.mark.parametrize(("args", "message"), [
    (["--seed", "1_0"], "--seed '1_0' is not allowed; allowed: an integer with 0 <= seed < 2**63"),
    (["--seed", str(2**63)], f"--seed '{2**63}' is not allowed; allowed: an integer with 0 <= seed < 2**63"),
    (["--dtype", "f8\x1b"], "--dtype 'f8\\u{1b}' is not allowed; allowed: f32, f64, bf16, f16"),
    (["--placement", "mid"], "--placement 'mid' is not allowed; allowed: pre, post"),
    (["--blocks", "h\x07x"], "--blocks 'h\\u{7}x' names no submodule of the model; allowed: the attribute "
                             "holding the blocks, e.g. h or transformer.h"),
])
def test_bad_options(args, message, stud, capsys):
    rc, out, err = run(capsys, *GOOD, "--out", "x.jsonl", *args)
    assert (rc, out) == (2, "")
    assert_one_line(err, message)
    assert not (stud.parent / "x.jsonl").exists()
    assert_no_temp(stud.parent)


@pytest.mark.parametrize(("spec", "message"), [
    ("nope.py:Model", "model file 'nope.py' does not exist; allowed: a Python file"),
    (".:Model", "model file '.' is not a file; allowed: a Python file"),
    ("stud.py", "model 'stud.py' is not FILE.py:NAME; allowed: e.g. student.py:Model or student.py:make_model"),
    ("stud.py:Nope", "'stud.py' has no class or function 'Nope'; allowed: a class or factory taking no arguments"),
])
def test_bad_model_specs(spec, message, stud, capsys):
    rc, _, err = run(capsys, spec, "--input", "2,4,64", "--out", "x.jsonl")
    assert rc == 2
    assert_one_line(err, message)


@pytest.mark.parametrize(("out", "message"), [
    ("", "--out '' names no file; allowed: a path to a new or existing file"),
    (".", "--out '.' is a folder; allowed: a file to write, e.g. mine.jsonl"),
    ("x.jsonl/", "--out 'x.jsonl/' is a folder; allowed: a file to write, e.g. mine.jsonl"),
    ("/dev/fd/97", "--out '/dev/fd/97' cannot be written: Bad file descriptor"),
])
def test_bad_out_paths(out, message, stud, capsys):
    rc, _, err = run(capsys, *GOOD, "--out", out)
    assert rc == 2
    assert_one_line(err, message)
    assert not (stud.parent / "imported").exists()


def test_out_over_a_file_in_the_model_folder_is_a_plain_file(stud, capsys):
    (stud.parent / "stud.py.jsonl").write_text("old")
    rc, _, _ = run(capsys, *GOOD, "--out", "stud.py.jsonl")
    assert rc == 0 and read_log(stud.parent / "stud.py.jsonl")[0]["kind"] == "header"


def test_out_is_the_exporter_itself(stud, capsys):
    before = snapshot(EXPORTER)
    rc, _, err = run(capsys, *GOOD, "--out", EXPORTER)
    assert rc == 2
    assert_one_line(err, f"--out {ex._q(str(EXPORTER))} is the exporter file; allowed: an output path that is no input")
    assert snapshot(EXPORTER) == before


# -- the escaping rule of src/text.rs ---------------------------------------

def test_shown_matches_the_rust_rule():
    assert ex.one_line(" unknown `a\nb\x1b[2J` é ") == "unknown `a"  # the first line only
    assert ex.shown("6\x1b[2J4") == "6\\u{1b}[2J4"
    assert ex.shown("2\n") == "2\\n"
    assert ex.shown("\x7f\x9b") == "\\u{7f}\\u{9b}"
    assert ex.shown(" lesson\t") == " lesson\\t"
    assert ex.shown("a\u202eb\u200bc\ufeff\u2028\u2066") == "a\\u{202e}b\\u{200b}c\\u{feff}\\u{2028}\\u{2066}"
    assert ex.shown("a\udcff\x1b.toml") == "a\\xff\\u{1b}.toml"  # a byte that is not UTF-8
    assert ex.shown("x" * 200_000) == "x" * 80 + "… (200000 chars)"
    assert ex.shown("y" * 80) == "y" * 80
    assert ex.shown("é" * 81).endswith("… (81 chars)")
    every = "".join(map(chr, range(0x110))) * 3
    assert not any(ex._hidden(c) for c in ex.escaped(every))
    assert ex.escaped(ex.escaped(every)) == ex.escaped(every)


# -- good paths ------------------------------------------------------------------

def test_nanogpt_exports_and_checks(stud, capsys, shapetrace_bin):
    rc, out, err = run(capsys, *GOOD, "--out", "mine.jsonl")
    assert (rc, err) == (0, "")
    assert out == f"mine.jsonl: 58 events, 34 departures, 4 residual adds; {EVIDENCE}; judge it with: " \
                  "shapetrace check --log mine.jsonl\n"
    lines = read_log(stud.parent / "mine.jsonl")
    assert [lines[0]["kind"], lines[-1]["kind"]] == ["header", "summary"]
    kinds = [line["kind"] for line in lines]
    # 4 tokens moved through the model, and through each of 7 norms and MLPs alone.
    assert (kinds.count("event"), kinds.count("evidence")) == (58, 4 + 7 * 4)
    assert lines[0]["stream_shape"] == [2, 4, 64] and "checks" not in lines[-1]
    assert stat.S_IMODE(os.stat(stud.parent / "mine.jsonl").st_mode) == 0o666 & ~_umask()
    assert_no_temp(stud.parent)
    if shapetrace_bin is None:
        pytest.skip("no target/*/shapetrace to check the log with")
    p = subprocess.run([shapetrace_bin, "check", "--log", "mine.jsonl"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def _umask() -> int:
    u = os.umask(0)
    os.umask(u)
    return u


def test_logs_of_hostile_models_stay_readable(stud, capsys, shapetrace_bin):
    """Values near 1e307 and a forward raising escapes: the log is one
    `check --log` and `view` read (exit 0 or 1, never a refused log)."""
    (stud.parent / "big.py").write_text(BIG)
    (stud.parent / "raises.py").write_text(
        "import torch\nclass Model(torch.nn.Module):\n"
        "    def forward(self, x):\n        raise RuntimeError('no\\x1b[31m red\\u202e' + 'x' * 5000)\n")
    assert run(capsys, "big.py:Model", "--input", "2,4,64", "--dtype", "f64", "--out", "big.jsonl")[0] == 0
    rc, out, err = run(capsys, "raises.py:Model", "--input", "2,4,64", "--out", "raises.jsonl")
    assert rc == 1 and err == ""
    assert out.startswith("raises.jsonl: 1 events, 0 departures, 0 residual adds; the forward stops at forward "
                          "(op-shapes): the forward raised RuntimeError: no\\u{1b}[31m red\\u{202e}xxx")
    assert out.count("\n") == 1 and "\x1b" not in out and "… (5012 chars)" in out
    failure = read_log(stud.parent / "raises.jsonl")[-2]
    assert failure["kind"] == "failure" and not any(ex._hidden(c) for c in failure["detail"])
    if shapetrace_bin is None:
        pytest.skip("no target/*/shapetrace to read the logs with")
    for log in ("big.jsonl", "raises.jsonl"):
        for cmd in (["check", "--log", log], ["view", "--format", "table", log]):
            p = subprocess.run([shapetrace_bin, *cmd], capture_output=True, text=True)
            assert p.returncode in (0, 1), (cmd, p.stdout, p.stderr)
            assert "finite" in p.stdout, (cmd, p.stdout)


def test_the_log_on_stdout_and_the_summary_on_stderr(stud, capfd):
    rc = ex.main([*GOOD, "--out", "-"])
    out, err = capfd.readouterr()
    assert rc == 0
    lines = out.splitlines()
    assert json.loads(lines[0])["kind"] == "header" and json.loads(lines[-1])["kind"] == "summary"
    assert err == f"-: 58 events, 34 departures, 4 residual adds; {EVIDENCE}; judge it with: shapetrace check --log -\n"


def test_an_inherited_descriptor_is_written_through(stud, capsys):
    path = stud.parent / "held.jsonl"
    with open(path, "wb") as f:
        f.write(b"kept\n")
        f.flush()
        ino = os.fstat(f.fileno()).st_ino
        rc, _, err = run(capsys, *GOOD, "--out", f"/dev/fd/{f.fileno()}")
    assert (rc, err) == (0, "")
    assert os.stat(path).st_ino == ino
    text = path.read_text()
    assert text.startswith("kept\n{") and text.count("\n") == 1 + LINES


def test_the_trace_api_keeps_the_policy(tmp_path):
    src = tmp_path / "mine.py"
    src.write_text("import torch\nclass Model(torch.nn.Linear):\n    def __init__(self):\n"
                   "        super().__init__(8, 8)\n")
    model, _ = ex._load(src, "Model")
    x = ex.torch.randn(1, 2, 8)
    before = snapshot(src)
    with pytest.raises(ex.OutputError, match="is the model file"):
        ex.trace(model, x, str(src))
    assert snapshot(src) == before
    result = ex.trace(model, x, str(tmp_path / "api.jsonl"))
    assert result.path == str(tmp_path / "api.jsonl")
    assert read_log(tmp_path / "api.jsonl")[-1]["kind"] == "summary"
    assert_no_temp(tmp_path)
    blk = mknod(tmp_path / "disk", stat.S_IFBLK, 7, 0)
    with pytest.raises(ex.OutputError, match="is a block device"):
        ex.trace(model, x, str(blk))


# -- the command line as students run it --------------------------------------

def _cli(*args, **kw):
    return subprocess.run([sys.executable, str(EXPORTER), *args], capture_output=True, text=True, **kw)


def test_cli_refuses_the_model_file_in_one_line(stud):
    before = snapshot(stud)
    p = _cli(*GOOD, "--out", "stud.py", cwd=stud.parent)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "shapetrace_export: --out 'stud.py' is the model file; allowed: an output path that is no input\n"
    assert snapshot(stud) == before


def test_cli_closed_pipe_on_the_log(stud):
    p = subprocess.Popen([sys.executable, str(EXPORTER), *GOOD, "--out", "-"], cwd=stud.parent,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before the log is written
    err = p.stderr.read().decode()
    assert p.wait() == 0, err  # quietly, as shapetrace's own --out -
    assert err == f"-: 58 events, 34 departures, 4 residual adds; {EVIDENCE}; judge it with: shapetrace check --log -\n"


def test_cli_module_beside_the_model_is_refused(stud):
    (stud.parent / "helper.py").write_text(HELPER)
    (stud.parent / "stud2.py").write_text("from helper import Model\n")
    before = snapshot(stud.parent / "helper.py")
    p = _cli("stud2.py:Model", "--input", "2,4,64", "--out", "helper.py", cwd=stud.parent)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("shapetrace_export: --out 'helper.py' is a source file of the model (helper.py); "
                        "allowed: an output path that is no input\n")
    assert snapshot(stud.parent / "helper.py") == before
    assert_no_temp(stud.parent)


def test_cli_honours_ulimit_v(stud):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (6000000 * 1024, 6000000 * 1024))
    p = _cli("stud.py:Model", "--input", "16384,16384,1", "--out", "x.jsonl", cwd=stud.parent, preexec_fn=limit)
    assert (p.returncode, p.stdout) == (2, ""), p.stderr
    assert p.stderr.startswith("shapetrace_export: --input '16384,16384,1' needs at least 4.0 GiB")
    assert "(ulimit -v 6000000, 5.7 GiB)" in p.stderr and p.stderr.count("\n") == 1
    assert not (stud.parent / "x.jsonl").exists()


SLOW = """
import pathlib, time, torch
class Model(torch.nn.Module):
    def forward(self, x):
        pathlib.Path(__file__).with_name("running").touch()
        time.sleep(120)
        return x
"""


def test_cli_signal_exits_128_plus_its_number(stud):
    """SIGTERM 143, SIGHUP 129, SIGINT 130, as shapetrace's own commands: one
    line, the temp file removed, no log. The three runs go side by side."""
    import signal
    runs = {}
    try:
        for sig in ("SIGTERM", "SIGHUP", "SIGINT"):
            folder = stud.parent / sig
            folder.mkdir()
            (folder / "slow.py").write_text(SLOW)
            runs[sig] = subprocess.Popen(
                [sys.executable, str(EXPORTER), "slow.py:Model", "--input", "2,4,64", "--out", "x.jsonl"],
                cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 90
        for sig, p in runs.items():
            while not (stud.parent / sig / "running").exists():
                assert p.poll() is None and time.monotonic() < deadline, p.communicate()
                time.sleep(0.05)
            assert any(n.endswith(".tmp") for n in os.listdir(stud.parent / sig)), "no temp file while tracing"
            p.send_signal(getattr(signal, sig))
        got = {sig: (p.wait(timeout=60), *p.communicate()) for sig, p in runs.items()}
    finally:
        for p in runs.values():
            if p.poll() is None:
                p.kill()
    for sig, code in (("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)):
        assert got[sig] == (code, b"", f"shapetrace_export: interrupted ({sig}); no log written\n".encode()), sig
        assert not (stud.parent / sig / "x.jsonl").exists()
        assert_no_temp(stud.parent / sig)
