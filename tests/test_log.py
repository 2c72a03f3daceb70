"""The Log (issue 28 §3, on the box): the whole record of a game in progress or finished,
newest first, each entry with its result in words, and the undone device rolls where the
dice audit keeps them; every word whole on the 128x64 screen; memory flat however long
the game.
"""

from __future__ import annotations

import io
import pathlib
import random
import re

import pytest
from PIL import Image, ImageDraw

from companion import bench
from companion.config import Config
from companion.gamelog import MARKS, NEAR, PAGES, GameLog, Row
from companion.games import GAMES, results, said_after
from companion.games.base import Line
from companion.importer import import_stream
from companion.intents import Intent
from companion.record import replay_text
from companion.session import Session, audited_lines
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import HEIGHT, WIDTH, recording
from companion.ui.log import LogScreen, block
from companion.ui.play import PlayScreen
from tests.entries import with_states
from tests.layout import layout_faults
from tests.playout import box_game
from tests.texts import widest_names

GOLDEN = pathlib.Path(__file__).parent / "golden"
LEGAL = sorted(p for p in GOLDEN.glob("*/*.record") if p.with_suffix(".json").exists())


def rows_oldest_first(log: GameLog) -> list[Row]:
    """Every row of the Log, oldest first (the Log shows them newest first)."""
    return [row for place in range(log.head + 1, 0, -1) for row in log.rows_at(place)][::-1]


def as_audited(rows: list[Row]) -> list[str]:
    """The rows as the export writes the record's action lines: undone rolls as comments,
    device rolls marked."""
    marks = {"rolled": "  # rolled by the companion", "again": "  # rolled again by the companion"}
    return [f"# undone: {line}" if row.kind == "undone" else line + marks.get(row.kind, "")
            for row in rows for line in row.lines]


@pytest.mark.parametrize("game_id", [g for g in GAMES if g != "quick-lemmings"])
@pytest.mark.parametrize("seed", [3, 4])
def test_the_log_holds_the_whole_record_and_every_roll_the_audit_keeps(
        store: Store, game_id: str, seed: int) -> None:
    session = box_game(store, game_id, seed)
    for log in (session.log(), GameLog(store, session.gid)):  # in play, and as History opens it
        assert as_audited(rows_oldest_first(log)) == list(audited_lines(store, session.gid, session.head))


def test_an_undone_roll_shows_under_the_entry_logged_in_its_place(store: Store) -> None:
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    session.play([Line.parse("table roll 6 2")], rolled=True)
    session.undo()
    session.play([Line.parse("table roll 1 2")], rolled=True, again=True)
    session.play([Line.parse("Ann pick move-1")])
    session.play([Line.parse("Bob pick move-2")])
    session.undo()
    session.play([Line.parse("Bob pick move-3")])
    log = session.log()
    newest_first = [(row.place, row.kind, row.lines) for place in (4, 3, 2, 1) for row in log.rows_at(place)]
    assert newest_first == [(3, "entry", ("Bob pick move-3",)), (2, "entry", ("Ann pick move-1",)),
                            (1, "again", ("table roll 1 2",)), (1, "undone", ("table roll 6 2",))]


@pytest.mark.parametrize(("lines", "counts"), [
    (["table roll 2 2"], ["1/1", "1/1"]),  # a roll undone after the last entry (a tie), then the entry
    ([], ["0/0"]),  # a roll undone before anything was logged
], ids=["after-the-last-entry", "nothing-logged"])
def test_the_count_in_the_top_bar_never_passes_the_entries(store: Store, lines: list[str], counts: list[str]) -> None:
    """Review of issue 28: the rolls undone after the last entry are shown at the place the
    next entry takes, and the top bar said "2/1" there: the second of one entry."""
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    for line in lines:
        session.play([Line.parse(line)])
    session.play([Line.parse("table roll 6 5")], rolled=True)
    session.undo()
    screen = LogScreen(session.log())
    seen = []
    for _ in counts:
        with recording() as drawn:
            screen.draw(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))))
        seen.append(next(d.words for d in drawn if "/" in d.words and d.words[0].isdigit()))
        screen.down()
    assert seen == counts


