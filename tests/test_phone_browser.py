"""The phone page in a real headless Chromium: every game drawn whole on a phone's width,
live after a press, and keeping the screen awake during a game where the browser can.

Chromium comes from the distribution's packages (``apt-get install chromium``; CI installs
it). Without it these tests are skipped on a developer's machine, and fail in CI.
Screenshots go to the directory named by ``COMPANION_SCREENSHOTS`` when it is set
(``docs/screenshots.sh`` sets it to docs/phone).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness import RECORDS, Box
from tests.texts import ONE_OF_MANY

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install chromium (apt-get install chromium) for the phone view tests")
    pytest.skip("no chromium here: apt-get install chromium", allow_module_level=True)

# Chromium's own background traffic is off: the page must work on a network with no internet.
# LAN_NAME reaches the box on loopback under a name that is not a secure context, as the
# box's own address is on a home network (127.0.0.1 and localhost are secure contexts).
LAN_NAME = "companion.test"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic", f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"]


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


OPEN: list[Any] = []  # the pages a test opened, closed after it however it ended


@pytest.fixture(autouse=True)
def close_pages() -> Iterator[None]:
    """A test that fails with a page open must not leave it to the next: Chromium went on
    serving it, and every later test of the file failed at new_page under load."""
    yield
    while OPEN:
        page = OPEN.pop()
        if not page.is_closed():
            page.close()


def open_page(browser: Any, box: Box, host: str = "127.0.0.1", script: str = "") -> Any:
    """The box's page, ``script`` run in it before the page's own."""
    page = browser.new_page(viewport={"width": 420, "height": 900}, device_scale_factor=2)
    OPEN.append(page)
    if script:
        page.add_init_script(script)
    outside: list[str] = []
    here = f"http://{host}:{box.port}/"  # read now: the box may be gone when the page closes
    page.on("request", lambda request: outside.append(request.url)
            if not request.url.startswith(here) else None)
    page.goto(f"http://{host}:{box.port}{box.page()}")
    page.wait_for_function("document.body.dataset.version !== undefined")
    page.outside = outside
    return page


def screenshot(page: Any, name: str, tmp_path: pathlib.Path) -> None:
    folder = pathlib.Path(os.environ.get("COMPANION_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


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


def test_history_links_to_bg_stats_and_the_stats_load_nothing_from_elsewhere(browser: Any, box: Box) -> None:
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
    assert page.outside == []
    page.close()


def test_finished_games_the_box_cannot_read_just_now_are_not_said_to_be_none(
        browser: Any, box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review of issue 28: while the store could not be read (a restore, a lock), History,
    Players and Dice said "No finished games yet." and stayed so until a game ended: a
    box full of games told the table it had none. They say they cannot be read just now,
    and ask again."""
    import io

    from companion.importer import import_stream
    from companion.store import Store
    from companion.web.server import PhoneApp

    golden = pathlib.Path(__file__).parent / "golden"
    import_stream(io.BytesIO((golden / "microbot-racers" / "lap-win.record").read_bytes()),
                  lambda: Store(box.store_path))
    busy = [True]  # the store cannot be read until the test says so (not a count of asks:
    # under load the page's asks and the test's look need not interleave as planned)

    def refusing(route: str) -> Any:
        read = getattr(PhoneApp, route)

        def answer(app: PhoneApp, start: Any) -> Any:
            if busy[0]:
                raise OSError("the store is being restored")
            return read(app, start)
        return answer

    for route in ("history", "stats"):
        monkeypatch.setattr(PhoneApp, route, refusing(route))
    page = open_page(browser, box)
    page.wait_for_function("document.querySelector('#history').textContent.includes('cannot read')"
                           " && document.querySelector('#players').textContent.includes('cannot read')")
    assert "No finished" not in page.inner_text("#history") + page.inner_text("#players")
    busy[0] = False
    page.wait_for_function("document.querySelectorAll('#history a').length > 0", timeout=20_000)
    page.wait_for_function("document.querySelector('#players').textContent.includes('Ann')", timeout=20_000)
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
    assert shown == list(audited_lines(store, gid, session.head))
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
    assert shown + [page.inner_text("#record-after")] == list(audited_lines(store, gid, session.head))
    session.redo()
    box.harness.daemon.refresh()
    page.wait_for_function(f"document.querySelector('#record > li').value === {session.head}", timeout=2000)
    assert entries.first.inner_text() == f"{faces}  # rolled by the companion"
    assert page.inner_text("#record-after") == ""
    assert [url for url in asked if "/record?" in url] == parts  # the live lines came on the stream
    assert all(url.startswith(f"http://127.0.0.1:{box.port}/") for url in asked)
    screenshot(page, "record-live", tmp_path)
    page.close()


