"""Type a game record into the companion through its screens, press by press.

The driver knows nothing of any game: it reads what the screens offer (menu items, and the
prompt answer each one enters) and presses up, down and select as a player with a joystick
would. The benchmark uses it to play checked-in records through the real loop, and tests
use it to prove that every line of a record can be entered on the box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.ai import advisor
from companion.exc import DriverError
from companion.games.base import Choice, Field, Form, Grid, Line, Roll, Summary
from companion.intents import Intent
from companion.record import Header
from companion.ui.app import App
from companion.ui.board import BoardScreen
from companion.ui.games import screen_title
from companion.ui.play import PlayScreen
from companion.ui.widgets import Item, Menu, Numbers, Page, Preview


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

    def choose_answer(self, answer: object) -> None:
        """Move the top menu's cursor to the item that enters ``answer`` and select it."""
        menu = self.app.top
        if not isinstance(menu, Menu):
            raise DriverError(f"no menu on screen to choose {answer!r} from")
        answers = [item.answer for item in menu.items]
        if answer not in answers:
            raise DriverError(f"{menu.title!r} offers no {answer!r}")
        self._straight(answers.index(answer) - menu.cursor)

    def new_game(self, header: Header) -> None:
        """From the home screen, set up the game the header describes."""
        game = header.game
        self.choose("New game")
        self.choose(screen_title(game.id))
        if game.min_players != game.max_players:
            self.choose(f"{len(header.players)} players")
        for name in header.players:
            self.choose(name)
        given = dict(header.options)
        for key, spec in game.options.items():
            if spec.choices:
                self.choose_answer(given.get(key, spec.default))
        if advisor(game.id) is not None:
            self.choose("Nobody")  # the companion plays no seat
        if game.random_seats:
            self.choose("As entered")

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
        """Enter one record line on the play screen (a message too long for it, on a page
        of its own, is read first: select closes it)."""
        while isinstance(self.app.top, Page) and len(self.app.stack) > 2:
            self.press(Intent("select"))
        screen = self.app.top
        if not isinstance(screen, PlayScreen):
            raise DriverError(f"not on the play screen for {line}")
        items = screen.items()
        index, answer = self._find(items, line)
        self._select(index, screen.cursor, len(items))
        if isinstance(answer, Roll):
            fields = [Field(label, 1, sides, names=answer.names)
                      for label, sides in zip(answer.labels, answer.sides)]
            values = tuple(_value(f, word) for f, word in zip(fields, line.args[len(answer.prefix):]))
            self._numbers(fields, values)
        elif isinstance(answer, Form):
            words = line.args[len(answer.prefix):]
            self._numbers(answer.fields, tuple(_value(f, w) for f, w in zip(answer.fields, words)))
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
            answer = item.answer
            if (isinstance(answer, (Roll, Form, Grid)) and (answer.actor, answer.verb) == (line.actor, line.verb)
                    and line.args[:len(answer.prefix)] == answer.prefix):
                return index, answer
        raise DriverError(f"the play screen offers no way to enter {line}")

    def _walk(self, forward: str, back: str, distance: int, span: int) -> None:
        """Go ``distance`` steps forward round a ring of ``span``, the shorter way, and select."""
        distance %= span
        kind, times = (forward, distance) if distance <= span - distance else (back, span - distance)
        for _ in range(times):
            self.press(Intent(kind))
        self.press(Intent("select"))

    def _straight(self, distance: int) -> None:
        """Go ``distance`` steps down a list that stops at its ends (a menu), and select."""
        for _ in range(abs(distance)):
            self.press(Intent("down" if distance > 0 else "up"))
        self.press(Intent("select"))

    def _select(self, index: int, cursor: int, count: int) -> None:
        self._walk("down", "up", index - cursor, count)

    def _numbers(self, fields: Sequence[Field], values: tuple[int, ...]) -> None:
        for field, value in zip(fields, values):
            screen = self.app.top
            if not isinstance(screen, Numbers):
                raise DriverError("no number entry on screen")
            self._walk("up", "down", value - screen.values[screen.at], field.high - field.low + 1)

    def _squares(self, grid: Grid, line: Line) -> None:
        words = line.args[len(grid.prefix):]
        size = len(grid.words((1, 1)))
        for start in range(0, len(words), size):
            target = next((c, r) for c in range(1, grid.cols + 1) for r in range(1, grid.rows + 1)
                          if grid.words((c, r)) == words[start:start + size])
            screen = self.app.top
            if not isinstance(screen, BoardScreen):
                raise DriverError("no board on screen")
            for kind in _path(screen, target):
                self.press(Intent(kind))
            self.press(Intent("select"))


def _path(board: BoardScreen[Summary], target: tuple[int, int]) -> list[str]:
    """The fewest joystick moves that bring the board's cursor to ``target`` (breadth
    first over the board's own moves, so it follows however the cursor wraps)."""
    paths: dict[tuple[int, int], list[str]] = {board.cursor: []}
    frontier = [board.cursor]
    while target not in paths:
        nxt = []
        for square in frontier:
            for kind in ("up", "down", "left", "right"):
                there = board.moved(square, kind)
                if there not in paths:
                    paths[there] = [*paths[square], kind]
                    nxt.append(there)
        frontier = nxt
    return paths[target]


def _value(field: Field, word: str) -> int:
    """The number a form field needs for a record word."""
    return field.low + field.names.index(word) if field.names else int(word)
