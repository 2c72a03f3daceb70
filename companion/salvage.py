"""Opening the store at start-up: wait for a lock, set a damaged file aside, keep what it holds.

A store another process is using (``companion export`` in a shell) is waited for, however
long it takes: a lock is never damage. A store SQLite finds damaged (a truncated file, an
SD card that garbled a page, a file that is not a database at all) is renamed aside, never
deleted, with its write-ahead log beside it; the companion starts on a fresh store and
carries into it every game that can still be read, each up to its last entry that still
replays legally (the record is the truth: a garbled line ends what can be trusted).
"""

from __future__ import annotations

import logging
import os
import pathlib
import sqlite3
import time

from companion.record import RecordError, Replayer, UnreadableRecord
from companion.store import Entry, GameRow, MadeRoll, Store, primary

log = logging.getLogger(__name__)

#: SQLite's answers for a file that is damaged, as opposed to busy, full or unreachable.
DAMAGED = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
#: Another connection holds the lock longer than the busy timeout: wait again.
LOCKED = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
#: What SQLite keeps beside a database file (WAL mode); the log holds committed entries.
COMPANIONS = ("-wal", "-shm")
#: How garbled rows show when read: SQLite's own errors, or values of the wrong kind.
UNREADABLE = (sqlite3.DatabaseError, ValueError, TypeError, AttributeError, KeyError)


def open_store(path: str) -> tuple[Store, str]:
    """The store at ``path``, and a one-line note for the screen ("" when all is well)."""
    waiting = False
    while True:
        store: Store | None = None
        try:
            store = Store(path)
            finding = store.check()
        except sqlite3.DatabaseError as err:
            if store is not None:
                store.close()
            if primary(err) in LOCKED:
                if not waiting:
                    log.warning("store %s is locked by another process: waiting for it", path)
                waiting = True
                continue
            if primary(err) not in DAMAGED:
                raise
            return salvage(path, str(err))
        except UnicodeDecodeError as err:  # garbled text where SQLite keeps the schema
            if store is not None:
                store.close()
            return salvage(path, f"unreadable text in the store ({err.reason})")
        if not finding:
            return store, ""
        store.close()
        return salvage(path, finding)


def salvage(path: str, finding: str) -> tuple[Store, str]:
    """Set the damaged file aside, start a fresh store and carry the readable games into it."""
    finding = " ".join(finding.split())  # quick_check may answer on several lines
    aside = set_aside(pathlib.Path(path))
    store = Store(path)
    carried, seen = carry_games(aside, store)
    log.error("store %s is damaged (%s): kept as %s; %d of %d games carried into a fresh store",
              path, finding, aside.name, carried, seen)
    return store, f"Damaged store, {carried} kept"  # one line of the 128-pixel screen


def set_aside(path: pathlib.Path) -> pathlib.Path:
    """Rename the file and its log to ``NAME.damaged-TIME`` (never over an older one)."""
    stamp = int(time.time())
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    tries = 1
    while any(pathlib.Path(f"{aside}{suffix}").exists() for suffix in ("", *COMPANIONS)):
        tries += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{tries}")
    for suffix in COMPANIONS:  # the log first: a crash between renames leaves no stray log
        if pathlib.Path(f"{path}{suffix}").exists():
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    os.replace(path, aside)
    sync_directory(path.parent)
    return aside


def sync_directory(directory: pathlib.Path) -> None:
    """Make the renames durable, so a power cut now cannot bring the damaged file back."""
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def read_only(path: str) -> sqlite3.Connection:
    """A connection that leaves the set-aside file as it was (SQLite may add a ``-shm``).

    ``writable_schema`` makes SQLite read on past a damaged schema instead of refusing the
    whole file; the connection cannot write, so nothing is changed by it.
    """
    db = sqlite3.connect(f"{pathlib.Path(path).resolve().as_uri()}?mode=ro", uri=True,
                         isolation_level=None)
    db.execute("PRAGMA writable_schema = ON")
    return db


def carry_games(aside: pathlib.Path, store: Store) -> tuple[int, int]:
    """Copy what can be read; (games carried, games found)."""
    try:
        damaged = Store(str(aside), connect=read_only)
    except sqlite3.DatabaseError:
        return 0, 0  # not even the list of tables can be read
    try:
        ids: set[int] = set()
        try:
            for (gid,) in damaged.db.execute("SELECT id FROM games"):
                ids.add(gid)
        except sqlite3.DatabaseError:
            pass  # keep the ids read before the damaged page
        carried = 0
        for gid in sorted(ids):
            try:
                row = damaged.game(gid)
            except UNREADABLE:
                continue
            trusted = readable_entries(damaged, row) if row.id == gid else None
            if trusted is not None:
                store.carry(*trusted, readable_rolls(damaged, gid))
                carried += 1
        return carried, len(ids)
    finally:
        damaged.close()


def readable_rolls(damaged: Store, gid: int) -> list[MadeRoll]:
    """The game's dice audit, or none of it if it cannot all be read (it is a record of
    what was rolled, not part of the game: the game is carried without it)."""
    try:
        return damaged.rolls(gid)
    except UNREADABLE:
        return []


def readable_entries(damaged: Store, row: GameRow) -> tuple[GameRow, list[Entry]] | None:
    """The game's row and its entries up to the first one unreadable, missing or illegal;
    the position and the result made to agree with them. None if the header is bad."""
    replayer = Replayer()
    number = 0
    try:
        for number, text in enumerate(row.header, start=1):
            replayer.feed(number, text)
        replayer.finish()
    except (RecordError, UnreadableRecord):
        return None
    assert replayer.header is not None  # finish() saw the players line
    game = replayer.header.game
    states = [replayer.state]
    entries: list[Entry] = []
    seq = 1
    while True:
        try:
            entry = damaged.entry(row.id, seq)
            if entry is None:
                break
            for text in entry.lines:
                number += 1
                replayer.feed(number, text)
        except (*UNREADABLE, RecordError):
            break
        entries.append(entry)
        states.append(replayer.state)
        seq += 1
    head = min(row.head, len(entries))
    state = states[head]
    status = row.status if row.status == "abandoned" else "over" if game.over(state) else "playing"
    created, updated = (t if isinstance(t, float) else time.time() for t in (row.created, row.updated))
    touched = row.touched if isinstance(row.touched, int) else 0  # 0: placed next
    fixed = GameRow(row.id, game.id, row.header, created, updated, head, status,
                    tuple(game.winners(state)), touched, row.created_synced, row.updated_synced)
    return fixed, entries
