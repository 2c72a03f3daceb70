"""``companion bench``: what a press costs, measured through the real loop, and printed.

The benchmark session is the records in ``companion/benchdata`` (whole Microbot races and a
game of each other game), typed in through the screens by :class:`~companion.ui.driver.Driver`
one press at a time, exactly as a joystick user would. Every frame goes to luma's own
ssd1306 and sh1106 drivers and to ours, each over a byte-counting model of the controller,
so the figures are bytes on the bus, not guesses. Timings are for this machine; bus times
follow from the bytes (9 clock cycles a byte on I2C).

Benchmarks print figures; the test suite never asserts on timings.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pathlib
import queue
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from luma.oled.device import sh1106, ssd1306
from PIL import Image

from companion import checkpoint
from companion.backup import REBASE, Backups, changes_of, copies, keep_copies
from companion.benchgames import generated_session
from companion.config import Config, PhoneConfig
from companion.daemon import Daemon
from companion.games import GAMES
from companion.games.base import Choice, Line, Roll, usable
from companion.intents import Intent
from companion.io.controller import Controller, Counter
from companion.io.display import NoDisplay, Output
from companion.io.keylogic import KeyLogic
from companion.io.pages import PAGED
from companion.io.testing import context_switches
from companion.phone import PhoneView
from companion.record import Header, Replayed, format_record, replay_text
from companion.session import Session
from companion.statedir import STORE_FILE
from companion.store import Store, sum_all
from companion.ui.app import App
from companion.ui.driver import Driver
from companion.web.server import MAX_PAGES

FULL_FRAME = {"ssd1306": 1030, "sh1106": 1048}
I2C_RATES = (100_000, 400_000)
BITS_PER_BYTE = 9  # eight data bits and the acknowledge
LONG_GAME = 10_000
HUGE_GAME = 100_000  # replay's memory must not grow with the record
REPLAY_PAIRS = 5  # whole-process runs of replay and of the reference engine, taken in turn
#: The yardstick for ``companion replay``: a plain program, shipped as data beside the
#: benchmark's records (it is no module of the companion's), run as a process of its own.
REFERENCE = "reference_replay.py"
#: Capture mode's scripted presses: a Microbot race set up, P1 rolled, the first picks.
CAPTURE_KEYS = "select select select select select roll select select"
#: The seeds of the games bench makes of each game (tests/test_presses.py makes others).
BENCH_SEEDS = range(1, 11)
#: Seconds between presses at a table: long enough for an entry's result to go by itself
#: (after RESULT_SECONDS) before the next press, as it does when people play.
TABLE_PACE = 3.0


def bench_data() -> Traversable:
    """The benchmark's data in the installed package (the session's records, the reference
    engine), wherever the package is: a source tree or an installed wheel."""
    return resources.files("companion") / "benchdata"


def session_records() -> list[Replayed]:
    """The checked-in benchmark session."""
    folder = bench_data()
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".record"))
    return [replay_text((folder / name).read_text(encoding="utf-8")) for name in names]


# --- the session through the real loop ---


class Panels(NoDisplay):
    """One frame in, every controller and driver out: ours and luma's, both chips."""

    def __init__(self, with_stock: bool) -> None:
        self.models: dict[str, Counter] = {}
        self.devices: dict[str, Any] = {}
        stock = {"ssd1306": ssd1306, "sh1106": sh1106}
        for kind in stock if with_stock else ("ssd1306",):
            for who in ("ours", "luma") if with_stock else ("ours",):
                # The latency run only counts: rebuilding the picture is the tests' job.
                model = Controller(kind) if with_stock else Counter()
                make = PAGED[kind] if who == "ours" else stock[kind]
                self.models[f"{who} {kind}"] = model
                self.devices[f"{who} {kind}"] = make(serial_interface=model)
        self.shown_at = 0.0

    def bytes(self) -> dict[str, int]:
        return {name: model.total for name, model in self.models.items()}

    def wire(self) -> dict[str, tuple[int, int]]:
        """Bytes on the I2C wire so far, as luma frames them: its own bus, and a handed-in one."""
        return {name: (model.wire, model.wire_smbus) for name, model in self.models.items()}

    def display(self, image: Image.Image) -> None:
        for device in self.devices.values():
            device.display(image)
        self.shown_at = time.perf_counter()


class TimedStore(Store):
    """The real store, timing each durable transaction and what follows its commit before
    the press is answered (the entry's backup copy): the commit's share of a press."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.commit_seconds = 0.0
        self.commit_cpu = 0.0  # the calling thread's CPU time in them

    @contextmanager
    def _timed(self) -> Iterator[None]:
        started, cpu = time.perf_counter(), time.thread_time()
        yield
        self.commit_seconds += time.perf_counter() - started
        self.commit_cpu += time.thread_time() - cpu

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with self._timed(), super()._write() as db:
            yield db

    def _committed(self, gid: int, since: int | None, milestone: bool) -> None:
        with self._timed():
            super()._committed(gid, since, milestone)


@dataclass
class Interactions:
    """Per press: bytes each device received, latency, and the commit's share."""

    bytes: dict[str, list[int]] = field(default_factory=dict)
    wire: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    latency: list[float] = field(default_factory=list)
    what: list[str] = field(default_factory=list)  # per latency figure: the screen and the press
    net: list[float] = field(default_factory=list)  # per latency figure: without the commit
    cpu: list[float] = field(default_factory=list)  # per latency figure: the loop thread's CPU time
    cpu_net: list[float] = field(default_factory=list)  # the same without the commit's CPU time
    commit: list[float] = field(default_factory=list)
    frames_unchanged: int = 0
    redraw_bytes: int = 0
    page_events: int = 0  # snapshots the slowest open phone page received
    skipped: list[str] = field(default_factory=list)
    #: At table pace, frames the loop sent with no press, by cause ("result" going by
    #: itself, burn-in "shift"), then device: wire bytes as in ``wire``.
    alone: dict[str, dict[str, list[tuple[int, int]]]] = field(default_factory=dict)


