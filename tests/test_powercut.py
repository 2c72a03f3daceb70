"""The power-cut harness in its short setting; ``python -m tests.powercut --kills 200`` is
the full run."""

from __future__ import annotations

import pathlib

import pytest

from tests.powercut import run

# Durability is what these tests prove: their files stay on a real disk.
pytestmark = pytest.mark.durable


def test_twenty_kills_lose_no_acknowledged_action(tmp_path: pathlib.Path) -> None:
    tally = run(kills=20, seed=3, directory=tmp_path)
    assert tally.problems == []
    assert tally.lost == 0
    assert tally.kills == 20 and tally.in_writes > 0
    assert tally.acknowledged > 100
