"""The fault matrix: every stored artifact, every kind of fault, every way in, and the
invariants checked in each cell.

A *cell* is one artifact (:data:`ARTIFACTS`) with one kind of fault (:data:`FAULTS`) on one
*baseline*: a state directory holding three games (two over, one in play past its first
checkpoint), device rolls in the dice audit, backup copies (a whole copy and its changes),
the players' settings, the phone view's choices and a stale lock, left as a clean stop
leaves it (``stopped``) or as a power cut does (``killed``: the latest entries only in the
log, past the last copy). Every entry of it was acknowledged (committed before the call
returned) and is written down outside the state directory (:class:`Baseline`).

A cell runs every way in, with the fault in place: ``doctor``, ``games``, ``export`` of every
game and ``replay`` of what it wrote (one helper process, :func:`ways`), then the daemon
(``companion run`` with the serial console on a pseudo-terminal and the phone view on): it
resumes, logs an entry, starts a new game, serves the phone page and the downloads. A fault
a person would undo (a permission, a full disk, a second process...) is then undone and the
daemon started again. The invariants (:meth:`Cell.check`):

- no acknowledged entry is lost: the store holds every acknowledged line, in order (an
  entry is in the backup copies before it is acknowledged, so a fault that destroys the
  store or its log costs nothing either; only a state directory gone whole takes its
  games: :func:`kept`);
- the daemon reaches a screen (its console answers, or it logs ``ready``), or exits 2 with
  one line; it never restarts in a loop: a start that exits 1 is retried as systemd would,
  and three in a row with a fault no retry can outlast (:attr:`Fault.passing`) is a loop;
- one line names the fault and its fix: the exit's line, or ``doctor``'s warn or fail line
  naming the artifact (:attr:`Artifact.words`);
- ``doctor`` says fail or warn, never ok, with the fault in place (unless the fault is no
  fault to fix: a missing cache or a lock file left by a power cut, :data:`HARMLESS`);
- no traceback anywhere: every process's output, the daemon's log, doctor's report;
- the resumed game is what its stored lines replay to, and what was exported replays.

Faults that need a file system of their own (read-only, full) run the whole cell inside a
user and mount namespace (``unshare -rm``); faults of permission run every process without
the capabilities that let root ignore them (``setpriv``), or as the user itself. Where the
machine allows neither, the cell is skipped, saying why.

    python -m tests.faultmatrix --list              # every cell, and why some do not apply
    python -m tests.faultmatrix store-bitflips-killed [--seed 7]   # one cell, its findings
    COMPANION_MATRIX=full pytest tests/test_fault_matrix.py -n 4    # the whole product

``tests/test_fault_matrix.py`` runs a covering sample (:func:`sample`) in the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import http.client
import json
import os
import pathlib
import random
import re
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from companion.store import utf8

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = sys.executable
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
ENV.pop("STATE_DIRECTORY", None)
ENV.pop("NOTIFY_SOCKET", None)
BENCH = ROOT / "companion" / "benchdata"
STORE = "companion.sqlite"
#: How long a start may take on a busy machine before the box counts as dark.
PATIENCE = 40.0
#: How long the console may take to answer once the daemon is up.
CONSOLE_PATIENCE = 8.0
#: How long a second process holds the store's write lock.
HOLD = 2.0
#: systemd's restarts before it gives up (StartLimitBurst in the unit): a fault no retry
#: can outlast that fails this many starts in a row is a crash loop.
RETRIES = 3
#: What may come after a traceback-free run: the words that betray one.
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|--- Logging error ---|Exception ignored")


# --- what is stored, and what can go wrong with it ---


@dataclass(frozen=True)
class Artifact:
    """Something the companion stores. ``words``: what names it in a line (doctor's, the
    exit's); ``kind``: a file, a row (or rows) of the store, or the state directory."""

    name: str
    kind: str
    words: tuple[str, ...]


ARTIFACTS = {a.name: a for a in (
    Artifact("store", "file", (STORE,)),
    Artifact("wal", "file", (f"{STORE}-wal", "log")),
    Artifact("shm", "file", (f"{STORE}-shm", "log's index", "index")),
    Artifact("backup", "file", (".backup-", "backup", "cop")),
    Artifact("changes", "file", (".changes", "backup", "cop")),
    Artifact("checkpoint", "row", ("checkpoint",)),
    Artifact("rolls", "row", ("dice", "roll", "audit")),
    Artifact("reveal", "row", ("shown one by one",)),
    Artifact("settings", "file", ("settings.json",)),
    Artifact("phone", "file", ("phone.json",)),
    Artifact("config", "file", ("companion.toml",)),
    Artifact("lock", "file", ("companion.lock",)),
    Artifact("statedir", "dir", ("/state",)),
)}


@dataclass(frozen=True)
class Fault:
    """A kind of fault. ``passing``: a retry can outlast it (the file system may come back), so exit 1 is right;
    ``mount``: it needs a file system of its own."""

    name: str
    passing: bool = False
    mount: bool = False


FAULTS = {f.name: f for f in (
    Fault("missing"),
    Fault("empty"),
    Fault("truncated"),
    Fault("bitflips"),
    Fault("wrong"),  # well-formed, but the wrong types or values
    Fault("directory"),
    Fault("fifo"),
    Fault("device"),
    Fault("loop"),  # a symbolic link to itself
    Fault("noperm"),
    Fault("readonly", passing=True, mount=True),
    Fault("full-start", passing=True, mount=True),
    Fault("full-mid", passing=True, mount=True),
    Fault("held"),  # a second process holding it
)}
BASELINES = ("stopped", "killed")

#: Cells that are no fault to fix: doctor may say ok (why, for each).
HARMLESS = {
    ("shm", "missing"): "SQLite makes the index again from the log",
    ("shm", "empty"): "SQLite makes the index again from the log",
    ("shm", "truncated"): "SQLite makes the index again from the log",
    ("shm", "bitflips"): "the first connection rebuilds the index from the log",
    ("shm", "held"): "readers share the index: that is what it is for",
    ("wal", "held"): "readers share the log: that is what it is for",
    ("wal", "missing"): "nothing else records how much the log held: the copies bring back "
                        "what only it held, and a clean stop leaves none",
    ("wal", "empty"): "nothing else records how much the log held (see missing)",
    ("wal", "truncated"): "a log cut at a frame is a shorter log: nothing records its length",
    ("store", "held"): "a writer's lock passes, and the daemon waits for it; no lock says whose",
    ("rolls", "empty"): "a row that reads as a roll is an undone roll to every reader",
    ("rolls", "truncated"): "a row that reads as a roll is an undone roll to every reader",
    ("backup", "missing"): "the next copy is a whole one; the store holds everything",
    ("changes", "missing"): "the next copy is a whole one; the store holds everything",
    ("backup", "held"): "a reader of a copy is waited for; the next copy goes on",
    ("changes", "held"): "another program holding the copies' lock: the next entry makes a new whole copy",
    ("checkpoint", "missing"): "a cache: the record is replayed",
    ("reveal", "missing"): "a cache: the roll is stored, and shown in the Log",
    ("rolls", "missing"): "nothing tells a game stored before the audit existed from one whose rows are gone",
    ("settings", "missing"): "no choices made yet: the configuration's",
    ("phone", "missing"): "no choices made yet: the configuration's",
    ("lock", "missing"): "made at the next start",
    ("lock", "empty"): "a power cut's: the next start writes its PID",
    ("lock", "truncated"): "a power cut's: the next start writes its PID",
    ("lock", "bitflips"): "it only names the holder: the next start writes its PID",
    ("lock", "wrong"): "it only names the holder: the next start writes its PID",
    ("statedir", "missing"): "made at the first start (nothing was kept: nothing to lose)",
    ("statedir", "empty"): "a new box: made at the first start",
    ("config", "empty"): "an empty configuration is the defaults",
    ("config", "readonly"): "the configuration is only read",
    ("config", "full-start"): "the configuration is only read",
    ("config", "full-mid"): "the configuration is only read",
    ("config", "held"): "the configuration is read whole, never locked",
    ("lock", "held"): "the holder's start is refused; doctor looks at the store, not the lock",
    ("statedir", "held"): "a running companion is no fault",
}
#: Faults of the file system: the state directory's, whichever of its files is named.
FILESYSTEM = ("readonly", "full-start", "full-mid")


def applies(artifact: str, fault: str, baseline: str) -> str:
    """"" when the cell is a real case; otherwise why it is not (listed by ``--list``)."""
    kind = ARTIFACTS[artifact].kind
    if kind == "row" and fault in ("directory", "fifo", "device", "loop", "noperm", "held",
                                   *FILESYSTEM):
        return "a row has no path, permissions or file system of its own: the store's cells cover them"
    if kind == "dir" and fault in ("truncated", "bitflips", "wrong", "directory"):
        return "a directory has no content of its own; its files have their cells"
    if artifact in ("wal", "shm") and baseline == "stopped" and fault not in (
            "missing", "empty", "directory", "fifo", "device", "loop"):
        return "a clean stop leaves no log and no index to damage"
    if artifact == "shm" and fault == "wrong":
        return "the index has no values of its own to be wrong: its bit flips cover it"
    if artifact in ("shm", "wal", "backup", "changes", "settings", "phone", "lock") and fault in FILESYSTEM:
        return "the state directory's file system: its cells cover every file in it"
    if artifact in ("settings", "phone", "checkpoint", "rolls", "reveal") and fault == "held":
        return "read whole and replaced by a rename: nothing to hold"
    return ""


@dataclass(frozen=True)
class Cell:
    artifact: str
    fault: str
    baseline: str

    @property
    def id(self) -> str:
        return f"{self.artifact}-{self.fault}-{self.baseline}"

    @classmethod
    def parse(cls, text: str) -> Cell:
        artifact, rest = text.split("-", 1)
        fault, baseline = rest.rsplit("-", 1)
        cell = cls(artifact, fault, baseline)
        if artifact not in ARTIFACTS or fault not in FAULTS or baseline not in BASELINES:
            raise ValueError(f"no such cell: {text}")
        return cell

    @property
    def harmless(self) -> str:
        return HARMLESS.get((self.artifact, self.fault), "")


def product() -> list[Cell]:
    """Every cell that is a real case."""
    return [Cell(a, f, b) for a in ARTIFACTS for f in FAULTS for b in BASELINES
            if not applies(a, f, b)]


#: Cells that found a fault (each fixed since), with the seed that found it: always in
#: the sample, as their tests.
FOUND = {
    "store-missing-killed": 0,  # salvage took an old row of the game: entries since, a redo stack
    "wal-wrong-killed": 0,  # another store's log: a store behind its copies opened as sound
    "wal-noperm-killed": 0,  # a log the user may not open: exit 1 at every start (a crash loop)
    "rolls-wrong-stopped": 0,  # a dice-audit row of the wrong kind: a traceback at every start
    "changes-wrong-killed": 6,  # the copies' numbers of the wrong kind: a traceback at every start
    "backup-bitflips-stopped": 0,  # a whole copy that cannot be restored from, kept as the newest
    "store-wrong-killed": 0,  # the entries table gone: an empty one made in its place, no word
    "lock-directory-stopped": 0,  # doctor said ok of a lock file that stops every start
}


#: The tables of the row artifacts: each one's table, the column its faults change, and the
#: key that names a row within its game.
ROW_TABLES = {"checkpoint": ("checkpoints", "state", "seq"), "rolls": ("rolls", "lines", "n"),
              "reveal": ("reveals", "shown", "seq")}


def sample(seed: int) -> list[Cell]:
    """A covering sample: the cells that found a fault (:data:`FOUND`), then every
    artifact, every kind of fault and both baselines at least once, chosen at random
    (``seed``) among the cells that cover something new (those that are a fault to fix
    before those that are none: :data:`HARMLESS`)."""
    rng = random.Random(seed)
    cells = product()
    rng.shuffle(cells)
    chosen = [Cell.parse(name) for name in FOUND]
    wanted = ({("artifact", a) for a in ARTIFACTS} | {("fault", f) for f in FAULTS}
              | {("baseline", b) for b in BASELINES})
    for cell in chosen:
        wanted -= covers(cell)
        cells.remove(cell)
    while wanted:  # of cells that cover as much, one that is a fault to fix first
        best = max(cells, key=lambda c: (len(wanted & covers(c)), not c.harmless))
        chosen.append(best)
        wanted -= covers(best)
        cells.remove(best)
    return chosen


#: The suite's sample: drawn by this seed (``COMPANION_MATRIX_SEED``), or every cell
#: (``COMPANION_MATRIX=full``).
SUITE_SEED = int(os.environ.get("COMPANION_MATRIX_SEED", "24"))
SUITE_FULL = os.environ.get("COMPANION_MATRIX") == "full"


def suite_cells() -> list[Cell]:
    """The cells the suite runs (tests/test_fault_matrix.py)."""
    return product() if SUITE_FULL else sample(SUITE_SEED)


def describe() -> str:
    """The line pytest prints in its header (conftest.py), so a failing cell can be run again."""
    return (f"fault matrix: seed {SUITE_SEED}, {len(suite_cells())} of {len(product())} cells"
            f"{'' if SUITE_FULL else ' (COMPANION_MATRIX=full for all)'}")


def covers(cell: Cell) -> set[tuple[str, str]]:
    return {("artifact", cell.artifact), ("fault", cell.fault), ("baseline", cell.baseline)}


# --- the baseline: a state directory whose every entry was acknowledged ---


@dataclass
class Game:
    """A game as acknowledged: its id, header and action lines in force, and the lines
    acknowledged and then undone after them (the redo stack)."""

    gid: int
    header: list[str]
    lines: list[str]
    undone: list[str] = field(default_factory=list)


@dataclass
class Baseline:
    """A state directory (``top/state``) and what was acknowledged in it (kept beside it,
    in ``top/acks.json``): the games."""

    top: pathlib.Path
    kind: str
    games: list[Game]

    def save(self) -> None:
        (self.top / "acks.json").write_text(json.dumps(
            {"kind": self.kind, "games": [asdict(g) for g in self.games]}))

    @classmethod
    def load(cls, top: pathlib.Path) -> Baseline:
        data = json.loads((top / "acks.json").read_text())
        return cls(top, data["kind"], [Game(**g) for g in data["games"]])


#: The baseline's games: a record from the bench data and how many of its lines are played.
GAMES = (("quick-lemmings.record", None), ("microbot-lap-win.record", None),
         ("leaf-climbers.record", 320))
TOKEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # the phone view's link, as phone.json keeps it


def record_lines(name: str) -> tuple[list[str], list[str]]:
    """A bench record's header and action lines."""
    from companion.record import replay_text

    replayed = replay_text((BENCH / name).read_text())
    return replayed.header.lines(), [str(line) for line in replayed.actions]


def no_autocheckpoint(path: str) -> sqlite3.Connection:
    """The store's connection, with the log kept until a copy checkpoints it: what the main
    file, the log and the copies each hold is then known exactly."""
    from companion.store import BUSY_TIMEOUT_MS

    db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    db.execute("PRAGMA wal_autocheckpoint = 0")
    return db


def build_baseline(top: pathlib.Path, kind: str) -> Baseline:
    """Play the baseline's games in ``top/live`` as the daemon would (copies at each game's
    start and end and after every change), then leave the files in ``top/state`` as a clean
    stop or a power cut would."""
    from companion.backup import Backups
    from companion.config import Config, ScreenConfig, save_settings
    from companion.games.base import Line
    from companion.record import replay_header
    from companion.session import Session

    live = top / "live"
    live.mkdir(parents=True)
    path = str(live / STORE)
    from companion.store import Store

    store = Store(path, connect=no_autocheckpoint)
    backups = Backups(path)
    store.after_commit = backups.changed
    games: list[Game] = []
    for name, upto in GAMES:
        header, lines = record_lines(name)
        replayer = replay_header(header)
        assert replayer.header is not None
        session = Session.new(store, replayer.header)
        game = Game(session.gid, header, [])
        games.append(game)
        backups.run_due()  # each change is copied before it is acknowledged, as the daemon does
        for text in lines[:upto]:
            rolled = " roll " in f" {text} "  # a device roll: kept in the dice audit too
            session.play([Line.parse(text)], rolled=rolled)
            game.lines.append(text)
            backups.run_due()
    # One more roll, undone: the redo stack and an undone roll in the audit.
    _, rest = record_lines(GAMES[-1][0])
    session.play([Line.parse(rest[len(games[-1].lines)])], rolled=True)
    backups.run_due()
    session.undo()
    backups.run_due()
    games[-1].undone.append(rest[len(games[-1].lines)])
    store.keep_reveal(session.gid, session.head, 1)  # a roll shown one by one, one line seen
    save_settings(Config(screen=ScreenConfig(dim_after=45.0, blank_after=900.0, rolls="one-by-one"),
                         remembered=("Ann", "Bob", "Cy")), live)
    phone = live / "phone.json"
    phone.write_text(json.dumps({"enabled": True, "token": TOKEN}))
    phone.chmod(0o600)
    (live / "companion.lock").write_text("424242\n")
    state = top / "state"
    state.mkdir()
    if kind == "stopped":
        backups.request()
        backups.run_due()
        store.close()  # a checkpoint, and SQLite removes the log and its index
        for item in live.iterdir():
            shutil.copy2(item, state / item.name)
    else:  # as the power went: the store still open, its log holding the latest entries
        for item in live.iterdir():
            shutil.copy2(item, state / item.name)
        store.db.close()
    shutil.rmtree(live)
    baseline = Baseline(top, kind, games)
    baseline.save()
    return baseline


def kept(cell: Cell, baseline: Baseline) -> dict[int, int]:
    """For each baseline game, the acknowledged entries that must survive ``cell``: all of
    them (each was in the copies before it was acknowledged), but for a fault that takes
    the whole state directory, copies and all."""
    if cell.artifact == "statedir" and cell.fault in ("missing", "empty"):
        return {g.gid: 0 for g in baseline.games}
    return {g.gid: len(g.lines) for g in baseline.games}


def prefix(stored: list[str], acked: list[str]) -> int:
    """How many acknowledged lines the stored ones begin with."""
    same = 0
    for a, b in zip(stored, acked):
        if a != b:
            break
        same += 1
    return same


def copies_hold(state: pathlib.Path) -> dict[int, list[str]]:
    """Each game's lines in force as the newest restorable whole copy and the copies made
    since hold them: this module's own reading of companion/backup.py's files (a whole
    copy; then each copy in the changes replaces a game's row, and its entries from the
    first that changed)."""
    bases = sorted(((int(p.name.rsplit("-", 1)[1]), p) for p in state.glob(f"{STORE}.backup-*")
                    if p.name.rsplit("-", 1)[1].isdigit() and p.is_file()), reverse=True)
    for _, base in bases:
        try:
            db = sqlite3.connect(f"{base.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                db.close()
                continue
            heads = dict(db.execute("SELECT id, head FROM games"))
            entries = as_written(db, "")
            db.close()
        except sqlite3.Error:
            continue
        changes = base.with_name(base.name + ".changes")
        with contextlib.suppress(sqlite3.Error):
            db = sqlite3.connect(f"{changes.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                numbers = db.execute("SELECT copy FROM backup_copy WHERE copy > 0 ORDER BY copy").fetchall()
                for (number,) in numbers:
                    changed = db.execute("SELECT game, since FROM backup_game WHERE copy = ?", (number,))
                    for gid, since in changed.fetchall():
                        if since is not None:
                            entries = {k: v for k, v in entries.items() if not (k[0] == gid and k[1] >= since)}
                    heads.update(dict(db.execute("SELECT id, head FROM games WHERE copy = ?", (number,))))
                    entries.update(as_written(db, f" WHERE copy = {int(number)}"))
            finally:
                db.close()
        held: dict[int, list[str]] = {}
        for gid, head in heads.items():
            lines: list[str] = []
            for seq in range(1, int(head) + 1):
                if entries.get((gid, seq)) is None:
                    break
                lines += entries[(gid, seq)].split("\n")
            held[gid] = lines
        return held
    return {}


def as_written(db: sqlite3.Connection, where: str) -> dict[tuple[int, int], str | None]:
    """A copy's entries by game and number: each one's lines, or None where its values are
    not as written (their checksum differs). A copy does not hold such an entry: salvage
    takes it only where nothing else replays, and then it is not the line acknowledged (it
    was counted held by its first line alone when the flip was in a later one)."""
    from companion.store import ENTRY_SUMMED, WRONG, trust

    db.row_factory, db.text_factory = sqlite3.Row, bytes  # summed as stored
    try:
        return {(row["game"], row["seq"]): None if trust(dict(row), ENTRY_SUMMED) == WRONG
                else bytes(row["lines"]).decode(errors="replace")
                for row in db.execute(f"SELECT * FROM entries{where}")}
    finally:
        db.row_factory, db.text_factory = None, str


# --- processes ---


def as_without_privilege() -> list[str]:
    """A command prefix under which permissions are real: as root, without the
    capabilities that ignore them (root still owns the files, so a mode of 000 shuts it
    out as it shuts out their owner); as anyone else, nothing."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise Skip("needs setpriv to drop root's capabilities")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-all"]


class Skip(Exception):
    """The machine, or the state as an earlier fault left it, cannot make this fault (the
    reason is the message)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Outcome:
    """One daemon start: whether it reached a screen, its exit status, what it said."""

    reached: bool
    code: int | None
    said: list[str]  # stderr lines that are not log lines
    log: str
    dark: float  # seconds from the start to the first answer (or to the exit)


class Daemon:
    """``companion run`` with the serial console on a pseudo-terminal."""

    def __init__(self, cell: CellRun, prefix: list[str]) -> None:
        self.cell = cell
        cell.starts += 1
        self.log_path = cell.work / f"daemon-{cell.starts}.log"
        with self.log_path.open("wb") as err:
            self.process = subprocess.Popen(
                [*prefix, PYTHON, "-m", "companion", "run", "--emulator", "none",
                 "--state", str(cell.state), "--config", str(cell.config)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=ENV,
                cwd=cell.work)
        self.started = time.monotonic()
        self.talking = False

    def alive(self) -> bool:
        return self.process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self) -> Outcome:
        """Until the process exits, or :data:`PATIENCE` runs out (dark: it is killed), or
        it is up: it logs ``ready`` (its first screen is drawn) and then its console
        answers (:attr:`talking`; a configuration without the console never does)."""
        tty = self.cell.tty
        end = self.started + PATIENCE
        ready_at: float | None = None
        while time.monotonic() < end:
            tty.send(b"help\n")
            if tty.answer(0.3):
                time.sleep(0.2)
                while tty.answer(0.1):  # the answers to the other helps sent meanwhile
                    pass
                self.talking = True
                return self.outcome(True)
            if ready_at is None and "companion.daemon: ready" in self.log():
                ready_at = time.monotonic()
            if ready_at is not None and time.monotonic() - ready_at > CONSOLE_PATIENCE:
                return self.outcome(True)
            if not self.alive():
                return self.outcome(False)
        self.kill()
        return self.outcome(False)

    def outcome(self, reached: bool) -> Outcome:
        code = self.process.poll()
        text = self.log()
        said = [line for line in text.splitlines()
                if not line.startswith(("INFO ", "WARNING ", "ERROR ", "DEBUG "))]
        return Outcome(reached, code, said, text, time.monotonic() - self.started)

    def ask(self, line: str) -> str | None:
        tty = self.cell.tty
        tty.send(line.encode() + b"\n")
        end = time.monotonic() + PATIENCE
        while time.monotonic() < end:
            answer = tty.answer(0.2)
            if answer:
                return answer
            if not self.alive():
                return None
        return None

    def stop(self) -> int | None:
        """SIGTERM, as systemd stops it; the exit status (None: it had to be killed)."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self) -> None:
        if self.alive():
            self.process.kill()
        self.process.wait(timeout=PATIENCE)


# --- the ways in that only read: one process, every command in it ---

#: Run in the helper process: each command through companion.cli.main with its output
#: caught at the file descriptors (a traceback printed by anything is seen).
def ways(state: str, config: str, gids: list[int], scratch: str) -> dict[str, Any]:
    """``doctor``, ``games``, ``export`` (each game, its summary, the latest) and ``replay``
    of each record exported, in this process; what each said and its exit status."""
    import io  # noqa: F401  (the helper's imports stay inside it)

    from companion.cli import main

    results: dict[str, Any] = {}

    def call(name: str, argv: list[str]) -> dict[str, Any]:
        out_path, err_path = os.path.join(scratch, f"{name}.out"), os.path.join(scratch, f"{name}.err")
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            try:
                code: Any = main(argv)
            except SystemExit as exit_:
                code = exit_.code
            except BaseException:  # what the matrix is looking for
                import traceback

                traceback.print_exc()
                code = "traceback"
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
        found = {"code": code, "out": pathlib.Path(out_path).read_text(errors="replace"),
                 "err": pathlib.Path(err_path).read_text(errors="replace")}
        results[name] = found
        return found

    where = ["--state", state, "--config", config]
    call("doctor", ["doctor", *where])
    call("games", ["games", *where])
    for gid in [*gids, "latest"]:
        record = call(f"export-{gid}", ["export", str(gid), *where])
        call(f"summary-{gid}", ["export", "--summary", str(gid), *where])
        if record["code"] == 0:
            path = os.path.join(scratch, f"game-{gid}.record")
            pathlib.Path(path).write_text(record["out"])
            call(f"replay-{gid}", ["replay", path])
    return results


# --- one cell ---


class Faults:
    """Makes a cell's fault in a state directory (``state``, its configuration ``config``,
    scratch room in ``work``), and says how to undo it: shared by the matrix's cells and
    the chaos run's lanes, which provide what is theirs (:meth:`second_companion`,
    :meth:`first_gone`, :meth:`dropped`)."""

    cell: Cell
    state: pathlib.Path
    config: pathlib.Path
    work: pathlib.Path
    rng: random.Random
    notes: list[str]
    prefix: list[str]
    holder: Any
    hold_for: float | None
    unread: bool
    console: bool
    games: list[Game]

    def second_companion(self) -> Callable[[], None] | None:
        """Start a second companion on the state directory; what stops it."""
        raise NotImplementedError

    def first_gone(self, holder: Any) -> None:
        """The second companion (``holder``) stopped."""
        raise NotImplementedError

    def dropped(self) -> None:
        """The store lost a table with every value in it (SQLite zeroes its pages)."""
        raise NotImplementedError

    def path(self) -> pathlib.Path:
        """The artifact's path (for a row: the store)."""
        name = self.cell.artifact
        if name == "statedir":
            return self.state
        if name == "config":
            return self.config
        fixed = {"store": STORE, "wal": f"{STORE}-wal", "shm": f"{STORE}-shm",
                 "settings": "settings.json", "phone": "phone.json", "lock": "companion.lock",
                 "checkpoint": STORE, "rolls": STORE, "reveal": STORE}
        if name in fixed:
            return self.state / fixed[name]
        from companion.backup import changes_of, copies

        base = copies(self.state / STORE)[0]
        return changes_of(base) if name == "changes" else base

    def inject(self) -> Callable[[], None] | None:
        """Make the fault; what undoes it (None: nothing can, or nothing would)."""
        fault = self.cell.fault
        if self.cell.artifact == "config" and fault not in ("readonly", "full-start", "full-mid", "held"):
            self.console = False  # the configuration that names the console is the fault
        if self.cell.artifact == "statedir" and fault in ("missing", "empty"):
            self.games = []  # nothing of them is left to keep
        if ARTIFACTS[self.cell.artifact].kind == "row":
            self.damage_rows()
            return None
        path = self.path()
        if fault in ("missing", "empty", "truncated", "bitflips", "wrong"):
            self.damage_file(path)
            return None
        if fault in ("directory", "fifo", "device", "loop"):
            return self.replace(path, {"fifo": "FIFO", "loop": "symlink loop"}.get(fault, fault))
        if fault == "noperm":
            self.prefix = as_without_privilege()
            mode = path.stat().st_mode
            path.chmod(0)

            def undo() -> None:
                if path.exists():  # the companion may have set it aside meanwhile
                    path.chmod(stat.S_IMODE(mode))
            return undo
        if fault == "readonly":
            return self.read_only()
        if fault == "full-start":
            filler = fill_up(self.state)
            return filler.unlink
        if fault == "full-mid":
            return None  # filled in play (fill_mid)
        if fault == "held":
            return self.hold()
        raise AssertionError(fault)

    def replace(self, path: pathlib.Path, kind: str) -> Callable[[], None]:
        from tests.faults import put

        aside = path.with_name(f".{path.name}.aside")  # beside it: on its file system
        if path.exists() or path.is_symlink():
            os.replace(path, aside)
        put(kind, path)

        def undo() -> None:
            put("empty", path)  # whatever stands there goes
            path.unlink()
            if aside.exists():
                os.replace(aside, path)
        return undo

    def damage_file(self, path: pathlib.Path) -> None:
        fault = self.cell.fault
        if self.cell.artifact == "statedir":
            shutil.rmtree(path)
            if fault == "empty":
                path.mkdir()
            return
        data = path.read_bytes() if path.exists() else b""
        if fault == "missing":
            path.unlink(missing_ok=True)
        elif fault == "empty":
            path.write_bytes(b"")
        elif fault == "truncated":
            kept = data[:self.rng.randrange(1, len(data))] if len(data) > 1 else b""
            before = self.readable_rows()
            path.write_bytes(kept)
            # A store cut only where the log holds every page it lost reads the same (SQLite
            # reads those pages from the log, and its next checkpoint writes them back).
            self.unread = self.cell.artifact == "store" and before is not None and before == self.readable_rows()
            if self.cell.artifact == "config" and kept.endswith(b"\n") and parses(kept):
                self.unread = True  # doctor warns of a last line cut short, not of this
                self.notes.append("cut at a line's end: a shorter configuration that parses; "
                                  "nothing records how long it was")
        elif fault == "bitflips" and data:
            flipped = bytearray(data)
            for _ in range(self.rng.randint(1, 8)):
                at = self.rng.randrange(len(flipped) * 8)
                flipped[at // 8] ^= 1 << (at % 8)
            before = self.readable_rows()
            path.write_bytes(bytes(flipped))
            self.unread = before is not None and before == self.readable_rows()
            self.notes.append(f"{len(data)} bytes, flips seeded by {self.cell.id}")
        elif fault == "wrong":
            self.wrong_file(path)

    def readable_rows(self) -> list[Any] | None:
        """Every row SQLite reads from the artifact's database (the store with its log, or
        a copy), read from a copy of its files; None for an artifact that is no database."""
        if self.cell.artifact not in ("store", "wal", "shm", "backup", "changes"):
            return None
        source = self.state / STORE if self.cell.artifact in ("store", "wal", "shm") else self.path()
        scratch = pathlib.Path(tempfile.mkdtemp(dir=self.work))
        try:
            for suffix in ("", "-wal"):
                if pathlib.Path(f"{source}{suffix}").exists():
                    shutil.copy(f"{source}{suffix}", scratch / f"copy{suffix}")
            db = sqlite3.connect(scratch / "copy")
            db.text_factory = bytes  # as stored: a flipped bit may leave text that is not UTF-8
            try:
                tables = [name.decode("utf-8", "replace") for (name,) in db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
                return [(table, db.execute(f'SELECT * FROM "{table}"').fetchall()) for table in tables]
            except (sqlite3.Error, UnicodeDecodeError) as err:  # (SQLite's message naming garbled bytes)
                return [str(err)]
            finally:
                db.close()
        finally:
            shutil.rmtree(scratch)

    def wrong_file(self, path: pathlib.Path) -> None:
        """Well-formed, but wrong: the right format with values of the wrong type or
        meaning (one of several, chosen by the cell's seed)."""
        name = self.cell.artifact
        rng = self.rng
        if name == "settings":
            value = rng.choice([{"screen": 5}, {"screen": [1]}, [], "settings",
                                {"screen": {"dim_after": "soon"}}, {"screen": {"rolls": 3}},
                                {"screen": {"dim_after": 1e308}}, {"names": 5},
                                {"names": ["Ann", 3]}, {"names": ["x" * 5000] * 50},
                                {"names": ["#", "Ann Ann", ""]}])
            path.write_text(json.dumps(value))
        elif name == "phone":
            value = rng.choice([{"enabled": "false", "token": TOKEN}, {"enabled": True, "token": 5},
                                [1, 2], {"enabled": None}, "on"])
            path.write_text(json.dumps(value))
        elif name == "config":
            path.write_text(rng.choice(['[screen]\ndim_after = "soon"\n', "[phone]\nport = 0\n",
                                        "[serial]\nports = 5\n", "screen = 3\n"]))
        elif name == "lock":
            path.write_text(rng.choice(["abc\n", "-1\n", "99999999999999999999\n", "1\n"]))
        elif name in ("store", "backup", "changes"):
            self.wrong_database(path)
        elif name == "wal":  # another store's log: SQLite's checksums say it is not this one's
            other = self.work / "other.sqlite"
            for stale in (other, pathlib.Path(f"{other}-wal"), pathlib.Path(f"{other}-shm")):
                stale.unlink(missing_ok=True)
            db = sqlite3.connect(other, isolation_level=None)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA wal_autocheckpoint = 0")
            db.execute("CREATE TABLE t (x)")
            db.execute("INSERT INTO t VALUES (1)")
            shutil.copy(f"{other}-wal", path)
            db.close()
        self.notes.append(f"wrong {name}: {path.read_bytes()[:60]!r}")

    def wrong_database(self, path: pathlib.Path) -> None:
        """An SQLite file of the right shape holding values of the wrong kind: the first of
        the cell's shuffled spoils that changes a row (checks the store's schema makes on
        writing are off: a flipped bit never asked them)."""
        spoils = [
            "UPDATE games SET head = 'x' WHERE id = (SELECT max(id) FROM games)",
            "UPDATE games SET header = CAST(header AS BLOB) WHERE id = (SELECT min(id) FROM games)",
            "UPDATE games SET status = 'won' WHERE id = (SELECT min(id) FROM games)",
            "UPDATE games SET winners = '{}' WHERE id = (SELECT max(id) FROM games)",
            "UPDATE entries SET lines = 7 WHERE seq = 5",
            "UPDATE games SET head = head + 50 WHERE id = (SELECT max(id) FROM games)",
            "UPDATE games SET game = 'chess' WHERE id = (SELECT max(id) FROM games)",
            "UPDATE games SET touched = touched + 1000",
            "DROP TABLE entries",
        ] if self.cell.artifact != "changes" else [
            "UPDATE backup_copy SET touched = 'x'",
            "UPDATE backup_game SET since = -3",
            "UPDATE backup_game SET game = 'x'",
            "DROP TABLE backup_copy",
            "UPDATE games SET header = 5",
        ]
        self.rng.shuffle(spoils)
        db = sqlite3.connect(path, isolation_level=None)
        try:
            db.execute("PRAGMA ignore_check_constraints = ON")
            for spoil in spoils:
                before = db.total_changes
                try:
                    db.execute(spoil)
                except sqlite3.Error:
                    continue
                if db.total_changes > before or spoil.startswith("DROP"):
                    self.notes.append(f"wrong values: {spoil}")
                    return
        finally:
            db.close()
        raise AssertionError(f"no spoil changed {path}")

    def damage_rows(self) -> None:
        """The fault in a checkpoint row, the dice audit's rows or where a roll shown one
        by one stands, in place."""
        fault = self.cell.fault
        table, column, key = ROW_TABLES[self.cell.artifact]
        db = sqlite3.connect(self.state / STORE, isolation_level=None)
        try:
            # Keys read as stored: an earlier fault (a chaos lane's) may have left one that is
            # not UTF-8, which cannot be bound again as text: that row is damaged already.
            db.text_factory = bytes
            keys = [(game, value.decode() if isinstance(value, bytes) else value)
                    for game, value in db.execute(f"SELECT game, {key} FROM {table}")
                    if not isinstance(value, bytes) or utf8(value)]
            db.text_factory = str
            if not keys:  # every row's key garbled by an earlier fault (a chaos lane's)
                raise Skip(f"no row of {table} with a key that can be read")
            where = f"game = ? AND {key} = ?"
            chosen = keys if table == "rolls" and fault != "bitflips" else [self.rng.choice(keys)]
            spoiled: set[str] = set()
            for row in chosen:
                if fault == "missing":
                    db.execute(f"DELETE FROM {table} WHERE {where}", row)
                elif fault == "empty":
                    db.execute(f"UPDATE {table} SET {column} = '' WHERE {where}", row)
                elif fault == "truncated":
                    db.execute(f"UPDATE {table} SET {column} = substr({column}, 1,"
                               f" length({column}) / 2) WHERE {where}", row)
                elif fault == "bitflips":
                    raw = db.execute(f"SELECT CAST({column} AS BLOB) FROM {table} WHERE {where}",
                                     row).fetchone()[0]
                    flipped = bytearray(raw)
                    if not flipped:
                        continue  # an empty value has no bit to flip
                    at = self.rng.randrange(len(flipped) * 8)
                    flipped[at // 8] ^= 1 << (at % 8)
                    if table == "rolls":  # still text: a roll to every reader (an undone one)
                        self.unread = utf8(bytes(flipped))
                    db.execute(f"UPDATE {table} SET {column} = CAST(? AS TEXT) WHERE {where}",
                               (bytes(flipped), *row))
                    if table == "reveals" and db.execute(  # the column's affinity made it a number
                            f"SELECT typeof({column}) FROM {table} WHERE {where}", row).fetchone()[0] == "integer":
                        self.unread = True
                        self.notes.append("the flipped digit is another whole number: nothing can tell it "
                                          "from the line the table saw last (a roll's lines shown from "
                                          "another of them; every line is stored, and in the Log)")
                elif fault == "wrong":
                    spoil = self.rng.choice(
                        [f"{column} = 7", f"{column} = x'ff00'", "engine = 'other 1'",
                         f"{key} = {key} + 1000"] if table == "checkpoints" else
                        ["shown = 'x'", "shown = x'01'", "shown = -1", "shown = 2.5", "seq = 0",
                         "seq = 'x'"] if table == "reveals" else
                        [f"{column} = 7", f"{column} = x'ff00'", "seq = -4", "again = 9",
                         "seq = 'x'", f"{column} = 'Ann pick move-99'", "n = CAST(x'41f3' AS TEXT)",
                         "n = 9223372036854775807", "again = CAST(x'f3' AS TEXT)", "seq = x'f3'"])
                    try:
                        db.execute(f"UPDATE {table} SET {spoil} WHERE {where}", row)
                        spoiled.add(spoil)
                    except sqlite3.IntegrityError:
                        pass
            if spoiled:
                self.notes.append(f"wrong {table}: {', '.join(sorted(spoiled))}")
        finally:
            db.close()

    def hold(self) -> Callable[[], None] | None:
        """A second process holds the artifact."""
        name = self.cell.artifact
        if name == "statedir":  # a second companion, running on the directory
            return self.second_companion()
        if name in ("lock", "config"):
            path = self.state / "companion.lock" if name == "lock" else self.config
            handle = os.open(path, os.O_RDWR | os.O_CREAT)
            fcntl.flock(handle, fcntl.LOCK_EX)
            if name == "lock":
                os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
                os.ftruncate(handle, len(f"{os.getpid()}\n"))
            self.holder = handle
            return self.let_go
        # an SQLite file: a reader in the log, or the write lock held for a while
        path = self.path() if name not in ("wal", "shm") else self.state / STORE
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        if name in ("wal", "shm"):
            db.execute("BEGIN")
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        else:
            db.execute("BEGIN IMMEDIATE")
            self.hold_for = HOLD
        self.holder = db
        return None

    def let_go(self) -> None:
        holder, self.holder = self.holder, None
        if holder is None:
            return
        if isinstance(holder, int):
            os.close(holder)
        elif isinstance(holder, sqlite3.Connection):
            with contextlib.suppress(sqlite3.Error):
                holder.execute("ROLLBACK")
            holder.close()
        else:  # the second companion
            self.first_gone(holder)

    def read_only(self) -> Callable[[], None]:
        """The file system holding the artifact turns read-only (as Linux remounts one
        after an error): a bind mount of its directory, in this mount namespace."""
        where = self.config.parent if self.cell.artifact == "config" else self.state
        self.notes.append(f"{where} mounted read-only")
        subprocess.run(["mount", "--bind", str(where), str(where)], check=True)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(where)], check=True)
        return lambda: subprocess.run(["umount", str(where)], check=True)



class CellRun(Faults):
    """One cell, run: the fault made, every way in, the fault undone where a person would,
    and what broke an invariant (:attr:`violations`)."""

    def __init__(self, cell: Cell, baseline: pathlib.Path, work: pathlib.Path, seed: int) -> None:
        from tests.harness import Tty

        self.cell = cell
        self.fault = FAULTS[cell.fault]
        self.artifact = ARTIFACTS[cell.artifact]
        self.rng = random.Random(f"{seed}-{cell.id}")
        self.work = work
        self.base = Baseline.load(baseline)
        self.state = work / "state"
        # into a file system mounted there for the cell, if one is
        shutil.copytree(baseline / "state", self.state, symlinks=True, dirs_exist_ok=True)
        self.config = work / "etc" / "companion.toml"  # a directory of its own, as /etc/companion
        self.config.parent.mkdir()
        self.port = free_port()
        self.tty = Tty(work / "console")
        self.tty.plug()
        self.write_config()
        self.games = [Game(g.gid, list(g.header), list(g.lines), list(g.undone)) for g in self.base.games]
        self.new: list[Game] = []  # the games started in this cell
        self.must = kept(cell, self.base)
        self.violations: list[str] = []
        self.notes: list[str] = []
        self.outcomes: list[Outcome] = []
        self.starts = 0
        self.prefix: list[str] = []
        self.console = True  # whether the configuration has the console (it is not the fault)
        self.holder: Any = None  # what holds the artifact (the "held" fault), to let go
        self.hold_for: float | None = None  # seconds the store's lock is held after a start
        self.first_tty: Any = None
        self.unread = False  # the fault changed nothing SQLite reads (bit flips in free space)

    def write_config(self) -> None:
        self.config.write_text(
            f'[serial]\nports = [{{ path = "{self.tty.link}" }}]\n'
            f'[phone]\nenabled = false\naddress = "127.0.0.1"\nport = {self.port}\n')

    def close(self) -> None:
        if self.holder is not None:
            with contextlib.suppress(Exception):
                self.let_go()
        with contextlib.suppress(OSError):
            self.tty.unplug()

    def violation(self, text: str) -> None:
        self.violations.append(text)

    # --- the run ---

    def run(self) -> None:
        heal = self.inject()
        self.check_ways(before=True)
        self.start()
        if heal is not None:
            heal()
            self.prefix = []
            self.notes.append("fault undone")
            self.console = True
            if not self.start(again=True):
                self.violation("after the fault was undone the daemon did not reach a screen")
        self.check_store()

    def start(self, again: bool = False) -> bool:
        """Start the daemon as systemd would (restarted after exit 1, up to
        :data:`RETRIES` times); play when it is up. Whether it reached a screen."""
        for _ in range(RETRIES):
            if self.hold_for is not None:  # let go of the store a while after the start
                timer = threading.Timer(self.hold_for, self.let_go)
                timer.daemon = True
                timer.start()
                self.hold_for = None
            daemon = Daemon(self, self.prefix)
            outcome = daemon.wait_ready()
            self.outcomes.append(outcome)
            self.check_traceback(f"daemon start {self.starts}", outcome.log)
            if outcome.reached:
                self.notes.append(f"start {self.starts}: screen after {outcome.dark:.1f}s")
                if daemon.talking:
                    self.play(daemon)
                elif self.console:
                    self.violation("the daemon is up but its console never answered")
                code = daemon.stop()
                self.check_traceback(f"daemon start {self.starts}", daemon.log())
                if code != 0:
                    self.violation(f"a clean stop (SIGTERM) exited {code}: "
                                   f"{daemon.log().strip().splitlines()[-3:]}")
                return True
            self.notes.append(f"start {self.starts}: exit {outcome.code}: "
                              f"{outcome.said[-1] if outcome.said else '(nothing said)'}")
            if outcome.code is None:
                self.violation(f"dark: no screen and no exit within {PATIENCE:.0f}s")
                return False
            if outcome.code not in (1, 2):
                self.violation(f"the daemon died ({outcome.code}): {outcome.said[-3:]}")
                return False
            self.check_one_line(outcome)
            if outcome.code == 2 or (self.fault.passing and not again):
                return False  # refused for good, or until the file system comes back
        self.violation(f"crash loop: {RETRIES} starts in a row exited 1 ({self.outcomes[-1].said[-1:]})")
        return False

    def check_one_line(self, outcome: Outcome) -> None:
        if len(outcome.said) != 1:
            self.violation(f"exit {outcome.code} with {len(outcome.said)} lines, not one: "
                           f"{outcome.said[-1:]}")
            return
        if not any(word in outcome.said[0] for word in (*self.artifact.words, str(self.state))):
            self.violation(f"the exit's line does not name the {self.cell.artifact}: {outcome.said[0]}")

    def check_traceback(self, where: str, text: str) -> None:
        found = TRACEBACK.search(text)
        if found:
            lines = text[found.start():].splitlines()
            last = next((i for i, line in enumerate(lines) if i and line and not line[0].isspace()
                         and not line.startswith(("Traceback", "During", "The above"))), len(lines) - 1)
            where_raised = [line.strip() for line in lines[:last] if line.strip().startswith("File")][-2:]
            self.violation(f"a traceback in {where}: {lines[last] if lines else ''} "
                           f"(at {' / '.join(where_raised)})")

    # --- playing on the running daemon ---

    def play(self, daemon: Daemon) -> None:
        """Resume, log the next entry, start a new game with one entry, look at the phone
        view; then (for a disk that fills in play) the same refused and accepted."""
        if not self.console:
            return
        self.check_resumed(daemon)
        if self.cell.fault == "full-mid":
            self.fill_mid(daemon)
        self.next_entry(daemon)
        if not self.new:
            self.new_game(daemon)
        self.check_copies()
        self.check_phone()

    def check_copies(self) -> None:
        """Every acknowledged entry is in the backup copies while the daemon runs (each is
        copied before it is answered), by this module's own reading of them."""
        held = copies_hold(self.state)
        for game in self.games:
            need = min(self.must.get(game.gid, len(game.lines)), len(game.lines))
            copied = prefix(held.get(game.gid, []), game.lines)
            if copied < need:
                self.violation(f"game {game.gid}: {need - copied} acknowledged entries in no "
                               f"copy ({copied} of {len(game.lines)})")

    def stored(self) -> dict[int, tuple[list[str], list[str]]] | None:
        """Every stored game, read directly: its header and its lines in force."""
        path = self.state / STORE
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        except sqlite3.Error:
            return None
        try:
            games = db.execute("SELECT id, header, head FROM games ORDER BY id").fetchall()
            return {gid: (str(header).split("\n"), [line for (text,) in db.execute(
                "SELECT lines FROM entries WHERE game = ? AND seq <= ? ORDER BY seq", (gid, head))
                for line in str(text).split("\n")]) for gid, header, head in games}
        except sqlite3.Error:
            return None
        finally:
            db.close()

    def on_screen(self) -> Game | None:
        """The game the daemon resumes: the latest acknowledged one not over (the store
        knows which is latest; the new game is, once started)."""
        return self.new[-1] if self.new else self.games[-1] if self.games else None

    def check_resumed(self, daemon: Daemon) -> None:
        from companion.record import replay_text, summary

        game = self.on_screen()
        stored = self.stored()
        if game is None or stored is None or game.gid not in stored:
            return
        lines = stored[game.gid][1]
        answer = daemon.ask("state")
        if answer is None or not answer.startswith("ok "):
            self.violation(f"'state' after resuming: {answer}")
            return
        expected = summary(replay_text("\n".join(game.header + lines) + "\n"))
        if json.loads(answer[3:]) != json.loads(json.dumps(expected)):
            self.violation(f"the resumed game {game.gid} is not what its {len(lines)} stored "
                           f"lines replay to")

    def ack(self, daemon: Daemon, line: str) -> bool:
        answer = daemon.ask(line)
        return answer is not None and answer.startswith("ok")

    def next_entry(self, daemon: Daemon) -> None:
        """The next line of the game on screen, from its record."""
        game = self.on_screen()
        stored = self.stored()
        if game is None or stored is None or game.gid not in stored:
            return
        done = stored[game.gid][1]
        name = next(n for n, _ in GAMES if record_lines(n)[0] == game.header)
        _, lines = record_lines(name)
        if len(done) >= len(lines) or done != lines[:len(done)]:
            return
        if self.ack(daemon, lines[len(done)]):
            self.acknowledged(game, done, lines[len(done)])

    def acknowledged(self, game: Game, stored: list[str], line: str) -> None:
        """``line`` acknowledged after the ``stored`` lines of ``game``. Where the store
        holds fewer than were acknowledged (lost: :meth:`check_store` says whether that
        was allowed), the line is the one acknowledged there before, from the same record."""
        if len(stored) >= len(game.lines):
            game.lines[:] = stored + [line]

    def new_game(self, daemon: Daemon) -> None:
        header, lines = record_lines(GAMES[0][0])
        before = set(self.stored() or {})
        if not all(self.ack(daemon, line) for line in header):
            self.notes.append("the new game was refused")
            return
        made = sorted(set(self.stored() or {}) - before)
        if not made:
            self.violation("a new game acknowledged but not stored")
            return
        game = Game(made[-1], header, [])
        self.games.append(game)
        self.new.append(game)
        if self.ack(daemon, lines[0]):
            game.lines.append(lines[0])

    def fill_mid(self, daemon: Daemon) -> None:
        """The disk fills in play: an entry is refused, and taken once there is room."""
        filler = fill_up(self.state)
        game = self.on_screen()
        stored = self.stored()
        if game is not None and stored is not None and game.gid in stored:
            done = stored[game.gid][1]
            name = next(n for n, _ in GAMES if record_lines(n)[0] == game.header)
            line = record_lines(name)[1][len(done)]
            answer = daemon.ask(line)
            if answer is None:
                self.violation("the daemon died when the disk filled in play")
            elif answer.startswith("ok"):
                self.acknowledged(game, done, line)  # room enough after all
            elif "not saved" not in answer:
                self.violation(f"a full disk's refusal does not say so: {answer}")
        filler.unlink()

    def check_phone(self) -> None:
        """The phone view's page and each game's downloads, when the view is on."""
        routes = ["", "games", "record", *(f"games/{g.gid}.record" for g in self.games),
                  *(f"games/{g.gid}.json" for g in self.games)]
        for route, status in phone_answers(self.state, self.port, routes):
            if status >= 500:
                self.violation(f"the phone view answered {status} for /{route}")

    # --- what is the cell's own in its faults ---

    def second_companion(self) -> Callable[[], None] | None:
        from tests.harness import Tty

        first = Daemon(self, [])
        outcome = first.wait_ready()
        if not outcome.reached:
            self.violation(f"the first daemon did not start: {outcome.said}")
            return None
        self.holder = first
        self.first_tty, self.tty = self.tty, Tty(self.work / "console-2")
        self.tty.plug()  # the second one's starts talk to nobody
        return self.let_go

    def first_gone(self, holder: Any) -> None:
        holder.stop()
        self.tty.unplug()
        self.tty = self.first_tty

    # --- the ways that only read ---

    def check_ways(self, before: bool) -> None:
        scratch = self.work / "ways"
        scratch.mkdir(exist_ok=True)
        gids = [g.gid for g in self.games]
        command = [*self.prefix, PYTHON, "-m", "tests.faultmatrix", "--ways", str(self.state),
                   str(self.config), ",".join(map(str, gids)), str(scratch)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=ENV, cwd=ROOT,
                                  timeout=PATIENCE, check=False)
        except subprocess.TimeoutExpired:
            self.violation("games, export, replay or doctor hung")
            return
        self.check_traceback("the helper running the commands", done.stderr)
        try:
            results = json.loads(done.stdout)
        except ValueError:
            self.violation(f"the commands' helper failed (exit {done.returncode}): {done.stderr[-800:]}")
            return
        for name, result in results.items():
            self.check_traceback(name, result["out"] + result["err"])
            if result["code"] not in (0, 1, 2):
                self.violation(f"{name} exited {result['code']}")
            elif result["code"] and name != "doctor" and not [
                    line for line in result["err"].splitlines()
                    if not line.startswith(("INFO ", "WARNING "))]:
                self.violation(f"{name} exited {result['code']} without a word")
        for name, result in results.items():
            if name.startswith("replay-") and result["code"] != 0:
                self.violation(f"what export wrote does not replay: {result['err'].strip()}")
        if before:
            self.check_doctor(results.get("doctor", {}).get("out", ""))

    def check_doctor(self, report: str) -> None:
        """With the fault in place, doctor says warn or fail on a line naming it (for a
        fault of the file system, any of its lines about the state will do)."""
        if self.cell.harmless or self.cell.fault == "full-mid":  # full only later, in play
            return
        if self.unread:
            self.notes.append("the damage fell where nothing reads it (SQLite reads the same "
                              "rows): doctor may say ok")
            return
        areas = ("config",) if self.cell.artifact == "config" else ("store", "state")

        def names(line: str) -> bool:
            if self.cell.fault in FILESYSTEM and line.split()[1:2] and line.split()[1] in areas:
                return True
            return any(word in line for word in (*self.artifact.words, str(self.state)))

        flagged = [line for line in report.splitlines() if line.startswith(("warn", "fail"))
                   and names(line)]
        if not flagged:
            store_lines = [line for line in report.splitlines()
                           if line.split()[1:2] in (["store"], ["config"], ["state"])]
            self.violation(f"doctor does not flag the {self.cell.artifact}: {store_lines}")

    # --- after ---

    def check_store(self) -> None:
        """Every acknowledged line is stored, in order (but those the fault destroyed), and
        after a clean stop the newest copy is one salvage could restore from."""
        stored = self.stored()
        if stored is None:
            self.violation("the store cannot be read after the run")
            return
        if self.outcomes and self.outcomes[-1].reached and not restorable(self.state):
            self.violation("after a clean stop the newest whole copy cannot be restored from")
        for game in self.games:
            need = self.must.get(game.gid, len(game.lines))
            header, lines = stored.get(game.gid, (None, []))
            if need == 0 and header is None:
                continue
            if header is not None and header != game.header:
                self.violation(f"game {game.gid}: header {header} is not {game.header}")
                continue
            if lines[:len(game.lines)] != game.lines[:len(lines)] or len(lines) < need:
                same = next((i for i, (a, b) in enumerate(zip(lines, game.lines)) if a != b),
                            min(len(lines), len(game.lines)))
                self.violation(f"game {game.gid}: {len(game.lines)} lines acknowledged, "
                               f"{need} must be kept, {same} stored as acknowledged")
            extra = lines[len(game.lines):]
            if extra and not (need < len(game.lines) and extra == game.undone[:len(extra)]):
                # (where the fault excuses losses, the undo may be what was lost)
                self.violation(f"game {game.gid}: lines never acknowledged: {extra[:3]}")

def restorable(state: pathlib.Path) -> bool:
    """Whether the newest whole copy in ``state`` (the highest ``backup-N``, if any) and
    the copies in its changes can all be restored from: SQLite files that SQLite's quick
    check finds sound (read as they are), the changes' numbers whole numbers."""
    numbered = [(int(p.name.rsplit("-", 1)[1]), p) for p in state.glob(f"{STORE}.backup-*")
                if p.name.rsplit("-", 1)[1].isdigit() and p.is_file()]
    if not numbered:
        return True
    newest = max(numbered)[1]
    if newest.read_bytes()[:16] != b"SQLite format 3\0":
        return False
    changes = newest.with_name(newest.name + ".changes")
    checks = ["SELECT 0"] if not changes.is_file() else [
        "SELECT count(*) FROM backup_copy WHERE typeof(copy) != 'integer' OR typeof(touched) != 'integer'",
        "SELECT count(*) FROM backup_game WHERE typeof(copy) != 'integer' OR typeof(game) != 'integer'"
        " OR (since IS NOT NULL AND (typeof(since) != 'integer' OR since < 1))"]
    try:
        for path, queries in ((newest, ["SELECT 0"]), (changes, checks)):
            if not path.is_file():
                continue
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                    return False
                if any(db.execute(query).fetchone()[0] for query in queries):
                    return False
            finally:
                db.close()
    except sqlite3.DatabaseError:
        return False
    return True


def parses(toml: bytes) -> bool:
    """Whether the bytes are a TOML document."""
    import tomllib

    try:
        tomllib.loads(toml.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return True


def phone_answers(state: pathlib.Path, port: int, routes: list[str]) -> list[tuple[str, int]]:
    """Each route of the phone view (under the token ``phone.json`` holds) with the status
    it answered; none from the first that gets no answer (the view is off: its choices
    lost, or its port taken)."""
    try:
        token = json.loads((state / "phone.json").read_text()).get("token")
    except (OSError, ValueError, AttributeError):
        return []
    answers = []
    for route in routes:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", f"/{token}/{route}")
            answers.append((route, conn.getresponse().status))
            conn.close()
        except OSError:
            break
    return answers


def fill_up(directory: pathlib.Path) -> pathlib.Path:
    """Every free byte of the file system in one file (ENOSPC from now on)."""
    from tests.faults import fill_up as fill

    return fill(directory)


# --- running a cell, in a namespace of its own where it needs one ---


@dataclass
class Findings:
    cell: str
    violations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: str = ""

    def report(self) -> str:
        lines = [f"cell {self.cell}" + (f": skipped ({self.skipped})" if self.skipped else "")]
        lines += [f"  VIOLATION {v}" for v in self.violations]
        lines += [f"  note {n}" for n in self.notes]
        return "\n".join(lines)


def run_cell(cell: Cell, baseline: pathlib.Path, work: pathlib.Path, seed: int = 0) -> Findings:
    """Run ``cell`` on a copy of ``baseline`` in ``work``; inside a user and mount namespace
    of its own where the fault needs one (the cell re-runs itself there)."""
    if FAULTS[cell.fault].mount and os.environ.get("COMPANION_MATRIX_INSIDE") != "1":
        return in_namespace(cell, baseline, work, seed)
    findings = Findings(cell.id)
    try:
        run = CellRun(cell, baseline, work, seed)
    except Skip as why:
        findings.skipped = str(why)
        return findings
    try:
        run.run()
    except Skip as why:
        findings.skipped = str(why)
    except Exception:  # the harness's own failure: a finding, and the other cells go on
        import traceback

        run.violation(f"the cell itself failed: {traceback.format_exc()}")
    finally:
        run.close()
    findings.violations, findings.notes = run.violations, run.notes
    return findings


def namespace_command() -> list[str] | None:
    """``unshare`` into a user and mount namespace, or None where the machine refuses."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    probe = subprocess.run([unshare, "-rm", "true"], capture_output=True, check=False)
    return [unshare, "-rm"] if probe.returncode == 0 else None


def in_namespace(cell: Cell, baseline: pathlib.Path, work: pathlib.Path, seed: int) -> Findings:
    unshare = namespace_command()
    if unshare is None:
        return Findings(cell.id, skipped="this machine allows no user and mount namespaces")
    (work / "state").mkdir(parents=True, exist_ok=True)
    script = ""
    if cell.fault.startswith("full"):
        # the state directory on a small file system of its own (the logs stay outside,
        # as the journal does)
        size = sum(p.stat().st_size for p in (baseline / "state").rglob("*") if p.is_file())
        script = f'mount -t tmpfs -o size={size // 1024 + 512}k tmpfs "$0" && '
    command = [*unshare, "sh", "-c", script + 'exec "$@"', str(work / "state"), PYTHON, "-m",
               "tests.faultmatrix", cell.id, "--baseline", str(baseline), "--work", str(work),
               "--seed", str(seed), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**ENV, "COMPANION_MATRIX_INSIDE": "1"}, check=False)
    try:
        return Findings(**json.loads(done.stdout))
    except (ValueError, TypeError):
        return Findings(cell.id, violations=[f"the cell's namespace run failed: "
                                             f"{done.stderr[-1500:]}"])


@contextlib.contextmanager
def baselines(top: pathlib.Path) -> Iterator[dict[str, pathlib.Path]]:
    """Both baselines, built once under ``top``."""
    made = {}
    for kind in BASELINES:
        where = top / f"baseline-{kind}"
        if not (where / "acks.json").exists():
            build_baseline(where, kind)
        made[kind] = where
    yield made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cells", nargs="*", help="cells to run (ARTIFACT-FAULT-BASELINE)")
    parser.add_argument("--list", action="store_true", help="list every cell and exit")
    parser.add_argument("--all", action="store_true", help="run every cell")
    parser.add_argument("--sample", type=int, metavar="SEED", help="run the suite's sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="cells run at once")
    parser.add_argument("--baseline", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ways", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ways:
        state, config, gids, scratch = args.ways
        results = ways(state, config, [int(g) for g in gids.split(",") if g], scratch)
        sys.stdout.write(json.dumps(results))
        return 0
    if args.list:
        for a in ARTIFACTS:
            for f in FAULTS:
                for b in BASELINES:
                    why = applies(a, f, b)
                    print(f"{Cell(a, f, b).id:32} {'-- ' + why if why else 'cell'}")
        return 0
    cells = (product() if args.all else sample(args.sample) if args.sample is not None
             else [Cell.parse(text) for text in args.cells])
    if args.baseline:  # one cell, inside its namespace
        (cell,) = cells
        found = run_cell(cell, pathlib.Path(args.baseline), pathlib.Path(args.work), args.seed)
        print(json.dumps(asdict(found)))
        return 0
    from concurrent.futures import ThreadPoolExecutor

    failed = 0
    ram = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # as the suite's own files
    with tempfile.TemporaryDirectory(prefix="faultmatrix-", dir=ram) as scratch:
        top = pathlib.Path(scratch)
        with baselines(top) as made, ThreadPoolExecutor(args.jobs) as pool:
            runs = [pool.submit(run_cell, cell, made[cell.baseline], top / f"cell-{number}",
                                args.seed) for number, cell in enumerate(cells)]
            for running in runs:
                found = running.result()
                print(found.report(), flush=True)
                failed += bool(found.violations)
    print(f"{len(cells)} cells, {failed} with violations")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
