"""Issue 26 §5: no accident undoes an entry.

On the real loop with mock pins, in every game, at points all through it (its start, its
middle, its end screen): random presses bring the box to some screen (the game menu, a
page, a half-entered answer, the board, the check before logging...), and from there a
random run of back presses, each few followed by a select or two, follows. Not one of those
runs may take an entry back: the stored game's head never goes down. (A select may log an entry: that is what
select is for.) Both builds: with a back key, and the minimal one, where back is a long
press of select.
"""

from __future__ import annotations

import pathlib
import random
from collections.abc import Callable

import pytest

from companion.record import replay_text
from companion.session import Session
from tests.harness import BENCH, RECORDS, Harness

RUNS = 12  # per game and build
POINTS = (0.0, 0.3, 0.6, 1.0)  # where in the game a run starts: 1.0 is its end screen
ROAM = ("up", "down", "left", "right", "select", "back")
BACKS: dict[str, Callable[[Harness], None]] = {
    "adafruit-bonnet": lambda box: box.press("back"),
    "minimal": lambda box: box.long_press(),
}


def opened_at(directory: pathlib.Path, preset: str, game: str, share: float) -> tuple[Harness, int]:
    """A box with the benchmark's game of ``game`` played up to ``share`` of its lines, open."""
    replayed = replay_text((BENCH / RECORDS[game]).read_text())
    directory.mkdir(exist_ok=True)
    box = Harness(directory, preset=preset)
    session = Session.new(box.store, replayed.header)
    for line in replayed.actions[:round(share * len(replayed.actions))]:
        session.play([line])
    assert box.app.open(session.gid)
    box.daemon.refresh()
    return box, session.gid


def press(box: Harness, key: str, preset: str) -> None:
    if key == "back":
        BACKS[preset](box)
    elif key in box.pins:
        box.press(key)


@pytest.mark.parametrize("preset", sorted(BACKS))
@pytest.mark.parametrize("game", sorted(RECORDS))
def test_no_run_of_backs_and_selects_from_any_screen_undoes(
        tmp_path: pathlib.Path, game: str, preset: str) -> None:
    rng = random.Random(f"{game} {preset}")
    for run in range(RUNS):
        box, gid = opened_at(tmp_path / str(run), preset, game, rng.choice(POINTS))
        try:
            for _ in range(rng.randint(0, 6)):
                press(box, rng.choice(ROAM), preset)
            screen = type(box.app.top).__name__
            head = box.store.game(gid).head
            keys = [key for _ in range(rng.randint(1, 3))
                    for key in ["back"] * rng.randint(1, 3) + ["select"] * rng.randint(1, 2)]
            for key in keys:
                press(box, key, preset)
                now = box.store.game(gid).head
                assert now >= head, f"{key} in {keys} from {screen} took entry {head} back"
                head = now
        finally:
            box.close()


def test_back_then_select_from_the_end_screen_undoes_nothing(tmp_path: pathlib.Path) -> None:
    """The case that was seen: the end screen's cursor started on undo, and a select after
    coming back from a page took the last entry back."""
    box, gid = opened_at(tmp_path, "adafruit-bonnet", "microbot-racers", 1.0)
    try:
        head = box.store.game(gid).head
        assert box.app.session is not None and box.app.session.over()
        for keys in (["select"], ["back", "select"], ["back", "back", "select"]):
            for key in keys:
                press(box, key, "adafruit-bonnet")
            assert box.store.game(gid).head == head, keys
            box.app.to_play_screen()
    finally:
        box.close()
