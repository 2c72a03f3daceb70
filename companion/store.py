"""SQLite storage of games as their records: header, entries, and the undo position.

Every change is one transaction, committed durably before it returns, so that what the
screen shows next is already on disk. An *entry* is what one confirmation logged (one or
more record lines); ``head`` counts the entries in force, and entries past ``head`` are the
redo stack.

>>> store = Store(":memory:")
>>> gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
>>> store.push(gid, ["table roll 3 2"], rolled=True, over=False, winners=[])
1
>>> store.entries(gid)
[Entry(seq=1, lines=('table roll 3 2',), rolled=True)]
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

# The durability settings live here and nowhere else. WAL with synchronous=FULL syncs the
# log on every commit: a commit that returned survives a power cut. NORMAL would not.
DURABILITY = {"journal_mode": "WAL", "synchronous": "FULL"}
BUSY_TIMEOUT_MS = 10_000  # an export in another process holds the lock briefly: wait for it
# Test-only fault injection for the power-cut harness (tests/powercut.py): "N:before" or
# "N:after" makes the process SIGKILL itself in its N-th write, just before or just after
# the COMMIT. Unset (always, outside that harness) it costs one comparison a write.
KILL_AT_WRITE = os.environ.get("COMPANION_KILL_AT_WRITE", "")

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


STATUSES = ("playing", "over", "abandoned")


class Unreadable(sqlite3.DatabaseError):
    """A stored value that cannot be decoded: a flipped bit that SQLite's own checks do not
    see (they check the file's structure, not what a column means to us)."""


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


class Store:
    """The companion's games on disk. One connection, used by the thread that owns state."""

    def __init__(self, path: str, connect: Callable[[str], sqlite3.Connection] | None = None) -> None:
        """Open (or create) the store; ``connect`` lets the crash tests put SQLite on a
        simulated disk (the same schema and pragmas run over it)."""
        self.path = path
        self.writes = 0  # write transactions begun (the fault-injection point counts them)
        # Called after each new game, entry or head move, with whether it began or ended a
        # game (a milestone): the rolling copies (companion/backup.py) hang here.
        self.after_commit: Callable[[bool], None] | None = None
        self.db = (connect or _connect)(path)
        try:
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            for key, value in DURABILITY.items():
                self.db.execute(f"PRAGMA {key} = {value}")
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.row_factory = sqlite3.Row
            self.db.executescript(SCHEMA)
        except BaseException:
            self.db.close()  # a damaged or locked file: the caller decides, and may retry
            raise

    def close(self) -> None:
        """Checkpoint the log into the main file, then close the connection (a clean stop)."""
        try:
            self.checkpoint()
        except sqlite3.Error:
            pass  # a damaged or busy file still closes; the log keeps what it holds
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

    def _fault(self, moment: str) -> None:
        if KILL_AT_WRITE and KILL_AT_WRITE == f"{self.writes}:{moment}":
            os.kill(os.getpid(), signal.SIGKILL)

    def check(self) -> str:
        """SQLite's quick check of the whole file: "" when sound, else its first finding."""
        findings = [row[0] for row in self.db.execute("PRAGMA quick_check")]
        return "" if findings == ["ok"] else str(findings[0])

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so a concurrent reader cannot make
        # the commit fail half-way; COMMIT returns only when the log is synced.
        self.db.execute("BEGIN IMMEDIATE")
        self.writes += 1
        try:
            yield self.db
            self._fault("before")
            self.db.execute("COMMIT")
            self._fault("after")
        except BaseException:
            # A full disk or an I/O error may have rolled the transaction back already
            # (SQLite does so for SQLITE_FULL and SQLITE_IOERR); a failed COMMIT may not.
            # Either way nothing of it stays, and the next change can begin.
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def create(self, game: str, header: Sequence[str]) -> int:
        """A new game with no entries; its id."""
        now = time.time()
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO games (game, header, created, updated) VALUES (?, ?, ?, ?)",
                (game, "\n".join(header), now, now),
            )
        assert cur.lastrowid is not None
        self._committed(True)  # a new header: in no copy yet
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
        self._committed(over)
        return head

    def move_head(self, gid: int, head: int, over: bool, winners: Sequence[str]) -> None:
        """Undo or redo: only the position changes; the entries stay for redo."""
        with self._write() as db:
            self._move(db, gid, head, over, winners)
        self._committed(over)

    def _committed(self, milestone: bool) -> None:
        if self.after_commit is not None:
            self.after_commit(milestone)

    def set_status(self, gid: int, status: str) -> None:
        """Mark a game abandoned (or playing again)."""
        with self._write() as db:
            db.execute("UPDATE games SET status = ?, updated = ? WHERE id = ?",
                       (status, time.time(), gid))

    def columns(self, table: str) -> list[str]:
        """A table's column names in order ([] for no such table)."""
        return [row[1] for row in self.db.execute(f"PRAGMA table_info({quote(table)})")]

    def tables(self) -> list[str]:
        """The store's own tables (not SQLite's)."""
        return [row[0] for row in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]

    def carry(self, rows: Mapping[str, Sequence[Mapping[str, object]]]) -> None:
        """Store rows read from a damaged store, table by table, in one transaction.

        Each row gives its values by column name; the columns this store's table has are
        copied, the others dropped, a missing one takes its default. So tables and columns
        that later versions add are carried without changing this code. A row that
        clashes with one already carried, or refers to a row that was not, is left out.
        """
        with self._write() as db:
            for table, found in rows.items():
                names = set(self.columns(table))
                for row in found:
                    keys = [k for k in row if k in names]
                    try:
                        db.execute(f"INSERT OR IGNORE INTO {quote(table)}"
                                   f" ({', '.join(map(quote, keys))})"
                                   f" VALUES ({', '.join('?' * len(keys))})", [row[k] for k in keys])
                    except sqlite3.IntegrityError:
                        continue

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
                text.decode("utf-8")
        except UnicodeDecodeError:
            return f"game {gid} cannot be read: an entry's lines are not UTF-8 text"
        except sqlite3.DatabaseError as err:  # Unreadable, or SQLite's own finding
            return str(err)
        finally:
            self.db.text_factory = str
        return ""

    def game(self, gid: int) -> GameRow:
        """One game's bookkeeping; KeyError when there is no such game."""
        row = self.db.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise KeyError(gid)
        return self._row(row)

    def games(self, status: str | None = None, limit: int = 50) -> list[GameRow]:
        """Games, most recently changed first, optionally only those with ``status``."""
        sql = "SELECT * FROM games"
        args: tuple[object, ...] = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        rows = self.db.execute(sql + " ORDER BY updated DESC, id DESC LIMIT ?", (*args, limit))
        return [self._row(r) for r in rows]

    def entries(self, gid: int, upto: int | None = None, start: int = 1) -> list[Entry]:
        """Entries ``start..upto`` (default: up to the end, redo stack included)."""
        upto = 2**62 if upto is None else upto
        rows = self.db.execute(
            "SELECT seq, lines, rolled FROM entries WHERE game = ? AND seq BETWEEN ? AND ?"
            " ORDER BY seq", (gid, start, upto))
        return [_entry(gid, seq, text, rolled) for seq, text, rolled in rows]

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

    @staticmethod
    def _move(db: sqlite3.Connection, gid: int, head: int, over: bool,
              winners: Sequence[str]) -> None:
        db.execute(
            "UPDATE games SET head = ?, updated = ?, winners = ?,"
            " status = CASE WHEN status = 'abandoned' THEN status"
            " WHEN ? THEN 'over' ELSE 'playing' END WHERE id = ?",
            (head, time.time(), json.dumps(list(winners)), int(over), gid),
        )

    @staticmethod
    def _row(row: sqlite3.Row) -> GameRow:
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
            return GameRow(row["id"], row["game"], tuple(row["header"].split("\n")),
                           float(row["created"]), float(row["updated"]), row["head"],
                           row["status"], tuple(winners))
        except (ValueError, TypeError, AttributeError) as err:
            raise Unreadable(f"game {row['id']} cannot be read: {err}") from None


def _entry(gid: int, seq: int, text: object, rolled: object) -> Entry:
    if not isinstance(text, str) or rolled not in (0, 1):
        raise Unreadable(f"game {gid} entry {seq} cannot be read: its lines are not text")
    return Entry(seq, tuple(text.split("\n")), bool(rolled))


def quote(name: str) -> str:
    """An SQL identifier, quoted (table and column names come from the file itself)."""
    return '"' + name.replace('"', '""') + '"'


def _connect(path: str) -> sqlite3.Connection:
    # Autocommit (isolation_level=None): the store says BEGIN and COMMIT itself.
    return sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)


def primary(err: sqlite3.Error) -> int:
    """SQLite's primary result code (Python reports the extended one: IOERR_WRITE...)."""
    return int(getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
