"""Backup copies of the store beside it, each costing what changed since the one before.

Two kinds of file, named after the store (``companion.sqlite``):

- ``companion.sqlite.backup-N``, a whole copy (a *base*), made with SQLite's online backup
  API. It is written to ``…backup-new`` (or ``…backup-next``), synced, then renamed: whole
  or absent.
- ``companion.sqlite.backup-N.changes``, an SQLite file holding every copy made since base
  N, one transaction each: for each game changed since the copy before, its row, and its
  entries and dice rolls from the first one that changed (a push after an undo replaces
  the entries past its position; an undo changes only the row). The table ``backup_copy``
  lists the copies, each with the store-wide sequence number (``touched``) it reached; the
  table ``backup_game`` says which games each copy holds and from which entry.

A copy is asked for when a game begins (its header is then in no copy yet) and ends, after
every :data:`EVERY` changes during play, and at a clean stop. It is a transaction appended
to the changes, unless the changes have grown to :data:`REBASE` of the base's size: then a
new base is made, and only the newest :data:`KEEP` bases are kept, with their changes. So a
copy writes what changed, plus its share of the next base, which the changes paid for:
about three times what changed, whatever the store's history (SQLite's page size of the
changes file and its journal make the rest). ``companion bench`` measures it.

The worker remembers, between copies, from which entry each game changed (the store tells
it after each commit); a game it knows nothing of (changed before this process started, or
by another program) is copied from its first entry. The sequence number finds every game
changed since the last copy, with SQLite's index on it: a copy reads what changed, not the
store. Restoring (companion/salvage.py) reads the newest sound base and replays its changes
on it, copy by copy, up to the first that cannot be read.

Each change is copied before it is acknowledged (:class:`Backups`), on a connection of its
own; a new base is made by a worker thread, so a press never waits for one: in WAL mode
SQLite lets it read a consistent snapshot while the main thread goes on writing, and the
entries committed meanwhile go on into the changes of the base before it. Before a base
it checkpoints the log into the main file (PASSIVE: it waits for nobody), so that file,
not only its log, holds the games.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import sqlite3
import stat
import threading
import time
from collections.abc import Mapping
from typing import Literal, get_args

from companion.smallfile import sync_directory
from companion.store import (
    BUSY_TIMEOUT_MS,
    CACHES,
    ENTRY_SUMMED,
    GAME_SUMMED,
    WRONG,
    Store,
    primary,
    quote,
    trust,
)

log = logging.getLogger(__name__)

KEEP = 2  # bases kept, each with its changes: a base made just after damage struck has an older one
#: Entries or head moves between copies during a game: every one, copied before it is
#: acknowledged. A card that loses the store file itself (or its log) after a power cut
#: then still holds, in the copies, each entry acknowledged; a copy is one small
#: transaction (about 13 KB written).
EVERY = 1
#: The changes may grow to this share of their base's size before a new base is made. A
#: base costs the store's size; the changes that made it due cost twice as much at 0.5:
#: every copy pays about twice its own size again towards the next base.
REBASE = 0.5
#: What keeps a copy from being added to the changes for a while only: a full or failing
#: card, memory. Anything else is the file's own fault, and a new whole copy is made: also
#: another program holding the changes' lock, which a press would otherwise wait for.
PASSING = frozenset((sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_NOMEM,
                     sqlite3.SQLITE_INTERRUPT))
#: How long a copy waits for another program holding the changes (or the store) locked,
#: in ms: the press it follows waits as long.
COPY_WAIT_MS = 500
SUFFIX = ".backup-"
#: The names a base is written under before it takes its number: ``new`` from a press's
#: copy (the first, or one the changes cannot take), ``next`` from the worker.
Fresh = Literal["new", "next"]
CHANGES = ".changes"
#: Pages of the changes file: small, since a copy changes a few rows at the end of each
#: table (the journal and the pages written count in pages).
CHANGES_PAGE = 1024
#: The page cache of each of the worker's connections, in KiB.
CACHE_KIB = 256
#: The tables of a copy in the changes file (the store's own tables are there too, each
#: with a column ``copy`` first).
COPIES_SCHEMA = (
    "CREATE TABLE backup_copy (copy INTEGER PRIMARY KEY, touched INTEGER NOT NULL,"
    " made REAL NOT NULL)",
    "CREATE TABLE backup_game (copy INTEGER NOT NULL, game INTEGER NOT NULL, since INTEGER,"
    " PRIMARY KEY (copy, game))",
)
#: Tables whose rows belong to a game's entries, by its ``game`` and ``seq`` columns; the
#: games table is copied by ``id``; any other table (none yet) whole with every copy.
GAMES_TABLE = "games"

#: For each game changed since the last copy: the first entry that changed (None: only its
#: row, by an undo, a redo or a new game).
Changed = Mapping[int, "int | None"]


def copies(store: str | pathlib.Path) -> list[pathlib.Path]:
    """The store's bases (whole copies), newest first; only regular files (a FIFO there
    would hang whoever read it)."""
    return [base for _, base in numbered(pathlib.Path(store)) if regular(base)]


def numbered(path: pathlib.Path) -> list[tuple[int, pathlib.Path]]:
    """Everything named as a base of the store at ``path``, with its number, newest first."""
    found = []
    for candidate in path.parent.glob(f"{path.name}{SUFFIX}*"):
        number = candidate.name[len(path.name) + len(SUFFIX):]
        if number.isdigit():
            found.append((int(number), candidate))
    return sorted(found, reverse=True)


def regular(path: pathlib.Path) -> bool:
    """Whether ``path`` is a regular file (not a directory, a FIFO, a device), by stat."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def changes_of(base: pathlib.Path) -> pathlib.Path:
    """The file of the copies made since ``base``."""
    return base.with_name(base.name + CHANGES)


