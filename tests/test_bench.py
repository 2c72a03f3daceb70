"""The benchmark's byte figures hold (bytes, not timings: the suite never times anything)."""

from __future__ import annotations

import pathlib
import statistics

from companion.bench import FULL_FRAME, play_session, session_records


def test_a_whole_race_costs_under_a_third_of_luma_bytes_per_press(tmp_path: pathlib.Path) -> None:
    races = [r for r in session_records() if r.header.game.id == "microbot-racers"]
    found = play_session(races, True, tmp_path)
    assert found.skipped == []
    for kind, full in FULL_FRAME.items():
        assert statistics.median(found.bytes[f"ours {kind}"]) <= 0.3 * full
        assert set(found.bytes[f"luma {kind}"]) == {full}  # luma sends the whole frame every time
    assert found.redraw_bytes == 0