class StepClock:
    """The loop's clock at table pace: it moves only when the bench moves it, so the
    bytes of a paced session are the same on any machine."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def play_session(records: list[Replayed], with_stock: bool, directory: pathlib.Path,
                 pages: int = 0, pace: float = 0.0) -> Interactions:
    """Type every record through the screens; measure each press. With ``pages``, the phone
    view is on and that many live pages follow the game. With ``pace``, presses are that many
    seconds apart on a clock of the bench's own, and what the loop shows meanwhile by itself
    (a result going, a burn-in shift) is counted apart, in ``alone``; without, presses
    follow each other at once on the real clock."""
    panels = Panels(with_stock)
    path = str(directory / f"bench-{with_stock}-{pages}.sqlite")
    store = TimedStore(path)
    backups = keep_copies(store)  # as the daemon: each entry copied before it is answered
    phone = None
    if pages:
        phone = PhoneView(PhoneConfig(True, "127.0.0.1", 0), None, path)
        phone.start()
    app = App(store, Config(), rng=random.Random(1), phone=phone)
    events: queue.Queue[object] = queue.Queue()
    output = Output(lambda: panels, shift=False)
    clock = StepClock()
    daemon = Daemon(app, output, events, KeyLogic(), clock=clock if pace else time.monotonic,
                    phone=phone)
    daemon.refresh()
    readers = ([PageReader(phone.url()) for _ in range(pages)]
               if phone is not None and phone.server is not None else [])
    settle(phone, readers)
    out = Interactions()

    def meanwhile(until: float) -> None:
        """The loop's wake-ups without a press until ``until``, each frame counted apart."""
        while (due := daemon.deadline()) is not None and due <= until:
            cause = "result" if due == app.deadline() else "shift"
            clock.now, before = max(clock.now, due), panels.wire()
            daemon.step(None)
            for name, (wire, smbus) in panels.wire().items():
                old_wire, old_smbus = before[name]
                out.alone.setdefault(cause, {}).setdefault(name, []).append(
                    (wire - old_wire, smbus - old_smbus))
        clock.now = until

    def press(intent: Intent) -> None:
        settle(phone, readers)  # presses at a table are far apart: the pages have caught up
        if pace:
            meanwhile(clock.now + pace)
        before, commits, frames = panels.bytes(), store.commit_seconds, output.frames_sent
        wire_before, screen = panels.wire(), type(app.top).__name__
        queued, cpu, commit_cpu = time.perf_counter(), time.thread_time(), store.commit_cpu
        events.put(intent)
        daemon.step(events.get_nowait())
        cpu = time.thread_time() - cpu
        if output.frames_sent == frames:
            out.frames_unchanged += 1
        else:
            out.latency.append(panels.shown_at - queued)
            out.net.append(out.latency[-1] - (store.commit_seconds - commits))
            out.cpu.append(cpu)
            out.cpu_net.append(cpu - (store.commit_cpu - commit_cpu))
            out.what.append(f"{intent.kind}{f' {intent.value}' if intent.value else ''} on {screen}"
                            f" -> {type(app.top).__name__}")
        out.commit.append(store.commit_seconds - commits)
        for name, total in panels.bytes().items():
            out.bytes.setdefault(name, []).append(total - before[name])
        for name, (wire, smbus) in panels.wire().items():
            old_wire, old_smbus = wire_before[name]
            out.wire.setdefault(name, []).append((wire - old_wire, smbus - old_smbus))

    driver = Driver(app, press)
    for replayed in records:
        driver.new_game(replayed.header)
        try:
            for line in replayed.actions:
                driver.line(line)
        except Exception as err:  # report, and go on with the rest of the session
            out.skipped.append(f"{replayed.header.game.id}: {err}")
        driver.leave_game()
    before = panels.bytes()
    daemon.refresh()  # the same screen again: nothing may go out
    out.redraw_bytes = sum(panels.bytes().values()) - sum(before.values())
    if phone is not None:
        out.page_events = min(reader.events for reader in readers)
        phone.stop()
        for reader in readers:
            reader.close()
    backups.stop()
    store.close()
    return out


@dataclass
class Typed:
    """The presses that typed one game's records in: on their lines (each game's own
    figure too, and by verb), and apart, setting each game up and leaving it."""

    presses: int = 0
    lines: int = 0
    setup: int = 0
    games: int = 0
    each: list[float] = field(default_factory=list)  # per record: presses a line
    verbs: dict[str, list[int]] = field(default_factory=dict)  # per verb: presses, lines
    skipped: list[str] = field(default_factory=list)  # records the box would not take, and why

    def per_line(self) -> float:
        return self.presses / max(1, self.lines)


def count_presses(records: Sequence[Replayed]) -> dict[str, Typed]:
    """Type every record in through the screens and count the presses, per game: the app
    alone over a store in memory (presses are counted, not timed: no frames, no fsync)."""
    store = Store(":memory:")
    app = App(store, Config(), rng=random.Random(1))
    presses = 0

    def press(intent: Intent) -> None:
        nonlocal presses
        presses += 1
        app.handle(intent)

    driver = Driver(app, press)
    found: dict[str, Typed] = {}
    try:
        for replayed in records:
            tally = found.setdefault(replayed.header.game.id, Typed())
            began = presses
            driver.new_game(replayed.header)
            tally.setup += presses - began
            began = presses
            try:
                for line in replayed.actions:
                    before = presses
                    driver.line(line)
                    verb = tally.verbs.setdefault(line.verb, [0, 0])
                    verb[0] += presses - before
                    verb[1] += 1
            except Exception as err:  # report, and go on with the rest
                tally.skipped.append(f"{replayed.header.game.id}: {err}")
            tally.presses += presses - began
            tally.lines += len(replayed.actions)
            tally.games += 1
            tally.each.append((presses - began) / max(1, len(replayed.actions)))
            began = presses
            driver.leave_game()
            tally.setup += presses - began
    finally:
        store.close()
    return found


