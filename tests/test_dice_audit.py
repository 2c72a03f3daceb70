"""Undo is never a free re-roll, at any depth: every device roll is kept with the game (the
dice audit), its prompt offers the same faces first whenever it comes back at the same place
in the record, rolling anew is a second, audited choice, and an export shows every roll.

Each game with device rolls is tested at several depths of undo, across turns, once the redo
stack is gone and after a restart. (Quick Lemmings asks for no dice: its cards are dealt at
the table.)
"""

from __future__ import annotations

import pathlib
import random
from dataclasses import dataclass

import pytest

from companion.dice import device_roll
from companion.games import GAMES
from companion.games.base import Line, Roll
from companion.record import Replayed, replay_text, summary
from companion.salvage import carry_games
from companion.session import Session
from companion.store import Store
from companion.ui.driver import Driver
from companion.ui.play import PlayScreen
from tests.entries import Entry, entries_of
from tests.harness import Harness
from tests.playout import answer

GOLDEN = pathlib.Path(__file__).parent / "golden"


def golden(game_id: str, name: str) -> Replayed:
    return replay_text((GOLDEN / game_id / f"{name}.record").read_text())


#: (game, golden record, which of its rolls): one case per game with device rolls, the roll
#: chosen so that deep undo walks back across a turn (or a round).
CASES = [
    ("microbot-racers", "lap-win", 3),      # Bob's jump roll in turn 2
    ("microbot-racers", "lap-win", 2),      # Ann's hazard roll (the issue's case)
    ("leaf-climbers", "all-blue-four", 5),  # round 2's d20 and its 17 leaves, one entry
    ("leaf-climbers", "all-blue-four", 6),  # Ann's d4 in round 2
    ("penguin-panic", "two-players-full", 2),  # Bob's sixes and their re-roll, one entry
    ("penguin-panic", "two-players-full", 5),
    ("gleebs-and-grues", "spec-played-out", 0),  # the grues' squares: the first entry
]


def ids(case: tuple[str, str, int]) -> str:
    return f"{case[0]}-roll{case[2]}"


@dataclass
class Table:
    """A game played from a golden record up to (and with) one of its rolls, by the device."""

    session: Session
    entries: list[Entry]
    at: int  # index of the rolled entry
    rolled: tuple[str, ...]  # its lines as stored

    @property
    def ask(self) -> Roll:
        roll = self.entries[self.at].roll
        assert roll is not None
        return roll


def play_to_roll(store: Store, case: tuple[str, str, int], after: int = 0) -> Table:
    """Log the entries before the chosen roll, roll it on the device (the record's faces),
    then log ``after`` entries more."""
    game_id, name, which = case
    replayed = golden(game_id, name)
    entries = entries_of(replayed)
    at = [i for i, e in enumerate(entries) if e.roll is not None][which]
    session = Session.new(store, replayed.header)
    for entry in entries[:at]:
        session.play(list(entry.lines), rolled=entry.roll is not None)
    session.play(list(entries[at].lines), rolled=True)
    for entry in entries[at + 1:at + 1 + after]:
        session.play(list(entry.lines))
    return Table(session, entries, at, tuple(str(x) for x in entries[at].lines))


def faces(table: Table) -> tuple[str, ...]:
    prefix = len(table.ask.prefix)
    return tuple(" ".join(Line.parse(text).args[prefix:]) for text in table.rolled)


def back_to_the_roll(table: Table, after: int, before: int) -> None:
    """Undo ``after`` entries, the roll and ``before`` entries before it, then log those
    ``before`` entries again, as the table would (each equal to its redo entry)."""
    for _ in range(after + 1 + before):
        table.session.undo()
    for entry in table.entries[table.at - before:table.at]:
        table.session.play(list(entry.lines))


def undo_depths(case: tuple[str, str, int]) -> list[tuple[int, int]]:
    """(entries after the roll, entries before it) to undo, as far as the game allows."""
    entries = entries_of(golden(*case[:2]))
    at = [i for i, e in enumerate(entries) if e.roll is not None][case[2]]
    return [(after, before) for after, before in [(0, 0), (0, 1), (0, 2), (2, 3), (4, 8)]
            if before <= at and at + after < len(entries)]


