"""Generic widgets: a menu, a number entry (dice faces, form fields), a text page and a
preview to check before logging.

A widget draws itself on a PIL ``ImageDraw`` and reacts to :class:`Intent` values through
the small :class:`Host` interface, so widgets know nothing of games, sessions or devices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, TypeAlias

from PIL import ImageDraw

from companion.games.base import Field
from companion.intents import Intent
from companion.ui.draw import (
    BLACK,
    HEADER,
    HEIGHT,
    HINT_GAP,
    WHITE,
    WIDTH,
    Area,
    arrows,
    beside,
    cover,
    fit,
    header,
    label_and_hint,
    length,
    named,
    notice,
    notice_top,
    rendered,
    text,
    wrap,
)
from companion.ui.rows import (
    ANSWER_LINE,
    NOTICE_AREA,
    PANEL,
    QUESTION_BASELINE,
    RESULT_ROWS,
    answer_row,
    fits_banner,
    question_line,
    result_banner,
)

#: Draws what stays on screen around a widget that takes only the lower rows.
Backdrop: TypeAlias = Callable[[ImageDraw.ImageDraw], None]


class Host(Protocol):
    """What a widget may ask of the app that shows it."""

    def push(self, screen: Screen) -> None: ...
    def pop(self) -> None: ...
    def toast(self, message: str) -> None: ...


ROW = 16  # pixels per menu row at 12 px type
ROWS = 3
LINE = WIDTH - 12  # where a menu line's hint ends (the arrows are right of it)


class Screen:
    """One screen of the stack: draws itself and answers intents."""

    title = ""
    #: A notice (a refusal, a result) shown until the next press.
    message = ""
    #: The rows a notice may take (a longer one gets a page of its own): by default the
    #: foot of the screen, under the first line of a menu.
    notice_area: Area = (HEADER + ROW, HEIGHT - 1)

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        raise NotImplementedError

    def on(self, intent: Intent, host: Host) -> None:
        raise NotImplementedError

    @property
    def busy(self) -> bool:
        """Whether the screen has work left that it does a slice at a time between presses
        (the loop wakes at once while it has, and sleeps on its queue once it is done)."""
        return False

    def work(self) -> None:
        """One slice of that work (a press waits at most for one slice)."""


@dataclass(frozen=True)
class Item:
    """One menu line: what it says, a short hint, and what choosing it does."""

    label: str
    run: Callable[[], object]
    hint: str = ""
    #: The prompt answer this line enters by hand (a choice, faces, a form, squares), so a
    #: driver can type a record through the screens; None for the other lines.
    answer: object = None
    #: The label may end in an ellipsis where it is too long for the line: it quotes
    #: something of any length (an entry to undo), whose start says enough.
    shorten: bool = False




class Menu(Screen):
    """A list of items under a title: up/down to move, select to choose, back to leave."""

    def __init__(self, title: str, items: Sequence[Item] | Callable[[], Sequence[Item]],
                 corner: str = "") -> None:
        self.title = title
        self._items = items
        self.corner = corner
        self.cursor = 0
        self.first = 0  # the first line in view
        #: Every line's hint shown, not only the chosen one's (a list of settings and their values).
        self.all_hints = False

    @property
    def items(self) -> Sequence[Item]:
        found = self._items() if callable(self._items) else self._items
        self.cursor = min(self.cursor, max(0, len(found) - 1))
        return found

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        items = self.items
        aside = self.hint_aside(items)
        header(draw, self.title, aside or self.corner)
        top = self.in_view(len(items))
        # A notice covers the rows at the foot: only the lines wholly above it are drawn.
        room = notice_top(self.message, self.notice_area) if self.message else HEIGHT
        rows = min(ROWS, (room - 1 - HEADER) // ROW)
        for row, item in enumerate(items[top:top + rows]):
            y = HEADER + row * ROW
            chosen = top + row == self.cursor
            if chosen:  # framed, with a solid tab: the inverted bar is the title's alone
                draw.rectangle((0, y + 1, WIDTH - 9, y + ROW - 1), outline=WHITE)
                draw.rectangle((0, y + 1, 2, y + ROW - 1), fill=WHITE)
            hint = item.hint if (chosen and not aside) or self.all_hints else ""
            label_and_hint(draw, (5, y + 12), LINE, item.label, hint, 12, WHITE, ellipsis=item.shorten)
        arrows(draw, WIDTH - 7, 15, HEIGHT - 2, top > 0, top + ROWS < len(items))
        if self.message:
            notice(draw, self.notice_area, self.message)

    def hint_aside(self, items: Sequence[Item]) -> str:
        """The chosen line's hint, when it has no room beside its label (a game's long
        name and its count) and has room in the top bar's corner: it goes there."""
        if not items or self.corner or self.all_hints:
            return ""
        item = items[self.cursor]
        if beside(item.label, item.hint, 12, LINE - 5) is not None:
            return ""
        room = WIDTH - 4 - length(self.title, 12) - HINT_GAP - 2
        return item.hint if length(item.hint, 10) <= room else ""

    def in_view(self, count: int) -> int:
        """The first line in view: the lines stay where they are while the cursor moves
        among them, and move on by one when it goes past the first or the last (a press
        then rewrites the frame's one line, not every line).

        >>> menu = Menu("t", [Item(str(n), lambda: None) for n in range(5)])
        >>> menu.cursor = 2; menu.in_view(5), menu.in_view(5)
        (0, 0)
        >>> menu.cursor = 3; menu.in_view(5)
        1
        """
        first = max(min(self.first, self.cursor), self.cursor - ROWS + 1)
        self.first = max(0, min(first, count - ROWS))
        return self.first

    def on(self, intent: Intent, host: Host) -> None:
        """Only select chooses and only back (or the long press, the back of a build with
        no back key) leaves; the cursor stops at both ends, so a press too many past the
        last line never lands on the first."""
        items = self.items
        if intent.kind in ("back", "context"):
            host.pop()
        elif not items:
            return
        elif intent.kind == "up":
            self.cursor = max(0, self.cursor - 1)
        elif intent.kind == "down":
            self.cursor = min(len(items) - 1, self.cursor + 1)
        elif intent.kind == "select":
            items[self.cursor].run()
        elif intent.kind == "digit" and 1 <= intent.value <= len(items):
            self.cursor = intent.value - 1


