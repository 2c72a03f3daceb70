"""Only select confirms (issue 13 §2): right and left move within a screen and never commit
an entry or leave it; a digit a number cannot take says why; undo and redo reach the game
from its menu; a menu stops at its ends; on Gleeb's board select unpicks and the context key
opens the game menu. Every test drives the real app with intents, as the keys send them."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from companion.session import Session
from companion.store import Store
from companion.ui.board import BoardScreen
from companion.ui.figures import Views
from companion.ui.play import PlayScreen
from companion.ui.widgets import Menu, Numbers, Page, Preview
from tests.apps import opened, press
from tests.games.scenarios import SPEC_SETUP as SETUP


@pytest.fixture
def store(tmp_path: pathlib.Path) -> Iterator[Store]:
    opened = Store(str(tmp_path / "games.sqlite"))
    yield opened
    opened.close()


def head(store: Store, session: Session) -> int:
    return Session(store, session.gid).head


PP = ("table line", "Ann ability 7", "Bob ability 6", "Bob bribe 1", "Ann bribe 2",
      "Bob bribe 3", "Ann bribe 4")  # Bob to roll three dice


def test_typing_faces_with_right_after_each_fills_the_dice_and_never_logs(
        store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "penguin-panic", ("Ann", "Bob"), *PP)
    before = head(store, session)
    press(app, 6, "right", 6, "right", 6, "right", 6, "right")
    form = app.top
    assert isinstance(form, Numbers) and head(store, session) == before  # nothing logged
    assert form.values == [6, 6, 6]
    press(app, "select")
    assert stored_last(store, session) == "Bob roll 6 6 6"


def stored_last(store: Store, session: Session) -> str:
    again = Session(store, session.gid)
    return again.store.entries(again.gid, again.head)[-1].lines[-1]


def test_right_and_left_change_the_outlined_number_and_never_take_it_or_leave(
        store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "penguin-panic", ("Ann", "Bob"), *PP)
    press(app, 2)  # faces, die 1 = 2, on to die 2, die 3 outlined (at 2 as well)
    press(app, "left", "left", "left")
    form = app.top
    assert isinstance(form, Numbers) and (form.at, form.following, form.values) == (1, 2, [2, 2, 5])
    press(app, "right", "right", "right", "right")
    assert form.values == [2, 2, 3] and app.top is form and head(store, session) == len(PP)
    press(app, "back")  # one number back
    assert app.top is form and form.at == 0
    press(app, "back")
    assert isinstance(app.top, PlayScreen) and head(store, session) == len(PP)


def test_a_digit_the_die_cannot_show_says_why(store: Store, tmp_path: pathlib.Path) -> None:
    app, _ = opened(store, "leaf-climbers", ("Ann", "Bob"), "table drop 1",
                    "table leaf 6 6")
    press(app, 7)  # Ann's d4
    assert isinstance(app.top, Numbers) and app.top.message == "d4: 1-4"
    press(app, 9)
    assert app.top.message == "d4: 1-4" and app.top.values == [1]


def test_right_on_the_play_screen_and_its_pages_never_plays_a_card(
        store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "quick-lemmings", ("Ann", "Bob"))
    press(app, "context")
    menu = app.top
    assert isinstance(menu, Menu)
    cards = [item.label for item in menu.items].index("Cards")
    press(app, *["down"] * cards, "select")
    assert isinstance(app.top, Views)
    press(app, *["right"] * 12, *["left"] * 5)
    assert isinstance(app.top, Views) and head(store, session) == 0
    press(app, "back", *["right"] * 6)  # on the card table, opened by the first right
    assert isinstance(app.top, BoardScreen) and head(store, session) == 0


def test_left_and_right_leave_no_page_menu_or_preview(store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "penguin-panic", ("Ann", "Bob"), "table line", "Ann ability 7")
    press(app, "down", "select")  # space 5: it costs Bob 2 fish, to check first
    assert isinstance(app.top, Preview)
    press(app, "right", "left")
    assert isinstance(app.top, Preview) and head(store, session) == 2
    press(app, "back", "context")
    press(app, "right", "left")
    assert isinstance(app.top, Menu)
    rules = [item.label for item in app.top.items].index("Rules: this step")
    press(app, *["down"] * rules, "select", "right", "left")
    assert isinstance(app.top, Page)


def test_undo_and_redo_work_with_the_game_menu_open(store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "penguin-panic", ("Ann", "Bob"), *PP)
    press(app, "context", "undo")
    assert head(store, session) == len(PP) - 1 and isinstance(app.top, PlayScreen)
    press(app, "context", "redo")
    assert head(store, session) == len(PP)


def test_down_from_the_game_menus_last_line_stays_there(store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "penguin-panic", ("Ann", "Bob"), *PP)
    press(app, "context")
    menu = app.top
    assert isinstance(menu, Menu)
    press(app, *["down"] * (len(menu.items) + 2))
    assert menu.cursor == len(menu.items) - 1  # "Abandon game", not round to "Undo"
    press(app, "up")
    assert menu.items[menu.cursor].label == "Leave game"
    press(app, "select")
    assert head(store, session) == len(PP) and not isinstance(app.top, PlayScreen)


def test_gleebs_select_on_the_picked_stack_unpicks_it_and_m_opens_the_menu(
        store: Store, tmp_path: pathlib.Path) -> None:
    app, session = opened(store, "gleebs-and-grues", ("Ann", "Bob"), *SETUP)
    play = app.top
    assert isinstance(play, PlayScreen)
    press(app, "select")  # the board, on a stack that can move
    board = app.top
    assert isinstance(board, BoardScreen)
    press(app, "select", "select")  # the stack under the cursor, then again
    assert board.picked == () and board.message == ""
    press(app, "context")
    assert isinstance(app.top, Menu) and app.top.title == "Game menu"
    assert head(store, session) == len(SETUP)
