"""Golden records: each ``tests/golden/GAME/NAME.record`` replays as ``tests/goldens.py``
says: to ``NAME.json`` (the keys given) or, with ``NAME.error``, failing at its line, for
its reason."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from tests.goldens import records, wrong


@pytest.mark.parametrize("record", records(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_record(record: pathlib.Path) -> None:
    run = subprocess.run([sys.executable, "-m", "companion", "replay", str(record)],
                         capture_output=True, text=True, timeout=60)
    assert wrong(record, str(record), run.returncode, run.stdout, run.stderr) == ""