DEPTHS = [(case, depth) for case in CASES for depth in undo_depths(case)]


@pytest.mark.parametrize("case,depth", DEPTHS, ids=[f"{ids(c)}-{a}+1+{b}" for c, (a, b) in DEPTHS])
def test_an_undone_roll_comes_back_first_at_any_depth(store: Store, case: tuple[str, str, int],
                                                       depth: tuple[int, int]) -> None:
    table = play_to_roll(store, case, after=depth[0])
    rolled_state = table.session._state_at(table.at + 1)
    back_to_the_roll(table, *depth)
    session = table.session
    assert session.head == table.at
    assert session.roll_again(table.ask) == faces(table)
    session.use_again(table.ask)
    assert session.state == rolled_state
    assert [roll.lines for roll in store.rolls(session.gid)].count(table.rolled) == 1  # no new roll


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_the_roll_comes_back_once_the_redo_stack_is_gone(store: Store,
                                                         case: tuple[str, str, int]) -> None:
    table = play_to_roll(store, case, after=1)
    session = table.session
    for _ in range(2):
        session.undo()
    # Something else at the roll's place drops the redo stack...
    rng = random.Random(4)
    ask = session.prompt()
    assert ask is not None
    other = next(line for line in (answer(session.game, session.state, ask, rng) for _ in range(200))
                 if str(line) not in table.rolled)
    session.play([other])
    session.undo()
    assert session.redo_entry() is not None and session.redo_entry().lines == (str(other),)
    # ...and yet the device roll is still the first choice when its prompt comes back.
    assert session.roll_again(table.ask) == faces(table)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_the_roll_comes_back_after_a_restart(path: str, case: tuple[str, str, int]) -> None:
    table = play_to_roll(Store(path), case, after=1)
    back_to_the_roll(table, after=1, before=min(1, table.at))
    gid = table.session.gid
    table.session.store.close()  # the power goes off

    store = Store(path)
    again = Session(store, gid)
    assert again.roll_again(table.ask) == faces(table)
    store.close()


def test_the_issue_case_relogging_the_hazard_keeps_the_six(store: Store) -> None:
    """+ Bob hazard, roll 6 on the device, undo, undo, + Bob hazard again: the 6 is offered."""
    replayed = golden("microbot-racers", "spec-example")
    session = Session.new(store, replayed.header)
    for line in replayed.actions[:8]:  # up to "Ann do move-3"
        session.play([line])
    session.play([Line.parse("Ann hazard")])
    ask = session.prompt()
    assert ask is not None
    (roll,) = ask.answers
    assert isinstance(roll, Roll)
    session.play([Line.parse("Ann roll 6")], rolled=True)
    session.undo()
    session.undo()
    session.play([Line.parse("Ann hazard")])
    assert session.redo_entry() is not None  # a redo: the stack stays
    assert session.roll_again(roll) == ("6",)
    session.use_again(roll)
    assert session.summary()["health"]["Ann"] == 5


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_rolling_again_is_possible_and_the_export_shows_every_roll(
        store: Store, case: tuple[str, str, int]) -> None:
    table = play_to_roll(store, case)
    session = table.session
    session.undo()
    ask = table.ask
    assert session.roll_again(ask) is not None
    lines = device_roll(session.game, session.state, ask, random.Random(11))
    session.play(lines, rolled=True, again=True)
    text = session.record()
    undone = [f"# undone: {line}" for line in table.rolled]
    assert [line for line in text.splitlines() if line.startswith("# undone")] == undone
    at = text.splitlines().index(undone[0])  # where it was made: just before the new roll
    assert text.splitlines()[at + len(undone)].startswith(f"{lines[0]}  # rolled again")
    assert summary(replay_text(text)) == session.summary()


def test_export_keeps_rolls_undone_past_the_end_and_replays_the_same(store: Store) -> None:
    table = play_to_roll(store, CASES[0], after=3)
    session = table.session
    for _ in range(5):
        session.undo()
    text = session.record()
    assert text.splitlines()[-len(table.rolled):] == [f"# undone: {line}" for line in table.rolled]
    assert summary(replay_text(text)) == session.summary()


