"""Golden records: each ``tests/golden/GAME/NAME.record`` replays to ``NAME.json``
(the keys given) or, with ``NAME.error`` holding a line number, fails at that line (and,
where the file has a second line, with a reason that says those words)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

GOLDEN = pathlib.Path(__file__).parent / "golden"
RECORDS = sorted(GOLDEN.glob("*/*.record"))


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_record(record: pathlib.Path) -> None:
    run = subprocess.run([sys.executable, "-m", "companion", "replay", str(record)],
                         capture_output=True, text=True, timeout=60)
    error = record.with_suffix(".error")
    if error.exists():
        assert run.returncode == 1, run.stderr
        assert run.stdout == ""
        number, _, words = error.read_text().strip().partition("\n")
        assert run.stderr.startswith(f"{record}:{number}: ")
        assert words in run.stderr
        return
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    want = json.loads(record.with_suffix(".json").read_text())
    assert {k: got.get(k) for k in want} == want
