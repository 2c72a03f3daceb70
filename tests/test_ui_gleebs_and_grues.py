"""Gleeb's and Grues through the real loop: mock pins in, the dummy display read back.

The board picture, moves by the cursor, the device's grue pick, hints, and a seat the
companion plays. The companion thinks for a few hundredths of a second here.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest
from PIL import Image, ImageDraw

import companion.ai as ai
from companion.games import GAMES
from companion.games.base import Grid, Line
from companion.games.gleebs_and_grues import SQUARES, GleebsAndGrues
from companion.record import Header, replay_text
from companion.session import Session
from companion.ui.board import BoardScreen, BoardView
from companion.ui.draw import blank
from companion.ui.games.gleebs_and_grues import paint
from tests.games.scenarios import SPEC_SETUP as SETUP
from tests.harness import Harness

GAME = GAMES["gleebs-and-grues"]
ENGINE = GleebsAndGrues()


@pytest.fixture
def box(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
    monkeypatch.setattr(ai, "THINK", 0.05)
    harness = Harness(tmp_path, preset="adafruit-bonnet")  # a joystick
    yield harness
    harness.close()


def open_game(box: Harness, *lines: str, companion: tuple[str, ...] = (),
              options: tuple[tuple[str, str], ...] = ()) -> Session:
    """A stored game played up to ``lines``, open on the play screen."""
    header = Header(GAME, ("Ann", "Bob"), options).lines() + [ai.seat_line(name) for name in companion]
    session = Session(box.store, box.store.create(GAME.id, header))
    for text in lines:
        session.play([Line.parse(text)])
    box.app.open(session.gid)
    box.daemon.refresh()
    return box.app.session  # type: ignore[return-value]


def logged(box: Harness) -> list[str]:
    session = box.app.session
    assert session is not None
    return [line for entry in box.store.entries(session.gid, session.head) for line in entry.lines]


def start_new_game(box: Harness) -> None:
    """Home > New game > Gleeb's and Grues > Ann > Bob: the set-up list."""
    box.press("select")
    for _ in range(list(GAMES).index(GAME.id)):
        box.press("down")
    box.presses("select", "select", "select")


# --- setting up ---


def test_the_device_picks_the_grues_squares_and_undo_offers_them_again(box: Harness) -> None:
    start_new_game(box)
    assert box.shows("Start game") and box.shows("Companion") and box.shows("nobody", 10)
    box.press("select")  # Start game: Ann first, the companion playing nobody
    assert box.shows("Table") and box.shows("Grues: which squares?", 10)
    assert box.shows("Random squares")
    box.press("select")
    (line,) = logged(box)
    squares = line.split()[2:]
    assert line.startswith("table grues ") and len(set(squares)) == 3 and set(squares) <= set(SQUARES)
    assert box.shows("Ann")  # Ann places first
    box.long_press()
    box.presses("down", "select")  # the game menu's line under "Back to the game": Undo
    assert box.shows(f"Use {' '.join(squares)} again")  # undo is no free re-pick


def test_placement_is_a_piece_from_the_list_the_largest_first_then_a_square_on_the_board(
        box: Harness) -> None:
    open_game(box, SETUP[0])
    assert box.shows("Place B3")
    box.presses("down", "down", "down", "down")
    assert box.shows("Place B1")
    box.press("select")  # the board, the cursor on the first empty square, a1
    assert box.shows("Place B1", 10) and box.shows("a1")
    box.press("up")  # the next empty square up the column: a2 (b2, c3 and d4 hold the grues)
    assert box.shows("a2")
    box.press("select")
    assert logged(box)[-1] == "Ann place B1 a2"
    assert box.shows("Bob") and box.shows("Place G3")


# --- moves by the cursor ---


