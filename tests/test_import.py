"""``companion import FILE`` (issue 28 §1): a record stored as a game, finished or not.

Every golden record goes in and comes back out of ``companion export`` as the same lines;
every illegal one is refused at its line with nothing stored; a file that is no record is
one line and exit 2, whatever it is (a directory, a FIFO, a device, a huge file). The dice
audit a record carries as comments comes back with it, and an unfinished game resumes on
the box, which sees a game imported while it runs at its next press.
"""

from __future__ import annotations

import gc
import io
import json
import os
import pathlib
import random
import sqlite3
import subprocess
import sys
import tracemalloc

import pytest

from companion.ai import seat_line, seats_of
from companion.bench import long_race
from companion.cli import main
from companion.config import Config
from companion.exc import RecordError, UnreadableRecord
from companion.export import export
from companion.games import GAMES
from companion.games.base import Roll
from companion.importer import MOST_UNDONE, Importer, import_stream
from companion.intents import Intent
from companion.record import RecordReader, format_record, replay_text, words
from companion.session import Session
from companion.stats import players
from companion.store import Store
from companion.ui.app import App
from companion.ui.play import PlayScreen
from tests.entries import entries_of
from tests.playout import box_game

GOLDEN = pathlib.Path(__file__).parent / "golden"
LEGAL = sorted(p for p in GOLDEN.glob("*/*.record") if p.with_suffix(".json").exists())
ILLEGAL = sorted(p for p in GOLDEN.glob("*/*.record") if p.with_suffix(".error").exists())


