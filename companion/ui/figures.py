"""Key figures of each game, always on the play screen: a small picture where one helps.

Each panel draws from the game's summary (records.md keys), so it never reaches into a
rules engine's state. Games without a panel of their own get the generic one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import ImageDraw

from companion.ui.draw import BLACK, WHITE, WIDTH, pips, text

Box = tuple[int, int, int, int]
Panel = Callable[[ImageDraw.ImageDraw, dict[str, Any], Box], None]


def microbot_racers(draw: ImageDraw.ImageDraw, summary: dict[str, Any], box: Box) -> None:
    """Per robot: name, health as six pips, laps done of laps to win, P1 and privilege."""
    x0, y0, _, _ = box
    laps_to_win = summary.get("laps_to_win", 0)
    for row, name in enumerate(summary["players"]):
        y = y0 + row * 10
        text(draw, (x0 + 1, y + 8), name, 10, width=32)
        pips(draw, x0 + 33, y + 2, summary["health"][name], 6, size=6, gap=2)
        laps = f"L{summary['laps'][name]}" + (f"/{laps_to_win}" if laps_to_win else "")
        text(draw, (x0 + 83, y + 8), laps, 10, width=27)
        if summary["p1"] == name:
            draw.rectangle((WIDTH - 16, y, WIDTH - 1, y + 9), fill=WHITE)
            text(draw, (WIDTH - 8, y + 8), "P1", 9, BLACK, anchor="ms")
        elif summary["privilege"][name]:
            text(draw, (WIDTH - 8, y + 8), "*", 10, anchor="ms")


def generic(draw: ImageDraw.ImageDraw, summary: dict[str, Any], box: Box) -> None:
    """Whatever numbers the summary has per player, two rows at most."""
    x0, y0, _, _ = box
    per_player = next((k for k, v in summary.items() if isinstance(v, dict) and v
                       and all(isinstance(n, int) and not isinstance(n, bool) for n in v.values())
                       and set(v) <= set(summary["players"])), None)
    if per_player is None:
        return
    values = summary[per_player]
    row_text = "  ".join(f"{name} {values.get(name, 0)}" for name in summary["players"])
    text(draw, (x0 + 1, y0 + 8), f"{per_player}:", 10)
    text(draw, (x0 + 1, y0 + 18), row_text, 10)


PANELS: dict[str, Panel] = {"microbot-racers": microbot_racers}


def corner(summary: dict[str, Any]) -> str:
    """The short figure in the header's right corner: the turn or round."""
    for key, label in (("turn", "T"), ("round", "R")):
        if isinstance(summary.get(key), int):
            return f"{label}{summary[key]}"
    return ""


def panel(game_id: str) -> Panel:
    """The panel for a game."""
    return PANELS.get(game_id, generic)
