"""Fixtures of the exporter's tests: the exporter imported from scripts/, a
student's model copied into a temp folder, the shapetrace binary if built."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1]
REPO = SCRIPTS.parent
sys.path.insert(0, str(SCRIPTS))

import shapetrace_export  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def dev_full_stays_a_device():
    """No test may turn the machine's /dev/full into a file (the bug of issue 27)."""
    was = os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode)
    yield
    if was:
        assert stat.S_ISCHR(os.lstat("/dev/full").st_mode), "/dev/full is no longer a character device"


@pytest.fixture
def stud(tmp_path, monkeypatch) -> Path:
    """A student's model file (nanoGPT-style blocks) in a temp folder, the
    folder the current one, so relative --out paths land there."""
    path = tmp_path / "stud.py"
    source = (SCRIPTS / "students" / "nanogpt_style.py").read_text(encoding="utf-8")
    # Importing it leaves a mark, so a test can tell that a refusal came first.
    path.write_text(source + '\nimport pathlib\npathlib.Path(__file__).with_name("imported").touch()\n',
                    encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return path


@pytest.fixture(scope="session")
def shapetrace_bin() -> Path | None:
    for kind in ("release", "debug"):
        b = REPO / "target" / kind / "shapetrace"
        if b.is_file() and os.access(b, os.X_OK):
            return b
    return None


@pytest.fixture
def ex():
    return shapetrace_export
