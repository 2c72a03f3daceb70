"""Each change is worked out once: a confirmed entry is applied once, and what the screens
show of a position (prompt, summary, undone roll, redo entry) is computed once per change,
never from a stale copy, and never read from the store again while nothing changes."""

from __future__ import annotations

import pathlib
import random
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import ImageDraw

from companion.games import GAMES
from companion.games.base import Line, Roll
from companion.intents import Intent
from companion.record import replay_text, summarise
from companion.session import Session
from companion.store import Store
from companion.ui.draw import blank, recording
from companion.ui.driver import Driver
from companion.ui.play import PlayScreen, listed_faces
from tests.consoles import ConsoleBox
from tests.harness import Harness, Host
from tests.playout import answer, players_for

GOLDEN = pathlib.Path(__file__).parent / "golden"
#: One whole game of each kind, typed through the screens: choices, dice typed in, forms,
#: boards and previews (Penguin Panic's fish sums).
TYPED = ["gleebs-and-grues/spec-played-out", "leaf-climbers/all-blue-four",
         "microbot-racers/lap-win", "penguin-panic/two-players-full", "quick-lemmings/water-race"]


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Line]]:
    """Every line any rules engine is asked to apply, in order."""
    seen: list[Line] = []
    for game in {type(g) for g in GAMES.values()}:
        def counting(self: Any, state: Any, line: Line, apply: Any = game.apply) -> Any:
            seen.append(line)
            return apply(self, state, line)
        monkeypatch.setattr(game, "apply", counting)
    yield seen


@pytest.mark.parametrize("name", TYPED)
def test_every_confirmed_entry_typed_on_the_box_is_applied_once(
        name: str, tmp_path: pathlib.Path, applied: list[Line]) -> None:
    replayed = replay_text((GOLDEN / f"{name}.record").read_text())
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(replayed.header)
    applied.clear()
    for line in replayed.actions:
        driver.line(line)
    # Each line once, in the record's order; the only others are the numbers of an entry as
    # they change, each checked once while the check is shown over them (the last of them
    # is the line logged, applied no more).
    record, at = list(replayed.actions), 0
    for line in applied:
        if at < len(record) and line == record[at]:
            at += 1
        else:  # a number being entered, not the line just logged once more
            assert at < len(record) and (line.actor, line.verb) == (record[at].actor, record[at].verb), line
            assert not at or line != record[at - 1], line
    assert at == len(record)
    assert box.app.session is not None and box.app.session.state == replayed.state
    box.close()


