"""The record as open pages receive it: what changed, never the whole game again.

A page keeps the record as blocks, one per entry (its lines, and any device roll undone at
that place as a comment, as the export writes them), plus the rolls undone past the last
entry. It gets them in :class:`Change` values, each meaning "from entry ``first`` on, the
record is exactly these blocks": a new entry is one block, an undo is none (and maybe the
undone roll), a redo is one again, and a new game or a page opened mid-game gets the last
:data:`PAGE` entries with ``reset``. Older entries are read on demand, a page at a time.

The loop's thread works a change out once, after the frame went to the panel, reading only
the entries that changed: the cost of an entry does not grow with the game.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from companion.session import Session, audited_blocks
from companion.store import Store

PAGE = 50  # entries a page gets when it opens, and in each older part it asks for


@dataclass(frozen=True)
class Change:
    """From entry ``first`` on, a game's record is ``blocks`` (entries ``first..head``) and
    then ``after``; with ``reset``, forget anything known of the record before."""

    game: int | None
    first: int
    head: int
    blocks: list[list[str]]
    after: list[str]
    reset: bool

    def json(self) -> bytes:
        return json.dumps(asdict(self), separators=(",", ":")).encode()


NO_GAME = Change(None, 1, 0, [], [], True)


def part(store: Store, gid: int, head: int, first: int, last: int | None = None, reset: bool = False) -> Change:
    """Entries ``first..last`` (default: to ``head``, with the rolls undone past it) as a
    change: reads those entries and the rolls made at them, found by their index."""
    end = head if last is None else min(last, head)
    made = store.rolls(gid, first, 2**62 if last is None else last)  # by the index: these entries only
    blocks, after = audited_blocks(store.entries(gid, end, first), made, head)
    return Change(gid, first, head, blocks, after if last is None else [], reset)


def latest(store: Store, gid: int, head: int) -> Change:
    """What a page that knows nothing of the game gets: its last :data:`PAGE` entries."""
    return part(store, gid, head, max(1, head + 1 - PAGE), reset=True)


class RecordFeed:
    """On the loop's thread: the change to the record since the last call, worked out from
    how far the head can have moved (each play, undo or redo moves it by one entry)."""

    def __init__(self) -> None:
        self._seen: tuple[Session[Any, Any] | None, int, int] = (None, 0, 0)  # the session, its changes, its head

    def change(self, session: Session[Any, Any] | None) -> Change | None:
        """What open pages must apply to their record, or None when it has not changed."""
        last, changes, head = self._seen
        if not self.skip(session):
            return None
        if session is None:
            return NO_GAME
        if session is last:
            steps, moved = session.changes - changes, abs(session.head - head)
            # With ``steps`` moves of one entry from ``head`` to ``session.head``, the head
            # went no lower than ``lowest``: the entries after it are all that can differ.
            lowest = max(0, (head + session.head - steps) // 2)
            if steps >= moved and (steps - moved) % 2 == 0 and session.head - lowest < PAGE:
                return part(session.store, session.gid, session.head, lowest + 1)
        return latest(session.store, session.gid, session.head)

    def skip(self, session: Session[Any, Any] | None) -> bool:
        """Take the record as it is now as seen, without working out what changed (no page
        is open to send it to: a page that opens later gets the latest entries anyway).
        Whether it changed."""
        seen = (session, session.changes, session.head) if session is not None else (None, 0, 0)
        changed, self._seen = seen != self._seen, seen
        return changed
