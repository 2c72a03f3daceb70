"""Damaged storage: a garbled or truncated file is set aside and its readable games carried
over; a locked store is waited for; a full disk refuses the action and writes nothing."""

from __future__ import annotations

import logging
import os
import pathlib
import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from PIL import Image

import companion.store as store_module
from companion.games import GAMES
from companion.record import Header, format_record, replay_text
from companion.salvage import open_store
from companion.session import Session
from companion.store import Entry, Store
from tests.faults import disk_full, store_files, tiny_disk_command
from tests.harness import COMPANION, ENV, Harness, glyphs
from tests.playout import answer

# Durability is what these tests prove: their files stay on a real disk.
pytestmark = pytest.mark.durable

NAMES = ("Ann", "Bob", "Cat")


@pytest.fixture
def path(tmp_path: pathlib.Path) -> str:
    return str(tmp_path / "companion.sqlite")


def fill(path: str, entries: int = 80, seed: int = 1) -> dict[int, tuple[Header, list[Entry]]]:
    """Two games of every kind, played at random; each game's header and entries."""
    store = Store(path)
    rng = random.Random(seed)
    games = {}
    for game_id in sorted(GAMES) * 2:
        game = GAMES[game_id]
        session = Session.new(store, Header(game, NAMES[:max(2, game.min_players)]))
        for _ in range(rng.randint(0, entries)):
            ask = session.prompt()
            if ask is None:
                break
            session.play([answer(game, session.state, ask, rng)])
        games[session.gid] = (session.header, store.entries(session.gid))
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file
    store.close()
    return games


def asides(path: str) -> list[pathlib.Path]:
    folder = pathlib.Path(path).parent
    return sorted(p for p in folder.iterdir() if ".damaged-" in p.name and "-wal" not in p.name
                  and "-shm" not in p.name)


def assert_carried_games_are_true_prefixes(store: Store,
                                           games: dict[int, tuple[Header, list[Entry]]]) -> None:
    """Every carried game is its own header and the first entries it had, nothing else, and
    opens where its record says."""
    assert store.check() == ""
    for row in store.games(limit=1000):
        header, entries = games[row.id]
        kept = store.entries(row.id)
        assert kept == entries[:len(kept)]
        session = Session(store, row.id)
        assert session.header == header
        lines = [line for entry in kept[:row.head] for line in entry.lines]
        assert session.state == replay_text(format_record(header, lines)).state
        assert row.status == ("over" if session.over() else "playing")


# --- a damaged file ---


def test_a_file_that_is_not_a_database_is_set_aside_never_deleted(
        path: str, caplog: pytest.LogCaptureFixture) -> None:
    garbage = random.Random(3).randbytes(50_000)
    pathlib.Path(path).write_bytes(garbage)
    with caplog.at_level(logging.ERROR):
        store, note = open_store(path)
    assert note == "Damaged store, 0 kept, 0 entries"
    (aside,) = asides(path)
    assert aside.read_bytes() == garbage
    assert store.games() == [] and store.check() == ""
    gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
    assert store.game(gid).status == "playing"  # the fresh store works
    store.close()
    (record,) = caplog.records
    assert aside.name in record.getMessage() and "\n" not in record.getMessage()


@pytest.mark.parametrize("cut", [0.0, 0.2, 0.5, 0.7, 0.9, 0.97, 0.999])
def test_a_truncated_store_keeps_the_games_that_can_still_be_read(path: str, cut: float) -> None:
    games = fill(path)
    whole = pathlib.Path(path).read_bytes()
    damaged = whole[:int(len(whole) * cut)] if cut else whole[:100]
    pathlib.Path(path).write_bytes(damaged)

    store, note = open_store(path)
    (aside,) = asides(path)
    assert aside.read_bytes() == damaged
    assert_carried_games_are_true_prefixes(store, games)
    carried = len(store.games(limit=1000))
    entries = sum(len(store.entries(row.id)) for row in store.games(limit=1000))
    assert note == f"Damaged store, {carried} kept, {entries} entries"
    if cut >= 0.9:  # only the tail was lost: every game is still there
        assert carried == len(games)
    store.close()


@pytest.mark.parametrize("seed", range(12))
def test_garbled_pages_never_stop_the_start_and_carry_only_legal_prefixes(path: str,
                                                                          seed: int) -> None:
    games = fill(path, seed=seed)
    raw = bytearray(pathlib.Path(path).read_bytes())
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 4)):  # a few runs of noise, anywhere after the header
        start = rng.randrange(100, len(raw))
        raw[start:start + rng.randint(1, 3000)] = rng.randbytes(rng.randint(1, 3000))
    pathlib.Path(path).write_bytes(bytes(raw))

    store, note = open_store(path)
    assert_carried_games_are_true_prefixes(store, games)
    if note:  # SQLite found the damage: the file was kept as it was
        (aside,) = asides(path)
        assert aside.read_bytes() == bytes(raw)
    store.close()