def test_a_gleeb_step_is_picked_on_the_board_and_a_bad_landing_refused(box: Harness) -> None:
    open_game(box, *SETUP)
    assert box.shows("Ann: move a gleeb", 11)
    box.press("select")  # the board; the cursor starts on a stack that can move: a1
    assert box.shows("a1") and box.shows("B1", 10) and box.shows("Ann: 1 pip", 10)
    box.press("select")  # pick a1's stack
    box.press("right")  # b1: Ann's own B3, where B1 may not land
    assert box.shows("a1→b1")  # the move being made, beside the board
    box.press("select")  # another stack of hers: the pick goes over to it
    assert logged(box) == SETUP and not box.app.top.message
    assert box.shows("b1") and box.shows("B3", 10)
    box.press("back")  # let it go; up to the next stacks that can move: b4, then c2
    box.presses("up", "up", "select")
    assert box.shows("c2") and box.shows("B2", 10)
    box.press("left")  # b2, along the row: a grue
    assert box.shows("c2→b2")
    box.press("select")
    assert box.shows("nothing can land on", 11)  # "... a grue or a pinned stack", over the board
    assert logged(box) == SETUP  # nothing logged, still on the board, c2 still picked
    box.presses("up", "select")  # up to where c2 can go next: c1, onto R1
    assert logged(box)[-1] == "Ann move c2 c1"
    board = box.app.top  # the grue's step next, on the board at once
    assert isinstance(board, BoardScreen) and board.grid.verb == "grue" and box.shows("Ann")


def test_a_stack_that_cannot_move_is_refused_when_picked_not_at_its_destination(box: Harness) -> None:
    open_game(box, *SETUP)
    box.press("select")  # the board, on a1
    box.presses("down", "down", "left", "left", "select")  # d1, c2 (stacks that move), b2, a2: Bob's G1
    assert box.shows("a2 holds no stack", 11)  # "... you control": at once, nothing picked
    box.press("down")  # a1: Ann's stack can be picked as ever; Bob's was never picked
    assert box.shows("a1")
    box.press("select")
    box.presses("up", "up", "select")  # a3: onto her own yellow Y2
    assert logged(box)[-1] == "Ann move a1 a3"


def test_the_only_square_a_pick_can_go_to_is_shown_as_the_move_and_walked_to_as_ever(
        box: Harness) -> None:
    # Ann's B1 on a1 can only go to a2: a3 and b1 are blue, c1 is empty, grues on a4 and d1
    open_game(box, "table grues a4 d1 d4", "Ann place B1 a1", "Bob place G1 a2", "Ann place B2 a3",
              "Bob place G2 b2", "Ann place B3 b1", "Bob place G3 c2", "Ann place Y1 c3",
              "Bob place R1 d3", "Ann place Y2 b3", "Bob place R2 d2", "Ann place Y3 b4",
              "Bob place R3 c4")
    box.press("select")
    assert box.shows("a1")
    box.press("select")  # the cursor goes to a2 by itself, and says so
    assert box.shows("a1→a2")
    box.press("right")  # a press moves one square, as ever: b2, and the move says so
    assert box.shows("a1→b2")
    box.press("select")  # refused, and the pick is kept
    assert box.shows("a stack moves", 11) and logged(box)[-1] == "Bob place R3 c4"
    box.presses("left", "select")
    assert logged(box)[-1] == "Ann move a1 a2"


def test_a_grue_walk_is_refused_with_the_capture_that_must_be_made(box: Harness) -> None:
    open_game(box, *SETUP, "Ann move a1 a2")
    box.press("select")  # the board, on the first grue that can move: K1 on b2
    assert box.shows("b2") and box.shows("free grue", 10)
    box.presses("up", "select")  # the next that can move: K2 on c3
    box.presses("right", "select")  # d3: an empty square
    assert box.shows("a grue must land on", 11)  # "... K2 can eat at c2"
    assert logged(box)[-1] == "Ann move a1 a2"
    box.presses("down", "select")  # c3, still picked, to c4: K2 eats G2
    assert logged(box)[-1] == "Ann grue c3 c4"
    assert box.shows("Bob")


# --- the board picture ---


def picture(board: dict[str, list[str]], cursor: tuple[int, int] = (4, 4),
            marked: frozenset[tuple[int, int]] = frozenset(),
            picked: tuple[tuple[int, int], ...] = ()) -> Image.Image:
    image = blank()
    grid = Grid("", "Ann", "move", 4, 4, (), steps=2, spell="alg")
    paint(ImageDraw.Draw(image), BoardView({"board": board}, (0, 0, 63, 63), cursor, marked, picked), grid)
    return image


def square(image: Image.Image, name: str) -> Image.Image:
    col, row = "abcd".index(name[0]), int(name[1])
    x, y = col * 16, (4 - row) * 16
    return image.crop((x + 2, y + 2, x + 14, y + 14))  # the tile, rings left out


def lit(image: Image.Image) -> int:
    return sum(image.histogram()[1:])


