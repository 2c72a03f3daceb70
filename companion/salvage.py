"""Opening the store at start-up: wait for a lock, set a damaged file aside, keep what it holds.

A store another process is using (``companion export`` in a shell) is waited for, however
long it takes: a lock is never damage. A store that is damaged is renamed aside, never
deleted, with its write-ahead log and shared-memory index beside it, and the companion starts
on a fresh store holding every game that can still be read, each up to its last entry that
still replays legally (the record is the truth: a garbled line ends what can be trusted).

Damage is any of:

- SQLite finds the file damaged (a truncated file, a garbled page, not a database at all);
- a stored value cannot be decoded (a flipped bit SQLite's checks do not see);
- the log holds committed transactions that SQLite will not read (its header or a frame in
  the middle garbled: SQLite takes the first bad frame as the end of the log);
- the main file is gone, empty or not SQLite's while its log or backup copies are still
  there (SQLite would open an empty file as a new, empty store; a main file that is not
  SQLite's is set aside whatever is beside it);
- the store is behind its own copies (its log lost, emptied, cut short or another store's:
  SQLite opens the main file alone, or with the wrong log, as a sound but older store).

What is kept comes from, best first: what SQLite still reads of the damaged files; every
leaf page and log frame of them read directly (companion/rawread.py: past a damaged index
or log header); the backup copies (companion/backup.py): the newest sound whole copy with
the copies made since put in their place. For each entry the first of these whose lines
replay legally is taken.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import pathlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from companion import rawread
from companion.backup import changes_of, copies, regular, sequence_reached
from companion.exc import RecordError, UnreadableRecord
from companion.games import GAMES
from companion.games.base import counted
from companion.record import Replayer, replay_header
from companion.smallfile import aside_name, sync_directory
from companion.statedir import not_a_store
from companion.store import (
    ENTRY_SUMMED,
    GAME_SUMMED,
    STATUSES,
    Store,
    primary,
    quote,
    text_or_bytes,
    trust,
)

log = logging.getLogger(__name__)

#: SQLite's answers for a file that is damaged, as opposed to busy, full or unreachable.
DAMAGED = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
#: Another connection holds the lock longer than the busy timeout: wait again.
LOCKED = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
#: What SQLite keeps beside a database file (WAL mode); the log holds committed entries.
COMPANIONS = ("-wal", "-shm")
#: The two tables a game lives in; other tables are carried as SQLite reads them.
GAMES_TABLE, ENTRIES_TABLE = "games", "entries"

Row = dict[str, Any]


def open_store(path: str, waiting: Callable[[], object] | None = None) -> tuple[Store, str]:
    """The store at ``path``, and a one-line note for the screen ("" when all is well);
    ``waiting`` is called once if another process's lock has to be waited for (the screen
    says so, rather than staying dark)."""
    finding = missing_or_hidden(pathlib.Path(path))
    if finding:
        return salvage(path, finding)
    waited = False
    while True:
        store: Store | None = None
        try:
            store = Store(path)
            finding = store.check() or store.unreadable() or behind_copies(store, path)
        except sqlite3.DatabaseError as err:
            if store is not None:
                store.close()
            if primary(err) in LOCKED:
                if not waited:
                    log.warning("store %s is locked by another process: waiting for it", path)
                    if waiting is not None:
                        waiting()
                waited = True
                continue
            # Python's own reading of a stored value (not UTF-8) has no SQLite code: damage
            if primary(err) not in DAMAGED and primary(err) != 0:
                raise
            return salvage(path, str(err))
        except UnicodeDecodeError as err:  # garbled text where SQLite keeps the schema
            if store is not None:
                store.close()
            return salvage(path, f"unreadable text in the store ({err.reason})")
        if not finding:
            return store, ""
        store.close(fold_log=False)  # the files are set aside as they are
        return salvage(path, finding)


def behind_copies(store: Store, path: str) -> str:
    """Why a store that opens is behind its own copies ("" when it is not): the copies are
    made from the store, so a store whose sequence (``touched``: every change takes its
    next number) is below theirs has lost changes since (its log gone, emptied, cut short
    or another store's, or an older store put back), and the copies hold them."""
    bases = copies(path)
    reached = sequence_reached(bases[0]) if bases else 0
    if not reached:
        return ""
    now = store.reached()
    if isinstance(now, int) and now >= reached:
        return ""
    return (f"the store is behind its copies (its changes reach {now} of the {reached} "
            f"{bases[0].name} holds): its log was lost, or an older store was put back")


def missing_or_hidden(path: pathlib.Path) -> str:
    """Damage seen before SQLite opens the files (it would hide it): a main file that is
    missing or empty while a log or copies are left (SQLite would start an empty store
    there), a main file that is not SQLite's, or committed transactions the log will not
    give back. A missing or empty main file with nothing beside it is a new store."""
    log_file = pathlib.Path(f"{path}-wal")
    if not path.exists() or path.stat().st_size == 0:
        what = "missing" if not path.exists() else "empty (0 bytes)"
        if log_file.exists() and log_file.stat().st_size > rawread.WAL_HEADER:
            return f"the main file is {what} but its log is there"
        if copies(path):
            return f"the main file is {what} but its backup copies are there"
        return ""  # nothing was ever kept here: a new store
    problem = not_a_store(str(path))
    if problem or not log_file.exists():
        return problem
    main, wal = rawread.read_files(path)
    size = rawread.page_size(main)
    used, hidden = rawread.log_findings(wal, rawread.wal_page_size(wal, size))
    if hidden:
        return (f"the log is damaged: {hidden} frames of committed changes after its "
                f"first {used} cannot be read by SQLite")
    return ""


def salvage(path: str, finding: str) -> tuple[Store, str]:
    """Set the damaged files aside, start a fresh store and carry what can be read into it."""
    finding = " ".join(finding.split())  # quick_check may answer on several lines
    aside = set_store_aside(pathlib.Path(path))
    store = Store(path)
    kept = carry_games(aside, store)
    log.error("store %s is damaged (%s): kept as %s; %d of %d games carried into a fresh "
              "store, with %d entries%s", path, finding, aside.name, kept.games, kept.seen,
              kept.entries, f" (starting from {kept.backup})" if kept.backup else "")
    # one line of the 128-pixel screen (it wraps the rest)
    return store, f"Damaged store, {kept.games} kept, {counted(kept.entries, 'entry', 'entries')}"


def set_store_aside(path: pathlib.Path) -> pathlib.Path:
    """Rename the file and its log to ``NAME.damaged-TIME`` (never over an older one)."""
    aside = aside_name(path, ("", *COMPANIONS))
    for suffix in COMPANIONS:  # the log first: a crash between renames leaves no stray log
        if pathlib.Path(f"{path}{suffix}").exists():
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    if path.exists():  # a missing main file with its log left: the log alone is set aside
        os.replace(path, aside)
    sync_directory(path.parent)  # a power cut now cannot bring the damaged file back
    return aside


def read_only(path: str | pathlib.Path) -> sqlite3.Connection:
    """A connection that leaves the set-aside file as it was (SQLite may add a ``-shm``).

    ``writable_schema`` makes SQLite read on past a damaged schema instead of refusing the
    whole file; the connection cannot write, so nothing is changed by it. Text that is not
    UTF-8 comes back as bytes, for the checks below to refuse, instead of failing the row.
    """
    db = sqlite3.connect(f"{pathlib.Path(path).resolve().as_uri()}?mode=ro", uri=True,
                         isolation_level=None)
    db.text_factory = text_or_bytes
    db.execute("PRAGMA writable_schema = ON")
    return db


# --- where rows come from ---


class Source:
    """Rows of one damaged or backed-up file set, by table and key, as far as they read."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.games: dict[int, list[Row]] = {}
        self.entries: dict[tuple[int, int], list[Row]] = {}
        self.others: dict[str, list[Row]] = {}

    def add_game(self, row: Row) -> None:
        if isinstance(row.get("id"), int) and row not in self.games.setdefault(row["id"], []):
            self.games[row["id"]].append(row)

    def add_entry(self, row: Row) -> None:
        key = (row.get("game"), row.get("seq"))
        if all(isinstance(k, int) for k in key) and row not in self.entries.setdefault(key, []):  # type: ignore[arg-type]
            self.entries[key].append(row)  # type: ignore[index]


def sqlite_source(name: str, path: pathlib.Path) -> Source:
    """What SQLite reads of a file: every row it can reach, table by table; a read that
    fails part-way keeps the rows before, and entries are also looked up game by game,
    so that one damaged page does not hide the rest."""
    source = Source(name)
    try:
        db = read_only(path)
    except sqlite3.DatabaseError:
        return source
    try:
        for row in rows(db, f"SELECT * FROM {GAMES_TABLE}"):
            source.add_game(row)
        for row in rows(db, f"SELECT * FROM {ENTRIES_TABLE}"):
            source.add_entry(row)
        for gid in list(source.games):
            for row in rows(db, f"SELECT * FROM {ENTRIES_TABLE} WHERE game = ? ORDER BY seq",
                            (gid,)):
                source.add_entry(row)
        for table in tables(db):
            if table not in (GAMES_TABLE, ENTRIES_TABLE):
                source.others[table] = list(rows(db, f"SELECT * FROM {quote(table)}"))
    finally:
        db.close()
    return source


def rows(db: sqlite3.Connection, sql: str, args: tuple[Any, ...] = ()) -> Iterator[Row]:
    """The rows of a query as dicts, up to the first that SQLite cannot read."""
    try:
        cursor = db.execute(sql, args)
        names = [d[0] for d in cursor.description]
        for values in cursor:
            yield dict(zip(names, values, strict=True))
    except (sqlite3.DatabaseError, UnicodeDecodeError):  # a garbled page, or garbled names
        return


def tables(db: sqlite3.Connection) -> list[str]:
    """The file's own tables, by names that read as text (a garbled name names nothing)."""
    return [row["name"] for row in rows(
        db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if isinstance(row["name"], str)]


def raw_source(path: pathlib.Path, games_columns: list[str], entries_columns: list[str]) -> Source:
    """Every games and entries row on the files' leaf pages and log frames (rawread.py),
    named by the fresh store's columns: a row is taken for a game or an entry only when
    its values have the kinds those columns hold."""
    source = Source("pages")
    main, wal = rawread.read_files(path)
    for cell in rawread.cells(main, wal):
        values = cell.values
        if cell.kind == rawread.TABLE_LEAF and 3 <= len(values) <= len(games_columns):
            row = dict(zip(games_columns, values, strict=False))
            row["id"] = cell.rowid  # INTEGER PRIMARY KEY: the rowid, stored as NULL
            if row.get("game") in GAMES and str(row.get("header", "")).startswith("game "):
                source.add_game(row)
        elif cell.kind == rawread.INDEX_LEAF and 3 <= len(values) <= len(entries_columns):
            row = dict(zip(entries_columns, values, strict=False))
            seq = row.get("seq")
            if isinstance(row.get("lines"), str) and isinstance(seq, int) and seq > 0:
                source.add_entry(row)
    return source


def restored(path: pathlib.Path) -> Source | None:
    """What the newest sound base (a whole copy that SQLite's quick_check finds sound) and
    the copies made since it hold: the base's rows, with each later copy's rows put in
    their place, copy by copy, up to the first that cannot be read. None without a base."""
    for base in copies(path):
        try:
            db = read_only(base)
            try:
                sound = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            finally:
                db.close()
        except sqlite3.DatabaseError:
            continue
        if sound:
            source = sqlite_source(base.name, base)
            later = replay_changes(source, changes_of(base))
            if later:
                source.name = f"{base.name} and {later} later cop{'ies' if later > 1 else 'y'}"
            return source
    return None


def replay_changes(source: Source, changes: pathlib.Path) -> int:
    """Put the rows of each copy in ``changes`` in their place in ``source``, in the order
    they were made: a game's row, and its rows by entry from the first that changed (those
    past it are gone). The number of copies put in; a copy that cannot be read wholly ends
    it (the base and the copies before stay whole)."""
    if not regular(changes):  # none, or a FIFO that would hang the start
        return 0
    try:  # read-write: a copy cut short left a journal, which SQLite rolls back on reading
        db = sqlite3.connect(f"{changes.resolve().as_uri()}?mode=rw", uri=True,
                             isolation_level=None)
        db.text_factory = text_or_bytes
    except sqlite3.DatabaseError:
        return 0
    try:
        numbers = [row["copy"] for row in rows(db, "SELECT copy FROM backup_copy WHERE copy > 0"
                                                   " ORDER BY copy")]
        kept = [table for table in tables(db) if not table.startswith("backup_")]
        by_entry = [table for table in kept if table != GAMES_TABLE and
                    {"game", "seq"} <= set(columns(db, table))]
        seqs: dict[int, set[int]] = {}  # each game's entries in the source, to drop some
        for gid, seq in source.entries:
            seqs.setdefault(gid, set()).add(seq)
        done = 0
        for number in numbers:
            try:
                games = {row["game"]: row["since"] for row in strict(
                    db, "SELECT game, since FROM backup_game WHERE copy = ?", number)}
                found = {table: strict(db, f"SELECT * FROM {quote(table)} WHERE copy = ?", number)
                         for table in kept}
            except (sqlite3.DatabaseError, UnicodeDecodeError):
                break
            if not all(isinstance(gid, int) and (since is None or (isinstance(since, int) and since >= 1))
                       for gid, since in games.items()):
                break  # numbers of the wrong kind: this copy cannot say what it holds
            put_copy(source, games, found, by_entry, seqs)
            done += 1
        return done
    finally:
        db.close()


def strict(db: sqlite3.Connection, sql: str, number: int) -> list[Row]:
    """Every row of a query, without the changes' ``copy`` column; DatabaseError when any
    cannot be read (a copy is put in whole or not at all)."""
    cursor = db.execute(sql, (number,))
    names = [d[0] for d in cursor.description]
    return [{k: v for k, v in zip(names, values, strict=True) if k != "copy"} for values in cursor]


def put_copy(source: Source, games: dict[int, int | None], found: dict[str, list[Row]],
             by_entry: list[str], seqs: dict[int, set[int]]) -> None:
    """One copy's rows in their place in ``source`` (see :func:`replay_changes`); ``seqs``:
    each game's entries in ``source``, kept up to date."""
    for row in found.get(GAMES_TABLE, []):
        if row.get("id") in games:
            source.games[row["id"]] = [row]
    for gid, since in games.items():
        if since is None:
            continue
        gone = {seq for seq in seqs.get(gid, ()) if seq >= since}
        for seq in gone:
            del source.entries[(gid, seq)]
        seqs[gid] = seqs.get(gid, set()) - gone
        for table in by_entry:
            if table != ENTRIES_TABLE:
                source.others[table] = [row for row in source.others.get(table, [])
                                        if not (row.get("game") == gid and _at_or_after(row, since))]
    for row in found.get(ENTRIES_TABLE, []):
        source.entries[(row["game"], row["seq"])] = [row]
        seqs.setdefault(row["game"], set()).add(row["seq"])
    for table, taken in found.items():
        if table in by_entry and table != ENTRIES_TABLE:
            source.others.setdefault(table, []).extend(taken)
        elif table not in (GAMES_TABLE, ENTRIES_TABLE) and table not in by_entry:
            source.others[table] = taken  # a table copied whole with every copy


def _at_or_after(row: Row, since: int) -> bool:
    seq = row.get("seq")
    return isinstance(seq, int) and seq >= since


def columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row["name"] for row in rows(db, f"PRAGMA table_info({quote(table)})")]


# --- putting a game back together ---


@dataclass
class Kept:
    """What salvage carried: games, of games seen, entries, and the copy it started from."""

    games: int = 0
    seen: int = 0
    entries: int = 0
    backup: str = ""
    rows: dict[str, list[Row]] = field(default_factory=dict)


def carry_games(aside: pathlib.Path, store: Store) -> Kept:
    """Copy into ``store`` every game that can be read from the set-aside files, starting
    from the newest sound backup copy (it sits beside the store, ``aside``'s original)."""
    original = aside.with_name(aside.name.split(".damaged-")[0])
    copy = restored(original)
    # The pages first, as they are: SQLite, given a main file that is not its own (empty),
    # takes the log beside it for a stale one and deletes it.
    pages = raw_source(aside, store.columns(GAMES_TABLE), store.columns(ENTRIES_TABLE))
    readable = aside.exists() and not not_a_store(str(aside))
    sources = [sqlite_source("damaged", aside) if readable else Source("damaged"), pages]
    if copy is not None:
        sources.append(copy)
    kept = Kept(backup=copy.name if copy else "")
    ids = sorted({gid for source in sources for gid in source.games})
    kept.seen = len(ids)
    found: dict[str, list[Row]] = {GAMES_TABLE: [], ENTRIES_TABLE: []}
    for gid in ids:
        rebuilt = rebuild(gid, sources)
        if rebuilt is not None:
            game, entries = rebuilt
            found[GAMES_TABLE].append(game)
            found[ENTRIES_TABLE] += entries
            kept.games += 1
            kept.entries += len(entries)
    for source in reversed(sources):  # other tables: the best source's rows go in first
        for table, others in source.others.items():
            if table in store.tables():
                found.setdefault(table, [])[:0] = others
    store.carry(found)
    return kept


def rebuild(gid: int, sources: list[Source]) -> tuple[Row, list[Row]] | None:
    """A game's row and its entries up to the first one no source can give legally; the
    position and the result made to agree with them. None if no header replays.

    The header (written once) comes from a row as written (its checksum matches) where
    one replays; the rest of the row (the position) from the newest version found."""
    found = newest_first(r for source in sources for r in source.games.get(gid, []))
    for row in sorted(found, key=lambda r: trust(r, GAME_SUMMED)):
        replayer = header_replayer(row.get("header"))
        if replayer is not None:
            break
    else:
        return None
    row = {**found[0], "game": row.get("game"), "header": row["header"]}
    newest = touched(found[0])
    # A source holding only an older version of the game (a store behind its copies, or
    # copies behind the store) may hold entries that an undo and new entries replaced since,
    # at the same numbers, sound and legal: its entries come after those of the sources
    # holding the newest version (or no row of it), so that it only fills what they lack.
    ordered = sorted(sources, key=lambda source: bool(source.games.get(gid)) and all(
        touched(r) < newest for r in source.games[gid]))
    replay = legal_entries(replayer, len(row["header"].split("\n")), (
        [r for source in ordered for r in source.entries.get((gid, seq), [])]
        for seq in itertools.count(1)))
    return fixed_row(row, replayer, replay.states), replay.taken


def touched(row: Row) -> int:
    """A game row's place in the store's sequence of changes (-1: not known)."""
    value = row.get("touched")
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def newest_first(found: Iterable[Row]) -> list[Row]:
    """A game's rows as the sources hold them, newest first by the store's sequence
    (``touched``: every change to a game takes its next number; of one version, the one
    most trusted first: :func:`~companion.store.trust`), else in the sources' order. The
    log keeps every version of a page it was given, and the copies an older one: the first
    found is not the latest, and an older row's position would make the entries logged
    since it a redo stack.

    >>> [r.get("touched") for r in newest_first([{"touched": 3}, {}, {"touched": 9}])]
    [9, 3, None]
    """
    def sequence(row: Row) -> tuple[int, int]:
        return touched(row), -trust(row, GAME_SUMMED)  # of one version, the copy as written first

    return sorted(found, key=sequence, reverse=True)


def header_replayer(header: object) -> Replayer | None:
    """A replayer past a stored header, or None if the header does not replay."""
    if not isinstance(header, str):
        return None
    try:
        return replay_header(header.split("\n"))
    except (RecordError, UnreadableRecord):
        return None


@dataclass
class Replay:
    """The entries that replayed legally, the state before and after each, and why the
    next position did not (its record line and the reason; "" when none was left).
    ``count`` entries replayed; without ``keep`` (:func:`legal_entries`), ``taken`` and
    ``states`` hold only the last of them."""

    taken: list[Row]
    states: list[Any]
    line: int = 0
    reason: str = ""
    count: int = 0


def legal_entries(replayer: Replayer, number: int, candidates: Iterable[list[Row]],
                  keep: bool = True) -> Replay:
    """Feed each position's first candidate whose lines replay legally, those whose
    checksum matches their values first (then those without one), stopping at a position
    with none. ``number`` is the record line the header ended on. Without ``keep``, only
    the last entry and state are kept: memory stays flat however long the game (an export
    needs no more).

    A candidate whose checksum does not match is taken only where no other replays: a
    flipped bit may have left its line legal, but it may be the only copy there is."""
    replay = Replay([], [replayer.state])
    for seq, options in enumerate(candidates, start=1):
        replay.line, replay.reason = number + 1, f"entry {seq} is missing" if not options else ""
        for row in sorted(options, key=lambda r: trust(r, ENTRY_SUMMED)):
            text, before, count = row.get("lines"), replayer.state, len(replayer.actions)
            if not isinstance(text, str) or row.get("rolled", 0) not in (0, 1):
                replay.reason = f"entry {seq} cannot be read: its lines are not text"
                continue
            try:
                for offset, line in enumerate(text.split("\n"), start=1):
                    replayer.feed(number + offset, line)
            except RecordError as err:
                replayer.state = before
                del replayer.actions[count:]
                replay.line, replay.reason = err.line, f"entry {seq}: {err.reason}"
                continue
            number += text.count("\n") + 1
            replay.count += 1
            if not keep:
                replay.taken.clear()
                replay.states.clear()
            replay.taken.append(row)
            replay.states.append(replayer.state)
            break
        else:
            return replay
    replay.line, replay.reason = number + 1, ""
    return replay


def fixed_row(row: Row, replayer: Replayer, states: list[Any]) -> Row:
    """The game row made to agree with the entries kept: position, status and winners."""
    assert replayer.header is not None
    game = replayer.header.game
    head = row.get("head")
    kept = len(states) - 1
    head = min(head, kept) if isinstance(head, int) and head >= 0 else kept
    outcome = game.outcome(states[head])
    status = "abandoned" if row.get("status") == "abandoned" else \
        "over" if outcome else "playing"
    assert status in STATUSES
    now = time.time()
    created, updated = (row.get(k) if isinstance(row.get(k), float) else now
                        for k in ("created", "updated"))
    return {**row, "game": game.id, "head": head, "status": status, "created": created,
            "updated": updated, "winners": json.dumps(list(outcome.winners if outcome else ()))}
