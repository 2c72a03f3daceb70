"""Rolling copies of the store beside it, made with SQLite's online backup API.

A copy is made when a game begins (its header is then in no copy yet) and ends, after every
:data:`EVERY` changes during play, and at a clean stop; the newest :data:`KEEP` are kept as
``companion.sqlite.backup-N`` (N counts up, so the order never depends on the clock). Each copy is first written to
``companion.sqlite.backup-new``, synced, then renamed: a copy is whole or absent.

The copy is made by a worker thread with its own connection, so a press never waits for it:
in WAL mode SQLite lets it read a consistent snapshot while the main thread goes on writing.
Before each copy the worker checkpoints the log into the main file (PASSIVE: it waits for
nobody), so that file, not only its log, holds the games.

Salvage (companion/salvage.py) starts from the newest copy that SQLite finds sound.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import sqlite3
import threading

from companion.store import BUSY_TIMEOUT_MS, Store

log = logging.getLogger(__name__)

KEEP = 3  # copies kept: a copy made just before damage struck may hold it too
EVERY = 100  # entries or head moves between copies during a game (plus one per finished game)
SUFFIX = ".backup-"


def copies(store: str | pathlib.Path) -> list[pathlib.Path]:
    """The store's backup copies, newest first."""
    path = pathlib.Path(store)
    found = []
    for candidate in path.parent.glob(f"{path.name}{SUFFIX}*"):
        number = candidate.name[len(path.name) + len(SUFFIX):]
        if number.isdigit():
            found.append((int(number), candidate))
    return [p for _, p in sorted(found, reverse=True)]


def make_copy(store: str | pathlib.Path, keep: int = KEEP) -> pathlib.Path:
    """Checkpoint the store's log, copy the store, keep the newest ``keep`` copies; the copy."""
    path = pathlib.Path(store)
    fresh = path.with_name(f"{path.name}{SUFFIX}new")
    existing = copies(path)
    number = int(existing[0].name.rsplit("-", 1)[1]) + 1 if existing else 1
    target = path.with_name(f"{path.name}{SUFFIX}{number}")
    try:
        write_copy(path, fresh)
    except BaseException:
        # a full card: a half-written copy must not take the space the store needs
        with contextlib.suppress(OSError):
            fresh.unlink()
        raise
    os.replace(fresh, target)
    for old in copies(path)[keep:]:
        old.unlink()
    sync_directory(path.parent)
    return target


def write_copy(path: pathlib.Path, fresh: pathlib.Path) -> None:
    """Checkpoint ``path``'s log, then copy it to ``fresh``, synced."""
    with contextlib.suppress(FileNotFoundError):
        fresh.unlink()
    source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True,
                             isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:  # mode=rw: a store that has gone is not created afresh here
        source.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        copy = sqlite3.connect(fresh, isolation_level=None)
        try:
            source.backup(copy)
            # the copy is one plain file: no log beside it to lose
            copy.execute("PRAGMA journal_mode = DELETE").fetchone()
        finally:
            copy.close()
    finally:
        source.close()
    with open(fresh, "rb") as handle:
        os.fsync(handle.fileno())


def sync_directory(directory: pathlib.Path) -> None:
    """Make renames in ``directory`` durable, so a power cut cannot undo them."""
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


class Backups:
    """The store's rolling copies, made off the press path by a worker thread.

    Hang :meth:`changed` on :attr:`Store.after_commit`; :meth:`start` the worker;
    :meth:`stop` it at a clean stop (it makes a last copy if anything changed). Without a
    worker (tests), :meth:`run_due` makes the copy asked for, in the caller's thread.
    """

    def __init__(self, store: str, keep: int = KEEP, every: int = EVERY) -> None:
        self.store = store
        self.keep = keep
        self.every = every
        self.changes = 0  # since the last copy was asked for (main thread only)
        self.wanted = False
        self.stopping = False
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def changed(self, milestone: bool) -> None:
        """One committed change (main thread; a counter and, now and then, an event): ask
        for a copy when a game just began or ended, or enough changed."""
        self.changes += 1
        if milestone or self.changes >= self.every:
            self.request()

    def request(self) -> None:
        self.changes = 0
        with self.lock:
            self.wanted = True
        self.wake.set()

    def start(self) -> None:
        self.thread = threading.Thread(target=self._work, name="backups", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Finish the copy under way; make a last one if anything changed since."""
        if self.changes:
            self.request()
        self.stopping = True
        self.wake.set()
        if self.thread is not None:
            self.thread.join()
        else:
            self.run_due()

    def _work(self) -> None:
        while True:
            self.wake.wait()
            self.wake.clear()
            self.run_due()
            if self.stopping and not self.wanted:  # a last copy asked for meanwhile: make it
                return

    def run_due(self) -> pathlib.Path | None:
        """Make the copy asked for, if one was; the copy."""
        with self.lock:
            if not self.wanted:
                return None
            self.wanted = False
        try:
            made = make_copy(self.store, self.keep)
        except (OSError, sqlite3.Error) as err:
            log.error("store copy failed (%s); the store itself is unchanged", err)
            return None
        log.info("store copied to %s", made.name)
        return made


def keep_copies(store: Store) -> Backups:
    """Rolling copies of ``store`` from now on, by a worker thread; stop it at the end."""
    backups = Backups(store.path)
    store.after_commit = backups.changed
    backups.start()
    return backups