def name(path: pathlib.Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def imported(store: Store, data: bytes) -> int:
    """The record stored in ``store`` (left open), its number."""
    class Kept(Store):  # import closes the store it was handed: this one stays open
        def close(self) -> None:
            pass
    store.__class__ = Kept
    try:
        return import_stream(io.BytesIO(data), lambda: store)
    finally:
        store.__class__ = Store


def record_lines(data: bytes) -> list[str]:
    """A record's header and action lines as the companion writes them: each line's words
    joined by one space, comments and blank lines left out."""
    return [" ".join(words(content)) for _, content in RecordReader(io.BytesIO(data)).lines()
            if content and words(content)]


def games(path: str) -> int:
    if not os.path.exists(path):
        return 0
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        db.close()


# --- every golden record goes in and comes back out the same ---


@pytest.mark.parametrize("record", LEGAL, ids=name)
def test_every_golden_record_round_trips_through_import_and_export(store: Store, record: pathlib.Path) -> None:
    data = record.read_bytes()
    gid = imported(store, data)
    out = export(store, gid)
    assert out is not None and out.problem == ""
    assert out.record.splitlines() == record_lines(data)
    golden = json.loads(record.with_suffix(".json").read_text())
    assert {key: out.summary[key] for key in golden} == golden  # type: ignore[literal-required]
    row = store.game(gid)
    assert row.status == ("over" if out.summary["over"] else "playing")  # type: ignore[index]
    assert list(row.winners) == out.summary["winners"]  # type: ignore[index]


@pytest.mark.parametrize("record", ILLEGAL, ids=name)
def test_every_illegal_golden_record_is_refused_at_its_line_and_nothing_is_stored(
        tmp_path: pathlib.Path, record: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    line, _, words = record.with_suffix(".error").read_text().strip().partition("\n")
    assert main(["import", str(record), "--state", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith(f"{record}:{line}: ") and out.err.count("\n") == 1
    assert words in out.err  # the reason replay gives
    assert games(str(tmp_path / "companion.sqlite")) == 0


def test_the_command_prints_the_games_number_and_export_gives_the_record_back(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = GOLDEN / "microbot-racers" / "lap-win.record"
    for expected in (1, 2):
        assert main(["import", str(path), "--state", str(tmp_path)]) == 0
        assert capsys.readouterr().out == f"{expected}\n"
    assert main(["export", "2", "--state", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == record_lines(path.read_bytes())


def test_an_illegal_line_late_in_a_long_record_stores_nothing(store: Store) -> None:
    header, lines = long_race(3000)
    text = format_record(header, lines) + "Ann pick fly\n"
    with pytest.raises(RecordError) as refused:
        imported(store, text.encode())
    assert refused.value.line == 2 + 3000 + 1
    assert store.games() == []


# --- the dice audit and the companion's seat come back ---


DICE_GAMES = [g for g in GAMES if g != "quick-lemmings"]


@pytest.mark.parametrize("game_id", DICE_GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_box_game_with_its_dice_audit_round_trips(store: Store, game_id: str, seed: int) -> None:
    session = box_game(store, game_id, seed)
    text = session.record()
    assert "# rolled by the companion" in text
    gid = imported(store, text.encode())
    again = Session(store, gid)
    assert again.record() == text
    assert export(store, gid).record == text  # type: ignore[union-attr]
    assert again.summary() == session.summary()
    # Cut into entries as the box cut them: a device roll and its chained rolls are one.
    assert [e.lines for e in store.entries(gid)] == [e.lines for e in store.entries(session.gid, session.head)]


def test_an_undone_roll_comes_back_offered_again_after_import(store: Store) -> None:
    text = ("game microbot-racers\nplayers Ann Bob\n"
            "# undone: table roll 4 4\n# undone: table roll 6 1\n"
            "table roll 3 2  # rolled again by the companion\n")
    gid = imported(store, text.encode())
    session = Session(store, gid)
    assert session.record() == text
    assert [(r.seq, r.lines, r.again) for r in store.rolls(gid)] == [
        (1, ("table roll 4 4", "table roll 6 1"), False), (1, ("table roll 3 2",), True)]
    session.undo()
    ask = session.prompt()
    assert ask is not None and isinstance(ask.answers[0], Roll)
    assert session.roll_again(ask.answers[0]) == ("3 2",)


def test_the_companions_seat_comes_back_and_other_comments_go(store: Store) -> None:
    text = ("# a game from last night\ngame gleebs-and-grues\nplayers Ann Bob  # Ann: blue\n"
            f"{seat_line('Bob')}\n\ntable grues b2 c3 d4  # what fun\nAnn place B1 a1\n")
    gid = imported(store, text.encode())
    assert store.game(gid).header[-1] == seat_line("Bob")
    assert export(store, gid).record == (  # type: ignore[union-attr]
        f"game gleebs-and-grues\nplayers Ann Bob\n{seat_line('Bob')}\ntable grues b2 c3 d4\nAnn place B1 a1\n")


@pytest.mark.parametrize(("game", "seats", "kept"), [
    ("gleebs-and-grues", ["Bob", "Ann"], ["Bob"]),  # the box hands the companion one seat
    ("microbot-racers", ["Bob"], []),  # a game the companion cannot play
])
def test_only_a_seat_the_box_could_hand_the_companion_comes_back(
        tmp_path: pathlib.Path, game: str, seats: list[str], kept: list[str]) -> None:
    """Review of issue 28: import kept every ``# companion plays`` line, for any game: a
    finished game with both seats handed over counted two plays and two wins of
    "Companion" in History > Players, and a race the companion cannot play was sent to BG
    Stats with a non-player in it."""
    record = GOLDEN / game / ("grues-win-tie.record" if game == "gleebs-and-grues" else "lap-win.record")
    header, _, body = record.read_text().partition("\nplayers Ann Bob\n")
    text = f"{header}\nplayers Ann Bob\n" + "".join(f"{seat_line(name)}\n" for name in seats) + body
    path = str(tmp_path / "companion.sqlite")
    gid = import_stream(io.BytesIO(text.encode()), lambda: Store(path))
    store = Store(path)
    try:
        assert list(seats_of(store.game(gid).header)) == kept
        assert [r.plays for r in players(store) if r.name == "Companion"] == ([1] if kept else [])
    finally:
        store.close()


def test_typed_dice_are_cut_as_one_entry_a_roll(store: Store) -> None:
    replayed = replay_text((GOLDEN / "leaf-climbers" / "all-blue-four.record").read_text())
    gid = imported(store, (GOLDEN / "leaf-climbers" / "all-blue-four.record").read_bytes())
    assert [e.lines for e in store.entries(gid)] == [tuple(str(x) for x in e.lines) for e in entries_of(replayed)]
    assert not any(e.rolled for e in store.entries(gid))


# --- on the box ---


def test_an_unfinished_game_resumes_at_its_question_and_undo_steps_back_an_entry(path: str) -> None:
    data = (GOLDEN / "leaf-climbers" / "mid-round.record").read_bytes()
    store = Store(path)
    gid = imported(store, data)
    app = App(store, Config(), rng=random.Random(1))
    assert app.resume_latest()
    screen = app.top
    assert isinstance(screen, PlayScreen) and screen.session.gid == gid
    expected = replay_text(data.decode())
    assert screen.session.state == expected.state
    head = screen.session.head
    app.handle(Intent("undo"))
    assert screen.session.head == head - 1
    store.close()


def test_a_game_imported_while_the_box_runs_is_listed_at_the_next_press(path: str) -> None:
    box_store = Store(path)
    app = App(box_store, Config(), rng=random.Random(1))
    assert app.top.items[0].label == "New game"  # type: ignore[attr-defined]
    other = Store(path)  # another process's connection, as `companion import` opens it
    imported(other, (GOLDEN / "leaf-climbers" / "mid-round.record").read_bytes())
    imported(other, (GOLDEN / "microbot-racers" / "lap-win.record").read_bytes())
    other.close()
    app.handle(Intent("select"))  # meant for "New game": it only shows the change
    assert app.top.message == "Stored games changed"
    assert [i.label for i in app.top.items][:2] == ["Resume", "New game"]  # type: ignore[attr-defined]
    app.handle(Intent("down"))
    app.handle(Intent("down"))
    app.handle(Intent("select"))  # History
    assert [i.label for i in app.top.items] == ["Players", "Dice", "Microbot Racers"]  # type: ignore[attr-defined]
    box_store.close()


def test_import_waits_for_a_store_another_process_is_writing(tmp_path: pathlib.Path) -> None:
    store = Store(str(tmp_path / "companion.sqlite"))
    store.db.execute("BEGIN IMMEDIATE")  # the daemon in the middle of a write
    root = pathlib.Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    record = str(GOLDEN / "microbot-racers" / "draw.record")
    run = subprocess.Popen([sys.executable, "-m", "companion", "import", record, "--state", str(tmp_path)],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            run.wait(1.5)  # replayed, and waiting for the store
        store.db.execute("COMMIT")
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert (run.returncode, out, err) == (0, b"1\n", b"")
    assert len(store.games()) == 1
    store.close()


# --- what is no record: one line, exit 2, nothing stored ---


def unreadable(tmp_path: pathlib.Path, target: str, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    assert main(["import", target, "--state", str(state)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and out.err.startswith(f"{target}: ")
    assert "Traceback" not in out.err
    assert games(str(state / "companion.sqlite")) == 0


def test_a_directory_is_no_record(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    unreadable(tmp_path, str(tmp_path), capsys)


def test_a_fifo_with_no_writer_is_refused_at_once(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    unreadable(tmp_path, str(fifo), capsys)


def test_a_device_is_no_record(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    unreadable(tmp_path, "/dev/zero", capsys)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = tmp_path / "huge.record"
    with open(huge, "wb") as out:
        out.write(b"game microbot-racers\nplayers Ann Bob\n")
        out.truncate(64 * 2**20)  # sparse: no disk taken
    unreadable(tmp_path, str(huge), capsys)


@pytest.mark.parametrize("data", [b"", b"players Ann Bob\n", b"game chess\nplayers Ann Bob\n",
                                  b"game microbot-racers\nplayers Ann Bob\ntable roll 3 2 # \xff\n"],
                         ids=["empty", "no game line", "unknown game", "not UTF-8 in a comment"])
def test_text_that_is_no_record(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    path = tmp_path / "bad.record"
    path.write_bytes(data)
    unreadable(tmp_path, str(path), capsys)


def test_a_file_that_cannot_be_opened(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    unreadable(tmp_path, str(tmp_path / "missing.record"), capsys)


def test_an_illegal_line_then_bytes_that_are_not_utf8_is_unreadable(store: Store) -> None:
    data = b"game microbot-racers\nplayers Ann Bob\nAnn pick fly\n\xff\n"
    with pytest.raises(UnreadableRecord):
        imported(store, data)


# --- flat memory ---


def held_before_storing(store: Store, lines: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """The memory Python holds once a race of ``lines`` lines is read and checked, just
    before it is stored (garbage collected first)."""
    header, race = long_race(lines)
    data = format_record(header, race).encode()
    held: list[int] = []
    write = Importer.store

    def measured(importer: Importer, into: Store) -> int:
        gc.collect()
        held.append(tracemalloc.get_traced_memory()[0])
        return write(importer, into)

    monkeypatch.setattr(Importer, "store", measured)
    tracemalloc.start()
    try:
        gid = imported(store, data)
    finally:
        tracemalloc.stop()
    assert export(store, gid).record == data.decode()  # type: ignore[union-attr]
    return held[0]


def test_importing_a_long_record_keeps_memory_flat(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entries wait in a scratch database, not in lists: four times the lines, and the
    same memory held when they are all read."""
    short, long = held_before_storing(store, 1000, monkeypatch), held_before_storing(store, 4000, monkeypatch)
    assert long < short + 32 * 1024, (short, long)


def export_peak(store: Store, lines: int) -> tuple[int, int]:
    """The most memory Python held while exporting a stored race of ``lines`` lines, and
    the length of the record it wrote."""
    header, race = long_race(lines)
    gid = imported(store, format_record(header, race).encode())
    gc.collect()
    tracemalloc.start()
    try:
        out = export(store, gid)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out is not None and out.problem == ""
    return peak, len(out.record)


def test_exporting_a_long_game_holds_about_its_text_not_its_states(store: Store) -> None:
    """Review of issue 28: export kept every entry's state and row while it replayed (130 MB
    for a 100,000-line record that import takes in 25 MB), and the phone's History works
    out each finished game's BG Stats link through it. Four times the lines now cost about
    the text they add, not a state each."""
    (short, short_text), (long, long_text) = export_peak(store, 1000), export_peak(store, 4000)
    assert long - short < 6 * (long_text - short_text) + 64 * 1024, (short, long, long_text - short_text)


def test_crlf_a_byte_order_mark_and_tabs_change_nothing(store: Store) -> None:
    text = ("game microbot-racers\nplayers Ann Bob\n# undone: table roll 6 6\n"
            "table roll 3 2  # rolled again by the companion\n")
    plain = imported(store, text.encode())
    odd = imported(store, b"\xef\xbb\xbf" + text.replace(" ", "\t").replace("\n", "\r\n").encode())
    assert export(store, odd).record == export(store, plain).record == text  # type: ignore[union-attr]


@pytest.mark.parametrize("after", [False, True], ids=["before-an-entry", "after-the-last"])
def test_more_undone_rolls_at_one_place_than_the_box_can_show_are_refused(store: Store, after: bool) -> None:
    """Review of issue 28: a 5 MB record of 200,000 ``# undone:`` comments was stored, and
    then the Log took 80 MB and 3 s to open that place, every press of the game in play
    read them all, and a phone page got them all at each press. An import keeps at most
    MOST_UNDONE rolls undone at one place (the box offers the last one again: a table
    reaches a handful); one more is refused at its line, and nothing is stored."""
    def record(undone: int) -> str:
        rolls = [f"# undone: table roll {1 + n % 6} {1 + (n + 1) % 6}" for n in range(undone)]  # no ties
        body = ["table roll 3 2", *rolls] if after else [*rolls, "table roll 3 2"]
        return "\n".join(["game microbot-racers", "players Ann Bob", *body]) + "\n"

    with pytest.raises(RecordError) as refused:
        imported(store, record(MOST_UNDONE + 1).encode())
    assert refused.value.line == 2 + MOST_UNDONE + 1 + after
    assert f"{MOST_UNDONE}" in refused.value.reason
    assert store.games() == []
    fewer = record(MOST_UNDONE)
    gid = imported(store, fewer.encode())
    assert len(store.rolls(gid)) == MOST_UNDONE
    assert export(store, gid).record == fewer  # type: ignore[union-attr]


def test_a_comment_too_long_for_a_roll_is_the_writers_own(store: Store) -> None:
    text = f"game microbot-racers\nplayers Ann Bob\n# undone: table roll {'6 ' * 2000}\ntable roll 3 2\n"
    gid = imported(store, text.encode())
    assert store.rolls(gid) == []