def test_the_first_seats_stacks_are_white_tiles_the_seconds_black() -> None:
    image = picture({"a1": ["B2"], "b1": ["G2"], "c1": ["R1", "Y3"], "d1": ["Y1", "R3"]})
    assert lit(square(image, "a1")) > 100 and lit(square(image, "c1")) > 100  # mostly white
    assert lit(square(image, "b1")) < 40 and lit(square(image, "d1")) < 40


def test_sizes_differ_by_pips_and_grues_by_pyramid_size() -> None:
    sizes = picture({"a1": ["G1"], "b1": ["G2"], "c1": ["G3"], "a2": ["K1"], "b2": ["K2"], "c2": ["K3"]})
    gleebs = [lit(square(sizes, s)) for s in ("a1", "b1", "c1")]
    grues = [lit(square(sizes, s)) for s in ("a2", "b2", "c2")]
    assert gleebs[0] < gleebs[1] < gleebs[2]
    assert grues[0] < grues[1] < grues[2]


def test_stack_height_pinned_stacks_and_rings_are_told_apart() -> None:
    image = picture({"a1": ["G1"], "b1": ["B1", "G1"], "c1": ["B1", "R2", "G1"],
                     "a2": ["K2"], "b2": ["B2", "G2", "K2"]},
                    cursor=(1, 3), marked=frozenset({(2, 3)}), picked=((3, 3),))
    one, two, three = (lit(square(image, s)) for s in ("a1", "b1", "c1"))
    assert one < two < three  # a tick a piece
    free, pinned = lit(square(image, "a2")), lit(square(image, "b2"))
    assert pinned != free
    assert square(image, "b2").getpixel((0, 0)) == 1 and square(image, "a2").getpixel((0, 0)) == 0  # a cage
    rings = [image.crop((x, 16, x + 16, 32)) for x in (0, 16, 32)]  # a3 cursor, b3 legal, c3 picked
    assert lit(rings[1]) < lit(rings[0]) < lit(rings[2])


# --- hints and the companion's seat ---


def test_a_hint_from_the_game_menu_is_a_legal_move_played_with_one_press(box: Harness) -> None:
    session = open_game(box, *SETUP)
    box.long_press()
    assert box.shows("Hint")
    box.presses("down", "down", "select")  # under "Back to the game" and undo
    assert box.shows("Hint:", 12)
    assert box.shows("Play it")
    before = session.state
    box.press("select")
    (line,) = logged(box)[len(SETUP):]
    assert Line.parse(line) in ENGINE.legal_lines(before)


def test_a_seat_handed_to_the_companion_is_stored_and_its_moves_shown(box: Harness) -> None:
    start_new_game(box)
    box.presses("down", "down", "select")  # Companion
    assert box.shows("Companion plays?")
    box.presses("down", "down", "select")  # Bob
    assert box.shows("Bob", 10)  # the list says so
    box.presses("up", "up", "select")  # Start game
    session = box.app.session
    assert session is not None
    assert ai.seats_of(box.store.game(session.gid).header) == ("Bob",)
    replay_text("\n".join(box.store.game(session.gid).header) + "\n")  # still a record
    box.press("select")  # random grues
    box.press("select")  # Ann: place B1
    box.press("select")  # on the first empty square
    assert box.shows("Bob")
    assert box.shows("Companion:", 11)
    assert box.shows("Done")
    before = box.app.session.state  # type: ignore[union-attr]
    box.press("select")  # one press: the table made the companion's move
    line = Line.parse(logged(box)[-1])
    assert line.actor == "Bob" and line in ENGINE.legal_lines(before)
    assert box.shows("Ann")


def test_the_companion_plays_a_whole_game_for_its_seat(box: Harness) -> None:
    open_game(box, *SETUP, companion=("Ann", "Bob"))
    for _ in range(60):
        session = box.app.session
        assert session is not None
        if session.over():
            break
        assert box.shows("Done")
        box.press("select")
    assert box.app.session is not None and box.app.session.over()
    assert box.shows("Game over")


def test_the_grues_winning_is_said_so(box: Harness) -> None:
    golden = pathlib.Path(__file__).parent / "golden" / "gleebs-and-grues" / "grues-win-tie.record"
    lines = [line.split("#")[0].strip() for line in golden.read_text().splitlines()]
    actions = [line for line in lines[4:] if line]
    open_game(box, *actions, options=(("first", "Bob"),))
    assert box.shows("Game over")
    assert box.shows("The grues win!", 11)
