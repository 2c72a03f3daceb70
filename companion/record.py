"""Game records (``../shared/spec/records.md``): parse, replay, summarise and format.

A record is a header (``game``, ``players``, ``option`` lines) and one action per line.
Replay is strict: the first illegal line rejects the whole record, reported with its
physical line number.

>>> text = "game microbot-racers\\nplayers Ann Bob\\ntable roll 3 2\\n"
>>> summary(replay_text(text))["p1"]
'Bob'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from companion.games import GAMES, game_by_id
from companion.games.base import RESERVED_NAMES, TABLE, Game, IllegalLine, Line

NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")


class RecordError(Exception):
    """An illegal line: ``LINE`` is the physical line number (1-based)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"{line}: {reason}")
        self.line = line
        self.reason = reason


class UnreadableRecord(Exception):
    """Not a record at all: not UTF-8, no ``game`` line, or an unknown game."""


@dataclass(frozen=True)
class Header:
    """Who plays what: the game, the seats, and the options as written."""

    game: Game[Any]
    players: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()

    def lines(self) -> list[str]:
        """The header as record lines."""
        out = [f"game {self.game.id}", "players " + " ".join(self.players)]
        out += [f"option {key} {value}" for key, value in self.options]
        return out

    def start(self) -> Any:
        """The game's state before its first action."""
        return self.game.start(self.players, self.game.option_values(dict(self.options)))


def check_players(game: Game[Any], names: list[str]) -> tuple[str, ...]:
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


def check_option(game: Game[Any], key: str, value: str, seen: Iterable[str]) -> None:
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


def physical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Number the lines as records.md counts them, comments stripped.

    Only LF and CR-LF end a line; a lone CR stays inside its line (and so is refused
    later as a bad word).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    pieces = text.split("\n")
    if pieces and pieces[-1] == "" and len(pieces) > 1:
        pieces.pop()
    ended = text.count("\n")  # lines followed by an LF: a CR ending the last one is lone
    for number, piece in enumerate(pieces, start=1):
        if piece.endswith("\r") and number <= ended:
            piece = piece[:-1]
        yield number, piece.split("#", 1)[0]


def words(content: str) -> list[str]:
    """Split on spaces and tabs only, as records.md says."""
    return [w for w in re.split(r"[ \t]+", content) if w]


@dataclass
class Replayer:
    """Feeds record lines one at a time; keeps the header, the state and the actions."""

    header: Header | None = None
    state: Any = None
    actions: list[Line] = field(default_factory=list)
    _game: Game[Any] | None = None
    _options: list[tuple[str, str]] = field(default_factory=list)
    _last: int = 0

    def feed(self, number: int, content: str) -> None:
        """Take one physical line (comment already stripped)."""
        self._last = number
        tokens = words(content)
        if not tokens:
            return
        if self._game is None:
            self._first(tokens)
            return
        try:
            self._take(tokens)
        except IllegalLine as err:
            raise RecordError(number, str(err)) from None

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
        if keyword in ("game", "players", "option") and self.actions:
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
        line = Line(actor, tokens[1], tuple(tokens[2:]))
        self.state = game.apply(self.state, line)
        self.actions.append(line)

    def _begin(self) -> None:
        """Fix the options into the header and set up the state, once."""
        assert self.header is not None
        if self.state is None:
            self.header = Header(self.header.game, self.header.players, tuple(self._options))
            self.state = self.header.start()


@dataclass(frozen=True)
class Replayed:
    """A whole record, replayed: its header, its actions and the state they reach."""

    header: Header
    actions: tuple[Line, ...]
    state: Any


def replay_text(text: str) -> Replayed:
    """Replay a record held in a string; raise RecordError or UnreadableRecord."""
    replayer = Replayer()
    for number, content in physical_lines(text):
        replayer.feed(number, content)
    replayer.finish()
    assert replayer.header is not None
    return Replayed(replayer.header, tuple(replayer.actions), replayer.state)


def replay_bytes(data: bytes) -> Replayed:
    """Replay a record file's bytes (UTF-8 required)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UnreadableRecord(f"not UTF-8 text (byte {err.start})") from None
    return replay_text(text)


def summarise(game: Game[Any], players: tuple[str, ...], state: Any) -> dict[str, Any]:
    """The summary JSON object of records.md for a state."""
    over = game.over(state)
    out: dict[str, Any] = {
        "game": game.id,
        "players": list(players),
        "over": over,
        "winners": list(game.winners(state)) if over else [],
        "next": None if over else game.next_actor(state),
    }
    out.update(game.details(state))
    return out


def summary(replayed: Replayed) -> dict[str, Any]:
    """The summary of a replayed record."""
    return summarise(replayed.header.game, replayed.header.players, replayed.state)


def format_record(header: Header, actions: Iterable[Line | str]) -> str:
    """A record's text: header lines then one action per line.

    >>> from companion.games import game_by_id
    >>> h = Header(game_by_id("microbot-racers"), ("Ann", "Bob"), (("laps", "2"),))
    >>> print(format_record(h, ["table roll 3 2"]), end="")
    game microbot-racers
    players Ann Bob
    option laps 2
    table roll 3 2
    """
    return "\n".join([*header.lines(), *(str(a) for a in actions)]) + "\n"


def describe(lines: list[str]) -> str:
    """A short account of an entry: ``Bob pick move-2``; dice as their faces.

    >>> describe(["Ann roll 3", "Bob roll 5", "Cat roll 1"])
    'Ann roll 3 (+2 more)'
    """
    return "; ".join(lines) if len(lines) <= 2 else f"{lines[0]} (+{len(lines) - 1} more)"
