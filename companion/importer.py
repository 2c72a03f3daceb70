"""``companion import FILE``: a game record stored as a game, finished or not.

The record is replayed as ``companion replay`` replays it, with the same refusals: an
illegal line is ``FILE:LINE: reason`` and nothing is stored; a file that is no record is
one line. Only a record that replays whole is written, and in one transaction, so the store
never holds half of it.

What the record's comments say of its dice comes back with it, as ``companion export``
writes them (README, "Dice"): a line marked ``# rolled by the companion`` (or ``rolled
again``) was a device roll, and ``# undone: LINE`` is a device roll that was undone there.
Exporting the imported game then gives the same lines back, with the same comments. Any
other comment is the writer's own and is not kept (the store keeps record lines, not prose).

Entries are cut as the box logs them: a roll and the rolls chained after it for the same
actor (a round's leaves, all sixes rolled again) are one entry, one undo step, when they
are marked alike; any other line is an entry of its own. The companion's seat line
(``# companion plays NAME``) in the header is kept as the box hands a seat over (one seat, in
a game the companion can play), so the companion goes on playing that seat when the game is
resumed.

Memory stays flat however long the record: lines are read, checked and put aside in a
scratch SQLite database one at a time, and copied into the store at the end.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from companion.ai import SEAT_MARK, advisor, seat_line
from companion.checkpoint import encode, engine_tag
from companion.dice import MAX_ROLLS, chained_roll
from companion.exc import RecordError
from companion.games.base import Game, IllegalLine, Line, Prompt, Roll
from companion.record import Header, RecordReader, Replayer, words
from companion.store import MadeRoll, Store

ROLLED = "rolled by the companion"
ROLLED_AGAIN = "rolled again by the companion"
UNDONE = "undone:"
#: The longest undone roll kept from a comment: a roll's line is a few words; a longer
#: comment is the writer's own, however it starts.
LONGEST = 1024
#: The most rolls an import keeps undone at one place. The box offers an undone roll again
#: (undo is no free re-roll), so a table makes a handful; every reader of the dice audit (the
#: Log, the phone's record, a game in play) reads the rolls of a place together, and a
#: record of 200,000 ``# undone:`` comments took the Log 80 MB to open.
MOST_UNDONE = 100
#: Header keywords: any other first word on a line is an action's actor.
HEADER_WORDS = frozenset({"game", "players", "option"})


class CommentReader(RecordReader):
    """A :class:`RecordReader` that also hands over each line's comment (without its
    ``#``; "" for none), for the dice audit the comments carry.

    The base class splits a line at its ``#`` only for reads that hold one; this keeps
    what it cut off, so lines without comments stay on the fast path.

    >>> import io
    >>> list(CommentReader(io.BytesIO(b"a b # one\\nc d\\n# undone: x y")).commented())
    [(1, 'a b ', ' one'), (2, 'c d', ''), (3, '', ' undone: x y')]
    """

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__(stream)
        self._comment = ""

    def commented(self) -> Iterator[tuple[int, str | None, str]]:
        """``(line number, words before the comment or None, comment)`` for each line."""
        for number, content in self.lines():
            comment, self._comment = self._comment, ""
            yield number, content, comment

    def words_of(self, piece: str) -> str | None:  # type: ignore[override]
        # Called just before the line it splits is handed out (see commented()).
        at = piece.find("#")
        self._comment = piece[at + 1:].removesuffix("\r") if at >= 0 else ""
        return RecordReader.words_of(piece)

    def _content(self, number: int, raw: bytes, start: int, ended: bool = True) -> str | None:
        at = raw.find(b"#")
        self._comment = raw[at + 1:].decode("utf-8", "replace").removesuffix("\r") if at >= 0 else ""
        return super()._content(number, raw, start, ended)


@dataclass
class Gathering:
    """Lines being gathered into one entry (or one undone roll): the lines, how they were
    marked, the roll that the next line must answer to join them (None: closed to more),
    and the state after the last of them."""

    lines: list[str]
    mark: str
    chain: Roll | None
    state: Any


class Scratch:
    """The checked entries and undone rolls, put aside until the whole record is known
    good: a private SQLite database that spills to a temporary file, not to memory."""

    def __init__(self) -> None:
        self.db = sqlite3.connect("", isolation_level=None)
        self.db.executescript("CREATE TABLE entries (seq INTEGER PRIMARY KEY, lines TEXT, mark TEXT);"
                              "CREATE TABLE undone (n INTEGER PRIMARY KEY, seq INTEGER, lines TEXT);"
                              "BEGIN")
        self.count = 0

    def add_entry(self, lines: list[str], mark: str) -> None:
        self.count += 1
        self.db.execute("INSERT INTO entries VALUES (?, ?, ?)", (self.count, "\n".join(lines), mark))

    def add_undone(self, lines: list[str]) -> None:
        """A roll undone before the next entry (or after the last one)."""
        self.db.execute("INSERT INTO undone (seq, lines) VALUES (?, ?)", (self.count + 1, "\n".join(lines)))

    def entries(self) -> Iterator[tuple[list[str], bool]]:
        for text, mark in self.db.execute("SELECT lines, mark FROM entries ORDER BY seq"):
            yield text.split("\n"), bool(mark)

    def rolls(self) -> Iterator[MadeRoll]:
        """The dice audit in the order the box keeps it: at each place, the rolls undone
        there, then the roll in force."""
        query = ("SELECT seq, 0 AS kind, n, lines, '' FROM undone UNION ALL"
                 " SELECT seq, 1, 0, lines, mark FROM entries WHERE mark != ''"
                 " ORDER BY seq, kind, n")
        for seq, _, _, text, mark in self.db.execute(query):
            yield MadeRoll(seq, tuple(text.split("\n")), mark == ROLLED_AGAIN)

    def close(self) -> None:
        self.db.close()


class Importer:
    """Reads a record line by line: the replay checks every line, and the comments and the
    prompts decide how the lines are cut into entries."""

    def __init__(self) -> None:
        self.replayer = Replayer(keep_actions=False)
        self.scratch = Scratch()
        self.seats: list[str] = []
        self.options: list[tuple[str, str]] = []  # as the header gave them so far
        self.entry: Gathering | None = None  # the entry being gathered
        self.undone: Gathering | None = None  # the undone roll being gathered
        self._prompt: tuple[object, Prompt | None] = (None, None)
        self.undone_here = 0  # rolls undone at the place of the next entry

    def feed(self, number: int, content: str | None, comment: str) -> None:
        """One physical line; RecordError or UnreadableRecord when it is refused."""
        if content is None:
            self.replayer.refuse_long(number)
        tokens = words(content or "")
        if not tokens:
            self.note(number, comment.strip())
            return
        if tokens[0] in HEADER_WORDS or self.replayer.header is None:
            self.replayer.feed(number, content or "")  # a header line, or its refusal
            if tokens[0] == "option":
                self.options.append((tokens[1], tokens[2]))
            return
        if self.replayer.state is None:
            self.replayer.finish()  # the header is complete: the game's state begins
        before = self.replayer.state
        self.replayer.feed(number, content or "")
        self.take(Line(tokens[0], tokens[1], tuple(tokens[2:])), before, mark_of(comment))

    def note(self, number: int, comment: str) -> None:
        """A line that is only a comment: a seat the companion plays (in the header), or a
        roll undone at this place; any other comment is the writer's own. A seat is kept as
        the box hands one over: in a game the companion can play, one seat."""
        seat = SEAT_MARK.lstrip("# ")
        if comment.startswith(seat) and self.replayer.header is not None and self.replayer.state is None:
            name = comment[len(seat):].strip()
            if name in self.replayer.header.players and not self.seats and advisor(self.game.id) is not None:
                self.seats.append(name)
        elif comment.startswith(UNDONE) and len(comment) <= LONGEST and len(words(comment[len(UNDONE):])) >= 2:
            self.close_entry()
            tokens = words(comment[len(UNDONE):])
            self.take_undone(number, Line(tokens[0], tokens[1], tuple(tokens[2:])))

    def take(self, line: Line, before: Any, mark: str) -> None:
        """An action line the rules took from ``before`` to the replay's state now."""
        self.close_undone()
        entry = self.entry
        if not joins(entry, line, mark):
            self.close_entry()
            entry = self.entry = Gathering([], mark, answered(self.prompt(before), line), before)
        assert entry is not None
        entry.lines.append(str(line))
        entry.state = self.replayer.state
        if entry.chain is not None:
            entry.chain = chained_roll(self.prompt(entry.state), entry.chain.actor)

    def take_undone(self, number: int, line: Line) -> None:
        """A roll undone here (not in the record: it was taken back), as the audit kept it:
        one roll of several lines when the rules chain them from here, else line by line."""
        group = self.undone
        if joins(group, line, ""):
            assert group is not None
            start = group.state
        else:
            self.close_undone()
            self.undone_here += 1
            if self.undone_here > MOST_UNDONE:
                raise RecordError(number, f"more than {MOST_UNDONE} rolls undone at one place: "
                                          f"an import keeps at most {MOST_UNDONE}")
            start = self.replayer.state if self.replayer.state is not None else self.setup()
            chain = answered(self.prompt(start), line) if start is not None else None
            group = self.undone = Gathering([], "", chain, start)
        group.lines.append(str(line))
        try:
            group.state = self.game.apply(start, line) if start is not None else None
        except IllegalLine:  # undone on a path the record no longer takes: a line alone
            group.chain = None
            return
        if group.chain is not None:
            group.chain = chained_roll(self.prompt(group.state), group.chain.actor)

    def setup(self) -> Any:
        """Before the first action: the state the header so far sets up (None without a
        ``players`` line). The replay's own begins with the first action line."""
        header = self.replayer.header
        return None if header is None else Header(header.game, header.players, tuple(self.options)).start()

    def prompt(self, state: Any) -> Prompt | None:
        """The state's prompt, asked once (a chained roll's check asks the next one)."""
        known, ask = self._prompt
        if known is not state:
            ask = self.game.prompt(state)
            self._prompt = (state, ask)
        return ask

    def close_entry(self) -> None:
        entry, self.entry = self.entry, None
        if entry is not None:
            self.scratch.add_entry(entry.lines, entry.mark)
            self.undone_here = 0

    def close_undone(self) -> None:
        group, self.undone = self.undone, None
        if group is not None:
            self.scratch.add_undone(group.lines)

    def finish(self) -> None:
        """The file ended: the last entry, and the rolls undone after it."""
        self.replayer.finish()
        self.close_entry()
        self.close_undone()

    @property
    def game(self) -> Game[Any, Any]:
        assert self.replayer.header is not None
        return self.replayer.header.game

    def store(self, store: Store) -> int:
        """Write the game, whole, into ``store``; its number. The state it reached is kept as
        its checkpoint, as playing it on the box would have: resuming it replays nothing."""
        header = self.replayer.header
        assert header is not None
        outcome = self.game.outcome(self.replayer.state)
        return store.adopt(self.game.id, header.lines() + [seat_line(name) for name in self.seats],
                           self.scratch.entries(), self.scratch.rolls(), outcome is not None,
                           outcome.winners if outcome else (), "import", self.checkpoint())

    def checkpoint(self) -> tuple[str, str] | None:
        """The final state as a checkpoint, (engine, text); None for a game whose states are
        not kept (a cache: resuming replays then)."""
        try:
            return engine_tag(self.game), encode(self.replayer.state)
        except (TypeError, ValueError):
            return None