def test_typed_faces_and_die_reader_faces_are_not_audited(store: Store) -> None:
    table = play_to_roll(store, CASES[1])
    session = table.session
    session.undo()
    session.play([Line.parse("Ann roll 1")])  # what the table rolled: a different entry
    assert [roll.lines for roll in store.rolls(session.gid, table.at + 1)] == [table.rolled]
    assert "# undone: Ann roll 6" in session.record()


def test_a_game_stored_before_the_audit_still_offers_its_redo_roll(store: Store) -> None:
    table = play_to_roll(store, CASES[1])
    store.db.execute("DELETE FROM rolls")  # as an older companion stored it
    table.session.undo()
    assert table.session.roll_again(table.ask) == ("6",)


def test_every_game_with_device_rolls_is_covered() -> None:
    with_rolls = {game_id for game_id, _, _ in CASES}
    for game_id in GAMES:
        replayed = next((replay_text(p.read_text()) for p in sorted((GOLDEN / game_id).glob("*.record"))
                         if p.with_suffix(".json").exists()), None)
        assert replayed is not None
        asks_dice = any(e.roll is not None for e in entries_of(replayed))
        assert asks_dice == (game_id in with_rolls), game_id


# --- through the screens: the real loop, mock pins, the dummy display ---


def choose_on_play_screen(box: Harness, label: str) -> None:
    """Move the play screen's cursor to the answer with this label and select it."""
    screen = box.app.top
    assert isinstance(screen, PlayScreen)
    labels = [item.label for item in screen.items()]
    assert label in labels, labels
    steps = labels.index(label) - screen.cursor  # the cursor may start below it (typed faces)
    for _ in range(abs(steps)):
        box.press("down" if steps > 0 else "up")
    box.press("select")


def undo_on_the_box(box: Harness) -> None:
    box.long_press()
    box.presses("down", "select")  # the game menu's line under "Back to the game": Undo


@pytest.mark.parametrize("depth", [2, 3, 6])
def test_on_the_box_relogging_after_deep_undo_offers_the_same_faces(tmp_path: pathlib.Path,
                                                                    depth: int) -> None:
    """The issue's walk: log the hazard, roll on the device, undo ``depth`` times, log the
    same entries again: "Use F again" is the first choice and gives the same health."""
    replayed = golden("microbot-racers", "spec-example")
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(replayed.header)
    relog = [*replayed.actions[8 - (depth - 2):8], Line.parse("Ann hazard")]  # in order
    for line in replayed.actions[:8]:
        driver.line(line)
    driver.line(Line.parse("Ann hazard"))
    choose_on_play_screen(box, "Roll for me")
    session = box.app.session
    assert session is not None
    rolled = session.store.entry(session.gid, session.head)
    assert rolled is not None and rolled.rolled
    face = rolled.lines[0].split()[-1]
    health = session.summary()["health"]["Ann"]
    for _ in range(depth):
        undo_on_the_box(box)
    for line in relog:
        driver.line(line)
    box.wait(3)  # the result line has gone: the answer under the cursor is what shows
    assert box.shows(f"Use {face} again")
    box.press("select")
    assert session.summary()["health"]["Ann"] == health
    box.close()