def backup_files(store: str | pathlib.Path) -> list[pathlib.Path]:
    """Every file of the store's backups (the bases and their changes), newest first."""
    return [f for base in copies(store) for f in (base, changes_of(base)) if f.exists()]


def make_copy(store: str | pathlib.Path, changed: Changed | None = None, keep: int = KEEP,
              rebase: bool = False, grown: bool = True) -> pathlib.Path | None:
    """Copy what changed since the last copy (``changed``: from which entry each game did;
    None: every changed game from its first) into the newest base's changes, or make a new
    base (when there is none, ``rebase``, the changes have grown to :data:`REBASE` of it
    and ``grown`` says so, or the store is not the one they follow). The file written;
    None when nothing changed. ``grown=False``: changes that have grown are added to all the
    same (an entry waits for its copy; the worker makes the new base, :func:`base_due`)."""
    path = pathlib.Path(store)
    bases = copies(path)
    if rebase or not bases:
        return make_base(path, keep)
    base = bases[0]
    changes = changes_of(base)
    if not regular(changes):  # gone, or something else put in its place
        return make_base(path, keep)
    if grown and base_due(base):
        return make_base(path, keep)
    try:
        written = append_changes(path, changes, changed or {})
    except sqlite3.DatabaseError as err:
        if primary(err) in PASSING:
            raise  # the next copy tries again
        # Damaged, or no longer written to as it is (a flipped bit in its header's write
        # version makes SQLite open it read-only; a table not as the copies made it): a
        # copy added there never would be, so every later entry would go uncopied.
        log.warning("the copies in %s cannot be added to (%s): a new whole copy", changes.name, err)
        return make_base(path, keep)
    if written == "behind":
        log.warning("store %s is behind its copies (a store put back by hand?): a new whole "
                    "copy, and the older copies are kept", path)
        return make_base(path, keep, prune=False)
    if written == "unknown":
        return make_base(path, keep)
    return changes if written == "copied" else None


def base_due(base: pathlib.Path) -> bool:
    """Whether ``base``'s changes have grown to :data:`REBASE` of its size (a new base is due)."""
    try:
        return changes_of(base).stat().st_size >= REBASE * base.stat().st_size
    except OSError:  # gone meanwhile: the next copy finds out what is wrong
        return False


