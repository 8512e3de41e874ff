"""scripts/perf_chapter.py: the chapter's tables replaced whole, only this
run's criterion figures read, and bad input refused before anything runs."""

from __future__ import annotations

import json
import os

import pytest

import perf_chapter as pc

CHAPTER = """# Performance

How to read it.

<!-- perf:start -->
| old row | 9.9 ms | measured on an earlier machine |
<!-- perf:end -->

What the benches measure.
"""


def test_the_marked_part_is_replaced_and_no_old_row_survives():
    out = pc.replace_tables(CHAPTER, "| new | 1 ms |")
    assert "old row" not in out
    assert "| new | 1 ms |" in out
    assert out.startswith("# Performance\n\nHow to read it.\n\n<!-- perf:start -->\n")
    assert out.endswith("<!-- perf:end -->\n\nWhat the benches measure.\n")


@pytest.mark.parametrize("text", [CHAPTER.replace(pc.END, ""), CHAPTER + pc.START, "no markers"])
def test_a_chapter_without_its_markers_once_each_is_refused(text):
    with pytest.raises(pc.Refused, match="must hold"):
        pc.replace_tables(text, "x")


def bench(root, group, name, mean, mtime):
    d = root / group / name / "new"
    d.mkdir(parents=True)
    (d / "benchmark.json").write_text(json.dumps({"full_id": f"{group}/{name}"}))
    est = {"mean": {"point_estimate": mean, "confidence_interval": {"lower_bound": mean * 0.9, "upper_bound": mean * 1.1}}}
    (d / "estimates.json").write_text(json.dumps(est))
    os.utime(d / "estimates.json", (mtime, mtime))


def test_only_figures_written_by_this_run_are_read(tmp_path):
    bench(tmp_path, "trace", "fresh", 2.5e6, mtime=2_000)
    bench(tmp_path, "trace", "stale", 7.0e6, mtime=1_000)
    rows = pc.criterion_rows(tmp_path, since=1_500)
    assert rows == [("trace/fresh", 2.5e6, 2.25e6, 2.75e6)]
    table = pc.criterion_table(rows)
    assert "| `trace/fresh` | 2.5 ms | 2.25 ms – 2.75 ms |" in table
    assert pc.what("gpt2-small numeric/forward T=1024 (weights built)").startswith("GPT-2-small")
    assert "stale" not in table


@pytest.mark.parametrize(
    "ns, shown",
    [(12.0, "12 ns"), (3_400.0, "3.4 µs"), (9.9e6, "9.9 ms"), (1.68e9, "1.68 s"), (250e6, "250 ms")],
)
def test_durations_take_the_unit_that_suits_them(ns, shown):
    assert pc.duration(ns) == shown


def test_bad_input_is_refused_in_one_line_with_exit_2_and_the_chapter_untouched(tmp_path, capsys):
    chapter = tmp_path / "performance.md"
    chapter.write_text(CHAPTER)
    assert pc.main(["--chapter", str(chapter), "--benches", "render,nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nosuch' is not a bench; allowed: render, trace" in err
    assert chapter.read_text() == CHAPTER
    chapter.write_text("no markers")
    assert pc.main(["--chapter", str(chapter), "--benches", "render"]) == 2
    assert "must hold <!-- perf:start -->" in capsys.readouterr().err
    assert pc.main(["--chapter", str(tmp_path / "missing.md")]) == 2
    assert "is not a file" in capsys.readouterr().err


def test_the_whole_write_leaves_no_temp_file(tmp_path):
    chapter = tmp_path / "performance.md"
    chapter.write_text(CHAPTER)
    pc.write_whole(chapter, pc.replace_tables(CHAPTER, "| new |"))
    assert [p.name for p in tmp_path.iterdir()] == ["performance.md"]
    assert "| new |" in chapter.read_text()
