"""State checkpoints in the store: resuming replays only what follows the last one, and a
checkpoint that does not match the record (or this code) is dropped, never trusted."""

from __future__ import annotations

import io
import random
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import companion.session
from companion import checkpoint
from companion.bench import long_race
from companion.checkpoint import decode, encode, engine_tag
from companion.export import export
from companion.games import GAMES
from companion.games.base import Game, Line
from companion.importer import import_stream
from companion.record import Header, format_record
from companion.session import Session
from companion.store import ENTRY_SUMMED, Store, checksum
from tests.faults import row_flips
from tests.playout import answer, players_for, playout

MICROBOT = GAMES["microbot-racers"]
#: Checkpoints this far apart in these tests (games this long play quickly); one test
#: checks the spacing the companion uses.
EVERY = 16


@pytest.fixture(autouse=True)
def spacing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(companion.session, "EVERY", EVERY)


def replayed(game: Game[Any, Any], header: Header, lines: list[Line]) -> Any:
    """The state the record reaches, replayed from its first line."""
    state = header.start()
    for line in lines:
        state = game.apply(state, line)
    return state


def race(length: int, seed: int = 3) -> tuple[Header, list[Line]]:
    """A Microbot race of ``length`` lines that never ends (the bench's long game)."""
    return long_race(length, seed)


def stored(store: Store, header: Header, lines: list[Line]) -> Session:
    """A game played entry by entry through the session, as the buttons would."""
    session = Session.new(store, header)
    for line in lines:
        session.play([line])
    return session


