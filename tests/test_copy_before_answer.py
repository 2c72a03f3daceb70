"""Issue 24: an entry is in a backup copy before it is acknowledged.

A card that loses the store file or its log right after a power cut (a 0-byte file, a
file system put right by fsck) must still hold every entry the screen or the console
answered. With the copies' worker running, :meth:`Backups.changed` (called by the store
after each commit, before the loop answers) returns only once the change is copied, and a
new whole copy, made by the worker while the table plays on, never leaves out an entry
copied meanwhile.
"""

from __future__ import annotations

import contextlib
import pathlib
import random
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

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
STORE = "companion.sqlite"


def answered(store: Store, gid: int) -> list[tuple[str, ...]]:
    return [entry.lines for entry in store.entries(gid)]


def store_lost(state: pathlib.Path, into: pathlib.Path) -> list[tuple[str, ...]]:
    """The state directory as a power cut leaves it this instant, with the store's main
    file and its log then lost: what a start brings back of game 1, from the copies."""
    into.mkdir()
    for name in state.iterdir():
        if name.is_file() and not name.name.startswith(f"{STORE}-") and name.name != STORE:
            shutil.copyfile(name, into / name.name)
    store, finding = open_store(str(into / STORE))
    try:
        assert finding, "a store with no main file and copies beside it is damage"
        return answered(store, 1)
    finally:
        store.close()


@dataclass
class Table:
    """A game in play in a state directory of its own, its copies made as the daemon's."""

    state: pathlib.Path
    store: Store
    session: Session  # type: ignore[type-arg]
    rng: random.Random

    def step(self, times: int = 1) -> None:
        """Legal entries, as the table would log them."""
        for _ in range(times):
            position = self.session.state
            ask = GAME.prompt(position)
            assert ask is not None, "the game is not over yet"
            self.session.play([answer(GAME, position, ask, self.rng)])

    def answered(self) -> list[tuple[str, ...]]:
        return answered(self.store, self.session.gid)

    def lost(self, name: str) -> list[tuple[str, ...]]:
        """What the copies bring back, were the store and its log lost now."""
        return store_lost(self.state, self.state.parent / name)


@contextlib.contextmanager
def playing(tmp_path: pathlib.Path, seed: int, worker: Worker | None = None) -> Iterator[Table]:
    """A new game with the copies' worker running; stopped at the end (``worker``'s holds
    let go first)."""
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    store = Store(str(state / STORE))
    backups = keep_copies(store)
    try:
        yield Table(state, store, Session.new(store, Header(GAME, ("Ann", "Bob"))),
                    random.Random(seed))
    finally:
        if worker is not None:
            worker.go_write.set()
            worker.go_on.set()
        backups.stop()
        store.close()


@dataclass
class Worker:
    """The worker's new whole copies (not the first, at the start), held while each is
    written and, with ``first_copy``, at its first copy, until the test lets it go on."""

    writing: threading.Event = field(default_factory=threading.Event)
    go_write: threading.Event = field(default_factory=threading.Event)
    in_first_copy: threading.Event = field(default_factory=threading.Event)
    go_on: threading.Event = field(default_factory=threading.Event)
    written: list[str] = field(default_factory=list)  # every whole copy, by its name as written


def held_worker(monkeypatch: pytest.MonkeyPatch, first_copy: bool = False) -> Worker:
    worker = Worker()
    real_write, real_append = backup.write_copy, backup.append_changes

    def write(path: pathlib.Path, fresh: pathlib.Path) -> None:
        real_write(path, fresh)
        worker.written.append(fresh.name)
        if threading.current_thread().name == "backups" and copies(path):
            worker.writing.set()
            assert worker.go_write.wait(30)

    def append(path: pathlib.Path, changes: pathlib.Path, changed: backup.Changed) -> str:
        if first_copy and threading.current_thread().name == "backups" and "next" in changes.name:
            worker.in_first_copy.set()
            assert worker.go_on.wait(30)
        return real_append(path, changes, changed)

    monkeypatch.setattr(backup, "write_copy", write)
    monkeypatch.setattr(backup, "append_changes", append)
    return worker


def until_held(table: Table, worker: Worker) -> None:
    """Entries until the worker begins a new whole copy (and is held writing it)."""
    for _ in range(300):
        table.step()
        if worker.writing.wait(0.01):
            return
    pytest.fail("no new whole copy was made")


def until(done: Callable[[], bool], why: str) -> None:
    for _ in range(600):
        if done():
            return
        time.sleep(0.05)
    pytest.fail(why)


