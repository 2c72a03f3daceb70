"""Quick Lemmings through the real loop: mock buttons in, the dummy display's frame out."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from companion.games import GAMES
from companion.games.base import Line
from companion.record import Header
from companion.session import Session
from companion.ui.play import PlayScreen
from companion.ui.widgets import VALUE_SIZE, Numbers
from tests.harness import Harness

GAME_ROW = 4  # Quick Lemmings is the fifth game on the New game menu
TERRAINS = ("forest", "water", "mountain", "swamp", "desert")


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def start_three(box: Harness) -> None:
    """Home > New game > Quick Lemmings > 3 players > Ann, Bob, Cat > 2 lemmings."""
    box.press("select")
    box.presses(*["down"] * GAME_ROW)
    box.presses("select", "down", "select", "select", "select", "select", "select")


def open_game(box: Harness, *lines: str, players: tuple[str, ...] = ("Ann", "Bob", "Cat")) -> Session:
    """A stored game with these lines already logged, open on the play screen."""
    session = Session.new(box.store, Header(GAMES["quick-lemmings"], players))
    for line in lines:
        session.play([Line.parse(line)])
    box.app.open(session.gid)
    box.daemon.refresh()
    return session


def play_card(box: Harness, terrain: str, value: int) -> None:
    """Play a card from the play screen: down or up to its terrain (the cursor starts on the
    terrain worth most), then up to the value from where the dial starts."""
    screen = box.app.top
    assert isinstance(screen, PlayScreen)
    labels = [item.label for item in screen.items()]
    distance = labels.index(terrain.capitalize()) - screen.cursor
    box.presses(*["down" if distance > 0 else "up"] * abs(distance), "select")
    dial = box.app.top
    assert isinstance(dial, Numbers)
    span = dial.numbers[0].high - dial.numbers[0].low + 1
    box.presses(*["up"] * ((value - dial.values[0]) % span), "select")


def logged(box: Harness) -> list[str]:
    """The lines stored for the open game."""
    session = box.app.session
    assert session is not None
    return [line for entry in box.store.entries(session.gid) for line in entry.lines]


def open_page(box: Harness, name: str) -> None:
    """The game menu (long press), down to the page, select."""
    box.long_press()
    menu = box.app.top
    names = [item.label for item in menu.items]  # type: ignore[attr-defined]
    box.presses(*["down"] * names.index(name), "select")


def test_a_new_game_starts_with_the_first_seat_and_the_card_entry(box: Harness) -> None:
    start_three(box)
    assert box.shows("Ann")  # whose turn, in the header
    assert box.shows("Ann: play or refill", 11)
    assert box.shows("Forest")  # every pile is worth the same: the first terrain
    assert box.shows("Ann: hand 4, draw 35", 10)  # 7 - 3 players; 50 - 15 dealt


def test_a_card_is_entered_terrain_then_value(box: Harness) -> None:
    start_three(box)
    box.presses("down", "down")
    assert box.shows("Mountain")
    box.press("select")
    assert box.shows("Ann: Mountain") and box.shows("value", 10)
    assert box.shows("4", VALUE_SIZE)  # a 4 is worth most on a fresh pile (as much as a 2 joining)
    box.press("down")
    assert box.shows("3", VALUE_SIZE)
    box.press("select")
    assert logged(box) == ["Ann play mountain 3"]


def test_after_a_new_pile_the_points_and_the_tile_are_shown_large(box: Harness) -> None:
    start_three(box)
    play_card(box, "mountain", 3)
    assert box.shows("Bob")  # the turn has passed
    box.wait(3)  # the result line has gone from over the panel
    assert box.shows("3", 20) and box.shows("pts", 10)
    assert box.shows("lay mountain", 10)
    assert box.shows("Ann: mountain 3", 9)  # whose points they are


def test_a_card_that_joins_a_pile_scores_the_pile_and_lays_no_tile(box: Harness) -> None:
    open_game(box, "Ann play water 4", "Bob play water 4", "Cat play water 3", "Ann play water 2")
    play_card(box, "water", 1)
    box.wait(3)
    assert box.shows("14", 20)  # 4 + 4 + 3 + 2 + 1
    assert box.shows("no tile", 10)
    assert box.shows("Bob: water 1", 9)


def test_a_third_zero_is_refused_with_the_reason_and_nothing_is_logged(box: Harness) -> None:
    open_game(box, "Ann play desert 0", "Bob play desert 0")
    play_card(box, "desert", 0)
    assert box.shows("no desert 0 is left", 11)
    assert logged(box) == ["Ann play desert 0", "Bob play desert 0"]
    assert box.shows("Cat")  # still Cat's turn


def test_a_value_outside_a_custom_deck_is_refused(box: Harness) -> None:
    session = Session.new(box.store, Header(GAMES["quick-lemmings"], ("Ann", "Bob"),
                                            (("deck", "0,2,2,9,9"),)))
    box.app.open(session.gid)
    play_card(box, "water", 5)
    assert box.shows("the deck has no 5", 11)
    assert logged(box) == []


def test_a_refill_says_what_it_draws_and_the_panel_shows_the_hand(box: Harness) -> None:
    start_three(box)
    box.presses(*["down"] * len(TERRAINS))  # after a card of each terrain
    assert box.shows("Refill, drop 0") and box.shows("draw 2", 10)
    box.presses("down", "down")
    assert box.shows("Refill, drop 2") and box.shows("draw 4", 10)
    box.press("select")
    assert logged(box) == ["Ann refill 2"]
    box.wait(3)
    assert box.shows("Bob: hand 5, draw 31", 10)


def test_the_piles_page_shows_what_each_card_gives_on_each_pile(box: Harness) -> None:
    # Water pile 4 4 3 2: a 0 or a 1 joins (13, 14 points); 2 and 3 start a new pile.
    open_game(box, "Ann play water 4", "Bob play water 4", "Cat play water 3", "Ann play water 2")
    open_page(box, "Piles")
    assert box.shows("Bob")  # whose turn stays in the header
    assert box.shows("Piles 1/4", 10)
    for name in ("For", "Wat", "Mtn", "Swp", "Des"):
        assert box.shows(name, 10)
    assert box.shows("13", 9) and box.shows("14", 9)
    summary = box.app.session.summary()  # type: ignore[union-attr]
    assert [g["value"] for g in summary["gains"]["water"]] == [0, 1, 2, 3]  # both 4s are out


def test_the_pages_flip_to_cards_players_and_tiles(box: Harness) -> None:
    open_game(box, "Ann play swamp 3", "Ann finish", "Bob refill 1")
    open_page(box, "Piles")
    box.press("down")
    assert box.shows("Cards 2/4", 10) and box.shows("Swp", 10)
    box.press("down")
    assert box.shows("Players 3/4", 10)
    assert box.shows("home 1/2", 10) and box.shows("hand 3", 10)  # Ann: dealt 4, played 1
    box.press("down")
    assert box.shows("Tiles 4/4", 10)
    assert box.shows("draw 33", 12) and box.shows("discards 2", 12)
    box.press("select")  # back to the play screen
    assert box.shows("Cat: play or refill", 11)


def test_a_finish_in_another_players_turn_wins_at_once(box: Harness) -> None:
    open_game(box, "Ann play forest 1", "Ann finish", players=("Ann", "Bob"))
    box.press("up")  # the extras just above the answer the cursor starts on, the first nearest
    assert box.shows("+ Ann finish")
    box.press("select")
    assert box.shows("Game over")
    assert box.shows("Ann wins!", 11)
    assert logged(box)[-1] == "Ann finish"