@pytest.fixture
def count_applies(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many lines the Microbot engine applies (a replay's length)."""
    calls = [0]
    apply = type(MICROBOT).apply

    def counted(self: Any, state: Any, line: Line) -> Any:
        calls[0] += 1
        return apply(self, state, line)

    monkeypatch.setattr(type(MICROBOT), "apply", counted)
    yield calls


def checkpoints(store: Store, gid: int) -> list[int]:
    return [seq for (seq,) in store.db.execute(
        "SELECT seq FROM checkpoints WHERE game = ? ORDER BY seq", (gid,))]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(game_id=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1),
       extra=st.integers(0, 3), back=st.integers(0, 120))
def test_resuming_from_a_checkpoint_reaches_the_state_a_full_replay_does(
        game_id: str, seed: int, extra: int, back: int) -> None:
    game = GAMES[game_id]
    header = Header(game, players_for(game, extra))
    _, lines = playout(game, header.players, random.Random(seed), steps=150)
    store = Store(":memory:")
    session = stored(store, header, lines)
    for _ in range(min(back, len(lines))):
        session.undo()
    head = session.head
    assert checkpoints(store, session.gid) == list(range(EVERY, len(lines) + 1, EVERY))
    resumed = Session(store, session.gid)
    assert resumed.head == head
    assert resumed.state == replayed(game, header, lines[:head])
    assert resumed.prompt() == session.prompt()
    assert resumed.summary() == session.summary()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game_id=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
def test_every_state_of_a_game_reads_back_equal_from_its_text(game_id: str, seed: int) -> None:
    game = GAMES[game_id]
    state = game.start(players_for(game, 2), game.option_values({}))
    _, lines = playout(game, players_for(game, 2), random.Random(seed), steps=200)
    for line in lines:
        state = game.apply(state, line)
        assert decode(game, encode(state), like=state) == state


def test_resuming_a_long_game_replays_only_the_entries_after_its_last_checkpoint(
        count_applies: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(companion.session, "EVERY", checkpoint.EVERY)  # as the companion runs
    store = Store(":memory:")
    header, lines = race(3 * checkpoint.EVERY + 5)
    gid = stored(store, header, lines).gid
    count_applies[0] = 0
    resumed = Session(store, gid)
    assert count_applies[0] == 5
    assert resumed.state == replayed(MICROBOT, header, lines)


def test_an_imported_game_resumes_without_replaying_its_record(
        count_applies: list[int], tmp_path: Any) -> None:
    """Review of issue 28: an import stored no checkpoint, so the first Resume of an imported
    game replayed all of it in that press (0.2 s for 10,000 entries here, a second or two on
    a Pi Zero 2, minutes for the 16 MiB a record may be). The import keeps the state it
    reached, as playing it on the box would have."""
    path = str(tmp_path / "companion.sqlite")
    header, lines = race(3 * checkpoint.EVERY + 5)
    gid = import_stream(io.BytesIO(format_record(header, lines).encode()), lambda: Store(path))
    store = Store(path)
    count_applies[0] = 0
    resumed = Session(store, gid)
    assert count_applies[0] == 0
    assert resumed.state == replayed(MICROBOT, header, lines)
    store.close()


def stale_by(how: str, store: Store, gid: int) -> None:
    """Make the game's checkpoints disagree with the record or this code, one way."""
    db = store.db
    if how == "record edited":  # same meaning, other text, summed anew: only the digest can tell
        first = db.execute("SELECT lines FROM entries WHERE game = ? AND seq = 1", (gid,)).fetchone()[0]
        edited = first.replace(" ", "  ", 1)
        crc = checksum(tuple(db.execute(f"SELECT {', '.join(ENTRY_SUMMED)} FROM entries WHERE"
                                        " game = ? AND seq = 1", (gid,)).fetchone())[:2]
                       + (edited,) + tuple(db.execute("SELECT rolled, source FROM entries WHERE"
                                                       " game = ? AND seq = 1", (gid,)).fetchone()))
        db.execute("UPDATE entries SET lines = ?, crc = ? WHERE game = ? AND seq = 1",
                   (edited, crc, gid))
    elif how == "other version":
        db.execute("UPDATE checkpoints SET engine = '1 0.0.1 microbot-racers 0000'")
    elif how == "damaged text":
        db.execute("UPDATE checkpoints SET state = substr(state, 1, 40)")
    elif how == "not text":
        db.execute("UPDATE checkpoints SET state = x'00ff', digest = x'00'")
    elif how == "other shape":
        db.execute("UPDATE checkpoints SET state = replace(state, '\"turn\"', '\"round\"')")


@pytest.mark.parametrize("how", ["record edited", "other version", "damaged text", "not text",
                                 "other shape"])
def test_a_checkpoint_that_does_not_match_is_dropped_and_the_record_replayed(how: str) -> None:
    store = Store(":memory:")
    header, lines = race(2 * EVERY + 3)
    gid = stored(store, header, lines).gid
    # Put the start state where the checkpoints were: trusted, it would show a wrong game.
    store.db.execute("UPDATE checkpoints SET state = ?", (encode(header.start()),))
    stale_by(how, store, gid)
    resumed = Session(store, gid)
    assert resumed.state == replayed(MICROBOT, header, lines)
    # Dropped and replaced by the state reached: the next opening starts from there.
    assert checkpoints(store, gid) == [len(lines)]
    assert Session(store, gid).state == resumed.state


def test_a_press_that_writes_a_checkpoint_after_a_damaged_one_still_logs(
        count_applies: list[int]) -> None:
    store = Store(":memory:")
    header, lines = race(2 * EVERY + 3)
    session = stored(store, header, lines[:EVERY])
    store.db.execute("UPDATE checkpoints SET digest = 'not a digest'")
    for line in lines[EVERY:]:
        session.play([line])  # the next checkpoint is summed up from the record's start
    expected = replayed(MICROBOT, header, lines)
    count_applies[0] = 0
    assert Session(store, session.gid).state == expected
    assert count_applies[0] == 3  # from the sound checkpoint after entry 2 x EVERY
    assert checkpoints(store, session.gid) == [len(lines)]  # the damaged one is gone


def test_a_checkpoint_past_an_undo_is_dropped_when_the_game_takes_another_way() -> None:
    store = Store(":memory:")
    header, lines = race(EVERY + 10, seed=4)
    session = stored(store, header, lines)
    for _ in range(15):
        session.undo()
    assert checkpoints(store, session.gid) == [EVERY]  # kept for redo
    assert Session(store, session.gid).state == replayed(MICROBOT, header, lines[:EVERY - 5])
    session.redo()
    session.redo()
    assert Session(store, session.gid).state == replayed(MICROBOT, header, lines[:EVERY - 3])
    ask = MICROBOT.prompt(session.state)
    assert ask is not None
    # A line that differs from the redo stack's: the branch after it is gone, checkpoint too.
    branch = next(line for seed in range(100)
                  if str(line := answer(MICROBOT, session.state, ask, random.Random(seed)))
                  != str(lines[EVERY - 3]))
    session.play([branch])
    assert checkpoints(store, session.gid) == []
    reopened = Session(store, session.gid)
    assert reopened.state == replayed(MICROBOT, header, [*lines[:EVERY - 3], branch])


def test_undo_after_resuming_walks_back_past_the_checkpoint(count_applies: list[int]) -> None:
    store = Store(":memory:")
    header, lines = race(4 * EVERY + 2)
    gid = stored(store, header, lines).gid
    resumed = Session(store, gid)
    expected = [replayed(MICROBOT, header, lines[:n]) for n in range(len(lines) + 1)]
    count_applies[0] = 0
    for back in range(1, 2 * EVERY + 10):
        resumed.undo()
        assert resumed.state == expected[len(lines) - back]
    # Rebuilt from the stored checkpoints, a few entries at a time, never from the start.
    assert count_applies[0] <= 3 * (2 * EVERY + 10)


def test_a_store_from_the_previous_version_gets_its_checkpoints_on_first_opening(
        path: str, count_applies: list[int]) -> None:
    header, lines = race(2 * EVERY + 7)
    store = Store(path)
    gid = stored(store, header, lines).gid
    store.db.execute("DROP TABLE checkpoints")  # the previous version's store
    store.close()
    store = Store(path)
    expected = replayed(MICROBOT, header, lines)
    count_applies[0] = 0
    assert Session(store, gid).state == expected
    assert count_applies[0] == len(lines)  # nothing to start from: the whole record, once
    assert checkpoints(store, gid) == [len(lines)]
    count_applies[0] = 0
    assert Session(store, gid).state == expected
    assert count_applies[0] == 0
    store.close()


def test_salvage_carries_the_record_and_not_the_checkpoints() -> None:
    store = Store(":memory:")
    header, lines = race(EVERY)
    gid = stored(store, header, lines).gid
    rows = {table: [dict(row) for row in store.db.execute(f"SELECT * FROM {table}")]
            for table in ("games", "entries", "checkpoints")}
    fresh = Store(":memory:")
    fresh.carry(rows)
    assert checkpoints(fresh, gid) == []
    assert Session(fresh, gid).state == replayed(MICROBOT, header, lines)


def test_export_replays_the_record_whatever_the_checkpoints_hold() -> None:
    store = Store(":memory:")
    header, lines = race(EVERY + 1)
    session = stored(store, header, lines)
    store.db.execute("UPDATE checkpoints SET state = ?", (encode(header.start()),))
    exported = export(store, session.gid)
    assert exported is not None
    assert exported.summary == session.summary()
    assert exported.record == session.record()


def test_a_store_that_cannot_be_written_still_resumes(path: str) -> None:
    header, lines = race(EVERY + 3)
    store = Store(path)
    gid = stored(store, header, lines).gid
    store.db.execute("DELETE FROM checkpoints")
    store.close()
    store = Store(path)
    store.db.execute("PRAGMA query_only = ON")  # a card turned read-only
    assert Session(store, gid).state == replayed(MICROBOT, header, lines)
    store.db.close()


def test_the_engine_tag_names_the_encoding_the_version_and_the_engine() -> None:
    tag = engine_tag(MICROBOT)
    assert tag.split()[:3] == ["1", __import__("companion").__version__, "microbot-racers"]
    assert tag != engine_tag(GAMES["leaf-climbers"])
    with pytest.raises(sqlite3.Error):  # the table is the store's: a plain schema check
        Store(":memory:").db.execute("INSERT INTO checkpoints (game, seq) VALUES (1, 1)")


def long_enough(game: Game[Any, Any], length: int) -> tuple[Header, list[Line]]:
    """A random game of ``game`` at least ``length`` lines long (seeds tried in turn)."""
    for seed in range(100):
        players = players_for(game, seed % 2)
        _, lines = playout(game, players, random.Random(seed), steps=length)
        if len(lines) == length:
            return Header(game, players), lines
    raise AssertionError(f"no {game.id} game of {length} lines in 100 seeds")


#: Every bit of the row for one game; for the others every bit of every STRIDE-th byte (a
#: sample within the suite's time: all bits of all five games take 4 times as long).
ALL_BITS, STRIDE = "gleebs-and-grues", 5


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_single_bit_flip_of_a_stored_checkpoint_resumes_the_records_state(
        game_id: str) -> None:
    """Each bit of the checkpoint row (its state, digest, engine tag and position) flipped
    in turn: the game opens every time, at the state its record replays to. A flip that
    made a wrong state look right, or an error, would be listed."""
    game = GAMES[game_id]
    header, lines = long_enough(game, EVERY + 2)
    store = Store(":memory:")
    gid = stored(store, header, lines).gid
    expected = replayed(game, header, lines)
    (seq,) = checkpoints(store, gid)
    flips, wrong, failed = 0, [], []
    for flip in row_flips(store.db, "checkpoints", {"game": gid, "seq": seq},
                          ("state", "digest", "engine", "seq"),
                          stride=1 if game_id == ALL_BITS else STRIDE):
        flips += 1
        try:
            if Session(store, gid).state != expected:
                wrong.append(flip)
        except Exception as err:
            failed.append(f"{flip}: {type(err).__name__}: {err}")
        store.db.execute("DELETE FROM checkpoints WHERE game = ?", (gid,))  # a renewed one
    print(f"{game_id}: {flips} flips, {len(wrong)} wrong states, {len(failed)} errors")
    assert flips > 500
    assert wrong == [] and failed == []
