"""Who wins, and are the dice fair (issue 28 §4): History > Players and Dice on the box,
``companion stats`` as text and JSON, each face kept with its source, and the chi-square
test's p-value computed here (no SciPy) checked against values known in closed form and
from the tables.
"""

from __future__ import annotations

import io
import json
import math
import pathlib
import random
import sqlite3
from typing import Any

import pytest

from companion.ai import seat_line
from companion.bench import long_race
from companion.cli import main
from companion.config import Config
from companion.games.base import Line
from companion.importer import import_stream
from companion.intents import Intent
from companion.record import format_record, replay_text
from companion.session import Session
from companion.stats import (
    COMPANION,
    MIN_EXPECTED,
    DiceCounter,
    Tally,
    chi_square_p,
    dice,
    players,
    upper_gamma_q,
    verdict,
)
from companion.store import MIGRATIONS, Store
from companion.ui.app import App
from companion.ui.draw import recording
from companion.ui.stats import SLICE, DiceChart, DiceCount
from companion.ui.widgets import Menu, Page
from tests.consoles import ConsoleBox
from tests.layout import layout_faults

GOLDEN = pathlib.Path(__file__).parent / "golden"


# --- the p-value ---


@pytest.mark.parametrize("x", [0.001, 0.1, 0.5, 1.0, 2.0, 3.7, 7.0, 12.5, 30.0, 80.0, 300.0])
def test_the_tail_matches_the_closed_forms(x: float) -> None:
    """With 1, 2, 4 and 6 degrees of freedom the chi-square tail has closed forms."""
    half = x / 2
    assert chi_square_p(x, 1) == pytest.approx(math.erfc(math.sqrt(half)), rel=1e-9, abs=1e-300)
    assert chi_square_p(x, 2) == pytest.approx(math.exp(-half), rel=1e-9, abs=1e-300)
    assert chi_square_p(x, 4) == pytest.approx(math.exp(-half) * (1 + half), rel=1e-9, abs=1e-300)
    assert chi_square_p(x, 6) == pytest.approx(math.exp(-half) * (1 + half + half**2 / 2), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(("freedom", "critical", "p"), [
    (1, 3.841, 0.05), (3, 7.815, 0.05), (5, 11.070, 0.05), (19, 30.144, 0.05),
    (3, 11.345, 0.01), (5, 15.086, 0.01), (19, 36.191, 0.01), (5, 20.515, 0.001),
])
def test_the_tail_matches_the_tables(freedom: int, critical: float, p: float) -> None:
    """The critical values printed in chi-square tables (three decimals)."""
    assert chi_square_p(critical, freedom) == pytest.approx(p, rel=2e-3)


def test_the_function_at_its_edges() -> None:
    assert upper_gamma_q(2.5, 0) == 1.0
    assert upper_gamma_q(0.5, 1e-12) == pytest.approx(math.erfc(1e-6), rel=1e-12)
    assert upper_gamma_q(10, 1000) == 0.0 or upper_gamma_q(10, 1000) < 1e-300
    values = [upper_gamma_q(9.5, x / 4) for x in range(200)]
    assert values == sorted(values, reverse=True)  # a tail only falls
    with pytest.raises(ValueError):
        upper_gamma_q(0, 1)


# --- the verdict ---


def test_no_verdict_below_five_expected_rolls_a_face() -> None:
    assert verdict([4, 5, 5, 5, 5, 5]).p is None
    assert verdict([0] * 19 + [99]).p is None  # a d20 needs 100
    assert verdict([5] * 6).words == "nothing unusual"
    assert verdict([0] * 19 + [100]).words.startswith("this looks uneven: 100 rolls, p = ")


def test_fair_dice_look_fair_and_a_loaded_one_does_not() -> None:
    rng = random.Random(2)
    for sides in (4, 6, 20):
        fair = [0] * sides
        for _ in range(3000):
            fair[rng.randint(1, sides) - 1] += 1
        assert verdict(fair).words == "nothing unusual", fair
    loaded = [0] * 6
    for _ in range(600):  # a six one time in four instead of one in six
        loaded[5 if rng.random() < 0.25 else rng.randint(0, 4)] += 1
    assert verdict(loaded).words.startswith("this looks uneven: 600 rolls, p = ")
    assert MIN_EXPECTED == 5


# --- each face with its source ---


def tallies(store: Store) -> dict[tuple[str, str, int], tuple[int, ...]]:
    return {(t.game, t.source, t.sides): t.counts for t in dice(store)}


def test_each_source_is_counted_apart_and_undone_device_rolls_count(store: Store) -> None:
    session = Session.new(store, replay_text("game leaf-climbers\nplayers Ann Bob\n").header)
    session.play([Line.parse("table drop 1"), Line.parse("table leaf 2 2")], rolled=True)
    session.play([Line.parse("Ann roll 1")], source="keys")
    session.undo()
    session.play([Line.parse("Ann roll 2")], rolled=True)  # a device roll, then undone
    session.undo()
    session.play([Line.parse("Ann roll 3")], source="reader")
    session.play([Line.parse("Ann move 1 1")], source="keys")
    session.play([Line.parse("Bob roll 4")], source="keys")
    found = tallies(store)
    assert found[("leaf-climbers", "device", 20)] == (1,) + (0,) * 19
    assert found[("leaf-climbers", "device", 4)] == (0, 1, 0, 0)  # the undone roll
    assert found[("leaf-climbers", "reader", 4)] == (0, 0, 1, 0)
    assert found[("leaf-climbers", "typed", 4)] == (0, 0, 0, 1)  # the typed 1 was undone: no roll
    assert ("leaf-climbers", "device", 6) not in found  # a leaf may be rolled again: no fair die


def test_a_roll_made_again_with_the_same_faces_counts_both_rolls(store: Store) -> None:
    """Review of issue 28: the box rolled 3 2, it was undone, and "Roll again" rolled 3 2 once
    more: the audit, the Log and the export keep two rolls, and the dice counted one (every
    roll at that place with the faces in force was taken for the roll in force)."""
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    session.play([Line.parse("table roll 3 2")], rolled=True)
    session.undo()
    session.play([Line.parse("table roll 3 2")], rolled=True, again=True)
    assert tallies(store)[("microbot-racers", "device", 6)] == (0, 2, 2, 0, 0, 0)


def test_a_console_a_reader_and_the_keys_each_say_where_faces_came_from(tmp_path: pathlib.Path) -> None:
    box = ConsoleBox(tmp_path)
    box.ok("game microbot-racers", "players Ann Bob", "table roll 3 3", "dice 5 1")
    found = tallies(box.store)
    assert found[("microbot-racers", "typed", 6)] == (0, 0, 2, 0, 0, 0)  # the console's record line
    assert found[("microbot-racers", "reader", 6)] == (1, 0, 0, 0, 1, 0)
    box.store.close()


def test_an_older_store_keeps_its_entries_and_their_faces_are_typed_or_read(path: str) -> None:
    store = Store(path)
    session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
    session.play([Line.parse("table roll 3 2")], source="keys")
    store.close()
    db = sqlite3.connect(path)  # as version 1 of the store left it
    db.executescript("ALTER TABLE entries DROP COLUMN source; DROP INDEX rolls_by_entry;"
                     " ALTER TABLE entries DROP COLUMN crc; ALTER TABLE games DROP COLUMN crc;"
                     " PRAGMA user_version = 1;")
    db.close()
    store = Store(path)
    assert store.version() == len(MIGRATIONS)
    assert Session(store, 1).record() == "game microbot-racers\nplayers Ann Bob\ntable roll 3 2\n"
    assert tallies(store) == {("microbot-racers", "unknown", 6): (0, 1, 1, 0, 0, 0)}
    session = Session(store, 1)
    session.play([Line.parse("Bob pick move-2")], source="keys")
    assert store.sources(1, 1, 2) == {2: "keys"}
    store.close()


def test_imported_faces_and_their_audit_count_as_they_came(store: Store) -> None:
    text = ("game microbot-racers\nplayers Ann Bob\n# undone: table roll 6 6\n"
            "table roll 2 1  # rolled again by the companion\nBob pick move-2\nAnn pick move-3\n"
            "Ann pick turn-right\nBob pick drift-left\nBob pick repair\nAnn pass\nAnn do move-3\n"
            "Ann hazard\nAnn roll 6\n")
    import_stream(io.BytesIO(text.encode()), lambda: Store(store.path))
    found = tallies(store)
    assert found[("microbot-racers", "device", 6)] == (1, 1, 0, 0, 0, 2)
    assert found[("microbot-racers", "imported", 6)] == (0, 0, 0, 0, 0, 1)


# --- players ---


def test_plays_wins_and_the_companions_seat(store: Store) -> None:
    for name in ("lap-win", "draw", "destruction-win"):
        import_stream(io.BytesIO((GOLDEN / "microbot-racers" / f"{name}.record").read_bytes()),
                      lambda: Store(store.path))
    gid = store.create("gleebs-and-grues", ["game gleebs-and-grues", "players Ann Bob", seat_line("Bob")])
    with store._write() as db:  # the companion won (its row summed again, as a change does)
        db.execute("UPDATE games SET status = 'over', winners = '[\"Bob\"]' WHERE id = ?", (gid,))
        store._seal(db, gid)
    found = {(r.name, r.game): (r.plays, r.wins) for r in players(store)}
    races = [replay_text((GOLDEN / "microbot-racers" / f"{n}.record").read_text()) for n in ("lap-win", "draw",
                                                                                             "destruction-win")]
    ann_wins = sum("Ann" in r.header.game.outcome(r.state).winners for r in races)  # type: ignore[union-attr]
    assert found[("Ann", "microbot-racers")] == (3, ann_wins)
    assert found[(COMPANION, "gleebs-and-grues")] == (1, 1)
    assert ("Bob", "gleebs-and-grues") not in found
    assert found[("Ann", "gleebs-and-grues")] == (1, 0)


# --- the command ---


def test_companion_stats_as_text_and_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    for record in ("microbot-racers/lap-win", "penguin-panic/two-players-full"):
        assert main(["import", str(GOLDEN / f"{record}.record"), "--state", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["stats", "--state", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Players\n  Ann\n    Microbot Racers: 1 played" in text
    assert "Dice\n" in text and "d6, imported: " in text and "too few rolls to tell" in text
    assert main(["stats", "--json", "--state", str(tmp_path)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert {r["game"] for r in found["players"]} == {"microbot-racers", "penguin-panic"}
    one = found["dice"][0]
    assert set(one) == {"game", "title", "source", "source_words", "die", "rolls", "faces", "expected",
                        "chi_square", "p", "verdict"}
    assert one["rolls"] == sum(one["faces"]) and one["die"] == f"d{len(one['faces'])}"


def test_companion_stats_marks_a_date_of_an_unset_clock_as_companion_games_does(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Review of issue 28: ``companion stats`` wrote "last 27 Nov 07:29?", a bare question
    mark that nothing on the command line explains, where ``companion games`` writes the
    same date "(clock not synced)"."""
    assert main(["import", str(GOLDEN / "microbot-racers" / "lap-win.record"), "--state", str(tmp_path)]) == 0
    store = Store(str(tmp_path / "companion.sqlite"))
    store.db.execute("UPDATE games SET created_synced = 0, updated_synced = 0")
    store.close()
    capsys.readouterr()
    assert main(["games", "--state", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert main(["stats", "--state", str(tmp_path)]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "played" in line]
    assert said and all(line.endswith(" (clock not synced)") for line in said)
    assert "(clock not synced)" in listed and "?" not in "".join(said)


# --- on the box ---


def test_history_dice_counts_a_slice_between_presses_then_shows_charts(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("companion.ui.stats.SLICE", 3)  # a few games a slice, as a long history on a Pi
    store = Store(str(tmp_path / "companion.sqlite"))
    rng = random.Random(5)
    for _ in range(12):
        session = Session.new(store, replay_text("game microbot-racers\nplayers Ann Bob\n").header)
        for _ in range(40):
            session.play([Line("table", "roll", (str(rng.randint(1, 5)), "6"))], rolled=True)
            session.undo()  # rolls made and undone: the audit keeps them
    app = App(store, Config(), rng=random.Random(1))
    app.home.history()
    app.handle(Intent("down"))
    app.handle(Intent("select"))
    counting = app.top
    assert isinstance(counting, DiceCount) and app.deadline() == float("-inf")
    slices = 0
    while app.top is counting:
        app.tick(0)
        slices += 1
    assert slices > 1  # the history was counted over several wake-ups, presses between them
    assert app.deadline() is None  # done: the loop sleeps again
    menu = app.top
    assert isinstance(menu, Menu) and [i.label for i in menu.items] == ["Microbot Racers"]
    app.handle(Intent("select"))
    app.handle(Intent("select"))
    chart = app.top
    assert isinstance(chart, DiceChart) and chart.tally.rolls == 12 * 40 * 2
    assert chart.tally.counts[5] == 12 * 40 and chart.tally.source == "device"
    assert chart.tally.verdict().words.startswith("this looks uneven")
    app.handle(Intent("select"))
    assert isinstance(app.top, Page)
    store.close()


def test_a_long_game_is_counted_a_slice_at_a_time_too(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review of issue 28: a slice counted whole games, so one 10,000-entry game was one
    slice (0.14 s on the project's PC, over a second on a Pi Zero 2), and a press waited
    for it. A slice is SLICE entries, wherever they fall."""
    path = str(tmp_path / "companion.sqlite")
    header, race = long_race(1000)
    import_stream(io.BytesIO(format_record(header, race).encode()), lambda: Store(path))
    store = Store(path)
    entries = []
    lines = DiceCounter.lines

    def counted(self: DiceCounter, *args: Any) -> Any:
        entries.append(1)
        return lines(self, *args)

    monkeypatch.setattr(DiceCounter, "lines", counted)
    app = App(store, Config(), rng=random.Random(1))
    app.home.history()
    app.handle(Intent("down"))
    app.handle(Intent("select"))
    counting = app.top
    assert isinstance(counting, DiceCount)
    slices = []
    while app.top is counting:
        before = len(entries)
        app.tick(0)
        slices.append(len(entries) - before)
    assert max(slices) <= SLICE and sum(slices) == store.game(1).head
    store.close()


def test_backing_out_of_the_count_stops_it(store: Store) -> None:
    app = App(store, Config(), rng=random.Random(1))
    counting = DiceCount(store, app)
    counting.games = list(range(1, 50))
    app.push(counting)
    app.handle(Intent("back"))
    assert app.top is not counting and app.deadline() is None
    assert counting.done == 0


def draws_whole(app: App) -> list[str]:
    with recording() as drawn:
        image = app.frame()
    assert layout_faults(image, tuple(drawn)) == []
    return [d.words for d in drawn]


@pytest.mark.parametrize("counts", [(0, 1, 2, 3, 4, 5), (9, 0, 0, 1), (3,) * 20, tuple(range(20)),
                                    (200, 0, 0, 0, 0, 0)])
def test_every_chart_and_page_is_whole_on_the_screen(store: Store, counts: tuple[int, ...]) -> None:
    app = App(store, Config(), rng=random.Random(1))
    for source in ("device", "typed", "reader", "imported", "unknown"):
        app.push(DiceChart(Tally("leaf-climbers", source, len(counts), counts)))  # type: ignore[arg-type]
        draws_whole(app)
        app.handle(Intent("select"))
        for _ in range(4):
            draws_whole(app)
            app.handle(Intent("down"))
        del app.stack[1:]


def test_the_players_screens_are_whole_on_the_screen(store: Store) -> None:
    for record in GOLDEN.glob("*/*.record"):
        if record.with_suffix(".json").exists():
            import_stream(io.BytesIO(record.read_bytes()), lambda: Store(store.path))
    app = App(store, Config(), rng=random.Random(1))
    app.home.history()
    assert "Players" in draws_whole(app)
    app.handle(Intent("select"))
    names = [i.label for i in app.top.items]  # type: ignore[attr-defined]
    for number in range(len(names)):
        app.handle(Intent("digit", number + 1) if number < 9 else Intent("down"))
        draws_whole(app)
        app.handle(Intent("select"))
        for _ in range(6):
            draws_whole(app)
            app.handle(Intent("down"))
        app.handle(Intent("back"))
