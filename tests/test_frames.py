"""Fewer full frames (issue 14): answering a question redraws only the rows that change, the
top bar and the panel stay where they are, and what the panel is sent still builds exactly
the picture, press after press, through the real screens."""

from __future__ import annotations

import pathlib
import random
import statistics
from typing import Any

import pytest
from PIL import Image, ImageDraw

from companion import bench
from companion.bench import play_session, session_records
from companion.config import Config
from companion.games import game_by_id
from companion.games.base import Line
from companion.intents import Intent
from companion.io.pages import SSD1306_GAP, changed_runs, page_bytes
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import blank
from companion.ui.play import PlayScreen
from companion.ui.rows import PANEL, result_banner
from companion.ui.widgets import Item, Menu, Numbers, Preview
from tests.games.scenarios import ROUND_2P
from tests.harness import Host

WIRE_FRAME = 1034  # luma's full SSD1306 frame on the I2C wire
HANDED_FRAME = 1030  # the same handed to luma's serial interface (its commands and data)
#: Bytes per press on the SSD1306's wire over the benchmark session, as shares of a full
#: frame. Before issue 14's stable layout: median 51%, mean 48%, p90 100%; with it, 12%,
#: 25% and 73%; with a one-line result's letters in one page, 12%, 24% and 68%; with the
#: question's and the result's letters in pages of their own, the hint and the arrows in
#: the answer's last page, and the check in the play screen's rows, 11%, 20% and 51%;
#: with Leaf-Climbers' results leaving the leaves to come and a roll's points to the next
#: question, 11%, 20% and 49%. Issue 26 took a third of the presses away (two numbers at a
#: time, cards, leaves and grues picked on a board): the presses it took were cursor moves
#: that cost little, and a board opening or closing is a whole picture, so a press costs
#: more: 11%, 25% and 74%, while the session's lines cost less (PER_LINE).
MOST = {"median": 0.13, "mean": 0.27, "p90": 0.78}
#: The issue's own measure, bytes handed to the interface: p90 47% before issue 26, 72% with it.
HANDED_P90 = 0.76
#: Bytes on the wire for each record line of the benchmark session, as a share of a full
#: frame: 87% before issue 26 (560 KB for 620 lines), 76% with it.
PER_LINE = 0.8
#: The same at table pace (presses 3 s apart, each result going by itself in a frame of its
#: own), per press and per result going. With the result's box over the whole panel: per
#: press median 12%, mean 29%, p90 80%; a result going median 38%, mean 43%, p90 50%. With
#: the box off the top bar's page: 12%, 28%, 79%; going 38%, 40%, 43%. With the rows of
#: letters in pages of their own: 11%, 25%, 71%. With the burn-in shift moving the picture
#: up and left instead of down and right (issue 26: the last row and column went off the
#: glass, and descenders with them; the first ones hold no ink), a row of letters shifted
#: up spans a page more than one shifted down (its descenders reach the page under it
#: either way): per press mean 27%, p90 76%; going mean 44%, p90 50% (the same session
#: with the old shift: 26%, 71%; 38%, 43%). Issue 26's fewer presses (section 7) took away
#: cheap cursor moves, and a board or a number entry opening on the first press is a whole
#: picture: 1,946 presses, per press mean 30%, p90 87%; going mean 42%, p90 50%.
PACED_MOST = {"press mean": 0.31, "press p90": 0.89, "gone mean": 0.46, "gone p90": 0.52}


def frames(app: App, *kinds: str) -> list[Image.Image]:
    """The frame before and after each press."""
    shown = [app.frame()]
    for kind in kinds:
        app.handle(Intent(kind))
        shown.append(app.frame())
    return shown


