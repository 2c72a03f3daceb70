"""Power cuts on a disk that forgets every unsynced write: with the store's durability
settings every acknowledged change survives; with them weakened, changes are lost.

The suite's game is 20 actions, about 250 file operations: it holds every kind of change
(the game created, an action, undo, redo, an action after an undo that drops the redo
stack) several times over, and each later action only repeats those operations further
into the log. The sweep costs the square of the length;

    COMPANION_CUT_ACTIONS=60 pytest tests/test_cutdisk.py      # the long run

cuts a 60-action game (about 750 file operations) at each of its file operations.
"""

from __future__ import annotations

import os
import pathlib
import random
import sqlite3
from collections.abc import Callable
from typing import Any, cast

import pytest

import companion.store as store_module
from companion.games import GAMES
from companion.games.base import Line
from companion.record import Header
from companion.session import Session
from companion.store import DURABILITY, Store
from tests.cutdisk import Connection, Disk, PowerCut
from tests.playout import playout

# Durability is what these tests prove: their files stay on a real disk.
pytestmark = pytest.mark.durable

MICROBOT = GAMES["microbot-racers"]
HEADER = Header(MICROBOT, ("Ann", "Bob"))
_, ACTIONS = playout(MICROBOT, HEADER.players, random.Random(11),
                    steps=int(os.environ.get("COMPANION_CUT_ACTIONS", "20")))
State = tuple[int, tuple[tuple[str, ...], ...]] | None  # head and entries; None: no game yet


def script() -> list[Callable[[Session | None, Store], Session]]:
    """A game as the players log it: the create, every action, and now and then an undo and
    a redo (a head move is a change to keep too)."""
    ops: list[Callable[[Session | None, Store], Session]] = [
        lambda _, store: Session.new(store, HEADER)]

    def play(line: Line) -> Callable[[Session | None, Store], Session]:
        def run(session: Session | None, _: Store) -> Session:
            assert session is not None
            session.play([line])
            return session
        return run

    def step(name: str) -> Callable[[Session | None, Store], Session]:
        def run(session: Session | None, _: Store) -> Session:
            assert session is not None
            getattr(session, name)()
            return session
        return run

    for number, line in enumerate(ACTIONS):
        ops.append(play(line))
        if number % 4 == 3:
            ops += [step("undo"), step("undo"), step("redo"), step("redo")]
    return ops


def state_of(store: Store) -> State:
    games = store.games()
    if not games:
        return None
    return games[0].head, tuple(e.lines for e in store.entries(games[0].id))


def run(directory: pathlib.Path, cut_at: int) -> int:
    """Play the script on the cutting disk until the power goes during file operation
    ``cut_at``; how many changes were acknowledged (returned from the store) before."""
    disk = Disk()
    disk.cut_at = cut_at
    path = str(directory / "companion.sqlite")
    acknowledged = 0
    store = None
    try:
        store = Store(path, connect=lambda p: cast(sqlite3.Connection, Connection(p, disk.name)))
        session: Session | None = None
        for op in script():
            session = op(session, store)
            acknowledged += 1
    except PowerCut:
        pass
    disk.cut()  # also when the script ended first: the plug is pulled right after it
    if store is not None:
        store.close()
    disk.restore()
    disk.unregister()
    return acknowledged


def after_restart(directory: pathlib.Path) -> tuple[State, str]:
    """What the production store (Python's sqlite3) finds on the disk after the cut, and
    SQLite's integrity check of the file ("ok")."""
    try:
        store = Store(str(directory / "companion.sqlite"))
    except sqlite3.DatabaseError as err:
        return None, str(err)
    try:
        check = store.db.execute("PRAGMA integrity_check").fetchone()[0]
        return state_of(store), check
    except sqlite3.DatabaseError as err:
        return None, str(err)
    finally:
        store.close()


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[State], int]:
    """The state after each change of an uncut run, and how many file operations it made."""
    directory = tmp_path_factory.mktemp("uncut")
    disk = Disk()
    path = str(directory / "companion.sqlite")
    store = Store(path, connect=lambda p: cast(sqlite3.Connection, Connection(p, disk.name)))
    states: list[State] = [state_of(store)]
    session: Session | None = None
    for op in script():
        session = op(session, store)
        states.append(state_of(store))
    operations = disk.operations
    store.close()
    disk.unregister()
    return states, operations


def losses(tmp_path: pathlib.Path, expected: tuple[list[State], int],
           cut_points: range) -> tuple[int, int]:
    """(cuts after which an acknowledged change was lost or the file was corrupt, cuts)."""
    states, _ = expected
    lost = 0
    for cut_at in cut_points:
        directory = tmp_path / f"cut-{cut_at}"
        directory.mkdir()
        acknowledged = run(directory, cut_at)
        found, check = after_restart(directory)
        # Every acknowledged change, and at most the one in flight; never anything else.
        if check != "ok" or found not in states[acknowledged:acknowledged + 2]:
            assert check != "ok" or found in states[:acknowledged], f"cut at {cut_at}: {found}"
            lost += 1
    return lost, len(cut_points)


def test_the_disk_forgets_exactly_what_was_not_synced(tmp_path: pathlib.Path) -> None:
    """The test layer itself: unsynced bytes vanish at the cut, synced ones stay."""
    disk = Disk()
    path = str(tmp_path / "file")
    import apsw

    handle = disk.xOpen(path, [apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_READWRITE
                               | apsw.SQLITE_OPEN_MAIN_DB, 0])
    handle.xWrite(b"kept", 0)
    handle.xSync(apsw.SQLITE_SYNC_FULL)
    handle.xWrite(b"LOST", 4)
    assert pathlib.Path(path).read_bytes() == b"keptLOST"  # the page cache has it...
    disk.cut()
    handle.xClose()
    disk.restore()
    disk.unregister()
    assert pathlib.Path(path).read_bytes() == b"kept"  # ...the card never did


def test_every_acknowledged_change_survives_a_cut_at_every_file_operation(
        tmp_path: pathlib.Path, expected: tuple[list[State], int]) -> None:
    states, operations = expected
    assert DURABILITY == {"journal_mode": "WAL", "synchronous": "FULL"}
    assert operations > 100 and len(states) > 30
    lost, cuts = losses(tmp_path, expected, range(1, operations + 1))
    assert (lost, cuts) == (0, operations)


@pytest.mark.parametrize("weakened", [
    {"journal_mode": "WAL", "synchronous": "OFF"},
    {"journal_mode": "WAL", "synchronous": "NORMAL"},  # syncs the log only at checkpoints
])
def test_the_same_cuts_lose_acknowledged_changes_with_durability_weakened(
        tmp_path: pathlib.Path, expected: tuple[list[State], int], weakened: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The durability settings make the difference: this is the test above, and it fails."""
    monkeypatch.setattr(store_module, "DURABILITY", weakened)
    _, operations = expected
    lost, _cuts = losses(tmp_path, expected, range(5, operations, max(1, operations // 40)))
    assert lost > 0, f"{weakened}: no cut lost anything, so the test could not tell"
