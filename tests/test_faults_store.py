"""Fault matrix, store path (issue 12 §1 bullets 4-5, §3): damage to the store's files or
values is noticed, set aside (never deleted), and as much is kept as the damage allows.

Each case is one row of a table: a name, what it does to a store holding 6 games and 360
entries (made the way the daemon makes it: rolling copies and checkpoints included), and
the fewest entries that must come back. ``python -m tests.test_faults_store`` prints the
table of entries kept against entries the damage destroyed.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import cast

import pytest

from companion import backup, rawread
from companion.backup import Backups, backup_files, changes_of, copies, keep_copies, make_copy
from companion.cli import main
from companion.config import Config
from companion.games import GAMES
from companion.games.base import Line
from companion.record import Header
from companion.salvage import open_store, raw_source, restored
from companion.session import Session
from companion.store import Entry, Store
from companion.ui.app import App
from tests.cutdisk import Connection, Disk, PowerCut
from tests.faults import NOT_FILES, disk_full, put
from tests.harness import COMPANION, ENV
from tests.playout import answer, playout

PLAYERS = ("Ann", "Bob", "Cat")
#: Six games of 60 entries each, none over (seeds found by trying): 360 entries in all.
SIX = (("microbot-racers", 0), ("penguin-panic", 0), ("leaf-climbers", 0),
       ("microbot-racers", 1), ("penguin-panic", 1), ("leaf-climbers", 12))
Expected = dict[int, list[tuple[str, ...]]]


@cache
def scripts() -> tuple[tuple[Header, tuple[Line, ...]], ...]:
    out = []
    for game_id, seed in SIX:
        game = GAMES[game_id]
        header = Header(game, PLAYERS[:max(2, game.min_players)])
        _, lines = playout(game, header.players, random.Random(seed), steps=60)
        assert len(lines) == 60
        out.append((header, tuple(lines)))
    return tuple(out)


def build(path: str, daemon: bool = True) -> Expected:
    """Play the six games into a store at ``path`` and leave it as a power cut would (no
    clean stop). ``daemon``: with the rolling copies and checkpoints the daemon makes."""
    live = pathlib.Path(path).parent / "live"
    live.mkdir()
    playing = str(live / pathlib.Path(path).name)
    store = Store(playing)
    backups = Backups(playing)
    if daemon:
        store.after_commit = backups.changed
    expected: Expected = {}
    for header, lines in scripts():
        session = Session.new(store, header)
        for line in lines:
            session.play([line])
            backups.run_due()
        expected[session.gid] = [e.lines for e in store.entries(session.gid)]
    # The files as the power cut finds them (closing would checkpoint and remove the log).
    for name in live.iterdir():
        shutil.copyfile(name, pathlib.Path(path).parent / name.name)
    store.db.close()
    shutil.rmtree(live)
    return expected


def kept(store: Store, expected: Expected) -> int:
    """Entries carried that are true to the game (a prefix of what was played)."""
    total = 0
    for row in store.games(limit=1000):
        entries = [e.lines for e in store.entries(row.id)]
        assert entries == expected[row.id][:len(entries)], f"game {row.id} changed"
        total += len(entries)
    return total


def asides(path: str) -> list[pathlib.Path]:
    return sorted(p for p in pathlib.Path(path).parent.iterdir() if ".damaged-" in p.name)


def garble(name: str, start: int, length: int) -> None:
    raw = bytearray(pathlib.Path(name).read_bytes())
    raw[start:start + length] = random.Random(start).randbytes(min(length, len(raw) - start))
    pathlib.Path(name).write_bytes(bytes(raw))


def wal_header(path: str) -> None:
    garble(f"{path}-wal", 0, 32)


def wal_middle(path: str) -> None:
    """2,000 bytes in the middle of the log's frames in use (as in the issue). The middle of
    the file could be frames of an earlier round of the log, already in the main file."""
    main, wal = rawread.read_files(pathlib.Path(path))
    page = rawread.wal_page_size(wal, rawread.page_size(main))
    used, _ = rawread.log_findings(wal, page)
    garble(f"{path}-wal", rawread.WAL_HEADER + (used // 2) * (rawread.FRAME_HEADER + page), 2000)


def shm(path: str) -> None:
    garble(f"{path}-shm", 0, os.path.getsize(f"{path}-shm"))


def main_deleted(path: str) -> None:
    os.remove(path)
    os.remove(f"{path}-shm")


def all_deleted(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        os.remove(f"{path}{suffix}")


def halved(path: str) -> None:
    os.truncate(path, os.path.getsize(path) // 2)


def emptied(path: str) -> None:
    """The main file left at 0 bytes (what some file systems leave after a power cut)."""
    os.truncate(path, 0)


def main_bytes(path: str) -> None:
    garble(path, os.path.getsize(path) // 3, 3000)


@dataclass(frozen=True)
class Case:
    name: str
    damage: Callable[[str], None]
    noticed: bool | None  # set aside and said on screen (None: only if it lost entries)
    least: int  # entries of 360 that must come back
    stopped: bool = False  # the daemon had stopped cleanly: the log checkpointed in
    copies: bool = True  # the daemon's copies and checkpoints (False: files as before them)


CASES = [
    Case("log's first 32 bytes garbled", wal_header, True, 360),
    Case("2000 bytes in the middle of the log garbled", wal_middle, True, 330),
    Case("the -shm garbled", shm, False, 360),
    Case("main file deleted, its log left", main_deleted, True, 360),
    Case("main file and its log deleted: the newest copy", all_deleted, True, 300),
    Case("3000 bytes of the main file garbled, mid-game", main_bytes, None, 330),
    Case("3000 bytes of the main file garbled, after a clean stop", main_bytes, True, 330,
         stopped=True),
    Case("main file cut in half, after a clean stop", halved, True, 330, stopped=True),
    Case("main file emptied, after a clean stop: the newest copy", emptied, True, 360,
         stopped=True),
    Case("main file emptied mid-game, its log left", emptied, True, 330),
    # the files as they were before checkpoints and copies: everything in the log
    Case("log's first 32 bytes garbled, no copies", wal_header, True, 360, copies=False),
    Case("2000 bytes mid-log garbled, no copies", wal_middle, True, 330, copies=False),
    Case("main file deleted, no copies", main_deleted, True, 360, copies=False),
]


def damaged(case: Case, path: str) -> Expected:
    """The six games played into ``path`` as the daemon does, then the case's damage."""
    expected = build(path, daemon=case.copies)
    if case.stopped:  # the daemon's clean stop: a last copy, then the close checkpoints
        make_copy(path)
        Store(path).close()
    case.damage(path)
    return expected


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_damage_is_noticed_set_aside_and_what_it_spared_is_kept(tmp_path: pathlib.Path,
                                                                  case: Case) -> None:
    path = str(tmp_path / "companion.sqlite")
    expected = damaged(case, path)
    damaged_files = {p.name: p.read_bytes() for p in tmp_path.iterdir()
               if p.is_file() and "backup" not in p.name}
    store, note = open_store(path)
    try:
        count = kept(store, expected)
        assert count >= case.least, f"{case.name}: {count} of 360 kept"
        if case.noticed or count < 360:  # never silent
            assert note.startswith("Damaged store") and note.endswith(f"{count} entries")
            # never deleted: every damaged file is there, byte for byte, under its new name
            contents = [p.read_bytes() for p in asides(path)]
            for name, content in damaged_files.items():
                assert name.endswith("-shm") or content in contents, name
        elif case.noticed is False:
            assert note == "" and asides(path) == []
    finally:
        store.close()


