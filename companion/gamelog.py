"""A game's whole record as the Log shows it: newest first, each entry with its result in
words, and every device roll that was undone, where the dice audit keeps it.

The Log only reads. Memory stays flat however long the game: rows are worked out a page of
entries at a time from the store, and the states a page needs are rebuilt from a bounded
set of states kept on the way (or from the store's checkpoints), never from the whole game
held in memory.

>>> from companion.store import Store
>>> from companion.session import Session
>>> from companion.record import replay_text
>>> store = Store(":memory:")
>>> session = Session.new(store, replay_text("game microbot-racers\\nplayers Ann Bob\\n").header)
>>> session.play([Line("table", "roll", ("3", "2"))], rolled=True)
>>> session.play([Line("Bob", "pick", ("move-2",))])
>>> log = GameLog(store, session.gid)
>>> [(row.place, row.lines, row.words) for place in (2, 1) for row in log.rows_at(place)]
[(2, ('Bob pick move-2',), 'Bob picks move-2'), (1, ('table roll 3 2',), 'Bob is P1: Ann 3, Bob 2')]
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from companion.checkpoint import EVERY, decode, engine_tag
from companion.exc import Incompatible
from companion.games import results, said_after
from companion.games.base import Game, IllegalLine, Line
from companion.record import Header, replay_text
from companion.store import Entry, MadeRoll, Store, roll_in_force

log = logging.getLogger(__name__)

PAGE = 16  # entries whose rows are worked out together
PAGES = 4  # pages of rows kept (the one in view and its neighbours)
MARKS = 32  # states kept far apart over the whole game (their spacing doubles as it grows)
NEAR = 2 * EVERY // PAGE  # states kept at the page starts of the last stretch replayed

Kind = Literal["entry", "rolled", "again", "undone"]


@dataclass(frozen=True)
class Row:
    """One line of the Log: an entry (``place`` is its number; ``rolled``: the device rolled
    it, ``again``: rolled anew after an undo) and its result in words, or a device roll
    undone before entry ``place`` was logged (no result: it never counted)."""

    place: int
    kind: Kind
    lines: tuple[str, ...]
    words: str = ""


class States:
    """The state after any entry of a stored game, rebuilt from the nearest state known:
    a few kept far apart over the whole game, the page starts of the last stretch walked,
    or the store's checkpoint. Bounded however long the game."""

    def __init__(self, store: Store, gid: int, header: Header[Any, Any],
                 given: Mapping[int, Any] | None = None) -> None:
        """``given``: states already known by entry (a session's, for the game in progress)."""
        self.store = store
        self.gid = gid
        self.game: Game[Any, Any] = header.game
        self.given = dict(given or {})
        self.marks: dict[int, Any] = {0: header.start()}
        self.spacing = PAGE
        self.near: dict[int, Any] = {}
        self.read = 0  # entries read from the store so far (the tests count them)

    def at(self, seq: int) -> Any:
        """The state after entry ``seq``."""
        known = {**self.marks, **self.given, **self.near}
        base = max(k for k in known if k <= seq)
        state = known[base]
        if seq - base > EVERY:
            stored = self.checkpoint(seq)
            if stored is not None and stored[0] > base:
                base, state = stored
        near: dict[int, Any] = {}
        done = base
        while done < seq:
            entries = self.store.entries(self.gid, min(seq, done + EVERY), done + 1, verified=False)
            if not entries:
                break  # entries missing from a damaged store: as far as they go
            for entry in entries:
                state = apply(self.game, state, entry.lines)[0]
                done = entry.seq
                if done % PAGE == 0 and seq - done < NEAR * PAGE:
                    near[done] = state
                if done % self.spacing == 0:
                    self.keep(done, state)
            self.read += len(entries)
        if near:
            self.near = near
        return state

    def keep(self, seq: int, state: Any) -> None:
        self.marks[seq] = state
        while len(self.marks) > MARKS:
            self.spacing *= 2
            self.marks = {k: v for k, v in self.marks.items() if k % self.spacing == 0}

    def checkpoint(self, upto: int) -> tuple[int, Any] | None:
        """The store's latest checkpoint at or before entry ``upto`` that matches the record
        and this code, read back; None when there is none (a cache: never required)."""
        found, _ = self.store.stored_state(self.gid, upto, engine_tag(self.game))
        if found is None:
            return None
        try:
            return found.seq, decode(self.game, found.state, like=self.marks[0])
        except Incompatible:
            return None


