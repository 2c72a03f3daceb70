"""Shared value types for rules engines: record lines, prompts, errors and the game contract.

A rules engine is pure: it turns a state value and a record line into the next state value,
and describes what it needs next as a :class:`Prompt`. It never touches a clock, a random
generator, a file or a screen; dice faces arrive as ordinary lines.

>>> Line.parse("Ann pick move-2")
Line(actor='Ann', verb='pick', args=('move-2',))
>>> str(Line("table", "roll", ("3", "2")))
'table roll 3 2'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from functools import cached_property
from operator import attrgetter
from typing import Any, ClassVar, Final, Generic, Literal, TypedDict, TypeVar, dataclass_transform

# The rules' errors live with every other error; engines import them from here.
from companion.exc import BadArguments as BadArguments
from companion.exc import GameOver as GameOver
from companion.exc import IllegalLine as IllegalLine
from companion.exc import NotYourTurn as NotYourTurn
from companion.exc import UnknownVerb as UnknownVerb

TABLE = "table"
RESERVED_NAMES = frozenset({"game", "players", "option", TABLE})


# --- Value classes: the frozen values below, and every engine's state ---


T = TypeVar("T")


@dataclass_transform(frozen_default=True)
def valueclass(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen value class from its annotated fields (``ClassVar`` left out),
    as ``@dataclass(frozen=True)`` does: the same ``__init__`` (fields in order, defaults),
    ``==``, ``hash``, ``repr`` and refusal to assign; type checkers read it as a frozen
    dataclass, and :func:`companion.games.frozen.replace` copies it.

    Why not dataclasses: every ``companion replay`` and every start of the box loads these
    types and an engine, and importing ``dataclasses`` (``inspect`` with it) and compiling
    five methods a class cost them more than the rules themselves. This compiles only
    ``__init__`` and shares the rest: a start-up trick, docs/startup.md has what it buys.

    A class may define ``__post_init__``, which ``__init__`` calls last, and properties and
    cached properties of its own; fields are read from the class and its value bases.

    >>> @valueclass
    ... class Point:
    ...     x: int
    ...     y: int = 0
    >>> Point(1, 2), Point(1) == Point(1, 0), Point(y=3, x=1)
    (Point(x=1, y=2), True, Point(x=1, y=3))
    >>> Point(1).x = 2
    Traceback (most recent call last):
    ...
    AttributeError: cannot assign to field 'x'
    """
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is what this avoids)
    names = tuple(getattr(cls, "__value_fields__", ())) + tuple(
        name for name, kind in own.items() if "ClassVar" not in str(kind))
    defaults = {name: getattr(cls, name) for name in names if hasattr(cls, name)}
    params, seen_default = [], False
    for name in names:
        if name in defaults:
            params.append(f"{name}=_defaults[{name!r}]")
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with")
        else:
            params.append(name)
    body = f"_set(self, '__dict__', {{{', '.join(f'{n!r}: {n}' for n in names)}}})"
    if hasattr(cls, "__post_init__"):
        body += "\n    self.__post_init__()"
    namespace = {"_set": object.__setattr__, "_defaults": defaults}
    exec(f"def __init__(self, {', '.join(params)}) -> None:\n    {body}\n", namespace)
    key = _key(names)
    own_methods: dict[str, Any] = {"__init__": namespace["__init__"], "__eq__": _eq(key),
                                   "__hash__": _hash(key), "__repr__": _repr(names)}
    for name, method in own_methods.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
    attributes = {**own_methods, "__setattr__": _refuse_set, "__delattr__": _refuse_delete,
                  "__value_fields__": names, "__match_args__": names}
    for name, attribute in attributes.items():
        setattr(cls, name, attribute)
    return cls


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields of a value as a tuple, in order: what ``==`` and ``hash`` compare, as a
    dataclass's do."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda self: tuple(getattr(self, name) for name in names)


def _eq(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))
    return __hash__


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        fields = self.__dict__
        return f"{type(self).__qualname__}({', '.join(f'{n}={fields[n]!r}' for n in names)})"
    return __repr__


def _refuse_set(self: Any, name: str, _: Any) -> None:
    raise AttributeError(f"cannot assign to field {name!r}")


