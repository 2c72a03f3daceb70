"""Every house default ([D] in the rules as implemented) that a rules page touches is labelled
"house default" there, in the same sentence, and survives the wrapping of the page on the
128x64 screen. The table below is the list of labels: a label on a page with no row here,
or a row whose words the page lost, fails."""

from __future__ import annotations

import re

import pytest

from companion.games import GAMES
from companion.ui.draw import WIDTH, length
from companion.ui.widgets import Page

LABEL = "house default"

#: (game, rules page topic, the page's words for the house default)
HOUSE_DEFAULTS = [
    ("microbot-racers", "", "3 laps"),
    ("microbot-racers", "", "Both robots wrecked at once: a draw"),
    ("microbot-racers", "first", "both lose it and you roll"),
    ("microbot-racers", "pick", "The card's spaces"),
    ("microbot-racers", "do", "If none left can be done at your go, they are lost"),
    ("microbot-racers", "do", "A turn, a drift or a jump breaks it"),
    ("microbot-racers", "do", "a forward move between two drifts, even across turns"),
    ("microbot-racers", "do", "Forward: a move, even one stopped at once, or a landed jump"),
    ("microbot-racers", "do", "+1 health, up to 6"),
    ("microbot-racers", "jump", "A miss costs 1 health in all"),
    ("microbot-racers", "hazard", "A switch that puts your own robot on a puddle"),
    ("microbot-racers", "puddle", "even if the mover crashed after it"),
    ("microbot-racers", "lap", "crosses the start line going the right way"),
    ("leaf-climbers", "", "2 or 3 also allowed"),
    ("leaf-climbers", "", "Meeples start on the corners in seat order"),
    ("leaf-climbers", "", "The last players crushed together: nobody wins"),
    ("leaf-climbers", "drop", "only that many fall"),
    ("leaf-climbers", "roll", "Unused points are lost, and you may stay"),
    ("penguin-panic", "", "10 of each colour"),
    ("penguin-panic", "", "red, yellow, green, blue, purple"),
    ("penguin-panic", "line", "fewer than 12"),
    ("penguin-panic", "bribe", "You cannot pay more fish than you have"),
    ("penguin-panic", "circles", "A circle nobody bribed counts as the placer's"),
    ("penguin-panic", "circles", "One player's circles go in the order that player likes"),
    ("penguin-panic", "score", "the earlier place in the last turn order wins"),
    ("gleebs-and-grues", "end", "also one whose steps were skipped"),
    ("gleebs-and-grues", "end", "a lone gleeb is a stack of one"),
    ("quick-lemmings", "", "even if an opponent's push carried the last one over"),
    ("quick-lemmings", "setup", "0 0 1 1 2 2 2 3 3 4 4"),
    ("quick-lemmings", "finish", "a pushed lemming is ahead of the one pushing it, so it crosses first"),
]


def sentences(page: str) -> list[str]:
    """A page cut into sentences (and lines), where a label applies."""
    return [s for s in re.split(r"(?<=\.)\s+|\n", page) if s]


@pytest.mark.parametrize(("game", "topic", "words"), HOUSE_DEFAULTS)
def test_each_house_default_is_labelled_on_its_page(game: str, topic: str, words: str) -> None:
    page = GAMES[game].pages[topic]
    assert any(words in s and LABEL in s for s in sentences(page)), (game, topic, words)
    shown = " ".join(Page("", page).lines)  # what the screen's lines say, in order
    assert words in shown


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_label_on_a_games_pages_is_in_the_table(game: str) -> None:
    labels = sum(page.count(LABEL) for page in GAMES[game].pages.values())
    assert labels == sum(1 for g, _, _ in HOUSE_DEFAULTS if g == game)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_page_line_fits_the_screen(game: str) -> None:
    """No word runs past the page's text width, where it would be cut off."""
    for page in GAMES[game].pages.values():
        assert all(length(line, 11) <= WIDTH - 10 for line in Page("", page).lines)


#: (game, rules page topic, words the table is told there: issue 25's corrections)
TOLD = [
    ("penguin-panic", "roll", "All sixes: roll them all again, as no die names a circle"),
    ("penguin-panic", "roll", "With ability 1, choose: place in any circle, or roll all again"),
    ("penguin-panic", "place", "A group links from igloo to neighbouring igloo, across circles too"),
    ("penguin-panic", "place", "never through the unused space in the middle of the yard, only round it"),
    ("penguin-panic", "place", "The bears block no link"),
    ("penguin-panic", "circles", "checked in the turn order of the players who bribed their bears, earliest first"),
    ("penguin-panic", "circles", "one that an earlier removal opened is left alone"),
    ("quick-lemmings", "turn", "its points move one of your own lemmings"),
    ("quick-lemmings", "move", "Spend the points on one of your own lemmings, not another player's"),
    ("quick-lemmings", "play", "A tile may go on bare ground, on an older tile (that one leaves play), "
                               "or under a lemming"),
    ("quick-lemmings", "finish", "Lemmings that cross in one move are logged in the order they cross"),
    ("quick-lemmings", "finish", "The first player with all their lemmings across wins"),
    ("microbot-racers", "do", "Jump: needs a run-up, a forward move as the robot's last movement"),
    ("microbot-racers", "do", "A repair keeps it."),
]


@pytest.mark.parametrize(("game", "topic", "words"), TOLD)
def test_the_table_is_told_the_corrected_rules(game: str, topic: str, words: str) -> None:
    """Said on the page, and still said once the page is wrapped for the screen."""
    page = GAMES[game].pages[topic]
    assert words in page
    assert words in " ".join(Page("", page).lines)


def test_leaf_climbers_d4_page_gives_the_movement_costs() -> None:
    page = GAMES["leaf-climbers"].pages["roll"]
    for cost in ("same height costs 1", "up costs 1 plus the rise", "down costs 2"):
        assert cost in page