def test_an_empty_main_file_with_nothing_beside_it_is_a_new_store(tmp_path: pathlib.Path) -> None:
    """Nothing was ever kept there (no log, no copy): SQLite's empty store, nothing set aside."""
    path = tmp_path / "companion.sqlite"
    path.write_bytes(b"")
    store, note = open_store(str(path))
    assert note == "" and asides(str(path)) == [] and store.games() == []
    store.close()


# --- a single zeroed page: the index damaged, the leaves intact ---


def keys_on(page: bytes, pgno: int, size: int) -> set[tuple[int, int]]:
    """The (game, seq) of every entry stored on one page."""
    cells = rawread.Pages(size, size).cells(page, pgno)
    return {(int(c.values[0]), int(c.values[1])) for c in cells  # type: ignore[arg-type]
            if c.kind == rawread.INDEX_LEAF}


@pytest.mark.parametrize("with_copies", [False, True], ids=["no copies", "daemon's copies"])
def test_zeroing_any_single_page_keeps_what_the_other_pages_hold(tmp_path: pathlib.Path,
                                                                with_copies: bool) -> None:
    """The target of §3, for every page of the main file in turn (the log checkpointed in).

    The reader gets back every entry not on the zeroed page. A game is kept up to its first
    entry on that page (the rest no longer replays: it stays in the file set aside); with
    the copies the daemon makes (every 100 changes) at least 90% of the entries not on the
    page come back into play.
    """
    origin = str(tmp_path / "origin.sqlite")
    expected = build(origin, daemon=with_copies)
    Store(origin).close()  # everything in the main file
    raw = pathlib.Path(origin).read_bytes()
    size = rawread.page_size(raw)
    stored = {(gid, seq): "\n".join(lines) for gid, entries in expected.items()
              for seq, lines in enumerate(entries, start=1)}
    for pgno in range(1, len(raw) // size + 1):
        case = tmp_path / f"page-{pgno}"
        case.mkdir()
        path = str(case / "companion.sqlite")
        for copy in backup_files(origin):
            shutil.copyfile(copy, case / copy.name.replace("origin", "companion"))
        page = raw[(pgno - 1) * size:pgno * size]
        on_page = keys_on(page, pgno, size)
        pathlib.Path(path).write_bytes(raw[:(pgno - 1) * size] + bytes(size) + raw[pgno * size:])
        read = raw_source(pathlib.Path(path), Store(":memory:").columns("games"),
                          Store(":memory:").columns("entries"))
        found = {key for key, rows in read.entries.items()
                 if any(row["lines"] == stored.get(key) for row in rows)}
        assert found >= set(stored) - on_page, f"page {pgno}"
        store, _ = open_store(path)
        count = kept(store, expected)
        store.close()
        spared = len(stored) - len(on_page)
        if with_copies:
            assert count >= 0.9 * spared, f"page {pgno}: {count} of {spared}"
        else:
            headers_lost = {cell.rowid for cell in rawread.Pages(size, size).cells(page, pgno)
                            if cell.kind == rawread.TABLE_LEAF and cell.values[1] in GAMES}
            prefix = sum(min([seq - 1 for g, seq in on_page if g == gid], default=60)
                         for gid in expected if gid not in headers_lost)
            assert count == prefix, f"page {pgno}"


# --- checkpoints and copies ---


def test_a_finished_game_and_a_clean_stop_leave_the_games_in_the_main_file(
        tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "companion.sqlite")
    store = Store(path)
    backups = Backups(path)
    store.after_commit = backups.changed
    game = GAMES["microbot-racers"]
    _, lines = playout(game, ("Ann", "Bob"), random.Random(2), steps=2000)
    session = Session.new(store, Header(game, ("Ann", "Bob")))
    for line in lines:
        session.play([line])
    assert session.over()
    assert backups.run_due() is not None  # the game's end asked for a copy
    (copy,) = copies(path)
    only_main = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # log ignored
    assert only_main.execute("SELECT count(*) FROM entries").fetchone()[0] == len(lines)
    only_main.close()
    held = sqlite3.connect(copy)
    assert held.execute("SELECT count(*) FROM entries").fetchone()[0] == len(lines)
    held.close()
    store.close()
    assert not os.path.exists(f"{path}-wal") or os.path.getsize(f"{path}-wal") == 0


def test_copies_keep_what_changed_and_whole_copies_roll(tmp_path: pathlib.Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first whole copy, each copy adds what changed to the newest whole copy's
    changes; a new whole copy is made once those reach REBASE of it, and the newest KEEP
    are kept with their changes. Every copy brings back what the store held when it was
    made."""
    monkeypatch.setattr(backup, "REBASE", 0.25)  # a few whole copies in a short game
    path = str(tmp_path / "companion.sqlite")
    store = Store(path)
    backups = Backups(path, keep=2, every=10)
    store.after_commit = backups.changed
    gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
    made = [backups.run_due()]  # the new game's header: the first whole copy
    assert made == [tmp_path / "companion.sqlite.backup-1"]
    for number in range(1, 300):
        base = copies(path)[0]
        due = os.path.getsize(changes_of(base)) >= backup.REBASE * os.path.getsize(base)
        store.push(gid, [f"table roll {number % 6 + 1} 2"], rolled=False, over=False, winners=[])
        copy = backups.run_due()
        if copy is None:
            continue
        made.append(copy)
        assert copy == (copies(path)[0] if due else changes_of(base)), number
        assert len(restored(pathlib.Path(path)).entries) == number  # type: ignore[union-attr]
    bases = [p for p in made if p.name[-1].isdigit()]
    assert len(bases) >= 3 and len(made) == 30  # a copy every 10 entries, few of them whole
    assert copies(path) == bases[::-1][:2]  # the newest 2 kept, each with its changes
    assert sorted(p.name for p in tmp_path.iterdir() if "backup" in p.name) == sorted(
        p.name for b in bases[::-1][:2] for p in (b, changes_of(b)))
    store.close()


def wchar() -> int:
    """Bytes this thread has handed to write() and pwrite() so far."""
    io = pathlib.Path("/proc/thread-self/io").read_text()
    return int(next(line for line in io.splitlines() if line.startswith("wchar:")).split()[1])


def test_a_copy_writes_what_changed_not_the_whole_store(tmp_path: pathlib.Path) -> None:
    """Fault 13: a new game's copy in a store of 6 games and in one of 600 (60 times the
    history) writes about the same few kilobytes."""
    written = {}
    for times in (0, 99):
        (tmp_path / f"{times}").mkdir()
        path = str(tmp_path / f"{times}" / "companion.sqlite")
        build(path, daemon=False)
        grow(path, times)
        Store(path).close()
        store = Store(path)
        backups = Backups(path)
        store.after_commit = backups.changed
        backups.request()
        assert backups.run_due() == copies(path)[0]  # the first copy is whole
        costs = []
        for _ in range(5):
            before = wchar()
            Session.new(store, scripts()[0][0])
            assert backups.run_due() == changes_of(copies(path)[0])
            costs.append(wchar() - before)
        store.close()
        written[times] = max(costs)
    size = os.path.getsize(str(tmp_path / "99" / "companion.sqlite"))
    assert size > 1_000_000 and written[99] < 40_000, written
    assert written[99] < 1.5 * written[0], written


# --- values that cannot be read (§1.4) ---

UNREADABLE = [
    ("winners not JSON", "UPDATE games SET winners = '{[' WHERE id = 6"),
    ("winners not names", "UPDATE games SET winners = '[1, 2]' WHERE id = 6"),
    ("lines a blob", "UPDATE entries SET lines = x'ff00fe' WHERE game = 6 AND seq = 30"),
    ("lines not UTF-8", "UPDATE entries SET lines = CAST(x'41ff' AS TEXT) WHERE game = 6 AND seq = 30"),
    ("rolled text", "UPDATE entries SET rolled = 'x' WHERE game = 6 AND seq = 30"),
    ("head text", "UPDATE games SET head = 'x' WHERE id = 6"),
    ("header a blob", "UPDATE games SET header = x'00' WHERE id = 2"),
    ("updated text", "UPDATE games SET updated = 'now' WHERE id = 6"),
]


def spoil(path: str, sql: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(sql)
    db.close()


@pytest.mark.parametrize("sql", [s for _, s in UNREADABLE], ids=[n for n, _ in UNREADABLE])
def test_a_value_that_cannot_be_read_sets_the_store_aside_and_the_rest_opens(
        tmp_path: pathlib.Path, sql: str) -> None:
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)  # with the daemon's copies: a lost header comes from the newest
    Store(path).close()
    spoil(path, sql)
    store, note = open_store(path)
    try:
        assert note.startswith(("Damaged store, 6 kept", "Damaged store, 5 kept"))
        assert asides(path)  # the whole file, as it was
        count = kept(store, expected)
        assert count >= 329  # game 6 up to entry 29 at worst; the others whole
        assert store.unreadable() == ""
        app = App(store, Config())
        assert app.resume_latest()  # the start goes on to the latest game
        app.home.history()
        app.home.items()
    finally:
        store.close()


def test_a_game_in_play_that_cannot_be_read_hides_no_other_from_the_home_menu(tmp_path: pathlib.Path) -> None:
    """Review of issue 28 (as History): a row of a game in play that no longer reads while
    the box runs (a flipped bit; the store is set aside at the next start) made the home
    menu, worked out at each frame, fail to draw, and Resume fail, hiding the other game."""
    store = Store(str(tmp_path / "companion.sqlite"))
    header = Header(GAMES["microbot-racers"], ("Ann", "Bob"), ())
    kept, damaged = Session.new(store, header).gid, Session.new(store, header).gid
    store.db.execute("UPDATE games SET winners = 'x' WHERE id = ?", (damaged,))
    app = App(store, Config())
    (resume,) = [item for item in app.home.items() if item.label == "Resume"]
    resume.run()
    assert app.session is not None and app.session.gid == kept
    store.close()


@pytest.mark.parametrize("sql", [s for _, s in UNREADABLE], ids=[n for n, _ in UNREADABLE])
def test_companion_games_lists_what_it_can_read_and_names_what_it_cannot(
        tmp_path: pathlib.Path, sql: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "companion.sqlite")
    build(path, daemon=False)
    Store(path).close()
    spoil(path, sql)
    status = main(["games", "--state", str(tmp_path)])
    out, err = capsys.readouterr()
    listed = [line.split()[0] for line in out.splitlines()]
    if "games" in sql:
        gid = sql.split("id = ")[1]
        assert status == 1 and f"game {gid} cannot be read" in err and gid not in listed
        assert len(listed) == 5
    else:  # an entry: the list does not read entries
        assert status == 0 and len(listed) == 6


# --- export of a game that no longer replays (§1.5) ---

EXPORTS = [
    ("an illegal line", "UPDATE entries SET lines = 'Ann fly' WHERE game = 3 AND seq = 10", 10),
    ("a blob", "UPDATE entries SET lines = x'ff00fe' WHERE game = 3 AND seq = 10", 10),
    ("a missing entry", "DELETE FROM entries WHERE game = 3 AND seq = 10", 10),
]


@pytest.mark.parametrize(("sql", "bad"), [(s, b) for _, s, b in EXPORTS],
                         ids=[n for n, _, _ in EXPORTS])
def test_export_writes_up_to_the_last_good_entry_and_names_the_first_bad_one(
        tmp_path: pathlib.Path, sql: str, bad: int, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "companion.sqlite")
    expected = build(path, daemon=False)
    Store(path).close()
    spoil(path, sql)
    out_file = tmp_path / "game3.rec"
    status = main(["export", "3", "--state", str(tmp_path), "-o", str(out_file)])
    _, err = capsys.readouterr()
    header, _ = scripts()[2]
    lines = out_file.read_text().splitlines()
    good = [text.split("  #")[0] for text in lines[len(header.lines()):]]
    assert status == 1
    assert good == [text for entry in expected[3][:bad - 1] for text in entry]
    (message,) = err.splitlines()
    assert message.startswith(f"{out_file}:{len(lines) + 1}: entry {bad}")
    status = main(["export", "3", "--state", str(tmp_path), "--raw", "-o", str(out_file)])
    raw = out_file.read_bytes().splitlines()
    assert status == 0 and len(raw) == len(header.lines()) + 60 - (sql.startswith("DELETE"))


def test_the_daemon_starts_on_an_unreadable_value_and_says_so(tmp_path: pathlib.Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    path = str(state / "companion.sqlite")
    build(path, daemon=False)
    Store(path).close()
    spoil(path, "UPDATE games SET winners = '{[' WHERE id = 6")
    run = subprocess.run([*COMPANION, "run", "--state", str(state), "--emulator", "none",
                          "--keys", ""], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, env=ENV, timeout=120, check=False)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    (line,) = [x for x in run.stderr.splitlines() if "damaged" in x]
    assert "game 6 cannot be read" in line and "6 of 6 games carried" in line
    assert "360 entries" in line


# --- the cut-disk layer: a power cut is not damage ---


def test_a_power_cut_at_any_moment_is_not_taken_for_damage(tmp_path: pathlib.Path) -> None:
    """On the disk that forgets unsynced writes, a cut mid-commit leaves a torn log tail:
    nothing acknowledged is lost, so nothing is set aside and no message is shown."""
    header, lines = scripts()[0]
    for cut_at in range(3, 400, 9):
        directory = tmp_path / f"cut-{cut_at}"
        directory.mkdir()
        path = str(directory / "companion.sqlite")
        disk = Disk()
        disk.cut_at = cut_at
        acknowledged = 0
        store = None
        try:
            store = Store(path, connect=lambda p, vfs=disk.name: cast(  # type: ignore[misc]
                sqlite3.Connection, Connection(p, vfs)))
            session = Session.new(store, header)
            for line in lines:
                session.play([line])
                acknowledged += 1
        except PowerCut:
            pass
        disk.cut()
        if store is not None:
            store.db.close()
        disk.restore()
        disk.unregister()
        opened, note = open_store(path)
        found = [len(opened.entries(row.id)) for row in opened.games()]
        opened.close()
        assert note == "" and asides(path) == [], f"cut at {cut_at}: {note}"
        assert found == [] or found[0] >= acknowledged


# --- the table for the report ---


def kept_and_noticed(case: Case, directory: pathlib.Path) -> tuple[int, bool]:
    path = str(directory / "companion.sqlite")
    expected = damaged(case, path)
    store, note = open_store(path)
    count = kept(store, expected)
    store.close()
    return count, bool(note)


def grow(path: str, times: int) -> None:
    """Copy the six games ``times`` more times under new ids (a store after months of play)."""
    db = sqlite3.connect(path, isolation_level=None)
    for k in range(1, times + 1):
        db.execute("BEGIN")
        db.execute("INSERT INTO games (id, game, header, created, updated, head, status, winners)"
                   " SELECT id + ?, game, header, created, updated, head, status, winners"
                   " FROM games WHERE id <= 6", (k * 1000,))
        db.execute("INSERT INTO entries (game, seq, lines, rolled)"
                   " SELECT game + ?, seq, lines, rolled FROM entries WHERE game <= 6", (k * 1000,))
        db.execute("COMMIT")
    db.close()


def costs(directory: pathlib.Path) -> None:
    """What a backup copy and the start-up check of every stored value cost."""
    import time

    path = str(directory / "companion.sqlite")
    build(path, daemon=False)
    for label, times in (("6 games, 360 entries", 0), ("600 games, 36,000 entries", 99)):
        grow(path, times)
        Store(path).close()
        spent = []
        for _ in range(5):
            start = time.perf_counter()
            make_copy(path)
            spent.append(time.perf_counter() - start)
        store = Store(path)
        start = time.perf_counter()
        assert store.unreadable() == ""
        sweep = time.perf_counter() - start
        store.close()
        print(f"{label}: {os.path.getsize(path) // 1024} KiB; a copy {min(spent) * 1000:.0f}-"
              f"{max(spent) * 1000:.0f} ms (5 runs); the start-up value check {sweep * 1000:.0f} ms")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        costs(pathlib.Path(folder))

    print("| damage | entries kept of 360 | noticed |")
    print("|---|---|---|")
    for case in CASES:
        with tempfile.TemporaryDirectory() as folder:
            count, noticed = kept_and_noticed(case, pathlib.Path(folder))
            print(f"| {case.name} | {count} | {'yes' if noticed else 'no'} |")


def test_the_daemon_copies_the_store_and_a_clean_stop_leaves_no_log(tmp_path: pathlib.Path) -> None:
    """The real process: a game begun and played, then a clean stop: a copy beside the store
    holds the game, and the main file alone holds it too (no log left to lose)."""
    run = subprocess.run([*COMPANION, "run", "--state", str(tmp_path), "--emulator", "none",
                          "--keys", " ".join(["select"] * 9)], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, env=ENV, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    path = str(tmp_path / "companion.sqlite")
    assert not os.path.exists(f"{path}-wal")
    only_main = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    played = only_main.execute("SELECT count(*) FROM entries").fetchone()[0]
    only_main.close()
    copied = restored(pathlib.Path(path))  # the copy made at the stop, on its whole one
    assert copied is not None and len(copied.entries) == played > 0


def test_export_latest_skips_a_game_it_cannot_read_and_says_so(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "companion.sqlite")
    build(path, daemon=False)
    Store(path).close()
    spoil(path, "UPDATE games SET winners = '{[', updated = updated + 1000 WHERE id = 6")
    status = main(["export", "latest", "--state", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 0 and out.startswith("game ") and "game 6 cannot be read" in err


def test_a_copy_that_fails_on_a_full_card_leaves_nothing_behind(
        tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    path = str(tmp_path / "companion.sqlite")
    build(path, daemon=False)
    backups = Backups(path)
    backups.request()
    small = tmp_path / "small"
    small.write_bytes(bytes(4096))
    with disk_full(str(small)):  # no file may grow past 4 KiB: the copy cannot be written
        assert backups.run_due() is None
    assert copies(path) == [] and sorted(p.name for p in tmp_path.iterdir()
                                          if "backup" in p.name) == []
    assert "store copy failed" in caplog.text
    store, note = open_store(path)
    assert note == "" and len(store.games()) == 6
    store.close()


# --- every way a stored game is read back, for a header with a comment in it ---


def seat_game(path: str) -> tuple[int, Header, list[Line]]:
    """A Gleeb's and Grues game in which the companion plays Bob: its stored header carries
    the comment line that says so (``# companion plays Bob``)."""
    from companion import ai

    game = GAMES["gleebs-and-grues"]
    header = Header(game, ("Ann", "Bob"))
    _, lines = playout(game, header.players, random.Random(4), steps=12)
    store = Store(path)
    gid = store.create(game.id, [*header.lines(), ai.seat_line("Bob")])
    session = Session(store, gid)
    for line in lines:
        session.play([line])
    store.close()
    return gid, header, lines


def exported(path: str, gid: int) -> list[str]:
    out = pathlib.Path(path).with_name("out.record")
    assert main(["export", str(gid), "--state", str(pathlib.Path(path).parent), "-o", str(out)]) == 0
    return out.read_text().splitlines()


def salvaged(path: str, gid: int) -> list[str]:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("INSERT INTO games (id, game, header, created, updated, winners) VALUES"
               " (99, 'microbot-racers', 'game microbot-racers\nplayers Ann Bob', 0, 0, '{[')")
    db.close()
    store, note = open_store(path)  # a game that cannot be read sets the store aside: salvage
    try:
        assert note.startswith("Damaged store"), note
        from companion import ai

        assert ai.seats_of(store.game(gid).header) == ("Bob",)  # still the companion's seat
        return Session(store, gid).record().splitlines()
    finally:
        store.close()


def downloaded(path: str, gid: int) -> list[str]:
    store = Store(path)
    try:
        return Session(store, gid).record().splitlines()  # what the phone view's download does
    finally:
        store.close()


@pytest.mark.parametrize("way", [exported, salvaged, downloaded], ids=lambda f: f.__name__)
def test_a_game_the_companion_plays_a_seat_in_reads_back_every_way(tmp_path: pathlib.Path,
                                                                   way: Callable[[str, int], list[str]]) -> None:
    from companion import ai

    path = str(tmp_path / "companion.sqlite")
    gid, header, lines = seat_game(path)
    # The seat line goes with the record, so that `companion import` gives the seat back.
    assert way(path, gid) == [*header.lines(), ai.seat_line("Bob"), *map(str, lines)]


def test_an_emptied_store_is_restored_and_new_games_never_push_the_old_ones_out(
        tmp_path: pathlib.Path) -> None:
    """Fault 1 as the issue found it: a 0-byte main file after a clean stop, then three new
    games. The old games come back from the copies, and the copies made for the new games
    still hold them: losing the main file again loses nothing acknowledged."""
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)
    make_copy(path)  # the clean stop
    Store(path).close()
    emptied(path)
    store, note = open_store(path)
    assert note == "Damaged store, 6 kept, 360 entries"
    backups = Backups(path, rebase=True)  # as the daemon does after salvage
    store.after_commit = backups.changed
    backups.request()
    backups.run_due()
    for header, lines in scripts()[:3]:
        session = Session.new(store, header)
        backups.run_due()
        session.play([lines[0]])
        expected[session.gid] = [(str(lines[0]),)]
    backups.stop()
    store.close()
    all_deleted_but_copies(path)
    store, note = open_store(path)
    assert kept(store, expected) == 363 and len(store.games(limit=100)) == 9
    store.close()


def all_deleted_but_copies(path: str) -> None:
    for name in (path, f"{path}-wal", f"{path}-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(name)
    for aside in asides(path):
        os.remove(aside)


def test_copies_of_a_store_are_never_rotated_away_by_a_store_that_is_behind_them(
        tmp_path: pathlib.Path) -> None:
    """A store put back by hand (an older one, or a new empty one while copies are there)
    gets whole copies of its own, and the copies holding the later games stay."""
    path = str(tmp_path / "companion.sqlite")
    build(path)
    make_copy(path)
    held = set(backup_files(path))
    Store(path).close()
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")
    store = Store(path)  # by hand: nothing here knows of the copies
    for header, _ in scripts()[:3]:
        Session.new(store, header)
        make_copy(path, keep=1)
    store.close()
    assert held <= set(backup_files(path))


def test_a_copy_cut_short_by_a_power_cut_leaves_the_copies_before_it(tmp_path: pathlib.Path) -> None:
    """A process that dies mid-copy leaves the changes file with a hot journal: SQLite
    rolls it back when the copies are read, and every copy before it comes back."""
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)
    make_copy(path)  # the last copy made: it holds every entry
    changes = changes_of(copies(path)[0])
    spill = ("import os, sqlite3\n"
             f"db = sqlite3.connect({str(changes)!r}, isolation_level=None)\n"
             "db.execute('PRAGMA cache_size = 1')\n"  # pages reach the file before the commit
             "db.execute('BEGIN')\n"
             "for n in range(3000):\n"
             "    db.execute('INSERT INTO backup_copy VALUES (?, 1, 0)', (10**6 + n,))\n"
             "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", spill], check=True)
    assert pathlib.Path(f"{changes}-journal").stat().st_size > 0  # hot: the file was changed
    all_deleted_but_copies(path)
    store, note = open_store(path)
    assert kept(store, expected) == 360, note
    store.close()


