"""Re-measures every figure of the book's performance chapter on this
machine and writes the chapter's tables, with the date and the machine.

Everything between `<!-- perf:start -->` and `<!-- perf:end -->` in
docs/src/performance.md is replaced: no row of an older run survives
beside the new ones. The rest of the chapter (what each bench measures,
how to read it) is prose without figures.

What it runs, in order:
  1. `cargo bench --bench B` for each bench (default: render, trace,
     system_alloc, compare, decode, tinyllama); each figure is criterion's
     mean with its 95% interval, read from target/criterion/**/new/
     (benchmark.json for the id, estimates.json for the times), only from
     files this run wrote. decode and tinyllama use seeded weights of
     TinyLlama-1.1B's shape unless --tinyllama DIR names a checkpoint
     (scripts/make_tinyllama_checkpoint.py).
  2. with --peak: scripts/peak_memory.sh (GNU time's peak resident set);
  3. with --torch PYTHON (a Python with torch): scripts/bench_torch.py
     and its --linear rows, the PyTorch side of the same shapes.

Run from anywhere:
    python3 scripts/perf_chapter.py [--peak] [--torch .venv/bin/python]
    python3 scripts/perf_chapter.py --benches render,trace   # some benches
    python3 scripts/perf_chapter.py --dry-run                # print, write nothing

Bad input (an unknown bench, a chapter without its markers, a Python
without torch) is refused in one line on stderr with exit code 2, before
anything runs; the chapter is written whole (a temp file, then a rename)
or not at all.
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTER = ROOT / "docs" / "src" / "performance.md"
START, END = "<!-- perf:start -->", "<!-- perf:end -->"
BENCHES = ["render", "trace", "system_alloc", "compare", "decode", "tinyllama"]


class Refused(Exception):
    """Bad input: one line, exit 2."""


def between(text, start=START, end=END):
    """(before, inside, after) of the marked part of `text`."""
    if text.count(start) != 1 or text.count(end) != 1:
        raise Refused(
            f"the chapter must hold {start} and {end} once each; "
            f"found {text.count(start)} and {text.count(end)}"
        )
    head, rest = text.split(start)
    inside, tail = rest.split(end)
    return head, inside, tail


def replace_tables(text, tables):
    """`text` with the marked part replaced by `tables`."""
    head, _, tail = between(text)
    return f"{head}{START}\n{tables.strip()}\n{END}{tail}"


def write_whole(path, text):
    """Writes `text` to `path` through a temp file and a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def duration(ns):
    """A time in nanoseconds, in the unit that suits it."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}" if ns / scale < 100 else f"{ns / scale:.0f} {unit}"
    return f"{ns:.0f} ns"


def criterion_rows(criterion_dir, since):
    """(id, mean, low, high) in ns of every benchmark criterion wrote under
    `criterion_dir` at or after `since` (seconds since the epoch)."""
    rows = []
    for bench in sorted(pathlib.Path(criterion_dir).glob("**/new/benchmark.json")):
        estimates = bench.with_name("estimates.json")
        if not estimates.is_file() or estimates.stat().st_mtime < since:
            continue
        full_id = json.loads(bench.read_text())["full_id"]
        mean = json.loads(estimates.read_text())["mean"]
        ci = mean["confidence_interval"]
        rows.append((full_id, mean["point_estimate"], ci["lower_bound"], ci["upper_bound"]))
    return rows


# What each bench measures, by the start of its criterion id; the bench
# files (benches/*.rs) say the same at more length.
WHAT = [
    ("render lesson screen", "the full stepper screen drawn once (lesson model)"),
    ("lesson trace and checks", "shapetrace::run on the lesson model: the traced forward, every check, both probes and reference"),
    ("shape-only trace gpt2-xl", "shape-only trace of GPT-2 XL: 48 blocks, T 1024"),
    ("shape-only trace llama-2-70b-sized", "shape-only trace, LLaMA-2-70B-sized: 80 blocks, d 8192, 64 heads, 8 K/V heads, SwiGLU 28672, T 4096"),
    ("gpt2-small numeric/trace", "GPT-2-small's 12 blocks (d 768, B 1), numeric: seeded weights built, then the traced forward"),
    ("gpt2-small numeric/forward", "GPT-2-small's 12 blocks, numeric: the traced forward alone (weights built once)"),
    ("gpt2-small numeric, system allocator", "the same forward with the C library's malloc instead of mimalloc"),
    ("gpt2-small bare matmuls", "every product of that forward alone, into outputs allocated once"),
    ("gpt2-small linear matmuls", "the linear layers' products alone"),
    ("compare/", "shapetrace compare of two shape-only traces at depth: alignment and budgets"),
    ("decode/", "one decode step of a TinyLlama-1.1B-shaped model at a key/value cache of 256, traced"),
    ("tinyllama/forward", "a TinyLlama-1.1B-shaped model, B 1, T 256, token ids to logits, traced"),
    ("tinyllama/linear products", "one TinyLlama block's seven linear products, T 256"),
]


def what(full_id):
    return next((w for prefix, w in WHAT if full_id.startswith(prefix)), "")


def criterion_table(rows):
    lines = [
        "| what it measures | criterion id (`cargo bench --bench …`) | mean | 95% interval |",
        "| --- | --- | --- | --- |",
    ]
    for full_id, mean, low, high in rows:
        lines.append(
            f"| {what(full_id)} | `{full_id}` | {duration(mean)} | {duration(low)} – {duration(high)} |"
        )
    return "\n".join(lines)


def run(cmd, env=None):
    """Runs `cmd`, its output shown as it comes; its stdout, or exit 1."""
    print("$", " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    sys.stderr.write(p.stdout)
    if p.returncode != 0:
        print(f"perf_chapter.py: failed ({p.returncode}): {' '.join(map(str, cmd))}", file=sys.stderr)
        sys.exit(1)
    return p.stdout


def machine():
    """One paragraph naming this machine, read from /proc and lscpu."""
    info = {}
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
    except FileNotFoundError:
        pass
    mem = ""
    meminfo = pathlib.Path("/proc/meminfo")
    if meminfo.is_file():
        kib = int(re.search(r"MemTotal:\s+(\d+)", meminfo.read_text()).group(1))
        mem = f", {kib / 1024 ** 2:.1f} GiB of memory"
    flags = info.get("Flags", "").split()
    units = [u for u in ("avx512f", "avx2", "fma", "neon", "asimd") if u in flags]
    cache = ", ".join(
        f"{k.split()[0]} {info[k]}" for k in ("L2 cache", "L3 cache") if k in info
    )
    rustc = subprocess.run(["rustc", "-V"], capture_output=True, text=True).stdout.strip()
    return (
        f"{info.get('Model name', platform.processor() or platform.machine())}, "
        f"{os.cpu_count()} cores ({info.get('CPU family', '?')}/{info.get('Model', '?')}"
        f"{'; ' + ', '.join(units) if units else ''}{'; ' + cache if cache else ''}){mem}; "
        f"{platform.system()} {platform.release()}; {rustc}"
    )


def commit():
    sha = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode != 0
    return f"{sha}{' with uncommitted changes' if dirty else ''}" if sha else "unknown"


def load():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def torch_rows(python):
    """The PyTorch rows, as bench_torch.py prints them."""
    out = run([python, "scripts/bench_torch.py"]) + run([python, "scripts/bench_torch.py", "--linear"])
    return [line.strip() for line in out.splitlines() if line.startswith(("T=", "torch "))]


def peak_rows(python, tinyllama):
    env = dict(os.environ, PYTHON=python, RUNS="2")
    if tinyllama:
        env["TINYLLAMA"] = str(tinyllama)
    out = run(["bash", "scripts/peak_memory.sh"], env=env)
    return [line for line in out.splitlines() if ": peak " in line]


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--benches", default=",".join(BENCHES), help=f"comma-separated, of {', '.join(BENCHES)}")
    ap.add_argument("--chapter", type=pathlib.Path, default=CHAPTER)
    ap.add_argument("--peak", action="store_true", help="also scripts/peak_memory.sh")
    ap.add_argument("--torch", metavar="PYTHON", help="a Python with torch: also the PyTorch rows")
    ap.add_argument("--tinyllama", metavar="DIR", type=pathlib.Path, help="a TinyLlama-shaped checkpoint")
    ap.add_argument("--dry-run", action="store_true", help="print the tables, write nothing")
    args = ap.parse_args(argv)
    args.benches = [b for b in args.benches.split(",") if b]
    for b in args.benches:
        if b not in BENCHES:
            raise Refused(f"'{b}' is not a bench; allowed: {', '.join(BENCHES)}")
    if not args.chapter.is_file():
        raise Refused(f"'{args.chapter}' is not a file; allowed: the performance chapter (default {CHAPTER})")
    between(args.chapter.read_text())
    for python in filter(None, [args.torch]):
        if subprocess.run([python, "-c", "import torch"], capture_output=True).returncode != 0:
            raise Refused(f"'{python}' cannot import torch; allowed: a Python with torch")
    if args.peak and subprocess.run(
        [args.torch or sys.executable, "-c", "import numpy, safetensors"], capture_output=True
    ).returncode != 0:
        raise Refused("--peak needs numpy and safetensors in the Python given by --torch (or this one)")
    if args.tinyllama and not (args.tinyllama / "config.json").is_file():
        raise Refused(f"'{args.tinyllama}' holds no config.json; allowed: a folder from scripts/make_tinyllama_checkpoint.py")
    return args


def tinyllama_note(args):
    """What the TinyLlama-shaped rows read, when any ran."""
    if not {"decode", "tinyllama"} & set(args.benches):
        return ""
    if args.tinyllama:
        return " The TinyLlama rows read the checkpoint given by --tinyllama."
    return " The TinyLlama rows use seeded weights of its shape (no --tinyllama)."


def tables(args, when, load_before, load_after, crit, peaks, torch):
    parts = [
        f"Measured on {when:%Y-%m-%d %H:%M} UTC at commit {commit()}, by "
        f"`python3 scripts/perf_chapter.py"
        f"{' --benches ' + ','.join(args.benches) if args.benches != BENCHES else ''}"
        f"{' --peak' if args.peak else ''}"
        f"{' --torch PYTHON' if args.torch else ''}{' --tinyllama DIR' if args.tinyllama else ''}`, on: "
        f"{machine()}. Load average {load_before:.1f} before and {load_after:.1f} after "
        f"(on this many cores a load above about the core count means other work shared the run)."
        f"{tinyllama_note(args)}",
        "",
        criterion_table(crit),
    ]
    if peaks:
        parts += ["", "Peak resident memory (`scripts/peak_memory.sh`, two runs each, MB = 10⁶ bytes):", ""]
        parts += ["| run | peaks |", "| --- | --- |"]
        for line in peaks:
            label, _, figures = line.partition(": peak ")
            parts.append(f"| {label} | {figures} |")
    if torch:
        parts += ["", "PyTorch on the same machine (`scripts/bench_torch.py`, `--linear`):", "", "```text"]
        parts += torch + ["```"]
    return "\n".join(parts)


def main(argv=None):
    try:
        args = parse_args(argv)
    except Refused as e:
        print(f"perf_chapter.py: {e}", file=sys.stderr)
        return 2
    when = datetime.datetime.now(datetime.timezone.utc)
    load_before = load()
    env = dict(os.environ)
    if args.tinyllama:
        env["SHAPETRACE_TINYLLAMA"] = str(args.tinyllama)
    target = pathlib.Path(env.get("CARGO_TARGET_DIR", ROOT / "target"))
    since = time.time()
    for bench in args.benches:
        run(["cargo", "bench", "--bench", bench], env=env)
    crit = criterion_rows(target / "criterion", since)
    peaks = peak_rows(args.torch or sys.executable, args.tinyllama) if args.peak else []
    torch = torch_rows(args.torch) if args.torch else []
    text = tables(args, when, load_before, load(), crit, peaks, torch)
    if args.dry_run:
        print(text)
        return 0
    write_whole(args.chapter, replace_tables(args.chapter.read_text(), text))
    print(f"perf_chapter.py: wrote {len(crit)} criterion rows to {args.chapter}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