# --- the screen stays on during a game ---

#: Keeps every screen wake lock the page is given in ``window.locks``.
LOCKS = """window.locks = [];
if (navigator.wakeLock) {
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  navigator.wakeLock.request = async (type) => {
    const lock = await request(type);
    window.locks.push(lock);
    return lock;
  };
}"""


def test_the_screen_stays_on_while_a_game_is_played(browser: Any, box: Box) -> None:
    """In a secure context (127.0.0.1 here; https on a network) the page holds a screen wake
    lock while a game is being played, asks for it again when it is shown after the browser
    let it go (as browsers do when a page is hidden), and lets it go when the game ends."""
    from companion.record import replay_text
    from tests.harness import BENCH

    box.open_game("microbot-racers")
    page = open_page(browser, box, script=LOCKS)
    page.wait_for_function("locks.length === 1 && !locks[0].released")
    assert page.locator("#sleep").is_hidden()
    page.evaluate("locks[0].release().then(() => document.dispatchEvent(new Event('visibilitychange')))")
    page.wait_for_function("locks.length === 2 && !locks[1].released")
    session = box.harness.app.session
    assert session is not None
    for line in replay_text((BENCH / RECORDS["microbot-racers"]).read_text()).actions[session.head:]:
        session.play([line])
    assert session.over()
    box.harness.daemon.refresh()
    page.wait_for_function("locks[1].released")
    assert page.evaluate("locks.length") == 2 and page.locator("#sleep").is_hidden()
    page.close()


def test_over_plain_http_the_page_says_the_phone_may_sleep(browser: Any, box: Box) -> None:
    """On a home network the page is plain http, which is not a secure context: there is no
    wake lock to ask for, so while a game is played the page says the phone may sleep and
    what to do about it; with no game open it says nothing."""
    page = open_page(browser, box, host=LAN_NAME)
    assert page.evaluate("[window.isSecureContext, 'wakeLock' in navigator]") == [False, False]
    assert page.locator("#sleep").is_hidden()
    box.open_game("quick-lemmings")
    page.wait_for_selector("#sleep", state="visible")
    assert "screen timeout" in page.inner_text("#sleep")
    box.harness.app.leave_game()
    box.harness.daemon.refresh()
    page.wait_for_selector("#sleep", state="hidden")
    assert page.outside == []
    page.close()


# --- the page fits a phone ---

#: CSS widths the page is checked at: two common phones held upright, and a small tablet.
WIDTHS = (360, 390, 768)
SHOT_WIDTH = 390  # docs/phone's pictures

