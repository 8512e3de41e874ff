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
    """The newest built shapetrace (target/release or target/debug) to judge
    the logs with; None (those checks skip) unless SHAPETRACE_CHECK_LOGS is
    `required`, as .ci/run sets it."""
    built = [b for b in (REPO / "target" / k / "shapetrace" for k in ("release", "debug"))
             if b.is_file() and os.access(b, os.X_OK)]
    if not built:
        if os.environ.get("SHAPETRACE_CHECK_LOGS") == "required":
            pytest.fail("no target/release/shapetrace or target/debug/shapetrace to check the logs with; "
                        "run cargo build first")
        return None
    return max(built, key=lambda b: b.stat().st_mtime)


@pytest.fixture
def ex():
    return shapetrace_export
