"""History > Players and History > Dice on the box (issue 28 §4).

Players: a line per player (who won how often), then a page of their games. Dice: the
stored games are counted a slice at a time between presses (a press never waits for the
whole history), then a line per game, a line per die and source, and a chart of the faces
against a fair die's, with the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial

from PIL import ImageDraw

from companion.intents import Intent
from companion.stats import (
    SOURCE_WORDS,
    DiceCounter,
    PlayerRecord,
    Tally,
    counting,
    die_name,
    players,
)
from companion.store import Store
from companion.ui.draw import HEADER, HEIGHT, WHITE, WIDTH, header, length, text
from companion.ui.games import screen_title
from companion.ui.widgets import Host, Item, Menu, Page, Screen

#: Entries counted in one slice of the dice count, between two presses: about 5 ms on this
#: project's PC, some tens of milliseconds on a Pi Zero 2 (a press waits for one slice).
SLICE = 100
When = Callable[[float, bool], str]


def players_menu(store: Store, host: Host, when: When) -> Menu:
    """A line per player, the most wins first; each opens a page of their games."""
    records = players(store)
    names: dict[str, list[PlayerRecord]] = {}
    for record in records:
        names.setdefault(record.name, []).append(record)

    def page(name: str) -> None:
        lines = [f"{screen_title(r.game)}:\n{r.plays} played, {r.wins} won, last {when(r.last, r.last_synced)}"
                 for r in names[name]]
        host.push(Page(name, "\n".join(lines)))

    order = sorted(names, key=lambda n: (-sum(r.wins for r in names[n]), n.casefold()))
    items = [Item(name, partial(page, name), f"{sum(r.wins for r in names[name])} won") for name in order]
    return Menu("Players", items or [Item("None yet", host.pop)])


class DiceCount(Screen):
    """Counts every stored game's dice, a slice between presses, then shows the result."""

    title = "Dice"

    def __init__(self, store: Store, host: Host) -> None:
        self.store = store
        self.host = host
        self.games = store.game_ids()
        self.done = 0
        self.game: Iterator[None] | None = None  # the game being counted, from where it stopped
        self.counter = DiceCounter()
        self.shown = False

    @property
    def busy(self) -> bool:
        return not self.shown

    def work(self) -> None:
        counted = 0
        while self.done < len(self.games) and counted < SLICE:
            if self.game is None:
                self.game = counting(self.counter, self.store, self.games[self.done])
            counted += 1  # a game's own cost, entries or none
            for _ in self.game:  # a long game: a slice of its entries now, the rest after
                counted += 1
                if counted >= SLICE:
                    break
            else:
                self.game = None
                self.done += 1
        if self.done == len(self.games):  # counted: the result takes this screen's place
            self.shown = True
            self.host.pop()
            self.host.push(dice_menu(self.counter.tallies(), self.host))

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        header(draw, self.title)
        text(draw, (2, HEADER + 14), "Counting the dice:", 11)
        text(draw, (2, HEADER + 28), f"{self.done} of {len(self.games)} games", 11)

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind in ("back", "context"):
            host.pop()


def dice_menu(tallies: Sequence[Tally], host: Host) -> Menu:
    """A line per game with dice; each opens a line per die and source."""
    games: dict[str, list[Tally]] = {}
    for tally in tallies:
        games.setdefault(tally.game, []).append(tally)

    def game(game_id: str) -> None:
        # Titled "Dice", not the game: the top bar's corner then has room for the chosen
        # line's verdict, which has none beside "d20 typed or read" (the game is the line
        # chosen a screen before, and the chart's page names it).
        host.push(Menu("Dice", [
            Item(f"{die_name(t.sides)} {SOURCE_WORDS[t.source]}", partial(host.push, DiceChart(t)), short(t))
            for t in games[game_id]]))

    items = [Item(screen_title(g), partial(game, g), f"{sum(t.rolls for t in games[g])} rolls") for g in games]
    return Menu("Dice", items or [Item("No dice yet", host.pop)])


def short(tally: Tally) -> str:
    """The verdict in a few words: what a menu line's hint and the chart's last line say.

    >>> short(Tally("microbot-racers", "device", 6, (1, 2, 3, 4, 5, 6)))
    'too few: 21 of 30'
    """
    found = tally.verdict()
    if found.p is None:
        return found.words.replace("too few rolls to tell", "too few")
    return "nothing unusual" if found.words == "nothing unusual" else f"uneven: p = {found.p:.2g}"


class DiceChart(Screen):
    """One die's faces as bars, the line a fair die would reach across them, and the
    verdict; select opens the counts and the verdict in full."""

    BARS = (HEADER + 3, HEIGHT - 21)  # the bars' top and bottom rows
    LABELS = HEIGHT - 11  # the face numbers' baseline
    VERDICT = HEIGHT - 1

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.title = f"{die_name(tally.sides)} {SOURCE_WORDS[tally.source]}"

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        tally = self.tally
        header(draw, self.title, str(tally.rolls))
        top, bottom = self.BARS
        fair = tally.rolls / tally.sides
        most = max(max(tally.counts), fair) or 1
        width = (WIDTH - 4) // tally.sides
        left = (WIDTH - width * tally.sides) // 2
        for face, count in enumerate(tally.counts):
            x = left + face * width
            height = round((bottom - top) * count / most)
            if height:
                draw.rectangle((x + 1, bottom - height + 1, x + width - 1, bottom), fill=WHITE)
        level = bottom - round((bottom - top) * fair / most)
        for x in range(left, left + width * tally.sides, 2):  # a dotted line: a fair die's count
            draw.point((x, level), fill=WHITE)
        for face in faces_labelled(tally.sides, width):
            middle = left + (face - 1) * width + width // 2 + 1
            text(draw, (middle, self.LABELS), str(face), 10, anchor="ms")
        text(draw, (2, self.VERDICT), short(tally), 10)

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind == "select":
            host.push(Page(self.title, details(self.tally)))
        elif intent.kind in ("back", "context"):
            host.pop()


def faces_labelled(sides: int, width: int) -> list[int]:
    """The faces that get their number under their bar: all when the numbers fit, else
    the first, every fifth and the last."""
    if length(str(sides), 10) + 2 <= width:
        return list(range(1, sides + 1))
    return sorted({1, sides, *range(5, sides, 5)})


def details(tally: Tally) -> str:
    """The counts and the verdict in full, for a page."""
    found = tally.verdict()
    faces = ", ".join(f"{face}: {count}" for face, count in enumerate(tally.counts, start=1))
    fair = tally.rolls / tally.sides
    return (f"{screen_title(tally.game)}, {die_name(tally.sides)}, {SOURCE_WORDS[tally.source]}.\n"
            f"{tally.rolls} rolls. Faces {faces}. A fair die: {fair:.1f} each.\n"
            f"{found.words[:1].upper()}{found.words[1:]}.")
