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


def test_an_entry_logged_as_a_new_whole_copy_takes_its_first_copy(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review of this change: entries undone while the worker wrote a new whole copy,
    then an entry committed just as the worker made that copy's first copy (of the undone
    game's row alone). The entry's own copy found the store's sequence already copied and
    copied nothing: the copies held an undone entry in its place."""
    monkeypatch.setattr(backup, "REBASE", 100.0)
    writing, go_write = threading.Event(), threading.Event()
    in_first_copy, go_on = threading.Event(), threading.Event()
    real_write, real_append = backup.write_copy, backup.append_changes

    def held_write(path: pathlib.Path, fresh: pathlib.Path) -> None:
        real_write(path, fresh)
        if threading.current_thread().name == "backups" and copies(path):
            writing.set()
            assert go_write.wait(30)

    def held_first_copy(path: pathlib.Path, changes: pathlib.Path,
                        changed: backup.Changed) -> str:
        if threading.current_thread().name == "backups" and "next" in changes.name:
            in_first_copy.set()
            assert go_on.wait(30)
        return real_append(path, changes, changed)

    monkeypatch.setattr(backup, "write_copy", held_write)
    monkeypatch.setattr(backup, "append_changes", held_first_copy)
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(2711)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        for _ in range(10):
            step(session, rng)
        monkeypatch.setattr(backup, "REBASE", 0.0)  # due at the next entry
        step(session, rng)
        assert writing.wait(30)
        monkeypatch.setattr(backup, "REBASE", 100.0)
        for _ in range(3):
            session.undo()  # copied into the copies before the new whole one
        go_write.set()
        assert in_first_copy.wait(30)
        threading.Timer(0.3, go_on.set).start()
        step(session, rng)  # committed while the worker's first copy waits, then copied
        assert store_lost(state, tmp_path / "cut") == answered(store, session.gid)
    finally:
        go_write.set()
        go_on.set()
        backups.stop()
        store.close()


def test_one_new_whole_copy_when_one_is_due(tmp_path: pathlib.Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: entries logged while the worker wrote a new whole copy each asked for
    another, and a second one followed at once (twice the writing, and the two kept whole
    copies alike). The worker makes one only when the newest copies call for it."""
    monkeypatch.setattr(backup, "REBASE", 0.3)  # due after a few dozen entries
    made: list[str] = []
    writing, go_on = threading.Event(), threading.Event()
    real = backup.write_copy

    def counted(path: pathlib.Path, fresh: pathlib.Path) -> None:
        real(path, fresh)
        made.append(fresh.name)
        if threading.current_thread().name == "backups" and copies(path):
            writing.set()
            assert go_on.wait(30)

    monkeypatch.setattr(backup, "write_copy", counted)
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(3)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        for _ in range(300):
            step(session, rng)
            if writing.wait(0.01):
                break
        else:
            pytest.fail("no new whole copy was made")
        for _ in range(3):  # the copies before the new one are still due: each one says so
            step(session, rng)
        go_on.set()
        for _ in range(100):
            if len(copies(store.path)) == 2:
                break
            time.sleep(0.05)
        time.sleep(0.5)  # a second one would have begun by now
        assert made == ["companion.sqlite.backup-new", "companion.sqlite.backup-next"]
        assert store_lost(state, tmp_path / "cut") == answered(store, session.gid)
    finally:
        go_on.set()
        backups.stop()
        store.close()


def test_the_first_entry_after_a_start_waits_for_no_whole_copy(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: a start whose copies had grown to call for a new whole copy made it
    holding the copies' lock, and the first entry waited for it (seconds on a big store)."""
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(4)
    session = Session.new(store, Header(GAME, ("Ann", "Bob")))
    for _ in range(3):
        step(session, rng)
    backups.stop()
    store.close()
    monkeypatch.setattr(backup, "REBASE", 0.0)  # due at the start
    real = backup.write_copy

    def slow(path: pathlib.Path, fresh: pathlib.Path) -> None:
        time.sleep(3)  # a big store on a card
        real(path, fresh)

    monkeypatch.setattr(backup, "write_copy", slow)
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    try:
        session = Session(store, session.gid)
        time.sleep(0.2)  # the worker's first copy is under way
        started = time.monotonic()
        step(session, rng)
        assert time.monotonic() - started < 1.5, "the entry waited for a whole copy"
        assert store_lost(state, tmp_path / "cut") == answered(store, session.gid)
    finally:
        backups.stop()
        store.close()


def test_a_copy_that_failed_is_made_at_the_stop(tmp_path: pathlib.Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: a copy that failed (a full card) waited for the next entry, and a clean
    stop after the last one left it in the store alone."""
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(6)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        step(session, rng)
        real = backup.append_changes

        def full(*args: object) -> str:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(backup, "append_changes", full)
        step(session, rng)  # answered: it is in the store; its copy failed
        monkeypatch.setattr(backup, "append_changes", real)  # room again
    finally:
        backups.stop()
        store.close()
    store = Store(str(state / "companion.sqlite"))
    played = answered(store, session.gid)
    store.close()
    assert store_lost(state, tmp_path / "cut") == played


def test_whole_copies_a_power_cut_left_unfinished_are_removed_at_the_start(
        tmp_path: pathlib.Path) -> None:
    """The review: a whole copy a power cut left half-written (under its name before it
    takes a number) stayed beside the copies, as big as the store, until the next one."""
    state = tmp_path / "state"
    state.mkdir()
    left = [state / f"companion.sqlite.backup-{name}{end}" for name in ("new", "next")
            for end in ("", ".changes")]
    for name in left:
        name.write_bytes(b"half")
    store = Store(str(state / "companion.sqlite"))
    keep_copies(store).stop()
    store.close()
    assert not any(name.exists() for name in left)
    assert copies(state / "companion.sqlite")  # and a whole copy was made


def test_a_card_that_fails_to_list_the_copies_never_refuses_an_entry(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: listing the copies after an entry's copy was outside the copy's guard,
    so an I/O error there came out of the store's commit as the press's error, for an
    entry already stored. The entry stands; the copy's failure is the log's."""
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(8)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        step(session, rng)

        def failing(path: object) -> list[pathlib.Path]:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(backup, "copies", failing)
        step(session, rng)
        assert len(answered(store, session.gid)) == 2
    finally:
        monkeypatch.undo()
        backups.stop()
        store.close()


def test_a_new_whole_copy_in_place_holds_a_state_that_was_or_is_stored(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second review: an entry pushed after undos, committed between the worker
    taking the games changed during its new whole copy and its first copy's read of the
    store, was copied from where the undos had left off: the game's row with the undone
    entries in force. A power cut before the entry's own copy would have brought them back."""
    monkeypatch.setattr(backup, "REBASE", 100.0)
    writing, go_write = threading.Event(), threading.Event()
    in_first_copy, go_on = threading.Event(), threading.Event()
    real_write, real_append, real_install = (backup.write_copy, backup.append_changes,
                                             backup.install_base)
    at_install: list[list[tuple[str, ...]]] = []

    def held_write(path: pathlib.Path, fresh: pathlib.Path) -> None:
        real_write(path, fresh)
        if threading.current_thread().name == "backups" and copies(path):
            writing.set()
            assert go_write.wait(30)

    def held_first_copy(path: pathlib.Path, changes: pathlib.Path,
                        changed: backup.Changed) -> str:
        if threading.current_thread().name == "backups" and "next" in changes.name:
            in_first_copy.set()
            assert go_on.wait(30)
        return real_append(path, changes, changed)

    def looked_at(path: pathlib.Path, fresh: pathlib.Path, keep: int = backup.KEEP,
                  prune: bool = True) -> pathlib.Path:
        made = real_install(path, fresh, keep, prune)
        if fresh.name.endswith("next"):  # the worker's, just put in place
            at_install.append(store_lost(path.parent, tmp_path / f"at-{made.name}"))
        return made

    monkeypatch.setattr(backup, "write_copy", held_write)
    monkeypatch.setattr(backup, "append_changes", held_first_copy)
    monkeypatch.setattr(backup, "install_base", looked_at)
    state = tmp_path / "state"
    state.mkdir()
    store = Store(str(state / "companion.sqlite"))
    backups = keep_copies(store)
    rng = random.Random(2711)
    try:
        session = Session.new(store, Header(GAME, ("Ann", "Bob")))
        for _ in range(10):
            step(session, rng)
        monkeypatch.setattr(backup, "REBASE", 0.0)
        step(session, rng)
        assert writing.wait(30)
        monkeypatch.setattr(backup, "REBASE", 100.0)
        for _ in range(3):
            session.undo()
        undone = answered(store, session.gid)
        go_write.set()
        assert in_first_copy.wait(30)
        threading.Timer(0.3, go_on.set).start()
        step(session, rng)  # committed while the worker's first copy waits
        assert at_install and at_install[0] in (undone, answered(store, session.gid))
    finally:
        go_write.set()
        go_on.set()
        backups.stop()
        store.close()
