"""The store: durable settings, commits another connection can see, redo, status, order, locks."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time
from collections.abc import Iterator

import pytest

from companion.clock import Clock
from companion.store import BUSY_TIMEOUT_MS, DURABILITY, Entry, Store

# Durability is what these tests prove: their files stay on a real disk.
pytestmark = pytest.mark.durable

HEADER = ["game microbot-racers", "players Ann Bob"]


@pytest.fixture
def other(path: str, store: Store) -> Iterator[sqlite3.Connection]:
    """A second, independent connection to the same file (an export, a crash-restart)."""
    conn = sqlite3.connect(path, isolation_level=None)
    yield conn
    conn.close()


def seen_by(conn: sqlite3.Connection, gid: int) -> tuple[int, str, list[str]]:
    """Head, status and entry lines as another connection reads them."""
    head, status = conn.execute("SELECT head, status FROM games WHERE id = ?", (gid,)).fetchone()
    lines = [text for (text,) in conn.execute(
        "SELECT lines FROM entries WHERE game = ? ORDER BY seq", (gid,))]
    return head, status, lines


# --- durability ---


def test_file_store_runs_wal_with_full_sync(store: Store, path: str) -> None:
    # FULL syncs the log on every commit: an entry the players saw survives a power cut.
    # NORMAL (or journal_mode=DELETE/MEMORY/OFF) would fail here.
    assert str(store.pragma("journal_mode")).lower() == "wal"
    assert store.pragma("synchronous") == 2  # FULL
    assert store.pragma("busy_timeout") == BUSY_TIMEOUT_MS
    assert store.pragma("foreign_keys") == 1
    # WAL is a property of the file: a later connection (after a restart) finds it too.
    with sqlite3.connect(path) as again:
        assert again.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"


def test_durability_settings_are_not_weakened() -> None:
    # These are the values the architecture decided on; changing them needs a design change.
    assert {k: v.upper() for k, v in DURABILITY.items()} == {"journal_mode": "WAL",
                                                            "synchronous": "FULL"}
    assert BUSY_TIMEOUT_MS >= 1000


def test_every_change_is_committed_before_the_call_returns(store: Store,
                                                           other: sqlite3.Connection) -> None:
    gid = store.create("microbot-racers", HEADER)
    assert seen_by(other, gid) == (0, "playing", [])

    store.push(gid, ["table roll 3 2"], rolled=True, over=False, winners=[])
    assert not store.db.in_transaction
    assert seen_by(other, gid) == (1, "playing", ["table roll 3 2"])

    store.push(gid, ["Bob pick move-2"], rolled=False, over=False, winners=[])
    assert seen_by(other, gid) == (2, "playing", ["table roll 3 2", "Bob pick move-2"])

    store.move_head(gid, 1, over=False, winners=[])  # undo
    assert not store.db.in_transaction
    assert seen_by(other, gid) == (1, "playing", ["table roll 3 2", "Bob pick move-2"])

    store.move_head(gid, 2, over=True, winners=["Bob"])  # redo
    assert seen_by(other, gid) == (2, "over", ["table roll 3 2", "Bob pick move-2"])

    store.set_status(gid, "abandoned")
    assert seen_by(other, gid)[1] == "abandoned"


def test_failed_write_leaves_nothing_behind(store: Store, other: sqlite3.Connection) -> None:
    with pytest.raises(KeyError):
        store.push(999, ["table roll 3 2"], rolled=False, over=False, winners=[])
    assert not store.db.in_transaction
    assert other.execute("SELECT count(*) FROM entries").fetchone()[0] == 0


# --- entries, head and the redo stack ---


def test_entries_keep_their_lines_and_roll_mark(store: Store) -> None:
    gid = store.create("leaf-climbers", ["game leaf-climbers", "players Ann Bob"])
    assert store.push(gid, ["table drop 2", "table leaf 3 3", "table leaf 4 4"], rolled=True,
                      over=False, winners=[]) == 1
    assert store.push(gid, ["Ann roll 2"], rolled=False, over=False, winners=[]) == 2
    assert store.entries(gid) == [
        Entry(1, ("table drop 2", "table leaf 3 3", "table leaf 4 4"), True),
        Entry(2, ("Ann roll 2",), False),
    ]
    assert store.entry(gid, 2) == Entry(2, ("Ann roll 2",), False)
    assert store.entry(gid, 3) is None
    assert store.entries(gid, upto=1) == store.entries(gid)[:1]


def test_undone_entries_stay_for_redo(store: Store) -> None:
    gid = store.create("microbot-racers", HEADER)
    for text in ("table roll 3 2", "Bob pick move-2", "Ann pick move-3"):
        store.push(gid, [text], rolled=False, over=False, winners=[])
    store.move_head(gid, 1, over=False, winners=[])
    assert store.game(gid).head == 1
    assert [e.lines[0] for e in store.entries(gid)] == [
        "table roll 3 2", "Bob pick move-2", "Ann pick move-3"]


def test_new_entry_after_undo_drops_the_redo_stack(store: Store) -> None:
    gid = store.create("microbot-racers", HEADER)
    for text in ("table roll 3 2", "Bob pick move-2", "Ann pick move-3"):
        store.push(gid, [text], rolled=False, over=False, winners=[])
    store.move_head(gid, 1, over=False, winners=[])
    assert store.push(gid, ["Bob pick move-1"], rolled=False, over=False, winners=[]) == 2
    assert [e.lines[0] for e in store.entries(gid)] == ["table roll 3 2", "Bob pick move-1"]
    assert store.entry(gid, 3) is None


# --- status and the games list ---


def test_status_follows_the_end_of_the_game_and_back(store: Store) -> None:
    gid = store.create("microbot-racers", HEADER)
    assert (store.game(gid).status, store.game(gid).winners) == ("playing", ())
    store.push(gid, ["Bob lap"], rolled=False, over=True, winners=["Bob"])
    assert (store.game(gid).status, store.game(gid).winners) == ("over", ("Bob",))
    store.move_head(gid, 0, over=False, winners=[])  # the final lap undone
    assert (store.game(gid).status, store.game(gid).winners) == ("playing", ())


def test_abandoned_game_is_kept_but_not_offered_for_resume(store: Store) -> None:
    kept = store.create("microbot-racers", HEADER)
    dropped = store.create("microbot-racers", HEADER)
    store.push(dropped, ["table roll 3 2"], rolled=False, over=False, winners=[])
    store.set_status(dropped, "abandoned")

    assert [g.id for g in store.games("playing")] == [kept]
    assert [g.id for g in store.games("abandoned")] == [dropped]
    assert store.game(dropped).status == "abandoned"
    assert store.entries(dropped)[0].lines == ("table roll 3 2",)
    # A late write to its head does not bring it back into the resume list.
    store.move_head(dropped, 0, over=False, winners=[])
    assert store.game(dropped).status == "abandoned"


def test_status_outside_the_known_ones_is_refused(store: Store) -> None:
    gid = store.create("microbot-racers", HEADER)
    with pytest.raises(sqlite3.IntegrityError):
        store.set_status(gid, "paused")
    assert store.game(gid).status == "playing"
    assert not store.db.in_transaction


def test_unknown_game_is_a_key_error(store: Store) -> None:
    with pytest.raises(KeyError):
        store.game(42)


def test_games_are_listed_most_recently_changed_first(store: Store) -> None:
    ticks = itertools.count(1000.0)
    store.clock = Clock(wall=lambda: next(ticks))
    first = store.create("microbot-racers", HEADER)
    second = store.create("leaf-climbers", ["game leaf-climbers", "players Ann Bob"])
    third = store.create("microbot-racers", HEADER)
    assert [g.id for g in store.games()] == [third, second, first]

    store.push(first, ["table roll 3 2"], rolled=False, over=False, winners=[])
    assert [g.id for g in store.games()] == [first, third, second]
    # Resume takes the most recently changed unfinished game.
    assert store.games("playing", limit=1)[0].id == first

    store.move_head(second, 0, over=False, winners=[])
    assert [g.id for g in store.games()] == [second, first, third]
    assert [g.id for g in store.games(limit=2)] == [second, first]

    row = store.game(second)
    assert (row.game, row.header) == ("leaf-climbers", ("game leaf-climbers", "players Ann Bob"))
    assert row.created < row.updated


def test_same_time_changes_list_newest_game_first(store: Store) -> None:
    store.clock = Clock(wall=lambda: 5.0)
    ids = [store.create("microbot-racers", HEADER) for _ in range(3)]
    assert [g.id for g in store.games()] == ids[::-1]


# --- another process holding the lock ---


def test_write_waits_for_another_connection_to_finish_its_transaction(store: Store,
                                                                      path: str) -> None:
    gid = store.create("microbot-racers", HEADER)
    locked = threading.Event()
    failure: list[BaseException] = []

    def hold_the_lock() -> None:
        try:
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("BEGIN IMMEDIATE")
            locked.set()
            time.sleep(0.3)
            conn.execute("COMMIT")
            conn.close()
        except BaseException as err:  # pragma: no cover - reported below
            failure.append(err)
            locked.set()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    assert locked.wait(5)
    started = time.monotonic()
    head = store.push(gid, ["table roll 3 2"], rolled=False, over=False, winners=[])
    waited = time.monotonic() - started
    holder.join(5)

    assert not failure
    assert head == 1 and store.game(gid).head == 1
    assert waited >= 0.2, "the write did not wait for the other transaction"