@pytest.mark.parametrize("record", LEGAL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_entry_says_what_it_did(store: Store, record: pathlib.Path) -> None:
    replayed = replay_text(record.read_text())
    session = Session.new(store, replayed.header)
    expected = []
    for before, after, entry in with_states(replayed):
        session.play(list(entry.lines))
        said = ""
        for event in results(replayed.header.game, before, after, entry.lines):
            said = said_after(said, event)  # "Ann wins! Bob 1: ...", as the play screen says it
        expected.append(said)
    rows = rows_oldest_first(session.log())
    assert [row.words for row in rows] == expected
    assert all(row.words for row in rows)


# --- on the screen ---


def frames_down_to_the_oldest(app: App) -> list[tuple[str, list[str]]]:
    """Press down until the Log stops moving; each frame's layout faults and strings."""
    seen = []
    for _ in range(2000):
        with recording() as drawn:
            image = app.frame()
        seen.append((str(layout_faults(image, tuple(drawn))), [d.words for d in drawn]))
        screen = app.top
        assert isinstance(screen, LogScreen)
        before = screen.at
        app.handle(Intent("down"))
        if screen.at == before:
            return seen
    raise AssertionError("the Log never reached its oldest row")


def log_of(path: str, record: bytes) -> tuple[Store, App]:
    """A record imported, and its Log opened as a player would: from History for a
    finished game, from the game menu for one in progress."""
    store = Store(path)
    gid = import_stream(io.BytesIO(record), lambda: Store(path))
    app = App(store, Config(), rng=random.Random(1))
    if store.game(gid).status == "over":
        app.home.show_log(gid)
    else:
        app.open(gid)
        play = app.top
        assert isinstance(play, PlayScreen)
        play.show_log()
    return store, app


@pytest.mark.parametrize("record", LEGAL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_line_of_the_log_is_on_the_screen_whole(path: str, record: pathlib.Path) -> None:
    """From History (or the game menu, for a game in progress), down to the oldest entry:
    every text line of every row appears, and nothing is cut or drawn over."""
    store, app = log_of(path, record.read_bytes())
    screen = app.top
    assert isinstance(screen, LogScreen)
    frames = frames_down_to_the_oldest(app)
    assert all(faults == "[]" for faults, _ in frames), next(f for f, _ in frames if f != "[]")
    drawn = {words for _, strings in frames for words in strings}
    wanted = {words for row in rows_oldest_first(screen.log) for _, words, _ in block(row)}
    assert wanted <= drawn
    store.close()


#: The longest legal golden game of each game.
WIDE = [max((p for p in LEGAL if p.parent.name == game), key=lambda p: len(p.read_text()))
        for game in sorted(GAMES)]


@pytest.mark.parametrize("record", WIDE, ids=lambda p: p.parent.name)
def test_the_log_of_players_with_the_longest_names_is_whole(path: str, record: pathlib.Path) -> None:
    """Issue 26 §1: with names of 12 letters an entry's line wraps, and the lines after the
    first are indented: they were wrapped for the first line's width and cut."""
    replayed = replay_text(record.read_text())
    text = record.read_text()
    for name, wide in zip(replayed.header.players, widest_names(len(replayed.header.players))):
        text = re.sub(rf"\b{name}\b", wide, text)
    store, app = log_of(path, text.encode())
    frames = frames_down_to_the_oldest(app)
    assert all(faults == "[]" for faults, _ in frames), next(f for f, _ in frames if f != "[]")
    store.close()


def test_a_game_with_nothing_logged_says_so(store: Store) -> None:
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    app = App(store, Config(), rng=random.Random(1))
    app.open(session.gid)
    app.handle(Intent("context"))
    menu = app.top
    app.handle(Intent("digit", [i.label for i in menu.items].index("Log") + 1))  # type: ignore[attr-defined]
    app.handle(Intent("select"))
    with recording() as drawn:
        app.frame()
    assert "Nothing logged yet." in [d.words for d in drawn]


def test_the_log_of_a_finished_game_opens_from_history(store: Store) -> None:
    import_stream(io.BytesIO((GOLDEN / "microbot-racers" / "draw.record").read_bytes()), lambda: Store(store.path))
    app = App(store, Config(), rng=random.Random(1))
    app.home.history()
    labels = [i.label for i in app.top.items]  # type: ignore[attr-defined]
    app.handle(Intent("digit", labels.index("Microbot Racers") + 1))
    app.handle(Intent("select"))
    app.handle(Intent("select"))  # Log
    screen = app.top
    assert isinstance(screen, LogScreen) and screen.at is not None
    assert screen.at.place == screen.log.head == store.game(1).head
    app.handle(Intent("back"))
    assert not isinstance(app.top, LogScreen)


def test_left_and_right_jump_ten_entries(store: Store) -> None:
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    for line in bench.long_race(60)[1]:
        session.play([line])
    screen = LogScreen(session.log())
    assert screen.at is not None and screen.at.place == 60
    screen.jump(10)
    assert screen.at.place == 50
    screen.jump(-30)
    assert screen.at.place == 60


# --- flat memory ---


def test_walking_a_long_game_back_to_its_start_reads_it_about_once(tmp_path: pathlib.Path) -> None:
    """10,000 entries stored without checkpoints (as an old store has them): the Log opens,
    and walking all the way back keeps a bounded set of states and rows, and replays each
    entry a few times at most, not once per page."""
    header, lines = bench.long_race(10_000)
    bench.store_long_game(tmp_path, header, lines, checkpoints=False)
    store = Store(str(tmp_path / "companion.sqlite"))
    app = App(store, Config(), rng=random.Random(1))
    app.home.show_log(1)
    screen = app.top
    assert isinstance(screen, LogScreen)
    log = screen.log
    states = log.states
    for _ in range(10_000 // 10):
        app.handle(Intent("right"))
        app.frame()
        assert len(log._pages) <= PAGES
        assert len(states.marks) <= MARKS + 1 and len(states.near) <= NEAR
    assert screen.at is not None and screen.at.place == 1
    assert states.read < 4 * 10_000, states.read
    store.close()


def test_the_log_in_play_starts_from_the_states_the_session_holds(store: Store) -> None:
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    for line in bench.long_race(600)[1]:
        session.play([line])
    log = session.log()
    assert log.rows_at(600)[0].lines == (str(Line.parse(store.entry(session.gid, 600).lines[0])),)  # type: ignore[union-attr]
    assert log.states.read < 64  # the newest page needed no replay from the start


def test_an_entry_damaged_in_the_store_says_so_and_the_rest_still_shows(store: Store) -> None:
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    for line in bench.long_race(5)[1]:
        session.play([line])
    store.db.execute("UPDATE entries SET lines = 'garbled' WHERE game = ? AND seq = 3", (session.gid,))
    log = GameLog(store, session.gid)
    assert log.rows_at(3)[0].words.startswith("Not legal here")
    assert [log.rows_at(place)[0].lines for place in (5, 4, 2, 1)] == [
        e.lines for e in store.entries(session.gid, verified=False) if e.seq in (5, 4, 2, 1)][::-1]