def test_a_copy_refused_by_a_full_card_is_made_at_the_next_one(tmp_path: pathlib.Path) -> None:
    """The changes file is as it was (SQLite's journal undoes the copy's pages), and what
    the refused copy should have held goes into the next one."""
    path = str(tmp_path / "companion.sqlite")
    store = Store(path)
    backups = Backups(path)
    store.after_commit = backups.changed
    header, lines = scripts()[0]
    session = Session.new(store, header)
    assert backups.run_due() == copies(path)[0]  # whole
    changes = changes_of(copies(path)[0])
    before = changes.read_bytes()
    for line in lines[:10]:
        session.play([line])
    backups.request()
    small = tmp_path / "small"
    small.write_bytes(bytes(1024))
    with disk_full(str(small)):  # no file may grow past 1 KiB: the journal cannot be written
        assert backups.run_due() is None
    assert changes.read_bytes() == before
    assert not pathlib.Path(f"{changes}-journal").exists()
    backups.request()
    assert backups.run_due() == changes
    store.close()
    all_deleted_but_copies(path)
    store, _ = open_store(path)
    assert [e.lines for e in store.entries(session.gid)] == [(str(x),) for x in lines[:10]]
    store.close()


@pytest.mark.parametrize("kind", NOT_FILES)
@pytest.mark.parametrize("which", ["whole copy", "its changes"])
def test_a_backup_file_that_is_not_a_file_never_hangs_a_copy_or_a_start(
        tmp_path: pathlib.Path, kind: str, which: str) -> None:
    """A directory, a FIFO, a device or a loop of links where a copy was: the next copy
    is a new whole one beside it, and a start that restores reads only real files."""
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)
    base = copies(path)[0]
    put(kind, base if which == "whole copy" else changes_of(base))
    made = make_copy(path)
    assert made is not None and made == copies(path)[0] and made.name.endswith(str(
        int(base.name.rsplit("-", 1)[1]) + 1))
    Store(path).close()
    all_deleted_but_copies(path)
    store, _ = open_store(path)
    assert kept(store, expected) == 360
    store.close()


