"""The chaos run in its short setting (tests/chaos.py); ``python -m tests.chaos --faults
10000 --lanes 4`` is the long one.

Three faults on one lane, each after a SIGKILL or a clean stop, each followed by the
daemon's starts as systemd would make them: the round's every check (nothing acknowledged
lost, the resumed game as its lines replay, no traceback, no crash loop) runs on each.
"""

from __future__ import annotations

import pathlib

from tests.chaos import run
from tests.faultmatrix import STORE, build_baseline, copies_hold, prefix


def test_a_short_chaos_run_loses_nothing_and_never_loops(tmp_path: pathlib.Path) -> None:
    tally = run(faults=3, lanes=1, seed=7, directory=tmp_path)
    assert tally.problems == []
    assert (tally.faults, tally.survived) == (3, 3)
    assert (tally.lost, tally.crash_loops, tally.tracebacks) == (0, 0, 0)
    assert tally.kills + tally.stops >= 3 and tally.acknowledged > 0


def test_the_runs_own_reading_of_the_copies_is_what_they_hold(tmp_path: pathlib.Path) -> None:
    """The copies are read independently of salvage: the reading must agree with the
    baselines, whose copies are known (a whole copy and changes after it, every entry)."""
    for kind in ("stopped", "killed"):
        baseline = build_baseline(tmp_path / kind, kind)
        held = copies_hold(tmp_path / kind / "state")
        assert {g.gid: prefix(held[g.gid], g.lines) for g in baseline.games} == {
            g.gid: len(g.lines) for g in baseline.games}
    assert copies_hold(tmp_path / "nothing") == {}
    assert (tmp_path / "killed" / "state" / f"{STORE}-wal").exists()
