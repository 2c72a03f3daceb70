"""SQLite storage of games as their records: header, entries, and the undo position.

Every change is one transaction, committed durably before it returns, so that what the
screen shows next is already on disk. An *entry* is what one confirmation logged (one or
more record lines); ``head`` counts the entries in force, and entries past ``head`` are the
redo stack. Beside them the dice audit keeps every device roll made, undone ones included.

Every change also gives its game the next number of a store-wide sequence (``touched``):
"most recent" means the highest number, never the latest time, because a Pi's clock can
run behind after a power cut (see :mod:`companion.clock`). Wall-clock times are kept only
to be shown, each with whether the clock was synchronised when it was read.

>>> store = Store(":memory:")
>>> gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
>>> store.push(gid, ["table roll 3 2"], rolled=True, over=False, winners=[])
1
>>> store.entries(gid)
[Entry(seq=1, lines=('table roll 3 2',), rolled=True)]
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, get_args

from companion.clock import SYSTEM, Clock
from companion.exc import NoSuchGame, Unreadable
from companion.smallfile import sync_directory

log = logging.getLogger(__name__)

# The durability settings live here and nowhere else. WAL with synchronous=FULL syncs the
# log on every commit: a commit that returned survives a power cut. NORMAL would not.
DURABILITY = {"journal_mode": "WAL", "synchronous": "FULL"}
BUSY_TIMEOUT_MS = 10_000  # an export in another process holds the lock briefly: wait for it

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    header TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    head INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'over', 'abandoned')),
    winners TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS entries (
    game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    lines TEXT NOT NULL,
    rolled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
"""
# The dice audit: every device roll made, undone ones included, so that undo is never a free
# re-roll (the roll's prompt offers its faces again) and an export shows every roll made.
# A new table: part of the schema (CREATE TABLE IF NOT EXISTS), so it needs no migration step.
ROLLS_SCHEMA = """
CREATE TABLE IF NOT EXISTS rolls (
    game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    lines TEXT NOT NULL,
    again INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, n)
) WITHOUT ROWID;
"""
# State checkpoints (companion/checkpoint.py): a cache of the state after entry ``seq``, kept
# so that resuming replays only the entries after it. ``digest`` sums up the header and every
# entry's lines up to ``seq`` (:class:`Digest`), so a checkpoint that no longer matches the
# record is found and dropped, then the row's own values (:func:`state_digest`), so one that
# is not as it was written is too; ``engine`` names the code that wrote ``state``. A new table,
# so no migration step: a store from before simply has none yet, and an older program
# ignores the table (a checkpoint it leaves stale fails its digest here).
CHECKPOINTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    digest TEXT NOT NULL,
    engine TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
"""
# A device roll shown a line at a time (Settings > Rolls: one by one): how many of its lines
# the table has seen, so that a game left part-way (the box switched off) comes back to the
# lines not shown yet. A convenience: the record holds every line already, and any change
# of the game's position forgets it.
REVEALS_SCHEMA = """
CREATE TABLE IF NOT EXISTS reveals (
    game INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    shown INTEGER NOT NULL
);
"""
#: Entries that SQLite joins into one text for a record's digest (bounded memory, few steps).
LINK = 256
#: Entries fetched at a time by :meth:`Store.stored_entries`.
STORED_PART = 256
#: A dice-audit row as :func:`_made_roll` reads it: its lines as bytes, and text where a
#: number belongs as NULL (never decoded: a flipped bit may have left bytes that are not UTF-8).
ROLL_COLUMNS = ", ".join([*(f"CASE typeof({name}) WHEN 'text' THEN NULL ELSE {name} END"
                            for name in ("n", "seq")),
                          "CAST(lines AS BLOB)", "CASE typeof(again) WHEN 'text' THEN NULL ELSE again END",
                          "typeof(lines)"])
#: The dice audit numbers its rows below this (a damaged row's number at or past it is passed over).
AUDIT_LIMIT = 1 << 62
#: Tables that only cache what the record says, or what a screen showed: never carried by salvage.
CACHES = frozenset({"checkpoints", "reveals"})
# SCHEMA is version 0 of the store and stays as it is; MIGRATIONS (below the class) bring
# any store, new or old, up to date on opening. A new table needs no step: add it to SCHEMA
# with CREATE TABLE IF NOT EXISTS. A change to an existing table (a column, an index, data
# rewritten) is a new step appended to MIGRATIONS; a step that has shipped is never edited.

#: The store-wide sequence's next number, for use inside a write transaction (the write lock
#: makes it unique). It only grows: games are never deleted.
NEXT_TOUCH = "(SELECT coalesce(max(touched), 0) + 1 FROM games)"
#: What every change to a game sets besides: its place in the sequence, and the time shown.
TOUCH = f"touched = {NEXT_TOUCH}, updated = ?, updated_synced = ?"


#: Where a stored game stands (``games.status``): going on, finished, or set aside for good
#: (kept, not offered for resume).
Status = Literal["playing", "over", "abandoned"]
STATUSES: tuple[Status, ...] = get_args(Status)
#: The values of a game's row that its checksum (``games.crc``) covers: all but the sum.
GAME_SUMMED = ("id", "game", "header", "created", "updated", "head", "status", "winners",
               "touched", "created_synced", "updated_synced")
#: The values of an entry that its checksum (``entries.crc``) covers: all but the sum.
ENTRY_SUMMED = ("game", "seq", "lines", "rolled", "source")
#: How an entry's lines came in (``entries.source``): the box's keys, a serial console's
#: record line, a die reader's faces (the console protocol's ``dice`` and ``die``), or
#: ``companion import``. Whether the device rolled is ``entries.rolled``. Entries stored
#: before version 2 of the store have none (not known). Not part of the record: replay
#: and export never read it; the dice statistics do.
Source = Literal["keys", "console", "reader", "import"]


@dataclass(frozen=True)
class Entry:
    """One confirmed entry: its position, its record lines, and whether the device rolled."""

    seq: int
    lines: tuple[str, ...]
    rolled: bool


@dataclass(frozen=True)
class MadeRoll:
    """One device roll, in force or undone: the entry position it answered, its lines, and
    whether it was rolled again while an undone roll was offered. ``n`` counts the game's
    rolls in the order they were made (the store numbers them)."""

    seq: int
    lines: tuple[str, ...]
    again: bool = False
    n: int = 0


def roll_in_force(made: Sequence[MadeRoll], entry: Entry) -> MadeRoll | None:
    """The audit's roll that a rolled ``entry`` is: the latest made at its place with its
    lines (``None`` for a game stored before the audit was kept)."""
    found = [roll for roll in made if roll.seq == entry.seq and roll.lines == entry.lines]
    return found[-1] if found else None


@dataclass(frozen=True)
class Checkpoint:
    """A game's state after entry ``seq`` as ``engine`` wrote it (companion/checkpoint.py)."""

    seq: int
    engine: str
    state: str


