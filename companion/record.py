"""Game records (``../shared/spec/records.md``): parse, replay, summarise and format.

A record is a header (``game``, ``players``, ``option`` lines) and one action per line.
Replay is strict: the first illegal line rejects the whole record, reported with its
physical line number.

>>> text = "game microbot-racers\\nplayers Ann Bob\\ntable roll 3 2\\n"
>>> summary(replay_text(text))["p1"]
'Bob'
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Generic, cast

from companion.exc import RecordError, UnreadableRecord
from companion.games import GAMES, game_by_id
from companion.games.base import (
    RESERVED_NAMES,
    TABLE,
    Game,
    IllegalLine,
    Line,
    Prompt,
    S,
    Summary,
    SummaryT,
    valueclass,
)

NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")


@valueclass
class Header(Generic[S, SummaryT]):
    """Who plays what: the game, the seats, and the options as written; generic in the
    game's state and summary, as its :class:`~companion.games.base.Game` is."""

    game: Game[S, SummaryT]
    players: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()

    def lines(self) -> list[str]:
        """The header as record lines."""
        out = [f"game {self.game.id}", "players " + " ".join(self.players)]
        out += [f"option {key} {value}" for key, value in self.options]
        return out

    def start(self) -> S:
        """The game's state before its first action."""
        return self.game.start(self.players, self.game.option_values(dict(self.options)))


def check_players(game: Game[Any, Any], names: list[str]) -> tuple[str, ...]:
    """Validate a ``players`` line's names for ``game``; raise :class:`IllegalLine`."""
    for name in names:
        if not NAME.fullmatch(name):
            raise IllegalLine(f"{name!r} is not a valid name: 1-12 letters, digits, - or _")
        if name in RESERVED_NAMES:
            raise IllegalLine(f"{name!r} is a reserved word and cannot be a name")
    if len(set(names)) != len(names):
        raise IllegalLine("two players have the same name")
    low, high = game.min_players, game.max_players
    if not low <= len(names) <= high:
        span = f"exactly {low}" if low == high else f"{low}-{high}"
        raise IllegalLine(f"{game.title} is for {span} players, not {len(names)}")
    return tuple(names)


def check_option(game: Game[Any, Any], key: str, value: str, seen: Iterable[str]) -> None:
    """Validate one ``option KEY VALUE`` line; raise :class:`IllegalLine`."""
    if key not in game.options:
        known = ", ".join(game.options) or "none"
        raise IllegalLine(f"{game.title} has no option {key!r} (options: {known})")
    if key in seen:
        raise IllegalLine(f"option {key} is given twice")
    try:
        game.options[key].parse(value)
    except ValueError as err:
        raise IllegalLine(f"option {key}: {err}") from None


#: The largest record ``companion replay`` reads (docs/records.md, "What replay reads"): a thousand times
#: the longest game we know, yet read through in seconds on a Pi. Larger input is refused
#: before replay, so that no file, pipe or device can take the memory of the box.
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: The longest line, comment not counted, that replay takes. Legal lines are short, but
#: leading zeros may make a number long (a 4,301-character 3 is legal).
MAX_LINE_BYTES = 64 * 1024
#: How much of the stream is read at once; the whole lines of each read are decoded and
#: split together, and only the start of an unfinished line is carried to the next read.
CHUNK = 64 * 1024


def too_big(most: int) -> str:
    """What replay says of input over the cap: ``over the 16 MiB a record may be``."""
    return f"over the {most / 2 ** 20:g} MiB a record may be"