def settle(phone: Any, readers: list[PageReader], most: float = 1.0) -> None:
    """Wait (at most ``most`` seconds) until every open page has the latest snapshot,
    asleep meanwhile (the loop's and the server's CPU time is what is measured)."""
    if phone is None or phone.server is None or not readers:
        return
    hub = phone.server.hub
    with PageReader.arrived:
        PageReader.arrived.wait_for(lambda: all(r.version >= hub.version for r in readers), most)


class PageReader:
    """A phone's live page: reads the event stream on a thread of its own until closed,
    counting the snapshots (each one a frame and the game's state) it was sent. Snapshots
    made in quick succession reach a page as the latest of them only."""

    arrived = threading.Condition()  # notified whenever any page has had a snapshot
    VERSION = re.compile(rb'^data: \{"version":([0-9]+)', re.MULTILINE)  # an unnamed event: a snapshot

    def __init__(self, url: str) -> None:
        where = urllib.parse.urlsplit(url.lower())
        token = url.rstrip("/").rsplit("/", 1)[1]
        self.sock = socket.create_connection(("127.0.0.1", where.port or 80), timeout=30)
        self.sock.sendall(f"GET /{token}/events HTTP/1.1\r\nHost: box\r\n\r\n".encode())
        self.events = 0
        self.version = 0  # the latest snapshot it has
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        rest = b""
        try:
            while chunk := self.sock.recv(65536):
                *done, rest = (rest + chunk).split(b"\n\n")
                versions = [int(found[1]) for event in done if (found := PageReader.VERSION.search(event))]
                if versions:
                    with PageReader.arrived:
                        self.events += len(versions)
                        self.version = max(versions)
                        PageReader.arrived.notify_all()
        except OSError:
            pass

    def cpu(self) -> float:
        """The CPU time this page's thread has used (it is not the daemon's)."""
        assert self.thread.ident is not None
        try:
            return time.clock_gettime(time.pthread_getcpuclockid(self.thread.ident))
        except OSError:  # the thread has ended
            return 0.0

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=5)


ENTRIES = 200  # entries typed into the long game for its cost per entry


def entry_costs(work: pathlib.Path, pages: int | None) -> list[float]:
    """The daemon's CPU time (its loop and the phone view's threads, not the pages') for
    each of :data:`ENTRIES` entries typed into a :data:`LONG_GAME`-entry game, until every
    open page has it. ``pages``: None with the view off."""
    header, lines = long_race(LONG_GAME + ENTRIES)
    state = work / f"entries-{pages}"
    store_long_game(state, header, lines[:LONG_GAME])
    store = Store(str(state / STORE_FILE))
    phone = PhoneView(PhoneConfig(True, "127.0.0.1", 0), None, store.path) if pages is not None else None
    if phone is not None:
        phone.start()
    app = App(store, Config(), rng=random.Random(1), phone=phone)
    events: queue.Queue[object] = queue.Queue()
    panels = Panels(with_stock=False)
    daemon = Daemon(app, Output(lambda: panels, shift=False), events, KeyLogic(), phone=phone)
    assert app.open(store.games()[0].id)
    daemon.refresh()
    readers = ([PageReader(phone.url()) for _ in range(pages or 0)]
               if phone is not None and phone.server is not None else [])

    def daemon_cpu() -> float:
        return time.process_time() - sum(reader.cpu() for reader in readers)

    def press(intent: Intent) -> None:
        events.put(intent)
        daemon.step(events.get_nowait())

    driver, costs = Driver(app, press), []
    for line in lines[LONG_GAME:]:
        settle(phone, readers)
        before = daemon_cpu()
        driver.line(line)
        settle(phone, readers)
        costs.append(daemon_cpu() - before)
    if phone is not None:
        phone.stop()
    for reader in readers:
        reader.close()
    store.close()
    return costs


def report_entry_costs(work: pathlib.Path) -> None:
    """What an entry costs the daemon in a long game, the view off, on with no page
    open, and on with every page open (each page is sent only what changed)."""
    for pages, what in ((None, "phone view off"), (0, "view on, no page open"),
                        (MAX_PAGES, f"view on, {MAX_PAGES} pages open")):
        costs = Spread.of([1000 * cpu for cpu in entry_costs(work, pages)])
        print(f"    {what}: {costs.show(' ms', 2)}")


# --- the process: idle CPU, start-up, memory ---


@dataclass(frozen=True)
class Started:
    seconds_to_ready: float
    peak_rss_mb: float
    cpu_seconds: float  # the daemon's own CPU time to its first frame (steadier under load)


def companion_command(state: pathlib.Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "companion", "run", "--emulator", "none", "--state", str(state), *extra]