def apply(game: Game[Any, Any], state: Any, lines: Sequence[str]) -> tuple[Any, str]:
    """The state ``lines`` lead to and what they did in words; a line the rules refuse (a
    store damaged since the game was played) says so and changes nothing."""
    after = state
    try:
        parsed = [Line.parse(text) for text in lines]
        for line in parsed:
            after = game.apply(after, line)
    except IllegalLine as err:
        return state, f"Not legal here: {err}"
    said = ""
    for event in results(game, state, after, parsed):
        said = said_after(said, event)
    return after, said


class GameLog:
    """Rows of a stored game's Log, by place: entry ``head`` is the newest, and rolls
    undone after it sit at ``head + 1``."""

    def __init__(self, store: Store, gid: int, head: int | None = None,
                 known: Mapping[int, Any] | None = None) -> None:
        """The Log of game ``gid`` up to entry ``head`` (default: the stored head);
        ``known``: states already known by entry, to start from."""
        row = store.game(gid)
        header = replay_text("\n".join(row.header) + "\n").header
        self.store = store
        self.gid = gid
        self.head = row.head if head is None else head
        self.states = States(store, gid, header, known)
        self._pages: OrderedDict[int, dict[int, tuple[Row, ...]]] = OrderedDict()

    @property
    def newest(self) -> int:
        """The newest place with rows (0: an empty Log)."""
        return self.head + 1 if self.rows_at(self.head + 1) else self.head

    def rows_at(self, place: int) -> tuple[Row, ...]:
        """The rows at ``place``, newest first: the entry, then the rolls undone before it
        (the newest first); none outside 1..head+1."""
        if not 1 <= place <= self.head + 1:
            return ()
        page = (place - 1) // PAGE
        rows = self._pages.get(page)
        if rows is None:
            rows = self._pages[page] = self._page(page)
            while len(self._pages) > PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows.get(place, ())

    def _page(self, page: int) -> dict[int, tuple[Row, ...]]:
        first, last = page * PAGE + 1, min(page * PAGE + PAGE, self.head + 1)
        entries = (self.store.entries(self.gid, min(last, self.head), first, verified=False)
                   if first <= self.head else [])
        # Rolls made beyond the end (undone since) are shown where the export writes them.
        made = self.store.rolls(self.gid, first, last if last <= self.head else 2**62)
        state = self.states.at(first - 1) if entries else None
        out: dict[int, tuple[Row, ...]] = {}
        for entry in entries:
            state, words = apply(self.states.game, state, entry.lines)
            out[entry.seq] = (entry_row(entry, made, words),
                              *undone_rows(entry.seq, [r for r in made if r.seq == entry.seq], entry))
        if last > self.head:
            out[self.head + 1] = undone_rows(self.head + 1, [r for r in made if r.seq > self.head], None)
        return out


def entry_row(entry: Entry, made: Sequence[MadeRoll], words: str) -> Row:
    """An entry's row: whether the device rolled it (again, after an undo) and what it did."""
    kind: Kind = "entry"
    if entry.rolled:
        kept = roll_in_force([r for r in made if r.seq == entry.seq], entry)
        kind = "again" if kept is not None and kept.again else "rolled"
    return Row(entry.seq, kind, entry.lines, words)


def undone_rows(place: int, made: Sequence[MadeRoll], entry: Entry | None) -> tuple[Row, ...]:
    """The rolls made at ``place`` that the entry there is not, newest first."""
    kept = roll_in_force(made, entry) if entry is not None and entry.rolled else None
    return tuple(Row(place, "undone", roll.lines) for roll in reversed(made) if roll != kept)
