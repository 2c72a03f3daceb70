"""Penguin Panic on screen: the panel of the step at hand, and pages to flip to.

The panel under the header changes with the step: the ability track with what each free
space costs the player choosing, the bears and their bribers, everyone's fish as bars,
the circles the dice allow, the bag and the line, the final scores. The pages (from the
game menu) show everything at once: escapees and scores; fish; abilities and bears; where
all 50 penguins are.

Everything is drawn from the summary (records.md keys plus the engine's ``stage``,
``costs``, ``dice``, ``circles``, ``colours``, ``escapees`` and ``powers``), read as the
engine's ``PenguinSummary``; of the engine this module takes only that type and its
constants, never its state.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from PIL import ImageDraw

from companion.games.base import Form, Line, Prompt
from companion.games.frozen import replace
from companion.games.penguin_panic import CIRCLES, LINE, MAX_FISH, SPACES, TOTAL, PenguinSummary
from companion.games.penguin_panic_yard import doubt as yard_doubt
from companion.games.penguin_panic_yard import yard_of
from companion.ui.draw import BLACK, WHITE, bar, font, text
from companion.ui.figures import Box, View
from companion.ui.games import Screens

ROW = 10  # pixels per player row on the pages: five players below the header


def short(name: str, names: Sequence[str], size: int = 3) -> str:
    """``name`` cut to ``size`` letters, longer where another name starts the same way.

    >>> short("Anna", ["Anna", "Andy", "Bob"])
    'Ann'
    >>> short("Ann", ["Ann", "Anna"])
    'Ann'
    >>> short("Anna", ["Ann", "Anna"])
    'Anna'
    """
    for cut in range(min(size, len(name)), len(name) + 1):
        if not any(other != name and other[:cut] == name[:cut] for other in names):
            return name[:cut]
    return name


def tag(draw: ImageDraw.ImageDraw, box: Box, words: str, size: int = 10, filled: bool = True) -> None:
    """``words`` centred in ``box``: black on a white block, or white on black."""
    x0, y0, x1, y1 = box
    if filled:
        draw.rectangle(box, fill=WHITE)
    centre = (x0 + x1 + 1) // 2
    baseline = y0 + (y1 - y0 + 1 + size * 7 // 10) // 2
    text(draw, (centre, baseline), words, size, BLACK if filled else WHITE, x1 - x0, anchor="ms")


def columns(box: Box, count: int) -> list[Box]:
    """``box`` cut into ``count`` side-by-side boxes, a pixel apart."""
    x0, y0, x1, y1 = box
    width = (x1 - x0 + 2) // count
    return [(x0 + i * width, y0, x0 + (i + 1) * width - 2, y1) for i in range(count)]


# --- the panel: one picture for the step at hand ---


def panel(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """The picture of the step at hand (20 pixels high under the header)."""
    stage = summary.get("stage")
    if stage == "ability":
        ability_track(draw, summary, box)
    elif stage == "bribe":
        bears(draw, summary, box)
    elif stage == "turns" and summary["dice"]:
        circles(draw, summary, box)
    elif stage == "turns":
        fish_strip(draw, summary, box)
    elif stage == "over":
        score_strip(draw, summary, box)
    else:
        counts(draw, summary, box)


def ability_track(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """Spaces 1-7 over what each costs the player choosing (a dash: more fish than they
    have); a claimed space shows its player instead."""
    x0, y0, x1, y1 = box
    names = summary["players"]
    owner = {space: name for name, space in summary["abilities"].items()}
    costs = summary["costs"]
    fish = summary["fish"].get(summary["next"] or "", 0)
    draw.line((x0, y0 + 9, x1, y0 + 9), fill=WHITE)
    for space, (cx0, _, cx1, _) in enumerate(columns(box, SPACES), start=1):
        tag(draw, (cx0, y0, cx1, y0 + 8), str(space), 10, filled=False)
        below = (cx0 + 1, y0 + 10, cx1 - 1, y1)
        if space in owner:
            tag(draw, below, short(owner[space], names, 2), 10)
        elif costs:  # a space dearer than the fish in hand: a dash, not a price to read
            cost = costs[space - 1]
            tag(draw, below, str(cost) if cost is not None and cost <= fish else "-", 10, filled=False)


def bears(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """The five bears by circle: a bribed one shows its briber."""
    x0, y0, x1, y1 = box
    names = summary["players"]
    briber = {circle: name for name, circles in summary["bribes"].items() for circle in circles}
    draw.line((x0, y0 + 9, x1, y0 + 9), fill=WHITE)
    for circle, (cx0, _, cx1, _) in enumerate(columns(box, CIRCLES), start=1):
        tag(draw, (cx0, y0, cx1, y0 + 8), str(circle), 10, filled=False)
        if circle in briber:
            tag(draw, (cx0 + 1, y0 + 10, cx1 - 1, y1), short(briber[circle], names), 10)


def fish_bar(draw: ImageDraw.ImageDraw, box: Box, fish: int) -> None:
    """The fish track 0-10: lying, ten cells with ``fish`` filled; standing (a tall box),
    a gauge filled from the bottom."""
    x0, y0, x1, y1 = box
    if y1 - y0 > x1 - x0:
        draw.rectangle(box, outline=WHITE)
        draw.rectangle((x0, y1 - (y1 - y0) * min(fish, MAX_FISH) // MAX_FISH, x1, y1), fill=WHITE)
        return
    cell = max(2, (x1 - x0 + 2) // MAX_FISH)
    for index in range(MAX_FISH):
        left = x0 + index * cell
        top = y0 if index < fish else y1
        draw.rectangle((left, top, left + cell - 2, y1), fill=WHITE)


def fish_strip(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """Everyone's fish, in turn order, the player on turn inverted; then the line.

    Up to three players, name and number over a bar; four or five, the bar stands beside
    them (two letters of the name)."""
    x0, y0, x1, y1 = box
    names = summary["players"]
    upright = len(names) > 3
    line_width = 22
    for name, (cx0, _, cx1, _) in zip(summary["order"],
                                      columns((x0, y0, x1 - line_width, y1), len(names))):
        fish = summary["fish"][name]
        here = name == summary["next"]
        if upright:
            fish_bar(draw, (cx0, y0, cx0 + 3, y1), fish)
            tag(draw, (cx0 + 5, y0, cx1, y0 + 9), short(name, names, 2), 10, filled=here)
            text(draw, (cx0 + 6, y1), str(fish), 10)
        else:
            width = int(font(10).getlength(str(fish)))
            tag(draw, (cx0, y0, cx1 - width - 3, y0 + 9), short(name, names), 10, filled=here)
            text(draw, (cx1, y0 + 8), str(fish), 10, anchor="rs")
            fish_bar(draw, (cx0, y0 + 12, cx1 - 4, y1 - 1), fish)
    left = x1 - line_width + 2
    text(draw, (left, y0 + 8), "line", 10)
    text(draw, (left, y1), str(summary["line"]), 10)


def circles(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """The five circles, those the dice allow filled; then the faces rolled, usable ones
    filled (a 6 is, with ability 1)."""
    x0, y0, x1, y1 = box
    allowed = set(summary["circles"])
    size = y1 - y0 - 2
    for circle in range(1, CIRCLES + 1):
        left = x0 + (circle - 1) * (size + 2)
        on = circle in allowed
        draw.ellipse((left, y0 + 1, left + size, y1 - 1), outline=WHITE, fill=WHITE if on else BLACK)
        text(draw, (left + size // 2 + 1, y1 - 5), str(circle), 12, BLACK if on else WHITE, anchor="ms")
    faces = summary["dice"]
    two_rows = len(faces) > 2
    dice = columns((x0 + CIRCLES * (size + 2) + 3, y0, x1, y1), 2)
    for index, face in enumerate(faces):
        cx0, _, cx1, _ = dice[index % 2]
        top, bottom = (y0 + index // 2 * 10, y0 + index // 2 * 10 + 9) if two_rows else (y0, y1)
        usable = face in allowed or len(allowed) == CIRCLES
        draw.rectangle((cx0, top, cx1, bottom), outline=WHITE, fill=WHITE if usable else BLACK)
        tag(draw, (cx0, top, cx1, bottom), str(face), 10 if two_rows else 12, filled=usable)


def score_strip(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """The end: every player's score, best first, the winner's inverted."""
    _, y0, _, y1 = box
    names = summary["players"]
    for name, cell in zip(ranked(summary), columns(box, len(names))):
        cx0, _, cx1, _ = cell
        won = name in summary["winners"]
        draw.rectangle(cell, outline=WHITE, fill=WHITE if won else BLACK)
        tag(draw, (cx0 + 1, y0 + 1, cx1 - 1, y0 + 9), short(name, names), 10, filled=won)
        tag(draw, (cx0 + 1, y0 + 10, cx1 - 1, y1 - 1), str(summary["scores"][name]), 10, filled=won)


def counts(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """Before a round: what the bag holds, and what a line takes from it."""
    x0, y0, x1, _ = box
    text(draw, (x0 + 2, y0 + 13), f"Bag {summary['bag']}", 12)
    text(draw, (x1, y0 + 13), f"a line takes {LINE}", 10, anchor="rs")


# --- the pages ---


def ranked(summary: PenguinSummary) -> list[str]:
    """Players best first: score, then escapees, then the earlier place in turn order."""
    order = summary["order"]
    return sorted(order, key=lambda name: (-summary["scores"][name], -summary["escapees"][name],
                                           order.index(name)))


def colour_marks(colours: Sequence[str]) -> list[str]:
    """The shortest prefix that tells each colour apart: ``r y g b p`` by default."""
    return [short(colour, colours, 1) for colour in colours]


def rows(summary: PenguinSummary) -> tuple[int, int]:
    """Row height and type size for a row per player: 12 px type up to three players."""
    return (16, 12) if len(summary["players"]) <= 3 else (ROW, 10)


def player_rows(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box, order: Sequence[str],
                marked: Sequence[str | None]) -> Iterator[tuple[str, int, int]]:
    """Name each player's row, in ``order``, inverted for those ``marked``; yield each name
    with its row's top and baseline, for the figures drawn right of the name."""
    x0, y0, _, _ = box
    height, size = rows(summary)
    for row, name in enumerate(order):
        top = y0 + row * height
        tag(draw, (x0, top, x0 + 26, top + height - 2), short(name, summary["players"]), size,
            filled=name in marked)
        yield name, top, top + height - 3


