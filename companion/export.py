"""A stored game as its record, even when part of it no longer replays.

``companion export`` reads the store as it is (the daemon may be running): it changes
nothing, and it never stops at a traceback. A game whose stored lines are damaged is
written up to its last entry that replays legally, and the first bad entry is named by its
record line. The raw form writes every stored line as it is, unchecked, for a person (or a
recovery tool) to read what the replay could not.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from companion.ai import seat_lines
from companion.exc import RecordError, UnreadableRecord
from companion.games.base import Summary
from companion.record import format_record, replay_header, summarise
from companion.salvage import Row, legal_entries
from companion.session import audited_lines
from companion.store import Store

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
    """Game ``gid`` of ``store``, or None when there is no such game."""
    stored = store.stored(gid)  # text that is not UTF-8 comes as bytes: refused below, not here
    if stored is None:
        return None
    row, entries = stored
    every = stored_lines(row, entries) if raw else b""
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
    head = row["head"] if isinstance(row["head"], int) else max(entries, default=0)
    replay = legal_entries(replayer, len(lines),
                           ([entries[seq]] if seq in entries else [] for seq in range(1, head + 1)))
    try:  # the record as the session writes it: with the dice audit as comments
        actions = audited_lines(store, gid, len(replay.taken))
    except (sqlite3.DatabaseError, TypeError, AttributeError):  # a damaged audit: no comments
        actions = [f"{text}{ROLLED}" if entry["rolled"] else text
                   for entry in replay.taken for text in entry["lines"].split("\n")]
    header_value = replayer.header
    record = format_record(header_value, [*seat_lines(lines), *actions])
    summary = summarise(header_value.game, header_value.players, replay.states[-1])
    problem = f"{replay.reason} (exported up to entry {len(replay.taken)}; --raw gives every " \
              f"stored line)" if replay.reason else ""
    return Exported(record, summary, every, replay.line, problem)


def stored_lines(row: Row, entries: dict[int, Row]) -> bytes:
    """The header and every stored entry's lines, as stored (bytes as they are)."""
    values = [row["header"], *(entry["lines"] for _, entry in sorted(entries.items()))]
    return b"".join((v if isinstance(v, bytes) else str(v).encode()) + b"\n" for v in values)
