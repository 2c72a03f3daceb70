"""A stored game as its record, even when part of it no longer replays.

``companion export`` reads the store as it is (the daemon may be running): it changes
nothing, and it never stops at a traceback. A game whose stored lines are damaged is
written up to its last entry that replays legally, and the first bad entry is named by its
record line. The raw form writes every stored line as it is, unchecked, for a person (or a
recovery tool) to read what the replay could not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain

from companion.ai import seat_lines
from companion.exc import RecordError, UnreadableRecord
from companion.games.base import Summary
from companion.record import format_record, replay_header, summarise
from companion.salvage import Row, legal_entries
from companion.session import audited_lines
from companion.store import UNSUMMED, Store, sound_entry

ROLLED = "  # rolled by the companion"


@dataclass(frozen=True)
class Exported:
    """One game, exported: its record and summary up to the last good entry, every stored
    line raw, and the first problem (its record line and reason; "" when none). No record
    and no summary when the header itself cannot be read."""

    record: str
    summary: Summary | None
    raw: bytes
    line: int = 0
    problem: str = ""


def export(store: Store, gid: int, raw: bool = False) -> Exported | None:
    """Game ``gid`` of ``store``, or None when there is no such game.

    Memory stays about the record's text however long the game: the entries are read and
    replayed one at a time, only the last state is kept, and the record is written as its
    lines are read, a part at a time (a 100,000-line game took 130 MB when every entry's
    state was kept, and the phone's History works out each finished game's BG Stats link
    through here).
    """
    row = store.stored(gid)  # text that is not UTF-8 comes as bytes: refused below, not here
    if row is None:
        return None
    every = stored_lines(row, store, gid) if raw else b""
    header = row["header"]
    try:
        if not isinstance(header, str):
            raise UnreadableRecord("its header is not text")
        lines = header.split("\n")
        replayer = replay_header(lines)
    except RecordError as err:
        return Exported("", None, every, err.line, f"game {gid}'s header: {err.reason}")
    except UnreadableRecord as err:
        return Exported("", None, every, 1, f"game {gid}'s header: {err}")
    assert replayer.header is not None
    replayer.keep_actions = False
    head = row["head"] if isinstance(row["head"], int) else None
    unsound: set[int] = set()
    replay = legal_entries(replayer, len(lines), stored_entries(store, gid, head, unsound), keep=False)
    if replay.reason and replay.count + 1 in unsound:
        replay.reason = f"entry {replay.count + 1} cannot be read: {UNSUMMED}"
    header_value = replayer.header
    try:  # the record as the session writes it: with the dice audit as comments
        record = format_record(header_value, chain(seat_lines(lines), audited_lines(store, gid, replay.count)))
    except (sqlite3.DatabaseError, TypeError, AttributeError):  # a damaged audit: no comments
        record = format_record(header_value, chain(seat_lines(lines), marked_lines(store, gid, replay.count)))
    summary = summarise(header_value.game, header_value.players, replay.states[-1])
    problem = f"{replay.reason} (exported up to entry {replay.count}; --raw gives every " \
              f"stored line)" if replay.reason else ""
    return Exported(record, summary, every, replay.line, problem)


def stored_entries(store: Store, gid: int, head: int | None, unsound: set[int]) -> Iterator[list[Row]]:
    """For each position 1..``head``, the entry stored there (none: a missing one, or one
    whose values are not as written, its checksum says so: its position is added to
    ``unsound``); every position up to the last stored when ``head`` is None (a game whose
    position is damaged is exported up to its last entry)."""
    seq = 0
    end = 2**62 if head is None else head
    for row in store.stored_entries(gid):
        at = row["seq"]
        if isinstance(at, float) and at.is_integer():
            at = int(at)  # as a position looked up by number finds it
        if not isinstance(at, int) or at <= seq:
            continue  # a damaged position: what is at the right place is read
        while seq + 1 < min(at, end + 1):
            seq += 1
            yield []
        if at > end:
            return
        seq = at
        if not sound_entry(row):  # an entry not as written ends what is trusted
            unsound.add(at)
            yield []
            continue
        yield [row]
    while seq < end and head is not None:
        seq += 1
        yield []


def marked_lines(store: Store, gid: int, upto: int) -> Iterator[str]:
    """Entries ``1..upto``'s lines, device rolls marked, for a game whose dice audit cannot
    be read."""
    for entry in store.stored_entries(gid):
        if not isinstance(entry["seq"], int) or entry["seq"] > upto:
            break
        for text in entry["lines"].split("\n"):
            yield f"{text}{ROLLED}" if entry["rolled"] else text


def stored_lines(row: Row, store: Store, gid: int) -> bytes:
    """The header and every stored entry's lines, as stored (bytes as they are)."""
    values = [row["header"], *(entry["lines"] for entry in store.stored_entries(gid))]
    return b"".join((v if isinstance(v, bytes) else str(v).encode()) + b"\n" for v in values)
