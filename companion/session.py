"""A game in progress: its record in the store, its state, undo and redo.

The record is the truth: the state is what the stored entries replay to. Every entry is
committed to the store before :meth:`Session.play` returns, so the caller may show its
result at once (durable before visible).

Memory stays flat however long the game: the session keeps the current state, a bounded
window of recent states for quick undo, and a bounded set of checkpoints further back;
older states are rebuilt from the store on demand.

Each change is worked out once: a line checked before it is logged (:meth:`Session.after`)
is not applied again when it is, and what the screens ask of the position (the prompt,
the summary, the redo entry, an undone roll: a :class:`Position`) is computed at its first
use after a change and kept until the next one, so that drawing frames and moving the
cursor neither recompute it nor query the store.

A session is generic in its game's state and summary, as the game is: ``Session.new`` of a
``Header(LeafClimbers(), ...)`` is a ``Session[State, LeafSummary]``, whose ``state``,
``summary()`` and ``after()`` are Leaf-Climbers' own types, down to the screens that read
them. A game opened from the store by its number is known only at run time.

>>> from companion.store import Store
>>> from companion.games import game_by_id
>>> from companion.record import Header
>>> store = Store(":memory:")
>>> s = Session.new(store, Header(game_by_id("microbot-racers"), ("Ann", "Bob")))
>>> s.play([Line("table", "roll", ("3", "2"))])
>>> s.summary()["p1"]
'Bob'
>>> s.undo(); s.summary()["p1"] is None
True
>>> s.redo(); s.summary()["p1"]
'Bob'
"""

from __future__ import annotations

import contextlib
import logging
import random
import sqlite3
from collections import deque
from collections.abc import Iterator, Sequence
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING, Generic

from companion.ai import seat_lines
from companion.checkpoint import EVERY, decode, encode, engine_tag
from companion.dice import chained, rolled
from companion.exc import Incompatible, NothingToRedo, NothingToUndo
from companion.games import results
from companion.games.base import IllegalLine, Line, Outcome, Prompt, Roll, S, SummaryT
from companion.record import Header, format_record, replay_header, summarise
from companion.store import Entry, MadeRoll, Source, Store, roll_in_force

if TYPE_CHECKING:
    from companion.gamelog import GameLog

log = logging.getLogger(__name__)

RECENT = 32  # states kept for instant undo
CHECKPOINTS = 16  # at most this many older states, spread evenly over the game
AHEAD = 8  # lines checked from one position whose states are kept until they are logged


