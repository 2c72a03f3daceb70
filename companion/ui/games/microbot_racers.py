"""Microbot Racers on screen: both robots' health, laps and P1 at a glance."""

from __future__ import annotations

from PIL import ImageDraw

from companion.games.microbot_racers import FULL_HEALTH, RaceSummary
from companion.ui.draw import BLACK, WHITE, WIDTH, pips, text
from companion.ui.figures import Box
from companion.ui.games import Screens


def panel(draw: ImageDraw.ImageDraw, summary: RaceSummary, box: Box) -> None:
    """Per robot: name, health as six pips, laps done of laps to win, P1 and privilege."""
    x0, y0, _, _ = box
    laps_to_win = summary.get("laps_to_win", 0)
    for row, name in enumerate(summary["players"]):
        y = y0 + row * 10
        text(draw, (x0 + 1, y + 8), name, 10, width=32)
        pips(draw, x0 + 33, y + 2, summary["health"][name], FULL_HEALTH, size=6, gap=2)
        laps = f"L{summary['laps'][name]}" + (f"/{laps_to_win}" if laps_to_win else "")
        text(draw, (x0 + 83, y + 8), laps, 10, width=27)
        if summary["p1"] == name:
            draw.rectangle((WIDTH - 16, y, WIDTH - 1, y + 9), fill=WHITE)
            text(draw, (WIDTH - 8, y + 8), "P1", 9, BLACK, anchor="ms")
        elif summary["privilege"][name]:
            text(draw, (WIDTH - 8, y + 8), "*", 10, anchor="ms")


def corner(summary: RaceSummary) -> str:
    """The turn of the question: once a turn is done, who is P1 is the next turn's (the
    summary counts turns begun)."""
    asks_next = summary["phase"] == "done" and not summary["over"]
    return f"T{summary['turn'] + asks_next}"


def summary_lines(summary: RaceSummary) -> list[str]:
    """The summary page, a short fact a line: the race, each robot's health and laps,
    who is P1 and who still holds the privilege, the cards still to do."""
    laps = summary["laps_to_win"]
    lines = [f"Turn {summary['turn']}, race to {laps}"]
    for name in summary["players"]:
        lines.append(f"{name} health {summary['health'][name]} lap {summary['laps'][name]}")
    if summary["p1"]:
        lines.append(f"P1: {summary['p1']}")
    spare = [name for name in summary["players"] if summary["privilege"][name]]
    lines.append("May take P1: " + (", ".join(spare) or "nobody"))
    for name in summary["players"]:
        if summary["picked"][name] and not summary["over"]:  # a finished race has nothing to do
            lines.append(f"{name} to do: {' '.join(summary['picked'][name])}")
    return lines


#: What this game draws its own way (the rest is generic).
SCREENS: Screens[RaceSummary] = Screens(panel=panel, corner=corner, summary_lines=summary_lines)
