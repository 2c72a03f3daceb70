"""Quick Lemmings through the real loop: mock buttons in, the dummy display's frame out."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest
from PIL import Image

from companion.games import GAMES
from companion.games.base import Line
from companion.games.quick_lemmings import Gain, LemmingsSummary
from companion.record import Header
from companion.session import Session
from companion.ui.board import BoardScreen
from companion.ui.games.quick_lemmings import CARD_LABEL, NAME_ROW
from companion.ui.play import PlayScreen
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
    """Play a card from the play screen as the three-button build does: "Play a card" (where
    the cursor starts), then up the table of the cards (from the card worth most, up the
    piles' columns, stopping on each card that may be in a hand) to it, and select."""
    screen = box.app.top
    assert isinstance(screen, PlayScreen) and screen.items()[screen.cursor].label == "Play a card"
    box.press("select")
    table = box.app.top
    assert isinstance(table, BoardScreen)
    square = (TERRAINS.index(terrain) + 1, table.grid.row_words.index(str(value)) + 1)
    for _ in range(table.grid.cols * table.grid.rows):
        if table.cursor == square:
            break
        box.press("up")
    box.press("select")


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
    assert box.shows("Play a card")
    assert box.shows("Ann: hand 4, draw 35", 10)  # 7 - 3 players; 50 - 15 dealt


def test_a_card_is_picked_on_the_table_of_the_cards_from_the_one_worth_most(box: Harness) -> None:
    start_three(box)
    box.press("select")
    # Every pile a 2: a 4 starts a new one for 4 points, as much as a 2 joining: the first
    # pile's, the higher card.
    assert box.shows("forest 4") and box.shows("4 pts", 10) and box.shows("lay forest", 10)
    box.press("up")  # up the forest column: a 3 (new pile, 3 points)
    assert box.shows("forest 3") and box.shows("3 pts", 10)
    box.press("up")  # a 2 joins the starter: 4 points, no tile
    assert box.shows("forest 2") and box.shows("joins", 10)
    box.press("select")
    assert logged(box) == ["Ann play forest 2"]


def test_a_card_table_on_a_joystick_walks_the_piles_with_right_and_left(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path, "adafruit-bonnet")
    open_game(box)
    box.press("right")  # opens the table, and moves to the next pile at once
    assert isinstance(box.app.top, BoardScreen) and box.shows("water 4")
    box.presses("right", "up", "select")  # mountain, up its column to the card above: 3
    assert logged(box) == ["Ann play mountain 3"]
    box.close()


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


def test_a_third_zero_is_refused_with_the_reason_and_nothing_is_logged(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path, "adafruit-bonnet")
    open_game(box, "Ann play desert 0", "Bob play desert 0")
    box.press("select")
    table = box.app.top
    assert isinstance(table, BoardScreen)
    while table.cursor != (1, 5):  # up the columns to forest 0, on the top row
        box.press("up")
    box.presses(*["right"] * 4)  # along the row: desert 0, where up and down never stop
    assert box.shows("desert 0")
    box.press("select")
    assert box.shows("no desert 0 is left", 11)
    assert logged(box) == ["Ann play desert 0", "Bob play desert 0"] and box.shows("Cat")  # still Cat's turn
    box.close()


#: The kinds of cell on the table of the cards: what the card gives, as the piles page draws it.
CELLS: dict[str, Gain | None] = {
    "points": Gain(value=2, points=14, new_pile=False, tile=None),  # white on black
    "new pile": Gain(value=2, points=4, new_pile=True, tile="water"),  # white, black points
    "meadow": Gain(value=2, points=4, new_pile=True, tile="meadow"),  # white, "4m"
    "no tile left": Gain(value=2, points=3, new_pile=True, tile=None),  # outlined
    "no such card": None,  # a dot
}


def ring(image: Image.Image, left: int, top: int, right: int, bottom: int) -> list[int]:
    """The pixels round the edge of a box."""
    return ([image.getpixel((x, y)) for x in range(left, right + 1) for y in (top, bottom)]
            + [image.getpixel((x, y)) for y in range(top + 1, bottom) for x in (left, right)])


@pytest.mark.parametrize("kind", CELLS)
def test_the_cursor_stands_out_on_every_kind_of_cell_of_the_card_table(box: Harness, kind: str) -> None:
    """The card under the cursor is framed apart from what its cell holds, among white cells
    (the worst neighbours): a lit ring all round, and an unlit ring just inside it (a frame
    against a white cell's fill or its outline would only make the white bigger). Where the
    frame goes is what the cursor changes on a cell of points (the same place for any kind)."""
    open_game(box)
    box.press("select")
    table = box.app.top
    assert isinstance(table, BoardScreen)
    summary: LemmingsSummary = table.summary()
    square = (TERRAINS.index("water") + 1, table.grid.row_words.index("2") + 1)

    def shown(cell: Gain | None, cursor: tuple[int, int]) -> Image.Image:
        """The cells alone (not their labels), every card a new pile but the square's."""
        gains = {terrain: [Gain(value=v, points=4, new_pile=True, tile=terrain) for v in range(5)]
                 for terrain in TERRAINS}
        gains["water"] = [g for g in gains["water"] if g["value"] != 2] + ([cell] if cell else [])
        table.summary = lambda: {**summary, "gains": gains}  # type: ignore[method-assign]
        table.cursor = cursor
        return box.app.frame().convert("1").crop((1 + CARD_LABEL, NAME_ROW, table.cell_width * table.grid.cols, 64))

    # What differs from both frames with the cursor away at two corners: the cell's own change.
    points = CELLS["points"]
    on, away = shown(points, square), [shown(points, corner) for corner in ((1, 1), (5, 5))]
    both = Image.new("1", on.size)
    both.putdata([int(all(on.getpixel((x, y)) != off.getpixel((x, y)) for off in away))
                  for y in range(on.height) for x in range(on.width)])
    frame = both.getbbox()
    assert frame is not None, "the cursor changes nothing on a cell"
    left, top, right, bottom = frame[0], frame[1], frame[2] - 1, frame[3] - 1
    framed = shown(CELLS[kind], square)
    assert all(ring(framed, left, top, right, bottom)), "the cursor's frame is not lit all round"
    assert not any(ring(framed, left + 1, top + 1, right - 1, bottom - 1)), \
        "nothing unlit between the cursor's frame and the cell"


def test_the_table_of_the_cards_has_a_custom_decks_values(box: Harness) -> None:
    session = Session.new(box.store, Header(GAMES["quick-lemmings"], ("Ann", "Bob"),
                                            (("deck", "0,2,2,9,9"),)))
    box.app.open(session.gid)
    box.press("select")
    table = box.app.top
    assert isinstance(table, BoardScreen) and table.grid.row_words == ("9", "2", "0")
    box.press("select")
    assert logged(box) == ["Ann play forest 9"]


def test_a_refill_says_what_it_draws_and_the_panel_shows_the_hand(box: Harness) -> None:
    start_three(box)
    box.press("down")  # just after a card
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


@pytest.mark.parametrize("points", [4, 16])
def test_every_kind_of_cell_of_the_card_table_draws_its_points_whole_and_apart(box: Harness, points: int) -> None:
    """Two-digit points take a cell's whole width: a meadow's ``m`` beside them cut them to
    "1~" and an outline's sides ran into them. Every kind, away from the cursor, draws its
    points whole (the drawing check on every test), and each kind looks unlike the others."""
    open_game(box)
    box.press("select")
    table = box.app.top
    assert isinstance(table, BoardScreen)
    summary: LemmingsSummary = table.summary()
    table.cursor = (1, 1)
    looks = set()
    for cell in CELLS.values():
        if cell is None:
            continue
        gains = {terrain: [Gain(value=v, points=points, new_pile=cell["new_pile"], tile=cell["tile"])
                           for v in range(5)] for terrain in TERRAINS}
        table.summary = lambda gains=gains: {**summary, "gains": gains}  # type: ignore[method-assign]
        frame = box.app.frame().convert("1")
        looks.add(frame.crop((1 + CARD_LABEL + 2 * table.cell_width, 30, 58, 60)).tobytes())  # away from the cursor
    assert len(looks) == len([cell for cell in CELLS.values() if cell is not None])
