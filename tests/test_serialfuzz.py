"""Serial fuzz in the suite: 2,000 bad lines to the real daemon's console (a few seconds;
``python -m tests.serialfuzz --lines 10000`` is the long run, any number works).

2,000 lines are about 330 of each of the generator's six kinds (binary noise, over-long
lines, invalid UTF-8, control characters, plausible words that are illegal now, known
refusals) and reach more than 50 different refusals with seed 5; more lines repeat those
kinds.
"""

from __future__ import annotations

import pathlib

from tests.serialfuzz import fuzz


def test_bad_lines_are_each_refused_and_change_nothing(tmp_path: pathlib.Path) -> None:
    result = fuzz(lines=2_000, seed=5, directory=tmp_path)
    assert result["sent"] == result["errors"] == 2_000
    assert result["alive"] and result["exit"] == 0
    assert result["unchanged"]
    assert result["kinds"] > 40  # the noise reached many different refusals