def answered(ask: Prompt | None, line: Line) -> Roll | None:
    """The roll among the prompt's answers that ``line`` answers, if any."""
    return next((a for a in (ask.answers if ask else ()) if isinstance(a, Roll)
                 and (a.actor, a.verb) == (line.actor, line.verb)), None)


def joins(group: Gathering | None, line: Line, mark: str) -> bool:
    """Whether ``line`` is the next roll of ``group``: the one chained after it, marked
    alike, and the group not yet as long as the longest device roll."""
    return (group is not None and group.chain is not None and group.mark == mark
            and (group.chain.actor, group.chain.verb) == (line.actor, line.verb)
            and len(group.lines) < MAX_ROLLS)


def mark_of(comment: str) -> str:
    """What a line's comment says of its dice: :data:`ROLLED`, :data:`ROLLED_AGAIN` or "".

    >>> mark_of(" rolled again by the companion"), mark_of(" a tie: roll again")
    ('rolled again by the companion', '')
    """
    said = " ".join(comment.split())
    return said if said in (ROLLED, ROLLED_AGAIN) else ""


def import_stream(stream: BinaryIO, store_for: Any) -> int:
    """Replay the record in ``stream`` and store it with ``store_for()`` (called only once
    the whole record is known good); the new game's number. RecordError (illegal, with its
    line) and UnreadableRecord (not a record) as ``companion replay`` raises them."""
    importer = Importer()
    reader = CommentReader(stream)
    lines = reader.commented()
    try:
        try:
            for number, content, comment in lines:
                importer.feed(number, content, comment)
        except RecordError:
            for _ in lines:  # as replay: the rest must still be UTF-8 and within the cap
                pass
            raise
        importer.finish()
        store: Store = store_for()
        try:
            return importer.store(store)
        finally:
            store.close()
    finally:
        importer.scratch.close()