def compiled(work: pathlib.Path) -> dict[str, str]:
    """The environment of a measured process, its compiled bytecode kept in the bench's
    scratch directory: it is measured with it, as on a Pi (pip compiles it when it installs
    the package), whether or not this machine lets Python write it beside the sources."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(work / "bytecode")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def start_up(state: pathlib.Path) -> Started:
    """Process start to the first frame (the 'ready' log line), with the daemon's peak
    resident memory and CPU time by then.

    The daemon runs as on a Pi, with the Bonnet's keys (on gpiozero's mock pins) and its
    bytecode compiled, and its figures are read from /proc while it runs. The rusage of a
    waited-for child would not do: its peak also counts the bench's own memory, which the
    child held between fork and exec (10-15 MB more than the daemon ever uses).
    """
    config = state.parent / "start.toml"
    config.write_text(IDLE_CONFIG)
    env = {**compiled(state.parent), "GPIOZERO_PIN_FACTORY": "mock"}
    started = time.perf_counter()
    child = subprocess.Popen(companion_command(state, "--config", str(config)),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=env)
    assert child.stderr is not None
    try:
        for line in child.stderr:
            if line.rstrip().endswith("companion.daemon: ready"):
                ready = time.perf_counter() - started
                return Started(ready, peak_rss_mb(child.pid), cpu_seconds(child.pid))
        raise RuntimeError("the companion did not start")
    finally:
        child.terminate()
        child.wait()


@dataclass(frozen=True)
class Idle:
    """What the daemon does while nobody touches it."""

    cpu_seconds: float
    wakeups: int  # context switches of all its threads: each one a wake-up or a preemption
    threads: int


#: The idle daemon's inputs: the Bonnet's 7 keys, as the default configuration has them.
IDLE_CONFIG = '[buttons]\npreset = "adafruit-bonnet"\n'


def idle_wakeups(work: pathlib.Path, seconds: float) -> Idle:
    """The daemon with the Bonnet's keys on gpiozero's mock pins, left alone for ``seconds``.

    It is the daemon as it runs on a Pi (the same inputs, the same gpiozero devices); only
    the pin factory is gpiozero's mock one, chosen by gpiozero's own environment variable.
    """
    config = work / "idle.toml"
    config.write_text(IDLE_CONFIG)
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    child = subprocess.Popen(companion_command(work / "idle", "--config", str(config)),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=env)
    assert child.stderr is not None
    try:
        for line in child.stderr:
            if "no GPIO buttons" in line:
                raise RuntimeError(f"the idle daemon has no buttons: {line.strip()}")
            if line.rstrip().endswith("ready"):
                break
        cpu, switches = cpu_seconds(child.pid), context_switches(child.pid)
        time.sleep(seconds)
        after = context_switches(child.pid)
        woken = sum(count - switches.get(tid, 0) for tid, count in after.items())
        return Idle(cpu_seconds(child.pid) - cpu, woken, len(after))
    finally:
        child.terminate()
        child.wait()




def report_phone_memory(work: pathlib.Path) -> None:
    """Peak resident memory of the daemon with the view off, and on with every page open."""
    with socket.socket() as probe:  # a free port for the view
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = work / "phone.toml"
    config.write_text(f'[phone]\nenabled = true\naddress = "127.0.0.1"\nport = {port}\n')
    figures = []
    for state, extra in ((work / "phone-off", ()), (work / "phone-on", ("--config", str(config)))):
        child = subprocess.Popen(companion_command(state, *extra), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert child.stderr is not None
        readers = []
        try:
            for line in child.stderr:
                if line.rstrip().endswith("ready"):
                    break
            if extra:
                token = json.loads((state / "phone.json").read_text())["token"]
                readers = [PageReader(f"HTTP://127.0.0.1:{port}/{token}/") for _ in range(MAX_PAGES)]
                time.sleep(1.0)  # every page has had its first snapshot
            figures.append(peak_rss_mb(child.pid))
        finally:
            for reader in readers:
                reader.close()
            child.terminate()
            child.wait()
    print(f"peak resident memory, phone view off: {figures[0]:.1f} MB; on with {MAX_PAGES} pages open: "
          f"{figures[1]:.1f} MB (+{figures[1] - figures[0]:.1f} MB)")


def peak_rss_mb(pid: int) -> float:
    """A running process's peak resident memory so far, from /proc."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc")