class Session(Generic[S, SummaryT]):
    """One stored game, loaded: play, undo, redo, and what to ask next."""

    def __init__(self, store: Store, gid: int) -> None:
        row = store.game(gid)
        self.store = store
        self.gid = gid
        header: Header[S, SummaryT] | None = replay_header(row.header).header
        assert header is not None  # replay_header finishes the header or raises
        self.header = header
        self._stored_header = row.header  # a game's header is written once, when it is created
        self.game = header.game
        self.head = 0
        self.state = header.start()
        self._start = self.state
        self._recent: deque[tuple[int, S]] = deque(maxlen=RECENT)
        self._checkpoints: dict[int, S] = {0: self.state}
        self._spacing = 64
        self._stale = False  # the store holds checkpoints that no longer match: renew
        #: The state before the latest entry logged (not redone) and its lines, so that a
        #: screen can say what it did; ``None`` after undo or redo.
        self.played: tuple[S, tuple[Line, ...]] | None = None
        #: Changes so far (play, undo, redo): what the screens ask of a position is worked
        #: out once per change (see :meth:`here`).
        self.changes = 0
        self._here = Position(self)
        #: The states that lines checked from the current state lead to (see :meth:`after`).
        self._ahead: tuple[S, dict[tuple[Line, ...], S]] = (self.state, {})
        #: The furthest entry the dice audit holds a device roll for (None: not read yet).
        #: Past it no undone roll can wait, so a dice prompt in play going forward asks
        #: the store nothing (see :meth:`_undone_roll`).
        self._rolls_reach: int | None = None
        self._goto(row.head)

    @classmethod
    def new(cls, store: Store, header: Header[S, SummaryT]) -> Session[S, SummaryT]:
        """Store a new game and open it."""
        return cls(store, store.create(header.game.id, header.lines()))

    # --- reading ---

    @property
    def players(self) -> tuple[str, ...]:
        return self.header.players

    def here(self) -> Position[S, SummaryT]:
        """What the screens ask of the current position, worked out once: the answers depend
        only on the state and the stored entries around the head, so they are kept until
        the next change (or a new state, however it came), then all forgotten. The head
        alone would not do: after an entry and its undo, the head and the state are those of
        before, but the store now holds a redo entry."""
        if self._here.changes != self.changes or self._here.state is not self.state:
            self._here = Position(self)
        return self._here

    def prompt(self) -> Prompt | None:
        """The pending decision, ``None`` when the game is over."""
        return self.here().prompt

    def outcome(self) -> Outcome | None:
        """How the game ended, ``None`` while it goes on."""
        return self.here().outcome

    def over(self) -> bool:
        return self.outcome() is not None

    def results(self) -> tuple[str, ...]:
        """What the latest entry logged did, in words (the game's events); () after undo."""
        if self.played is None:
            return ()
        before, lines = self.played
        return results(self.game, before, self.state, lines)

    def summary(self) -> SummaryT:
        """The records.md summary of where the game stands, the game's own type: the same
        object until the game changes (every frame draws from it), so read it and never
        change it."""
        return self.here().summary

    def record(self) -> str:
        """The game's record up to now, device rolls marked by a comment, and every undone
        device roll written as a comment where it was made (the dice audit), so that the
        record replays the same and the table sees every roll.

        >>> from companion.store import Store
        >>> from companion.games import game_by_id
        >>> s = Session.new(Store(":memory:"), Header(game_by_id("microbot-racers"), ("Ann", "Bob")))
        >>> s.play([Line("table", "roll", ("6", "2"))], rolled=True)
        >>> s.undo()
        >>> s.play([Line("table", "roll", ("1", "2"))])
        >>> print(s.record(), end="")
        game microbot-racers
        players Ann Bob
        # undone: table roll 6 2
        table roll 1 2
        """
        return format_record(self.header, chain(seat_lines(self._stored_header),
                                                audited_lines(self.store, self.gid, self.head)))


    def log(self) -> GameLog:
        """The game's whole record up to now, for the Log (read a page at a time)."""
        from companion.gamelog import GameLog

        # The states this session holds already (recent ones, checkpoints): the Log's
        # newest pages need no replay.
        known = {**self._checkpoints, **dict(self._recent), self.head: self.state}
        return GameLog(self.store, self.gid, self.head, known)

    def entry(self, seq: int) -> Entry | None:
        """The stored entry at position ``seq`` (past the head: the redo stack), or None."""
        return self.store.entry(self.gid, seq)

    def stored_header(self) -> tuple[str, ...]:
        """The header lines as stored, the companion's seat lines included."""
        return self._stored_header

    def redo_entry(self) -> Entry | None:
        """The entry that redo would bring back."""
        return self.here().redo

    def roll_again(self, ask: Roll) -> tuple[str, ...] | None:
        """The faces (one string per line) of an undone device roll for this same prompt.

        Undo is never a free re-roll, at any depth: when the prompt that a device roll
        answered comes back at the same place in the record, its faces are the first choice,
        even once the redo stack is gone. Rolling anew is a separate, audited choice.
        """
        lines = self.undone_roll(ask)
        if lines is None:
            return None
        return tuple(" ".join(Line.parse(text).args[len(ask.prefix):]) for text in lines)

    def undone_roll(self, ask: Roll) -> tuple[str, ...] | None:
        """The lines of the latest undone device roll made for ``ask`` at this place in the
        record that the rules still accept here in full; ``None`` if there is none."""
        known = self.here().undone
        if ask not in known:
            known[ask] = self._undone_roll(ask)
        return known[ask]

    def _undone_roll(self, ask: Roll) -> tuple[str, ...] | None:
        seq = self.head + 1
        redo = self.redo_entry()
        if self._rolls_reach is None:
            self._rolls_reach = self.store.rolls_reach(self.gid)
        found = [roll.lines for roll in self.store.rolls(self.gid, seq)] if seq <= self._rolls_reach else []
        if redo is not None and redo.rolled:  # a game stored before the audit was kept
            found.append(redo.lines)
        for lines in reversed(found):
            if self._answers(ask, lines):
                return lines
        return None

    def _answers(self, ask: Roll, lines: tuple[str, ...]) -> bool:
        """Whether ``lines`` are a whole device roll for ``ask`` from the current state."""
        try:
            parsed = [Line.parse(text) for text in lines]
            first = parsed[0]
            if ((first.actor, first.verb) != (ask.actor, ask.verb)
                    or first.args[:len(ask.prefix)] != ask.prefix
                    or len(first.args) != len(ask.prefix) + len(ask.sides)):
                return False
            state = self.after(parsed)
        except IllegalLine:
            return False
        return chained(self.game, state, ask.actor) is None  # not a roll cut short

    def after(self, lines: Sequence[Line]) -> S:
        """The state ``lines`` lead to from the current one; IllegalLine if the rules refuse
        them. Nothing is logged, but the result is kept until the game changes, so that
        logging the same lines next (the screen checks a line before it logs it) applies
        each line once.

        >>> from companion.store import Store
        >>> from companion.games import game_by_id
        >>> s = Session.new(Store(":memory:"), Header(game_by_id("microbot-racers"), ("Ann", "Bob")))
        >>> ahead = s.after([Line("table", "roll", ("3", "2"))])
        >>> s.play([Line("table", "roll", ("3", "2"))]); s.state is ahead
        True
        """
        key = tuple(lines)
        known = self._checked()
        if key not in known:
            # From the longest part already checked: dice filled in line by line (a die
            # reader's faces) apply each line once too.
            start = max((n for n in range(1, len(key)) if key[:n] in known), default=0)
            state = known[key[:start]] if start else self.state
            for line in key[start:]:
                state = self.game.apply(state, line)
            if len(known) >= AHEAD:  # many lines tried at one prompt: keep the latest only
                known.clear()
            known[key] = state
        return known[key]

    def roll(self, ask: Roll, rng: random.Random) -> list[Line]:
        """Roll the dice for ``ask`` (and the rolls chained after it) without logging them;
        the state they lead to is kept for :meth:`play`, as :meth:`after` keeps it."""
        lines, state = rolled(self.game, self.state, ask, rng)
        self._checked()[tuple(lines)] = state
        return lines

    def _checked(self) -> dict[tuple[Line, ...], S]:
        """The states of lines checked from the current state (forgotten once it changes)."""
        start, known = self._ahead
        if start is not self.state:
            known = {}
            self._ahead = (self.state, known)
        return known

    # --- changing ---

    def play(self, lines: Sequence[Line], rolled: bool = False, again: bool = False,
             source: Source | None = None) -> None:
        """Apply one confirmed entry and commit it; IllegalLine changes nothing.

        ``rolled``: the device has just rolled these lines; they are also kept in the dice
        audit (``again``: rolled anew although an undone roll was offered). ``source``: how
        the lines came in (kept with the entry for the dice statistics). An entry equal to
        the next one on the redo stack is a redo: the stack stays.
        """
        made = MadeRoll(self.head + 1, tuple(str(x) for x in lines), again) if rolled else None
        self._enter(lines, rolled, made, source)
        if made is not None and self._rolls_reach is not None:  # kept: the audit reaches it
            self._rolls_reach = max(self._rolls_reach, made.seq)

    def use_again(self, ask: Roll) -> None:
        """Log the undone device roll that :meth:`roll_again` offers (not a new roll)."""
        lines = self.undone_roll(ask)
        if lines is None:
            raise NothingToRedo("no undone roll to use again here")
        self._enter([Line.parse(text) for text in lines], True, None, "keys")

    def _enter(self, lines: Sequence[Line], rolled: bool, made: MadeRoll | None,
               source: Source | None) -> None:
        if not lines:
            raise IllegalLine("nothing to log")
        state = self.after(lines)
        texts = [str(x) for x in lines]
        over, winners = self._ending(state)
        played = (self.state, tuple(lines))
        redo = self.redo_entry()
        if redo is not None and redo.lines == tuple(texts):
            self.store.move_head(self.gid, redo.seq, over, winners, made)
            self._advance(redo.seq, state)
            self.played = played
            return
        head = self.store.push(self.gid, texts, rolled, over, winners, made,
                               self._checkpoint_for(self.head + 1, state), source)
        # Checkpoints past an undo point belong to the dropped branch.
        self._checkpoints = {k: v for k, v in self._checkpoints.items() if k < head}
        self._advance(head, state)
        self.here().redo = None  # known without asking: the push dropped the redo stack
        self.played = played

    def _ending(self, state: S) -> tuple[bool, tuple[str, ...]]:
        """Whether the game is over at ``state`` and who won, as the store keeps them."""
        outcome = self.game.outcome(state)
        return outcome is not None, outcome.winners if outcome else ()

    def undo(self) -> None:
        """Step back one entry (it stays on the redo stack)."""
        if self.head == 0:
            raise NothingToUndo("nothing to undo: this is the start of the game")
        target = self.head - 1
        state = self._state_at(target)
        self.store.move_head(self.gid, target, *self._ending(state))
        self.head, self.state = target, state
        self.changes += 1
        self.played = None

    def redo(self) -> None:
        """Bring back the entry that was last undone."""
        entry = self.redo_entry()
        if entry is None:
            raise NothingToRedo("nothing to redo")
        state = self.state
        for text in entry.lines:
            state = self.game.apply(state, Line.parse(text))
        self.store.move_head(self.gid, entry.seq, *self._ending(state))
        self._advance(entry.seq, state)
        self.played = None

    def lines(self) -> tuple[Line, ...]:
        """The game's action lines up to the current position, as the record has them."""
        return tuple(Line.parse(text) for entry in self.store.entries(self.gid, self.head)
                     for text in entry.lines)

    def keep_reveal(self, shown: int) -> None:
        """The latest entry, a roll shown one line at a time: the table has seen ``shown``
        of its lines. A convenience: a store that cannot keep it costs only that."""
        with contextlib.suppress(sqlite3.Error):
            self.store.keep_reveal(self.gid, self.head, shown)

    def reveal_left(self) -> tuple[S, tuple[Line, ...], int] | None:
        """The latest entry, if it is a roll that was being shown one line at a time and
        the table has not seen all of: the state before it, its lines, how many were seen."""
        found = self.store.reveal(self.gid)
        entry = self.entry(self.head) if found is not None and found[0] == self.head else None
        if found is None or entry is None or not entry.rolled or found[1] >= len(entry.lines):
            return None
        return self._state_at(self.head - 1), tuple(Line.parse(text) for text in entry.lines), found[1]

    def abandon(self) -> None:
        """Set the game aside for good (kept in the store, not offered for resume)."""
        self.store.set_status(self.gid, "abandoned")

    # --- states by position, with bounded memory ---

    def _advance(self, head: int, state: S) -> None:
        self._recent.append((self.head, self.state))
        self.head, self.state = head, state
        self.changes += 1
        if head % self._spacing == 0:
            self._checkpoints[head] = state
            if len(self._checkpoints) > CHECKPOINTS:
                self._spacing *= 2
                self._checkpoints = {k: v for k, v in self._checkpoints.items()
                                     if k % self._spacing == 0}

    def _state_at(self, head: int) -> S:
        while self._recent and self._recent[-1][0] > head:
            self._recent.pop()
        if self._recent and self._recent[-1][0] == head:
            return self._recent.pop()[1]
        base = max(k for k in self._checkpoints if k <= head)
        state = self._checkpoints[base]
        if head - base > EVERY:  # further back than memory keeps: the store's checkpoint
            stored = self._stored(head)
            if stored is not None and stored[0] > base:
                base, state = stored
        # Keep the last states rebuilt on the way: the next undo presses need them, and
        # rebuilding from the checkpoint on every press is quadratic in a long walk back.
        while self._recent and self._recent[-1][0] >= base:
            self._recent.pop()
        for entry in self.store.entries(self.gid, head, base + 1):
            self._recent.append((entry.seq - 1, state))
            for text in entry.lines:
                state = self.game.apply(state, Line.parse(text))
        return state

    def _goto(self, head: int) -> None:
        """Reach ``head`` on opening: from the store's latest checkpoint that matches the
        record, replaying only the entries after it. After a long replay, or when stale
        checkpoints were found, the state reached is kept as the game's one checkpoint."""
        if head == 0:  # a game not begun (a new one): no entry to replay, no checkpoint to read
            return
        stored = self._stored(head)
        if stored is not None:
            self.head, self.state = stored
            self._checkpoints[self.head] = self.state
        start = self.head
        for entry in self.store.entries(self.gid, head, start + 1):
            state = self.state
            for text in entry.lines:
                state = self.game.apply(state, Line.parse(text))
            self._advance(entry.seq, state)
        if self._stale or self.head - start > EVERY:
            self._renew()

    def _stored(self, upto: int) -> tuple[int, S] | None:
        """The latest stored checkpoint at or before entry ``upto`` that matches the record
        and this code, read back; ``None`` when there is none. Notes stale ones found."""
        found, stale = self.store.stored_state(self.gid, upto, engine_tag(self.game))
        self._stale = self._stale or stale
        if found is None:
            return None
        try:
            return found.seq, decode(self.game, found.state, like=self._start)
        except Exception as err:  # a cache: whatever reading it back raises, the record is
            # replayed instead (decode names what it expects as Incompatible; an engine's
            # own value class may refuse a value in any way of its own)
            reason = err if isinstance(err, Incompatible) else f"{type(err).__name__}: {err}"
            log.warning("game %s: checkpoint at entry %s dropped: %s", self.gid, found.seq, reason)
            self._stale = True
            return None

    def _renew(self) -> None:
        """Keep the current state as the game's only checkpoint. A failure costs only speed:
        the next opening replays again."""
        kept = self._checkpoint_for(self.head, self.state, always=True) if self.head else None
        if kept is None:
            return
        try:
            self.store.renew_stored_state(self.gid, self.head, *kept)
            self._stale = False
        except sqlite3.Error as err:
            log.info("game %s: checkpoint not kept: %s", self.gid, err)

    def _checkpoint_for(self, seq: int, state: S, always: bool = False) -> tuple[str, str] | None:
        """What the store keeps as the checkpoint after entry ``seq``: every :data:`EVERY`
        entries (or ``always``), the state as (engine, text); ``None`` otherwise."""
        if seq % EVERY and not always:
            return None
        try:
            return engine_tag(self.game), encode(state)
        except (TypeError, ValueError) as err:  # an engine with a kind of value not kept
            log.warning("game %s: no checkpoint: %s", self.gid, err)
            return None


