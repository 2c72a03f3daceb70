"""New game: the questions that set a game up, one at a time, and the list of its settings.

After the game: how many players, then each seat's name, from the roster (the
configuration's, then the names typed on the box before, most recent first) or typed with
the name editor (one press up: "New name"). Then one list, the set-up: "Start game" first,
and under it every setting the game has with its value, each one a question of its own when
picked: who starts (where the rules say the table picks), the seat the companion plays, the
seat order (where the rules shuffle it), and every option records.md gives the game. With
the defaults, select on "Start game" starts. Whatever the set-up writes is checked as the
record's header is, so the box never starts a game that replay would refuse.

Every line of these screens carries, as its ``answer``, what it sets (:class:`Count`,
:class:`Seat`, :class:`Setting`, :class:`Value`, :class:`Slot`), so that
:mod:`companion.ui.driver` can type any legal header through them without knowing the game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from PIL import ImageDraw

from companion.ai import advisor, seat_line
from companion.config import Config, name_problem
from companion.games import GAMES
from companion.games.base import FIRST_SEAT, Field, Multiset, NameList, OptionSpec
from companion.record import Header
from companion.store import Store
from companion.ui.draw import BLACK, HEADER, HEIGHT, WHITE, WIDTH, header, text, wrap
from companion.ui.games import screen_title
from companion.ui.names import NameEditor
from companion.ui.widgets import Host, Item, Menu, Numbers, Page


class Opener(Host, Protocol):
    """What setting up a game asks of the app: the screens' host, the store the game goes
    in, the settings (the roster, the names typed before) and keeping the names typed now,
    the shuffle, and opening the game once it is stored."""

    store: Store
    config: Config
    rng: random.Random
    #: Names typed while the game is set up, not yet in the roster (a frame may shorten them).
    typed_names: tuple[str, ...]

    def open(self, gid: int) -> bool: ...
    def remember(self, names: Sequence[str]) -> None: ...


#: Set-up settings that are not options of the game: the companion's seat, the seat order.
COMPANION, SEATS = "companion", "seats"
SHUFFLED, AS_ENTERED = "shuffled", "as entered"
#: Who starts, picked by the box when the game starts.
RANDOM = "random"
#: The most of one number a :class:`Multiset` option takes on the box (a deck of a hundred
#: cards of one value would be no deck a table holds).
MOST_OF_ONE = 99
NEW_NAME = "New name"


@dataclass(frozen=True)
class Count:
    """A line of "How many players?"."""

    players: int


@dataclass(frozen=True)
class Seat:
    """A name for a seat; ``name`` "" is "New name", which opens the name editor."""

    seat: int
    name: str


@dataclass(frozen=True)
class Setting:
    """A line of the set-up list: what it sets (an option's key, the game's
    :attr:`~companion.games.base.Game.starter`, :data:`COMPANION` or :data:`SEATS`) and the
    value now; the line "Start game" has none."""

    key: str
    value: str


@dataclass(frozen=True)
class Value:
    """A value for a setting (or for one name of a list); "" is "New name"."""

    key: str
    value: str


@dataclass(frozen=True)
class Slot:
    """One name of a :class:`~companion.games.base.NameList` option; index -1 is "Done"."""

    key: str
    index: int
    value: str


START = Setting("", "")


class NewGame:
    """The set-up of one game; each step pushes one question, the last the set-up list."""

    def __init__(self, app: Opener, game_id: str) -> None:
        self.app = app
        self.game = GAMES[game_id]
        self.count_wanted = 0
        self.names: list[str] = []
        self.typed: set[str] = set()  # names typed here: remembered once the game starts
        app.typed_names = ()
        self.values: dict[str, str] = {}  # options set away from their default, as written
        self.first = ""  # who starts where the table picks: a name, RANDOM, or "" (the first seat)
        self.companion = ""  # the seat the companion plays, "" for none
        self.shuffle = self.game.random_seats

    # --- players ---

    def count(self) -> None:
        low, high = self.game.min_players, self.game.max_players
        if low == high:
            self.set_count(low)
            return
        usual = self.game.usual_players or low
        menu = Menu("How many players?", [
            Item(f"{n} players", partial(self.set_count, n), "rules" if n == self.game.usual_players else "",
                 Count(n))
            for n in range(low, high + 1)
        ])
        menu.cursor = usual - low  # on the table the rules are written for
        self.app.push(menu)

    def set_count(self, count: int) -> None:
        self.count_wanted = count
        self.names = []
        self.ask_name()

    def ask_name(self) -> None:
        seat = len(self.names) + 1
        if seat > self.count_wanted:
            self.show_setup()
            return
        config = self.app.config
        free = [n for n in dict.fromkeys((*config.roster, *config.remembered)) if n not in self.names]
        if f"P{seat}" not in self.names and f"P{seat}" not in free:
            free.append(f"P{seat}")
        menu = Menu(f"Seat {seat} of {self.count_wanted}: who?", [
            Item(NEW_NAME, partial(self.type_name, seat), "type it", Seat(seat, "")),
            *(Item(name, partial(self.take_name, seat, name), "", Seat(seat, name)) for name in free),
        ])
        menu.cursor = 1  # on the first name; a new one is one press up
        self.app.push(menu)

    def type_name(self, seat: int) -> None:
        def done(name: str) -> None:
            self.typed.add(name)
            self.app.typed_names = tuple(self.typed)
            self.take_name(seat, name)

        def refusal(name: str) -> str:
            if name in self.names[:seat - 1]:
                return f"{name} is already seat {self.names.index(name) + 1}"
            return f"{name} is a record word" if name_problem(name) else ""

        self.app.push(NameEditor(NEW_NAME, f"seat {seat}", done, refusal))

    def take_name(self, seat: int, name: str) -> None:
        # A player who went back to an earlier seat chooses it again: the later seats go.
        self.names[seat - 1:] = [name]
        self.ask_name()

    # --- the set-up list ---

    def show_setup(self) -> None:
        if self.first not in (*self.names, RANDOM):  # named someone who is no longer playing
            self.first = ""
        if self.companion not in self.names:
            self.companion = ""
        menu = Menu(screen_title(self.game.id), self.setup_items)
        menu.all_hints = True
        self.app.push(menu)

    def setup_items(self) -> list[Item]:
        game = self.game
        items = [Item("Start game", self.start, "", START)]
        if game.random_seats:
            order = SHUFFLED if self.shuffle else AS_ENTERED
            items.append(Item("Seats", self.turn_seats, order, Setting(SEATS, order)))
        if game.starter:
            items.append(Item("First", self.ask_first, self.first or self.names[0],
                              Setting(game.starter, self.first)))
        if advisor(game.id) is not None:
            items.append(Item("Companion", self.ask_companion, self.companion or "nobody",
                              Setting(COMPANION, self.companion)))
        for key, spec in game.options.items():
            if key != game.starter:
                value = self.value(key)
                items.append(Item(key.capitalize(), partial(self.ask_option, key), shown(spec, value),
                                  Setting(key, value)))
        return items

    def turn_seats(self) -> None:
        self.shuffle = not self.shuffle

    def ask_first(self) -> None:
        def take(name: str) -> None:
            self.first = name
            self.app.pop()

        names = [*self.names, RANDOM]
        menu = Menu("Who starts?", [
            Item(name.capitalize() if name == RANDOM else name, partial(take, name),
                 "box picks" if name == RANDOM else "", Value(self.game.starter, name))
            for name in names])
        menu.cursor = names.index(self.first or self.names[0])
        self.app.push(menu)

    def ask_companion(self) -> None:
        """For a game with an advisor: may the companion play a seat? Stored with the game."""
        def hand(name: str) -> None:
            self.companion = name
            self.app.pop()

        menu = Menu("Companion plays?", [
            Item("Nobody", partial(hand, ""), "", Value(COMPANION, "")),
            *(Item(name, partial(hand, name), "box plays", Value(COMPANION, name)) for name in self.names),
        ])
        menu.cursor = 1 + self.names.index(self.companion) if self.companion else 0
        self.app.push(menu)

    # --- options ---

    def value(self, key: str) -> str:
        """An option's value as the header would write it now."""
        return self.values.get(key, self.game.options[key].default)

    def refusal(self, key: str, value: str) -> str:
        """Why the header cannot give option ``key`` this value with these players, "" when
        it can: the option's own check, then the game's start, as replay makes them."""
        options = {**self.values, key: value}
        try:
            Header(self.game, tuple(self.names), tuple(options.items())).start()
        except ValueError as err:
            return str(err)
        return ""

    def set_option(self, key: str, value: str) -> None:
        spec = self.game.options[key]
        if spec.parse(value) == spec.parse(spec.default):
            self.values.pop(key, None)
        else:
            self.values[key] = value

    def ask_option(self, key: str) -> None:
        spec = self.game.options[key]
        if len(spec.choices) == 2:  # two values: the line turns from one to the other
            self.set_option(key, spec.choices[1 - spec.choices.index(self.value(key))])
        elif spec.choices:
            self.ask_choice(key, spec)
        elif isinstance(spec.ask, NameList):
            self.ask_names(key, spec.ask)
        elif isinstance(spec.ask, Multiset):
            self.ask_counts(key, spec.ask)

    def ask_choice(self, key: str, spec: OptionSpec) -> None:
        def choose(value: str) -> None:
            self.set_option(key, value)
            self.app.pop()

        # The choices in their own order (laps 1 to 9), the cursor on the value now: the
        # values next to it, the likeliest other answers, are one press away.
        title = spec.help or key
        menu = Menu(title[:1].upper() + title[1:], [
            Item(value[:1].upper() + value[1:], partial(choose, value), "default" if value == spec.default else "",
                 Value(key, value))
            for value in spec.choices
        ])
        menu.cursor = spec.choices.index(self.value(key))
        self.app.push(menu)

    def ask_names(self, key: str, ask: NameList) -> None:
        """A list of the option's names, each changed on its own, and Done (one press up)."""
        names = self.value(key).split(",")
        title = key.capitalize()

        def done() -> None:
            value = ",".join(names)
            reason = self.refusal(key, value)
            if reason:  # on a page of its own: a refusal may be longer than a menu's foot
                self.app.push(Page(title, reason))
                return
            self.set_option(key, value)
            self.app.pop()

        def take(index: int, name: str) -> None:
            names[index] = name
            self.app.pop()
            menu.cursor = index + 2 if index + 1 < len(names) else 0  # on to the next, then Done

        def pick(index: int) -> None:
            noun = f"{ask.noun.capitalize()} {index + 1}"
            choices = list(dict.fromkeys((names[index], *ask.suggestions)))
            picker = Menu(noun, [
                Item(NEW_NAME, partial(self.app.push, NameEditor(NEW_NAME, noun.lower(), partial(take, index),
                                                                 self.name_refusal)),
                     "type it", Value(key, "")),
                *(Item(name, partial(take, index, name), "", Value(key, name)) for name in choices)])
            picker.cursor = 1
            self.app.push(picker)

        def items() -> list[Item]:
            return [Item("Done", done, f"{len(names)} {ask.noun}s", Slot(key, -1, ",".join(names))),
                    # Numbered in the label: a hint beside a name as long as names get has no room.
                    *(Item(f"{index + 1}. {name}", partial(pick, index), "", Slot(key, index, name))
                      for index, name in enumerate(names))]

        menu = Menu(title, items)
        menu.cursor = 1
        menu.all_hints = True
        self.app.push(menu)

    @staticmethod
    def name_refusal(name: str) -> str:
        return f"{name} is a record word" if name_problem(name) else ""

    def ask_counts(self, key: str, ask: Multiset) -> None:
        values = [int(word) for word in self.value(key).split(",")]
        counts = tuple(values.count(number) for number in range(ask.low, ask.high + 1))
        self.app.push(self.counts_entry(key, ask, counts, ""))

    def counts_entry(self, key: str, ask: Multiset, counts: tuple[int, ...], message: str) -> CountsEntry:
        def done(chosen: tuple[int, ...]) -> None:
            value = ",".join(str(number) for number, many in zip(range(ask.low, ask.high + 1), chosen)
                             for _ in range(many))
            reason = self.refusal(key, value) if value else f"No {ask.noun}: give some"
            if reason:
                self.app.push(self.counts_entry(key, ask, chosen, reason))
            else:
                self.set_option(key, value)

        fields = [Field(str(number), 0, MOST_OF_ONE, many)
                  for number, many in zip(range(ask.low, ask.high + 1), counts)]
        entry = CountsEntry(key.capitalize(), ask, fields, done)
        entry.message = message
        return entry

    # --- start ---

    def start(self) -> None:
        order = list(self.names)
        first = self.app.rng.choice(order) if self.first == RANDOM else self.first
        if self.shuffle:
            self.app.rng.shuffle(order)
        options = dict(self.values)
        if self.game.starter == FIRST_SEAT and first:
            at = order.index(first)  # the seats turned round: the order round the table stays
            order = order[at:] + order[:at]
        elif self.game.starter and first and first != order[0]:
            options[self.game.starter] = first
        header = Header(self.game, tuple(order), tuple((k, options[k]) for k in self.game.options if k in options))
        try:
            header.start()
        except ValueError as err:  # a deck set for fewer players: the list stays, and says why
            self.app.push(Page("Cannot start", str(err)))
            return
        seats = [seat_line(self.companion)] if self.companion else []
        self.app.open(self.app.store.create(self.game.id, header.lines() + seats))
        self.app.remember([name for name in order if name in self.typed or name in self.app.config.remembered])
        if self.shuffle:
            self.app.toast("Order: " + " ".join(order))
        elif self.first == RANDOM:
            self.app.toast(f"{first} starts")