def test_a_start_copies_what_a_power_cut_left_in_no_copy(tmp_path: pathlib.Path) -> None:
    """Entries played after the last copy of a run that the power ended are copied when the
    next run starts, so a clean stop with nothing played since leaves copies that hold
    every game (the chaos run found a store emptied after such a stop)."""
    path = str(tmp_path / "companion.sqlite")
    header, lines = scripts()[0]
    store = Store(path)
    backups = Backups(path)
    store.after_commit = backups.changed
    session = Session.new(store, header)
    backups.run_due()  # the copy at the game's start
    for line in lines[:10]:
        session.play([line])  # fewer than the copies' EVERY: none due yet
    store.db.close()  # the power goes: no last copy
    store = Store(path)
    keep_copies(store).stop()  # a run that plays nothing, stopped cleanly
    store.close()
    copy = restored(pathlib.Path(path))
    assert copy is not None and len([key for key in copy.entries if key[0] == session.gid]) == 10


def branch(session: Session, rng: random.Random, count: int,
           unlike: list[tuple[str, ...]] | None = None) -> list[tuple[str, ...]]:
    """``count`` entries played, the first unlike ``unlike``'s first (another way after an
    undo); the entries as stored."""
    for n in range(count):
        while True:
            ask = session.prompt()
            assert ask is not None
            line = answer(session.game, session.state, ask, rng)
            if n or not unlike or (str(line),) != unlike[0]:
                break
        session.play([line])
    return [e.lines for e in store_entries(session)][-count:]