def append_changes(path: pathlib.Path, changes: pathlib.Path,
                   changed: Changed) -> Literal["copied", "unchanged", "behind", "unknown"]:
    """One copy appended to ``changes`` ("copied"), unless nothing changed since the last
    ("unchanged"), the store's sequence is behind the changes' ("behind": another store),
    or the changes do not say where they reached ("unknown"). The games copied: those the
    sequence shows changed since the last copy, and those in ``changed`` (a change the
    sequence already counted, in a copy made before it was told of: a new whole copy's
    first, by the worker, may take a game's row and not its new entry)."""
    source = connect(path)
    try:
        source.execute(f"PRAGMA busy_timeout = {COPY_WAIT_MS}")
        source.execute("ATTACH DATABASE ? AS changes", (f"{changes.resolve().as_uri()}?mode=rw",))
        source.execute("PRAGMA changes.synchronous = FULL")
        source.execute("BEGIN")
        try:
            reached = source.execute("SELECT max(copy), max(touched) FROM changes.backup_copy").fetchone()
            now = source.execute(f"SELECT coalesce(max(touched), 0) FROM {GAMES_TABLE}").fetchone()[0]
            if not all(isinstance(value, int) for value in (*reached, now)):
                return "unknown"  # none yet, or a value of the wrong kind: a whole copy
            if now < reached[1]:
                return "behind"
            games = [gid for (gid,) in source.execute(
                f"SELECT id FROM {GAMES_TABLE} WHERE touched > ?", (reached[1],))]
            games += [gid for gid in changed if gid not in games and source.execute(
                f"SELECT 1 FROM {GAMES_TABLE} WHERE id = ?", (gid,)).fetchone()]
            if not games:
                return "unchanged"
            number = reached[0] + 1
            for table in tables(source):
                mirror(source, table)
            for gid in games:  # a game not known to have changed from later: from its start
                copy_game(source, number, gid, changed.get(gid, 1))
            for table in tables(source):
                if table != GAMES_TABLE and not by_game(source, table):
                    names = ", ".join(map(quote, columns(source, "main", table)))
                    source.execute(f"INSERT INTO changes.{quote(table)} (copy, {names})"
                                   f" SELECT ?, {names} FROM main.{quote(table)}", (number,))
            source.execute("INSERT INTO changes.backup_copy (copy, touched, made) VALUES (?, ?, ?)",
                           (number, now, time.time()))
            source.execute("COMMIT")
        finally:
            if source.in_transaction:
                source.execute("ROLLBACK")
    finally:
        source.close()
    return "copied"


def copy_game(source: sqlite3.Connection, number: int, gid: int, since: int | None) -> None:
    """Game ``gid``'s row, and its rows of every table kept by entry from entry ``since``
    (none when ``since`` is None), into copy ``number`` of the attached changes."""
    source.execute("INSERT INTO changes.backup_game (copy, game, since) VALUES (?, ?, ?)",
                   (number, gid, since))
    for table in tables(source):
        names = ", ".join(map(quote, columns(source, "main", table)))
        if table == GAMES_TABLE:
            source.execute(f"INSERT INTO changes.{quote(table)} (copy, {names}) SELECT ?,"
                           f" {names} FROM main.{quote(table)} WHERE id = ?", (number, gid))
        elif since is not None and by_game(source, table):
            source.execute(f"INSERT INTO changes.{quote(table)} (copy, {names}) SELECT ?,"
                           f" {names} FROM main.{quote(table)} WHERE game = ? AND seq >= ?",
                           (number, gid, since))


