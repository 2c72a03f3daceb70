"""The power-cut harness in its short setting; ``python -m tests.powercut --kills 200`` is
the full run.

Eight kills with seed 3 are two inside a store write (at its COMMIT) and six at random
moments, over tens to hundreds of acknowledged actions: each kind of kill, each checked for
every acknowledged line and the resumed state. More kills repeat those kinds; each costs a
daemon start, so the many-kill run is the command above.
"""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys

import pytest

from companion.store import Store
from tests.powercut import ROOT, run

# Durability is what these tests prove: their files stay on a real disk.
pytestmark = pytest.mark.durable


def test_kills_at_random_and_inside_writes_lose_no_acknowledged_action(tmp_path: pathlib.Path) -> None:
    tally = run(kills=8, seed=3, directory=tmp_path)
    assert tally.problems == []
    assert tally.lost == 0
    assert tally.kills == 8 and 0 < tally.in_writes < 8
    # Kills land in play, not only at start. How many actions a kill at a random moment
    # finds acknowledged depends on the machine's speed: 170 here when quiet, 38 under load.
    assert tally.acknowledged > 3 * tally.kills


@pytest.mark.parametrize(("moment", "kept"), [("before", 0), ("after", 1)])
def test_the_launcher_kills_the_process_just_before_or_after_a_commit(
        tmp_path: pathlib.Path, moment: str, kept: int) -> None:
    path = tmp_path / "store.sqlite"
    Store(str(path)).close()  # made (and migrated) beforehand: the next write is the game's
    script = ("import sys; from companion.store import Store; from tests import killatwrite\n"
              f"killatwrite.KillAtWrite.at = '1:{moment}'\n"
              f"Store({str(path)!r}, connect=killatwrite.connect).create('leaf-climbers', ['game x'])\n"
              "sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=False, timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert len(Store(str(path)).games()) == kept


def test_the_companion_itself_carries_no_fault_injection() -> None:
    for module in (ROOT / "companion").rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        assert "SIGKILL" not in text and "KILL_AT" not in text, module
