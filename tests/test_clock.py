"""A Pi at a table has no trustworthy clock: order by the store's sequence, mark unsure dates.

The wall clock here is set by the test, as fake-hwclock (an hour behind after a power cut)
and a network turning up (a jump forward) would set it; a temporary directory stands in
for /run, where systemd-timesyncd marks a synchronised clock.
"""

from __future__ import annotations

import datetime
import json
import pathlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

import companion.store as store_module
from companion.cli import main
from companion.clock import SYNC_FLAG, UNSURE_MARK, UNSURE_WORDS, Clock
from companion.record import replay_text
from companion.salvage import carry_games
from companion.session import Session
from companion.store import Store
from tests.examples import HEADER, LAP_WIN, ROLL
from tests.harness import Harness, store_game

T = 1_795_000_000.0  # an evening in November 2026
HOUR, DAY = 3600.0, 86400.0


class Wall:
    """A wall clock the test moves."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def wall() -> Wall:
    return Wall(T)


@pytest.fixture
def run_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """Stands in for /run: no sync mark until a test makes one."""
    path = tmp_path / "run"
    path.mkdir()
    return path


@pytest.fixture
def clock(wall: Wall, run_dir: pathlib.Path) -> Clock:
    return Clock(wall=wall, run_dir=run_dir)


def synchronise(run_dir: pathlib.Path) -> None:
    """What systemd-timesyncd does when it first sets the clock from the network."""
    (run_dir / SYNC_FLAG).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / SYNC_FLAG).touch()


def race(names: tuple[str, str], finished: bool) -> str:
    """A Microbot Racers record between ``names``: won by the first, or one roll in (the
    second is then P1)."""
    text = LAP_WIN if finished else HEADER + ROLL
    return text.replace("Ann", names[0]).replace("Bob", names[1])


@dataclass(frozen=True)
class Evening:
    """One evening's play: a game won by ``names[0]``, and one left unfinished."""

    names: tuple[str, str]
    won: int
    open: int


def evening(store: Store, names: tuple[str, str]) -> Evening:
    return Evening(names, store_game(store, race(names, True)), store_game(store, race(names, False)))


def shown(stamp: float) -> str:
    return datetime.datetime.fromtimestamp(stamp).strftime("%d %b %H:%M")


# --- order by sequence, whatever the clock says ---


@pytest.fixture
def box(tmp_path: pathlib.Path, clock: Clock) -> Iterator[Harness]:
    harness = Harness(tmp_path, clock=clock)
    yield harness
    harness.close()


def restart(box: Harness, tmp_path: pathlib.Path, clock: Clock) -> Harness:
    """The power goes off and on: a fresh companion on the same store, resuming as at boot."""
    box.close()
    again = Harness(tmp_path, clock=clock)
    again.app.resume_latest()
    again.daemon.refresh()
    return again


def assert_newest_first(box: Harness, evenings: list[Evening]) -> None:
    """Resume opens the latest evening's open game; History lists its won game first."""
    latest, *earlier = evenings
    assert [row.id for row in box.store.games("playing")] == [e.open for e in evenings]
    assert [row.id for row in box.store.games("over")] == [e.won for e in evenings]

    assert box.app.session is not None and box.app.session.gid == latest.open
    assert box.shows(latest.names[1])  # P1's turn, in the header of the play screen
    assert not any(box.shows(e.names[1]) for e in earlier)

    box.app.leave_game()
    box.presses("down", "down")  # Resume, New game, History
    assert box.shows("History")
    box.presses("select", "down", "down", "select", "down", "select")  # History, its first game, Details
    assert box.shows("Finished game")
    assert box.shows(f"Players: {', '.join(latest.names)}.", 11)