# Numbers entered under a backdrop take the play screen's question and answer rows.
SHOWN = 4  # numbers side by side; more scroll
CHECK_ROWS = 3  # rows of small type a check shown over the numbers may take
#: The answer's rows, from the line under the question's: the values in a box that the
#: glass ends, their ink a lit row clear of its edges (the line above, the glass below: a
#: stroke on the glass's last row reads as a glyph cut off).
VALUES_TOP = ANSWER_LINE
VALUE_SIZE = 16  # the largest type whose figures fit between those rows
LABEL_GAP = 3  # between a label and the value beside it
BOX_MARGIN = 4  # columns lit either side of the value at hand
BOX_HALF = 12  # the narrowest lit box, either side of its middle


@lru_cache(maxsize=256)
def widest(spec: Field) -> int:
    """The widest of a number's values in the answer's type."""
    return max(int(length(spec.word(v), VALUE_SIZE)) for v in range(spec.low, spec.high + 1))


@lru_cache(maxsize=256)
def labels_fit(spec: Field, width: int) -> bool:
    """Whether the label and every value of ``spec`` (the answer's type and rows) fit
    side by side in ``width``."""
    if any(value_size(spec.word(v), WIDTH)[0] != VALUE_SIZE for v in range(spec.low, spec.high + 1)):
        return False
    return length(spec.label, 10) + LABEL_GAP + widest(spec) + 2 * BOX_MARGIN <= width - 2


