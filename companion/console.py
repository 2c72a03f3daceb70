"""The serial line protocol: what a die reader or a console sends, and the one answer to each line.

Every line gets exactly one answer line, ``ok ...`` or ``error: reason``, and a refused line
changes nothing. The lines are those of a game record (records.md), plus a few commands:

- ``game ID``, ``players NAME...``, ``option KEY VALUE``: start a new game. It is stored and
  shown from its ``players`` line, which must be the next line from the port that sent
  ``game``; each ``option`` line (before the first action) restarts it with that option
  added. All are validated as ``companion replay`` validates a header.
- ``ACTOR VERB ARGS...``: an action line for the game on screen, committed to the store
  before the answer (durable before visible).
- ``dice F F...`` and ``die F``: faces for the dice the screen asks for, exactly as if typed
  in on the box, in the order records.md writes them (for a chain of rolls of one actor,
  such as the leaves after a drop, one after the other). Faces that do not complete the
  dice wait for the next line (one smart die at a time); faces the rules refuse are refused.
- ``undo``, ``redo``, ``state`` (``ok`` and the summary JSON), ``help``.

A line that is one of our answers coming back (a loopback plug, a console that echoes, two
companions wired together) gets no answer, or the two ends would answer each other for ever:
a line whose first word starts with ``error:`` (no name or command has a colon), ``ok``
alone, and ``ok`` followed by what our answers say (see :func:`echoed`). A player named
``ok`` still plays: their line is an echo only in one of those shapes and when the rules
would refuse it, so a loop can never begin (an echo acted on would be refused, and its
``error:`` answer comes back unanswered).

The interpreter owns no thread and touches no device: the daemon hands it each line's bytes
and writes the answer back on the same port.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Protocol

from companion.dice import chained, rolled_faces
from companion.exc import ConsoleRefused, IllegalLine, Refusal
from companion.games import GAMES, game_by_id
from companion.games.base import TABLE, Game, Line, Roll, whole_number
from companion.record import Header, check_option, check_players, describe, words
from companion.session import Session
from companion.store import Entry, Store

COMMANDS = ("game ID | players NAME... | option KEY VALUE | ACTOR VERB ... | dice F F... | die F | "
            "undo | redo | state | help")
ERASE = frozenset("\b\x7f")  # backspace and delete, from a person typing in a terminal


class Front(Protocol):
    """What the console needs of the app: its store, the game on screen, and the screens."""

    store: Store
    session: Session[Any, Any] | None

    def open(self, gid: int) -> object: ...  # whatever it returns, the console reads the session
    def remote(self, message: str = "") -> None: ...


@dataclass(frozen=True)
class Reply:
    """The answer line (``None`` for an echoed answer) and whether the screen changed."""

    answer: str | None
    shown: bool = False


@dataclass(frozen=True)
class Waiting:
    """Faces received for dice that are not complete yet, and the prompt they are for."""

    gid: int
    head: int
    ask: Roll
    faces: tuple[int, ...]


def line_text(data: bytes) -> str:
    """A line's text: UTF-8, backspaces applied, no other control characters."""
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConsoleRefused("not UTF-8 text; ignored") from None
    text: list[str] = []
    for char in raw.removeprefix("\ufeff"):
        if char in ERASE:
            if text:
                text.pop()
        elif char < " " and char != "\t":
            raise ConsoleRefused(f"control character {ord(char):#04x} in the line; ignored")
        else:
            text.append(char)
    return "".join(text)


def faces_of(tokens: list[str]) -> tuple[int, ...]:
    """The faces of a dice line, as numbers."""
    if not tokens:
        raise ConsoleRefused("write the faces: 'dice 3 5' or 'die 4'")
    return tuple(whole_number(token, "a face") for token in tokens)


def check_faces(ask: Roll, faces: tuple[int, ...]) -> None:
    """Refuse a face that its die cannot show."""
    for face, sides, label in zip(faces, ask.sides, ask.labels):
        if not 1 <= face <= sides:
            raise ConsoleRefused(f"no {face} on a d{sides} ({label})")


def pending_roll(session: Session[Any, Any]) -> Roll:
    """The dice the game on screen asks for."""
    ask = session.prompt()
    roll = next((a for a in ask.answers if isinstance(a, Roll)), None) if ask else None
    if roll is None or session.over():
        raise ConsoleRefused("no dice are asked for now")
    return roll


def partial(ask: Roll, faces: tuple[int, ...]) -> str:
    """``Ann 3, Bob ?``: the faces so far and the dice still to come."""
    shown = [str(face) for face in faces] + ["?"] * (len(ask.sides) - len(faces))
    return ", ".join(f"{label} {face}" for label, face in zip(ask.labels, shown))


