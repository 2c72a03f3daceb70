"""The board cursor: movement, marks, and refusals that keep the player on the board."""

from __future__ import annotations

from PIL import ImageDraw

from companion.games.base import Grid, Line
from companion.games.frozen import replace
from companion.intents import Intent
from companion.ui.board import BoardScreen, plain_board
from companion.ui.draw import blank
from tests.harness import Host

LEGAL = (Line("Ann", "move", ("a1", "a2")), Line("Ann", "move", ("a1", "b1")),
         Line("Ann", "move", ("c3", "c4")))
GRID = Grid("Move a stack", "Ann", "move", 4, 4, LEGAL, steps=2, spell="alg")


def screen(done: list[Line], refuse: str = "") -> BoardScreen:
    def play(line: Line) -> str:
        done.append(line)
        return refuse
    return BoardScreen(GRID, plain_board, dict, play, "Move a stack")


def test_marks_show_where_a_legal_line_can_start_then_where_it_can_go() -> None:
    assert GRID.marked(()) == {(1, 1), (3, 3)}
    assert GRID.marked(((1, 1),)) == {(1, 2), (2, 1)}


def test_up_and_down_stop_only_on_the_squares_the_pick_can_use_and_reach_every_one() -> None:
    board, host = screen([]), Host()
    seen = []
    for _ in range(3):
        seen.append(board.cursor)
        board.on(Intent("up"), host)
    assert seen == [(1, 1), (3, 3), (1, 1)]  # the two squares a move starts on, up the columns
    board.on(Intent("down"), host)
    assert board.cursor == (1, 1)
    board.on(Intent("select"), host)  # a1: it goes to a2 or b1
    board.on(Intent("up"), host)
    assert board.cursor == (1, 2)
    board.on(Intent("up"), host)
    assert board.cursor == (2, 1)  # on to the next column at the edge
    board.on(Intent("up"), host)
    assert board.cursor == (1, 2)


def test_left_and_right_walk_the_row_one_square_at_a_time() -> None:
    board, host = screen([]), Host()
    walked = []
    for _ in range(4):
        board.on(Intent("right"), host)
        walked.append(board.cursor)
    assert walked == [(2, 1), (3, 1), (4, 1), (1, 1)]
    board.on(Intent("left"), host)
    assert board.cursor == (4, 1)


def test_with_nothing_marked_up_and_down_walk_every_square() -> None:
    board = BoardScreen(replace(GRID, legal=()), plain_board, dict, lambda line: "", "Move")
    seen = set()
    for _ in range(16):
        seen.add(board.cursor)
        board.on(Intent("up"), Host())
    assert len(seen) == 16 and board.cursor == (1, 1)


def test_two_picks_make_the_line_and_close_the_board() -> None:
    done: list[Line] = []
    board, host = screen(done), Host()
    board.on(Intent("select"), host)  # a1
    board.on(Intent("up"), host)
    board.on(Intent("select"), host)  # a2
    assert done == [Line("Ann", "move", ("a1", "a2"))] and host.popped == 1


def test_a_refused_square_keeps_the_board_open_with_the_reason_and_the_pick() -> None:
    done: list[Line] = []
    board, host = screen(done, refuse="a stack moves straight along a row or column"), Host()
    board.on(Intent("select"), host)  # a1
    board.on(Intent("right"), host)
    board.on(Intent("right"), host)
    board.on(Intent("select"), host)  # c1: not a square a1 goes to
    assert done == [Line("Ann", "move", ("a1", "c1"))] and host.popped == 0
    assert board.message == "a stack moves straight along a row or column"
    assert board.picked == ((1, 1),)  # still picked: the next square makes the line from a1
    image = blank()
    board.draw(ImageDraw.Draw(image))
    assert image.getbbox() is not None


def test_a_square_no_line_starts_on_is_refused_when_picked_with_the_rules_reason() -> None:
    done: list[Line] = []
    grid = replace(GRID, refusals=(((2, 1), "b1 holds no stack you control"),))
    board, host = BoardScreen(grid, plain_board, dict, lambda line: done.append(line) or "", "Move"), Host()
    board.on(Intent("right"), host)
    board.on(Intent("select"), host)  # b1
    assert board.message == "b1 holds no stack you control" and board.picked == () and done == []
    board.on(Intent("right"), host)
    board.on(Intent("select"), host)  # c1: the game gave no reason, plain words say it
    assert board.message == "no move starts on c1" and board.picked == ()


def test_another_square_a_line_starts_on_takes_the_pick_over() -> None:
    done: list[Line] = []
    board, host = screen(done, refuse="never sent"), Host()
    board.on(Intent("select"), host)  # a1 (it goes to a2 or b1)
    board.cursor = (3, 3)
    board.on(Intent("select"), host)  # c3: not where a1 goes, but a stack that can move
    assert board.picked == ((3, 3),) and done == [] and board.message == ""
    assert board.cursor == (3, 4)  # c3's only square, the move drawn and named
    assert board.where(61) == "c3→c4"


def test_back_takes_back_the_first_pick_before_leaving() -> None:
    board, host = screen([]), Host()
    board.on(Intent("select"), host)
    board.on(Intent("back"), host)
    assert board.picked == () and host.popped == 0
    board.on(Intent("back"), host)
    assert host.popped == 1


def test_select_on_the_square_already_picked_unpicks_it_instead_of_sending_a_line() -> None:
    done: list[Line] = []
    board, host = screen(done, refuse="a stack moves straight along a row or column"), Host()
    board.on(Intent("select"), host)  # a1 picked
    board.on(Intent("select"), host)  # a1 again: a change of mind
    assert board.picked == () and done == [] and board.message == ""


def test_the_context_key_opens_the_game_menu_from_the_board() -> None:
    opened: list[bool] = []
    board = BoardScreen(GRID, plain_board, dict, lambda line: "", "Move a stack",
                        menu=lambda: opened.append(True))
    board.on(Intent("context"), Host())
    assert opened == [True]


def test_the_only_square_the_rules_allow_next_is_under_the_cursor() -> None:
    board, host = screen([]), Host()
    board.cursor = (3, 3)
    board.on(Intent("select"), host)  # c3: its stack can only go to c4
    assert board.cursor == (3, 4)