def store_entries(session: Session) -> list[Entry]:
    return list(session.store.entries(session.gid))


def test_a_store_behind_its_copies_never_brings_back_entries_undo_replaced(
        tmp_path: pathlib.Path) -> None:
    """The chaos run (lane 2403, round 445): a store whose log was lost after an undo and
    other entries in their place. Its main file still held the undone ones, sound and
    legal, at the same numbers as the copies' later ones; salvage took the main file's
    first, and stored lines nobody had acknowledged since. The copies hold the newer
    version of the game, so its entries come from them."""
    path = str(tmp_path / "companion.sqlite")
    store = Store(path)
    backups = Backups(path)
    store.after_commit = backups.changed
    header, lines = scripts()[2]  # leaf-climbers: dice lines, many ways to go on
    session = Session.new(store, header)
    for line in lines[:10]:
        session.play([line])
    backups.request()
    backups.run_due()
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(path, tmp_path / "older")  # the main file as the lost log leaves it
    undone = [e.lines for e in store_entries(session)][-3:]
    for _ in range(3):
        session.undo()
    now = branch(session, random.Random(7), 3, undone)
    expected = [e.lines for e in store_entries(session)]
    backups.request()
    backups.run_due()
    backups.stop()
    store.close()
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")
    shutil.copyfile(tmp_path / "older", path)
    store, note = open_store(path)
    assert note.startswith("Damaged store")
    assert [e.lines for e in store.entries(session.gid)] == expected, (undone, now)
    store.close()



