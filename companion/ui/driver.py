"""Type a game record into the companion through its screens, press by press.

The driver knows nothing of any game: it reads what the screens offer (menu items, and the
prompt answer each one enters) and presses up, down and select as a player with a joystick
would. The benchmark uses it to play checked-in records through the real loop, and tests
use it to prove that every line of a record can be entered on the box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from companion.exc import DriverError
from companion.games.base import Choice, Field, Form, Grid, Line, Roll, Summary
from companion.intents import ARROWS, Arrow, Intent, Kind
from companion.record import Header
from companion.ui.app import App
from companion.ui.board import BoardScreen, plain_board
from companion.ui.games import screen_title
from companion.ui.names import DONE, Cursor, NameEditor, moved
from companion.ui.play import PlayScreen
from companion.ui.setup import AS_ENTERED, COMPANION, SEATS, START, Count, CountsEntry, Seat, Setting, Slot, Value
from companion.ui.widgets import Item, Menu, Numbers, Page, Preview, stride

T = TypeVar("T")


class Driver:
    """Presses intents into a running app (through ``press``, e.g. the daemon's queue)."""

    def __init__(self, app: App, press: Callable[[Intent], None]) -> None:
        self.app = app
        self.press = press

    # --- menus ---

    def choose(self, label: str) -> None:
        """Move the top menu's cursor to the item with this label and select it."""
        menu = self.app.top
        if not isinstance(menu, Menu):
            raise DriverError(f"no menu on screen to choose {label!r} from")
        items = list(menu.items)
        labels = [item.label for item in items]
        if label not in labels:
            raise DriverError(f"{menu.title!r} offers no {label!r} (it has {labels})")
        self._straight(labels.index(label) - menu.cursor)

    def answer(self, wanted: object, what: str = "") -> bool:
        """Choose the top menu's first line whose answer is ``wanted`` (or passes it, a
        function); False when there is none."""
        menu = self.app.top
        if not isinstance(menu, Menu):
            raise DriverError(f"no menu on screen for {what or wanted}")
        passes = wanted if callable(wanted) else wanted.__eq__
        found = [index for index, item in enumerate(menu.items) if passes(item.answer) is True]
        if found:
            self._straight(found[0] - menu.cursor)
        return bool(found)

    def new_game(self, header: Header[Any, Any], companion: str = "") -> None:
        """From the home screen, set up the game the header describes: any header the
        records contract allows, names the lists do not hold typed, every option set, the
        seats as entered, and the companion playing the seat ``companion`` names (if it
        can). :class:`DriverError` for one the box refuses, as replay would."""
        self.choose("New game")
        self.choose(screen_title(header.game.id))
        count = len(header.players)
        if self._answers(Count) and not self.answer(Count(count)):
            raise DriverError(f"the box offers no game of {count} players")
        for seat, name in enumerate(header.players, 1):
            if not self.answer(Seat(seat, name)):
                self.answer(Seat(seat, ""))
                self.type_name(name)
        wanted = Wanted(header, companion)
        for key in [a.key for a in self._answers(Setting) if a != START]:
            if not wanted.same(key, self._setting(key).value):
                self._set(key, wanted)
        self.answer(START)
        if not isinstance(self.app.top, PlayScreen):
            raise DriverError(f"the game did not start: {self._refusal()}")

    def type_name(self, name: str) -> None:
        """Type ``name`` on the name editor, and Done."""
        for key in (*name, DONE):
            editor = self.app.top
            if not isinstance(editor, NameEditor):
                raise DriverError(f"no name editor on screen for {name!r}")
            for kind in _keys_to(editor.cursor, key):
                self.press(Intent(kind))
            self.press(Intent("select"))
        if isinstance(self.app.top, NameEditor):
            raise DriverError(f"{name!r} refused: {self.app.top.message}")

    def _refusal(self) -> str:
        """What the screen on top says against the last press: its message, or its page."""
        top = self.app.top
        return " ".join(top.lines) if isinstance(top, Page) else top.message

    def _answers(self, kind: type[T]) -> list[T]:
        top = self.app.top
        return [item.answer for item in top.items if isinstance(item.answer, kind)] if isinstance(top, Menu) else []

    def _setting(self, key: str) -> Setting:
        found = [a for a in self._answers(Setting) if a.key == key]
        if not found:
            raise DriverError(f"the set-up offers no {key}")
        return found[0]

    def _set(self, key: str, wanted: Wanted) -> None:
        """Change one line of the set-up list to the header's value."""
        value = wanted.value(key)
        for _ in range(MOST_TURNS):
            self.answer(self._setting(key))
            top = self.app.top
            if isinstance(top, CountsEntry):
                try:
                    numbers = [int(word) for word in value.split(",")] if value else []
                except ValueError:
                    raise DriverError(f"{key} {value} is not numbers") from None
                self._numbers(top.numbers, tuple(numbers.count(n) for n in range(top.ask.low, top.ask.high + 1)))
                if isinstance(self.app.top, CountsEntry):
                    raise DriverError(f"{key} {value} refused: {self.app.top.message}")
            elif self._answers(Slot):
                self._set_names(key, value.split(","))
            elif self._answers(Value) and not self.answer(
                    lambda a: isinstance(a, Value) and wanted.same(key, a.value)):
                raise DriverError(f"the box offers no {key} {value}")
            if wanted.same(key, self._setting(key).value):
                return
        raise DriverError(f"the set-up cannot make {key} {value}")

    def _set_names(self, key: str, names: list[str]) -> None:
        for slot in self._answers(Slot):
            if slot.index >= 0 and slot.value != names[slot.index]:
                self.answer(slot)
                if not self.answer(Value(key, names[slot.index])):
                    self.answer(Value(key, ""))
                    self.type_name(names[slot.index])
        self.answer(next(slot for slot in self._answers(Slot) if slot.index == -1))
        if isinstance(self.app.top, Page):
            raise DriverError(f"{key} {','.join(names)} refused: {self._refusal()}")

    def leave_game(self) -> None:
        """Back out of whatever is open to the play screen, then leave through the game menu."""
        while not isinstance(self.app.top, PlayScreen) and len(self.app.stack) > 1:
            self.press(Intent("back"))
        screen = self.app.top
        if isinstance(screen, PlayScreen):
            items = [item.label for item in screen.items()]
            if "Leave" in items:  # a finished game's own list
                self._select(items.index("Leave"), screen.cursor, len(items))
                return
            self.press(Intent("context"))
            self.choose("Leave game")

    # --- the play screen ---

    def line(self, line: Line) -> None:
        """Enter one record line: on the entry already open for it (the box goes straight
        on to the next leaf), else from the play screen (a message too long for it, on a
        page of its own, is read first: select closes it). :class:`DriverError`, in the
        box's words, when the box did not log it (it refused it)."""
        session = self.app.session
        if session is None:
            raise DriverError(f"no game open for {line}")
        head = session.head
        self._type(line)
        entry = session.entry(session.head) if session.head != head else None
        if entry is None or entry.lines[-1:] != (str(line),):
            logged = f"the box logged {entry.lines[-1]}" if entry else "the box logged nothing"
            raise DriverError(f"{line} not logged: {self._refusal() or logged}")

    def _type(self, line: Line) -> None:
        """The presses that enter ``line``."""
        while isinstance(self.app.top, Page) and len(self.app.stack) > 2:
            self.press(Intent("select"))
        screen = self.app.top
        if isinstance(screen, (BoardScreen, Numbers)) and _enters(screen.answer, line):
            self._enter(screen.answer, line)
            return
        while not isinstance(screen, PlayScreen) and len(self.app.stack) > 1:
            self.press(Intent("back"))
            screen = self.app.top
        if not isinstance(screen, PlayScreen):
            raise DriverError(f"not on the play screen for {line}")
        items = screen.items()
        index, answer = self._find(items, line)
        self._turn("down", "up", index - screen.cursor, len(items))
        # Select takes the answer; one made on a screen of its own is opened by the first
        # right or left it needs there as well.
        self.press(Intent(self._opening(screen, answer, line)))
        self._enter(answer, line)

    def _opening(self, play: PlayScreen[Any, Any], answer: object, line: Line) -> Kind:
        """The key that opens an answer's screen: right or left where the entry's first
        press there is one of them (the second number, a square along the row), else select."""
        grid = answer.board if isinstance(answer, Roll) else answer
        if isinstance(grid, Grid):
            probe: BoardScreen[Summary] = BoardScreen(grid, plain_board, play.session.summary,
                                                      lambda line: "", "")
            first = _path(probe, _squares_of(grid, line)[0])[:1]
            return first[0] if first and first[0] in ("left", "right") else "select"
        fields, values = _entry(answer, line)
        if not fields or not self.app.arrows:
            return "select"
        start = [f.default if f.default is not None else f.low for f in fields]
        if len(fields) == 1:  # right and left stride the lone number
            first = _dial(start[0] - fields[0].low, values[0] - fields[0].low, _span(fields[0]),
                          stride(fields[0]))[:1]
            return first[0] if first and first[0] in ("left", "right") else "select"
        if isinstance(answer, Roll) and not answer.names:  # dice carry the face before
            start[1] = start[0]
        distance = (values[1] - start[1]) % _span(fields[1])
        if not distance:
            return "select"
        return "right" if distance <= _span(fields[1]) - distance else "left"

    def _enter(self, answer: object, line: Line) -> None:
        """Type ``line`` on the screen that ``answer`` opened (nothing for a choice)."""
        if isinstance(answer, Roll) and answer.board is not None:
            self._squares(answer.board, line)
        elif isinstance(answer, (Roll, Form)):
            self._numbers(*_entry(answer, line))
        elif isinstance(answer, Grid):
            self._squares(answer, line)
        while isinstance(self.app.top, Preview):  # "this will give 1 fish": yes, log it
            self.press(Intent("select"))

    def _find(self, items: Sequence[Item], line: Line) -> tuple[int, object]:
        for index, item in enumerate(items):
            answer = item.answer
            if isinstance(answer, Choice) and answer.line == line:
                return index, answer
        for index, item in enumerate(items):
            if _enters(item.answer, line):
                return index, item.answer
        raise DriverError(f"the play screen offers no way to enter {line}")

    def _walk(self, forward: Kind, back: Kind, distance: int, span: int) -> None:
        """Go ``distance`` steps forward round a ring of ``span``, the shorter way, and select."""
        self._turn(forward, back, distance, span)
        self.press(Intent("select"))

    def _turn(self, forward: Kind, back: Kind, distance: int, span: int) -> None:
        """Go ``distance`` steps forward round a ring of ``span``, the shorter way."""
        distance %= span
        kind, times = (forward, distance) if distance <= span - distance else (back, span - distance)
        for _ in range(times):
            self.press(Intent(kind))

    def _straight(self, distance: int) -> None:
        """Go ``distance`` steps down a list that stops at its ends (a menu), and select."""
        for _ in range(abs(distance)):
            self.press(Intent("down" if distance > 0 else "up"))
        self.press(Intent("select"))

    def _select(self, index: int, cursor: int, count: int) -> None:
        self._walk("down", "up", index - cursor, count)

    def _numbers(self, fields: Sequence[Field], values: tuple[int, ...]) -> None:
        """The numbers as the screen takes them: the lit one with up and down, the outlined
        one after it (if any) with right and left, then select."""
        screen = self.app.top
        if not isinstance(screen, Numbers):
            raise DriverError("no number entry on screen")
        for field, value in zip(fields, values):
            if not field.low <= value <= field.high:  # walking round would enter another number
                raise DriverError(f"{field.label} takes {field.low}-{field.high} on the box, not {value}")
        while self.app.top is screen and screen.at < len(values):
            at = screen.at
            after = screen.following
            if after is None and screen.pairs:  # up and down by one, right and left by strides
                for kind in _dial(screen.values[at] - fields[at].low, values[at] - fields[at].low,
                                  _span(fields[at]), screen.stride()):
                    self.press(Intent(kind))
            else:
                self._turn("up", "down", values[at] - screen.values[at], _span(fields[at]))
            if after is not None:
                self._turn("right", "left", values[after] - screen.values[after], _span(fields[after]))
            self.press(Intent("select"))

    def _squares(self, grid: Grid, line: Line) -> None:
        for target in _squares_of(grid, line):
            screen = self.app.top
            if not isinstance(screen, BoardScreen):
                raise DriverError("no board on screen")
            for kind in _path(screen, target):
                self.press(Intent(kind))
            self.press(Intent("select"))


def _entry(answer: object, line: Line) -> tuple[Sequence[Field], tuple[int, ...]]:
    """The numbers an answer asks for (a roll's faces, a form's fields) and their values
    for ``line``."""
    if isinstance(answer, Roll):
        fields: Sequence[Field] = [Field(label, 1, sides, names=answer.names)
                                   for label, sides in zip(answer.labels, answer.sides)]
    elif isinstance(answer, Form):
        fields = answer.fields
    else:
        return (), ()
    words = line.args[len(answer.prefix):]
    return fields, tuple(_value(f, w) for f, w in zip(fields, words))


def _squares_of(grid: Grid, line: Line) -> list[tuple[int, int]]:
    """The squares a line picks on a board, in order."""
    words = line.args[len(grid.prefix):]
    size = len(grid.words((1, 1)))
    found = []
    for start in range(0, len(words), size):
        target = next(((c, r) for c in range(1, grid.cols + 1) for r in range(1, grid.rows + 1)
                       if grid.words((c, r)) == words[start:start + size]), None)
        if target is None:
            raise DriverError(f"the board has no square {' '.join(words[start:start + size])}")
        found.append(target)
    return found


def _enters(answer: object, line: Line) -> bool:
    """Whether an entry for ``answer`` (a roll's faces, a form, squares) makes ``line``."""
    if not isinstance(answer, (Roll, Form, Grid)):
        return False
    return (answer.actor, answer.verb) == (line.actor, line.verb) and line.args[:len(answer.prefix)] == answer.prefix


def _path(board: BoardScreen[Summary], target: tuple[int, int]) -> list[Arrow]:
    """The fewest joystick moves that bring the board's cursor to ``target`` (breadth
    first over the board's own moves, so it follows however the cursor wraps)."""
    paths: dict[tuple[int, int], list[Arrow]] = {board.cursor: []}
    frontier = [board.cursor]
    while target not in paths:
        if not frontier:  # up and down stop only on the squares the rules allow next
            raise DriverError(f"the cursor cannot reach {board.grid.name(target)}")
        nxt = []
        for square in frontier:
            for kind in ARROWS:
                there = board.moved(square, kind)
                if there not in paths:
                    paths[there] = [*paths[square], kind]
                    nxt.append(there)
        frontier = nxt
    return paths[target]


def _dial(start: int, target: int, span: int, stride: int) -> list[Arrow]:
    """The fewest presses round a ring of ``span`` values from ``start`` to ``target``: up
    and down move one, right and left ``stride``; the long strides first."""
    paths: dict[int, list[Arrow]] = {start: []}
    frontier = [start]
    moves: tuple[tuple[Arrow, int], ...] = (("right", stride), ("left", -stride), ("up", 1), ("down", -1))
    while target not in paths:
        nxt = []
        for value in frontier:
            for kind, step in moves:
                there = (value + step) % span
                if there not in paths:
                    paths[there] = [*paths[value], kind]
                    nxt.append(there)
        frontier = nxt
    return paths[target]


def _span(field: Field) -> int:
    return field.high - field.low + 1


def _value(field: Field, word: str) -> int:
    """The number a form field needs for a record word."""
    if field.names and word not in field.names:
        raise DriverError(f"{field.label} is one of {', '.join(field.names)} on the box, not {word}")
    return field.low + field.names.index(word) if field.names else int(word)


def _keys_to(cursor: Cursor, key: str) -> list[Kind]:
    """The fewest up, down and select presses (the 3-button build's keys) that bring the
    name editor's cursor onto ``key``, breadth first over the editor's own moves."""
    paths: dict[Cursor, list[Kind]] = {cursor: []}
    frontier = [cursor]
    while frontier:
        nxt = []
        for at in frontier:
            if at.picking and at.key == key:
                return paths[at]
            for kind in EDITOR_KEYS:
                there = moved(at, kind)
                if there is not None and there not in paths:
                    paths[there] = [*paths[at], kind]
                    nxt.append(there)
        frontier = nxt
    raise DriverError(f"the name editor has no key {key!r}")


#: The 3-button build's keys, which type any name on the editor.
EDITOR_KEYS: tuple[Kind, ...] = ("up", "down", "select")
#: Presses of one line of the set-up list, at most, to bring it to a value (a line that
#: turns from one value to the next on each press).
MOST_TURNS = 10


class Wanted:
    """The set-up a header asks for, line by line of the set-up list."""

    def __init__(self, header: Header[Any, Any], companion: str = "") -> None:
        self.header = header
        self.options = dict(header.options)
        self.companion = companion

    def value(self, key: str) -> str:
        """The header's value for a line of the set-up list."""
        game = self.header.game
        if key in game.options:
            return self.options.get(key, game.options[key].default)
        if key == COMPANION:
            return self.companion
        return AS_ENTERED if key == SEATS else ""  # the first seat starts

    def same(self, key: str, value: str) -> bool:
        """Whether the list's ``value`` makes the game the header makes (options are
        compared as the game reads them: ``03`` laps are 3, and who starts may be the first
        seat by name)."""
        game, want = self.header.game, self.value(key)
        if key == game.starter:
            want, value = want or self.header.players[0], value or self.header.players[0]
        if key not in game.options:
            return value == want
        spec = game.options[key]
        try:
            wanted = spec.parse(want)
        except ValueError:  # an illegal value: the box is asked for it, and must refuse it
            return False
        return bool(spec.parse(value) == wanted)