def cpu_seconds(pid: int) -> float:
    """User plus system time of a process, from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


SHORT_GAME = 100
STARTS = 3  # starts of each kind, the kinds taken in turn: one busy moment spoils no figure


def report_start(work: pathlib.Path, header: Header[Any, Any], lines: list[Line],
                 long: bool = True) -> dict[str, float]:
    """Start to the first frame: an empty store, a short game, and with ``long`` the long
    game (with the checkpoints playing it leaves, and as a store from before them first
    opens). Every start opens a fresh copy of its store; medians of :data:`STARTS` starts are
    printed, and the median peak memory of each kind is returned."""
    kinds = {"empty": "empty store", "short": f"resuming a {SHORT_GAME}-line game"}
    templates = work / "templates"
    (templates / "empty").mkdir(parents=True)
    store_long_game(templates / "short", header, lines[:SHORT_GAME])
    if long:
        kinds |= {"long": f"resuming a {len(lines)}-line game",
                  "upgraded": f"resuming a {len(lines)}-line game with no checkpoint yet (the first"
                              " start after an upgrade)"}
        store_long_game(templates / "long", header, lines)
        store_long_game(templates / "upgraded", header, lines, checkpoints=False)
    runs = work / "starts"

    def start(kind: str, number: int) -> Started:
        state = runs / f"{kind}-{number}"
        shutil.copytree(templates / kind, state)
        return start_up(state)

    start("short", 0)  # compiles the bytecode of all a resume loads: not measured
    found: dict[str, list[Started]] = {kind: [] for kind in kinds}
    for number in range(1, STARTS + 1):
        for kind in kinds:
            found[kind].append(start(kind, number))
    for kind, what in kinds.items():
        wall = [run.seconds_to_ready for run in found[kind]]
        cpu = statistics.median(run.cpu_seconds for run in found[kind])
        peak = statistics.median(run.peak_rss_mb for run in found[kind])
        print(f"start to first frame, {what}: median {statistics.median(wall):.2f} s ({min(wall):.2f}-"
              f"{max(wall):.2f} s over {STARTS}), daemon CPU {cpu:.2f} s; peak resident memory "
              f"{peak:.1f} MB")
    if not long:
        return {kind: statistics.median(run.peak_rss_mb for run in found[kind]) for kind in kinds}
    pairs = list(zip(found["long"], found["short"], strict=True))
    print(f"resuming {len(lines)} lines / {SHORT_GAME} lines, median of {STARTS} starts taken in turn: "
          f"{statistics.median(a.seconds_to_ready / b.seconds_to_ready for a, b in pairs):.2f}x wall, "
          f"{statistics.median(a.cpu_seconds / max(b.cpu_seconds, 1e-9) for a, b in pairs):.2f}x CPU")
    return {kind: statistics.median(run.peak_rss_mb for run in found[kind]) for kind in kinds}


# --- a long game ---


def long_race(lines: int, seed: int = 5) -> tuple[Header[Any, Any], list[Line]]:
    """A Microbot race that never ends (no hazards, impacts or laps): ``lines`` long."""
    game = GAMES["microbot-racers"]
    header = Header(game, ("Ann", "Bob"))
    rng = random.Random(seed)
    state, out = header.start(), list[Line]()
    while len(out) < lines:
        ask = game.prompt(state)
        assert ask is not None
        answer = rng.choice(usable(ask.answers))
        if isinstance(answer, Roll):
            line = answer.line(tuple(rng.randint(1, s) for s in answer.sides))
        elif isinstance(answer, Choice):
            line = answer.line
        else:
            raise TypeError(f"a Microbot race asks only for choices and dice, not {answer}")
        state = game.apply(state, line)
        out.append(line)
    return header, out


def store_long_game(state: pathlib.Path, header: Header[Any, Any], lines: list[Line],
                    checkpoints: bool = True) -> None:
    """Put a long unfinished game in a store, one entry a line (set-up, not measured), with
    the checkpoints that playing it would have left (none: as a store from before them)."""
    state.mkdir(parents=True, exist_ok=True)
    store = Store(str(state / STORE_FILE))
    gid = store.create(header.game.id, header.lines())
    with store._write() as db:
        db.executemany("INSERT INTO entries (game, seq, lines, rolled) VALUES (?, ?, ?, 0)",
                       [(gid, seq, str(line)) for seq, line in enumerate(lines, start=1)])
        db.execute("UPDATE games SET head = ? WHERE id = ?", (len(lines), gid))
        game, now = header.game, header.start()
        for seq, line in enumerate(lines if checkpoints else [], start=1):
            now = game.apply(now, line)
            if seq % checkpoint.EVERY == 0:
                store._keep_checkpoint(db, gid, seq, checkpoint.engine_tag(game), checkpoint.encode(now))
        sum_all(db)  # the rows as they now are (written by SQL)
    store.close()


# --- backup copies: what a game start writes, with a short and a long history ---

#: Stores of this many finished games for the backup figures.
BACKUP_GAMES = (10, 2_000)
#: Game starts measured in each (the first, whole copy is made before, not measured).
BACKUP_STARTS = 40
BACKUP_ENTRIES = 100  # entries of one game, each committed and copied, for the bytes per entry


def games_store(path: pathlib.Path, records: list[Replayed], games: int) -> None:
    """A store of ``games`` finished games: the session's records stored entry by entry,
    then copied under new numbers by SQL until there are enough (set-up, not measured)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    store = Store(str(path))
    for replayed in records[:games]:
        gid = store.create(replayed.header.game.id, replayed.header.lines())
        for line in replayed.actions:
            store.push(gid, [str(line)], rolled=False, over=False, winners=[])
    with store._write() as db:
        db.execute("UPDATE games SET status = 'over'")  # the box shows its home screen
        names = [name for name in store.columns("games") if name != "id"]
        listed = ", ".join(names)
        while (count := db.execute("SELECT count(*) FROM games").fetchone()[0]) < games:
            more = min(count, games - count)
            offset = db.execute("SELECT max(id), max(touched) FROM games").fetchone()
            db.execute(f"INSERT INTO games (id, {listed}) SELECT id + ?, "
                       + ", ".join("touched + ?" if n == "touched" else n for n in names)
                       + " FROM games WHERE id <= ?", (offset[0], offset[1], more))
            db.execute("INSERT INTO entries (game, seq, lines, rolled) SELECT game + ?, seq,"
                       " lines, rolled FROM entries WHERE game <= ?", (offset[0], more))
        sum_all(db)  # the rows as they now are: copied under new numbers, and over
    store.close()