def test_a_whole_copy_with_an_entry_not_as_written_is_copied_again_at_the_start(
        tmp_path: pathlib.Path) -> None:
    """The chaos run (lane 2403, round 324): a flipped bit in a whole copy's entry that
    left its page sound passed SQLite's quick check, so later starts kept adding changes to
    it; when the store was then lost, the game ended at that entry. A start checks the
    whole copy's rows against their checksums as it does the changes', and makes a new
    whole copy when one is not as written."""
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)
    make_copy(path)
    base = copies(path)[0]
    raw = bytearray(base.read_bytes())
    text = next(text for entries in expected.values() for lines in entries[20:]
                if raw.count(text := "\n".join(lines).encode()) == 1)  # one entry's alone
    raw[raw.find(text)] ^= 0x20  # a capital or a small letter the other way: nobody plays
    base.write_bytes(bytes(raw))
    store = Store(path)
    backups = keep_copies(store)  # a start: the first copy of a run looks at the copies
    backups.request()
    backups.stop()
    store.close()
    all_deleted_but_copies(path)
    store, _ = open_store(path)
    assert kept(store, expected) == 360
    store.close()


@pytest.mark.parametrize("spoil", ["DROP TABLE entries", "DROP TABLE games",
                                   "ALTER TABLE entries DROP COLUMN crc"])
