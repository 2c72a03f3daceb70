"""The golden records and what each must replay to, in one place: ``tests/test_golden.py``
checks them here, and ``hardware/pi-check`` checks them again in an arm64 root, with the
Python of the machine that runs it (so this module imports the standard library only).

Each ``tests/golden/GAME/NAME.record`` replays to ``NAME.json`` (the keys given) or, with
``NAME.error`` holding a line number, fails at that line (and, where the file has a second
line, with a reason that says those words).
"""

from __future__ import annotations

import json
import pathlib

GOLDEN = pathlib.Path(__file__).parent / "golden"


def records(golden: pathlib.Path = GOLDEN) -> list[pathlib.Path]:
    return sorted(golden.glob("*/*.record"))


def wrong(record: pathlib.Path, given: str, code: int, out: str, err: str) -> str:
    """What is wrong with ``companion replay GIVEN`` answering ``code``, ``out`` and ``err``
    for ``record`` ("" when nothing is). ``given`` is the path the command was given: its
    error lines start with it."""
    error = record.with_suffix(".error")
    if error.exists():
        number, _, words = error.read_text().strip().partition("\n")
        if code != 1:
            return f"exit status {code}, not 1: {err}"
        if out:
            return f"an error, but a summary too: {out}"
        if not err.startswith(f"{given}:{number}: "):
            return f"not an error at line {number}: {err}"
        if words not in err:
            return f"the reason does not say {words!r}: {err}"
        return ""
    if code != 0:
        return f"exit status {code}, not 0: {err}"
    want = json.loads(record.with_suffix(".json").read_text())
    try:
        got = json.loads(out)
    except ValueError:
        return f"the summary is not JSON: {out!r}"
    given_keys = {key: got.get(key) for key in want}
    return "" if given_keys == want else f"the summary has {given_keys}, not {want}"