def _refuse_delete(self: Any, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}")


@valueclass
class Line:
    """One action line of a game record: ``ACTOR VERB ARGS...``."""

    actor: str
    verb: str
    args: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Line:
        """Split an action line (no comment) into its words."""
        words = text.split()
        if len(words) < 2:
            raise BadArguments("an action line needs a player (or table) and a verb")
        return cls(words[0], words[1], tuple(words[2:]))

    def __str__(self) -> str:
        return " ".join((self.actor, self.verb, *self.args))


#: Digits a record number may have once its leading zeros are dropped. Every count on a
#: table fits in far fewer; the bound keeps a hostile line from reaching Python's own limit on
#: converting long digit strings (4,300 digits, a ValueError) or costing time to convert.
MOST_DIGITS = 18


def whole_number(token: str, what: str) -> int:
    """Read a record number: ASCII digits, leading zeros allowed, no sign (records.md).

    Raise :class:`BadArguments` for anything else, and for a number too large for any
    count in a game, however it is written. This is the one place input text becomes an
    ``int``: records, game options, console lines and command-line arguments all come here.

    >>> whole_number("0" * 5000 + "3", "a die face")
    3
    >>> whole_number("9" * 5000, "a die face")
    Traceback (most recent call last):
    ...
    companion.exc.BadArguments: a die face is too large: a number of 5,000 digits
    """
    if not token or not token.isascii() or not token.isdigit():
        raise BadArguments(f"{what} must be a number, not {shown(token)}")
    significant = token.lstrip("0") or "0"
    if len(significant) > MOST_DIGITS:
        raise BadArguments(f"{what} is too large: a number of {len(significant):,} digits")
    return int(significant)


def number(token: str, low: int, high: int, what: str) -> int:
    """Read a record number in ``low..high`` or raise :class:`BadArguments`.

    >>> number("05", 1, 6, "a die face")
    5
    >>> number("7", 1, 6, "a die face")
    Traceback (most recent call last):
    ...
    companion.exc.BadArguments: a die face must be 1-6, not 7
    """
    value = whole_number(token, what)
    if not low <= value <= high:
        raise BadArguments(f"{what} must be {low}-{high}, not {value}")
    return value


def shown(token: str, most: int = 24) -> str:
    """A word as a refusal quotes it: whole when short, else its start and its length.

    >>> shown("fly")
    "'fly'"
    >>> shown("x" * 5000)
    "'xxxxxxxxxxxx...' (5,000 characters)"
    """
    if len(token) <= most:
        return repr(token)
    return f"{token[:most // 2]!r}... ({len(token):,} characters)".replace("'...", "...'", 1)


def counted(count: int, noun: str, nouns: str = "") -> str:
    """A count and its noun, singular for one: every count the box says goes through here.

    >>> counted(1, "gleeb"), counted(0, "gleeb"), counted(2, "leaf", "leaves")
    ('1 gleeb', '0 gleebs', '2 leaves')
    """
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def expect_args(line: Line, count: int, form: str) -> None:
    """Refuse a line whose verb takes ``count`` arguments but got another number."""
    if len(line.args) != count:
        raise BadArguments(f"write it as '{line.actor} {line.verb}{(' ' + form) if form else ''}'")


#: Who may write a verb's lines: a player, the table, or either.
By = Literal["player", "table", "either"]
PLAYER: Final = "player"
TABLE_ONLY: Final = "table"
EITHER: Final = "either"


@valueclass
class Verb:
    """A verb of a game's action lines: the forms its arguments are written in and who writes it.

    A form is its argument names, space-separated; a name in brackets may be left out
    (``"F F [F [F]]"``). The shared checks of :meth:`Game.apply` refuse a line whose number
    of arguments fits no form; the game reads the words themselves.

    >>> Verb(("F F [F [F]]",)).counts, Verb(("ACTION", "repair pit")).counts, Verb().counts
    (frozenset({2, 3, 4}), frozenset({1, 2}), frozenset({0}))
    """

    forms: tuple[str, ...] = ("",)
    by: By = PLAYER

    @cached_property
    def counts(self) -> frozenset[int]:
        """The numbers of arguments the forms allow."""
        out: set[int] = set()
        for form in self.forms:
            words = form.split()
            required = sum(1 for word in words if not word.startswith("["))
            out.update(range(required, len(words) + 1))
        return frozenset(out)

    def usage(self, actor: str, verb: str) -> str:
        """How to write the line: ``write it as 'Ann do ACTION' or 'Ann do repair pit'``."""
        shapes = " or ".join(f"'{actor} {verb}{(' ' + form) if form else ''}'" for form in self.forms)
        return f"write it as {shapes}"