class Position(Generic[S, SummaryT]):
    """What the screens ask of one position of a session, each worked out at its first use
    (:meth:`Session.here`): a frame asks for the prompt, the summary and an undone roll
    again and again, and moving a cursor asks for them too."""

    def __init__(self, session: Session[S, SummaryT]) -> None:
        self.session = session
        self.changes = session.changes
        self.state = session.state
        #: An undone device roll offered again, by the roll prompt it answers (or None).
        self.undone: dict[Roll, tuple[str, ...] | None] = {}

    @cached_property
    def prompt(self) -> Prompt | None:
        return self.session.game.prompt(self.state)

    @cached_property
    def outcome(self) -> Outcome | None:
        return self.session.game.outcome(self.state)

    @cached_property
    def summary(self) -> SummaryT:
        return summarise(self.session.game, self.session.players, self.state, self.prompt)

    @cached_property
    def redo(self) -> Entry | None:
        return self.session.store.entry(self.session.gid, self.session.head + 1)


#: Entries read from the store at a time for :func:`audited_lines`.
AUDITED_PART = 256


def audited_lines(store: Store, gid: int, head: int) -> Iterator[str]:
    """A stored game's action lines up to ``head`` with the dice audit as comments: device
    rolls marked, and every undone device roll where it was made (the phone view shows the
    same lines as the export, without replaying the game). Read a part at a time, so memory
    stays flat however long the game."""
    first = 1
    while True:
        last = min(head, first + AUDITED_PART - 1)
        # The last part takes the rolls made beyond it too: those undone past the head.
        made = store.rolls(gid, first, last if last < head else 2**62)
        blocks, after = audited_blocks(store.entries(gid, last, first) if first <= head else [], made, head)
        for block in blocks:
            yield from block
        if last >= head:
            yield from after
            return
        first = last + 1