def opened(tmp_path: pathlib.Path, game_id: str, *lines: str) -> tuple[Store, App]:
    """A new two-player game with ``lines`` logged, open on the real app."""
    store = Store(str(tmp_path / "games.sqlite"))
    game = game_by_id(game_id)
    assert game is not None
    session = Session.new(store, Header(game, ("Ann", "Bob")))
    for line in lines:
        session.play([Line.parse(line)])
    app = App(store, Config(), rng=random.Random(1))
    app.open(session.gid)
    return store, app


def test_entering_faces_keeps_the_top_bar_and_the_panel_and_changes_only_the_rows_below(
        tmp_path: pathlib.Path) -> None:
    store, app = opened(tmp_path, "microbot-racers")
    app.handle(Intent("down"))  # "Enter faces" for who is P1
    asked, entering, changed, next_one = frames(app, "select", "up", "right")
    assert isinstance(app.top, Numbers) and app.top.values == [2, 3]  # die 2 carried 2, then one up
    kept = (0, 0, 128, PANEL[3] + 1)  # the top bar and the panel, to the panel's last row
    shown = (asked, entering, changed, next_one)
    assert len({frame.crop(kept).tobytes() for frame in shown}) == 1
    # In the panel's memory: the first four pages (top bar and panel) are never sent again.
    pages = [page_bytes(frame) for frame in shown]
    assert {tuple(p[:4]) for p in pages} == {tuple(pages[0][:4])}
    store.close()


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> bench.Interactions:
    """The benchmark session, presses back to back."""
    found = play_session(session_records(), False, tmp_path_factory.mktemp("session"))
    assert found.skipped == []
    return found


def test_the_benchmark_session_sends_a_small_share_of_a_frame_per_press(session: bench.Interactions) -> None:
    wire = [sent for sent, _ in session.wire["ours ssd1306"]]
    assert statistics.median(wire) <= MOST["median"] * WIRE_FRAME
    assert statistics.fmean(wire) <= MOST["mean"] * WIRE_FRAME
    assert bench.percentile(sorted(wire), 90) <= MOST["p90"] * WIRE_FRAME
    assert max(wire) <= WIRE_FRAME
    assert bench.percentile(sorted(session.bytes["ours ssd1306"]), 90) <= HANDED_P90 * HANDED_FRAME
    lines = sum(len(record.actions) for record in session_records())
    assert sum(wire) <= PER_LINE * WIRE_FRAME * lines


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> bench.Interactions:
    """The benchmark session with presses at table pace."""
    found = play_session(session_records(), False, tmp_path_factory.mktemp("paced"), pace=bench.TABLE_PACE)
    assert found.skipped == []
    return found


def test_at_table_pace_results_come_and_go_for_a_small_share_of_a_frame(paced: bench.Interactions) -> None:
    """Each result is shown, and goes by itself before the next press: both frames stay cheap."""
    pressed = sorted(wire for wire, _ in paced.wire["ours ssd1306"])
    gone = sorted(wire for wire, _ in paced.alone["result"]["ours ssd1306"])
    assert len(gone) >= len(pressed) // 5  # the results did go by themselves between presses
    assert statistics.fmean(pressed) <= PACED_MOST["press mean"] * WIRE_FRAME
    assert bench.percentile(pressed, 90) <= PACED_MOST["press p90"] * WIRE_FRAME
    assert statistics.fmean(gone) <= PACED_MOST["gone mean"] * WIRE_FRAME
    assert bench.percentile(gone, 90) <= PACED_MOST["gone p90"] * WIRE_FRAME
    assert max(pressed + gone) <= WIRE_FRAME