def tables(db: sqlite3.Connection) -> list[str]:
    """The store's tables that copies keep (its caches are rebuilt from the record)."""
    return [name for (name,) in db.execute(
        "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if name not in CACHES]


def columns(db: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA {schema}.table_info({quote(table)})")]


def by_game(db: sqlite3.Connection, table: str) -> bool:
    """Whether a table's rows belong to a game's entries (it has ``game`` and ``seq``)."""
    return {"game", "seq"} <= set(columns(db, "main", table))


def mirror(db: sqlite3.Connection, table: str) -> None:
    """The changes' table for one of the store's, with every column the store's has now (a
    later version may add some), and ``copy`` first."""
    have = columns(db, "changes", table)
    if not have:
        db.execute(f"CREATE TABLE changes.{quote(table)} (copy INTEGER NOT NULL)")
        have = ["copy"]
    for name in columns(db, "main", table):
        if name not in have:
            db.execute(f"ALTER TABLE changes.{quote(table)} ADD COLUMN {quote(name)}")


def make_base(path: pathlib.Path, keep: int = KEEP, prune: bool = True) -> pathlib.Path:
    """A whole copy of the store as the next base, with its (empty) changes file; the newest
    ``keep`` bases are kept, and never one that holds more of the games' history than the
    new one (its copies reached further in the store's sequence)."""
    return install_base(path, prepare_base(path, "new"), keep, prune)


def prepare_base(path: pathlib.Path, name: Fresh) -> pathlib.Path:
    """The next base written beside the copies under a name of its own (``…backup-new``
    from a press's copy, ``…backup-next`` from the worker: neither writes over the other's),
    synced, with its changes file beside it; to :func:`install_base` or
    :func:`discard_base`."""
    fresh = path.with_name(f"{path.name}{SUFFIX}{name}")
    try:
        write_copy(path, fresh)
        start_changes(fresh, changes_of(fresh))
    except BaseException:
        discard_base(fresh)
        raise
    return fresh


def discard_base(fresh: pathlib.Path) -> None:
    """A base not put in place: a half-written copy must not take the space the store needs
    (a full card)."""
    for left in (fresh, changes_of(fresh)):
        with contextlib.suppress(OSError):
            left.unlink()


def install_base(path: pathlib.Path, fresh: pathlib.Path, keep: int = KEEP,
                 prune: bool = True) -> pathlib.Path:
    """A prepared base given the next number and put in its place, its changes first; the
    bases past the newest ``keep`` removed."""
    existing = numbered(path)  # past anything put in their place too: never over it
    target = path.with_name(f"{path.name}{SUFFIX}{existing[0][0] + 1 if existing else 1}")
    reached = sequence_reached(fresh)
    os.replace(changes_of(fresh), changes_of(target))
    os.replace(fresh, target)
    if prune:
        for old in copies(path)[keep:]:
            if sequence_reached(old) <= reached:
                for name in (changes_of(old), old):
                    with contextlib.suppress(FileNotFoundError):
                        name.unlink()
    sync_directory(path.parent)
    return target


def write_copy(path: pathlib.Path, fresh: pathlib.Path) -> None:
    """Checkpoint ``path``'s log, then copy it to ``fresh``, synced."""
    with contextlib.suppress(FileNotFoundError):
        fresh.unlink()
    source = connect(path)
    try:
        source.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        copy = connect(fresh, "rwc")
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


def start_changes(base: pathlib.Path, changes: pathlib.Path) -> int:
    """The changes file of a new base, holding only where the base reached in the store's
    sequence (copy 0); that sequence number."""
    with contextlib.suppress(FileNotFoundError):
        changes.unlink()
    db = sqlite3.connect(base, isolation_level=None)
    try:
        reached = db.execute(f"SELECT coalesce(max(touched), 0) FROM {GAMES_TABLE}").fetchone()[0]
    finally:
        db.close()
    db = sqlite3.connect(changes, isolation_level=None)
    try:
        db.execute(f"PRAGMA page_size = {CHANGES_PAGE}")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("BEGIN")  # whole or absent
        for statement in COPIES_SCHEMA:
            db.execute(statement)
        db.execute("INSERT INTO backup_copy (copy, touched, made) VALUES (0, ?, ?)",
                   (reached, time.time()))
        db.execute("COMMIT")
    finally:
        db.close()
    return int(reached)


def copies_unreadable(db: sqlite3.Connection) -> str:
    """Why the copies in a changes file cannot all be restored as written ("" when they
    can): the numbers that say which copy holds what (each copy's number and where it
    reached in the store's sequence, each game's first entry copied) must be whole
    numbers, and the games' rows and entries must match their checksums
    (:func:`rows_not_as_written`). Restoring stops at the first copy that cannot be read
    (salvage.replay_changes), and passes over a row that is not as written."""
    try:
        bad = db.execute(
            "SELECT (SELECT count(*) FROM backup_copy WHERE typeof(copy) != 'integer'"
            " OR typeof(touched) != 'integer') + (SELECT count(*) FROM backup_game WHERE"
            " typeof(copy) != 'integer' OR typeof(game) != 'integer' OR (since IS NOT NULL"
            " AND (typeof(since) != 'integer' OR since < 1)))").fetchone()[0]
    except sqlite3.DatabaseError as err:
        return str(err)
    if bad:
        return f"{bad} of its copies' numbers are not whole numbers"
    copied = db.execute("SELECT count(*) FROM backup_copy WHERE copy > 0").fetchone()[0]
    # its tables come with its first copy; copies made before rows had checksums have none
    return rows_not_as_written(db, tables=bool(copied), sums=False)


def rows_not_as_written(db: sqlite3.Connection, tables: bool = True, sums: bool = True) -> str:
    """Why a copy's games' rows and entries (a whole copy's, or a changes file's) are not
    all as they were written ("" when they are): a flipped bit that leaves its page sound
    passes SQLite's quick check, and salvage takes such an entry only where no other
    replays, so a copy holding one cannot stand in for the store. ``tables``: both tables
    must be there (a whole copy without its entries table holds no game); ``sums``: with
    their checksums (a whole copy made before rows had them is made again)."""
    try:
        for table, summed in ((GAMES_TABLE, GAME_SUMMED), ("entries", ENTRY_SUMMED)):
            names = columns(db, "main", table)
            if not names and tables:
                return f"its {table} table is missing"
            if "crc" not in names:
                if names and sums:
                    return f"its {table} rows have no checksums"
                continue
            db.text_factory = bytes  # summed as stored, whatever a flipped bit made of the text
            try:
                rows = db.execute(f"SELECT {', '.join(map(quote, names))} FROM {quote(table)}")
                wrong = sum(trust(dict(zip(names, row, strict=True)), summed) == WRONG for row in rows)
            finally:
                db.text_factory = str
            if wrong:
                return f"{wrong} of its copied {table} rows are not as they were written"
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
        return str(err)
    return ""


def sequence_reached(base: pathlib.Path) -> int:
    """How far in the store's sequence a base and its changes reached (0 when unreadable)."""
    changes = changes_of(base)
    if not regular(changes):
        return 0
    try:
        db = sqlite3.connect(f"{changes.resolve().as_uri()}?mode=ro", uri=True)
        try:
            reached = db.execute("SELECT coalesce(max(touched), 0) FROM backup_copy"
                                 " WHERE typeof(touched) = 'integer'").fetchone()[0]
        finally:
            db.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError):  # a garbled schema or message
        return 0
    return reached if isinstance(reached, int) else 0


def connect(path: pathlib.Path | str, mode: Literal["rw", "rwc"] = "rw") -> sqlite3.Connection:
    """A connection of the worker's, with a small page cache: a copy reads each page once,
    and the daemon's memory must not grow with the store (SQLite's default cache is 2 MB a
    connection). To the store, ``mode=rw``: a store that has gone is not created afresh;
    ``rwc`` makes a new copy's file."""
    db = sqlite3.connect(f"{pathlib.Path(path).resolve().as_uri()}?mode={mode}", uri=True,
                         isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    return db


class Backups:
    """The store's copies: each change copied before it is acknowledged, whole copies made
    by a worker thread.

    Hang :meth:`changed` on :attr:`Store.after_commit`; :meth:`start` the worker;
    :meth:`stop` it at a clean stop (it makes a last copy if anything changed). With the
    worker started, a change is copied before :meth:`changed` returns, so the screen and
    the console answer only once the entry is in the store and in a copy: a card that loses
    the store file or its log after a power cut has lost nothing anybody saw. That copy is
    one small transaction (:func:`append_changes`); a new whole copy, when one is due, is the
    worker's, while the table plays on (:meth:`rebase_now`). Without a worker (tests),
    :meth:`run_due` makes the copy asked for, in the caller's thread.
    ``rebase``: the first copy is a whole one (after salvage made the store anew).
    """

    def __init__(self, store: str, keep: int = KEEP, every: int = EVERY,
                 rebase: bool = False) -> None:
        self.store = store
        self.keep = keep
        self.every = every
        self.rebase = rebase
        self.changes = 0  # since the last copy was asked for (main thread only)
        self.wanted = False
        self.stopping = False
        #: For each game changed since the last copy, the first entry that changed.
        self.pending: dict[int, int | None] = {}
        #: While the worker makes a new base: each game changed since it began (the base
        #: may not hold the change: its first copy copies the game again, whole).
        self.since_base: set[int] | None = None
        self.lock = threading.Lock()  # guards the fields above, held for no file's work
        self.copying = threading.Lock()  # one copy written at a time, by either thread
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None
        #: Whether this process has looked at the newest whole copy yet (its first copy does)
        self.looked = False
        #: Whether this process has made a copy yet: before, what changed is not all known
        self.caught_up = False

    def changed(self, gid: int, since: int | None, milestone: bool) -> None:
        """One committed change to game ``gid`` from entry ``since`` (None: its row only)
        (main thread, before the change is acknowledged): copied at once when the worker
        runs and :attr:`every` changes or a game's start or end make a copy due."""
        with self.lock:
            self.pending[gid] = earliest(self.pending.get(gid, since), since)
            if self.since_base is not None:
                self.since_base.add(gid)
        self.changes += 1
        if not (milestone or self.changes >= self.every):
            return
        if self.thread is None:
            self.request()
            return
        self.changes = 0
        with self.copying:  # waits only for the first copy of a run, or a base's last steps
            self._copy(grown=False)
        self.wake.set()  # the worker looks whether a new whole copy is due

    def request(self) -> None:
        self.changes = 0
        with self.lock:
            self.wanted = True
        self.wake.set()

    def start(self) -> None:
        """Start the worker, and ask it for a copy at once: it checks that the copies can
        be restored from (a whole copy if not), and copies whatever the store holds beyond
        them (the entries of a run that a power cut ended before its next copy: the
        changes since the copies are found by the store's sequence); when the copies are
        sound and up to date it writes nothing. A whole copy a power cut left unfinished
        is removed first."""
        path = pathlib.Path(self.store)
        for name in get_args(Fresh):
            discard_base(path.with_name(f"{path.name}{SUFFIX}{name}"))
        self.thread = threading.Thread(target=self._work, name="backups", daemon=True)
        self.thread.start()
        self.request()

    def stop(self) -> None:
        """Finish the copy under way; make a last one if anything changed since (or a copy
        failed: a full card that has room again)."""
        with self.lock:
            failed = bool(self.pending)
        if self.changes or failed:
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
            self.run_due(grown=False)  # a whole copy the changes have grown to: unlocked, below
            if not self.stopping and self.base_is_due():
                self.rebase_now()
            if self.stopping and not self.wanted:  # a last copy asked for meanwhile: make it
                return

    def run_due(self, grown: bool = True) -> pathlib.Path | None:
        """Make the copy asked for, if one was; the file written. ``grown``: as
        :func:`make_copy`'s."""
        with self.lock:
            if not self.wanted:
                return None
            self.wanted = False
        with self.copying:
            return self._copy(grown)

    def base_is_due(self) -> bool:
        """Whether the changes have grown to call for a new whole copy (a card that cannot
        be read says no: the next copy finds out what is wrong)."""
        try:
            bases = copies(self.store)
            return bool(bases) and base_due(bases[0])
        except OSError:
            return False

    def _copy(self, grown: bool) -> pathlib.Path | None:
        """Copy what changed (the caller holds :attr:`copying`); the file written. A copy
        that fails is logged, and what it would have copied waits for the next one."""
        with self.lock:
            changed, self.pending = self.pending, {}
        try:
            if not self.looked:  # copies that cannot be restored from are none: a whole one
                self.looked = True
                self.rebase = self.rebase or not newest_restorable(self.store)
            # Until this process has made a copy, what changed before it started is not
            # known (a run the power ended after its last copy): every game changed since
            # the copies is copied from its first entry.
            made = make_copy(self.store, changed if self.caught_up else {}, self.keep,
                             self.rebase, grown)
        except Exception as err:  # full, failing, locked, or copies a flipped bit garbled:
            # the copies must outlive any of it (the worker would end, and no copy be made)
            self.keep_pending(changed)
            log.error("store copy failed (%s: %s); the store itself is unchanged",
                      type(err).__name__, err)
            return None
        self.caught_up = True
        self.rebase = False
        if made is not None:
            log.info("store copied to %s", made.name)
        return made

    def keep_pending(self, changed: Changed) -> None:
        """What a copy did not copy, still to be copied by the next one."""
        with self.lock:
            for gid, since in changed.items():
                self.pending[gid] = earliest(self.pending.get(gid, since), since)

    def rebase_now(self) -> None:
        """A new base, made while entries go on being copied into the changes of the one
        before it: written beside the copies, then, with no copy under way, given a first
        copy of every game changed since it began (the base may not hold those changes)
        and put in its place. Until then, the older base and its changes hold everything."""
        with self.lock:
            self.since_base = set()
        path = pathlib.Path(self.store)
        fresh: pathlib.Path | None = None
        try:
            before = numbered(path)[:1]
            fresh = prepare_base(path, "next")
            with self.copying:
                with self.lock:
                    since_base, self.since_base = self.since_base or set(), None
                if numbered(path)[:1] != before:  # a press's copy made a whole one meanwhile
                    discard_base(fresh)
                    return
                # Each game changed meanwhile, whole: the one commit that may have come
                # between taking since_base and this copy's read of the store is not in it
                # (an entry pushed after undos replaces entries from before its since).
                append_changes(path, changes_of(fresh), dict.fromkeys(since_base, 1))
                made = install_base(path, fresh, self.keep)
        except Exception as err:  # full or failing: the copies so far still hold everything
            with self.lock:
                self.since_base = None
            if fresh is not None:
                discard_base(fresh)
            log.error("whole store copy failed (%s: %s); copies go on into the last one",
                      type(err).__name__, err)
            return
        log.info("store copied to %s", made.name)


def newest_restorable(store: str | pathlib.Path) -> bool:
    """Whether the newest whole copy (if any) and the copies made since it are what
    salvage could restore from: an SQLite file that SQLite's quick check finds sound, and
    changes whose every copy can be read (:func:`copies_unreadable`; restoring stops at
    the first that cannot, and every copy after it would be of no use), each with its rows
    as written. Both are read as they are (immutable: nothing is written beside them)."""
    bases = copies(store)
    if not bases:
        return True
    changes = changes_of(bases[0])
    try:
        with open(bases[0], "rb") as handle:
            if handle.read(16) != b"SQLite format 3\0":  # empty (SQLite would read no tables)
                return False
        for path in (bases[0], changes):
            if path is changes and not regular(changes):
                continue  # none yet (the next copy starts them)
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                    return False
                if (copies_unreadable if path is changes else rows_not_as_written)(db):
                    return False
            finally:
                db.close()
    except (OSError, sqlite3.DatabaseError, UnicodeDecodeError):
        return False
    return True


def earliest(known: int | None, since: int | None) -> int | None:
    """What two changes to one game changed together: the entries from the earlier of their
    first entries (None: only the row, as an undo).

    >>> earliest(None, 7), earliest(5, 7), earliest(None, None)
    (7, 5, None)
    """
    if known is None or since is None:
        return since if known is None else known
    return min(known, since)


def keep_copies(store: Store, rebase: bool = False) -> Backups:
    """Copies of ``store`` from now on, by a worker thread; stop it at the end. ``rebase``:
    a whole copy first (the store was just made anew by salvage)."""
    backups = Backups(store.path, rebase=rebase)
    store.after_commit = backups.changed
    backups.start()
    return backups