def audited_blocks(entries: Sequence[Entry], made: Sequence[MadeRoll],
                   head: int) -> tuple[list[list[str]], list[str]]:
    """The lines of each of ``entries`` with the dice audit as comments, one block an entry
    (a device roll marked; the rolls undone at that place first, as comments), and the
    rolls undone past ``head``, which come after the last entry. ``made``: the rolls made at
    these entries and any later one, in the order made (a block needs no other)."""
    at: dict[int, list[MadeRoll]] = {}
    for roll in made:
        at.setdefault(roll.seq, []).append(roll)
    forced = {entry.seq: roll_in_force(at.get(entry.seq, ()), entry) for entry in entries if entry.rolled}
    undone: dict[int, list[str]] = {}
    for roll in made:
        if roll != forced.get(roll.seq):
            place = min(roll.seq, head + 1)  # beyond the end: at the end
            undone.setdefault(place, []).extend(f"# undone: {text}" for text in roll.lines)
    blocks: list[list[str]] = []
    for entry in entries:
        kept = forced.get(entry.seq)
        how = "" if not entry.rolled else "rolled again" if kept and kept.again else "rolled"
        blocks.append(undone.pop(entry.seq, [])
                      + [f"{line}  # {how} by the companion" if how else line for line in entry.lines])
    return blocks, [line for place in sorted(undone) for line in undone[place]]
