"""The play screen: whose turn, the key figures, one question, and the answer under the cursor.

It turns any game's :class:`~companion.games.base.Prompt` into menu lines with the generic
widgets: a ready answer is one press, dice are "roll for me" or "enter faces", a form is a
row of number entries. No game has input code of its own.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from typing import Any

from PIL import ImageDraw

from companion.dice import FAIR, device_roll
from companion.games.base import Answer, Choice, Field, Form, Grid, IllegalLine, Line, Roll
from companion.session import Session
from companion.ui.board import BoardScreen
from companion.ui.draw import BLACK, HEADER, HEIGHT, WHITE, WIDTH, arrows, header, label_and_hint, text
from companion.ui.figures import corner
from companion.ui.games import painter, panel
from companion.ui.intents import Intent
from companion.ui.widgets import Host, Item, Menu, Numbers, Page, Screen, confirm

PANEL = (0, HEADER + 1, WIDTH - 1, HEADER + 20)
QUESTION_BASELINE = 45
OPTION_TOP = 49


def describe(lines: list[str]) -> str:
    """A short account of an entry: ``Bob pick move-2``; dice as their faces."""
    return "; ".join(lines) if len(lines) <= 2 else f"{lines[0]} (+{len(lines) - 1} more)"


def rolled_faces(ask: Roll, line: Line) -> str:
    """``Ann 5, Bob 1``: each face beside its die's label, as the table would say it."""
    faces = line.args[len(ask.prefix):]
    if len(faces) != len(ask.labels):
        return " ".join(faces)
    return ", ".join(f"{label} {face}" for label, face in zip(ask.labels, faces))