def test_a_whole_copy_missing_a_table_is_copied_again_at_the_start(
        tmp_path: pathlib.Path, spoil: str) -> None:
    """The chaos run (lane 271204, round 10): a whole copy whose entries table was dropped
    (well-formed, so SQLite's quick check passes) was kept, and every later copy added to
    it, so the copies held no entry of the game played since. A start makes a new whole
    copy when the newest lacks a table or its rows' checksums."""
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)
    make_copy(path)
    db = sqlite3.connect(copies(path)[0], isolation_level=None)
    db.execute(spoil)
    db.close()
    assert not backup.newest_restorable(path)
    store = Store(path)
    backups = keep_copies(store)  # a start: the first copy of a run looks at the copies
    backups.stop()
    store.close()
    assert backup.newest_restorable(path)
    all_deleted_but_copies(path)
    store, _ = open_store(path)
    assert kept(store, expected) == 360
    store.close()


@pytest.mark.parametrize("gone", ["", "-wal"])
def test_files_removed_while_the_companion_runs_lose_nothing_acknowledged(
        tmp_path: pathlib.Path, gone: str) -> None:
    """The store's main file or its log removed while the daemon runs (by hand, or by a
    program cleaning up): its connection goes on writing into the removed file, and a
    checkpoint moves the log's pages there, where the next start cannot find them. What is
    acknowledged after it was removed reaches the files at the store's path first, and the
    next start (after a power cut) brings back every entry of every game."""
    path = str(tmp_path / "companion.sqlite")
    store = Store(path)
    backups = Backups(path)
    store.after_commit = backups.changed
    gids = []
    for header, lines in scripts()[:5]:  # in no copy yet, on pages no later change rewrites
        session = Session.new(store, header)
        gids.append(session.gid)
        for line in lines:
            session.play([line])
    os.remove(f"{path}{gone}")
    second, others = scripts()[5]
    later = Session.new(store, second)
    gids.append(later.gid)
    for line in others[:10]:
        later.play([line])
    # the log's pages go to the removed file, and the log starts again (the copies'
    # connection checkpoints; SQLite writes over a log's old frames)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    for line in others[10:20]:
        later.play([line])
    expected = {gid: [e.lines for e in store.entries(gid)] for gid in gids}
    after = tmp_path / "after"  # the files as the power cut finds them
    after.mkdir()
    for name in tmp_path.iterdir():
        if name.is_file():
            shutil.copyfile(name, after / name.name)
    store.close()
    store, _ = open_store(str(after / "companion.sqlite"))
    assert {gid: [e.lines for e in store.entries(gid)] for gid in expected} == expected
    store.close()