def fish_page(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """A row per player in turn order: the fish track as a bar, and the number."""
    x0, _, x1, _ = box
    _, size = rows(summary)
    for name, top, base in player_rows(draw, summary, box, summary["order"], [summary["next"]]):
        fish_bar(draw, (x0 + 30, top + 1, x1 - 18, base), summary["fish"][name])
        text(draw, (x1, base), str(summary["fish"][name]), size, anchor="rs")


def order_page(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """A row per player in turn order: the ability claimed this round, the bears bribed."""
    x0, _, x1, _ = box
    _, size = rows(summary)
    for name, _, base in player_rows(draw, summary, box, summary["order"], [summary["next"]]):
        bribed = ",".join(str(circle) for circle in summary["bribes"][name]) or "-"
        text(draw, (x1, base), bribed, size, anchor="rs")
        room = x1 - x0 - 34 - int(font(size).getlength(bribed))
        text(draw, (x0 + 30, base), summary["powers"].get(name, "-"), 10, width=room)


def scores(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """A row per player, best first: escapees by colour, then the score of their sets;
    the winner inverted at the end."""
    x0, _, x1, _ = box
    _, size = rows(summary)
    colours = summary["colours"]
    for name, _, base in player_rows(draw, summary, box, ranked(summary), summary["winners"]):
        escaped = summary["escaped"][name]
        held = " ".join(f"{mark}{escaped[colour]}" for colour, mark in zip(colours, colour_marks(colours))
                        if escaped.get(colour))
        text(draw, (x0 + 30, base), held or "none yet", size, width=x1 - x0 - 56)
        text(draw, (x1, base), f"={summary['scores'][name]}", size, anchor="rs")


def penguins(draw: ImageDraw.ImageDraw, summary: PenguinSummary, box: Box) -> None:
    """Where all 50 penguins are, each place as a number and a bar of the 50."""
    x0, y0, x1, _ = box
    escaped = sum(summary["escapees"].values())
    places = (("bag", summary["bag"]), ("line", summary["line"]), ("board", summary["board"]),
              ("escaped", escaped), ("gone", summary["gone"]))
    for row, (where, count) in enumerate(places):
        top = y0 + row * ROW
        base = top + 8
        text(draw, (x0 + 1, base), where, 10)
        text(draw, (x0 + 58, base), str(count), 10, anchor="rs")
        bar(draw, (x0 + 62, top + 1, x1, top + ROW - 3), count, TOTAL)


VIEWS: tuple[View[PenguinSummary], ...] = (("Scores", scores), ("Fish", fish_page), ("Ability, bear", order_page),
                           ("Penguins", penguins))


def corner(summary: PenguinSummary) -> str:
    """The round of the question: once a round's line is empty, the next is drawn (the
    summary counts rounds begun: a round begins with its line)."""
    asks_next = summary["stage"] == "turns" and summary["line"] == 0
    return f"R{summary['round'] + asks_next}"


def summary_lines(summary: PenguinSummary) -> list[str]:
    """The summary page, a short fact a line: fish and escapes by player in turn order,
    their abilities, then the bag, the line and the board."""
    order = summary["order"] or summary["players"]
    lines = [f"{name}: {summary['fish'][name]} fish, {summary['escapees'][name]} out" for name in order]
    lines += [f"{name}: {summary['powers'][name]}" for name in order if summary["powers"].get(name)]
    lines += [f"Round {summary['round']}, bag {summary['bag']}",
              f"Line {summary['line']}, board {summary['board']}"]
    return lines


def ask(lines: Sequence[Line], prompt: Prompt) -> Prompt:
    """When the lines leave no room in a circle, the box asks whether it is full: the
    placer's full circle is the question's answer, what the rules ask next one press away."""
    full = yard_of(lines).full()
    asked = tuple(a for a in prompt.extras if isinstance(a, Form) and a.verb == "complete"
                  and not a.refusal and a.prefix[:1] in {(str(circle),) for circle in full})
    if not asked or not prompt.answers:
        return prompt
    return replace(prompt, question=f"{asked[0].actor}: circle {asked[0].prefix[0]} full?",
                   answers=asked, likely=0,
                   extras=(*prompt.answers, *(a for a in prompt.extras if a not in asked)))


def doubt(lines: Sequence[Line], line: Line) -> str:
    """The yard's bounds, checked before a placement or a full circle is logged."""
    return yard_doubt(yard_of(lines), line) if line.verb in ("place", "complete") else ""


#: What this game draws its own way (the rest is generic).
SCREENS: Screens[PenguinSummary] = Screens(panel=panel, corner=corner, doubt=doubt, ask=ask,
                                           summary_lines=summary_lines, views=VIEWS)