class PlayScreen(Screen):
    """A game in progress. Its menu is rebuilt from the prompt after every change."""

    def __init__(self, session: Session, host: Host, rng: random.Random = FAIR,
                 leave: Callable[[], None] | None = None) -> None:
        self.session = session
        self.host = host
        self.rng = rng
        self.leave = leave or host.pop
        self.cursor = 0
        self.message = ""
        self._items: list[Item] | None = None

    # --- what the screen offers ---

    @property
    def title(self) -> str:  # type: ignore[override]
        return self.session.game.title

    def items(self) -> list[Item]:
        """The answers to the pending prompt, extras after them; the end menu when over."""
        if self._items is None:
            ask = self.session.prompt()
            if ask is None:
                self._items = [Item("Undo last entry", self.undo, "mis-logged?"),
                               Item("Summary", self.show_summary),
                               Item("Leave", self.leave)]
            else:
                self._items = [item for answer in ask.answers for item in self._answer(answer)]
                self._items += [item for answer in ask.extras for item in self._answer(answer, "+ ")]
            self.cursor = min(self.cursor, len(self._items) - 1)
        return self._items

    def _answer(self, answer: Answer, mark: str = "") -> list[Item]:
        if isinstance(answer, Choice):
            return [Item(mark + answer.label, lambda: self.play([answer.line]), answer.hint)]
        if isinstance(answer, Roll):
            out = []
            again = self.session.roll_again(answer)
            if again is not None:
                out.append(Item(f"{mark}Use {', '.join(again)} again", self.redo))
            out.append(Item(f"{mark}Roll for me", lambda: self.roll(answer), answer.chance))
            out.append(Item(f"{mark}Enter faces", lambda: self.enter_faces(answer), answer.chance))
            return out
        if isinstance(answer, Grid):
            return [Item(mark + answer.label, lambda: self.pick_squares(answer), "on the board")]
        return [Item(mark + answer.label, lambda: self.fill_form(answer))]

    # --- actions, each committed before the screen changes ---

    def changed(self, message: str = "") -> None:
        self._items = None
        self.cursor = 0
        self.message = message

    def guarded(self, act: Callable[[], Any]) -> bool:
        """Run a session change; a refusal or a storage failure becomes the message."""
        try:
            act()
        except IllegalLine as err:
            self.message = str(err)
            return False
        except sqlite3.Error as err:
            self.message = f"not saved ({err}); nothing changed"
            return False
        return True

    def play(self, lines: list[Line], rolled: bool = False, message: str = "") -> None:
        if self.guarded(lambda: self.session.play(lines, rolled)):
            self.changed(message)

    def roll(self, ask: Roll) -> None:
        try:
            lines = device_roll(self.session.game, self.session.state, ask, self.rng)
        except IllegalLine as err:
            self.message = str(err)
            return
        self.play(lines, rolled=True, message="; ".join(rolled_faces(ask, line) for line in lines))

    def enter_faces(self, ask: Roll, first_digit: int | None = None) -> None:
        numbers = [Field(label, 1, sides) for label, sides in zip(ask.labels, ask.sides)]
        self.host.push(Numbers("Faces: " + ask.label, numbers,
                               lambda faces: self.play([ask.line(faces)]), first_digit))

    def fill_form(self, form: Form) -> None:
        self.host.push(Numbers(form.label, form.fields, lambda values: self.play([form.line(values)])))

    def pick_squares(self, grid: Grid) -> None:
        ask = self.session.prompt()
        self.host.push(BoardScreen(grid, painter(self.session.game.id), self.session.summary,
                                   self.refusal_of, ask.question if ask else grid.label))

    def refusal_of(self, line: Line) -> str:
        """Play a line; "" when it was logged, else the reason it was refused."""
        self.play([line])
        refusal, self.message = self.message, ""
        return refusal

    def undo(self) -> None:
        entry = self.session.head
        if self.guarded(self.session.undo):
            undone = self.session.store.entry(self.session.gid, entry)
            self.changed("Undone: " + describe(list(undone.lines)) if undone else "")

    def redo(self) -> None:
        if self.guarded(self.session.redo):
            entry = self.session.store.entry(self.session.gid, self.session.head)
            self.changed("Redone: " + describe(list(entry.lines)) if entry else "")

    def show_summary(self) -> None:
        summary = self.session.summary()
        winners = ", ".join(summary["winners"]) or "nobody"
        body = f"Winners: {winners}.\n" if summary["over"] else f"Next: {summary['next']}.\n"
        body += "\n".join(f"{key}: {value}" for key, value in summary.items()
                          if key not in ("game", "players", "over", "winners", "next"))
        self.host.push(Page("Summary", body))

    def context_menu(self) -> Menu:
        """Long press: undo first, so it is never more than two presses away."""
        redo = self.session.redo_entry()
        ask = self.session.prompt()
        topic = ask.topic if ask else ""
        pages = self.session.game.pages

        def then(act: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                self.host.pop()
                act()
            return run

        items = [Item("Undo", then(self.undo), "start" if self.session.head == 0 else "")]
        if redo is not None:
            items.append(Item("Redo", then(self.redo), describe(list(redo.lines))[:12]))
        items.append(Item("Rules: this step", then(lambda: self.host.push(
            Page(self.session.game.title, pages.get(topic) or pages.get("", ""))))))
        items.append(Item("Summary", then(self.show_summary)))
        items.append(Item("Leave game", then(self.leave), "resume later"))
        items.append(Item("Abandon game", then(lambda: self.host.push(
            confirm("Abandon this game?", "Yes, abandon", self.abandon, self.host)))))
        return Menu("Game menu", items)

    def abandon(self) -> None:
        if self.guarded(self.session.abandon):
            self.leave()

    # --- drawing and input ---

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        summary = self.session.summary()
        ask = self.session.prompt()
        if ask is None:
            winners = summary["winners"]
            header(draw, "Game over", corner(summary))
            question = (" & ".join(winners) + (" wins!" if len(winners) == 1 else " win!")
                        if winners else "A draw: nobody wins")
        else:
            header(draw, ask.actor if ask.actor != "table" else "Table", corner(summary))
            question = ask.question
        panel(self.session.game.id)(draw, summary, PANEL)
        if self.message:
            draw.rectangle((0, QUESTION_BASELINE - 10, WIDTH - 1, QUESTION_BASELINE + 2), fill=WHITE)
            text(draw, (2, QUESTION_BASELINE), self.message, 11, BLACK)
        else:
            text(draw, (2, QUESTION_BASELINE), question, 11)
        items = self.items()
        if not items:
            return
        item = items[self.cursor]
        draw.line((0, OPTION_TOP, WIDTH - 1, OPTION_TOP), fill=WHITE)
        hint = item.hint or f"{self.cursor + 1}/{len(items)}"
        label_and_hint(draw, (9, 61), WIDTH - 1, item.label, hint, 12)
        arrows(draw, 0, OPTION_TOP + 2, HEIGHT - 1, self.cursor > 0, self.cursor < len(items) - 1)

    def on(self, intent: Intent, host: Host) -> None:
        kind = intent.kind
        items = self.items()
        self.message = ""
        if kind == "up" and items:
            self.cursor = (self.cursor - 1) % len(items)
        elif kind == "down" and items:
            self.cursor = (self.cursor + 1) % len(items)
        elif kind in ("select", "right") and items:
            items[self.cursor].run()
        elif kind in ("context", "back", "left"):
            host.push(self.context_menu())
        elif kind == "undo":
            self.undo()
        elif kind == "redo":
            self.redo()
        elif kind in ("roll", "digit"):
            self._dice_shortcut(intent)

    def _dice_shortcut(self, intent: Intent) -> None:
        """``r`` (or a shake) rolls, a digit starts typing faces, when dice are asked for."""
        ask = self.session.prompt()
        rolls = [a for a in (ask.answers if ask else ()) if isinstance(a, Roll)]
        if not rolls:
            self.message = "no dice are asked for now"
        elif intent.kind == "roll":
            self.roll(rolls[0])
        elif 1 <= intent.value <= 9:
            self.enter_faces(rolls[0], intent.value)