def written() -> int:
    """Bytes this thread has handed to write() and pwrite() so far (Linux's accounting)."""
    for line in pathlib.Path("/proc/thread-self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise RuntimeError("no wchar in /proc/thread-self/io")


def report_backups(work: pathlib.Path, records: list[Replayed]) -> float:
    """Bytes written per game start (the new game's commit and its copy), in a store of few
    games and in one of many; the copies are made in this thread, as the worker would. The
    daemon's peak memory starting a game in the largest store, its first (whole) copy made
    meanwhile, is returned."""
    logging.getLogger("companion.backup").setLevel(logging.WARNING)  # not a line a copy here
    peak = 0.0
    for games in BACKUP_GAMES:
        path = work / f"backups-{games}" / STORE_FILE
        games_store(path, records, games)
        if games == max(BACKUP_GAMES):  # the first run compiles the bytecode: not measured
            for run in ("first", "measured"):
                shutil.copytree(path.parent, work / f"backups-{run}")
                peak = daemon_peak_mb(work / f"backups-{run}", CAPTURE_KEYS)
        store = Store(str(path))
        backups = Backups(str(path))
        store.after_commit = backups.changed
        backups.request()
        base = backups.run_due()  # the first whole copy: every later one follows it
        assert base is not None
        began = changes_of(base).stat().st_size
        total, copied, whole = [], [], 0
        for number in range(BACKUP_STARTS):
            before = written()
            Session.new(store, records[number % len(records)].header)
            between = written()
            made = backups.run_due()
            total.append(written() - before)
            copied.append(written() - between)
            whole += made is not None and made == copies(path)[0]
        size = path.stat().st_size
        grown = (changes_of(base).stat().st_size - began) / BACKUP_STARTS if not whole else 0.0
        report_entries(store, backups, max(records, key=lambda r: len(r.actions)), games)
        store.close()
        due = f"every ~{REBASE * base.stat().st_size / grown:,.0f} starts" if grown else "sooner"
        print(f"bytes written per game start, {games:,} games in the store ({size / 1e6:.1f} MB): "
              f"{Spread.of(total).show(' B')}; its copy {Spread.of(copied).show(' B')}; "
              f"{whole} of {BACKUP_STARTS} copies whole; the changes grow {grown:.0f} B a start, "
              f"so a whole copy ({base.stat().st_size / 1e6:.1f} MB, due at {REBASE:.0%} of it) "
              f"comes {due}: {grown / REBASE:.0f} B a start")
    return peak


def report_entries(store: Store, backups: Backups, record: Replayed, games: int) -> None:
    """Bytes written per entry of a game in play: its commit, and its copy (one after every
    entry, so that a card that loses the store file keeps every entry acknowledged)."""
    session = Session.new(store, record.header)
    backups.run_due()
    commits, copied = [], []
    for line in record.actions[:BACKUP_ENTRIES]:
        before = written()
        session.play([line])
        between = written()
        backups.run_due()
        commits.append(between - before)
        copied.append(written() - between)
    print(f"bytes written per entry, {games:,} games in the store: its commit "
          f"{Spread.of(commits).show(' B')}; its copy {Spread.of(copied).show(' B')}")


def daemon_peak_mb(state: pathlib.Path, keys: str) -> float:
    """The daemon's peak resident memory through scripted presses to its clean stop, read
    from /proc while it runs (see :func:`start_up` for why not its rusage)."""
    child = subprocess.Popen(companion_command(state, "--keys", keys), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**compiled(state.parent), "GPIOZERO_PIN_FACTORY": "mock"})
    peak = 0.0
    while child.poll() is None:
        try:
            peak = max(peak, peak_rss_mb(child.pid))
        except (OSError, RuntimeError):  # it has just ended
            break
        time.sleep(0.005)
    child.wait()
    return peak


# --- replay and capture as whole processes ---


@dataclass(frozen=True)
class Run:
    """One finished process: its CPU time (user + system), wall time and peak memory."""

    cpu: float
    wall: float
    peak_rss_mb: float


#: Starts a command from a small process and prints the kernel's account of it. Linux keeps
#: a process's peak memory across ``exec``, and a child forked (or vforked, as ``subprocess``
#: does) from this bench starts from the bench's own peak: measured from here, every command
#: would seem at least as large as the bench. From a bare interpreter the floor is ~9 MB.
MEASURE = """
import os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_utime + usage.ru_stime, time.perf_counter() - started, usage.ru_maxrss, status)
"""


def run_process(command: list[str], work: pathlib.Path) -> Run:
    """Run ``command`` to its end, its output thrown away: its CPU and wall time and its own
    peak resident memory (its bytecode compiled in ``work``)."""
    done = subprocess.run([sys.executable, "-S", "-c", MEASURE, *command], capture_output=True,
                          text=True, check=True, env=compiled(work))
    cpu, wall, peak_kb, status = done.stdout.split()
    if status != "0":
        raise RuntimeError(f"{' '.join(command)} failed (wait status {status})")
    return Run(float(cpu), float(wall), int(peak_kb) / 1024)


def replay_command(record: pathlib.Path) -> list[str]:
    return [sys.executable, "-m", "companion", "replay", str(record)]


def write_record(path: pathlib.Path, header: Header[Any, Any], lines: list[Line]) -> pathlib.Path:
    path.write_text(format_record(header, lines), encoding="utf-8")
    return path


def report_replay(record: pathlib.Path, lines: int) -> Run:
    """``companion replay`` against the reference engine, in turn, each a whole process; the
    ratio is taken pair by pair, so that a machine that speeds up or slows down between
    runs moves both."""
    ours, theirs = [], []
    with resources.as_file(bench_data() / REFERENCE) as reference:
        run_process(replay_command(record), record.parent)  # the first run compiles and reads the files
        for _ in range(REPLAY_PAIRS):
            ours.append(run_process(replay_command(record), record.parent))
            theirs.append(run_process([sys.executable, str(reference), str(record)], record.parent))
    found = Run(statistics.median(r.cpu for r in ours), statistics.median(r.wall for r in ours),
                max(r.peak_rss_mb for r in ours))
    cpu = found.cpu
    print(f"replay of a {lines:,}-line record, whole process, median of {REPLAY_PAIRS}: "
          f"{cpu:.3f} s CPU ({1e6 * cpu / lines:.1f} us a line, start-up included), "
          f"{found.wall:.3f} s wall; peak resident memory {found.peak_rss_mb:.1f} MB")
    ratios = sorted(a.cpu / b.cpu for a, b in zip(ours, theirs, strict=True))
    print(f"    the plain reference engine (benchdata/{REFERENCE}): "
          f"{statistics.median(r.cpu for r in theirs):.3f} s CPU; replay / reference, "
          f"pair by pair: median {statistics.median(ratios):.2f}x "
          f"({ratios[0]:.2f}-{ratios[-1]:.2f}x)")
    return found