def test_a_device_roll_and_an_undone_roll_used_again_are_applied_once(
        tmp_path: pathlib.Path, applied: list[Line]) -> None:
    """The roll's lines are worked out as the dice fall; logging them applies nothing more."""
    box = Harness(tmp_path)
    box.app.session = Session.new(box.store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    box.app.open(box.app.session.gid)
    session = box.app.session
    applied.clear()
    box.intent("roll")
    entry = box.store.entry(session.gid, 1)
    assert entry is not None and entry.rolled
    assert [str(line) for line in applied] == list(entry.lines)
    box.intent("undo")
    applied.clear()
    screen = box.app.top
    assert isinstance(screen, PlayScreen) and screen.items()[screen.cursor].label.startswith("Use ")
    box.intent("select")  # "Use 3, 5 again"
    again = box.store.entry(session.gid, 1)
    assert again is not None and again.lines == entry.lines
    # Checked and logged with one application at most (none when the state those faces
    # lead to from here is still known from the first time).
    assert [str(line) for line in applied] in ([], list(entry.lines))
    box.close()


def fresh_view(store: Store, gid: int) -> tuple[Any, ...]:
    """What a session opened afresh on the stored game says about its position, asking the
    store for undone rolls at every prompt (never skipping the query as past the audit)."""
    session = Session(store, gid)
    session._rolls_reach = sys.maxsize
    ask = session.prompt()
    rolls = [a for a in (ask.answers if ask else ()) if isinstance(a, Roll)]
    return (session.prompt(), session.summary(), session.over(), session.outcome(),
            session.redo_entry(), [session.roll_again(roll) for roll in rolls])


def cached_view(session: Session) -> tuple[Any, ...]:
    ask = session.prompt()
    rolls = [a for a in (ask.answers if ask else ()) if isinstance(a, Roll)]
    return (ask, session.summary(), session.over(), session.outcome(), session.redo_entry(),
            [session.roll_again(roll) for roll in rolls])


def box_has_redo(store: Store, session: Session) -> bool:
    return store.entry(session.gid, session.head + 1) is not None


def drawn(screen: PlayScreen) -> list[tuple[str, tuple[int, int, int, int]]]:
    """The strings a play screen draws, and where, without its passing message or result."""
    screen.message, screen.result = "", ""
    with recording() as found:
        screen.draw(ImageDraw.Draw(blank()))
    return [(d.words, d.box) for d in found]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_what_is_shown_after_every_change_equals_a_fresh_computation(game_id: str, store: Store) -> None:
    """A random walk of device rolls, typed entries, undo (several deep) and redo: after
    every step the session's remembered prompt, summary, redo entry and undone roll equal
    those of the game opened afresh, and the play screen draws what a fresh one draws."""
    game = GAMES[game_id]
    rng = random.Random(game_id)
    header = replay_text(f"game {game_id}\nplayers {' '.join(players_for(game, 1))}\n").header
    session = Session.new(store, header)
    screen = PlayScreen(session, Host(), rng=random.Random(3))
    for _ in range(80):
        if rng.random() < 0.5:  # remembered now (or not): the next change must forget it
            cached_view(session)
            screen.items()
        ask = session.game.prompt(session.state)
        move = rng.random()
        if move < 0.25 and session.head:
            for _ in range(rng.choice((1, 1, 3))):
                if session.head:
                    screen.undo()
        elif move < 0.35 and box_has_redo(store, session):
            screen.redo()
        elif ask is None or not ask.answers:
            screen.undo()
        else:
            rolls = [a for a in ask.answers if isinstance(a, Roll)]
            if rolls and rng.random() < 0.7:
                screen.roll(rolls[0])
            else:
                session.play([answer(game, session.state, ask, rng)])
                screen.changed()
                if rng.random() < 0.3:  # taken back at once: the same head and state as before
                    screen.undo()
        assert session.summary() == summarise(game, header.players, session.state)
        assert cached_view(session) == fresh_view(store, session.gid)
        fresh = PlayScreen(Session(store, session.gid), Host(), rng=random.Random(3))
        assert [i.label for i in screen.items()] == [i.label for i in fresh.items()]
        fresh.cursor = screen.cursor
        assert drawn(screen) == drawn(fresh)


def test_redrawing_and_moving_the_cursor_read_nothing_from_the_store(tmp_path: pathlib.Path) -> None:
    """After an undone device roll the dice prompt offers its faces again: drawing that
    screen and moving along it are answered from memory, not by a query per frame."""
    box = Harness(tmp_path)
    box.app.session = Session.new(box.store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    box.app.open(box.app.session.gid)
    box.intent("roll")
    box.intent("undo")
    box.app.frame()
    statements: list[str] = []
    box.store.db.set_trace_callback(statements.append)
    for kind in ("down", "down", "up", "up"):
        box.app.handle(Intent(kind))
        box.app.frame()
    box.store.db.set_trace_callback(None)
    screen = box.app.top
    assert isinstance(screen, PlayScreen) and screen.items()[screen.cursor].label.startswith("Use ")
    assert statements == []
    box.close()


def test_rolling_forward_asks_the_store_for_no_undone_roll(store: Store) -> None:
    """No undone roll can wait past the furthest entry the dice audit reaches: playing on
    with device rolls reads no rolls from the store, however long the game; after an undo
    the roll is looked up, and offered."""
    session = Session.new(store, replay_text("game leaf-climbers\nplayers Ann Bob\n").header)
    screen = PlayScreen(session, Host(), rng=random.Random(3))
    screen.items()
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    dice_prompts = 0
    for _ in range(12):
        ask = session.prompt()
        assert ask is not None
        rolls = [a for a in ask.answers if isinstance(a, Roll)]
        if rolls:
            dice_prompts += 1
            screen.roll(rolls[0])
        else:
            session.play([Line(ask.actor, "stay")])
            screen.changed()
        screen.items()
    def lookups() -> list[str]:
        return [sql for sql in statements if sql.startswith("SELECT") and "FROM rolls" in sql]
    assert dice_prompts >= 6 and not lookups()
    screen.undo()
    assert screen.items()[screen.cursor].label.startswith("Use ")
    assert lookups()
    store.db.set_trace_callback(None)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 8), min_size=1, max_size=2), st.sampled_from(["", "leaf 1 of 3"]),
       st.booleans(), st.sampled_from(["Ann", "table"]))
def test_a_dice_prompts_listed_faces_are_the_same_kept_or_worked_out(
        sides: list[int], chance: str, named: bool, actor: str) -> None:
    """The faces listed for a die are kept per roll asked: what is kept is what working
    them out gives, for every roll asked again, and cannot be changed by a caller."""
    names = tuple(f"s{face}" for face in range(1, max(sides) + 1)) if named else ()
    ask = Roll(actor, "roll", tuple(sides), tuple(f"d{n}" for n in sides), chance=chance, names=names)
    worked_out = tuple(listed_faces.__wrapped__(ask))
    assert listed_faces(ask) == worked_out
    assert listed_faces(Roll(actor, "roll", tuple(sides), tuple(f"d{n}" for n in sides),
                             chance=chance, names=names)) == worked_out
    assert isinstance(listed_faces(ask), tuple)


def test_dice_from_a_reader_are_applied_once_even_a_die_at_a_time(
        tmp_path: pathlib.Path, applied: list[Line]) -> None:
    """The console checks faces as they come (a chain of rolls in one line, or one die a
    line) and logs the entry once it is whole: each line is applied once on the way."""
    box = ConsoleBox(tmp_path)
    box.ok("game leaf-climbers", "players Ann Bob")
    applied.clear()
    assert box.ok("dice 2 3 3 1 1") == ["table drop 2; table leaf 3 3; table leaf 1 1"]
    assert [str(line) for line in applied] == ["table drop 2", "table leaf 3 3", "table leaf 1 1"]
    box.ok("game microbot-racers", "players Ann Bob")
    applied.clear()
    assert box.ok("die 6") == ["waiting for 1 more face(s): Ann 6, Bob ?"]
    assert box.ok("die 2") == ["table roll 6 2"]
    assert [str(line) for line in applied] == ["table roll 6 2"]
