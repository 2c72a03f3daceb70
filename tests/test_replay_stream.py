"""``companion replay`` streams: its memory does not grow with the record, and it loads only
the record reader and the record's one engine (no screens, devices, store or configuration).

Counted, not timed: the bytes Python allocates (tracemalloc) and the modules loaded.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
import sys
import tracemalloc

from companion.record import CHUNK, replay_stream, summary

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = "game microbot-racers\nplayers Ann Bob\n"
#: A whole Microbot turn that leaves both robots as they were: the race can go on for ever.
TURN = ("table roll 1 2\nAnn pick move-1\nBob pick move-2\nBob pick turn-left\n"
        "Ann pick turn-right\nAnn pass\nBob pass\nBob do move-2\nAnn do move-1\n"
        "Bob do turn-left\nAnn do turn-right\n")


def race(turns: int) -> bytes:
    return (HEADER + TURN * turns).encode()


def peak_bytes(data: bytes) -> int:
    """The most memory replay allocated at once for ``data`` (the input itself not counted)."""
    stream = io.BytesIO(data)
    tracemalloc.start()
    try:
        replay_stream(stream, keep_actions=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_replay_memory_stays_flat_from_10000_to_40000_lines() -> None:
    replay_stream(io.BytesIO(race(1)))  # first use loads the engine: not the record's memory
    short, long = race(10_000 // 11), race(40_000 // 11)
    assert len(long) > 3 * len(short) > 6 * CHUNK
    assert peak_bytes(long) - peak_bytes(short) < CHUNK  # within one read of each other


def different_race(turns: int) -> bytes:
    """A race whose first-player rolls are each written differently (leading zeros), some
    longer than a line replay keeps split: no two roll lines alike."""
    rolls = [f"table roll {'0' * (t % 45)}1 {'0' * (t // 45 * 7)}2\n" for t in range(turns)]
    return (HEADER + "".join(roll + TURN.split("\n", 1)[1] for roll in rolls)).encode()


def test_replay_memory_stays_flat_when_no_line_repeats() -> None:
    """Replay splits each line's text once however often it comes back, and keeps a bounded
    number of them: a record of ever-new lines does not grow its memory."""
    replay_stream(io.BytesIO(race(1)))
    short, long = different_race(2_000), different_race(6_000)
    assert summary(replay_stream(io.BytesIO(long)))["turn"] == 6_000
    assert peak_bytes(long) - peak_bytes(short) < CHUNK


def test_replay_of_a_long_race_keeps_only_the_state() -> None:
    replayed = replay_stream(io.BytesIO(race(3_000)), keep_actions=False)
    assert replayed.actions == ()
    assert summary(replayed)["turn"] == 3_000


def test_replay_loads_only_the_record_and_its_engine(tmp_path: pathlib.Path) -> None:
    """No screens, devices, store, configuration or logging, and no other game's engine."""
    record = tmp_path / "race.record"
    record.write_bytes(race(3))
    probe = ("import json, sys\n"
             "from companion.cli import main\n"
             f"code = main(['replay', {str(record)!r}])\n"
             "print(json.dumps([code, sorted(sys.modules)]))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, cwd=ROOT, env=env, timeout=60)
    summary_line, result = done.stdout.splitlines()
    code, modules = json.loads(result)
    assert code == 0 and json.loads(summary_line)["turn"] == 3
    loaded = set(modules)
    # Nor the argument parser (a plain 'replay FILE' needs none), nor dataclasses and the
    # inspect module they load (the engines' values are frozen.valueclass): a fifth and a
    # quarter of a replay's start-up.
    for heavy in ("PIL", "luma", "gpiozero", "pygame", "serial", "sqlite3", "tomllib", "logging",
                  "companion.config", "companion.store", "companion.statedir", "companion.ui",
                  "companion.io", "argparse", "dataclasses", "inspect", "pkgutil"):
        assert not {m for m in loaded if m == heavy or m.startswith(heavy + ".")}, heavy
    engines = {m for m in loaded if m.startswith("companion.games.")} - {
        "companion.games.base", "companion.games.frozen"}
    assert engines == {"companion.games.microbot_racers"}