def fill(session: Session[Any, Any], ask: Roll,
         faces: tuple[int, ...]) -> tuple[list[tuple[Roll, Line]], Roll, tuple[int, ...]]:
    """Fill ``ask`` and the rolls the same actor is asked for after it, in order.

    Returns the lines the faces complete (with the roll each answers), the roll still
    waiting, and the faces already given for it. Faces left over when nothing more is
    asked raise :class:`ConsoleRefused`; faces the rules refuse, their :class:`IllegalLine`.
    The lines are checked through the session, so that logging them next applies none of
    them again.
    """
    game = session.game
    done: list[tuple[Roll, Line]] = []
    current = ask
    while len(faces) >= len(current.sides):
        count = len(current.sides)
        chunk, faces = faces[:count], faces[count:]
        check_faces(current, chunk)
        line = current.line(chunk)
        done.append((current, line))
        state = session.after([line for _, line in done])
        after = chained(game, state, ask.actor)
        if after is None:
            if faces:
                raise ConsoleRefused(f"{len(faces)} face(s) too many: after {line} no more dice are asked for")
            return done, current, ()
        current = after
    check_faces(current, faces)
    return done, current, faces


#: The first word after ``ok`` in our answers that are not record lines (each answer's
#: wording is in :class:`Console`): a new game, its seats, an option, dice still awaited,
#: undo and redo, and the help (which starts with ``game``). The summary JSON starts with
#: ``{``; record lines start with a player's name or ``table``.
ANSWER_WORDS = frozenset({"game", "players", "option", "waiting", "undone", "undone:", "redone",
                          "redone:"})


def echoed(tokens: list[str], session: Session[Any, Any] | None, new_game: bool) -> bool:
    """Whether a line is one of our answers coming back, to be left unanswered.

    >>> echoed(["error:", "no", "dice"], None, False), echoed(["ok"], None, False)
    (True, True)
    >>> echoed(["ok", "Bob", "pick", "move-2"], None, False)
    True
    """
    if not tokens or tokens[0].startswith("error:"):
        return bool(tokens)
    if tokens[0] != "ok":
        return False
    if session is None or "ok" not in session.players or len(tokens) < 2 or new_game:
        return True  # no player named ok could have sent it
    if plays(session, tokens):
        return False  # a legal line of the player named ok: theirs, whatever it looks like
    said = tokens[1]
    return said in ANSWER_WORDS or said == TABLE or said in session.players or said.startswith("{")


def plays(session: Session[Any, Any], tokens: list[str]) -> bool:
    """Whether the rules would take these words as an action line now."""
    try:
        session.after([Line(tokens[0], tokens[1], tuple(tokens[2:]))])  # kept for logging it
    except IllegalLine:
        return False
    return True