def test_a_clock_put_back_or_forward_never_changes_what_is_newest(
        box: Harness, tmp_path: pathlib.Path, wall: Wall, clock: Clock) -> None:
    a = evening(box.store, ("Ann", "Bob"))
    wall.now -= HOUR  # a power cut: fake-hwclock brings the clock back up to an hour behind
    b = evening(box.store, ("Cat", "Dan"))
    assert box.store.game(b.won).updated < box.store.game(a.won).updated  # the clock did lie
    box = restart(box, tmp_path, clock)
    assert_newest_first(box, [b, a])

    wall.now += DAY  # a network turns up: the clock jumps forward
    box = restart(box, tmp_path, clock)
    assert_newest_first(box, [b, a])
    c = evening(box.store, ("Eve", "Fay"))
    box = restart(box, tmp_path, clock)
    assert_newest_first(box, [c, b, a])

    wall.now = T  # back again: the last evening's dates now lie in the clock's future
    d = evening(box.store, ("Gus", "Hal"))
    box = restart(box, tmp_path, clock)
    assert_newest_first(box, [d, c, b, a])
    box.close()


def test_undo_and_abandon_count_as_changes_whatever_the_clock(store: Store, clock: Clock,
                                                                wall: Wall) -> None:
    store.clock = clock
    first = store_game(store, race(("Ann", "Bob"), False))
    second = store_game(store, race(("Cat", "Dan"), False))
    wall.now -= HOUR
    Session(store, first).undo()
    assert [row.id for row in store.games("playing")] == [first, second]
    wall.now -= HOUR
    Session(store, second).undo()
    assert [row.id for row in store.games("playing")] == [second, first]
    wall.now -= HOUR
    Session(store, first).abandon()
    assert [row.id for row in store.games()] == [first, second]
    assert [row.id for row in store.games("playing")] == [second]


# --- dates that may be wrong say so ---


def test_synchronised_is_the_timesyncd_mark_under_run(run_dir: pathlib.Path, wall: Wall) -> None:
    clock = Clock(wall=wall, run_dir=run_dir)
    assert not clock.synchronised()
    assert clock.stamp().synced is False
    synchronise(run_dir)
    assert clock.synchronised()
    assert clock.stamp().when == T and clock.stamp().synced is True


def test_dates_stamped_before_the_clock_was_synchronised_stay_marked(
        box: Harness, tmp_path: pathlib.Path, run_dir: pathlib.Path, wall: Wall,
        clock: Clock) -> None:
    unsure = store_game(box.store, race(("Ann", "Bob"), True))  # no network yet
    synchronise(run_dir)
    wall.now += 2 * HOUR  # the network set the clock right
    sure = store_game(box.store, race(("Cat", "Dan"), True))
    rows = {row.id: row for row in box.store.games()}
    assert (rows[unsure].created_synced, rows[unsure].updated_synced) == (False, False)
    assert (rows[sure].created_synced, rows[sure].updated_synced) == (True, True)

    # On the screen: History > the game > its page; the unsure date carries the mark.
    box = restart(box, tmp_path, clock)
    box.presses("down", "select", "down", "down", "select", "down", "select")  # History: the newest game's Details
    assert box.shows(shown(wall.now), 11)
    assert not box.shows(f"{shown(wall.now)}{UNSURE_MARK}", 11)
    box.press("select")  # the page closes
    box.intent("back")  # back to History
    box.presses("down", "select", "down", "select")  # the older game's Details
    assert box.shows(f"{shown(T)}{UNSURE_MARK}", 11)
    box.close()