def shown(spec: OptionSpec, value: str) -> str:
    """An option's value in a few words: itself when short, else standard or its size."""
    if spec.choices:
        return value
    if spec.parse(value) == spec.parse(spec.default):
        return "standard"
    if isinstance(spec.ask, Multiset):
        return f"{len(value.split(','))} {spec.ask.noun}"
    return "your own"


class CountsEntry(Numbers):
    """How many of each number an option's multiset holds (a deck's cards of each value),
    all in view: each number with its count under it, the count at hand lit. Up and down
    change it, select (or right) goes on to the next, and select on the last is done."""

    COLS = 5
    CELL = WIDTH // COLS
    ROWS_TOP = HEADER + 1
    ROW = 17

    def __init__(self, title: str, ask: Multiset, fields: list[Field],
                 done: Callable[[tuple[int, ...]], None]) -> None:
        super().__init__(title, fields, done, backdrop=lambda draw: None, pairs=False)
        self.ask = ask

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        header(draw, self.title, f"{sum(self.values)} {self.ask.noun} {self.ask.per}".strip())
        if self.message:  # a refusal, whole, over the counts until the next press
            draw.rectangle((0, HEADER + 1, WIDTH - 1, HEIGHT - 1), fill=WHITE)
            for row, line in enumerate(wrap(self.message, 11, WIDTH - 4)[:4]):
                text(draw, (2, HEADER + 12 + 12 * row), line, 11, BLACK)
            return
        for at, (spec, many) in enumerate(zip(self.numbers, self.values)):
            row, col = divmod(at, self.COLS)
            x, top = col * self.CELL, self.ROWS_TOP + row * self.ROW
            baseline = top + 13
            text(draw, (x + 3, baseline), spec.label, 10)
            middle = x + self.CELL - 9
            if at == self.at:
                draw.rectangle((middle - 8, top + 2, middle + 7, top + self.ROW - 1), fill=WHITE)
            text(draw, (middle, baseline), str(many), 12, BLACK if at == self.at else WHITE, anchor="ms")
        text(draw, (2, HEIGHT - 4), f"{self.ask.noun.capitalize()} of each value", 11)