class Console:
    """Interprets lines against the app's game on screen; one :class:`Reply` per line."""

    def __init__(self, front: Front) -> None:
        self.front = front
        #: After a 'game' line, until its 'players' line: by port, so that a console half
        #: way through a header does not hold up a die reader on the other port.
        self.new_games: dict[str, Game[Any, Any]] = {}
        self.fresh: int | None = None  # the game our 'players' line started: options allowed
        self.waiting: Waiting | None = None

    def line(self, data: bytes, overflow: bool = False, port: str = "") -> Reply:
        """The answer to one line's bytes (its line end removed), from ``port``."""
        if overflow:
            return Reply("error: line too long; ignored")
        try:
            tokens = words(line_text(data).split("#", 1)[0])
        except ConsoleRefused as err:
            return Reply(f"error: {err}")
        if echoed(tokens, self.front.session, port in self.new_games):
            return Reply(None)
        try:
            said, shown = self.run(tokens, port)
        except Refusal as err:  # the rules', the console's own, or nothing to undo
            return Reply(f"error: {err}", self.refused_dice(tokens, err))
        except sqlite3.Error as err:
            return Reply(f"error: not saved ({err}); nothing changed")
        return Reply(f"ok {said}".rstrip(), shown)

    def refused_dice(self, tokens: list[str], err: Refusal) -> bool:
        """A refused dice line is shown on the screen too: the table rolled and must know why.

        Faces waiting for the rest of their dice are dropped with it: roll those dice again.
        """
        if tokens[:1] not in (["dice"], ["die"]) or self.front.session is None:
            return False
        self.waiting = None
        self.front.remote(str(err))
        return True

    def run(self, tokens: list[str], port: str) -> tuple[str, bool]:
        """Act on one line's words: what to say after ``ok``, and whether the screen changed."""
        if not tokens:
            return "", False
        word, rest = tokens[0], tokens[1:]
        if word == "game":
            return self.begin(rest, port)
        if word == "players":
            return self.seat(rest, port)
        if port in self.new_games and word != "help":  # lines meant for the new game
            raise ConsoleRefused("the new game needs its 'players' line first")
        session = self.front.session
        if rest and session is not None and word in session.players:
            return self.action(tokens)  # a player named like a command still plays
        if word == "option":
            return self.option(rest)
        if word in ("dice", "die"):
            return self.dice(rest, single=word == "die")
        simple = {"undo": self.undo, "redo": self.redo, "state": self.state, "help": self.help}
        if word in simple:
            if rest:
                raise ConsoleRefused(f"'{word}' takes no words after it")
            return simple[word]()
        return self.action(tokens)

    # --- starting a game ---

    def begin(self, rest: list[str], port: str) -> tuple[str, bool]:
        self.new_games.pop(port, None)  # a new 'game' line replaces one without players
        if len(rest) != 1:
            raise ConsoleRefused("write it as 'game ID'")
        game = game_by_id(rest[0])
        if game is None:
            raise ConsoleRefused(f"unknown game {rest[0]!r}; known: {', '.join(GAMES)}")
        self.new_games[port] = game
        return f"game {game.id}: the players line next", False

    def seat(self, names: list[str], port: str) -> tuple[str, bool]:
        game = self.new_games.get(port)
        if game is None:
            raise ConsoleRefused("a new game starts with 'game ID'")
        header = Header(game, check_players(game, names))
        self.start(header)
        del self.new_games[port]
        return f"players {' '.join(header.players)}: game started", True

    def option(self, rest: list[str]) -> tuple[str, bool]:
        session = self.front.session
        if session is None or session.gid != self.fresh or session.head or session.redo_entry():
            raise ConsoleRefused("options come right after the 'players' line, before any action")
        if len(rest) != 2:
            raise ConsoleRefused("write an option as 'option KEY VALUE'")
        key, value = rest
        header = session.header
        check_option(header.game, key, value, (k for k, _ in header.options))
        header = Header(header.game, header.players, (*header.options, (key, value)))
        try:  # a value that depends on the players (``option first NAME``) is checked here
            header.start()
        except ValueError as err:
            raise ConsoleRefused(str(err)) from None
        self.start(header)
        session.abandon()  # the game with fewer options had no action: nothing is lost
        return f"option {key} {value}", True

    def start(self, header: Header[Any, Any]) -> None:
        """Store the game and show it: it is the game on screen from now on."""
        self.fresh = Session.new(self.front.store, header).gid
        self.front.open(self.fresh)

    # --- the game on screen ---

    def session(self) -> Session[Any, Any]:
        session = self.front.session
        if session is None:
            raise ConsoleRefused("no game on screen: resume one on the box, or send 'game ID'")
        return session

    def action(self, tokens: list[str]) -> tuple[str, bool]:
        session = self.session()
        if len(tokens) < 2:
            raise ConsoleRefused(f"{tokens[0]!r} is not a command or an action line; send 'help'")
        actor = tokens[0]
        if actor != TABLE and actor not in session.players:
            raise ConsoleRefused(f"{actor!r} is not a player in this game")
        line = Line(actor, tokens[1], tuple(tokens[2:]))
        session.play([line], source="console")
        self.front.remote()
        return str(line), True

    def dice(self, rest: list[str], single: bool) -> tuple[str, bool]:
        faces = faces_of(rest)
        if single and len(faces) != 1:
            raise ConsoleRefused("'die' takes one face; send several as 'dice 3 5'")
        session = self.session()
        ask = pending_roll(session)
        earlier = self.waiting
        if earlier is not None and earlier == Waiting(session.gid, session.head, ask, earlier.faces):
            faces = earlier.faces + faces
        done, current, left = fill(session, ask, faces)
        if done:
            session.play([line for _, line in done], source="reader")
        said = [str(line) for _, line in done]
        shown = [rolled_faces(roll, line) for roll, line in done]
        self.waiting = Waiting(session.gid, session.head, current, left) if left else None
        if left:
            more = len(current.sides) - len(left)
            said.append(f"waiting for {more} more face(s): {partial(current, left)}")
            shown.append(partial(current, left))
        self.front.remote("; ".join(shown))
        return "; ".join(said), True

    def undo(self) -> tuple[str, bool]:
        session = self.session()
        undone = session.entry(session.head)
        session.undo()
        return self.moved("undone", undone)

    def redo(self) -> tuple[str, bool]:
        session = self.session()
        session.redo()
        return self.moved("redone", session.entry(session.head))

    def moved(self, how: str, entry: Entry | None) -> tuple[str, bool]:
        """After undo or redo: the entry it moved over, on the line and on the screen."""
        said = f"{how}: {describe(list(entry.lines))}" if entry else how
        self.front.remote(said[:1].upper() + said[1:])
        return said, True

    def state(self) -> tuple[str, bool]:
        return json.dumps(self.session().summary()), False

    def help(self) -> tuple[str, bool]:
        return COMMANDS, False