def test_a_result_coming_and_going_leaves_the_top_bars_pages_alone(tmp_path: pathlib.Path) -> None:
    """The top bar's last page (rows 8-15) ends with the lit rule that the result's box
    starts on: a box starting under it would cost that whole page as it came and again as
    it went. Two lines of a long result have their letters in pages 2 and 3."""
    store, app = opened(tmp_path, "microbot-racers")
    play = app.top
    assert isinstance(play, PlayScreen)
    panel = app.frame()
    play.result = "Ann +3 fish (7)"
    one_line = app.frame()
    play.result = "Bob hit a block: health 3; Bob loses turn-left"
    two_lines = app.frame()
    pages = [page_bytes(frame) for frame in (panel, one_line, two_lines)]
    assert pages[0][:2] == pages[1][:2] == pages[2][:2]
    lines = blank()
    result_banner(ImageDraw.Draw(lines), "Bob hit a block: health 3; Bob loses turn-left")
    ink = [[row for row in range(15, 32) if lines.getpixel((x, row)) == 0] for x in range(128)]
    assert {row // 8 for rows in ink for row in rows} == {2, 3}
    store.close()


def test_one_result_after_another_rewrites_one_page_and_the_descenders() -> None:
    """Entries in quick succession (the leaves of a turn) each tell their result: on one
    line, the new words rewrite the page of letters and, below it, only the columns of
    descenders (and of anything taller than a capital, such as a bracket)."""
    before, after = blank(), blank()
    result_banner(ImageDraw.Draw(before), "Ann +3 fish (7)")
    result_banner(ImageDraw.Draw(after), "Cat stays on c1 r6")
    changed = changed_runs(page_bytes(before), page_bytes(after), SSD1306_GAP)
    columns = {page: sum(run.last - run.first + 1 for run in changed if run.page == page) for page in range(8)}
    assert columns[3] > 100
    assert sum(columns.values()) - columns[3] <= 20, columns


class CheckedPanels(bench.Panels):
    """The benchmark's panels, each model controller's picture checked after every frame."""

    def display(self, image: Image.Image) -> None:
        super().display(image)
        for name, model in self.models.items():
            assert isinstance(model, bench.Controller)
            assert model.image().tobytes() == image.tobytes(), name


def test_every_press_of_a_race_leaves_the_glass_as_the_picture(tmp_path: pathlib.Path,
                                                               monkeypatch: Any) -> None:
    """Ours and luma's, both controllers, rebuilt from the bytes alone after each press."""
    monkeypatch.setattr(bench, "Panels", CheckedPanels)
    races = [r for r in session_records() if r.header.game.id == "microbot-racers"][:1]
    found = play_session(races, True, tmp_path)
    assert found.skipped == [] and len(found.latency) > 100


def test_a_menu_moves_its_cursor_before_its_lines() -> None:
    """Down within the lines in view moves the frame and nothing else (the pages of the
    other lines are not sent again); past the last line, the lines move on by one."""
    menu = Menu("New game", [Item(f"Game {n}", lambda: None) for n in range(6)])
    host = Host()

    def shown() -> list[bytes]:
        image = blank()
        menu.draw(ImageDraw.Draw(image))
        return page_bytes(image)

    first = shown()
    menu.on(Intent("down"), host)
    second = shown()
    assert menu.in_view(6) == 0
    assert first[6:] == second[6:]  # the third line's pages: untouched
    menu.on(Intent("down"), host)
    menu.on(Intent("down"), host)  # the fourth line: the lines move on by one
    assert menu.in_view(6) == 1 and menu.cursor == 3


def test_an_accepted_check_stays_as_the_entrys_result(tmp_path: pathlib.Path) -> None:
    """The check's words (a fish sum) say what the entry did: logging it keeps them where
    they are, as the result, so leaving the check rewrites only the question and the answer."""
    store, app = opened(tmp_path, "penguin-panic", *ROUND_2P, "Bob roll 1 2 3")
    play = app.top
    assert isinstance(play, PlayScreen)
    line = Line.parse("Bob place 1 5 0")
    play.check(line)
    check = app.top
    assert isinstance(check, Preview)
    checking = app.frame()
    app.handle(Intent("select"))  # yes, log it
    assert app.top is play and play.result == check.body
    logged = app.frame()
    box = (0, 15, 128, 36)  # the box with the words (the top bar says whose turn it is now)
    assert checking.crop(box).tobytes() == logged.crop(box).tobytes()
    store.close()