class RecordReader:
    """Cuts a record's bytes into physical lines as records.md counts them, as they are read.

    Only LF and CR-LF end a line; a lone CR stays inside its line (and so is refused later
    as a bad word). A byte-order mark opens the first line. Each line comes out as its words
    before any ``#`` comment, or as ``None`` when those are longer than
    :data:`MAX_LINE_BYTES`. Comments are checked as UTF-8 but never kept, so memory stays
    flat whatever the file holds. Bytes that are not UTF-8 anywhere, and input over ``most``
    bytes, raise :class:`UnreadableRecord` when they are reached.

    >>> list(RecordReader(io.BytesIO(b"\\xef\\xbb\\xbfgame x # hi\\r\\n\\nb\\rc")).lines())
    [(1, 'game x '), (2, ''), (3, 'b\\rc')]
    """

    def __init__(self, stream: BinaryIO, most: int | None = MAX_RECORD_BYTES) -> None:
        self.stream = stream
        self.most = most
        self.taken = 0  # bytes read so far

    def lines(self) -> Iterator[tuple[int, str | None]]:
        """``(physical line number, words before the comment or None)`` for each line."""
        number = 0
        tail = b""  # the start of a line whose end is not read yet
        while block := self._take():
            data = tail + block if tail else block
            while True:  # once more after an over-long line, for the lines read past it
                cut = data.rfind(b"\n") + 1
                tail = data[cut:]
                if cut:
                    # The whole lines of a read are decoded and split at once: the speed of
                    # reading a whole file, in a read's worth of memory.
                    text = self._decode(data[:cut], self.taken - len(data))
                    if number == 0:
                        text = text.removeprefix("\ufeff")
                    pieces = text.split("\n")
                    pieces.pop()  # after the last LF
                    if "#" not in text and "\r" not in text and max(map(len, pieces)) <= MAX_LINE_BYTES // 4:
                        # No comment, no CR and no long line in this read (the usual case):
                        # each piece is a line's words as it is.
                        yield from zip(range(number + 1, number + 1 + len(pieces)), pieces)
                        number += len(pieces)
                    else:
                        for piece in pieces:
                            number += 1
                            yield number, self.words_of(piece)
                bom = len(codecs.BOM_UTF8) if number == 0 and tail.startswith(codecs.BOM_UTF8) else 0
                if len(tail) <= MAX_LINE_BYTES + 1 + bom:
                    break
                number += 1  # a line too long unless a comment shortens it
                words, data = self._long(number, tail, self.taken - len(tail))
                yield number, words
        if tail:
            number += 1
            yield number, self._content(number, tail, self.taken - len(tail), ended=False)

    @staticmethod
    def words_of(piece: str) -> str | None:
        """A line's words before its comment (``piece``, without its LF); None when they are
        longer than :data:`MAX_LINE_BYTES`."""
        comment = piece.find("#")
        content = piece[:comment] if comment >= 0 else piece.removesuffix("\r")  # CR-LF
        # Characters are 1-4 bytes: only a long line needs its bytes counted.
        long = len(content) > MAX_LINE_BYTES // 4 and len(content.encode()) > MAX_LINE_BYTES
        return None if long else content

    def _content(self, number: int, raw: bytes, start: int, ended: bool = True) -> str | None:
        """A whole line's words before its comment (``raw`` without its LF), checked as UTF-8
        comment and all; None when they are longer than :data:`MAX_LINE_BYTES`."""
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw, start = raw[len(codecs.BOM_UTF8):], start + len(codecs.BOM_UTF8)
        text = self._decode(raw, start)
        comment = raw.find(b"#")
        crlf = ended and raw.endswith(b"\r")  # a lone CR at the very end stays in the line
        if (comment if comment >= 0 else len(raw) - crlf) > MAX_LINE_BYTES:
            return None
        if comment >= 0:
            return text[:text.find("#")]
        return text[:-1] if crlf else text

    def _long(self, number: int, tail: bytes, start: int) -> tuple[str | None, bytes]:
        """The words of a line longer than a read, and what follows its end. The rest of the
        line is checked as UTF-8 as it is read, and dropped."""
        bom = len(codecs.BOM_UTF8) if number == 1 and tail.startswith(codecs.BOM_UTF8) else 0
        comment = tail.find(b"#", 0, MAX_LINE_BYTES + 1 + bom)
        content = None if comment < 0 else self._content(number, tail[:comment], start, ended=False)
        decoder = codecs.getincrementaldecoder("utf-8")()
        skipped = max(comment, 0)
        piece, at = tail[skipped:], start + skipped
        while True:
            end = piece.find(b"\n")
            last = end >= 0 or not piece
            held = len(decoder.getstate()[0])  # the start of a character cut by a read
            try:
                decoder.decode(piece if end < 0 else piece[:end], final=last)
            except UnicodeDecodeError as err:
                raise UnreadableRecord(f"not UTF-8 text (byte {at - held + err.start})") from None
            if last:
                return content, piece[end + 1:] if end >= 0 else b""
            at += len(piece)
            piece = self._take()

    def _take(self) -> bytes:
        block = self.stream.read(CHUNK)
        self.taken += len(block)
        if self.most is not None and self.taken > self.most:
            raise UnreadableRecord(too_big(self.most))
        return block

    @staticmethod
    def _decode(raw: bytes, start: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise UnreadableRecord(f"not UTF-8 text (byte {start + err.start})") from None


#: The most distinct action lines a replay keeps split (:attr:`Replayer._parsed`), and the
#: longest it keeps: a real game has far fewer and shorter ones, and a record of long,
#: all-different lines stays in flat memory.
PARSED_LINES, PARSED_LENGTH = 1024, 100
SEPARATORS = re.compile(r"[ \t]+")


def words(content: str) -> list[str]:
    """Split on spaces and tabs only, as records.md says.

    >>> words(" Ann\\tpick  move-2 "), words("Ann pick\\x0bmove-2")
    (['Ann', 'pick', 'move-2'], ['Ann', 'pick\\x0bmove-2'])
    """
    tokens = content.split()  # at any white space: right when spaces and tabs are all there is
    if content.isprintable():  # white space that Python prints is only the ASCII space
        return tokens
    if len(content) - sum(map(len, tokens)) == content.count(" ") + content.count("\t"):
        return tokens
    return [w for w in SEPARATORS.split(content) if w]


class Replayer:
    """Feeds record lines one at a time; keeps the header, the state and the actions."""

    def __init__(self, keep_actions: bool = True) -> None:
        self.header: Header[Any, Any] | None = None
        self.state: Any = None
        self.actions: list[Line] = []
        #: Whether ``actions`` collects the lines: a summary needs only the state, and a long
        #: record's lines would take many times the file's size in memory.
        self.keep_actions = keep_actions
        self._acted = False
        self._game: Game[Any, Any] | None = None
        self._options: list[tuple[str, str]] = []
        self._last = 0
        #: Who may act, once the state is set up: a line that starts with one is an action.
        self._actors: frozenset[str] = frozenset()
        #: Action lines already read, by their text: a game repeats a few dozen lines
        #: ("Ann pick move-2", "table roll 3 2"), and a line is a value, so each text is split
        #: once. The rules still check every line.
        self._parsed: dict[str, Line] = {}

    def feed(self, number: int, content: str) -> None:
        """Take one physical line (comment already stripped)."""
        self._last = number
        try:
            line = self._parsed.get(content)
            if line is None:
                tokens = words(content)
                if not tokens:
                    return
                if self._game is None:
                    self._first(tokens)
                    return
                if tokens[0] not in self._actors or len(tokens) < 2:
                    self._take(tokens)
                    return
                line = Line(tokens[0], tokens[1], tuple(tokens[2:]))  # the common case, at once
                if len(self._parsed) < PARSED_LINES and len(content) <= PARSED_LENGTH:
                    self._parsed[content] = line
            self._act(line)
        except IllegalLine as err:
            raise RecordError(number, str(err)) from None

    def feed_all(self, lines: Iterable[tuple[int, str | None]]) -> None:
        """Take every line of a :class:`RecordReader`: :meth:`feed`, or :meth:`refuse_long`
        for a line too long to read.

        A line read before goes straight to the rules: it is an action (only those are kept
        split), and its actor and verb are checked again by them. That is most lines of a
        record, and what a replay costs.
        """
        parsed, keep = self._parsed, self.keep_actions
        for number, content in lines:
            line = parsed.get(content) if content is not None else None
            if line is None:
                if content is None:
                    self.refuse_long(number)
                else:
                    self.feed(number, content)
                continue
            game = self._game
            assert game is not None  # only an action line is kept split: the game is known
            try:  # what feed and _act do, without two calls a line
                self.state = game.apply(self.state, line)
            except IllegalLine as err:
                self._last = number
                raise RecordError(number, str(err)) from None
            self._acted = True
            if keep:
                self.actions.append(line)

    def refuse_long(self, number: int) -> None:
        """A line too long to read (:data:`MAX_LINE_BYTES`): not a record, or an illegal line."""
        self._last = number
        problem = f"longer than {MAX_LINE_BYTES:,} bytes before its comment"
        if self._game is None:
            raise UnreadableRecord(f"line {number} is {problem}; the first line must be 'game ID'")
        raise RecordError(number, f"the line is {problem}")

    def finish(self) -> None:
        """The file ended: a record without ``players`` is illegal at its last line."""
        if self._game is None:
            raise UnreadableRecord("no 'game' line")
        if self.header is None:
            raise RecordError(max(self._last, 1), "the record has no 'players' line")
        self._begin()

    def _first(self, tokens: list[str]) -> None:
        if tokens[0] != "game" or len(tokens) < 2:
            raise UnreadableRecord("the first line must be 'game ID'")
        game = game_by_id(tokens[1])
        if game is None:
            raise UnreadableRecord(f"unknown game {tokens[1]!r}; known: {', '.join(GAMES)}")
        self._game = game
        if len(tokens) > 2:
            raise RecordError(self._last, "the game line has extra words")

    def _take(self, tokens: list[str]) -> None:
        game = self._game
        assert game is not None
        keyword = tokens[0]
        if keyword in ("game", "players", "option") and self._acted:
            raise IllegalLine(f"a '{keyword}' line cannot come after the first action")
        if keyword == "game":
            raise IllegalLine("the record already has a 'game' line")
        if keyword == "players":
            if self.header is not None:
                raise IllegalLine("the record already has a 'players' line")
            self.header = Header(game, check_players(game, tokens[1:]))
            return
        if keyword == "option":
            if self.header is None:
                raise IllegalLine("options come after the 'players' line")
            if len(tokens) != 3:
                raise IllegalLine("write an option as 'option KEY VALUE'")
            check_option(game, tokens[1], tokens[2], (k for k, _ in self._options))
            options = (*self._options, (tokens[1], tokens[2]))
            try:  # a value that depends on the players (``option first NAME``) is checked here
                Header(game, self.header.players, options).start()
            except ValueError as err:
                raise IllegalLine(str(err)) from None
            self._options.append((tokens[1], tokens[2]))
            return
        if self.header is None:
            raise IllegalLine("the record has no 'players' line before its first action")
        self._begin()
        if len(tokens) < 2:
            raise IllegalLine("an action line needs a player (or table) and a verb")
        actor = tokens[0]
        if actor != TABLE and actor not in self.header.players:
            raise IllegalLine(f"{actor!r} is not a player in this game")
        self._act(Line(tokens[0], tokens[1], tuple(tokens[2:])))

    def _act(self, line: Line) -> None:
        """Apply an action line by one of the actors."""
        assert self._game is not None
        self.state = self._game.apply(self.state, line)
        self._acted = True
        if self.keep_actions:
            self.actions.append(line)

    def _begin(self) -> None:
        """Fix the options into the header and set up the state, once."""
        assert self.header is not None
        if self.state is None:
            self.header = Header(self.header.game, self.header.players, tuple(self._options))
            self.state = self.header.start()
            self._actors = frozenset((*self.header.players, TABLE))


def replay_header(lines: Iterable[str]) -> Replayer:
    """A replayer past a stored game's header lines, read as a record's lines are (a ``#``
    comment dropped, such as the companion's seat, ``# companion plays Bob``), state set up;
    RecordError or UnreadableRecord as for a record.

    Every reader of a stored header comes through here (a session, export, salvage), so a
    header is read one way, and the same way as the record it begins.

    >>> replay_header(["game microbot-racers", "players Ann Bob", "# companion plays Bob"]).header.players
    ('Ann', 'Bob')
    """
    replayer = Replayer()
    replayer.feed_all((number, RecordReader.words_of(text))
                      for number, text in enumerate(lines, start=1))
    replayer.finish()
    return replayer


@valueclass
class Replayed:
    """A whole record, replayed: its header, its actions and the state they reach."""

    header: Header[Any, Any]
    actions: tuple[Line, ...]
    state: Any


def replay_stream(stream: BinaryIO, most: int | None = MAX_RECORD_BYTES,
                  keep_actions: bool = True) -> Replayed:
    """Replay a record as it is read; raise RecordError or UnreadableRecord.

    The whole input is read even after an illegal line: a byte that is not UTF-8 anywhere,
    or input over ``most`` bytes, makes it unreadable instead (records.md). Without
    ``keep_actions`` the result has no actions, and memory stays flat however long the
    record is.
    """
    reader = RecordReader(stream, most)
    replayer = Replayer(keep_actions=keep_actions)
    lines = reader.lines()
    try:
        replayer.feed_all(lines)
    except RecordError:
        for _ in lines:  # the rest is read too: it must still be UTF-8 and within the cap
            pass
        raise
    replayer.finish()
    assert replayer.header is not None
    return Replayed(replayer.header, tuple(replayer.actions), replayer.state)


def replay_text(text: str) -> Replayed:
    """Replay a record held in a string; raise RecordError or UnreadableRecord."""
    return replay_stream(io.BytesIO(text.encode("utf-8", "surrogateescape")), most=None)


def replay_bytes(data: bytes) -> Replayed:
    """Replay a record file's bytes (UTF-8 required)."""
    return replay_stream(io.BytesIO(data), most=None)


def summarise(game: Game[S, SummaryT], players: tuple[str, ...], state: S,
              ask: Prompt | None = None) -> SummaryT:
    """The summary JSON object of records.md for a state; ``ask``, the state's prompt if the
    caller has it already (a prompt can cost a board search: a play screen's press pays for
    it once)."""
    outcome = game.outcome(state)
    if outcome is None and ask is None:
        ask = game.prompt(state)
    out: Summary = {
        "game": game.id,
        "players": list(players),
        "over": outcome is not None,
        "winners": list(outcome.winners) if outcome else [],
        "next": ask.actor if outcome is None and ask is not None and ask.answers else None,
    }
    # The game's details (its own TypedDict) follow the shared keys: the whole is the game's
    # own summary type (``Game[S, SummaryT]``), a merge of two TypedDicts that mypy cannot
    # write; every screen then reads it typed.
    return cast(SummaryT, {**out, **game.details(state)})


def summary(replayed: Replayed) -> Summary:
    """The summary of a replayed record."""
    found: Summary = summarise(replayed.header.game, replayed.header.players, replayed.state)
    return found


def format_record(header: Header[Any, Any], actions: Iterable[Line | str]) -> str:
    """A record's text: header lines then one action per line.

    >>> from companion.games import game_by_id
    >>> h = Header(game_by_id("microbot-racers"), ("Ann", "Bob"), (("laps", "2"),))
    >>> print(format_record(h, ["table roll 3 2"]), end="")
    game microbot-racers
    players Ann Bob
    option laps 2
    table roll 3 2
    """
    out = io.StringIO()  # written line by line: a long record is not held twice as a list
    for line in header.lines():
        out.write(f"{line}\n")
    for action in actions:
        out.write(f"{action}\n")
    return out.getvalue()


def describe(lines: list[str]) -> str:
    """A short account of an entry: ``Bob pick move-2``; dice as their faces.

    >>> describe(["Ann roll 3", "Bob roll 5", "Cat roll 1"])
    'Ann roll 3 (+2 more)'
    """
    return "; ".join(lines) if len(lines) <= 2 else f"{lines[0]} (+{len(lines) - 1} more)"