def capture_run(work: pathlib.Path) -> Run:
    """The daemon in capture mode (a PNG a frame) through a few scripted presses, on a fresh
    state directory each time; the second run is measured (the first compiles the bytecode)."""
    for run in ("first", "measured"):
        found = run_process(companion_command(work / f"capture-{run}", "--emulator", "capture",
                                              "--capture-dir", str(work / f"frames-{run}"),
                                              "--keys", CAPTURE_KEYS), work)  # the later flag wins
    return found


def report_memory(peaks: dict[str, float], most: float = 40.0) -> None:
    """Every mode's peak resident memory on one line, against the bound docs/performance.md states."""
    over = [mode for mode, peak in peaks.items() if peak >= most]
    print("peak resident memory by mode, each its own process (never the bench's fork): "
          + ", ".join(f"{mode} {peak:.1f} MB" for mode, peak in peaks.items())
          + (f"; at or over {most:.0f} MB: {', '.join(over)}" if over else f"; all under {most:.0f} MB"))


# --- printing ---


def bus_ms(count: float, rate: int) -> float:
    return count * BITS_PER_BYTE / rate * 1000


@dataclass(frozen=True)
class Spread:
    """How a figure is spread over the presses."""

    median: float
    mean: float
    p90: float
    p99: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        """The spread of ``values`` (percentiles by nearest rank).

        >>> Spread.of(range(1, 101))
        Spread(median=50.5, mean=50.5, p90=90, p99=99)
        """
        ordered = sorted(values)
        return cls(statistics.median(ordered), statistics.fmean(ordered),
                   percentile(ordered, 90), percentile(ordered, 99))

    def scaled(self, factor: float) -> Spread:
        return Spread(self.median * factor, self.mean * factor, self.p90 * factor, self.p99 * factor)

    def show(self, unit: str = "", digits: int = 0, full: float = 0.0) -> str:
        """``median 258 (25%), mean ...``; with ``full``, each also as a share of it."""
        def one(value: float) -> str:
            share = f" ({100 * value / full:.0f}%)" if full else ""
            return f"{value:.{digits}f}{unit}{share}"
        return (f"median {one(self.median)}, mean {one(self.mean)}, p90 {one(self.p90)}, "
                f"p99 {one(self.p99)}")