def test_a_sound_store_is_opened_as_it_is(path: str) -> None:
    games = fill(path)
    store, note = open_store(path)
    assert note == "" and asides(path) == []
    assert {row.id for row in store.games(limit=1000)} == set(games)
    assert_carried_games_are_true_prefixes(store, games)
    store.close()


def frame_shows(image: Image.Image, words: str, size: int = 11) -> bool:
    """Whether ``words`` is drawn anywhere on a frame the capture mode saved (scaled 2x)."""
    frame = image.resize((128, 64), Image.Resampling.NEAREST).convert("1")
    for glyph in glyphs(words, size):
        raw, (width, height) = glyph.tobytes(), glyph.size
        for y in range(64 - height + 1):
            for x in range(128 - width + 1):
                if frame.crop((x, y, x + width, y + height)).tobytes() == raw:
                    return True
    return False


def test_the_companion_starts_on_a_damaged_store_and_says_so(tmp_path: pathlib.Path) -> None:
    """The real process: one line in the log, one line on the first screen, the game resumed."""
    state = tmp_path / "state"
    state.mkdir()
    path = str(state / "companion.sqlite")
    games = fill(path)
    whole = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(whole[:int(len(whole) * 0.97)])
    shots = tmp_path / "shots"
    run = subprocess.run([*COMPANION, "run", "--state", str(state), "--emulator", "capture",
                          "--capture-dir", str(shots), "--keys", ""],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    (line,) = [x for x in run.stderr.splitlines() if "damaged" in x]
    (aside,) = asides(path)
    assert aside.name in line and f"{len(games)} of {len(games)} games carried" in line
    first = sorted(shots.glob("*.png"))[0]
    assert frame_shows(Image.open(first), "Damaged store")  # the screen may wrap the rest


# --- a store another process is using ---

HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode = EXCLUSIVE")  # not even readers get in
db.execute("BEGIN EXCLUSIVE")
db.execute("UPDATE games SET updated = updated")
print("locked", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
db.close()
"""


@pytest.fixture
def holder(path: str) -> Iterator[subprocess.Popen[str]]:
    """Another process (an export, say) holding the store's lock until told to let go."""
    fill(path, entries=5)
    process = subprocess.Popen([sys.executable, "-c", HOLDER, path], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "locked\n"
    yield process
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)
    for pipe in (process.stdin, process.stdout):
        assert pipe is not None
        pipe.close()


class Waiting(logging.Handler):
    """Sets an event when the store logs that it is waiting for the lock."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "waiting" in record.getMessage():
            self.seen.set()


def test_a_locked_store_is_waited_for_never_set_aside(path: str, holder: subprocess.Popen[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 50)  # time out often: wait again
    handler = Waiting()
    logging.getLogger("companion.salvage").addHandler(handler)
    opened: list[tuple[str, int]] = []

    def start() -> None:
        store, note = open_store(path)
        opened.append((note, len(store.games())))
        store.close()

    opener = threading.Thread(target=start)
    try:
        opener.start()
        assert handler.seen.wait(60), "the start did not wait for the lock"
        assert opener.is_alive() and not opened  # still waiting, well past its busy timeout
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.flush()
        opener.join(60)
    finally:
        logging.getLogger("companion.salvage").removeHandler(handler)
    assert opened == [("", 2 * len(GAMES))] and asides(path) == []


def test_a_write_waits_for_another_process_to_finish(path: str,
                                                     holder: subprocess.Popen[str]) -> None:
    """The busy timeout: the write blocks while the other process holds the lock, then lands."""
    assert holder.stdin is not None
    done = threading.Event()
    result: list[int] = []

    def write() -> None:
        store = Store(path)
        gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
        result.append(store.push(gid, ["table roll 3 2"], rolled=False, over=False, winners=[]))
        store.close()
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    assert not done.wait(0.5), "the write did not wait for the lock"
    holder.stdin.write("go\n")
    holder.stdin.flush()
    writer.join(60)
    assert result == [1]


# --- a full disk ---


def test_a_full_disk_refuses_the_write_and_leaves_nothing_half_written(path: str) -> None:
    store = Store(path)
    gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
    for face in range(1, 6):
        store.push(gid, [f"table roll {face} 6"], rolled=False, over=False, winners=[])
    before = (store.game(gid), store.entries(gid))
    refused = 0
    with disk_full(*store_files(path)):
        for face in range(1, 60):
            try:
                store.push(gid, [f"Ann pick move-{face}"] * 40, rolled=False, over=False,
                           winners=[])
            except sqlite3.OperationalError as err:
                refused += 1
                # ENOSPC is SQLITE_FULL; the cap's EFBIG is an I/O error: refused alike
                assert err.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR)
                assert not store.db.in_transaction
                assert (store.game(gid), store.entries(gid)) == before
            else:
                before = (store.game(gid), store.entries(gid))
    assert refused > 0
    store.push(gid, ["table roll 1 2"], rolled=False, over=False, winners=[])  # space again
    assert store.check() == ""
    store.close()
    again = Store(path)
    assert again.entries(gid) == [*before[1], Entry(before[0].head + 1, ("table roll 1 2",), False)]
    again.close()


def test_a_full_disk_shows_not_saved_and_the_game_stays_where_it_was(
        tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    try:
        box.presses("select", "select", "select", "select", "select")  # a new race
        assert box.app.session is not None
        session = box.app.session
        head, state = session.head, session.state
        with disk_full(*store_files(box.store.path)):
            box.press("select")  # roll for me
            assert box.says("not saved")
        assert (session.head, session.state) == (head, state)
        assert box.store.game(session.gid).head == head and box.store.entries(session.gid) == []
        assert box.store.check() == ""
        box.press("select")  # space again: the same press now logs the roll
        assert session.head == 1 and len(box.store.entries(session.gid)) == 1
    finally:
        box.close()


def test_a_full_disk_refuses_a_new_game_with_a_message(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    try:
        box.presses("select", "select", "select", "select")  # up to Start game
        with disk_full(*store_files(box.store.path)):
            box.press("select")
            assert box.shows("Not saved: disk", 11) and box.shows("error", 11)  # two lines
        assert box.app.session is None and box.store.games() == []
    finally:
        box.close()


def test_the_full_disk_fault_is_the_operating_systems(tmp_path: pathlib.Path) -> None:
    """The fault is real: a plain file write past the cap fails, and is lifted after."""
    target = tmp_path / "file"
    target.write_bytes(b"x" * 4096)
    with disk_full(str(target)), open(target, "ab") as handle, pytest.raises(OSError):
        handle.write(b"y" * 8192)
        handle.flush()
    with open(target, "ab") as handle:
        handle.write(b"z" * 8192)
    assert os.path.getsize(target) > 8192


def test_a_really_full_disk_is_said_on_screen_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    """ENOSPC from a real (tiny) file system: SQLite's SQLITE_FULL, through the whole app."""
    disk = tmp_path / "disk"
    disk.mkdir()
    prefix = tiny_disk_command(str(disk))
    if prefix is None:
        pytest.skip("this machine allows no mount namespace for a tiny file system")
    run = subprocess.run([*prefix, sys.executable, "-m", "tests.faults", str(disk)],
                         capture_output=True, text=True, env=ENV, timeout=300,
                         cwd=pathlib.Path(__file__).parent.parent)
    assert run.returncode == 0, run.stderr
    assert "nothing half-written" in run.stdout


def test_a_schema_whose_error_is_not_utf8_is_damage_to_every_reader(tmp_path: pathlib.Path) -> None:
    """A flipped bit in the text where SQLite keeps a table's schema can make SQLite's own
    error message name bytes that are not UTF-8: Python then raised UnicodeDecodeError, not
    an SQLite error, at the first statement, and doctor, games and export each ended in a
    traceback (found by the chaos run). Each says the store is damaged; run sets it aside."""
    path = tmp_path / "companion.sqlite"
    store = Store(str(path))
    store.create("penguin-panic", ["game penguin-panic", "players Ann Bob"])
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema = ON")
    schema = db.execute("SELECT sql FROM sqlite_master WHERE name = 'rolls'").fetchone()[0]
    garbled = schema.encode().replace(b"PRIMARY KEY (game, n)", b"PRIMARY \xe5 (game, n)")
    db.execute("UPDATE sqlite_master SET sql = CAST(? AS TEXT) WHERE name = 'rolls'", (garbled,))
    db.commit()
    db.close()
    for command in (["games"], ["export", "1"], ["doctor"]):
        done = subprocess.run([*COMPANION, *command, "--state", str(tmp_path)], capture_output=True,
                              text=True, env=ENV, timeout=60, check=False)
        assert "Traceback" not in done.stdout + done.stderr, (command, done.stderr[-2000:])
        said = done.stdout + done.stderr
        assert "damaged" in said or "cannot be read" in said or "malformed" in said, (command, said)
    assert done.returncode == 1 and "fail  store" in done.stdout  # doctor
    run = subprocess.run([*COMPANION, "run", "--emulator", "none", "--keys", "", "--state", str(tmp_path)],
                         capture_output=True, text=True, env=ENV, timeout=60, check=False)
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert list(tmp_path.glob("companion.sqlite.damaged-*"))
