"""The chaos run: random faults from the fault matrix, and SIGKILLs, on a real daemon played
by keys and a console, for as many faults as asked.

Each *lane* is one state directory played without end by one ``companion run``: the
terminal emulator on a pseudo-terminal (its keys: undo, redo, a device roll; its frames tell
when the box shows something) and the serial console on another (record lines, answered
``ok`` once stored). A round plays a few entries, takes the daemon down (SIGKILL, or
SIGTERM as a clean stop: the cell's baseline), makes one fault of a random cell of the
matrix (:mod:`tests.faultmatrix`), and brings the daemon back as systemd would: a start that
exits 1 is started again, one that exits 2 waits for a person, who undoes the fault (the
matrix's own undo, or the configuration written back). Faults of the file system come and
go while it runs too (a disk that fills in play, a card remounted read-only). Then it
checks, against the acknowledgements it keeps outside the state directory:

- every acknowledged entry is still stored, in order, whatever the fault destroyed but the
  whole state directory (what that takes is counted apart, as *excused*);
- after a power cut, every acknowledged entry is in the backup copies (read by this
  module's own reader, not by salvage): an entry is copied before it is acknowledged;
- the resumed game is what its stored lines replay to;
- no start exits other than 0, 1 or 2, and none prints a traceback (its output, its log);
- no fault that a retry cannot outlast exits 1 three times in a row (a *crash loop*);
- *dark*: from the moment the daemon went down to the next frame on its screen or answer
  on its console (a person's time to undo a fault is not counted: the box shows the fault).

A lane runs in a user and mount namespace of its own (``unshare -rm``) with its state
directory on a small tmpfs, so a full disk and a read-only remount are real; without one
(a machine that allows none) those faults are left out, and said so.

    python -m tests.chaos --faults 10000 --lanes 2 --out chaos-output.txt

``tests/test_chaos.py`` runs a short setting in the suite.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import pathlib
import pty
import random
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.faultmatrix import (
    ENV,
    FAULTS,
    PATIENCE,
    PYTHON,
    RETRIES,
    ROOT,
    ROW_TABLES,
    STORE,
    TRACEBACK,
    Cell,
    Faults,
    Game,
    Skip,
    as_without_privilege,
    copies_hold,
    fill_up,
    free_port,
    namespace_command,
    phone_answers,
    prefix,
    product,
)

#: A frame of the terminal emulator: its top border (companion/io/display.py).
FRAME = b"+" + b"-" * 64 + b"+"
#: The lane's state directory's own file system (when it has one).
TMPFS_MB = 48
#: Rounds that only pull the plug (a SIGKILL mid-play, no fault), per fault.
KILLS_PER_FAULT = 0.25
#: How long the console may take to answer once frames are drawn.
CONSOLE_PATIENCE = 8.0
#: Rounds between checks of every stored game (the others check the game in play, or
#: every game when the fault was in the store).
FULL_CHECK = 20


@dataclass
class Tally:
    """What a lane (or the whole run) counted."""

    faults: int = 0
    survived: int = 0
    kills: int = 0
    stops: int = 0
    starts: int = 0
    refused: int = 0  # starts that exited 2 with one line, until a person undid the fault
    retried: int = 0  # starts that exited 1 (systemd starts them again)
    acknowledged: int = 0
    lost: int = 0
    excused: int = 0
    longest_dark: float = 0.0
    dark_after: str = ""
    crash_loops: int = 0
    tracebacks: int = 0
    skipped: int = 0
    seconds: float = 0.0
    cpu: float = 0.0  # seconds of CPU: the lanes and every process they started
    kinds: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("faults", "survived", "kills", "stops", "starts", "refused", "retried",
                     "acknowledged", "lost", "excused", "crash_loops", "tracebacks", "skipped", "cpu"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.longest_dark > self.longest_dark:
            self.longest_dark, self.dark_after = other.longest_dark, other.dark_after
        self.seconds = max(self.seconds, other.seconds)
        for kind, count in other.kinds.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + count
        self.problems += other.problems


class Proc:
    """``companion run`` on a pseudo-terminal: the terminal emulator, its keys and frames."""

    def __init__(self, lane: Lane, prefix: list[str]) -> None:
        master, slave = pty.openpty()
        with lane.log.open("ab") as err:
            self.process = subprocess.Popen(
                [*prefix, PYTHON, "-m", "companion", "run", "--state", str(lane.state),
                 "--config", str(lane.config)], stdin=slave, stdout=slave, stderr=err,
                env=ENV, cwd=lane.work, close_fds=True)
        os.close(slave)
        self.master = master
        self.frames = 0
        self.first_frame: float | None = None
        self._tail = b""
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        """Read the terminal (a full one would block the daemon), counting frames."""
        while True:
            try:
                ready = select.select([self.master], [], [], 0.5)[0]
                if not ready:
                    if self.process.poll() is not None:
                        return
                    continue
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            seen = self._tail + chunk
            found = seen.count(FRAME)
            if found and self.first_frame is None:
                self.first_frame = time.monotonic()
            self.frames += found
            self._tail = seen[-len(FRAME):]

    def alive(self) -> bool:
        return self.process.poll() is None

    def key(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self.master, data)

    def stop(self, how: int = signal.SIGTERM) -> int | None:
        if self.alive():
            self.process.send_signal(how)
        try:
            code = self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = None
            self.process.wait()
        self.thread.join(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self.master)
        return code


class Lane(Faults):
    """One state directory, played and faulted round after round."""

    def __init__(self, top: pathlib.Path, seed: int, mounted: bool) -> None:
        from tests.harness import Tty

        self.work = top
        self.state = top / "disk" / "state"  # on the lane's own file system, when it has one
        self.state.mkdir(parents=True, exist_ok=True)
        self.config = top / "etc" / "companion.toml"
        self.config.parent.mkdir(exist_ok=True)
        self.log = top / "daemon.log"
        self.rng = random.Random(seed)
        self.seed = seed
        self.mounted = mounted
        self.tty = Tty(top / "console")
        self.tty.plug()
        self.port = free_port()
        self.config_text = (f'[serial]\nports = [{{ path = "{self.tty.link}" }}]\n'
                            f'[phone]\nenabled = true\naddress = "127.0.0.1"\nport = {self.port}\n')
        self.config.write_text(self.config_text)
        self.notes: list[str] = []
        self.prefix: list[str] = []
        self.holder: Any = None
        self.hold_for: float | None = None
        self.unread = False
        self.console = True
        self.games: list[Game] = []
        self.over: set[int] = set()  # acknowledged games whose record is over
        self.tally = Tally()
        try:
            self.unprivileged: list[str] | None = as_without_privilege()
        except Skip:
            self.unprivileged = None
        self.cells = [cell for cell in product()
                      if (mounted or not FAULTS[cell.fault].mount)
                      and (self.unprivileged is not None or cell.fault != "noperm")]
        self.proc: Proc | None = None
        self.down_at = time.monotonic()
        self.log_seen = 0
        self.app_log_seen = 0
        self.must: dict[int, int] = {}
        self.started = time.monotonic()
        self.cell = self.cells[0]
        self.round_number = 0
        self.round_problems = 0

    # --- the daemon ---

    def start(self, prefix: list[str] | None = None) -> Proc:
        self.tally.starts += 1
        if self.hold_for is not None:  # a second process lets go of the store a while later
            held = self.holder  # that one only: a later round's holder is not this timer's
            timer = threading.Timer(self.hold_for, lambda: self.holder is held and self.let_go())
            timer.daemon = True
            timer.start()
            self.hold_for = None
        self.tty.heard = b""
        self.proc = Proc(self, prefix or [])
        return self.proc

    def wait_up(self, proc: Proc) -> str | int | None:
        """"up" once the console answers; "screen" when frames come but the console does
        not (a configuration without it); the exit status if it ends first; None if
        nothing comes within :data:`PATIENCE` (dark: it is killed)."""
        end = time.monotonic() + PATIENCE
        while time.monotonic() < end:
            self.tty.send(b"help\n")
            if self.tty.answer(0.25):
                time.sleep(0.1)
                while self.tty.answer(0.05):
                    pass
                return "up"
            if not proc.alive():
                proc.thread.join(timeout=2)
                return proc.process.returncode
            if proc.first_frame is not None and time.monotonic() - proc.first_frame > CONSOLE_PATIENCE:
                return "screen"
        proc.stop(signal.SIGKILL)
        return None

    def ask(self, line: str) -> str | None:
        self.tty.send(line.encode() + b"\n")
        end = time.monotonic() + PATIENCE
        while time.monotonic() < end:
            answer = self.tty.answer(0.2)
            if answer:
                return answer
            if self.proc is None or not self.proc.alive():
                return None
        return None

    def said(self) -> list[str]:
        """What the daemon wrote since last asked: its standard error and its log."""
        text = ""
        try:
            with self.log.open("rb") as handle:
                handle.seek(self.log_seen)
                data = handle.read()
            self.log_seen += len(data)
            text += data.decode(errors="replace")
        except OSError:
            pass
        app_log = self.state / "companion.log"  # the terminal emulator's log
        with contextlib.suppress(OSError):
            size = app_log.stat().st_size
            if size < self.app_log_seen:
                self.app_log_seen = 0
            with app_log.open("rb") as handle:
                handle.seek(self.app_log_seen)
                data = handle.read()
            self.app_log_seen += len(data)
            text += data.decode(errors="replace")
            if self.app_log_seen > 1 << 20:  # the lane keeps it short: it lives on the tmpfs
                app_log.write_bytes(b"")
                self.app_log_seen = 0
        found = TRACEBACK.search(text)
        if found:
            self.tally.tracebacks += 1
            self.problem(f"a traceback: {traceback_text(text[found.start():])}")
        return [line for line in text.splitlines()
                if line and not line[:1].isdigit() and not line.startswith(("INFO ", "WARNING ", "ERROR "))]

    def problem(self, text: str) -> None:
        self.round_problems += 1
        said = f"round {self.round_number} ({self.cell.id}): {text}"
        self.tally.problems.append(said)
        print(f"lane {self.seed}: problem: {said}", file=sys.stderr, flush=True)

    # --- playing ---

    def current(self) -> Game | None:
        return self.games[-1] if self.games and self.games[-1].gid not in self.over else None

    def state_of(self, game: Game) -> Any:
        from companion.record import replay_text

        return replay_text("\n".join(game.header + game.lines) + "\n")

    def play(self, entries: int) -> None:
        """Console lines: legal lines drawn from the prompt, a new game when none is on."""
        from tests.playout import answer

        for _ in range(entries):
            game = self.current()
            if game is None:
                self.new_game()
                continue
            replayed = self.state_of(game)
            engine = replayed.header.game
            ask = engine.prompt(replayed.state)
            if ask is None or engine.outcome(replayed.state) is not None:
                self.over.add(game.gid)
                continue
            line = str(answer(engine, replayed.state, ask, self.rng))
            said = self.ask(line)
            if said is None:
                return
            if said.startswith("ok"):
                game.lines.append(line)
                game.undone.clear()
                self.tally.acknowledged += 1
            elif "not saved" not in said:
                self.problem(f"a legal line refused: {line!r}: {said}")
                return

    def new_game(self) -> None:
        from companion.games import GAMES
        from tests.playout import players_for

        engine = GAMES[self.rng.choice(sorted(GAMES))]
        header = [f"game {engine.id}", "players " + " ".join(players_for(engine, self.rng.randint(0, 2)))]
        before = self.game_ids()
        for line in header:
            said = self.ask(line)
            if said is None or not said.startswith("ok"):
                return
        made = sorted(self.game_ids() - before)
        if made:
            self.games.append(Game(made[-1], header, []))

    def game_ids(self) -> set[int]:
        try:
            db = sqlite3.connect(f"{(self.state / STORE).resolve().as_uri()}?mode=ro", uri=True, timeout=20)
            try:
                return {gid for (gid,) in db.execute("SELECT id FROM games")}
            finally:
                db.close()
        except sqlite3.Error:
            return set()

    def keys(self) -> None:
        """A key on the terminal: undo, redo, or a device roll; what it did is read back
        from the store (the loop runs it between console lines)."""
        game = self.current()
        if game is None or self.proc is None:
            return
        key = self.rng.choice([b"u", b"y", b"r", b"r"])
        frames = self.proc.frames
        self.proc.key(key)
        # The key and the console's line reach the loop on two threads, in no set order: the
        # key is taken once the screen answers it (a key that changes nothing draws nothing:
        # a second at most), and only then is the store read back.
        end = time.monotonic() + 1.0
        while self.proc.frames == frames and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(0.1)
        self.ask("help")
        stored = (self.stored([game.gid]) or {}).get(game.gid)
        if stored is None:
            return
        lines = stored[1]  # an entry may hold several lines (a chain of rolls)
        if lines == game.lines:
            return
        if len(lines) < len(game.lines) and game.lines[:len(lines)] == lines:  # undone
            game.undone[:0] = game.lines[len(lines):]
            del game.lines[len(lines):]
            if game.gid in self.must:  # the players took them back: no longer owed
                self.must[game.gid] = min(self.must[game.gid], len(lines))
        elif len(lines) > len(game.lines) and lines[:len(game.lines)] == game.lines:
            new = lines[len(game.lines):]  # redone, or rolled by the device
            game.lines += new
            if game.undone[:len(new)] == new:
                del game.undone[:len(new)]
            else:
                game.undone.clear()
            self.tally.acknowledged += 1
        else:
            self.problem(f"key {key!r}: the store and the acknowledged lines disagree")
            game.lines[:] = lines

    def stored(self, gids: list[int] | None = None) -> dict[int, tuple[list[str], list[str]]] | None:
        """The stored games (all, or ``gids``), read directly (read-only): each one's header
        and lines in force."""
        path = self.state / STORE
        if not path.is_file():
            return {}
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=20)
        except sqlite3.Error:
            return None
        try:
            which = "" if gids is None else f" WHERE id IN ({', '.join(map(str, gids))})"
            rows = db.execute(f"SELECT id, header, head FROM games{which}").fetchall()
            lines: dict[int, list[str]] = collections.defaultdict(list)
            for gid, _, head in rows:
                for (text,) in db.execute("SELECT lines FROM entries WHERE game = ? AND seq <= ?"
                                          " ORDER BY seq", (gid, head)):
                    lines[gid] += str(text).split("\n")
            return {gid: (str(header).split("\n"), lines[gid]) for gid, header, _ in rows}
        except sqlite3.Error:
            return None
        finally:
            db.close()

    # --- a round ---

    def round(self, number: int) -> None:
        self.round_number = number
        self.round_problems = 0
        if isinstance(self.holder, sqlite3.Connection):  # a reader left from the last round
            self.let_go()
        self.cell = self.choose()
        if (self.proc is None or not self.proc.alive()) and not self.bring_up(None, None):
            return
        self.play(self.rng.randint(0, 6))
        if self.rng.random() < 0.3:
            self.keys()
        if self.rng.random() < KILLS_PER_FAULT:  # a power cut mid-play, without a fault
            self.kill_at_random()
            if not self.bring_up(None, None):
                return
            self.check_store(everything=False)
            self.play(self.rng.randint(0, 3))
        killed = self.cell.baseline == "killed"
        self.take_down(killed)
        if killed:
            self.check_copies()
        self.must = {g.gid: len(g.lines) for g in self.games}
        self.notes = []
        self.unread = False
        self.console = True
        try:
            heal = self.inject()
        except Skip:
            self.tally.skipped += 1
            heal = None
        self.tally.faults += 1
        self.tally.kinds[self.cell.fault] = self.tally.kinds.get(self.cell.fault, 0) + 1
        if self.bring_up(heal, self.cell):
            everything = number % FULL_CHECK == 0 or self.cell.artifact in (
                "store", "wal", "shm", "checkpoint", "rolls", "reveal", "statedir")
            self.check_store(everything)
            self.check_resumed()
            if self.cell.fault == "full-mid":
                self.full_in_play()
            if number % 10 == 0:
                self.check_phone()
        if number % 25 == 0:
            self.check_doctor()
        if not self.round_problems:
            self.tally.survived += 1

    def choose(self) -> Cell:
        """A cell whose artifact is there to damage now (no copy yet, no checkpoint...)."""
        while True:
            cell = self.rng.choice(self.cells)
            self.cell = cell
            if cell.artifact in ("wal", "shm") and cell.baseline == "stopped" and cell.fault not in (
                    "missing", "empty", "directory", "fifo", "device", "loop"):
                continue
            try:
                if cell.artifact in ("backup", "changes") and not self.path().exists():
                    continue
                if cell.fault == "noperm" and not self.path().exists():
                    continue
            except IndexError:  # no copy yet
                continue
            if cell.artifact in ROW_TABLES and not self.has_rows(cell.artifact):
                continue
            return cell

    def has_rows(self, artifact: str) -> bool:
        table = ROW_TABLES[artifact][0]
        try:
            db = sqlite3.connect(f"{(self.state / STORE).resolve().as_uri()}?mode=ro", uri=True)
            try:
                return bool(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            finally:
                db.close()
        except sqlite3.Error:
            return False

    def kill_at_random(self) -> None:
        """SIGKILL while a line is on its way (or just after)."""
        assert self.proc is not None
        game = self.current()
        timer = threading.Timer(self.rng.uniform(0, 0.05), self.proc.process.kill)
        timer.start()
        if game is not None:
            self.play(1)
        timer.join()
        self.take_down(True)
        # a line sent as the power went may be stored without its answer: take it as acknowledged
        stored = self.stored([game.gid] if game is not None else []) or {}
        for known in self.games:
            lines = stored.get(known.gid, (None, []))[1]
            if lines[:len(known.lines)] == known.lines and len(lines) == len(known.lines) + 1:
                known.lines.append(lines[-1])

    def take_down(self, kill: bool) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.stop(signal.SIGKILL)
            self.tally.kills += 1
        else:
            code = self.proc.stop(signal.SIGTERM)
            self.tally.stops += 1
            if code != 0:
                self.problem(f"a clean stop exited {code}")
        self.said()
        self.proc = None
        self.down_at = time.monotonic()

    def bring_up(self, heal: Callable[[], None] | None, cell: Cell | None) -> bool:
        """Start as systemd would until the daemon answers; undo the fault (``cell``'s;
        None: a restart after a power cut alone) when a person would: after an exit 2,
        after the exit 1 of a fault of the file system, or once the box is up."""
        fault = FAULTS[cell.fault] if cell is not None else FAULTS["held"]
        if cell is not None and cell.artifact == "statedir" and cell.fault in ("missing", "empty"):
            self.must = {g.gid: 0 for g in self.games}
        ones = 0
        dark_from = self.down_at
        first_frame: float | None = None
        for _ in range(3 * RETRIES):
            second = isinstance(self.holder, Proc)
            prefix_now = self.unprivileged if cell is not None and cell.fault == "noperm" \
                and heal is not None else []
            proc = self.start(prefix_now or [])
            result = "exit" if second else self.wait_up(proc)
            if second:
                proc.process.wait(timeout=PATIENCE)
                result = proc.process.returncode
            if proc.first_frame is not None and first_frame is None:
                first_frame = proc.first_frame
            said = self.said()
            if result in ("up", "screen"):
                self.dark(min(filter(None, (first_frame, time.monotonic()))) - dark_from)
            if result == "up":
                if heal is not None:
                    heal()  # what the box survived goes away too (a person, or by itself)
                return True
            if result == "screen":  # up, without the console its configuration named
                proc.stop(signal.SIGTERM)
                self.proc = None
                self.said()
                if cell is None or cell.artifact != "config":
                    self.problem("the box is up but its console never answered")
                    return False
                self.restore_config()  # a person puts the console back in the configuration
                heal = None
                dark_from = time.monotonic()
                first_frame = None
                continue
            proc.stop(signal.SIGKILL)
            self.proc = None
            if first_frame is not None:  # the box shows the fault: a person's time is not dark
                self.dark(first_frame - dark_from)
                dark_from = time.monotonic()
                first_frame = None
            if result is None:
                self.problem(f"dark: no screen and no answer within {PATIENCE:.0f}s")
            elif result == 2:
                self.tally.refused += 1
                if len(said) != 1:
                    self.problem(f"exit 2 with {len(said)} lines: {said[-2:]}")
            elif result == 1:
                self.tally.retried += 1
                ones += 1
                if ones < RETRIES and not fault.passing:
                    continue  # systemd starts it again
                if ones >= RETRIES and not fault.passing:
                    self.tally.crash_loops += 1
                    self.problem(f"crash loop: {RETRIES} starts exited 1: {said[-1:]}")
            else:
                self.problem(f"the daemon died ({result}): {said[-3:]}")
            # a person undoes the fault (or the file system comes back), then systemd starts it
            ones = 0
            if heal is not None:
                heal()
                heal = None
            elif cell is not None and cell.artifact == "config":
                self.restore_config()
            else:
                self.problem(f"refused ({result}) with nothing to undo: {said[-1:]}")
                return False
            dark_from = time.monotonic()
        self.problem("the daemon never came up")
        return False

    def restore_config(self) -> None:
        """A person writes the configuration back."""
        for path in (self.config, self.config.parent):
            with contextlib.suppress(OSError):
                path.chmod(0o755 if path.is_dir() else 0o644)
        if self.config.is_dir() and not self.config.is_symlink():
            shutil.rmtree(self.config)
        elif self.config.exists() or self.config.is_symlink():
            self.config.unlink()
        self.config.write_text(self.config_text)

    def dark(self, seconds: float) -> None:
        if seconds > self.tally.longest_dark:
            self.tally.longest_dark, self.tally.dark_after = seconds, self.cell.id

    # --- what is the lane's own in its faults ---

    def second_companion(self) -> Callable[[], None] | None:
        first = self.start()
        if self.wait_up(first) != "up":
            self.problem("the first companion did not start")
            return None
        self.holder = first
        self.proc = None
        return self.let_go

    def first_gone(self, holder: Any) -> None:
        holder.stop(signal.SIGTERM)

    # --- checks ---

    def check_store(self, everything: bool = True) -> None:
        """Every acknowledged entry stored, in order (but what the fault excuses): of every
        game, or of the game in play."""
        current = self.current()
        gids = None if everything or current is None else [current.gid]
        stored = self.stored(gids)
        if stored is None:
            self.problem("the store cannot be read")
            return
        for game in list(self.games):
            if gids is not None and game.gid not in gids:
                continue
            need = self.must.get(game.gid, len(game.lines))
            header, lines = stored.get(game.gid, (None, []))
            if header is None:
                if need:
                    self.tally.lost += need
                    self.problem(f"game {game.gid} is gone ({need} entries)")
                else:
                    self.tally.excused += len(game.lines)
                self.games.remove(game)
                self.over.discard(game.gid)  # a new store numbers its games from 1 again
                continue
            if header != game.header:
                self.problem(f"game {game.gid}'s header is {header}")
                continue
            same = prefix(lines, game.lines)
            if same < need:
                self.tally.lost += need - same
                self.problem(f"game {game.gid}: {need - same} acknowledged entries lost "
                             f"({len(game.lines)} acknowledged, {same} stored as they were)")
                self.keep_evidence()
            elif same < len(game.lines):
                self.tally.excused += len(game.lines) - same
            extra = lines[same:]
            if extra and not (need < len(game.lines) and extra == game.undone[:len(extra)]):
                self.problem(f"game {game.gid}: stored lines never acknowledged: {extra[:3]}")
            game.lines[:] = lines  # the truth from here on
        self.must = {g.gid: len(g.lines) for g in self.games}

    def keep_evidence(self) -> None:
        """The state directory as the loss found it, beside the lane (off its tmpfs)."""
        with contextlib.suppress(OSError, shutil.Error):
            shutil.copytree(self.state, self.work / f"evidence-{self.round_number}", symlinks=True)
            shutil.copy(self.log, self.work / f"evidence-{self.round_number}" / "daemon.stderr")

    def check_copies(self) -> None:
        """Every acknowledged entry is in the backup copies as the power cut left them."""
        held = copies_hold(self.state)
        for game in self.games:
            copied = prefix(held.get(game.gid, []), game.lines)
            if copied < len(game.lines):
                self.problem(f"game {game.gid}: {len(game.lines) - copied} acknowledged entries "
                             f"in no copy after a power cut ({copied} of {len(game.lines)})")
                self.keep_evidence()

    def check_resumed(self) -> None:
        """The game the box resumed (the latest unfinished one, by the store's sequence)
        is what its stored lines replay to."""
        from companion.record import replay_text, summary

        try:
            db = sqlite3.connect(f"{(self.state / STORE).resolve().as_uri()}?mode=ro", uri=True)
            try:
                row = db.execute("SELECT id FROM games WHERE status = 'playing' ORDER BY touched DESC,"
                                 " id DESC LIMIT 1").fetchone()
            finally:
                db.close()
        except sqlite3.Error:
            return
        if row is None:
            return
        stored = (self.stored([row[0]]) or {}).get(row[0])
        while self.tty.answer(0.05):  # an answer still on its way (a slow machine) is not this one
            pass
        said = self.ask("state")
        if stored is None or said is None:
            return
        if not said.startswith("ok "):
            self.problem(f"game {row[0]} was not resumed: {said}")
            return
        expected = summary(replay_text("\n".join(stored[0] + stored[1]) + "\n"))
        try:
            told = json.loads(said[3:])
        except ValueError:
            self.problem(f"the console's answer to state is not the game's state: {said[:200]!r}")
            return
        if told != json.loads(json.dumps(expected)):
            self.problem(f"the resumed game {row[0]} is not what its stored lines replay to")

    def full_in_play(self) -> None:
        """The disk fills while the box runs: an entry and a key are refused, then taken."""
        filler = fill_up(self.state)
        self.play(1)
        if self.rng.random() < 0.5:
            self.keys()
        filler.unlink()
        self.play(1)

    def check_phone(self) -> None:
        routes = ["", *(f"games/{g.gid}.record" for g in self.games[-2:])]
        for route, status in phone_answers(self.state, self.port, routes):
            if status >= 500:
                self.problem(f"the phone view answered {status} for /{route}")

    def check_doctor(self) -> None:
        done = subprocess.run([PYTHON, "-m", "companion", "doctor", "--state", str(self.state),
                               "--config", str(self.config)], capture_output=True, text=True,
                              env=ENV, cwd=ROOT, timeout=PATIENCE, check=False)
        found = TRACEBACK.search(done.stdout + done.stderr)
        if found:
            self.tally.tracebacks += 1
            self.problem(f"a traceback in doctor: {traceback_text((done.stdout + done.stderr)[found.start():])}")

    def recover(self) -> None:
        """After the harness failed mid-round: the daemon down, every fault undone that can
        be, the acknowledgements taken from the store as it is."""
        if self.proc is not None:
            self.proc.stop(signal.SIGKILL)
            self.proc = None
        if self.holder is not None:
            with contextlib.suppress(Exception):
                self.let_go()
        with contextlib.suppress(subprocess.CalledProcessError, OSError):
            subprocess.run(["umount", str(self.state)], capture_output=True, check=False)
        self.restore_config()
        stored = self.stored() or {}
        self.games = [Game(gid, header, lines) for gid, (header, lines) in sorted(stored.items())]

    def finish(self) -> None:
        """The last check: every game, with the daemon stopped cleanly."""
        self.round_problems = 0
        if self.proc is not None:
            self.take_down(False)
        self.check_store()
        self.tally.seconds = time.monotonic() - self.started
        import resource

        used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
        self.tally.cpu = sum(u.ru_utime + u.ru_stime for u in used)
        print(f"lane {self.seed}: cpu self {used[0].ru_utime + used[0].ru_stime:.1f}s, children "
              f"{used[1].ru_utime + used[1].ru_stime:.1f}s", file=sys.stderr)
        if self.holder is not None:
            self.let_go()
        with contextlib.suppress(OSError):
            self.tty.unplug()


def traceback_text(text: str) -> str:
    """A traceback as a problem line: its head and its last lines, where the exception is named
    (the first 1,500 characters alone once cut a doctor traceback before its exception)."""
    lines = text.splitlines()
    chained = ("Traceback", "During handling", "The above exception")
    heads = [i for i, line in enumerate(lines) if i and line[:1].strip() and not line.startswith(chained)]
    end = len(lines) - 1
    for i in heads:  # the exception line after which no chained traceback follows
        rest = [line for line in lines[i + 1:i + 3] if line.strip()]
        if not (rest and rest[0].startswith(chained)):
            end = i
            break
    shown = lines[:end + 1]
    return "\n".join(shown) if len(shown) <= 40 else "\n".join([*shown[:8], "...", *shown[-30:]])


# --- lanes, alone or in a namespace of their own ---


def run_lane(top: pathlib.Path, faults: int, seed: int, mounted: bool, deadline: float | None) -> Tally:
    lane = Lane(top, seed, mounted)
    lane.round_problems = 0
    lane.round_number = 0
    number = 0
    try:
        while lane.tally.faults < faults and (deadline is None or time.time() < deadline):
            number += 1
            try:
                lane.round(number)
            except Exception:  # the harness's own failure: a problem, and the lane goes on
                import traceback

                lane.problem(f"the lane itself failed: {traceback.format_exc()[-1500:]}")
                lane.recover()
            if number % 20 == 0:  # the figures so far: a long run can be read as it goes
                tally = lane.tally
                print(f"lane {seed}: {tally.faults} faults ({tally.survived} survived), "
                      f"{tally.lost} lost ({tally.excused} excused) of {tally.acknowledged} "
                      f"acknowledged, longest dark {tally.longest_dark:.1f}s, "
                      f"{tally.crash_loops} crash loops, {tally.tracebacks} tracebacks, "
                      f"{len(tally.problems)} problems, {time.monotonic() - lane.started:.0f}s",
                      file=sys.stderr, flush=True)
    finally:
        lane.finish()
    return lane.tally


def lane_command(top: pathlib.Path, faults: int, seed: int, deadline: float | None) -> tuple[list[str], bool]:
    """The command that runs one lane: in a namespace with its state on a tmpfs, if the
    machine allows one."""
    unshare = namespace_command()
    disk = top / "disk"
    disk.mkdir(parents=True, exist_ok=True)
    own = [PYTHON, "-m", "tests.chaos", "--lane", str(top), "--faults", str(faults), "--seed", str(seed)]
    if deadline is not None:
        own += ["--deadline", str(deadline)]
    if unshare is None:
        return own, False
    return [*unshare, "sh", "-c", f'mount -t tmpfs -o size={TMPFS_MB}m tmpfs "$0" && exec "$@"',
            str(disk), *own, "--mounted"], True


def run(faults: int, lanes: int = 1, seed: int = 1, minutes: float | None = None,
        directory: pathlib.Path | None = None) -> Tally:
    """``faults`` faults shared among ``lanes`` lanes run at once; the tally of all."""
    deadline = time.time() + 60 * minutes if minutes else None
    total = Tally()
    with tempfile.TemporaryDirectory(prefix="chaos-") as scratch:
        base = directory or pathlib.Path(scratch)
        running = []
        for number in range(lanes):
            share = faults // lanes + (number < faults % lanes)
            command, _ = lane_command(base / f"lane-{number}", share, seed * 100 + number, deadline)
            running.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT,
                                            env=ENV))
        for child in running:
            out, _ = child.communicate()
            try:
                total.add(Tally(**json.loads(out.strip().splitlines()[-1])))
            except (ValueError, IndexError, TypeError):
                total.problems.append(f"a lane failed (exit {child.returncode}): {out[-1000:]}")
    return total


def report(tally: Tally, lanes: int, seed: int, mounted: bool) -> str:
    minutes = tally.seconds / 60
    rate = tally.faults / minutes if minutes else 0.0
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(tally.kinds.items()))
    lines = [
        f"chaos run: {tally.faults} faults over {lanes} lane(s), seed {seed}, "
        f"{minutes:.1f} minutes ({rate:.1f} faults a minute)",
        f"  faults survived:              {tally.survived} of {tally.faults}",
        f"  acknowledged entries lost:    {tally.lost} (of {tally.acknowledged} acknowledged; "
        f"{tally.excused} more went with a whole state directory removed)",
        f"  longest time dark:            {tally.longest_dark:.1f} s (after {tally.dark_after or '-'})",
        f"  crash loops:                  {tally.crash_loops}",
        f"  tracebacks:                   {tally.tracebacks}",
        f"  SIGKILLs: {tally.kills}, clean stops: {tally.stops}, starts: {tally.starts} "
        f"({tally.refused} refused with exit 2 until the fault was undone, {tally.retried} "
        f"exit 1 and started again)",
        f"  faults by kind: {kinds}",
    ]
    if not mounted:
        lines.append("  (no mount namespace here: no read-only or full-disk faults)")
    if tally.skipped:
        lines.append(f"  {tally.skipped} faults could not be made on this machine")
    lines += [f"  problem: {problem}" for problem in tally.problems[:50]]
    if len(tally.problems) > 50:
        lines.append(f"  ... and {len(tally.problems) - 50} more problems")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=100)
    parser.add_argument("--lanes", type=int, default=1, help="lanes run at once (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, help="stop after this long, however many faults")
    parser.add_argument("--out", help="also write the report to this file")
    parser.add_argument("--dir", help="keep the lanes here (their logs, the evidence of a loss)")
    parser.add_argument("--lane", help=argparse.SUPPRESS)
    parser.add_argument("--mounted", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.lane:
        tally = run_lane(pathlib.Path(args.lane), args.faults, args.seed, args.mounted, args.deadline)
        print(json.dumps(asdict(tally)))
        return 0
    tally = run(args.faults, args.lanes, args.seed, args.minutes,
                pathlib.Path(args.dir) if args.dir else None)
    text = report(tally, args.lanes, args.seed, namespace_command() is not None)
    sys.stdout.write(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    return 0 if not (tally.lost or tally.crash_loops or tally.tracebacks) else 1


if __name__ == "__main__":
    sys.exit(main())
