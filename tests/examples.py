"""Short Microbot Racers records shared by the record and replay-command tests."""

from __future__ import annotations

import pathlib

HEADER = "game microbot-racers\nplayers Ann Bob\n"
ROLL = "table roll 3 2\n"
SPEC_EXAMPLE = (pathlib.Path(__file__).parent / "golden" / "microbot-racers"
                / "spec-example.record").read_text()
LAP_WIN = HEADER + """\
option laps 1
table roll 3 2
Bob pick move-2
Ann pick move-3
Ann pass
Bob pass
Bob pass
Ann pass
Ann do move-3
Ann lap              # the agreed number of laps: Ann wins at once
"""
