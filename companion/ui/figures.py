"""Key figures always on the play screen: the generic panel and the header's corner figure;
and the pages of figures a player flips to when one panel is not enough.

Panels draw from the game's summary (records.md keys), so they never reach into a rules
engine's state. Games with a panel (or pages) of their own declare it in their
:class:`companion.ui.games.Screens`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Generic

from PIL import ImageDraw

from companion.games.base import Summary, SummaryT
from companion.intents import Intent
from companion.ui.draw import HEADER, HEIGHT, WIDTH, header, text
from companion.ui.widgets import Host, Screen

Box = tuple[int, int, int, int]
#: Draws a game's figures from its summary (``Panel[LeafSummary]``: Leaf-Climbers' own).
Panel = Callable[[ImageDraw.ImageDraw, SummaryT, Box], None]
#: A page of figures: its name and what draws it below the header.
View = tuple[str, Panel[SummaryT]]


def generic(draw: ImageDraw.ImageDraw, summary: Summary, box: Box) -> None:
    """Whatever numbers the summary has per player, two rows at most."""
    x0, y0, _, _ = box
    players = summary["players"]
    # The generic panel knows no game's keys: it finds the per-player one by its values.
    found = next(((k, v) for k, v in summary.items() if isinstance(v, dict) and v
                  and all(isinstance(n, int) and not isinstance(n, bool) for n in v.values())
                  and set(v) <= set(players)), None)
    if found is None:
        return
    per_player, values = found
    row_text = "  ".join(f"{name} {values.get(name, 0)}" for name in players)
    text(draw, (x0 + 1, y0 + 8), f"{per_player}:", 10)
    text(draw, (x0 + 1, y0 + 18), row_text, 10)


def in_words(value: object) -> str:
    """A summary value in plain words: numbers by player, lists spaced, nothing as "-".

    >>> in_words({"Ann": 3, "Bob": 1}), in_words([1, 2]), in_words(None), in_words(True)
    ('Ann 3, Bob 1', '1 2', '-', 'yes')
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ", ".join(f"{key} {in_words(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(in_words(item) for item in value) or "none"
    return str(value)


def generic_summary(summary: Summary) -> list[str]:
    """A game without a summary page of its own: each of its keys, in words."""
    return [f"{key.replace('_', ' ')}: {in_words(value)}" for key, value in summary.items()
            if key not in Summary.__annotations__]


def corner(summary: Summary) -> str:
    """The short figure in the header's right corner: the turn or round (rounds begun; a
    game whose question can be the next round's first says so with its own ``corner``).

    Any game's "turn" or "round" detail counts, so the generic screens read the summary's
    game keys as a plain mapping (``Summary`` names only the shared ones).
    """
    details: Mapping[str, object] = summary
    for key, label in (("turn", "T"), ("round", "R")):
        value = details.get(key)
        if isinstance(value, int):
            return f"{label}{value}"
    return ""


def whose(summary: Summary) -> str:
    """Whose turn it is, as the header says it (short: a page's name shares the bar)."""
    if summary["over"]:
        return "Over"
    return "Table" if summary["next"] == "table" else str(summary["next"])


class Views(Screen, Generic[SummaryT]):
    """A game's pages of figures: up/down or left/right flip through them, select or back
    goes back.

    The header keeps whose turn it is on the left, the page's name on the right.
    """

    def __init__(self, views: tuple[View[SummaryT], ...], summary: Callable[[], SummaryT],
                 at: int = 0) -> None:
        self.views = views
        self.summary = summary
        self.at = at

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        summary = self.summary()
        name, paint = self.views[self.at]
        header(draw, whose(summary), f"{name} {self.at + 1}/{len(self.views)}")
        paint(draw, summary, (0, HEADER + 1, WIDTH - 1, HEIGHT - 1))

    def on(self, intent: Intent, host: Host) -> None:
        """Up/down (and left/right) flip; select or back goes back. No key acts on the
        game from here: a press too many never lands on the play screen's answers."""
        if intent.kind in ("up", "down", "left", "right"):
            self.at = (self.at + (1 if intent.kind in ("down", "right") else -1)) % len(self.views)
        elif intent.kind in ("select", "back", "context"):
            host.pop()
