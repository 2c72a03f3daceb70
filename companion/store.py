"""SQLite storage of games as their records: header, entries, and the undo position.

Every change is one transaction, committed durably before it returns, so that what the
screen shows next is already on disk. An *entry* is what one confirmation logged (one or
more record lines); ``head`` counts the entries in force, and entries past ``head`` are the
redo stack.

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

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from companion.clock import SYSTEM, Clock

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
# SCHEMA is version 0 of the store and stays as it is; MIGRATIONS (below the class) bring
# any store, new or old, up to date on opening. A new table needs no step: add it to SCHEMA
# with CREATE TABLE IF NOT EXISTS. A change to an existing table (a column, an index, data
# rewritten) is a new step appended to MIGRATIONS; a step that has shipped is never edited.

#: The store-wide sequence's next number, for use inside a write transaction (the write lock
#: makes it unique). It only grows: games are never deleted.
NEXT_TOUCH = "(SELECT coalesce(max(touched), 0) + 1 FROM games)"
#: What every change to a game sets besides: its place in the sequence, and the time shown.
TOUCH = f"touched = {NEXT_TOUCH}, updated = ?, updated_synced = ?"


@dataclass(frozen=True)
class Entry:
    """One confirmed entry: its position, its record lines, and whether the device rolled."""

    seq: int
    lines: tuple[str, ...]
    rolled: bool


@dataclass(frozen=True)
class GameRow:
    """A stored game's bookkeeping (not its lines)."""

    id: int
    game: str
    header: tuple[str, ...]
    created: float
    updated: float
    head: int
    status: str
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
        self.db = (connect or _connect)(path)
        try:
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            for key, value in DURABILITY.items():
                self.db.execute(f"PRAGMA {key} = {value}")
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.row_factory = sqlite3.Row
            try:
                self.db.executescript(SCHEMA)
                self._migrate()
            except sqlite3.OperationalError as err:
                # A file opened read-only (a damaged store set aside, read for salvage) is
                # read as it is, whatever its version: _row copes with older columns.
                if primary(err) != sqlite3.SQLITE_READONLY:
                    raise
        except BaseException:
            self.db.close()  # a damaged or locked file: the caller decides, and may retry
            raise

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

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
        return cur.lastrowid

    def push(self, gid: int, lines: Sequence[str], rolled: bool, over: bool,
             winners: Sequence[str]) -> int:
        """Append an entry after ``head``, dropping the redo stack; the new head."""
        with self._write() as db:
            head = self._head(db, gid) + 1
            db.execute("DELETE FROM entries WHERE game = ? AND seq >= ?", (gid, head))
            db.execute("INSERT INTO entries (game, seq, lines, rolled) VALUES (?, ?, ?, ?)",
                       (gid, head, "\n".join(lines), int(rolled)))
            self._move(db, gid, head, over, winners)
        return head

    def move_head(self, gid: int, head: int, over: bool, winners: Sequence[str]) -> None:
        """Undo or redo: only the position changes; the entries stay for redo."""
        with self._write() as db:
            self._move(db, gid, head, over, winners)

    def set_status(self, gid: int, status: str) -> None:
        """Mark a game abandoned (or playing again)."""
        with self._write() as db:
            now = self.clock.stamp()
            db.execute(f"UPDATE games SET status = ?, {TOUCH} WHERE id = ?",
                       (status, now.when, now.synced, gid))

    def carry(self, row: GameRow, entries: Sequence[Entry]) -> None:
        """Store a game read from a damaged store, under its own id and place in the order
        (a game whose place is unknown comes next), in one transaction."""
        with self._write() as db:
            db.execute(
                "INSERT INTO games (id, game, header, created, updated, head, status, winners,"
                " created_synced, updated_synced, touched)"
                f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, {NEXT_TOUCH}))",
                (row.id, row.game, "\n".join(row.header), row.created, row.updated, row.head,
                 row.status, json.dumps(list(row.winners)), row.created_synced,
                 row.updated_synced, row.touched if row.touched > 0 else None))
            for entry in entries:
                db.execute("INSERT INTO entries (game, seq, lines, rolled) VALUES (?, ?, ?, ?)",
                           (row.id, entry.seq, "\n".join(entry.lines), int(entry.rolled)))

    def game(self, gid: int) -> GameRow:
        """One game's bookkeeping; KeyError when there is no such game."""
        row = self.db.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise KeyError(gid)
        return self._row(row)

    def games(self, status: str | None = None, limit: int = 50) -> list[GameRow]:
        """Games, most recently changed first (by sequence, whatever the clock said),
        optionally only those with ``status``."""
        sql = "SELECT * FROM games"
        args: tuple[object, ...] = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        rows = self.db.execute(sql + " ORDER BY touched DESC, id DESC LIMIT ?", (*args, limit))
        return [self._row(r) for r in rows]

    def entries(self, gid: int, upto: int | None = None, start: int = 1) -> list[Entry]:
        """Entries ``start..upto`` (default: up to the end, redo stack included)."""
        upto = 2**62 if upto is None else upto
        rows = self.db.execute(
            "SELECT seq, lines, rolled FROM entries WHERE game = ? AND seq BETWEEN ? AND ?"
            " ORDER BY seq", (gid, start, upto))
        return [Entry(seq, tuple(text.split("\n")), bool(rolled)) for seq, text, rolled in rows]

    def entry(self, gid: int, seq: int) -> Entry | None:
        """One entry, or ``None``."""
        found = self.entries(gid, seq, seq)
        return found[0] if found else None

    @staticmethod
    def _head(db: sqlite3.Connection, gid: int) -> int:
        row = db.execute("SELECT head FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise KeyError(gid)
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

    @staticmethod
    def _row(row: sqlite3.Row) -> GameRow:
        # A store opened read-only before its migration (salvage reading a set-aside file)
        # has no sequence and no synchronisation marks: unknown, so neither is trusted.
        columns = set(row.keys())
        touched, created_synced, updated_synced = (
            row[key] if key in columns else 0 for key in ("touched", "created_synced", "updated_synced"))
        return GameRow(row["id"], row["game"], tuple(row["header"].split("\n")), row["created"],
                       row["updated"], row["head"], row["status"], tuple(json.loads(row["winners"])),
                       touched, created_synced == 1, updated_synced == 1)


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


#: The schema's steps, oldest first; a store's PRAGMA user_version counts those it has had.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (order_by_sequence,)


def _connect(path: str) -> sqlite3.Connection:
    # Autocommit (isolation_level=None): the store says BEGIN and COMMIT itself.
    return sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)


def primary(err: sqlite3.Error) -> int:
    """SQLite's primary result code (Python reports the extended one: IOERR_WRITE...)."""
    return int(getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