# --- Prompts: what the engine needs next, as data the generic widgets can answer ---


@valueclass
class Choice:
    """One ready-made answer: a label for the screen and the line it logs."""

    label: str
    line: Line
    hint: str = ""
    #: Why the rules refuse this line now, "" when they do not: the screen still lists it,
    #: struck through, and says why when it is picked (a drift with no forward move since
    #: the last one), instead of leaving it out without a word. As :attr:`Form.refusal`.
    refusal: str = ""


@valueclass
class Roll:
    """Dice to roll (by the device or at the table) for one line.

    The faces are appended to ``prefix`` in die order. ``labels`` names each die on screen
    (``("Ann", "Bob")``, ``("d20",)``). ``chance`` is a short line shown before rolling.
    """

    actor: str
    verb: str
    sides: tuple[int, ...]
    labels: tuple[str, ...]
    prefix: tuple[str, ...] = ()
    label: str = "Roll"
    chance: str = ""
    #: Faces the rules refuse are rolled again by the device (a leaf that may not land
    #: there) instead of being reported as an error.
    reroll_refused: bool = False
    #: Faces with names: face ``i`` is written (and shown) as ``names[i - 1]``. A fair
    #: random pick among named things, such as squares, is a roll of such a die.
    names: tuple[str, ...] = ()
    #: How the screen offers the two ways to answer.
    by_device: str = "Roll for me"
    by_hand: str = "Enter faces"
    #: Faces that name squares are typed in on this board, not as numbers: its legal lines
    #: are the roll's lines the rules accept (a leaf's column and row are where it fell).
    board: Grid | None = None

    def line(self, faces: tuple[int, ...]) -> Line:
        """The record line that these faces make.

        >>> Roll("table", "grues", (4, 4), ("K1", "K2"), names=("a1", "b1", "c1", "d1")).line((2, 4))
        Line(actor='table', verb='grues', args=('b1', 'd1'))
        """
        words = tuple(self.names[f - 1] if self.names else str(f) for f in faces)
        return Line(self.actor, self.verb, self.prefix + words)


@valueclass
class Field:
    """One part of a multi-part answer, picked from ``low..high``.

    With ``names``, value ``low + i`` stands for ``names[i]`` (a square, a colour), which
    is what the screen shows and the line writes.
    """

    label: str
    low: int
    high: int
    default: int | None = None
    names: tuple[str, ...] = ()

    def word(self, value: int) -> str:
        """The record word for a value."""
        return self.names[value - self.low] if self.names else str(value)


@valueclass
class Form:
    """A line built from several numbers, asked one at a time (``place K L G``)."""

    label: str
    actor: str
    verb: str
    fields: tuple[Field, ...]
    prefix: tuple[str, ...] = ()
    #: Why the rules refuse every line of this form now, "" when they do not: the screen
    #: still lists it, struck through (its place in a list means something: a full circle
    #: that came too late), and says why when it is picked, instead of asking its numbers.
    refusal: str = ""
    #: A few words shown beside it ("late").
    hint: str = ""

    def line(self, values: tuple[int, ...]) -> Line:
        """The record line that these values make."""
        words = tuple(f.word(v) for f, v in zip(self.fields, values))
        return Line(self.actor, self.verb, self.prefix + words)


#: How a board square is written in the record: ``cr``, as two numbers ``C R``; ``alg``, as
#: ``a1`` (column letter, row number).
Spelling = Literal["cr", "alg"]