def test_on_the_box_the_roll_comes_back_after_a_restart(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    replayed = golden("leaf-climbers", "spec-example")
    driver.new_game(replayed.header)
    choose_on_play_screen(box, "Roll for me")  # the d20 and all its leaves: one entry
    while not isinstance(box.app.top, PlayScreen):
        box.press("select")  # through the leaves shown one by one (or all at once)
    session = box.app.session
    assert session is not None
    rolled = session.store.entry(session.gid, 1)
    assert rolled is not None
    choose_on_play_screen(box, "Roll for me")  # Ann's d4
    for _ in range(2):
        undo_on_the_box(box)
    box.close()  # the power goes off

    box = Harness(tmp_path)
    assert box.app.resume_latest()
    box.wait(3)
    screen = box.app.top
    assert isinstance(screen, PlayScreen)
    first = screen.items()[screen.cursor].label  # where the cursor starts
    drop = rolled.lines[0].split()[-1]
    assert first.startswith(f"Use {drop}, ")  # the d20, then its leaves as rolled
    if len(rolled.lines) > 2:
        assert first == f"Use {drop}, ... again"  # too many to list on one line
    box.press("select")
    assert box.app.session is not None and box.app.session.store.entry(box.app.session.gid, 1) == rolled
    box.close()


def test_salvage_carries_the_dice_audit(tmp_path: pathlib.Path) -> None:
    old = Store(str(tmp_path / "old.sqlite"))
    table = play_to_roll(old, CASES[1])
    table.session.undo()
    made = old.rolls(table.session.gid)
    old.close()
    fresh = Store(str(tmp_path / "new.sqlite"))
    kept = carry_games(tmp_path / "old.sqlite", fresh)
    assert (kept.games, kept.seen) == (1, 1)
    assert fresh.rolls(table.session.gid) == made
    assert Session(fresh, table.session.gid).roll_again(table.ask) == ("6",)
    fresh.close()


def test_salvage_of_a_store_from_before_the_audit_carries_its_games(tmp_path: pathlib.Path) -> None:
    old = Store(str(tmp_path / "old.sqlite"))
    play_to_roll(old, CASES[1])
    old.db.execute("DROP TABLE rolls")  # as an older companion left it
    old.close()
    fresh = Store(str(tmp_path / "new.sqlite"))
    kept = carry_games(tmp_path / "old.sqlite", fresh)
    assert (kept.games, kept.seen) == (1, 1)
    fresh.close()


def test_on_the_box_a_shake_or_r_after_undo_is_an_explicit_audited_roll(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(golden("microbot-racers", "spec-example").header)
    box.intent("roll")  # the first roll: nothing undone, a plain device roll
    undo_on_the_box(box)
    screen = box.app.top
    assert isinstance(screen, PlayScreen)
    labels = [item.label for item in screen.items()][screen.cursor:]  # from where the cursor starts
    assert labels[0].startswith("Use ") and labels[1] == "Roll again"  # the explicit second choice
    box.intent("roll")
    session = box.app.session
    assert session is not None
    made = session.store.rolls(session.gid)
    assert [roll.again for roll in made] == [False, True]
    record = session.record().splitlines()
    assert any(line.startswith("# undone: table roll") for line in record)
    assert any("# rolled again by the companion" in line for line in record)
    box.close()


def test_companion_export_writes_the_audit_as_the_session_does(tmp_path: pathlib.Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The command line's export is the table's record: undone device rolls as comments."""
    from companion.cli import main

    store = Store(str(tmp_path / "companion.sqlite"))
    table = play_to_roll(store, CASES[1])
    session = table.session
    session.undo()
    session.play([Line.parse("Ann roll 1")])
    expected = session.record()
    store.close()
    assert main(["export", str(session.gid), "--state", str(tmp_path)]) == 0
    exported = capsys.readouterr().out
    assert "# undone: Ann roll 6" in exported and exported == expected


@pytest.mark.parametrize("spoil", ["n = CAST(x'41f3' AS TEXT)", "n = x'f3'", "n = 9223372036854775807",
                                   "n = 4611686018427387904", "n = 2.5"])
def test_a_damaged_audit_row_never_refuses_a_device_roll(tmp_path: pathlib.Path, spoil: str) -> None:
    """The audit only tells which rolls a device made: a number a flipped bit changed in one
    of its rows refused every later device roll of the game ("not saved": the new row's
    number taken), or raised a traceback. Now the roll is stored, and audited."""
    import sqlite3

    from companion.store import MadeRoll

    store = Store(str(tmp_path / "s.sqlite"))
    gid = store.create("penguin-panic", ["game penguin-panic", "players Ann Bob"])
    store.push(gid, ["Ann roll 3"], True, False, [], MadeRoll(1, ("Ann roll 3",)))
    db = sqlite3.connect(tmp_path / "s.sqlite")
    with db:
        db.execute(f"UPDATE rolls SET {spoil}")
    db.close()
    for seq in (2, 3):
        store.push(gid, ["Bob roll 4"], True, False, [], MadeRoll(seq, ("Bob roll 4",)))
    assert [entry.lines for entry in store.entries(gid)][1:] == [("Bob roll 4",)] * 2
    # both new rolls audited (the damaged row as far as it still reads as one)
    assert [roll.seq for roll in store.rolls(gid) if roll.seq > 1] == [2, 3]
    store.close()
