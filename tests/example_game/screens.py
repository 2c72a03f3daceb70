"""Pig on screen: the example game's one screens declaration (docs/adding-a-game.md).

Pig has no board and rolls one die, so it keeps the plain board, square cells and rolls in
words; it draws its own panel and summary page. Screens read the summary (records.md
keys), typed as the engine's ``PigSummary`` so that mypy catches a misspelt key; of the
engine they take only that type, never its state.
"""

from __future__ import annotations

from PIL import ImageDraw

from companion.ui.draw import text
from companion.ui.figures import Box
from companion.ui.games import Screens
from tests.example_game.rules import PigSummary

CELL = 64  # pixels per player on the panel: two players a row


def panel(draw: ImageDraw.ImageDraw, summary: PigSummary, box: Box) -> None:
    """Each player's banked points, the player to move with this turn's points after them;
    with two players, the goal on the second row."""
    x0, y0, _, _ = box
    for seat, name in enumerate(summary["players"]):
        x, y = x0 + 1 + seat % 2 * CELL, y0 + 9 + seat // 2 * 10
        points = f" +{summary['turn_points']}" if name == summary["next"] and summary["turn_points"] else ""
        text(draw, (x, y), f"{name} {summary['scores'][name]}{points}", 10, width=CELL - 2)
    if len(summary["players"]) == 2:
        text(draw, (x0 + 1, y0 + 19), f"goal {summary['goal']}", 10)


def summary_lines(summary: PigSummary) -> list[str]:
    """The summary page: the goal, then each player's banked points.

    >>> summary_lines({"game": "pig", "players": ["Ann", "Bob"], "over": False, "winners": [],
    ...                "next": "Bob", "goal": 20, "scores": {"Ann": 11, "Bob": 0}, "turn_points": 4})
    ['Goal: 20 points', 'Ann 11', 'Bob 0 (4 this turn)']
    """
    lines = [f"Goal: {summary['goal']} points"]
    for name in summary["players"]:
        now = f" ({summary['turn_points']} this turn)" if name == summary["next"] and summary["turn_points"] else ""
        lines.append(f"{name} {summary['scores'][name]}{now}")
    return lines


#: What Pig draws its own way; everything else is the generic screens. Typed with Pig's
#: summary, so that mypy refuses a panel or page written for another game's summary.
SCREENS: Screens[PigSummary] = Screens(panel=panel, summary_lines=summary_lines)