def test_every_answered_entry_and_undo_is_already_in_a_copy(tmp_path: pathlib.Path) -> None:
    """After each entry, undo and redo returns (when the daemon would answer), losing the
    store and its log loses none of it: entries, then two undone, then another way on."""
    with playing(tmp_path, 24) as table:
        for number in range(1, 15):
            if number == 8:  # two taken back, one brought back, then another way on
                table.session.undo()
                table.session.undo()
                table.session.redo()
                assert table.lost(f"undo-{number}") == table.answered()
            table.step()
            assert table.lost(f"cut-{number}") == table.answered()


def test_a_whole_copy_made_meanwhile_leaves_out_no_entry(tmp_path: pathlib.Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries logged while the worker writes a new whole copy go into the copies before it
    and, once it is in place, into its own: at every moment the newest whole copy and its
    changes hold every entry answered, also when an undo came in between."""
    monkeypatch.setattr(backup, "REBASE", 0.05)  # a new whole copy due within a few entries
    worker = held_worker(monkeypatch)
    with playing(tmp_path, 2711, worker) as table:
        until_held(table, worker)
        assert len(copies(table.store.path)) == 1
        table.step(5)
        table.session.undo()
        table.session.undo()
        table.step()
        assert table.lost("during") == table.answered()  # the older copies hold them
        worker.go_write.set()
        until(lambda: len(copies(table.store.path)) == 2, "the new whole copy was never put in place")
        assert table.lost("after") == table.answered()
        table.step(3)  # and on into the new copy's changes
        assert table.lost("later") == table.answered()


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
    held = None
    try:
        with playing(tmp_path, 5) as table:
            table.step()
            held = fault(changes_of(copies(table.store.path)[0]))
            for number in range(3):
                started = time.monotonic()
                table.step()
                assert time.monotonic() - started < 2.0, "the entry waited for the copies"
                assert table.lost(f"cut-{number}") == table.answered()
            assert len(copies(table.store.path)) == 2  # one new whole copy, then its changes
    finally:
        if isinstance(held, sqlite3.Connection):
            held.close()


def test_a_whole_copy_a_press_needs_while_the_worker_makes_one(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the worker writes a new whole copy, the changes stop taking copies (a flipped
    bit): the press makes a whole copy of its own, under another name, and the worker's,
    now older, is dropped. Every entry is in a copy all along, and nothing is left over."""
    monkeypatch.setattr(backup, "REBASE", 0.05)
    worker = held_worker(monkeypatch)
    with playing(tmp_path, 27, worker) as table:
        until_held(table, worker)
        monkeypatch.setattr(backup, "REBASE", 100.0)  # no whole copy after this one
        write_version_flipped(changes_of(copies(table.store.path)[0]))
        table.step()  # its copy: a whole one of the press's own
        assert len(copies(table.store.path)) == 2
        assert table.lost("during") == table.answered()
        worker.go_write.set()
        until(lambda: not (table.state / f"{STORE}.backup-next").exists(),
              "the worker's whole copy was never dropped")
        table.step()
        assert table.lost("after") == table.answered()
        left = [p.name for p in table.state.iterdir() if "backup" in p.name]
        assert len(left) == 4 and all(name.removesuffix(".changes")[-1].isdigit()
                                      for name in left), left


def test_an_entry_logged_as_a_new_whole_copy_takes_its_first_copy(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review of this change: entries undone while the worker wrote a new whole copy,
    then an entry committed just as the worker made that copy's first copy (of the undone
    game's row alone). The entry's own copy found the store's sequence already copied and
    copied nothing: the copies held an undone entry in its place."""
    monkeypatch.setattr(backup, "REBASE", 100.0)
    worker = held_worker(monkeypatch, first_copy=True)
    with playing(tmp_path, 2711, worker) as table:
        table.step(10)
        monkeypatch.setattr(backup, "REBASE", 0.0)  # due at the next entry
        table.step()
        assert worker.writing.wait(30)
        monkeypatch.setattr(backup, "REBASE", 100.0)
        for _ in range(3):
            table.session.undo()  # copied into the copies before the new whole one
        worker.go_write.set()
        assert worker.in_first_copy.wait(30)
        threading.Timer(0.3, worker.go_on.set).start()
        table.step()  # committed while the worker's first copy waits, then copied
        assert table.lost("cut") == table.answered()


def test_a_new_whole_copy_in_place_holds_a_state_that_was_or_is_stored(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second review: an entry pushed after undos, committed between the worker
    taking the games changed during its new whole copy and its first copy's read of the
    store, was copied from where the undos had left off: the game's row with the undone
    entries in force. A power cut before the entry's own copy would have brought them back."""
    monkeypatch.setattr(backup, "REBASE", 100.0)
    worker = held_worker(monkeypatch, first_copy=True)
    real_install = backup.install_base
    at_install: list[list[tuple[str, ...]]] = []

    def looked_at(path: pathlib.Path, fresh: pathlib.Path, keep: int = backup.KEEP,
                  prune: bool = True) -> pathlib.Path:
        made = real_install(path, fresh, keep, prune)
        if fresh.name.endswith("next"):  # the worker's, just put in place
            at_install.append(store_lost(path.parent, tmp_path / f"at-{made.name}"))
        return made

    monkeypatch.setattr(backup, "install_base", looked_at)
    with playing(tmp_path, 2711, worker) as table:
        table.step(10)
        monkeypatch.setattr(backup, "REBASE", 0.0)
        table.step()
        assert worker.writing.wait(30)
        monkeypatch.setattr(backup, "REBASE", 100.0)
        for _ in range(3):
            table.session.undo()
        undone = table.answered()
        worker.go_write.set()
        assert worker.in_first_copy.wait(30)
        threading.Timer(0.3, worker.go_on.set).start()
        table.step()  # committed while the worker's first copy waits
        assert at_install and at_install[0] in (undone, table.answered())


def test_one_new_whole_copy_when_one_is_due(tmp_path: pathlib.Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: entries logged while the worker wrote a new whole copy each asked for
    another, and a second one followed at once (twice the writing, and the two kept whole
    copies alike). The worker makes one only when the newest copies call for it."""
    monkeypatch.setattr(backup, "REBASE", 0.3)  # due after a few dozen entries
    worker = held_worker(monkeypatch)
    with playing(tmp_path, 3, worker) as table:
        until_held(table, worker)
        table.step(3)  # the copies before the new one are still due: each one says so
        worker.go_write.set()
        until(lambda: len(copies(table.store.path)) == 2, "the new whole copy was never put in place")
        time.sleep(0.5)  # a second one would have begun by now
        assert worker.written == [f"{STORE}.backup-new", f"{STORE}.backup-next"]
        assert table.lost("cut") == table.answered()


def test_the_first_entry_after_a_start_waits_for_no_whole_copy(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: a start whose copies had grown to call for a new whole copy made it
    holding the copies' lock, and the first entry waited for it (seconds on a big store)."""
    with playing(tmp_path, 4) as table:
        table.step(3)
    monkeypatch.setattr(backup, "REBASE", 0.0)  # due at the start
    real = backup.write_copy

    def slow(path: pathlib.Path, fresh: pathlib.Path) -> None:
        time.sleep(3)  # a big store on a card
        real(path, fresh)

    monkeypatch.setattr(backup, "write_copy", slow)
    store = Store(str(table.state / STORE))
    backups = keep_copies(store)
    try:
        again = Table(table.state, store, Session(store, table.session.gid), table.rng)
        time.sleep(0.2)  # the worker's first copy is under way
        started = time.monotonic()
        again.step()
        assert time.monotonic() - started < 1.5, "the entry waited for a whole copy"
        assert again.lost("cut") == again.answered()
    finally:
        backups.stop()
        store.close()


def test_a_copy_that_failed_is_made_at_the_stop(tmp_path: pathlib.Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: a copy that failed (a full card) waited for the next entry, and a clean
    stop after the last one left it in the store alone."""
    real = backup.append_changes

    def full(*args: object) -> str:
        raise OSError(28, "No space left on device")

    with playing(tmp_path, 6) as table:
        table.step()
        monkeypatch.setattr(backup, "append_changes", full)
        table.step()  # answered: it is in the store; its copy failed
        monkeypatch.setattr(backup, "append_changes", real)  # room again
        played = table.answered()
    assert store_lost(table.state, tmp_path / "cut") == played


def test_whole_copies_a_power_cut_left_unfinished_are_removed_at_the_start(
        tmp_path: pathlib.Path) -> None:
    """The review: a whole copy a power cut left half-written (under its name before it
    takes a number) stayed beside the copies, as big as the store, until the next one."""
    state = tmp_path / "state"
    state.mkdir()
    left = [state / f"{STORE}.backup-{name}{end}" for name in ("new", "next")
            for end in ("", ".changes")]
    for name in left:
        name.write_bytes(b"half")
    store = Store(str(state / STORE))
    keep_copies(store).stop()
    store.close()
    assert not any(name.exists() for name in left)
    assert copies(state / STORE)  # and a whole copy was made


def test_a_card_that_fails_to_list_the_copies_never_refuses_an_entry(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: listing the copies after an entry's copy was outside the copy's guard,
    so an I/O error there came out of the store's commit as the press's error, for an
    entry already stored. The entry stands; the copy's failure is the log's."""

    def failing(path: object) -> list[pathlib.Path]:
        raise OSError(5, "Input/output error")

    with playing(tmp_path, 8) as table:
        table.step()
        monkeypatch.setattr(backup, "copies", failing)
        table.step()
        assert len(table.answered()) == 2
        monkeypatch.undo()