@valueclass
class Grid:
    """Squares picked with a cursor on the board picture: a destination, or a stack and where
    it goes (``steps`` squares make one line).

    Columns and rows count from 1, rows bottom to top. ``spell`` says how a square is written
    in the record (:data:`Spelling`); a grid whose columns and rows are things (a card's
    terrain and value) names them in ``columns`` and ``row_words`` instead, a square written
    as its column's word then its row's. ``legal`` are the
    lines the rules allow now: the screen marks their squares, and a square off that list
    is still sent to the rules, which refuse it with their reason ("costs 5, you have 3").
    The first square of a line of several has no line of its own to send: ``refusals`` are
    the rules' reasons for squares no legal line starts on, said as soon as one is picked.
    """

    label: str
    actor: str
    verb: str
    cols: int
    rows: int
    legal: tuple[Line, ...]
    steps: int = 1
    spell: Spelling = "cr"
    prefix: tuple[str, ...] = ()
    start: tuple[int, int] = (1, 1)
    #: A few words about some squares, shown while the cursor is on one before it is
    #: confirmed: what it costs, a danger ("leaf!"); a newline starts a new line.
    notes: tuple[tuple[tuple[int, int], str], ...] = ()
    #: Why no legal line starts on some squares ("a4 holds no stack you control"), for a
    #: grid of several steps.
    refusals: tuple[tuple[tuple[int, int], str], ...] = ()
    #: The record words of the columns and of the rows (bottom first), for a grid of things.
    columns: tuple[str, ...] = ()
    row_words: tuple[str, ...] = ()

    def name(self, square: tuple[int, int]) -> str:
        """A square as the screen names it.

        >>> Grid("", "Ann", "move", 6, 6, ()).name((3, 2))
        'c3 r2'
        >>> Grid("", "Ann", "move", 4, 4, (), spell="alg").name((2, 3))
        'b3'
        >>> Grid("", "Ann", "play", 2, 2, (), columns=("water", "swamp"), row_words=("4", "0")).name((1, 2))
        'water 0'
        """
        if self.spell == "alg":
            return self.words(square)[0]
        if self.columns:
            return " ".join(self.words(square))
        return f"c{square[0]} r{square[1]}"

    def note(self, square: tuple[int, int]) -> str:
        """The note for a square, "" if it has none."""
        return next((words for at, words in self.notes if at == square), "")

    def refusal(self, square: tuple[int, int]) -> str:
        """Why no legal line starts on ``square``, in the rules' words (or plain ones when
        the game gave none); "" when one does.

        >>> grid = Grid("", "Ann", "move", 4, 4, (Line("Ann", "move", ("a1", "a2")),), steps=2, spell="alg")
        >>> grid.refusal((1, 1)), grid.refusal((3, 3))
        ('', 'no move starts on c3')
        """
        if square in self.marked(()):
            return ""
        given = next((words for at, words in self.refusals if at == square), "")
        return given or f"no {self.verb} starts on {self.name(square)}"

    def words(self, square: tuple[int, int]) -> tuple[str, ...]:
        """A square as record words.

        >>> Grid("", "Ann", "move", 4, 4, (), spell="alg").words((2, 3))
        ('b3',)
        """
        col, row = square
        if self.columns:
            return (self.columns[col - 1], self.row_words[row - 1])
        if self.spell == "alg":
            return (f"{'abcdefghij'[col - 1]}{row}",)
        return (str(col), str(row))

    def line(self, squares: tuple[tuple[int, int], ...]) -> Line:
        """The record line for the picked squares."""
        words = tuple(word for square in squares for word in self.words(square))
        return Line(self.actor, self.verb, self.prefix + words)

    def marked(self, picked: tuple[tuple[int, int], ...]) -> frozenset[tuple[int, int]]:
        """The squares that can come next after ``picked``, from the legal lines."""
        size = len(self.words((1, 1)))
        done = tuple(word for square in picked for word in self.words(square))
        # Words to square once, not a scan of the grid per legal line: a board press
        # with many legal lines was the slowest press in the bench.
        squares = {self.words((c, r)): (c, r)
                   for c in range(1, self.cols + 1) for r in range(1, self.rows + 1)}
        out = set()
        for line in self.legal:
            args = line.args[len(self.prefix):]
            if args[:len(done)] != done or len(args) < len(done) + size:
                continue
            square = squares.get(args[len(done):len(done) + size])
            if square is not None:
                out.add(square)
        return frozenset(out)