def draw_value(draw: ImageDraw.ImageDraw, middle: int, word: str, sized: tuple[int, int], here: str,
               room: int) -> None:
    """One value centred on ``middle``; the one at hand (``here`` "lit") lit, at most ``room``
    either side (as narrow as the value allows: moving on repaints few columns); the one
    after it ("next": right and left change it) outlined. The others sit in a dark box of
    the same size, which parts the line above the answer's rows round them."""
    size, baseline = sized
    half = min(room, max(int(length(word, size)) // 2 + BOX_MARGIN, BOX_HALF))
    lit = here == "lit"
    box = (middle - half, VALUES_TOP, middle + half - 1, HEIGHT - 1)
    draw.rectangle(box, fill=WHITE if lit else BLACK)
    if here == "next":  # its sides lit: the line above is its top, the glass its foot
        draw.line((box[0], VALUES_TOP, box[0], HEIGHT - 1), fill=WHITE)
        draw.line((box[2], VALUES_TOP, box[2], HEIGHT - 1), fill=WHITE)
    text(draw, (middle, baseline), word, size, BLACK if lit else WHITE, 2 * room - 2, anchor="ms", box=box)


def span_of(spec: Field) -> str:
    """A number's range in words: ``1-6``; named values ``red to purple`` (so that a
    long pair can go on two lines).

    >>> span_of(Field("d6", 1, 6)), span_of(Field("colour", 1, 2, names=("red", "blue")))
    ('1-6', 'red to blue')
    """
    if spec.names:
        return f"{spec.word(spec.low)} to {spec.word(spec.high)}"
    return f"{spec.low}-{spec.high}"


@lru_cache(maxsize=256)
def columns(numbers: tuple[Field, ...]) -> int:
    """How many numbers go side by side: up to :data:`SHOWN`, fewer where a value (a long
    name) would not fit its column even in the smallest type (the others scroll)."""
    count = min(max(len(numbers), 1), SHOWN)
    while count > 1 and any(length(spec.word(value), 12) > WIDTH // count - 4
                            for spec in numbers for value in range(spec.low, spec.high + 1)):
        count -= 1
    return count


def value_size(word: str, width: int) -> tuple[int, int]:
    """The largest type (and its baseline) in which a value fits ``width`` and the rows
    under :data:`VALUES_TOP`, a clear row round its ink: its last row of ink on the
    glass's last row but one."""
    for size in (VALUE_SIZE, 14, 12):
        if fit(word, size, width) == word:
            mask, _, top = rendered(word, size, "ms")
            height = mask.height if mask is not None else 0
            baseline = HEIGHT - 1 - (height + top)
            if baseline + top >= VALUES_TOP + 1:
                return size, baseline
    return 12, HEIGHT - 4


#: Where figures in the answer's type stand (they have no descenders).
VALUE_BASELINE = value_size("0", WIDTH)[1]


def stride(spec: Field) -> int:
    """How far right and left move a number with none after it: a quarter of its range,
    at least 2 (a d20 by 5)."""
    return max(2, round((spec.high - spec.low + 1) / 4))


class Numbers(Screen):
    """Enter several numbers (dice faces, a form's fields), two at a time.

    Up and down change the lit number (wrapping), and digits type it; right and left change
    the number after it, which is outlined (two dice, a group and its coloured igloos, each
    on an axis of the joystick); with none after it, they change the lit one a quarter of
    its range at a time (a d20 by 5). Select takes both, the two in their boxes, and
    lights the next number not yet taken; once every number is taken, the entry is done.
    Nothing else confirms: back goes back a number, and leaves from the first (the long
    press leaves at once). A digit the number cannot take says why. Without ``pairs`` (a
    box with no left and right keys, or numbers all in view such as a deck's counts) there
    is no outlined number: select takes the lit one, the numbers go one at a time, and
    right and left go to the next number and the one before.
    """

    notice_area: Area = NOTICE_AREA

    def __init__(self, title: str, numbers: Sequence[Field],
                 done: Callable[[tuple[int, ...]], None], backdrop: Backdrop,
                 first_digit: int | None = None, carry: bool = False,
                 question: Backdrop | None = None, answer: object = None,
                 ahead: Callable[[tuple[int, ...]], str] | None = None, top: Backdrop | None = None,
                 pairs: bool = True) -> None:
        """``carry``: each number starts at the one before when first reached (dice:
        doubles, and faces read in order, take fewer presses; random faces no more).
        ``backdrop``: the screen the numbers answer, which keeps its top bar and panel in
        view; the numbers take only the question's and the answer's rows under them.
        ``question``: that screen's question row, kept too where each number's label fits
        beside its value. ``answer``: the prompt's answer the numbers enter, as
        :attr:`Item.answer` names it, for a driver. ``ahead``: what the numbers as they
        stand would do, in the game's words ("3 linked - 0 coloured - 1 ability = 2 fish"),
        or why the rules refuse them: the check before logging, shown over the panel while
        the numbers change, so that the last select logs what it says; ``top``: the
        backdrop's top bar alone, drawn over the check instead of the whole backdrop."""
        self.answer = answer
        self.ahead = ahead
        self.top = top
        self.pairs = pairs
        self.title = title
        self.carry = carry
        self.backdrop = backdrop
        self.question = question
        self.reached = 0  # the last number lit or changed: those after it carry the one before
        self.numbers = tuple(numbers)
        self.values = [n.default if n.default is not None else n.low for n in numbers]
        self.done = done
        self.at = 0  # the lit number; those before it are taken
        self.typed = ""
        #: Typing moved on by itself: the right or select that follows (as a typist
        #: presses after each number) confirms that move instead of skipping a number.
        self.moved_by_typing = False
        #: The check in view when select was last pressed (its rows; [] for none).
        self.seen: list[str] = []
        self._carry()
        if first_digit is not None:
            self._type(first_digit)

    @property
    def following(self) -> int | None:
        """The outlined number after the lit one, that right and left change (None after the
        last, and one at a time)."""
        return self.at + 1 if self.pairs and self.at + 1 < len(self.numbers) else None

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        told = self.check()
        if told and self.top is not None:
            self.top(draw)
            result_banner(draw, "\n".join(told[:CHECK_ROWS - 1]))
        else:
            self.backdrop(draw)
        if self.message and notice_top(self.message, self.notice_area) <= PANEL[3]:
            cover(draw, (0, PANEL[1], WIDTH - 1, PANEL[3]), BLACK)  # the notice needs its rows
        self.draw_below(draw, told[CHECK_ROWS - 1] if len(told) == CHECK_ROWS else "")

    def check(self) -> list[str]:
        """The check of the numbers as they stand, in the rows it takes (two in the result's
        box over the panel, a third in the question's row where the labels stand beside the
        values and leave it free); [] when there is none, or it does not fit there (it then
        comes after the last number, as a check of its own)."""
        words = self.ahead(tuple(self.values)) if self.ahead is not None and self.top is not None else ""
        if not words:
            return []
        # Its lines where the game breaks them, or else run on; in the result's box alone if
        # they fit it (the question's row keeps the entry's title), else with that row too.
        broken, run_on = wrap(words, 10), wrap(" ".join(words.split("\n")), 10)
        rooms = (CHECK_ROWS - 1, CHECK_ROWS) if self.beside() else (CHECK_ROWS - 1,)
        return next((rows for room in rooms for rows in (broken, run_on) if len(rows) <= room), [])

    def in_view(self) -> tuple[int, int]:
        """How many numbers stand side by side, and the first of them in view (the lit one
        and the outlined one after it always are)."""
        count = columns(self.numbers)
        return count, max(0, (self.following or self.at) - count + 1)

    def beside(self) -> bool:
        """Whether the numbers in view have their labels beside them (the question's row
        then keeps the question)."""
        count, first = self.in_view()
        return self.question is not None and all(labels_fit(spec, WIDTH // count)
                                                 for spec in self.numbers[first:first + count])

    def draw_below(self, draw: ImageDraw.ImageDraw, told: str = "") -> None:
        """The numbers in the rows of a question and its answer, so that entering them
        changes only those rows. The answer's row has the values in large type, the one at
        hand lit, each with its label beside it where the labels fit: the question stays
        above them then. Otherwise the question's row says what is entered (whose, for a
        form) and the label and range of the number at hand. ``told``: the last row of the
        check, which takes the question's row."""
        count, first = self.in_view()
        width = WIDTH // count
        shown = list(zip(self.numbers, self.values))[first:first + count]
        beside = self.beside()
        if self.message:  # a digit it cannot take, or right at the last number
            notice(draw, self.notice_area, self.message)
        elif told:
            question_line(draw, told)
        elif beside and self.question is not None:
            self.question(draw)
        else:
            self.draw_title(draw)
        draw.line((0, VALUES_TOP, WIDTH - 1, VALUES_TOP), fill=WHITE)  # the play screen's, under the question
        for col, (spec, value) in enumerate(shown):
            x, word = col * width, spec.word(value)
            here = "lit" if first + col == self.at else "next" if first + col == self.following else ""
            if beside:
                label = int(length(spec.label, 10))
                left = x + (width - label - LABEL_GAP - widest(spec) - 2 * BOX_MARGIN) // 2
                text(draw, (left, VALUE_BASELINE), spec.label, 10)
                middle = left + label + LABEL_GAP + BOX_MARGIN + widest(spec) // 2
                draw_value(draw, middle, word, (VALUE_SIZE, VALUE_BASELINE), here, widest(spec) // 2 + BOX_MARGIN)
            else:
                draw_value(draw, x + width // 2, word, value_size(word, width - 4), here, width // 2 - 1)

    def draw_title(self, draw: ImageDraw.ImageDraw) -> None:
        """The title, and beside it the number at hand: its label and range if they fit,
        else its label alone (the title always wins)."""
        spec = self.numbers[self.at]
        span = f"{spec.label}: {span_of(spec)}"
        for size, hint in ((11, span), (11, spec.label), (10, spec.label)):
            room = int(WIDTH - 4 - HINT_GAP - length(hint, 10))
            if length(named(self.title, size, room), size) <= room:
                break
        label_and_hint(draw, (2, QUESTION_BASELINE), WIDTH - 2, self.title, hint, size)

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind == "digit":
            self._type(intent.value)
            return
        just_typed, self.typed = bool(self.typed), ""
        typed_on, self.moved_by_typing = self.moved_by_typing, False
        following = self.following
        if intent.kind == "context":  # the long press (a build with no back key): leave
            host.pop()
        elif intent.kind == "back":
            if self.at == 0:
                host.pop()
            else:  # one number back: it is lit again, and taken no more
                self.at -= 1
        elif intent.kind in ("up", "down"):
            self._turn(self.at, 1 if intent.kind == "up" else -1)
        elif typed_on and intent.kind in ("select", "right"):
            return  # a typist's press after a number that moved on by itself
        elif intent.kind in ("left", "right"):
            sign = 1 if intent.kind == "right" else -1
            if following is not None:
                self._turn(following, sign)
            elif self.pairs and not just_typed:  # (a typist's right after the last number: no)
                self._turn(self.at, sign * self.stride())
            elif not self.pairs and intent.kind == "left":  # one at a time: the one before
                self.at = max(0, self.at - 1)
            elif not self.pairs and self.at < len(self.numbers) - 1:  # and the next
                self._next(1)
            else:
                self.message = "select: OK"
        elif intent.kind == "select":
            self.seen = self.check()  # as the last frame showed it: taking the last number logs it
            self._next(1 if following is None else 2)
            if self.at >= len(self.numbers):
                host.pop()
                self.done(tuple(self.values))

    def stride(self) -> int:
        """How far right and left move the lit number when none follows it."""
        return stride(self.numbers[self.at])

    def _turn(self, index: int, step: int) -> None:
        """Change a number by one, round its range; the numbers it carries to follow it."""
        spec = self.numbers[index]
        span = spec.high - spec.low + 1
        self.values[index] = spec.low + (self.values[index] - spec.low + step) % span
        self.reached = max(self.reached, index)
        self._carry()

    def _carry(self) -> None:
        """Each number not yet lit or changed starts at the one before it (dice, with ``carry``)."""
        if not self.carry:
            return
        for index in range(self.reached + 1, len(self.numbers)):
            spec = self.numbers[index]
            self.values[index] = min(max(self.values[index - 1], spec.low), spec.high)

    def _type(self, digit: int) -> None:
        """Digits build the number; a number that cannot grow further moves on."""
        spec = self.numbers[self.at]
        self.moved_by_typing = False
        candidate = int(self.typed + str(digit))
        if candidate > spec.high:
            candidate, self.typed = digit, ""
        if not spec.low <= candidate <= spec.high:
            self.message = f"{spec.label}: {span_of(spec)}"
            return
        self.values[self.at] = candidate
        self.typed += str(digit)
        self.reached = max(self.reached, self.at)
        self._carry()
        if candidate * 10 > spec.high and self.at < len(self.numbers) - 1:
            self._next(1)
            self.typed = ""
            self.moved_by_typing = True

    def _next(self, taken: int) -> None:
        """Take ``taken`` numbers (the lit one, and the outlined one after it) and light the
        next; a number reached for the first time keeps the value it carried."""
        self.at += taken
        self.reached = max(self.reached, min(self.at, len(self.numbers) - 1))


class Page(Screen):
    """A page of text: up/down scroll, select or back goes back (left and right stay)."""

    def __init__(self, title: str, body: str) -> None:
        self.title = title
        self.lines = wrap(body, 11, WIDTH - 12)
        self.top = 0

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        header(draw, self.title)
        visible = self.lines[self.top:self.top + 4]
        for row, line in enumerate(visible):
            text(draw, (2, 25 + row * 12), line, 11, width=WIDTH - 10)
        arrows(draw, WIDTH - 7, 15, HEIGHT - 2, self.top > 0, self.top + 4 < len(self.lines))

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind == "up":
            self.top = max(0, self.top - 3)
        elif intent.kind == "down":
            self.top = min(max(0, len(self.lines) - 4), self.top + 3)
        elif intent.kind in ("back", "select"):
            host.pop()


def confirm(title: str, yes: str, run: Callable[[], None], host: Host) -> Menu:
    """A two-line menu whose first (default) line is the safe one."""
    def accept() -> None:
        host.pop()
        run()
    return Menu(title, [Item("No, go back", host.pop), Item(yes, accept)])


class Preview(Screen):
    """What an entry will do, to check before it is logged ("... = 1 fish").

    It takes the play screen's own rows, under its top bar (``top`` draws that): the
    sentence where an entry's result goes, its third line (if any) and otherwise
    ``question`` in the question's row, and "Yes, log it" and "No" in the answer's. Coming
    to the check and leaving it then rewrite only what differs. "No" goes back to ``change``
    the entry, if given; back (or the long press) goes back as it is.
    """

    def __init__(self, title: str, body: str, accept: Callable[[], object],
                 change: Callable[[], None] | None, top: Backdrop, question: str) -> None:
        self.title = title
        self.body = body
        self.accept = accept
        self.change = change
        self.top = top
        self.question = question
        self.choices = ("Yes, log it", "No, change it" if change else "No, go back")
        self.cursor = 0

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        self.top(draw)
        lines = wrap(self.body, 10)
        if fits_banner(self.body):
            result_banner(draw, self.body)
            question_line(draw, self.question)
        elif len(lines) == RESULT_ROWS + 1:  # its last line where the question goes
            result_banner(draw, "\n".join(lines[:RESULT_ROWS]))
            question_line(draw, lines[-1])
        else:  # longer (long names): it takes the question's rows too
            result_banner(draw, self.body)
        # No "1/2": the arrows say there are two.
        answer_row(draw, self.choices[self.cursor], "", self.cursor > 0, self.cursor == 0)

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind in ("up", "down"):
            self.cursor = 1 - self.cursor
        elif intent.kind == "select":
            host.pop()
            if self.cursor == 0:
                self.accept()
            elif self.change is not None:
                self.change()
        elif intent.kind in ("back", "context"):
            host.pop()
