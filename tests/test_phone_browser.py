"""The phone page in a real headless Chromium: every game drawn, and live after a press.

Chromium comes from the distribution's packages (``apt-get install chromium``; CI installs
it). Without it these tests are skipped on a developer's machine, and fail in CI.
Screenshots go to the directory named by ``COMPANION_SCREENSHOTS`` when it is set
(``docs/screenshots.sh`` sets it to docs/phone).
"""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness import RECORDS, Box

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install chromium (apt-get install chromium) for the phone view tests")
    pytest.skip("no chromium here: apt-get install chromium", allow_module_level=True)

# Chromium's own background traffic is off: the page must work on a network with no internet.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Box]:
    served = Box(tmp_path)
    yield served
    served.close()


def open_page(browser: Any, box: Box) -> Any:
    page = browser.new_page(viewport={"width": 420, "height": 900}, device_scale_factor=2)
    outside: list[str] = []
    page.on("request", lambda request: outside.append(request.url)
            if not request.url.startswith(f"http://127.0.0.1:{box.port}/") else None)
    page.goto(f"http://127.0.0.1:{box.port}{box.page()}")
    page.wait_for_function("document.body.dataset.version !== undefined")
    page.outside = outside
    return page


def screenshot(page: Any, name: str, tmp_path: pathlib.Path) -> None:
    folder = pathlib.Path(os.environ.get("COMPANION_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("game", sorted(RECORDS))
def test_each_game_mid_play_is_drawn_whole_in_a_real_browser(browser: Any, box: Box, game: str,
                                                               tmp_path: pathlib.Path) -> None:
    box.open_game(game)
    page = open_page(browser, box)
    session = box.harness.app.session
    assert session is not None
    ask = session.prompt()
    assert ask is not None
    page.wait_for_function("document.getElementById('record').children.length > 0")
    assert page.inner_text("#question") == ask.question
    assert ask.actor in page.inner_text("#turn")
    board = page.inner_text("#board")
    for name in session.players:
        assert name in board
    assert "{" not in board and "undefined" not in board and "null" not in board
    assert page.locator("#record li").first.inner_text() == session.record().splitlines()[-1]
    screenshot(page, game, tmp_path)
    assert page.outside == []  # nothing loaded from anywhere else
    page.close()


def test_the_page_follows_a_press_on_the_box(browser: Any, box: Box) -> None:
    box.open_game("microbot-racers")
    page = open_page(browser, box)
    before = int(page.evaluate("document.body.dataset.version"))
    box.harness.press("down")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=1000)
    # The mirror is the OLED's frame, pixel for pixel at 4x.
    shown = page.evaluate("""() => {
        const d = document.getElementById('oled').getContext('2d').getImageData(0, 0, 512, 256).data;
        const bits = [];
        for (let y = 0; y < 64; y++)
            for (let x = 0; x < 128; x++) bits.push(d[(y * 4 * 512 + x * 4) * 4] > 128 ? 1 : 0);
        return bits;
    }""")
    frame = box.harness.screen
    assert shown == [1 if frame.getpixel((x, y)) else 0 for y in range(64) for x in range(128)]
    page.close()


def test_a_new_link_tells_an_open_page_to_scan_again(browser: Any, box: Box) -> None:
    page = open_page(browser, box)
    box.phone.renew()
    page.wait_for_selector("#gone", state="visible", timeout=3000)
    assert "Scan the new code" in page.inner_text("#gone")
    page.close()


def test_history_links_to_bg_stats_and_the_stats_load_nothing_from_elsewhere(
        browser: Any, box: Box, tmp_path: pathlib.Path) -> None:
    """The link leaves the page only when tapped: showing History, Players and Dice loads
    nothing from anywhere but the box."""
    import io

    from companion.importer import import_stream
    from companion.store import Store

    golden = pathlib.Path(__file__).parent / "golden"
    for record in ("microbot-racers/lap-win", "penguin-panic/two-players-full"):
        import_stream(io.BytesIO((golden / f"{record}.record").read_bytes()), lambda: Store(box.store_path))
    page = open_page(browser, box)
    page.wait_for_function("document.querySelectorAll('#history a').length > 0")
    page.wait_for_function("document.querySelectorAll('#dice .faces').length > 0")
    links = page.eval_on_selector_all("#history a", "els => els.map(e => [e.textContent, e.href])")
    pushed = [href for text, href in links if text == "Add to BG Stats"]
    assert len(pushed) == 2 and all(h.startswith("https://app.bgstatsapp.com/createPlay.html?data=") for h in pushed)
    assert "Ann" in page.inner_text("#players") and "d6" in page.inner_text("#dice")
    screenshot(page, "history", tmp_path)
    assert page.outside == []
    page.close()


def test_the_whole_record_scrolls_back_to_the_first_entry_and_follows_the_box(
        browser: Any, box: Box, tmp_path: pathlib.Path) -> None:
    """The record shows the last entries at once, older ones as it is scrolled (a part at a
    time), and each entry, undo and redo as it is made, without asking for the record again."""
    import random

    from companion.games.base import Roll
    from companion.session import audited_lines
    from companion.web.feed import PAGE
    from tests.harness import long_game, next_line

    store = box.harness.store
    gid = long_game(store, 3 * PAGE + 20, rolled=True)
    assert box.harness.app.open(gid)
    box.harness.daemon.refresh()
    session = box.harness.app.session
    assert session is not None
    page = browser.new_page(viewport={"width": 360, "height": 740}, device_scale_factor=2)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"http://127.0.0.1:{box.port}{box.page()}")
    entries = page.locator("#record > li")
    entries.first.wait_for()
    assert entries.count() == PAGE and entries.first.get_attribute("value") == str(session.head)
    for _ in range(session.head):  # the end of the list brought into view, again and again
        if entries.count() == session.head:
            break
        page.locator("#older").scroll_into_view_if_needed()
        page.wait_for_timeout(50)
    shown = [line for text in reversed(entries.all_inner_texts()) for line in text.splitlines()]
    assert shown == audited_lines(store, gid, session.head)
    assert page.locator("#older").is_hidden()
    parts = [url for url in asked if "/record?" in url]
    assert len(parts) == -(-(session.head - PAGE) // PAGE)  # one request a part, no more
    screenshot(page, "record-scrolled", tmp_path)

    # Live: a device roll, and its undo (the roll stays, as a comment).
    rng = random.Random(3)
    while not (rolls := [answer for answer in session.prompt().answers if isinstance(answer, Roll)]):
        session.play([next_line(session)])
    faces = rolls[0].line(tuple(rng.randint(1, sides) for sides in rolls[0].sides))
    session.play([faces], rolled=True)
    box.harness.daemon.refresh()
    page.wait_for_function(f"document.querySelector('#record > li').value === {session.head}", timeout=2000)
    assert entries.first.inner_text() == f"{faces}  # rolled by the companion"
    session.undo()
    box.harness.daemon.refresh()
    page.wait_for_function(f"document.querySelector('#record > li').value === {session.head}", timeout=2000)
    assert page.inner_text("#record-after") == f"# undone: {faces}"
    shown = [line for text in reversed(entries.all_inner_texts()) for line in text.splitlines()]
    assert shown + [page.inner_text("#record-after")] == audited_lines(store, gid, session.head)
    session.redo()
    box.harness.daemon.refresh()
    page.wait_for_function(f"document.querySelector('#record > li').value === {session.head}", timeout=2000)
    assert entries.first.inner_text() == f"{faces}  # rolled by the companion"
    assert page.inner_text("#record-after") == ""
    assert [url for url in asked if "/record?" in url] == parts  # the live lines came on the stream
    assert all(url.startswith(f"http://127.0.0.1:{box.port}/") for url in asked)
    screenshot(page, "record-live", tmp_path)
    page.close()
