"""Every golden record can be typed on the box from the home screen with up, down and
select, set-up included: its names (from the roster, or typed letter by letter when the
roster does not hold them), who starts and every option. The stored game, exported, is the
record line for line. An illegal record is typed up to its illegal line, and the box takes
nothing more: a header the contract refuses cannot be set up, and an illegal line cannot
be entered. The generic prompt model and the set-up leave nothing that only a record file
could say."""

from __future__ import annotations

import pathlib

import pytest

from companion.config import Config
from companion.exc import DriverError
from companion.export import export
from companion.games import game_by_id
from companion.games.base import Line
from companion.record import Header, replay_text
from companion.ui.driver import Driver
from tests.goldens import records
from tests.harness import Harness

RECORDS = records()
#: A roster without any golden record's names: every name is typed with the name editor.
STRANGERS = Config(roster=("Xia", "Yves"))


def record_lines(text: str) -> list[str]:
    """A record's lines as the store keeps them: no comments, no blank lines, single spaces."""
    return [" ".join(line.split("#")[0].split()) for line in text.splitlines() if line.split("#")[0].strip()]


def stored_lines(box: Harness) -> list[str]:
    """The game on the box as ``companion export`` writes it."""
    assert box.app.session is not None
    exported = export(box.store, box.app.session.gid)
    assert exported is not None and exported.problem == ""
    return record_lines(exported.record)


def header_of(lines: list[str]) -> Header:
    """The header these lines give, unchecked (an illegal one too)."""
    game = game_by_id(lines[0].split()[1])
    assert game is not None
    players = tuple(next(line.split()[1:] for line in lines if line.startswith("players ")))
    options = tuple((line.split()[1], line.split()[2]) for line in lines if line.startswith("option "))
    return Header(game, players, options)


@pytest.mark.parametrize("roster", ["roster", "typed"])
@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_golden_record_typed_through_the_screens_is_stored_line_for_line(
        path: pathlib.Path, roster: str, tmp_path: pathlib.Path) -> None:
    text = path.read_text()
    error = path.with_suffix(".error")
    bad = int(error.read_text().split()[0]) if error.exists() else 0  # the illegal line, physically
    legal = record_lines("\n".join(text.splitlines()[:bad - 1])) if bad else record_lines(text)
    box = Harness(tmp_path, config=STRANGERS if roster == "typed" else None)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    try:
        if not any(line.startswith("players ") for line in legal) or (
                bad and text.splitlines()[bad - 1].split()[0] in ("players", "option")):
            # The illegal line is the header's: the box refuses to set such a game up.
            with pytest.raises(DriverError):
                driver.new_game(header_of(record_lines(text)))
            assert box.store.games() == []
            return
        replayed = replay_text("\n".join(legal) + "\n")
        driver.new_game(replayed.header)
        for line in replayed.actions:
            driver.line(line)
        assert stored_lines(box) == legal
        if bad:  # the box offers no way to enter the illegal line, or refuses it: the driver says so
            with pytest.raises(DriverError):
                driver.line(Line.parse(record_lines(text.splitlines()[bad - 1])[0]))
            assert stored_lines(box) == legal
        elif box.app.session is not None and box.app.session.over():
            assert box.shows("Game over")
    finally:
        box.close()


def test_a_line_the_box_refuses_fails_at_once_with_the_boxs_words(tmp_path: pathlib.Path) -> None:
    """A line typed in but not logged (the box refused it) is the driver's error there and
    then, in the box's words, not a mismatch found a line later."""
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    try:
        replayed = replay_text("game leaf-climbers\nplayers Ann Bob\ntable drop 2\ntable leaf 2 1\n"
                               "table leaf 2 1\nAnn roll 1\nAnn stay\nBob roll 1\nBob stay\n"
                               "table drop 1\ntable leaf 4 4\nAnn roll 2\n")
        driver.new_game(replayed.header)
        for line in replayed.actions:
            driver.line(line)
        with pytest.raises(DriverError, match=r"^Ann move 2 1 not logged: c2 r1 costs 3, you have 2$"):
            driver.line(Line.parse("Ann move 2 1"))  # the climb costs 3
        assert stored_lines(box)[-1] == "Ann roll 2"
    finally:
        box.close()
