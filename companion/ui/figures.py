"""Key figures always on the play screen: the generic panel and the header's corner figure.

Panels draw from the game's summary (records.md keys), so they never reach into a rules
engine's state. Games with a panel of their own register it in :mod:`companion.ui.games`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import ImageDraw

from companion.ui.draw import text

Box = tuple[int, int, int, int]
Panel = Callable[[ImageDraw.ImageDraw, dict[str, Any], Box], None]


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


def corner(summary: dict[str, Any]) -> str:
    """The short figure in the header's right corner: the turn or round."""
    for key, label in (("turn", "T"), ("round", "R")):
        if isinstance(summary.get(key), int):
            return f"{label}{summary[key]}"
    return ""
