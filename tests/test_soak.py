"""The soak in its short setting; ``python -m tests.soak`` runs the full 100,000 actions."""

from __future__ import annotations

import pathlib

import pytest

from tests.soak import MB, soak


@pytest.mark.skipif(not pathlib.Path("/proc/self/statm").exists(), reason="reads Linux /proc")
def test_a_short_soak_keeps_memory_flat_and_the_store_consistent(tmp_path: pathlib.Path) -> None:
    result = soak(tmp_path, actions=4000)
    assert result.actions == 4000 and result.games > 10 and result.resumes >= 4
    assert result.integrity == "ok"
    assert result.growth < 5 * MB
