"""A game in progress: its record in the store, its state, undo and redo.

The record is the truth: the state is what the stored entries replay to. Every entry is
committed to the store before :meth:`Session.play` returns, so the caller may show its
result at once (durable before visible).

Memory stays flat however long the game: the session keeps the current state, a bounded
window of recent states for quick undo, and a bounded set of checkpoints further back;
older states are rebuilt from the store on demand.

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

from collections import deque
from collections.abc import Sequence
from typing import Any

from companion.games.base import Game, IllegalLine, Line, Prompt, Roll
from companion.record import Header, format_record, replay_text, summarise
from companion.store import Entry, Store

RECENT = 32  # states kept for instant undo
CHECKPOINTS = 16  # at most this many older states, spread evenly over the game


class NothingToUndo(IllegalLine):
    """Undo at the start of a game."""


class NothingToRedo(IllegalLine):
    """Redo with an empty redo stack."""


class Session:
    """One stored game, loaded: play, undo, redo, and what to ask next."""

    def __init__(self, store: Store, gid: int) -> None:
        row = store.game(gid)
        self.store = store
        self.gid = gid
        self.header = replay_text("\n".join(row.header) + "\n").header
        self.game: Game[Any] = self.header.game
        self.head = 0
        self.state: Any = self.header.start()
        self._recent: deque[tuple[int, Any]] = deque(maxlen=RECENT)
        self._checkpoints: dict[int, Any] = {0: self.state}
        self._spacing = 64
        self._goto(row.head)

    @classmethod
    def new(cls, store: Store, header: Header) -> Session:
        """Store a new game and open it."""
        return cls(store, store.create(header.game.id, header.lines()))

    # --- reading ---

    @property
    def players(self) -> tuple[str, ...]:
        return self.header.players

    def prompt(self) -> Prompt | None:
        """The pending decision, ``None`` when the game is over."""
        return self.game.prompt(self.state)

    def over(self) -> bool:
        return self.game.over(self.state)

    def summary(self) -> dict[str, Any]:
        """The records.md summary of where the game stands."""
        return summarise(self.game, self.players, self.state)

    def record(self) -> str:
        """The game's record up to now, device rolls marked by a comment."""
        actions = [
            f"{line}  # rolled by the companion" if entry.rolled else line
            for entry in self.store.entries(self.gid, self.head)
            for line in entry.lines
        ]
        return format_record(self.header, actions)

    def redo_entry(self) -> Entry | None:
        """The entry that redo would bring back."""
        return self.store.entry(self.gid, self.head + 1)

    def roll_again(self, ask: Roll) -> tuple[str, ...] | None:
        """The faces of an undone device roll for this same prompt, offered first.

        Undo is never a free re-roll: when the prompt that a device roll answered comes back,
        its faces are the first choice (as redo). Rolling anew is a separate choice.
        """
        entry = self.redo_entry()
        if entry is None or not entry.rolled:
            return None
        first = Line.parse(entry.lines[0])
        if (first.actor, first.verb) != (ask.actor, ask.verb):
            return None
        return tuple(" ".join(Line.parse(text).args) for text in entry.lines)

    # --- changing ---

    def play(self, lines: Sequence[Line], rolled: bool = False) -> None:
        """Apply one confirmed entry and commit it; IllegalLine changes nothing."""
        if not lines:
            raise IllegalLine("nothing to log")
        state = self.state
        for line in lines:
            state = self.game.apply(state, line)
        head = self.store.push(self.gid, [str(x) for x in lines], rolled,
                               self.game.over(state), self.game.winners(state))
        # Checkpoints past an undo point belong to the dropped branch.
        self._checkpoints = {k: v for k, v in self._checkpoints.items() if k < head}
        self._advance(head, state)

    def undo(self) -> None:
        """Step back one entry (it stays on the redo stack)."""
        if self.head == 0:
            raise NothingToUndo("nothing to undo: this is the start of the game")
        target = self.head - 1
        state = self._state_at(target)
        self.store.move_head(self.gid, target, self.game.over(state), self.game.winners(state))
        self.head, self.state = target, state

    def redo(self) -> None:
        """Bring back the entry that was last undone."""
        entry = self.redo_entry()
        if entry is None:
            raise NothingToRedo("nothing to redo")
        state = self.state
        for text in entry.lines:
            state = self.game.apply(state, Line.parse(text))
        self.store.move_head(self.gid, entry.seq, self.game.over(state), self.game.winners(state))
        self._advance(entry.seq, state)

    def abandon(self) -> None:
        """Set the game aside for good (kept in the store, not offered for resume)."""
        self.store.set_status(self.gid, "abandoned")

    # --- states by position, with bounded memory ---

    def _advance(self, head: int, state: Any) -> None:
        self._recent.append((self.head, self.state))
        self.head, self.state = head, state
        if head % self._spacing == 0:
            self._checkpoints[head] = state
            if len(self._checkpoints) > CHECKPOINTS:
                self._spacing *= 2
                self._checkpoints = {k: v for k, v in self._checkpoints.items()
                                     if k % self._spacing == 0}

    def _state_at(self, head: int) -> Any:
        while self._recent and self._recent[-1][0] > head:
            self._recent.pop()
        if self._recent and self._recent[-1][0] == head:
            return self._recent.pop()[1]
        base = max(k for k in self._checkpoints if k <= head)
        state = self._checkpoints[base]
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
        """Replay the stored entries up to ``head`` (on open)."""
        for entry in self.store.entries(self.gid, head):
            state = self.state
            for text in entry.lines:
                state = self.game.apply(state, Line.parse(text))
            self._advance(entry.seq, state)