#: Every seat's name as wide as a name can be: 12 of the widest characters.
WIDE_NAMES = ("WWWWWWWWWWWW", "MMMMMMMMMMMM", "WMWMWMWMWMWM", "MWMWMWMWMWMW", "W_W_W_W_W_W_")
#: The options that make a game's page widest: long colour names, most laps and every
#: action, a deck with every card value twice (more columns, larger points).
WIDE_OPTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "penguin-panic": (("colours", ",".join(f"WWWWWWWWWWW{k}" for k in range(1, 6))),),
    "microbot-racers": (("laps", "9"), ("side", "hard")),
    "quick-lemmings": (("lemmings", "3"), ("deck", ",".join(str(v // 2) for v in range(20)))),
}

#: Every element and every word on the page, checked against its box: what does not fit,
#: as "where: what". An element's content may be no wider than its box, nor taller unless
#: the element scrolls (only the record's list does, up and down); the page no wider than the
#: window; each word inside the box it is laid out in (the nearest element that is not
#: inline) and inside the window across.
FITS = r"""() => {
  const faults = [], slack = 0.5, root = document.documentElement;
  const where = (el) => {
    const path = [];
    for (let e = el; e !== root; e = e.parentElement)
      path.unshift(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + [...e.classList].map(c => "." + c).join(""));
    return path.join(" > ");
  };
  const px = (x) => x.toFixed(1);
  if (root.scrollWidth > root.clientWidth)
    faults.push(`the page: ${root.scrollWidth} px wide in ${root.clientWidth} px`);
  for (const el of document.body.querySelectorAll("*")) {
    if (!el.getClientRects().length) continue;  // not shown
    if (el.scrollWidth > el.clientWidth)
      faults.push(`${where(el)}: content ${el.scrollWidth} px wide in ${el.clientWidth} px`);
    if (el.scrollHeight > el.clientHeight && getComputedStyle(el).overflowY === "visible")
      faults.push(`${where(el)}: content ${el.scrollHeight} px tall in ${el.clientHeight} px`);
  }
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), range = document.createRange();
  for (let t = texts.nextNode(); t; t = texts.nextNode()) {
    let box = t.parentElement;
    while (["inline", "contents"].includes(getComputedStyle(box).display)) box = box.parentElement;
    const r = box.getBoundingClientRect(), scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowY);
    const left = Math.max(0, r.left + box.clientLeft);
    const right = Math.min(root.clientWidth, r.left + box.clientLeft + box.clientWidth);
    const top = r.top + box.clientTop - (scrolls ? box.scrollTop : 0);
    const bottom = top + (scrolls ? box.scrollHeight : box.clientHeight);
    // Word by word: a space may hang past the end of a line, where it shows nothing.
    for (const word of t.data.matchAll(/\S+/g)) {
      range.setStart(t, word.index);
      range.setEnd(t, word.index + word[0].length);
      const q = [...range.getClientRects()].find(q => q.width && (q.left < left - slack || q.right > right + slack
                                                                  || q.top < top - slack || q.bottom > bottom + slack));
      if (q) {
        faults.push(`${where(box)}: "${word[0].slice(0, 30)}" at x ${px(q.left)}-${px(q.right)}, y ${px(q.top)}-`
                    + `${px(q.bottom)}, outside x ${px(left)}-${px(right)}, y ${px(top)}-${px(bottom)}`);
        break;
      }
      // A word on two lines reads as two ("19" as 1 over 9). Only a word that no column of
      // a phone could hold, wider than half the window (a name of 12 W's), may break; a
      // hyphenated one may break after a hyphen ("drift-" / "left").
      for (const part of word[0].matchAll(/[^-]+-?/g)) {
        range.setStart(t, word.index + part.index);
        range.setEnd(t, word.index + part.index + part[0].length);
        const pieces = [...range.getClientRects()].filter(q => q.width);
        const rows = new Set(pieces.map(q => Math.round(q.bottom)));
        const wide = pieces.reduce((sum, q) => sum + q.width, 0);
        if (rows.size > 1 && wide <= root.clientWidth / 2) {
          faults.push(`${where(box)}: "${part[0].slice(0, 30)}" broken over ${rows.size} lines`);
          break;
        }
      }
    }
  }
  return faults;
}"""


def widest_game(game_id: str, seed: int, finished: bool) -> str:
    """A random game at its widest: the most seats, the widest names and options, and (not
    ``finished``) stopped where its summary is longest, so the largest numbers and longest
    lists of the play so far are on the page; ``finished``: played to its end."""
    import random

    from companion.games import GAMES
    from companion.record import Header, summarise
    from tests.playout import answer

    game, rng = GAMES[game_id], random.Random(seed)
    header = Header(game, WIDE_NAMES[:game.max_players], WIDE_OPTIONS.get(game_id, ()))
    state, lines, longest, cut = header.start(), [], 0, 0
    while (ask := game.prompt(state)) is not None and ask.answers:
        lines.append(answer(game, state, ask, rng))
        state = game.apply(state, lines[-1])
        size = len(json.dumps(summarise(game, header.players, state)))
        if size > longest and not game.over(state):
            longest, cut = size, len(lines)
    assert game.over(state)
    kept = lines if finished else lines[:cut]
    return "\n".join(header.lines() + [str(line) for line in kept]) + "\n"


def misfits(page: Any, what: str) -> list[str]:
    """What does not fit at each of :data:`WIDTHS`, each named with the width and ``what``;
    and words that are no words (a value the page could not read) anywhere on the page."""
    found = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        found += [f"{what} at {width} px: {fault}" for fault in page.evaluate(FITS)]
    text = page.inner_text("body")
    found += [f"{what}: {word!r} on the page" for word in ("[object", "undefined", "NaN") if word in text]
    found += [f"{what}: {said.group(0)!r} on the page" for said in ONE_OF_MANY.finditer(text)]
    empty = page.evaluate("""() => [...document.querySelectorAll("section")].filter(s => s.getClientRects().length
        && ![...s.children].some(e => e.tagName !== "H2" && (e.innerText.trim() || e.querySelector("canvas, img, svg")
                                                               || ["CANVAS", "IMG", "SVG"].includes(e.tagName))))
        .map(s => s.innerText.trim())""")
    found += [f"{what}: a heading over nothing, {heading!r}" for heading in empty]
    return found


def show_game(page: Any, box: Box, text: str) -> None:
    """Open the game ``text`` records on the box, and wait for the page to show it."""
    from tests.harness import store_game

    before = page.evaluate("Number(document.body.dataset.version)")
    assert box.harness.app.open(store_game(box.harness.store, text))
    box.harness.daemon.refresh()
    session = box.harness.app.session
    assert session is not None
    page.wait_for_function(f"Number(document.body.dataset.version) > {before} && "
                           f"document.querySelector('#record > li')?.value === {session.head}")


def test_every_game_mid_play_fits_a_phone_in_a_real_browser(browser: Any, box: Box, tmp_path: pathlib.Path) -> None:
    """At 360, 390 and 768 CSS px nothing is wider than its box, no text leaves its box, and
    nothing scrolls sideways, in each game mid-play: the benchmark's records, and random
    games with the most seats, every name as wide as a name can be, and the widest options.
    Each shows whose turn it is, the question, and every player on the board."""
    from tests.harness import half_game

    page = open_page(browser, box)
    scenes = [(game, half_game(game)) for game in sorted(RECORDS)]
    scenes += [(f"{game} (widest)", widest_game(game, 1, finished=False)) for game in sorted(RECORDS)]
    faults: list[str] = []
    for name, text in scenes:
        show_game(page, box, text)
        session = box.harness.app.session
        assert session is not None
        ask = session.prompt()
        assert ask is not None
        assert page.inner_text("#question") == ask.question
        assert ask.actor in page.inner_text("#turn")
        board = page.inner_text("#board")
        assert all(player in board for player in session.players)
        assert not any(word in board for word in ("{", "null"))
        faults += misfits(page, name)
        if name in RECORDS:
            page.set_viewport_size({"width": SHOT_WIDTH, "height": 800})
            screenshot(page, name, tmp_path)
    assert page.outside == []
    page.close()
    assert not faults, "\n".join(faults)


def test_history_with_many_games_fits_a_phone_in_a_real_browser(browser: Any, box: Box, tmp_path: pathlib.Path) -> None:
    """History, Players and Dice fit at 360, 390 and 768 CSS px: with a game of each kind,
    then with every finished golden game and random ones where every name is as wide as a
    name can be."""
    import io

    from companion.importer import import_stream
    from companion.store import Store

    golden = sorted(path.with_suffix(".record") for path in (pathlib.Path(__file__).parent / "golden").glob("*/*.json")
                    if json.loads(path.read_text())["over"])
    first = [next(path for path in golden if path.parent.name == game) for game in sorted(RECORDS)]
    rest = [path.read_text() for path in golden if path not in first]
    rest += [widest_game(game, seed, finished=True) for game in sorted(RECORDS) for seed in (2, 3)]
    page = open_page(browser, box)
    faults: list[str] = []
    stored = 0
    for records, picture in (([path.read_text() for path in first], "history"), (rest, None)):
        for text in records:
            import_stream(io.BytesIO(text.encode()), lambda: Store(box.store_path))
        stored += len(records)
        page.reload()
        page.wait_for_function("n => document.querySelectorAll('#history a[href$=\".record\"]').length === n",
                               arg=min(stored, 50))  # History lists the newest 50
        page.wait_for_function("document.querySelectorAll('#dice .faces').length > 0")
        faults += misfits(page, f"History of {stored} games")
        if picture:
            page.set_viewport_size({"width": SHOT_WIDTH, "height": 800})
            screenshot(page, picture, tmp_path)
    assert page.outside == []
    page.close()
    assert not faults, "\n".join(faults)


def test_the_table_s_turn_is_said_as_the_box_says_it(browser: Any, box: Box) -> None:
    """The box's top bar says "Table" when the table acts (a roll for the first player);
    the page said "table's turn", a lower-case word at the head of the page."""
    from tests.harness import store_game

    gid = store_game(box.harness.store, "game leaf-climbers\nplayers Ann Bob\n")  # the table drops first
    assert box.harness.app.open(gid)
    box.harness.daemon.refresh()
    page = open_page(browser, box)
    page.wait_for_function("document.getElementById('turn').textContent !== ''")
    assert page.inner_text("#turn") == "The table's turn"