Answer = Choice | Roll | Form | Grid


def usable(answers: Iterable[Answer]) -> tuple[Answer, ...]:
    """The answers that can be logged now: not those listed only to say why not.

    >>> drift = Choice("drift-left", Line("Ann", "do", ("drift-left",)), refusal="no forward move yet")
    >>> usable((Choice("pass", Line("Ann", "pass")), drift))
    (Choice(label='pass', line=Line(actor='Ann', verb='pass', args=()), hint='', refusal=''),)
    """
    return tuple(a for a in answers if not (isinstance(a, (Choice, Form)) and a.refusal))


@valueclass
class Prompt:
    """The pending decision: who decides, the question, and the ways to answer it.

    ``answers`` are the required line's possible forms; ``extras`` are lines that are
    allowed now but not required (a privilege, a hazard, a lap), the likeliest first. Either
    may list a line the rules refuse now, with its ``refusal`` (:func:`usable` leaves those
    out), where a player would look for it. ``topic`` names the rules page that explains
    this step. A game that is over has no ``answers``; it may still
    offer ``extras`` that its rules accept after the end (a last full circle).
    """

    actor: str
    question: str
    answers: tuple[Answer, ...]
    extras: tuple[Answer, ...] = ()
    topic: str = ""
    #: The answer the rules make likeliest (an index into ``answers``): the screens start on
    #: it, so the usual answer is one press.
    likely: int = 0


# --- The game contract ---


@valueclass
class Outcome:
    """How a game ended, as python-chess's ``Outcome``: why, and who won.

    ``termination`` is a member of the game's own ``Termination`` enum, whose value says the
    ending in a few words ("every square is blue"); ``winners`` are in seat order, empty when
    nobody wins.

    >>> class Termination(StrEnum):
    ...     FINISH = "all lemmings across"
    >>> Outcome(Termination.FINISH, ("Ann",)).headline()
    'Ann wins!'
    >>> Outcome(Termination.FINISH).headline()
    'All lemmings across!'
    """

    termination: StrEnum
    winners: tuple[str, ...] = ()

    def headline(self) -> str:
        """The end screen's words: the winners, or how it ended when nobody won."""
        if self.winners:
            return " & ".join(self.winners) + (" wins!" if len(self.winners) == 1 else " win!")
        return self.termination.value[:1].upper() + self.termination.value[1:] + "!"


class Summary(TypedDict):
    """The keys every summary has (records.md); each game's details add their own."""

    game: str
    players: list[str]
    over: bool
    winners: list[str]
    next: str | None


@valueclass
class OptionSpec:
    """A game option: its default record value and a parser that refuses bad values."""

    default: str
    parse: Callable[[str], Any]
    help: str = ""
    choices: tuple[str, ...] = ()
    #: What a value is made of, where it is not one of a few ``choices``: how the box asks it.
    ask: NameList | Multiset | None = None


@valueclass
class NameList:
    """An option whose value is ``count`` different names, comma-separated, each one a
    player's name would be (Penguin Panic's colours): ``noun`` is what one of them names;
    ``suggestions`` the likely ones, offered before a name is typed."""

    count: int
    noun: str
    suggestions: tuple[str, ...] = ()


@valueclass
class Multiset:
    """An option whose value is whole numbers of ``low..high``, any number of each,
    comma-separated (Quick Lemmings' deck): asked as how many ``noun`` of each number
    ``per`` ("a terrain": what the numbers make up)."""

    low: int
    high: int
    noun: str
    per: str = ""


#: :attr:`Game.starter` of a game whose first seat starts: the players line is the turn
#: order, so picking who starts turns the seats round to them.
FIRST_SEAT = "first seat"


#: A game's state (each engine's own value class).
S = TypeVar("S")
#: A game's whole summary, as its screens read it: the :class:`Summary` keys every game has
#: and its own details (``LeafSummary``, a ``TypedDict`` of both).
SummaryT = TypeVar("SummaryT", bound=Summary)