@dataclass(frozen=True)
class GameRow:
    """A stored game's bookkeeping (not its lines)."""

    id: int
    game: str
    header: tuple[str, ...]
    created: float
    updated: float
    head: int
    status: Status
    winners: tuple[str, ...]
    touched: int  # the store-wide sequence number of its last change (0: not known)
    created_synced: bool  # whether the clock was synchronised when ``created`` was read
    updated_synced: bool


class Store:
    """The companion's games on disk. One connection, used by the thread that owns state."""

    def __init__(self, path: str, connect: Callable[[str], sqlite3.Connection] | None = None,
                 clock: Clock = SYSTEM) -> None:
        """Open (or create) the store, bringing its schema up to date; ``connect`` lets the
        crash tests put SQLite on a simulated disk (the same schema and pragmas run over it);
        ``clock`` stamps the times shown to people."""
        self.path = path
        self.clock = clock
        # Called after each change to a game, with the game, the first entry it changed
        # (None: only the game's row) and whether it began or ended a game (a milestone):
        # the backup copies (companion/backup.py) hang here.
        self.after_commit: Callable[[int, int | None, bool], None] | None = None
        self.connect = connect or _connect
        self.db = self.connect(path)
        try:
            self._settings()
            self._whole()
            try:
                # One transaction: a power cut while a new store's tables are made leaves all
                # of them or none (a store with games but no entries table is damage).
                self.db.executescript("BEGIN; " + SCHEMA + ROLLS_SCHEMA + CHECKPOINTS_SCHEMA
                                      + REVEALS_SCHEMA + "COMMIT;")
                self._migrate()
            except sqlite3.OperationalError as err:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                # A file opened read-only (a damaged store set aside, read for salvage) is
                # read as it is, whatever its version: _row copes with older columns.
                if primary(err) != sqlite3.SQLITE_READONLY:
                    raise
            #: Whether rows carry checksums (a file read as it was found may predate them).
            #: Counted by SQLite: no column's name or type is decoded here (a flipped bit
            #: in the schema's text is found by the checks that look for damage).
            self.summed = bool(self.db.execute("SELECT count(*) FROM pragma_table_info('entries')"
                                               " WHERE name = 'crc'").fetchone()[0])
            #: The main file and the log this connection writes, as the file system names
            #: them (None: none at the path, or not a real file): see :meth:`_keep_files`.
            self.main_file, self.log_file = file_identity(path), file_identity(f"{path}-wal")
            self.said_lost = False
        except UnicodeDecodeError as err:  # SQLite's own message naming a garbled schema's
            self.db.close()                # bytes: damage, as every reader takes an SQLite error
            raise Unreadable(f"the store's schema is damaged (its text is not UTF-8: {err.reason} "
                             f"at byte {err.start})") from None
        except BaseException:
            self.db.close()  # a damaged or locked file: the caller decides, and may retry
            raise

    def _settings(self) -> None:
        self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        for key, value in DURABILITY.items():
            self.db.execute(f"PRAGMA {key} = {value}")
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.row_factory = sqlite3.Row

    def _whole(self) -> None:
        """Unreadable when the file holds one of the games and entries tables without the
        other: the schema would make the missing one anew, empty, and the games (or their
        entries) would be gone without a word. Both are version 0 of the store: a file has
        both or neither (a new store). A flipped bit in a table's name or its schema row
        does this; SQLite's checks see no damage."""
        found = {name for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('games', 'entries')")}
        if len(found) == 1:
            missing = ({"games", "entries"} - found).pop()
            raise Unreadable(f"the store has no {missing} table: its schema is damaged")

    def close(self, fold_log: bool = True) -> None:
        """Checkpoint the log into the main file, then close the connection (a clean stop);
        ``fold_log`` False closes and leaves the files as they are (a file being set aside,
        one opened read-only)."""
        if fold_log:
            with contextlib.suppress(sqlite3.Error):  # a damaged or busy file still closes;
                self.checkpoint()  # the log keeps what it holds
        self.db.close()

    def checkpoint(self) -> None:
        """Copy the log's committed pages into the main file, never waiting for anybody
        (PASSIVE): afterwards the main file alone holds the games, and damage to the log
        can cost only what was played since."""
        self.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    def pragma(self, name: str) -> str | int:
        """Read one pragma (tests check the durability settings)."""
        value: str | int = self.db.execute(f"PRAGMA {name}").fetchone()[0]
        return value

    def version(self) -> int:
        """The schema version: how many of MIGRATIONS the file has been through."""
        return int(self.pragma("user_version"))

    def _migrate(self) -> None:
        """Run the steps the file has not been through, all in one transaction with the new
        version number: a power cut leaves the store wholly before or wholly after."""
        if self.version() >= len(MIGRATIONS):
            return  # the usual case: no write, no lock
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for step in MIGRATIONS[self.version():]:  # read again under the lock: another
                step(self.db)                         # process may have just migrated it
            self.db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def check(self) -> str:
        """SQLite's quick check of the whole file: "" when sound, else its first finding."""
        findings = [row[0] for row in self.db.execute("PRAGMA quick_check")]
        return "" if findings == ["ok"] else str(findings[0])

    def integrity(self) -> list[str]:
        """SQLite's full integrity check (every index against its table too, as the doctor
        asks): its findings, ``["ok"]`` when the file is sound."""
        return [str(row[0]) for row in self.db.execute("PRAGMA integrity_check")]

    def data_version(self) -> int:
        """SQLite's count of changes other connections committed (``PRAGMA data_version``):
        a read of shared memory, no disk, so cheap enough to ask at every press."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so a concurrent reader cannot make
        # the commit fail half-way; COMMIT returns only when the log is synced.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException:
            # A full disk or an I/O error may have rolled the transaction back already
            # (SQLite does so for SQLITE_FULL and SQLITE_IOERR); a failed COMMIT may not.
            # Either way nothing of it stays, and the next change can begin.
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def create(self, game: str, header: Sequence[str]) -> int:
        """A new game with no entries; its id."""
        now = self.clock.stamp()
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO games (game, header, created, updated, created_synced,"
                f" updated_synced, touched) VALUES (?, ?, ?, ?, ?, ?, {NEXT_TOUCH})",
                (game, "\n".join(header), now.when, now.when, now.synced, now.synced),
            )
            assert cur.lastrowid is not None
            self._seal(db, cur.lastrowid)
        self._committed(cur.lastrowid, None, True)  # a new header: in no copy yet
        return cur.lastrowid

    def adopt(self, game: str, header: Sequence[str], entries: Iterable[tuple[Sequence[str], bool]],
              rolls: Iterable[MadeRoll], over: bool, winners: Sequence[str], source: Source,
              state: tuple[str, str] | None = None) -> int:
        """Store a whole game at once (``companion import``): its header, its entries (lines,
        and whether the device rolled them) all in force, and its dice audit, in one
        transaction: the game is there whole, or not at all. ``state``: the state after the
        last entry as (engine, text), kept as its checkpoint. Its id."""
        now = self.clock.stamp()
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO games (game, header, created, updated, created_synced, updated_synced,"
                f" status, winners, touched) VALUES (?, ?, ?, ?, ?, ?, ?, ?, {NEXT_TOUCH})",
                (game, "\n".join(header), now.when, now.when, now.synced, now.synced,
                 "over" if over else "playing", json.dumps(list(winners))))
            gid = cur.lastrowid
            assert gid is not None
            head = 0
            for head, (lines, rolled) in enumerate(entries, start=1):
                self._insert_entry(db, gid, head, lines, rolled, source)
            db.execute("UPDATE games SET head = ? WHERE id = ?", (head, gid))
            self._seal(db, gid)
            for made in rolls:
                self._keep_roll(db, gid, made)
            if state is not None and head:
                self._keep_checkpoint(db, gid, head, *state)
        self._committed(gid, None, True)  # a new game: in no copy yet
        return gid

    def push(self, gid: int, lines: Sequence[str], rolled: bool, over: bool,
             winners: Sequence[str], made: MadeRoll | None = None,
             state: tuple[str, str] | None = None, source: Source | None = None) -> int:
        """Append an entry after ``head``, dropping the redo stack; the new head.
        ``made``: a device roll just made, kept in the dice audit in the same transaction.
        ``state``: the state after this entry as (engine, text), kept as a checkpoint.
        ``source``: how its lines came in (:data:`Source`; None: not said)."""
        with self._write() as db:
            head = self._head(db, gid) + 1
            db.execute("DELETE FROM entries WHERE game = ? AND seq >= ?", (gid, head))
            # The redo stack's checkpoints follow entries that are gone.
            db.execute("DELETE FROM checkpoints WHERE game = ? AND seq >= ?", (gid, head))
            self._insert_entry(db, gid, head, lines, rolled, source)
            self._move(db, gid, head, over, winners)
            self._keep_roll(db, gid, made)
            if state is not None:
                self._keep_checkpoint(db, gid, head, *state)
        self._committed(gid, head, over)
        return head

    def _insert_entry(self, db: sqlite3.Connection, gid: int, seq: int, lines: Sequence[str],
                      rolled: bool, source: Source | None) -> None:
        values = (gid, seq, "\n".join(lines), int(rolled), source)
        db.execute("INSERT INTO entries (game, seq, lines, rolled, source, crc) VALUES"
                   " (?, ?, ?, ?, ?, ?)", (*values, checksum(values)))

    @staticmethod
    def _seal(db: sqlite3.Connection, gid: int) -> None:
        """Sum a game's row as it now stands (in the transaction that changed it)."""
        row = db.execute(f"SELECT {', '.join(GAME_SUMMED)} FROM games WHERE id = ?", (gid,)).fetchone()
        db.execute("UPDATE games SET crc = ? WHERE id = ?", (checksum(tuple(row)), gid))

    def move_head(self, gid: int, head: int, over: bool, winners: Sequence[str],
                  made: MadeRoll | None = None) -> None:
        """Undo or redo: only the position changes; the entries stay for redo.
        ``made``: a device roll just made that equals the entry redone (kept in the audit)."""
        with self._write() as db:
            self._move(db, gid, head, over, winners)
            self._keep_roll(db, gid, made)
        self._committed(gid, None if made is None else made.seq, over)

    def keep_reveal(self, gid: int, seq: int, shown: int) -> None:
        """The table has seen ``shown`` lines of entry ``seq``, a roll shown one by one."""
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO reveals (game, seq, shown) VALUES (?, ?, ?)",
                       (gid, seq, shown))

    def reveal(self, gid: int) -> tuple[int, int] | None:
        """The entry whose roll was being shown one by one, and how many of its lines were;
        None when none is, or the row is not two whole numbers in range (a cache: a flipped
        bit costs only where the table had got to)."""
        row = self.db.execute("SELECT seq, shown FROM reveals WHERE game = ?", (gid,)).fetchone()
        return None if row is None else _reveal(row[0], row[1])

    def damaged_reveals(self) -> int:
        """How many rows of where a roll was being shown cannot be read (see :meth:`reveal`)."""
        return sum(_reveal(seq, shown) is None for seq, shown in self.db.execute(
            "SELECT seq, shown FROM reveals"))

    def _committed(self, gid: int, since: int | None, milestone: bool) -> None:
        self._keep_files()
        if self.after_commit is not None:
            self.after_commit(gid, since, milestone)

    def _keep_files(self) -> None:
        """Make what was just committed reach the files at the store's path when they are no
        longer the ones this connection writes (removed while the companion runs, by hand or
        by a program cleaning up): SQLite goes on writing into the removed file, and its
        checkpoints move the log's pages there, so the next start would not find them. One
        stat of each file per commit finds it, before the change is acknowledged."""
        if self.main_file is not None and file_identity(self.path) != self.main_file:
            self._main_lost()
        elif self.log_file is not None and file_identity(f"{self.path}-wal") != self.log_file:
            # the main file is still there: a full checkpoint moves every frame of the
            # removed log into it, synced (synchronous=FULL)
            busy, frames, moved = self.db.execute("PRAGMA wal_checkpoint(FULL)").fetchone()
            self._said("log", "each change is now put into the main file" if not busy and
                       moved == frames else f"{frames - moved} of {frames} log pages could not be"
                       " put into the main file yet")

    def _main_lost(self) -> None:
        """The main file is gone from the path: a whole copy of the store as this connection
        reads it (the removed file and its log) goes there, synced, and the connection
        opens it; the log beside it holds only pages the copy holds as they are. Another
        file put in its place is not this store's to overwrite: it is left, and said."""
        if os.path.lexists(self.path):
            self._said("main file", "another file is in its place: restart the companion")
            return
        fresh = f"{self.path}.rescue"
        try:
            with contextlib.suppress(FileNotFoundError):
                os.remove(fresh)
            copy = sqlite3.connect(fresh)
            try:
                self.db.backup(copy)
            finally:
                copy.close()
            with open(fresh, "rb") as handle:
                os.fsync(handle.fileno())
            os.rename(fresh, self.path)
            sync_directory(os.path.dirname(os.path.abspath(self.path)))
        except (OSError, sqlite3.Error) as err:  # a full card: the next change tries again
            with contextlib.suppress(OSError):
                os.remove(fresh)
            log.error("the store's main file (%s) was removed while the companion ran, and could"
                      " not be written again from the open store: %s", self.path, err)
            return
        old, self.db = self.db, self.connect(self.path)
        self._settings()
        old.close()
        self.main_file, self.log_file = file_identity(self.path), file_identity(f"{self.path}-wal")
        self._said("main file", "it was written again from the open store")

    def _said(self, which: str, what: str) -> None:
        if not self.said_lost:
            log.error("the store's %s (%s) was removed or replaced while the companion ran: %s",
                      which, self.path, what)
        self.said_lost = True

    def rolls_reach(self, gid: int) -> int:
        """The furthest entry the game's dice audit holds a roll for (0: none)."""
        row = self.db.execute("SELECT MAX(seq) FROM rolls WHERE game = ? AND typeof(seq) ="
                              " 'integer'", (gid,)).fetchone()
        return int(row[0] or 0)

    def rolls(self, gid: int, seq: int | None = None, upto: int | None = None) -> list[MadeRoll]:
        """The game's device rolls in the order made (only those at entry ``seq``, if given,
        or at entries ``seq..upto``).

        The audit says what was rolled; it is not the record. A row that cannot say it (a
        value of the wrong kind, text that is not UTF-8: a flipped bit) is left out, never
        an error: :meth:`damaged_rolls` counts them for ``companion doctor``.
        """
        columns = ROLL_COLUMNS
        sql, args = f"SELECT {columns} FROM rolls WHERE game = ? ORDER BY n", [gid]
        if seq is not None:
            # Read in the index's order (asked in the order made, SQLite would walk every roll
            # of the game by its primary key), then put in the order made.
            sql = f"SELECT {columns} FROM rolls WHERE game = ? AND seq BETWEEN ? AND ? ORDER BY seq, n"
            args = [gid, seq, seq if upto is None else upto]
        made = [roll for roll in (_made_roll(*row) for row in self.db.execute(sql, args))
                if roll is not None]
        return made if seq is None else sorted(made, key=lambda roll: roll.n)

    def damaged_rolls(self) -> int:
        """How many dice-audit rows cannot be read as a roll (see :meth:`rolls`)."""
        rows = self.db.execute(f"SELECT {ROLL_COLUMNS} FROM rolls")
        return sum(_made_roll(*row) is None for row in rows)

    @staticmethod
    def _keep_roll(db: sqlite3.Connection, gid: int, made: MadeRoll | None) -> None:
        if made is None:
            return
        # The audit only tells which rolls a device made: a row of it whose number a flipped
        # bit changed (text, a blob, the largest integer) must never refuse the roll itself.
        # Numbered past the game's whole numbers in range only (text never equals one), and
        # kept in a savepoint: a row that still cannot be kept is left out, the entry kept.
        db.execute("SAVEPOINT audit")
        try:
            db.execute("INSERT INTO rolls (game, n, seq, lines, again) VALUES (?, (SELECT"
                       " COALESCE(MAX(n), 0) + 1 FROM rolls WHERE game = ? AND typeof(n) ="
                       " 'integer' AND n < ?), ?, ?, ?)",
                       (gid, gid, AUDIT_LIMIT, made.seq, "\n".join(made.lines), int(made.again)))
        except (sqlite3.IntegrityError, UnicodeDecodeError):  # UnicodeDecodeError: SQLite's
            db.execute("ROLLBACK TO audit")  # message naming a garbled value
        db.execute("RELEASE audit")

    # --- checkpoints: a cache of states, checked against the record before use ---

    def stored_state(self, gid: int, upto: int, engine: str) -> tuple[Checkpoint | None, bool]:
        """The latest checkpoint at or before entry ``upto`` that ``engine`` wrote and that
        matches the record; and whether the game has checkpoints up to there that do not
        match it (stale: :meth:`renew_stored_state` replaces them).

        A checkpoint is a cache: whatever is wrong with it (a value that is not what was
        written, not text, not UTF-8, a digest of another record) makes it stale, never an
        error. Checking reads the game's lines up to the checkpoint once, joined by SQLite a
        block at a time (no replay): about 10 ms of CPU for 10,000 entries on a PC.
        """
        try:
            stored = self.db.execute(
                "SELECT seq, CAST(digest AS BLOB), CAST(engine AS BLOB) FROM checkpoints"
                " WHERE game = ? AND seq <= ? ORDER BY seq", (gid, upto)).fetchall()
        except sqlite3.DatabaseError:  # a store that has no such table (read-only, older)
            return None, False
        if not stored:
            return None, False
        try:
            found = [(seq, stored_text(digest), stored_text(tag)) for seq, digest, tag in stored]
            digests = self._digests(self.db, gid, [seq for seq, _, _ in found])
            sound = [(seq, digest, tag) for seq, digest, tag in found
                     if digest[:DIGEST_LENGTH] == digests[seq]]
            for seq, digest, tag in reversed(sound):
                if tag != engine:
                    continue
                row = self.db.execute("SELECT CAST(state AS BLOB) FROM checkpoints"
                                      " WHERE game = ? AND seq = ?", (gid, seq)).fetchone()
                state = stored_text(row[0] if row is not None else None)
                if digest[DIGEST_LENGTH:] == state_digest(seq, tag, state):
                    return Checkpoint(seq, engine, state), len(sound) < len(found)
                break  # the newest of this code is damaged: renewed after the replay
        except (sqlite3.DatabaseError, ValueError, TypeError, LookupError, ArithmeticError):
            pass  # a damaged row read: nothing of it is trusted
        return None, True  # none sound, or all from other code: replaced after a replay

    def renew_stored_state(self, gid: int, seq: int, engine: str, state: str) -> None:
        """Drop every checkpoint of the game and keep this one (after a replay on opening
        found none that could be used)."""
        with self._write() as db:
            db.execute("DELETE FROM checkpoints WHERE game = ?", (gid,))
            self._keep_checkpoint(db, gid, seq, engine, state)

    def _keep_checkpoint(self, db: sqlite3.Connection, gid: int, seq: int, engine: str,
                         state: str) -> None:
        # Going on from the checkpoint before it: only the entries since then are read. Its
        # digest is read as bytes: a damaged one (not UTF-8) means starting from the header,
        # never a press refused.
        known = db.execute("SELECT seq, CAST(digest AS BLOB) FROM checkpoints WHERE game = ?"
                           " AND seq < ? ORDER BY seq DESC LIMIT 1", (gid, seq)).fetchone()
        record = self._digests(db, gid, [seq], None if known is None else (known[0], known[1]))[seq]
        db.execute("INSERT OR REPLACE INTO checkpoints (game, seq, digest, engine, state)"
                   " VALUES (?, ?, ?, ?, ?)",
                   (gid, seq, record + state_digest(seq, engine, state), engine, state))

    def damaged_checkpoints(self) -> int:
        """How many checkpoints are not as they were written (their own digest says so):
        for ``companion doctor``, which reads no record. Each is dropped when its game is
        next opened."""
        damaged = 0
        for seq, digest, tag, state in self.db.execute(
                "SELECT seq, CAST(digest AS BLOB), CAST(engine AS BLOB), CAST(state AS BLOB)"
                " FROM checkpoints"):
            try:
                sound = stored_text(digest)[DIGEST_LENGTH:] == state_digest(seq, stored_text(tag), stored_text(state))
            except (ValueError, TypeError):
                sound = False
            damaged += not sound
        return damaged

    @staticmethod
    def _digests(db: sqlite3.Connection, gid: int, seqs: Sequence[int],
                 known: tuple[int, object] | None = None) -> dict[int, str]:
        """The record's digest after each entry in ``seqs`` (ascending): a checksum of the
        header and of every entry's number and lines in turn (:class:`Digest`). ``known``:
        an entry and the digest after it, to go on from (from the header otherwise)."""
        going_on = None if known is None else Digest.read(known[1])
        if known is None or going_on is None:  # a damaged digest: from the start
            row = db.execute("SELECT header FROM games WHERE id = ?", (gid,)).fetchone()
            done, digest = 0, Digest().add(row[0] if row is not None else "")
        else:
            done, digest = known[0], going_on
        out: dict[int, str] = {}
        for seq in seqs:
            while done < seq:  # SQLite joins the lines a block at a time: few Python steps
                last = min(seq, done + LINK)
                digest = digest.add(db.execute(
                    "SELECT char(10) || group_concat(line, char(10)) FROM (SELECT seq || ' ' ||"
                    " lines AS line FROM entries WHERE game = ? AND seq BETWEEN ? AND ?"
                    " ORDER BY seq)", (gid, done + 1, last)).fetchone()[0])
                done = last
            out[seq] = str(digest)
        return out

    def set_status(self, gid: int, status: Status) -> None:
        """Mark a game abandoned (or playing again)."""
        with self._write() as db:
            now = self.clock.stamp()
            db.execute(f"UPDATE games SET status = ?, {TOUCH} WHERE id = ?",
                       (status, now.when, now.synced, gid))
            self._seal(db, gid)
        self._committed(gid, None, False)

    def columns(self, table: str) -> list[str]:
        """A table's column names in order ([] for no such table)."""
        return [row[1] for row in self.db.execute(f"PRAGMA table_info({quote(table)})")]

    def tables(self) -> list[str]:
        """The store's own tables (not SQLite's)."""
        return [row[0] for row in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]

    def carry(self, rows: Mapping[str, Sequence[Mapping[str, object]]]) -> None:
        """Store rows read from a damaged store, table by table, in one transaction.

        Caches (checkpoints) are not carried: they are rebuilt from the record.
        Each row gives its values by column name; the columns this store's table has are
        copied, the others dropped, a missing one takes its default. So tables and columns
        that later versions add are carried without changing this code. A row that
        clashes with one already carried, or refers to a row that was not, is left out.
        """
        with self._write() as db:
            for table, found in rows.items():
                if table in CACHES:
                    continue
                names = set(self.columns(table))
                for row in found:
                    keys = [k for k in row if k in names and k != "crc"]  # summed below
                    try:
                        db.execute(f"INSERT OR IGNORE INTO {quote(table)}"
                                   f" ({', '.join(map(quote, keys))})"
                                   f" VALUES ({', '.join('?' * len(keys))})", [row[k] for k in keys])
                    except sqlite3.IntegrityError:
                        continue
            # Every carried row summed as now stored (salvage chose each one)
            for (gid,) in db.execute("SELECT id FROM games").fetchall():
                self._seal(db, gid)
            for values in db.execute(f"SELECT {', '.join(ENTRY_SUMMED)} FROM entries").fetchall():
                db.execute("UPDATE entries SET crc = ? WHERE game = ? AND seq = ?",
                           (checksum(tuple(values)), values[0], values[1]))

    def unreadable(self) -> str:
        """The first stored value that cannot be decoded ("" when every one can).

        Every game row and entry is checked once, as the screens would read it, so that a
        value of the wrong kind (a blob for text, winners that are not JSON, text that is
        not UTF-8) is found at start-up, not when a player opens the game. The entries are
        checked in bulk (SQLite checks the kinds, Python the text game by game): about
        0.1 s for 36,000 entries on a PC.
        """
        try:
            for row in self.db.execute("SELECT * FROM games"):
                self._row(row)
            bad = self.db.execute("SELECT game, seq, lines, rolled FROM entries WHERE"
                                  " typeof(lines) != 'text' OR rolled NOT IN (0, 1)").fetchone()
            if bad is not None:
                _entry(*bad)
            self.db.text_factory = bytes
            for gid, text in self.db.execute(
                    "SELECT game, group_concat(lines, char(10)) FROM entries GROUP BY game"):
                if not utf8(text):
                    return f"game {gid} cannot be read: an entry's lines are not UTF-8 text"
            if self.summed:  # every value as it was written: a flipped bit SQLite cannot see
                for values in self.db.execute(f"SELECT {', '.join(ENTRY_SUMMED)}, crc FROM entries"
                                              " WHERE crc IS NOT NULL"):
                    if checksum(values[:-1]) != values[-1]:
                        return (f"game {values[0]} entry {values[1]} cannot be read: "
                                f"{UNSUMMED}")
        except sqlite3.DatabaseError as err:  # Unreadable, or SQLite's own finding
            return str(err)
        finally:
            self.db.text_factory = str
        return ""

    def game(self, gid: int) -> GameRow:
        """One game's bookkeeping; KeyError when there is no such game."""
        row = self.db.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise NoSuchGame(gid)
        return self._row(row)

    def game_ids(self) -> list[int]:
        """Every stored game's number, in the order they were made."""
        return [gid for (gid,) in self.db.execute("SELECT id FROM games ORDER BY id")]

    def reached(self) -> object:
        """How far the store-wide sequence reached (the greatest ``touched``; 0 with no
        games). An int unless a damaged value makes it another kind: the caller judges."""
        return self.db.execute("SELECT coalesce(max(touched), 0) FROM games").fetchone()[0]

    def touched(self) -> dict[int, int]:
        """Each game's place in the order of changes (``touched``), by its number: a game
        whose place moved has changed since it was last read."""
        return dict(self.db.execute("SELECT id, touched FROM games ORDER BY id").fetchall())

    def readable_games(self, status: Status | None = None, limit: int = 50) -> tuple[list[GameRow], list[str]]:
        """:meth:`games`, and why any could not be read (a damaged value): read game by game
        only when the whole list cannot be read at once, each one that can be kept."""
        try:
            return self.games(status, limit), []
        except sqlite3.DatabaseError:  # (Unreadable is one too)
            pass
        rows, problems = [], []
        where, args = (" WHERE status = ?", (status,)) if status is not None else ("", ())
        for (gid,) in self.db.execute(f"SELECT id FROM games{where}", args).fetchall():
            try:
                rows.append(self.game(gid))
            except sqlite3.DatabaseError as err:
                problems.append(str(err))
        rows.sort(key=lambda row: (row.touched, row.id), reverse=True)  # as games() orders them
        return rows[:limit], problems

    def stored(self, gid: int) -> dict[str, Any] | None:
        """Game ``gid``'s row as it is stored, text that is not UTF-8 kept as bytes (export
        reads a damaged game as far as it goes); None for no such game."""
        self.db.text_factory = text_or_bytes
        try:
            found = self.db.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
            return None if found is None else dict(found)
        finally:
            self.db.text_factory = str

    def stored_entries(self, gid: int) -> Iterator[dict[str, Any]]:
        """Game ``gid``'s entries in order as they are stored, text that is not UTF-8 kept as
        bytes, read a part at a time as they are used: memory stays flat however long the
        game (export holds no more than the entry it replays)."""
        rows = self.db.execute("SELECT * FROM entries WHERE game = ? ORDER BY seq", (gid,))
        while True:
            self.db.text_factory = text_or_bytes  # it applies as rows are fetched
            try:
                part = rows.fetchmany(STORED_PART)
            finally:
                self.db.text_factory = str
            if not part:
                return
            for found in part:
                yield dict(found)

    def games(self, status: Status | None = None, limit: int = 50) -> list[GameRow]:
        """Games, most recently changed first (by sequence, whatever the clock said),
        optionally only those with ``status``."""
        sql = "SELECT * FROM games"
        args: tuple[object, ...] = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        rows = self.db.execute(sql + " ORDER BY touched DESC, id DESC LIMIT ?", (*args, limit))
        return [self._row(r) for r in rows]

    def entries(self, gid: int, upto: int | None = None, start: int = 1,
                verified: bool = True) -> list[Entry]:
        """Entries ``start..upto`` (default: up to the end, redo stack included); Unreadable
        for one whose values are not as written (its checksum says so), unless not
        ``verified``: a view of the record (the Log) shows what is stored, damage and all,
        where replaying it says what is not legal."""
        upto = 2**62 if upto is None else upto
        if not (self.summed and verified):
            rows = self.db.execute(
                "SELECT seq, lines, rolled FROM entries WHERE game = ? AND seq BETWEEN ? AND ?"
                " ORDER BY seq", (gid, start, upto))
            return [_entry(gid, seq, text, rolled) for seq, text, rolled in rows]
        rows = self.db.execute(
            "SELECT seq, lines, rolled, source, crc FROM entries WHERE game = ? AND seq BETWEEN"
            " ? AND ? ORDER BY seq", (gid, start, upto))
        out = []
        for seq, text, rolled, source, crc in rows:
            if crc is not None and checksum((gid, seq, text, rolled, source)) != crc:
                raise Unreadable(f"game {gid} entry {seq} cannot be read: {UNSUMMED}")
            out.append(_entry(gid, seq, text, rolled))
        return out

    def sources(self, gid: int, start: int, upto: int) -> dict[int, str]:
        """How entries ``start..upto`` came in, for those that say (:data:`Source`); {} for a
        store from before sources were kept."""
        try:
            rows = self.db.execute("SELECT seq, source FROM entries WHERE game = ? AND seq BETWEEN ? AND ?"
                                   " AND source IS NOT NULL", (gid, start, upto))
            return {seq: source for seq, source in rows if isinstance(source, str)}
        except sqlite3.OperationalError:  # no such column: a store read as it was found
            return {}

    def entry(self, gid: int, seq: int) -> Entry | None:
        """One entry, or ``None``."""
        found = self.entries(gid, seq, seq)
        return found[0] if found else None

    @staticmethod
    def _head(db: sqlite3.Connection, gid: int) -> int:
        row = db.execute("SELECT head FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise NoSuchGame(gid)
        return int(row[0])

    def _move(self, db: sqlite3.Connection, gid: int, head: int, over: bool,
              winners: Sequence[str]) -> None:
        now = self.clock.stamp()
        db.execute(
            f"UPDATE games SET head = ?, winners = ?, {TOUCH},"
            " status = CASE WHEN status = 'abandoned' THEN status"
            " WHEN ? THEN 'over' ELSE 'playing' END WHERE id = ?",
            (head, json.dumps(list(winners)), now.when, now.synced, int(over), gid),
        )
        db.execute("DELETE FROM reveals WHERE game = ?", (gid,))  # a roll being shown is past
        self._seal(db, gid)

    @staticmethod
    def _row(row: sqlite3.Row) -> GameRow:
        # A store opened read-only before its migration (salvage reading a set-aside file)
        # has no sequence and no synchronisation marks: unknown, so neither is trusted.
        columns = set(row.keys())
        touched, created_synced, updated_synced = (
            row[key] if key in columns else 0 for key in ("touched", "created_synced", "updated_synced"))
        try:
            try:
                winners = json.loads(row["winners"])
            except json.JSONDecodeError:
                raise ValueError("winners is not JSON") from None
            if not (isinstance(winners, list) and all(isinstance(w, str) for w in winners)):
                raise ValueError("winners is not a list of names")
            if not isinstance(row["header"], str):
                raise TypeError("header is not text")
            if row["status"] not in STATUSES or not isinstance(row["head"], int):
                raise ValueError("status or position out of range")
            if not isinstance(touched, int):
                raise ValueError("its place in the order is not a number")
            if not sound_game(dict(zip(row.keys(), tuple(row), strict=True))):
                raise ValueError(UNSUMMED)
            return GameRow(row["id"], row["game"], tuple(row["header"].split("\n")),
                           float(row["created"]), float(row["updated"]), row["head"],
                           row["status"], tuple(winners), touched, created_synced == 1,
                           updated_synced == 1)
        except (ValueError, TypeError, AttributeError, LookupError) as err:  # LookupError:
            # a column whose name a flipped bit changed
            raise Unreadable(f"game {row['id'] if 'id' in columns else '?'} cannot be read: "
                             f"{err}") from None


#: What a row whose checksum does not match its values is said to be.
UNSUMMED = "its values are not as they were written (their checksum differs)"


def checksum(values: Sequence[object]) -> int:
    """The checksum of a row's values, in order (CRC-32 of each with its kind and length):
    text read as bytes sums as the text it was, so every reader gets the same sum.

    >>> checksum((3, 1, "table roll 3 2", 1, "keys")) == checksum((3, 1, b"table roll 3 2", 1, b"keys"))
    True
    >>> checksum((3, 1, "table roll 3 2", 1, None)) == checksum((3, 1, "table roll 3 3", 1, None))
    False
    """
    crc = 0
    for value in values:
        if isinstance(value, str):
            data = b"t" + value.encode("utf-8", "surrogatepass")
        elif isinstance(value, bytes):
            data = b"t" + value
        elif value is None:
            data = b"n"
        else:
            data = b"v" + repr(value).encode()
        crc = zlib.crc32(len(data).to_bytes(4, "big") + data, crc)
    return crc


#: How far a row read from a file can be trusted (:func:`trust`), best first.
SUMMED, UNSUMMED_ROW, WRONG = 0, 1, 2


def trust(row: Mapping[str, object], summed: Sequence[str]) -> int:
    """:data:`SUMMED` for a row (by column) whose checksum matches its values,
    :data:`UNSUMMED_ROW` for one without a checksum (written before sums were kept; or a
    flipped bit that took the sum away), :data:`WRONG` for one whose values are not as
    written."""
    crc = row.get("crc")
    if crc is None:
        return UNSUMMED_ROW
    return SUMMED if checksum(tuple(row.get(k) for k in summed)) == crc else WRONG


def sound_game(row: Mapping[str, object]) -> bool:
    """Whether a game's row (by column) is not known to be other than written."""
    return trust(row, GAME_SUMMED) != WRONG


def sound_entry(row: Mapping[str, object]) -> bool:
    """Whether an entry's row (by column) is not known to be other than written."""
    return trust(row, ENTRY_SUMMED) != WRONG


def text_or_bytes(raw: bytes) -> str | bytes:
    """A stored text value as text, or as its bytes when it is not UTF-8 (damaged): what
    reads a damaged store as far as it goes takes for ``text_factory``."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def _reveal(seq: object, shown: object) -> tuple[int, int] | None:
    """A reveals row as (entry, lines shown), or None when it is not two whole numbers in range.

    >>> _reveal(4, 2), _reveal("x", 2), _reveal(4, -1), _reveal(4, 2.0)
    ((4, 2), None, None, None)
    """
    if type(seq) is not int or type(shown) is not int or seq < 1 or shown < 0:
        return None
    return seq, shown


def _made_roll(n: object, seq: object, raw: object, again: object, kind: object) -> MadeRoll | None:
    """A dice-audit row as a roll, or None when it cannot be one.

    >>> _made_roll(1, 4, b"Ann roll 5", 0, "text").lines
    ('Ann roll 5',)
    >>> _made_roll(1, "x", b"Ann roll 5", 0, "text"), _made_roll(1, 4, b"\\xff", 0, "text")
    (None, None)
    """
    if not (isinstance(n, int) and isinstance(seq, int) and seq > 0 and again in (0, 1)
            and kind == "text" and isinstance(raw, bytes) and utf8(raw)):
        return None
    return MadeRoll(seq, tuple(raw.decode("utf-8").split("\n")), bool(again), n)


def _entry(gid: int, seq: int, text: object, rolled: object) -> Entry:
    if not isinstance(text, str) or rolled not in (0, 1):
        raise Unreadable(f"game {gid} entry {seq} cannot be read: its lines are not text")
    return Entry(seq, tuple(text.split("\n")), bool(rolled))


@dataclass(frozen=True)
class Digest:
    """A running checksum of a record's text: CRC-32 and Adler-32 (64 bits in all), each
    able to go on from a stored value, so a checkpoint's digest is made from the one before.

    It tells a checkpoint that no longer matches its record from one that does (changes by
    accident or by another program, not by an adversary: the state directory is trusted).
    zlib is loaded already (PIL); hashlib would load OpenSSL, 3.5 MB resident.

    >>> str(Digest().add("game microbot-racers").add("\\n1 table roll 3 2"))
    'fe7048bb006b0ca8'
    """

    crc: int = 0
    adler: int = 1

    def add(self, text: object) -> Digest:
        data = str(text).encode("utf-8", "surrogatepass")
        return Digest(zlib.crc32(data, self.crc), zlib.adler32(data, self.adler))

    def __str__(self) -> str:
        return f"{self.crc:08x}{self.adler:08x}"

    @classmethod
    def read(cls, stored: object) -> Digest | None:
        """A digest as :meth:`__str__` wrote it (text, or its bytes), alone or first of a
        checkpoint's two (the record's, then the checkpoint's own); ``None`` for anything
        else."""
        if isinstance(stored, bytes):
            stored = stored.decode("ascii", "replace")
        if isinstance(stored, str) and len(stored) == 2 * DIGEST_LENGTH:
            stored = stored[:DIGEST_LENGTH]
        if not (isinstance(stored, str) and len(stored) == DIGEST_LENGTH
                and all(c in "0123456789abcdef" for c in stored)):
            return None
        return cls(int(stored[:8], 16), int(stored[8:], 16))


#: Characters of a :class:`Digest` as text.
DIGEST_LENGTH = 16


def state_digest(seq: object, engine: str, state: str) -> str:
    """The digest of a checkpoint's own values, kept after the record's digest in its
    ``digest`` column: a flipped bit in the state, the engine tag or the position is found,
    whatever it turned them into.

    >>> state_digest(256, "1 0.9 pig 00000000", "{}")
    '4fe83b11448105a8'
    """
    return str(Digest().add(f"{seq} {engine}\n").add(state))


def stored_text(stored: object) -> str:
    """A stored value read as bytes (``CAST(x AS BLOB)``), as the text it must be: SQLite
    gives a text column's bytes as they are on the card, and a flipped bit can make them
    other than UTF-8; ValueError for that, TypeError for a value that was never text."""
    if not isinstance(stored, bytes):
        raise TypeError("not text")
    return stored.decode("utf-8")


def utf8(raw: bytes) -> bool:
    """Whether stored bytes are UTF-8 text."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def quote(name: str) -> str:
    """An SQL identifier, quoted (table and column names come from the file itself)."""
    return '"' + name.replace('"', '""') + '"'


def order_by_sequence(db: sqlite3.Connection) -> None:
    """Version 1: a store-wide sequence orders the games (``touched``), not the wall clock;
    each time shown says whether the clock was synchronised. A store from before keeps its
    order (last changed, then highest id, as it was listed); its times are marked unsure,
    since nobody knows."""
    for column in ("touched", "created_synced", "updated_synced"):
        db.execute(f"ALTER TABLE games ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
    order = [gid for (gid,) in db.execute("SELECT id FROM games ORDER BY updated, id")]
    for number, gid in enumerate(order, start=1):
        db.execute("UPDATE games SET touched = ? WHERE id = ?", (number, gid))
    db.execute("CREATE INDEX games_by_touch ON games (touched)")


def keep_sources(db: sqlite3.Connection) -> None:
    """Version 2: each new entry says how its lines came in (:data:`Source`), so that the
    dice statistics tell typed faces from a die reader's. Older entries stay NULL: not
    known. The record, and so replay and export, are unchanged."""
    db.execute("ALTER TABLE entries ADD COLUMN source TEXT")


def index_rolls_by_entry(db: sqlite3.Connection) -> None:
    """Version 3: the dice audit found by entry, so that the rolls at a few entries (what an
    open phone page is sent after each one, a page of the Log) cost the same in a long game
    as in a short one, instead of a pass over every roll of the game."""
    db.execute("CREATE INDEX rolls_by_entry ON rolls (game, seq)")


def sum_rows(db: sqlite3.Connection) -> None:
    """Version 4: each game's row and each entry carries a checksum of its values
    (:func:`checksum`), written in the same transaction as they are: a flipped bit on the
    card that leaves a line legal (a die's 3 read as 2) or a position in range is found
    at start, and the copies bring the value back. The rows stored before are summed now,
    as they read (NULL stays possible: a row written by an older program is not summed)."""
    for table in ("games", "entries"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN crc INTEGER")
    sum_all(db)


def sum_all(db: sqlite3.Connection) -> None:
    """Sum every game's row and every entry as they now read (a store written whole by SQL:
    the migration, the benchmark's stores)."""
    for table, names, keys in (("games", GAME_SUMMED, ("id",)), ("entries", ENTRY_SUMMED, ("game", "seq"))):
        # text as its bytes: summed as stored, whatever a flipped bit made of it
        values = ", ".join(f"CASE typeof({name}) WHEN 'text' THEN CAST({name} AS BLOB) ELSE {name} END"
                           for name in names)
        rows = [tuple(row) for row in db.execute(f"SELECT {values}, {', '.join(keys)} FROM {table}")]
        where = " AND ".join(f"{key} = ?" for key in keys)
        for row in rows:
            db.execute(f"UPDATE {table} SET crc = ? WHERE {where}",
                       (checksum(row[:len(names)]), *row[len(names):]))


#: The schema's steps, oldest first; a store's PRAGMA user_version counts those it has had.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (order_by_sequence, keep_sources,
                                                                 index_rolls_by_entry, sum_rows)


def file_identity(path: str) -> tuple[int, int] | None:
    """Which file ``path`` names (device and inode), None when none (or it cannot be told)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def _connect(path: str) -> sqlite3.Connection:
    # Autocommit (isolation_level=None): the store says BEGIN and COMMIT itself.
    return sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)


def primary(err: sqlite3.Error) -> int:
    """SQLite's primary result code (Python reports the extended one: IOERR_WRITE...)."""
    return int(getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
