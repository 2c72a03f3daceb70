"""Serial fuzz in the suite: 10,000 bad lines to the real daemon's console (about 20 s;
``python -m tests.serialfuzz --lines N`` runs any number)."""

from __future__ import annotations

import pathlib

from tests.serialfuzz import fuzz


def test_bad_lines_are_each_refused_and_change_nothing(tmp_path: pathlib.Path) -> None:
    result = fuzz(lines=10_000, seed=5, directory=tmp_path)
    assert result["sent"] == result["errors"] == 10_000
    assert result["alive"] and result["exit"] == 0
    assert result["unchanged"]
    assert result["kinds"] > 10  # the noise reached many different refusals