class Game(ABC, Generic[S, SummaryT]):
    """The rules of one game, generic in its state and its summary (``Game[State,
    LeafSummary]``), so that the types of a game reach its session and its screens.
    Subclasses hold no mutable state of their own."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: The table the rules are written for, where they name one (0: none, the fewest).
    usual_players: ClassVar[int] = 0
    options: ClassVar[Mapping[str, OptionSpec]] = {}
    #: Whether the rules want the seats shuffled at setup.
    random_seats: ClassVar[bool] = False
    #: Where the rules tell the table to pick who starts: the option that names that player,
    #: or :data:`FIRST_SEAT`; "" where the rules pick (a roll, the shuffled seats).
    starter: ClassVar[str] = ""
    #: The verbs of the game's action lines, in the order a refusal lists them.
    verbs: ClassVar[Mapping[str, Verb]] = {}
    #: Rules pages in our own words, by topic; "" is the overview.
    pages: ClassVar[Mapping[str, str]] = {}

    @abstractmethod
    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> S:
        """The state before the first action line. ``options`` are parsed values."""

    def apply(self, state: S, line: Line) -> S:
        """The state after ``line``, or :class:`IllegalLine` with a reason.

        The checks every game shares are made here, once and in this order: the game is
        over (:class:`GameOver`, unless :meth:`after_end` accepts the line); the verb is not
        one of :attr:`verbs` (:class:`UnknownVerb`); the table writes a player's verb, a
        player the table's, or the actor is not in the game (:class:`NotYourTurn`); the
        number of arguments fits none of the verb's forms (:class:`BadArguments`). Then the
        game's own :meth:`play` decides whose turn it is and what the words mean.
        """
        outcome = self.outcome(state)
        if outcome is not None and not self.after_end(state, line):
            raise GameOver(f"the game is over: {outcome.termination}")
        verb = self.verbs.get(line.verb)
        if verb is None:
            raise UnknownVerb(f"{shown(line.verb)} is not a {self.title} action "
                              f"({', '.join(self.verbs)})")
        if line.actor == TABLE:
            if verb.by == PLAYER:
                raise NotYourTurn(f"'{line.verb}' belongs to a player, not the table")
        elif verb.by == TABLE_ONLY:
            raise NotYourTurn(f"'{line.verb}' is the table's line: {verb.usage(TABLE, line.verb)}")
        elif line.actor not in self.seats(state):
            raise NotYourTurn(f"{shown(line.actor)} is not playing")
        if len(line.args) not in verb.counts:
            raise BadArguments(verb.usage(line.actor, line.verb))
        return self.play(state, line)

    @abstractmethod
    def play(self, state: S, line: Line) -> S:
        """:meth:`apply` after the shared checks: the game's own rules for ``line``."""

    @abstractmethod
    def seats(self, state: S) -> tuple[str, ...]:
        """The players' names in seat order."""

    def after_end(self, state: S, line: Line) -> bool:
        """Whether the rules accept ``line`` although the game is over (a last full circle)."""
        return False

    @abstractmethod
    def prompt(self, state: S) -> Prompt | None:
        """What is needed next. When the game is over: ``None``, or a prompt with no
        answers whose extras are the lines still accepted after the end."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """How the game ended, ``None`` while it goes on."""

    def over(self, state: S) -> bool:
        """Whether the game has ended (python-chess's ``is_game_over``)."""
        return self.outcome(state) is not None

    @abstractmethod
    def details(self, state: S) -> Mapping[str, object]:
        """The game's own summary keys (records.md): each game returns its own
        ``TypedDict``, so a misspelt key is a type error where it is written and read."""

    def next_actor(self, state: S) -> str | None:
        """The actor of the next required line, ``None`` when over."""
        ask = self.prompt(state)
        return ask.actor if ask is not None and ask.answers else None

    def preview(self, state: S, line: Line) -> str:
        """What a legal ``line`` will do, in a sentence the player confirms before it is
        logged ("6 linked - 1 coloured - 4 ability = 1 fish"); "" logs it at once."""
        return ""

    def option_values(self, given: Mapping[str, str]) -> dict[str, Any]:
        """Every option parsed, defaults filled in."""
        return {key: spec.parse(given.get(key, spec.default)) for key, spec in self.options.items()}