def test_an_earlier_round_of_the_log_never_stands_for_the_newest(tmp_path: pathlib.Path) -> None:
    """The chaos run (lane 271704, round 150): a main file emptied after a power cut, its
    log holding a round of frames written after a reset and, beyond them, the end of the
    round before (SQLite starts a log again from its beginning). Reading the log's pages,
    salvage laid that older end over the newer round: two entries that undos had replaced
    came back in place of the acknowledged ones. Only the current round stands for the
    newest pages; the older rounds' frames are read after it, newest first."""
    from tests.faultmatrix import no_autocheckpoint
    from tests.playout import answer

    live = tmp_path / "live"
    live.mkdir()
    path = str(live / "companion.sqlite")
    store = Store(path, connect=no_autocheckpoint)
    game = GAMES["penguin-panic"]
    session = Session.new(store, Header(game, ("Ann", "Bob")))

    def play(count: int, rng: random.Random) -> None:
        for _ in range(count):
            ask = game.prompt(session.state)
            assert ask is not None
            session.play([answer(game, session.state, ask, rng)])

    play(60, random.Random(1))  # a long first round of the log
    store.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()  # all in the main file
    for _ in range(3):
        session.undo()  # the first write after it starts the log again
    play(3, random.Random(99))  # other entries where the undone ones were
    expected = [e.lines for e in store.entries(session.gid)]
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("companion.sqlite", "companion.sqlite-wal"):
        shutil.copyfile(live / name, cut / name)
    store.db.close()
    log = (cut / "companion.sqlite-wal").read_bytes()
    frames = rawread.wal_frames(log, rawread.wal_page_size(log, 4096))
    assert len({frame.salts for frame in frames}) == 2, "the log holds two rounds"
    (cut / "companion.sqlite").write_bytes(b"")  # emptied: the log is all there is
    salvaged, note = open_store(str(cut / "companion.sqlite"))
    assert note.startswith("Damaged store")
    assert [e.lines for e in salvaged.entries(session.gid)] == expected
    salvaged.close()


@pytest.mark.parametrize("bit", [0x01, 0x04])
def test_a_flipped_bit_in_the_store_header_versions_is_damage(tmp_path: pathlib.Path,
                                                              bit: int) -> None:
    """Found reading this stop's change: one bit of the main file's write version (byte 18)
    made SQLite open the store read-only without a word, and every entry after it was
    refused. Header versions other than 1 or 2 are damage: set aside, the games carried."""
    path = str(tmp_path / "companion.sqlite")
    expected = build(path)
    store = Store(path)
    store.close()  # the log folded into the main file
    raw = bytearray(pathlib.Path(path).read_bytes())
    raw[18] ^= bit
    pathlib.Path(path).write_bytes(bytes(raw))
    store, note = open_store(path)
    assert note.startswith("Damaged store")
    assert kept(store, expected) == 360
    store.push(1, ["table roll 1 2"], rolled=False, over=False, winners=[])  # writable again
    store.close()
