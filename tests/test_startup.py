"""The daemon's start path loads only what the chosen mode needs."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

PROBE = """
import json, sys
from companion.cli import main
main(sys.argv[1:])
heavy = [m for m in sys.modules if m.split('.')[0] in ('pygame', 'luma', 'waitress', 'segno') or
         m.startswith('companion.web') or
         (m.startswith('companion.games.') and m not in ('companion.games.base', 'companion.games.frozen'))
         or m in ('companion.bench', 'companion.ui.driver', 'hypothesis')]
print(json.dumps(sorted(heavy)))
"""


def loaded(*args: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", PROBE, "run", "--emulator", "none", *args],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return list(json.loads(run.stdout.strip().splitlines()[-1]))


def test_a_fresh_start_loads_no_game_no_pygame_no_luma_and_no_phone_view(tmp_path: pathlib.Path) -> None:
    assert loaded("--state", str(tmp_path), "--keys", "") == []


def test_resuming_loads_only_the_game_being_played(tmp_path: pathlib.Path) -> None:
    loaded("--state", str(tmp_path), "--keys", "select select select select select")
    assert loaded("--state", str(tmp_path), "--keys", "") == ["companion.games.microbot_racers"]