def test_games_listing_says_which_dates_may_be_wrong(tmp_path: pathlib.Path, run_dir: pathlib.Path,
                                                     clock: Clock,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(str(tmp_path / "companion.sqlite"), clock=clock)
    unsure = store_game(store, race(("Ann", "Bob"), True))
    synchronise(run_dir)
    sure = store_game(store, race(("Cat", "Dan"), False))
    store.close()

    assert main(["games", "--state", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[0]) for line in lines] == [sure, unsure]
    assert UNSURE_WORDS not in lines[0] and f"{shown(T)}  " in lines[0]
    assert f"{shown(T)} {UNSURE_WORDS}  " in lines[1]
    # The columns stay aligned whichever rows are marked.
    assert lines[0].index("playing") == lines[1].index("over")


# --- a store from before the sequence ---

#: The schema as it was before the sequence (version 0), kept here as the fixture it is.
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    header TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    head INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'over', 'abandoned')),
    winners TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS entries (
    game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    lines TEXT NOT NULL,
    rolled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
"""

#: (record, time last changed) of each old game, by id from 1. Listed then as 3, 1, 4, 2:
#: the latest change first, the higher id first on a tie.
OLD_GAMES = [
    (race(("Ann", "Bob"), True), T),
    (race(("Cat", "Dan"), False), T - DAY),
    (race(("Eve", "Fay"), False), T + HOUR),
    (race(("Gus", "Hal"), True), T - DAY),
]
OLD_ORDER = [3, 1, 4, 2]


def old_store(path: str) -> None:
    """A store written by the companion before this change, entry by entry as it did."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(OLD_SCHEMA)
    for gid, (text, updated) in enumerate(OLD_GAMES, start=1):
        replayed = replay_text(text)
        over = replayed.header.game.over(replayed.state)
        db.execute("INSERT INTO games VALUES (?, 'microbot-racers', ?, ?, ?, ?, ?, ?)",
                   (gid, "\n".join(replayed.header.lines()), updated - 60, updated,
                    len(replayed.actions), "over" if over else "playing",
                    json.dumps(list(replayed.header.players[:1])) if over else "[]"))
        for seq, line in enumerate(replayed.actions, start=1):
            db.execute("INSERT INTO entries VALUES (?, ?, ?, 0)", (gid, seq, str(line)))
    db.close()


def test_an_old_store_keeps_its_order_and_its_games_on_first_opening(path: str, clock: Clock,
                                                                      wall: Wall) -> None:
    old_store(path)
    store = Store(path, clock=clock)
    assert store.version() == len(store_module.MIGRATIONS)
    assert [row.id for row in store.games()] == OLD_ORDER
    assert [row.id for row in store.games("playing", limit=1)] == [3]  # what resume opens
    for gid, (text, updated) in enumerate(OLD_GAMES, start=1):
        row = store.game(gid)
        assert (row.created, row.updated) == (updated - 60, updated)  # shown as they were
        assert not row.created_synced and not row.updated_synced  # nobody knows: marked
        assert Session(store, gid).state == replay_text(text).state
    store.close()

    again = Store(path, clock=clock)  # a second opening changes nothing
    assert [row.id for row in again.games()] == OLD_ORDER
    wall.now = T - 2 * DAY  # older than every old date: still the newest change
    Session(again, 2).play(replay_text(race(("Cat", "Dan"), True)).actions[1:2])
    assert [row.id for row in again.games()] == [2, *[g for g in OLD_ORDER if g != 2]]
    again.close()


def test_a_migration_that_fails_leaves_the_old_store_as_it_was(
        path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    old_store(path)
    before = pathlib.Path(path).read_bytes()

    def fails(db: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, fails))
    with pytest.raises(sqlite3.OperationalError):
        Store(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    assert "touched" not in [column[1] for column in db.execute("PRAGMA table_info(games)")]
    db.close()
    monkeypatch.undo()
    store = Store(path)  # the next start migrates it
    assert [row.id for row in store.games()] == OLD_ORDER
    store.close()
    assert before != pathlib.Path(path).read_bytes()


def test_an_old_store_set_aside_as_damaged_is_read_without_being_changed(
        tmp_path: pathlib.Path) -> None:
    aside = tmp_path / "companion.sqlite.damaged-1"
    old_store(str(aside))
    before = aside.read_bytes()
    fresh = Store(str(tmp_path / "companion.sqlite"))
    kept = carry_games(aside, fresh)
    assert (kept.games, kept.seen) == (len(OLD_GAMES), len(OLD_GAMES))
    assert aside.read_bytes() == before
    for gid, (text, _) in enumerate(OLD_GAMES, start=1):
        assert Session(fresh, gid).state == replay_text(text).state
    fresh.close()