def percentile(ordered: Sequence[float], q: int) -> float:
    """The nearest-rank ``q``th percentile of sorted values (a value that occurred)."""
    return ordered[max(0, -(-q * len(ordered) // 100) - 1)]


def report_bytes(found: Interactions) -> None:
    presses = len(found.latency) + found.frames_unchanged
    print(f"session: {presses} presses, {found.frames_unchanged} caused no change on screen; "
          f"redrawing an unchanged screen sent {found.redraw_bytes} bytes")
    for kind in ("ssd1306", "sh1106"):
        report_chip(kind, found.bytes[f"ours {kind}"], found.wire[f"ours {kind}"],
                    found.wire[f"luma {kind}"])
    for skipped in found.skipped:
        print(f"    not entered: {skipped}")


def report_pace(found: Interactions, pace: float) -> None:
    """Bytes on the I2C wire with presses ``pace`` seconds apart: each press, and each frame
    the loop sends by itself (an entry's result going, a burn-in shift)."""
    results = found.alone.get("result", {})
    shifts = found.alone.get("shift", {})
    print(f"at table pace (presses {pace:.0f} s apart: each result goes by itself, "
          f"{len(next(iter(results.values()), []))} times; burn-in shifts "
          f"{len(next(iter(shifts.values()), []))}, a full frame each):")
    for kind in ("ssd1306", "sh1106"):
        name, full = f"ours {kind}", max(w for w, _ in found.wire[f"luma {kind}"])
        pressed = Spread.of([w for w, _ in found.wire[name]])
        print(f"    {kind} on the wire, per press: {pressed.show(full=full)}")
        if results.get(name):
            gone = Spread.of([w for w, _ in results[name]])
            print(f"    {kind} on the wire, a result going by itself: {gone.show(full=full)}")


def report_presses(checked: dict[str, Typed], generated: dict[str, Typed]) -> None:
    """Presses per record line, each game: the checked-in session's, and the generated
    games' with their spread over the games (setting up and leaving apart), then where
    the generated games' presses go."""
    print(f"presses per record line, typed in through the screens (the checked-in session; "
          f"{max(t.games for t in generated.values())} games of each game that bench makes, "
          f"companion/benchgames.py), setting up and leaving a game apart:")
    for game in sorted(generated):
        mine, made = checked.get(game, Typed()), generated[game]
        spread = sorted(made.each)
        print(f"    {game}: checked-in {mine.per_line():.2f} ({mine.lines} lines); generated "
              f"{made.per_line():.2f} ({made.lines} lines; games {spread[0]:.2f}-{spread[-1]:.2f}, "
              f"median {statistics.median(spread):.2f}); setting up and leaving "
              f"{made.setup / max(1, made.games):.1f} a game")
    for game, made in sorted(generated.items()):
        verbs = sorted(made.verbs.items(), key=lambda kv: -kv[1][0])
        print(f"    {game}, generated, by verb: "
              + ", ".join(f"{verb} {p / n:.2f} ({100 * p / max(1, made.presses):.0f}%)" for verb, (p, n) in verbs))
    for made in (*checked.values(), *generated.values()):
        for skipped in made.skipped:
            print(f"    not entered: {skipped}")


def report_chip(kind: str, ours: list[int], wire: list[tuple[int, int]],
                luma: list[tuple[int, int]]) -> None:
    """Bytes per press on one chip: handed to the interface, and on the I2C wire."""
    full, (luma_wire, luma_smbus) = FULL_FRAME[kind], max(luma)
    whole = sum(count >= full for count in ours)
    print(f"{kind}, bytes per press handed to the interface (luma sends {full} every press): "
          f"{Spread.of(ours).show(full=full)}; {100 * whole / len(ours):.0f}% of presses send "
          f"a whole frame")
    on_wire = Spread.of([w for w, _ in wire])
    nearly = sum(w >= 0.9 * luma_wire for w, _ in wire)
    print(f"    on the I2C wire (address and control byte per transfer; luma {luma_wire}): "
          f"{on_wire.show(full=luma_wire)}; {100 * nearly / len(wire):.0f}% of presses put 90% "
          f"of a full frame or more on it")
    for label, mine, theirs in (("luma's own bus", [w for w, _ in wire], luma_wire),
                                ("a bus handed to luma, 32-byte blocks", [s for _, s in wire], luma_smbus)):
        over = [count - theirs for count in mine if count > theirs]
        print(f"    presses putting more on the wire than luma's full frame ({label}): {len(over)}"
              + (f", by up to {max(over)} B" if over else ""))
    for rate in I2C_RATES:
        print(f"    bus time at {rate // 1000} kHz: {on_wire.scaled(bus_ms(1, rate)).show(' ms', 1)}; "
              f"luma {bus_ms(luma_wire, rate):.1f} ms every press")


def report_latency(found: Interactions, slowest: int = 5) -> None:
    total = Spread.of([1000 * s for s in found.latency])
    commit = Spread.of([1000 * s for s in found.commit])
    net = Spread.of([1000 * s for s in found.net])
    print(f"input to frame (queue to display() returned; bus time not included): {total.show(' ms', 2)}")
    print(f"    the durable commit's share, with the entry's backup copy: {commit.show(' ms', 2)}")
    print(f"    without the commit: {net.show(' ms', 2)}")
    worst = sorted(zip(found.net, found.what), reverse=True)[:slowest]
    print(f"    the {slowest} slowest without the commit: "
          + "; ".join(f"{1000 * seconds:.2f} ms {what}" for seconds, what in worst))
    report_cpu(found, slowest)


def report_cpu(found: Interactions, slowest: int) -> None:
    """The loop thread's CPU time per press: the work itself, which time spent waiting for a
    busy machine's cores (or a disk's fsync) does not inflate."""
    print(f"    CPU time of the loop's thread, queue to frame: "
          f"{Spread.of([1000 * s for s in found.cpu]).show(' ms', 2)}")
    print(f"    the same without the commit's CPU time: "
          f"{Spread.of([1000 * s for s in found.cpu_net]).show(' ms', 2)}")
    worst = sorted(zip(found.cpu_net, found.cpu, found.what), reverse=True)[:slowest]
    print(f"    the {slowest} costliest in CPU time without the commit (with it): "
          + "; ".join(f"{1000 * net:.2f} ms ({1000 * cpu:.2f}) {what}" for net, cpu, what in worst))


def report_idle(idle: Idle, seconds: float) -> None:
    print(f"idle for {seconds:.0f} s with the Bonnet's 7 keys on mock pins: wake-ups {idle.wakeups} "
          f"(context switches over the process's threads: {idle.threads}), CPU {idle.cpu_seconds:.3f} s")


def quick_bench(work: pathlib.Path) -> None:
    """``companion bench --quick``: start to the first frame (an empty store, a short game)
    and replay against the reference engine, the figures start-up is judged by
    (docs/startup.md); a minute or two, against the whole benchmark's many."""
    header, lines = long_race(LONG_GAME)
    report_start(work, header, lines, long=False)
    report_replay(write_record(work / "long.record", header, lines), LONG_GAME)


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    if args.quick:
        with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
            quick_bench(pathlib.Path(scratch))
        return 0
    records = session_records()
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        work = pathlib.Path(scratch)
        print(f"benchmark session: {len(records)} records, "
              f"{sum(len(r.actions) for r in records)} lines, typed in through the screens")
        found = play_session(records, True, work)
        report_bytes(found)
        report_pace(play_session(records, True, work, pace=TABLE_PACE), TABLE_PACE)
        report_presses(count_presses(records), count_presses(generated_session(BENCH_SEEDS)))
        report_latency(play_session(records, False, work))
        with_pages = play_session(records, False, work, pages=MAX_PAGES)
        print(f"with the phone view on and {MAX_PAGES} pages open ({with_pages.page_events} updates each):")
        report_latency(with_pages)
        report_phone_memory(work)
        print(f"CPU time of the daemon per entry typed into a {LONG_GAME:,}-entry game (its loop and the"
              f" phone view's threads, until every page has the entry; {ENTRIES} entries):")
        report_entry_costs(work)
        with_games = report_backups(work, records)
        header, lines = long_race(LONG_GAME)
        starts = report_start(work, header, lines)
        huge = long_race(HUGE_GAME)[1]  # the same race, ten times as long
        replayed = report_replay(write_record(work / "long.record", header, lines), LONG_GAME)
        replayed_huge = report_replay(write_record(work / "huge.record", header, huge), HUGE_GAME)
        captured = capture_run(work)
        report_memory({"start": starts["empty"], f"resume {LONG_GAME:,}": starts["long"],
                       "capture": captured.peak_rss_mb, f"replay {LONG_GAME:,}": replayed.peak_rss_mb,
                       f"a game begun among {max(BACKUP_GAMES):,}, copied whole": with_games,
                       f"replay {HUGE_GAME:,}": replayed_huge.peak_rss_mb})
        report_idle(idle_wakeups(work, args.idle), args.idle)
    return 0
