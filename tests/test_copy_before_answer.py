"""Issue 24: an entry is in a backup copy before it is acknowledged.

A card that loses the store file or its log right after a power cut (a 0-byte file, a
file system put right by fsck) must still hold every entry the screen or the console
answered. With the copies' worker running, :meth:`Backups.changed` (called by the store
after each commit, before the loop answers) returns only once the change is copied, and a
new whole copy, made by the worker while the table plays on, never leaves out an entry
copied meanwhile.
"""

from __future__ import annotations

import pathlib
import random
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable

import pytest

from companion import backup
from companion.backup import changes_of, copies, keep_copies
from companion.games import GAMES
from companion.record import Header
from companion.salvage import open_store
from companion.session import Session
from companion.store import Store
from tests.playout import answer

GAME = GAMES["penguin-panic"]


def step(session: Session, rng: random.Random) -> None:  # type: ignore[type-arg]
    """One legal entry, as the table would log it."""
    state = session.state
    ask = GAME.prompt(state)
    assert ask is not None, "the game is not over yet"
    session.play([answer(GAME, state, ask, rng)])


def answered(store: Store, gid: int) -> list[tuple[str, ...]]:
    return [entry.lines for entry in store.entries(gid)]


def store_lost(state: pathlib.Path, into: pathlib.Path) -> list[tuple[str, ...]]:
    """The state directory as a power cut leaves it this instant, with the store's main
    file and its log then lost: what a start brings back of game 1, from the copies."""
    into.mkdir()
    for name in state.iterdir():
        if name.is_file() and not name.name.startswith("companion.sqlite-") \
                and name.name != "companion.sqlite":
            shutil.copyfile(name, into / name.name)
    store, finding = open_store(str(into / "companion.sqlite"))
    try:
        assert finding, "a store with no main file and copies beside it is damage"
        return answered(store, 1)
    finally:
        store.close()


def test_every_answered_entry_and_undo_is_already_in_a_copy(tmp_path: pathlib.Path) -> None:
    """After each entry, undo and redo returns (when the daemon would answer), losing the
    store and its log loses none of it: entries, then two undone, then another way on."""
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(24)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        for number in range(1, 15):
            if number == 8:  # two taken back, one brought back, then another way on
                session.undo()
                session.undo()
                session.redo()
                assert store_lost(state, tmp_path / f"undo-{number}") == answered(store, session.gid)
            step(session, rng)
            assert store_lost(state, tmp_path / f"cut-{number}") == answered(store, session.gid)
    finally:
        backups.stop()
        store.close()


def test_a_whole_copy_made_meanwhile_leaves_out_no_entry(tmp_path: pathlib.Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries logged while the worker writes a new whole copy go into the copies before it
    and, once it is in place, into its own: at every moment the newest whole copy and its
    changes hold every entry answered, also when an undo came in between."""
    monkeypatch.setattr(backup, "REBASE", 0.05)  # a new whole copy due within a few entries
    writing, go_on = threading.Event(), threading.Event()
    real = backup.write_copy

    def slow_copy(path: pathlib.Path, fresh: pathlib.Path) -> None:
        real(path, fresh)
        if copies(path):  # not the first whole copy, at the start: held unfinished
            writing.set()
            assert go_on.wait(30)

    monkeypatch.setattr(backup, "write_copy", slow_copy)
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(2711)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        for _ in range(200):
            step(session, rng)
            if writing.wait(0.01):  # the worker holds a new whole copy unfinished: play on
                break
        else:
            pytest.fail("no new whole copy was made")
        assert len(copies(store.path)) == 1
        for _ in range(5):
            step(session, rng)
        session.undo()
        session.undo()
        step(session, rng)
        assert store_lost(state, tmp_path / "during") == answered(store, session.gid)
        go_on.set()
        for _ in range(600):
            if len(copies(store.path)) == 2:
                break
            threading.Event().wait(0.05)
        assert len(copies(store.path)) == 2, "the new whole copy was never put in place"
        assert store_lost(state, tmp_path / "after") == answered(store, session.gid)
        for _ in range(3):  # and on into the new copy's changes
            step(session, rng)
        assert store_lost(state, tmp_path / "later") == answered(store, session.gid)
    finally:
        go_on.set()
        backups.stop()
        store.close()


def write_version_flipped(changes: pathlib.Path) -> None:
    """The chaos run (lane 271304): one bit of the header's write version (byte 18) makes
    SQLite open the file read-only, while every read and its quick check still pass."""
    raw = bytearray(changes.read_bytes())
    raw[18] ^= 0x02
    changes.write_bytes(bytes(raw))


def held_by_another_program(changes: pathlib.Path) -> sqlite3.Connection:
    """Another program holding the changes' write lock (and keeping it)."""
    holder = sqlite3.connect(changes, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


@pytest.mark.parametrize("fault", [write_version_flipped, held_by_another_program])
def test_copies_that_cannot_be_added_to_give_way_to_a_new_whole_copy(
        tmp_path: pathlib.Path, fault: Callable[[pathlib.Path], object]) -> None:
    """A changes file that is not written to as it is gives way to a new whole copy, at the
    next entry: that entry and every later one is in a copy when it is answered, and the
    answer comes at once (a lock held by another program is not waited out)."""
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(5)
    held = None
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        step(session, rng)
        held = fault(changes_of(copies(store.path)[0]))
        for number in range(3):
            started = time.monotonic()
            step(session, rng)
            assert time.monotonic() - started < 2.0, "the entry waited for the copies"
            assert store_lost(state, tmp_path / f"cut-{number}") == answered(store, session.gid)
        assert len(copies(store.path)) == 2  # one new whole copy, then on into its changes
    finally:
        if isinstance(held, sqlite3.Connection):
            held.close()
        backups.stop()
        store.close()


def test_a_whole_copy_a_press_needs_while_the_worker_makes_one(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the worker writes a new whole copy, the changes stop taking copies (a flipped
    bit): the press makes a whole copy of its own, under another name, and the worker's,
    now older, is dropped. Every entry is in a copy all along, and nothing is left over."""
    monkeypatch.setattr(backup, "REBASE", 0.05)
    writing, go_on = threading.Event(), threading.Event()
    real = backup.write_copy

    def slow_copy(path: pathlib.Path, fresh: pathlib.Path) -> None:
        real(path, fresh)
        if threading.current_thread().name == "backups" and copies(path):  # held unfinished
            writing.set()
            assert go_on.wait(30)

    monkeypatch.setattr(backup, "write_copy", slow_copy)
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(27)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        for _ in range(200):
            step(session, rng)
            if writing.wait(0.01):
                break
        else:
            pytest.fail("no new whole copy was made")
        write_version_flipped(changes_of(copies(store.path)[0]))
        step(session, rng)  # its copy: a whole one of the press's own
        assert len(copies(store.path)) == 2
        assert store_lost(state, tmp_path / "during") == answered(store, session.gid)
        go_on.set()
        for _ in range(600):
            if not (state / "companion.sqlite.backup-next").exists():
                break
            threading.Event().wait(0.05)
        step(session, rng)
        assert store_lost(state, tmp_path / "after") == answered(store, session.gid)
        left = sorted(p.name for p in state.iterdir() if "backup" in p.name)
        assert len(left) == 4 and all(p.name.startswith(("companion.sqlite.backup-", )) and
                                      p.name.removesuffix(".changes")[-1].isdigit()
                                      for p in state.iterdir() if "backup" in p.name), left
    finally:
        go_on.set()
        backups.stop()
        store.close()
