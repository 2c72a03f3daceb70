"""The play screen: whose turn, the key figures, one question, and the answer under the cursor.

It turns any game's :class:`~companion.games.base.Prompt` into menu lines with the generic
widgets: a ready answer is one press, dice are "roll for me" or "enter faces", a form is a
row of number entries. No game has input code of its own.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Any, Generic

from PIL import ImageDraw

from companion import ai
from companion.dice import FAIR, rolled_faces
from companion.exc import Refusal
from companion.games import said_after
from companion.games.base import (
    TABLE,
    Answer,
    Choice,
    Field,
    Form,
    Grid,
    IllegalLine,
    Line,
    Prompt,
    Roll,
    S,
    SummaryT,
    usable,
)
from companion.games.frozen import replace
from companion.intents import Intent
from companion.record import describe
from companion.session import Session
from companion.ui.board import BoardScreen
from companion.ui.draw import (
    WHITE,
    WIDTH,
    Area,
    header,
    notice,
    notice_top,
)
from companion.ui.figures import Views
from companion.ui.games import screen_title, screens_of
from companion.ui.log import LogScreen
from companion.ui.reveal import Reveal, plain_picture, shown_lines
from companion.ui.rows import (
    NOTICE_AREA,
    PANEL,
    RULE,
    answer_fits,
    answer_row,
    fits_banner,
    question_line,
    result_banner,
)
from companion.ui.widgets import Host, Item, Menu, Numbers, Page, Preview, Screen, confirm

RESULT_SECONDS = 2.0  # an entry's result stays this long (or until the game changes again)


def result_line(events: Sequence[str]) -> str:
    """An entry's results, most important first, as many as the result banner holds: a
    result that ends a sentence ("Bob wins!") is followed by a new one, not a semicolon.

    >>> result_line(["Cat crushed at c4 r6", "Ann to c2 r1"])
    'Cat crushed at c4 r6; Ann to c2 r1'
    >>> result_line(["Bob wins!", "Cat crushed at c4 r6"])
    'Bob wins! Cat crushed at c4 r6'
    """
    shown = ""
    for event in events:
        trial = said_after(shown, event)
        if shown and not fits_banner(trial):
            break
        shown = trial
    return shown


#: A single die with this many faces or fewer has them listed on the play screen once the
#: table types its faces: a face is then one press, not "Enter faces" and then the face.
LISTED_FACES = 6


# A dice prompt's answers ask for its faces up to four times after each change (the
# cursor's start, the menu lines); the same roll asked again (every player's d4) has the
# same faces. Immutable, so kept.
@lru_cache(maxsize=32)
def listed_faces(ask: Roll) -> tuple[Choice, ...]:
    """A typed die's faces as answers, one press each; none for several dice, named faces
    (squares) or a die too large to scroll through (a d20 is typed on the faces screen).

    >>> [face.label for face in listed_faces(Roll("Ann", "roll", (4,), ("d4",)))]
    ['Rolled 1', 'Rolled 2', 'Rolled 3', 'Rolled 4']
    """
    if len(ask.sides) != 1 or ask.names or ask.sides[0] > LISTED_FACES:
        return ()
    return tuple(Choice(f"Rolled {face}", ask.line((face,)), ask.chance) for face in range(1, ask.sides[0] + 1))


def optional_verb(answer: Answer) -> str:
    """The verb of the line an answer logs."""
    return answer.line.verb if isinstance(answer, Choice) else answer.verb


def refused(item: Item) -> bool:
    """Whether a line of the answers is one the rules refuse now (listed to say why)."""
    return isinstance(item.answer, (Choice, Form)) and bool(item.answer.refusal)


def enters(item: Item) -> bool:
    """Whether an answer line opens a screen of its own to enter it on (faces to type, a
    form's numbers, squares on the board), where right and left mean something."""
    return isinstance(item.answer, (Roll, Form, Grid)) and not refused(item)


def middle_face(faces: Sequence[Choice]) -> Choice:
    """Where a listed die starts: no face is likelier than another, so on the middle one
    (the lower of two), from which every face is fewest presses away on average ("Roll
    for me" closes the ring between the last face and the first)."""
    return faces[(len(faces) - 1) // 2]


class PlayScreen(Screen, Generic[S, SummaryT]):
    """A game in progress. Its menu is rebuilt from the prompt after every change. Generic
    in the game's state and summary, as its session and its screens are."""

    notice_area: Area = NOTICE_AREA

    def __init__(self, session: Session[S, SummaryT], host: Host, rng: random.Random = FAIR,
                 leave: Callable[[], None] | None = None,
                 one_by_one: Callable[[], bool] = lambda: False,
                 pairs: Callable[[], bool] = lambda: True) -> None:
        """``one_by_one`` is the players' setting: show a roll of many dice a line at a time.
        ``pairs``: whether numbers are entered two at a time (the box has left and right keys)."""
        self.session = session
        self.screens = screens_of(session.game)
        self.host = host
        self.rng = rng
        self.leave = leave or host.pop
        self.one_by_one = one_by_one
        self.pairs = pairs
        self.opened: Screen | None = None  # the latest entry screen opened from here
        self.cursor = 0
        self.message = ""
        #: What the latest entry did, in words, for RESULT_SECONDS (presses meanwhile leave
        #: it: moving the cursor does not repaint it away; the next entry replaces it).
        self.result = ""
        self.result_until: float | None = None
        self._told: object = None  # the session's entry that ``result`` tells
        self._items: list[Item] | None = None
        self._optional = range(0)  # where the extras are among the items
        self.seats = ai.seats_of(session.stored_header())  # the companion plays
        self._advice: tuple[Any, ai.Advice | None] | None = None
        self._asked: tuple[Any, Prompt | None] | None = None  # the position and its prompt
        #: This table's way with dice: True once it types faces in, False once the
        #: companion rolls; the cursor starts on the same way next time.
        self.by_hand = False

    # --- what the screen offers ---

    @property
    def title(self) -> str:  # type: ignore[override]
        return self.session.game.title

    def items(self) -> list[Item]:
        """The answers to the pending prompt, the extras just above the one the cursor
        starts on (the likeliest nearest, so one press up); the end menu when over (any line
        the rules still accept after the end first, the cursor on it, else on the summary)."""
        if self._items is None:
            ask = self.prompt()
            self._optional = range(0)
            if ask is None or not ask.answers:
                extras = [item for answer in (ask.extras if ask else ()) for item in self._answer(answer, "+ ")]
                # Undo is in the game menu, as always: a cursor left on an undo line here
                # would let a later back and select take the last entry back.
                summary = Item("Summary", self.show_summary)
                self._items = [*extras, *self.view_items(lambda act: act), summary,
                               Item("Log", self.show_log, "every entry"),
                               Item("Leave", self.leave)]
                self.cursor = 0 if extras else self._items.index(summary)
            else:
                mine = self.companion_items(ask)  # first, and where the cursor starts
                required = [item for answer in ask.answers for item in self._answer(answer)]
                start = 0 if mine else self.likely(ask, required)
                required = mine + required
                # The answers keep their order round the ring; the extras go in just above
                # the answer the cursor starts on, the likeliest (the game lists it first)
                # nearest: one press up reaches it, the next two, and so on.
                above = [item for answer in reversed(ask.extras) for item in self._answer(answer, "+ ")]
                self._items = required[:start] + above + required[start:]
                self._optional = range(start, start + len(above))
                self.cursor = start + len(above)
            self.cursor = min(self.cursor, len(self._items) - 1)
        return self._items

    def likely(self, ask: Prompt, required: list[Item]) -> int:
        """Where the cursor starts among the required answers: on the one the rules make
        likeliest (the first, unless the game says which; a single answer: one press); but
        when dice are asked, and the game names no other answer likelier, on the same
        faces again after an undone device roll, else on the way this table rolled last
        time ("Roll for me" until it types faces in, then "Enter faces", or the middle face
        of a die whose faces are listed)."""
        named = ask.answers[ask.likely]
        if ask.likely and not isinstance(named, Roll):  # (placing after all sixes)
            return next((i for i, item in enumerate(required) if item.answer == named), 0)
        for index, item in enumerate(required):
            if isinstance(item.answer, Roll) and item.label == item.answer.by_hand:
                if self.by_hand:
                    return index
                # Before "Enter faces": "Roll for me", or "Use F again" and "Roll again".
                again = self.session.roll_again(item.answer) is not None
                return index - 2 if again else index - 1
        middles = [middle_face(listed_faces(a)) for a in ask.answers if isinstance(a, Roll) and listed_faces(a)]
        likeliest = middles[0] if middles else ask.answers[ask.likely]
        return next((i for i, item in enumerate(required) if item.answer == likeliest), 0)

    def _answer(self, answer: Answer, mark: str = "") -> list[Item]:
        if isinstance(answer, (Choice, Form)) and answer.refusal:
            # Listed where a player would look for it, struck out; picked, it says why not.
            return [Item(mark + answer.label, partial(self.refuse, answer.refusal),
                         answer.hint or "not now", answer)]
        if isinstance(answer, Choice):
            return [Item(mark + answer.label, lambda: self.check(answer.line), answer.hint, answer)]
        if isinstance(answer, Roll):
            out = []
            again = self.session.roll_again(answer)
            if again is not None:  # undo is never a free re-roll: the same faces come first
                faces = ", ".join(again) if len(again) <= 2 else f"{again[0]}, ..."  # a d20's leaves
                out.append(Item(f"{mark}Use {faces} again", lambda: self.use_again(answer)))
                out.append(Item(mark + "Roll again", lambda: self.roll(answer, again=True),
                                "logged too"))
            elif self.by_hand and listed_faces(answer):  # this table types its faces
                return [*(Item(mark + face.label, partial(self.type_faces, face.line), face.hint, face)
                          for face in listed_faces(answer)),
                        Item(mark + answer.by_device, lambda: self.roll(answer), answer.chance)]
            else:
                out.append(Item(mark + answer.by_device, lambda: self.roll(answer), answer.chance))
            out.append(Item(mark + answer.by_hand, lambda: self.enter_faces(answer), answer.chance,
                            answer))
            return out
        if isinstance(answer, Grid):
            return [Item(mark + answer.label, lambda: self.pick_squares(answer), "on board",
                         answer)]
        return [Item(mark + answer.label, lambda: self.fill_form(answer), answer.hint, answer)]

    # --- actions, each committed before the screen changes ---

    def refuse(self, reason: str) -> None:
        """An answer the rules refuse now was picked: the reason, as a refused line's."""
        self.message = reason

    def changed(self, message: str = "", told: str = "") -> None:
        """The game changed (here, or from a serial line): new answers; a newly logged
        entry's result in words replaces ``message`` (which only echoes it). ``told``: the
        check the players just read and accepted, which says what the entry does; it stays
        where it is, as the entry's result."""
        self._items = None
        self.cursor = 0
        self.message = message
        played = self.session.played
        if played is not None and played is not self._told:
            self._told = played
            self.result, self.result_until = told or result_line(self.session.results()), None
            self.message = ""
        else:  # an undo, a redo: the result of an entry no longer in force must not stay
            self.result = ""

    def expire(self, now: float) -> float | None:
        """The loop's time after each step: a result shown for RESULT_SECONDS goes. The
        moment this screen next changes by itself, if any."""
        if self.result and self.result_until is None:
            self.result_until = now + RESULT_SECONDS
        elif self.result and self.result_until is not None and now >= self.result_until:
            self.result = ""
        return self.result_until if self.result else None

    def guarded(self, act: Callable[[], Any]) -> bool:
        """Run a session change; a refusal or a storage failure becomes the message."""
        try:
            act()
        except Refusal as err:  # a rule broken, or nothing to undo or redo
            self.message = str(err)
            return False
        except sqlite3.Error as err:
            self.message = f"not saved ({err}); nothing changed"
            return False
        return True

    def play(self, lines: list[Line], told: str = "") -> bool:
        """Log ``lines`` as one entry; whether they were logged (else the refusal is the message)."""
        if self.guarded(lambda: self.session.play(lines, source="keys")):
            self.changed(told=told)
            return True
        return False

    def roll(self, ask: Roll, again: bool = False) -> None:
        """A device roll; ``again``: anew, although an undone roll is offered (audited)."""
        try:
            lines = self.session.roll(ask, self.rng)
        except Refusal as err:  # faces the rules refuse, or none found
            self.message = str(err)
            return
        before, head = self.session.state, self.session.head
        self.by_hand = False
        if self.guarded(lambda: self.session.play(lines, rolled=True, again=again, source="keys")):
            self.changed("; ".join(rolled_faces(ask, line) for line in lines))
        if self.session.head != head:
            self.reveal(before, lines)

    def use_again(self, ask: Roll) -> None:
        """Log the undone device roll offered for this prompt."""
        before, head = self.session.state, self.session.head
        if self.guarded(lambda: self.session.use_again(ask)):
            entry = self.session.entry(self.session.head)
            lines = [Line.parse(text) for text in entry.lines] if entry else []
            self.changed("; ".join(rolled_faces(ask, line) for line in lines))
            if self.session.head != head:
                self.reveal(before, lines)

    def reveal(self, before: Any, lines: list[Line]) -> None:
        """Show a stored roll of several lines: one by one (the setting), or all at once in
        the game's own picture; a game without one keeps the one-line message."""
        picture = self.screens.roll_picture
        each = self.one_by_one()
        if len(lines) > 1 and (each or picture is not None):
            self.show_roll(before, lines, each)

    def show_roll(self, before: Any, lines: Sequence[Line], each: bool, at: int = 0) -> None:
        """The lines of the latest entry's roll, from line ``at``; shown one by one, how many
        the table has seen is kept, for a game left part-way (see ``resume_roll``)."""
        shown = shown_lines(self.session.game, self.session.players, before, lines)
        seen = self.session.keep_reveal if each else (lambda count: None)
        if each:
            seen(at + 1)
        self.host.push(Reveal(shown, self.screens.roll_picture or plain_picture, each, seen, at))
        self.message = ""  # the picture says it better

    def resume_roll(self) -> None:
        """A game left while its latest roll was shown one line at a time comes back to the
        line the table saw last, the lines after it still to come."""
        left = self.session.reveal_left()
        if left is not None:
            before, lines, seen = left
            self.show_roll(before, lines, True, seen - 1)

    def enter_faces(self, ask: Roll, first_digit: int | None = None) -> None:
        """Faces the table rolled, typed in: on the board where they name a square (a digit
        typed on a keyboard starts the numbers instead), else as numbers."""
        if ask.board is not None and first_digit is None:
            self.pick_squares(ask.board, ask)
            return
        numbers = [Field(label, 1, sides, names=ask.names) for label, sides in zip(ask.labels, ask.sides)]
        def done(faces: tuple[int, ...]) -> None:
            if self.type_faces(ask.line(faces)):
                self.straight_on(ask)
        self.entry(Numbers(ask.label, numbers, done, self.backdrop, first_digit,
                               carry=not ask.names,  # named faces (squares) never repeat
                               question=self.question_row, answer=ask, pairs=self.pairs()))

    def entry(self, screen: Screen) -> None:
        """Open the screen an answer is entered on (numbers, the board)."""
        self.opened = screen
        self.host.push(screen)

    def type_faces(self, line: Line) -> bool:
        """Log faces the table rolled and typed in (the cursor offers that way next time)."""
        self.by_hand = True
        return self.play([line])

    def straight_on(self, entered: Answer) -> None:
        """After an entry made on a screen of its own (faces typed in, squares picked on the
        board): when the next question has one answer, made on a screen of its own too, and
        nothing optional can be logged now, that screen opens at once (a round's leaves one
        after the other, a gleeb's step then the grue's, the dice then the one circle they
        allow); back leaves it for the play screen."""
        ask = self.session.prompt()
        if ask is None or usable(ask.extras) or self.companion_move(ask) is not None:
            return
        answers = usable(ask.answers)
        if len(answers) != 1:
            return
        answer = answers[0]
        if isinstance(answer, Grid) and isinstance(entered, (Grid, Roll)):
            self.pick_squares(answer)
        elif isinstance(answer, Form) and isinstance(entered, Roll):
            self.fill_form(answer)
        elif (isinstance(answer, Roll) and isinstance(entered, Roll)
              and (answer.actor, answer.verb) == (entered.actor, entered.verb)
              and not listed_faces(answer) and self.session.roll_again(answer) is None):
            self.enter_faces(answer)

    def fill_form(self, form: Form, values: tuple[int, ...] = ()) -> None:
        """Enter a form's numbers (starting from ``values`` when coming back to change them)."""
        fields = tuple(replace(field, default=value) for field, value in zip(form.fields, values))

        title = form.label if form.actor == TABLE else f"{form.actor}: {form.label}"  # whose entry

        def done(got: tuple[int, ...]) -> None:
            # The check was in view as they stand (select logged it), or comes on its own.
            self.check(form.line(got), lambda: self.fill_form(form, got), title, " ".join(numbers.seen))

        def ahead(values: tuple[int, ...]) -> str:
            try:
                self.session.after([form.line(values)])
            except Refusal as err:
                return str(err)
            return self.session.game.preview(self.session.state, form.line(values))
        numbers = Numbers(title, fields or form.fields, done, self.backdrop, answer=form, ahead=ahead,
                          top=self.header_row, question=lambda draw: question_line(draw, title),
                          pairs=self.pairs())
        self.entry(numbers)

    def check(self, line: Line, change: Callable[[], None] | None = None, question: str = "",
              seen: str = "") -> None:
        """Log a line the player picked; where the game previews it (a fish sum), show that
        first, to log or go back (to ``change`` the entry), unless it was ``seen`` in full
        while the numbers were entered. A refusal comes at once. ``question``: what the
        check's question row keeps (the entry's title), else the play screen's question."""
        if not self.guarded(lambda: self.session.after([line])):  # kept: logging it applies nothing
            return
        doubt = self.screens.doubt(self.session.lines(), line)  # the box's own check
        if doubt:
            self.message = doubt
            return
        ahead = self.session.game.preview(self.session.state, line)
        if not ahead or " ".join(ahead.split()) == seen:
            self.play([line], ahead if ahead and fits_banner(ahead) else "")
            return
        told = ahead if fits_banner(ahead) else ""  # a longer one: the result box holds less
        self.host.push(Preview(line.actor, ahead, lambda: self.play([line], told), change,
                               self.header_row, question or self.question(self.prompt())))

    def pick_squares(self, grid: Grid, faces: Roll | None = None) -> None:
        """Squares on the board: the grid's, or ``faces`` typed in where they name a square."""
        ask = self.session.prompt()
        # With several ways to answer, the one picked says best what the board is for.
        question = ask.question if ask and len(ask.answers) == 1 else grid.label
        def menu() -> None:  # over the play screen: its entries change what the board shows
            self.host.pop()
            self.host.push(self.context_menu())

        def done(line: Line) -> str:
            """Play the line; "" when it was logged, else the reason it was refused."""
            logged = self.type_faces(line) if faces else self.play([line])
            refusal, self.message = ("", "") if logged else (self.message, "")
            return refusal
        self.entry(BoardScreen(grid, self.screens.paint, self.session.summary, done, question,
                                   self.screens.cell_width, menu, lambda: self.straight_on(faces or grid),
                                   faces or grid))

    def undo(self) -> None:
        entry = self.session.head
        if self.guarded(self.session.undo):
            undone = self.session.entry(entry)
            self.changed("Undone: " + describe(list(undone.lines)) if undone else "")

    def redo(self) -> None:
        if self.guarded(self.session.redo):
            entry = self.session.entry(self.session.head)
            self.changed("Redone: " + describe(list(entry.lines)) if entry else "")

    def show_summary(self) -> None:
        summary = self.session.summary()
        winners = ", ".join(summary["winners"]) or "nobody"
        outcome = self.session.game.outcome(self.session.state)
        body = (f"Winners: {winners}.\nEnded: {outcome.termination}.\n" if outcome
                else f"Next: {summary['next']}.\n")
        body += "\n".join(self.screens.summary_lines(summary))
        self.host.push(Page("Summary", body))

    def show_log(self) -> None:
        """The whole record so far, newest first, with what each entry did."""
        self.host.push(LogScreen(self.session.log()))

    def undo_item(self, run: Callable[[], None]) -> Item:
        """Undo, saying what it takes back ("Undo: Bob roll 6")."""
        entry = self.session.entry(self.session.head) if self.session.head else None
        if entry is None:
            return Item("Undo", run, "start")
        return Item(f"Undo: {describe(list(entry.lines))}", run, shorten=True)

    def context_menu(self) -> Menu:
        """Back (or the long press): the cursor on "Back to the game", so that no run of
        back presses and a select can undo; undo is the next line, two presses away, and
        says what it takes back."""
        redo = self.session.redo_entry()
        ask = self.session.prompt()
        topic = ask.topic if ask else ""
        pages = self.session.game.pages

        def then(act: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                self.host.pop()
                act()
            return run

        items = [Item("Back to the game", self.host.pop), self.undo_item(then(self.undo))]
        if redo is not None:
            items.append(Item(f"Redo: {describe(list(redo.lines))}", then(self.redo), shorten=True))
        items += self.hint_items(ask, then)
        items.append(Item("Rules: this step", then(lambda: self.host.push(
            Page(screen_title(self.session.game.id), pages.get(topic) or pages.get("", ""))))))
        items += self.view_items(then)
        items.append(Item("Summary", then(self.show_summary)))
        items.append(Item("Log", then(self.show_log), "every entry"))
        items.append(Item("Leave game", then(self.leave), "to resume"))
        items.append(Item("Abandon game", then(lambda: self.host.push(
            confirm("Abandon this game?", "Yes, abandon", self.abandon, self.host)))))
        return Menu("Game menu", items)

    def view_items(self, then: Callable[[Callable[[], None]], Callable[[], None]]) -> list[Item]:
        """A line for each of the game's pages of figures (scores...), opening it there."""
        pages = self.screens.views

        def opener(at: int) -> Callable[[], None]:
            return then(lambda: self.host.push(Views(pages, self.session.summary, at)))
        return [Item(name, opener(at)) for at, (name, _) in enumerate(pages)]

    # --- the companion: hints, and the moves of the seats it plays ---

    def advice(self) -> ai.Advice | None:
        """The advisor's line for the position on screen, thought out once per position."""
        state = self.session.state
        if self._advice is None or self._advice[0] is not state:
            advise = ai.advisor(self.session.game.id)
            try:
                self._advice = (state, advise(state, ai.THINK) if advise else None)
            except IllegalLine:  # the advisor checks its line with the rules: no advice then
                self._advice = (state, None)
        return self._advice[1]

    def companion_move(self, ask: Prompt | None) -> ai.Advice | None:
        """The companion's move when the pending step belongs to a seat it plays."""
        if ask is None or not ask.answers or ask.actor not in self.seats:
            return None
        return self.advice()

    def companion_items(self, ask: Prompt) -> list[Item]:
        """First on the list: one press says the table made the companion's move."""
        move = self.companion_move(ask)
        if move is None:
            return []
        return [Item("Done", lambda: self.check(move.line), move.note or "when made")]

    def hint_items(self, ask: Prompt | None,
                   then: Callable[[Callable[[], None]], Callable[[], None]]) -> list[Item]:
        """The game menu's "Hint", for a game with an advisor, on a player's own step."""
        if (ask is None or not ask.answers or ask.actor in (*self.seats, TABLE)
                or ai.advisor(self.session.game.id) is None):
            return []
        return [Item("Hint", then(self.show_hint), "a strong move")]

    def show_hint(self) -> None:
        """The advisor's move for the player to move, to play with one press or leave."""
        hint = self.advice()
        if hint is None:
            self.message = "no hint for this step"
            return

        def play_it() -> None:
            self.host.pop()
            self.check(hint.line)
        self.host.push(Menu(f"Hint: {hint.label}", [Item("Play it", play_it, hint.note),
                                                    Item("Back", self.host.pop)]))

    def abandon(self) -> None:
        if self.guarded(self.session.abandon):
            self.leave()

    # --- drawing and input ---

    def prompt(self) -> Prompt | None:
        """The rules' prompt as the box asks it (``Screens.ask``): worked out once for each
        position of the game."""
        state = self.session.state
        if self._asked is None or self._asked[0] is not state:
            ask = self.session.prompt()
            self._asked = (state, ask and self.screens.ask(self.session.lines(), ask))
        return self._asked[1]

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        summary = self.session.summary()
        ask = self.prompt()
        self.top_bar(draw, summary, ask)
        if self.message:  # a long one (a refusal's reason) takes the panel's place too
            if notice_top(self.message, self.notice_area) > PANEL[3]:
                self.figures(draw, summary)
            notice(draw, self.notice_area, self.message)
        else:
            self.figures(draw, summary)
            if not self.result or fits_banner(self.result):  # else the result covers it
                question_line(draw, self.question(ask))
        items = self.items()
        if not items:
            return
        item = items[self.cursor]
        # On the answer just under the extras, where the cursor starts, their names take
        # the hint's place: one press up logs them, and nobody skips one unseen.
        optional = self.optional_names(ask) if self._optional and self.cursor == self._optional.stop else ()
        answer_row(draw, item.label, item.hint or self.counter(item, len(items)), self.cursor > 0,
                   self.cursor < len(items) - 1, refused(item), optional, item.shorten)

    def counter(self, item: Item, count: int) -> str:
        """Where the cursor is among the answers ("2/5"), where the line has room for it
        (the arrows say as much)."""
        counted = f"{self.cursor + 1}/{count}"
        return counted if answer_fits(item.label, counted) and not item.shorten else ""

    @staticmethod
    def optional_names(ask: Prompt | None) -> tuple[str, ...]:
        """What optional lines can be logged now, by their verbs, the record's own short
        words ("hazard", "lap", "impact"), the likeliest first: what the answer row names
        beside a required answer, where there is room only for a word or two."""
        if ask is None or not ask.answers:
            return ()
        return tuple(dict.fromkeys(optional_verb(answer) for answer in usable(ask.extras)))

    def question(self, ask: Prompt | None) -> str:
        """The question in words: the prompt's, the companion's move, or who won."""
        if ask is None or not ask.answers:
            outcome = self.session.outcome()
            return outcome.headline() if outcome else "Game over"
        move = self.companion_move(ask)
        return f"Companion: {move.label}" if move else ask.question

    def question_row(self, draw: ImageDraw.ImageDraw) -> None:
        """The question's row as this screen draws it (kept under dice being entered)."""
        question_line(draw, self.question(self.prompt()))

    def top_bar(self, draw: ImageDraw.ImageDraw, summary: SummaryT, ask: Prompt | None) -> None:
        """Whose turn (or that the game is over) and the game's corner figure, and the
        rule under them."""
        if ask is None or not ask.answers:
            header(draw, "Game over", self.screens.corner(summary))
        else:
            header(draw, ask.actor if ask.actor != "table" else "Table", self.screens.corner(summary))
        draw.line((0, RULE, WIDTH - 1, RULE), fill=WHITE)

    def header_row(self, draw: ImageDraw.ImageDraw) -> None:
        """The top bar as this screen draws it (kept over the check before logging)."""
        self.top_bar(draw, self.session.summary(), self.session.prompt())

    def backdrop(self, draw: ImageDraw.ImageDraw) -> None:
        """What stays in view while an answer is entered under it: the top bar and the
        panel (or the latest result), where they are on this screen."""
        summary = self.session.summary()
        self.top_bar(draw, summary, self.session.prompt())
        self.figures(draw, summary, tall=False)

    def figures(self, draw: ImageDraw.ImageDraw, summary: SummaryT, tall: bool = True) -> None:
        """The game's panel, or the latest result in words in its place (for about 2 s);
        ``tall``: a result longer than the panel's place may take the question's rows too
        (else the panel stays)."""
        if self.result and (tall or fits_banner(self.result)):
            result_banner(draw, self.result)
        else:
            self.screens.panel(draw, summary, PANEL)

    def on(self, intent: Intent, host: Host) -> None:
        kind = intent.kind
        items = self.items()
        self.message = ""
        if kind == "up" and items:
            self.cursor = (self.cursor - 1) % len(items)
        elif kind == "down" and items:
            self.cursor = (self.cursor + 1) % len(items)
        elif kind == "select" and items:
            items[self.cursor].run()
        elif kind in ("left", "right") and items and enters(items[self.cursor]):
            # The answer is made on a screen of its own: open it, and the key moves there
            # (the next die, the pile beside), so opening it costs no press of its own.
            self.opened = None
            items[self.cursor].run()
            if self.opened is not None:
                self.opened.on(intent, host)
        elif kind in ("context", "back"):
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
        elif intent.kind == "roll":  # an explicit roll: anew, audited, even if one was undone
            self.roll(rolls[0], again=self.session.roll_again(rolls[0]) is not None)
        elif 1 <= intent.value <= 9:
            self.enter_faces(rolls[0], intent.value)
