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
import os
import pathlib
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from PIL import Image

from companion.config import Config
from companion.daemon import Daemon
from companion.games import GAMES
from companion.games.base import Choice, Line, Roll
from companion.io.buttons import KeyLogic
from companion.io.controller import Controller, Counter
from companion.io.display import NoDisplay, Output
from companion.io.pages import PagedDisplay
from companion.record import Header, Replayed, format_record, replay_text
from companion.store import Store
from companion.ui.app import App
from companion.ui.driver import Driver
from companion.ui.intents import Intent

FULL_FRAME = {"ssd1306": 1030, "sh1106": 1048}
I2C_RATES = (100_000, 400_000)
BITS_PER_BYTE = 9  # eight data bits and the acknowledge
LONG_GAME = 10_000


def session_records() -> list[Replayed]:
    """The checked-in benchmark session."""
    folder = resources.files("companion") / "benchdata"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".record"))
    return [replay_text((folder / name).read_text(encoding="utf-8")) for name in names]


# --- the session through the real loop ---


class Panels(NoDisplay):
    """One frame in, every controller and driver out: ours and luma's, both chips."""

    def __init__(self, with_stock: bool) -> None:
        from luma.oled.device import sh1106, ssd1306

        self.models: dict[str, Counter] = {}
        self.devices: dict[str, Any] = {}
        kinds = {"ssd1306": ssd1306, "sh1106": sh1106} if with_stock else {"ssd1306": ssd1306}
        for kind, make in kinds.items():
            for who in ("ours", "luma") if with_stock else ("ours",):
                # The latency run only counts: rebuilding the picture is the tests' job.
                model = Controller(kind) if with_stock else Counter()
                device = make(serial_interface=model)
                self.models[f"{who} {kind}"] = model
                self.devices[f"{who} {kind}"] = PagedDisplay(device, kind) if who == "ours" else device
        self.shown_at = 0.0

    def bytes(self) -> dict[str, int]:
        return {name: model.total for name, model in self.models.items()}

    def display(self, image: Image.Image) -> None:
        for device in self.devices.values():
            device.display(image)
        self.shown_at = time.perf_counter()


class TimedStore(Store):
    """The real store, timing each durable transaction (the commit's share of a press)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.commit_seconds = 0.0

    @contextmanager
    def _write(self) -> Iterator[Any]:
        started = time.perf_counter()
        with super()._write() as db:
            yield db
        self.commit_seconds += time.perf_counter() - started


@dataclass
class Interactions:
    """Per press: bytes each device received, latency, and the commit's share."""

    bytes: dict[str, list[int]] = field(default_factory=dict)
    latency: list[float] = field(default_factory=list)
    commit: list[float] = field(default_factory=list)
    frames_unchanged: int = 0
    redraw_bytes: int = 0
    skipped: list[str] = field(default_factory=list)
    #: Per game: presses and record lines typed (set-up and leaving count as presses).
    games: dict[str, list[int]] = field(default_factory=dict)


def play_session(records: list[Replayed], with_stock: bool, directory: pathlib.Path) -> Interactions:
    """Type every record through the screens; measure each press."""
    panels = Panels(with_stock)
    store = TimedStore(str(directory / f"bench-{with_stock}.sqlite"))
    app = App(store, Config(), directory, rng=random.Random(1))
    events: queue.Queue[object] = queue.Queue()
    output = Output(lambda: panels, shift=False)
    daemon = Daemon(app, output, events, KeyLogic())
    daemon.refresh()
    out = Interactions()

    def press(intent: Intent) -> None:
        before, commits, frames = panels.bytes(), store.commit_seconds, output.frames_sent
        queued = time.perf_counter()
        events.put(intent)
        daemon.step(events.get_nowait())
        if output.frames_sent == frames:
            out.frames_unchanged += 1
        else:
            out.latency.append(panels.shown_at - queued)
        out.commit.append(store.commit_seconds - commits)
        for name, total in panels.bytes().items():
            out.bytes.setdefault(name, []).append(total - before[name])

    driver = Driver(app, press)
    for replayed in records:
        presses = len(out.commit)
        driver.new_game(replayed.header)
        try:
            for line in replayed.actions:
                driver.line(line)
        except Exception as err:  # report, and go on with the rest of the session
            out.skipped.append(f"{replayed.header.game.id}: {err}")
        driver.leave_game()
        tally = out.games.setdefault(replayed.header.game.id, [0, 0])
        tally[0] += len(out.commit) - presses
        tally[1] += len(replayed.actions)
    before = panels.bytes()
    daemon.refresh()  # the same screen again: nothing may go out
    out.redraw_bytes = sum(panels.bytes().values()) - sum(before.values())
    store.close()
    return out


# --- the process: idle CPU, start-up, memory ---


@dataclass(frozen=True)
class Started:
    seconds_to_ready: float
    peak_rss_mb: float


def companion_command(state: pathlib.Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "companion", "run", "--emulator", "none", "--state", str(state), *extra]


def start_up(state: pathlib.Path) -> Started:
    """Process start to the first frame (the 'ready' log line), and peak resident memory."""
    started = time.perf_counter()
    child = subprocess.Popen(companion_command(state, "--keys", ""), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    ready = None
    for line in child.stderr:
        if line.rstrip().endswith("companion.daemon: ready"):
            ready = time.perf_counter() - started
    _, status, usage = os.wait4(child.pid, 0)
    if ready is None or status != 0:
        raise RuntimeError("the companion did not start")
    return Started(ready, usage.ru_maxrss / 1024)


def idle_cpu(state: pathlib.Path, seconds: float) -> float:
    """CPU seconds the running daemon uses while nobody touches it."""
    child = subprocess.Popen(companion_command(state), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    try:
        for line in child.stderr:
            if line.rstrip().endswith("ready"):
                break
        before = cpu_seconds(child.pid)
        time.sleep(seconds)
        return cpu_seconds(child.pid) - before
    finally:
        child.terminate()
        child.wait()


def cpu_seconds(pid: int) -> float:
    """User plus system time of a process, from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- a long game ---


def long_race(lines: int, seed: int = 5) -> tuple[Header, list[Line]]:
    """A Microbot race that never ends (no hazards, impacts or laps): ``lines`` long."""
    game = GAMES["microbot-racers"]
    header = Header(game, ("Ann", "Bob"))
    rng = random.Random(seed)
    state, out = header.start(), list[Line]()
    while len(out) < lines:
        ask = game.prompt(state)
        assert ask is not None
        answer = rng.choice(ask.answers)
        if isinstance(answer, Roll):
            line = answer.line(tuple(rng.randint(1, s) for s in answer.sides))
        elif isinstance(answer, Choice):
            line = answer.line
        else:
            raise TypeError(f"a Microbot race asks only for choices and dice, not {answer}")
        state = game.apply(state, line)
        out.append(line)
    return header, out


def store_long_game(state: pathlib.Path, header: Header, lines: list[Line]) -> None:
    """Put a long unfinished game in a store, one entry a line (set-up, not measured)."""
    state.mkdir(parents=True, exist_ok=True)
    store = Store(str(state / "companion.sqlite"))
    gid = store.create(header.game.id, header.lines())
    with store._write() as db:
        db.executemany("INSERT INTO entries (game, seq, lines, rolled) VALUES (?, ?, ?, 0)",
                       [(gid, seq, str(line)) for seq, line in enumerate(lines, start=1)])
        db.execute("UPDATE games SET head = ? WHERE id = ?", (len(lines), gid))
    store.close()


# --- printing ---


def quantiles(values: Sequence[float]) -> tuple[float, float]:
    """Median and 99th percentile."""
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def bus_ms(count: float, rate: int) -> float:
    return count * BITS_PER_BYTE / rate * 1000


def report_bytes(found: Interactions) -> None:
    presses = len(found.latency) + found.frames_unchanged
    print(f"session: {presses} presses, {found.frames_unchanged} caused no change on screen; "
          f"redrawing an unchanged screen sent {found.redraw_bytes} bytes")
    for kind in ("ssd1306", "sh1106"):
        ours, luma = found.bytes[f"ours {kind}"], found.bytes[f"luma {kind}"]
        (om, op), (lm, lp) = quantiles(ours), quantiles(luma)
        print(f"{kind}: bytes per press, median / p99: ours {om:.0f} / {op:.0f}, "
              f"luma {lm:.0f} / {lp:.0f}; ours is {100 * om / FULL_FRAME[kind]:.0f}% of a full "
              f"frame at the median, {100 * sum(ours) / max(1, sum(luma)):.0f}% of luma's bytes overall")
        for rate in I2C_RATES:
            print(f"    bus time at {rate // 1000} kHz, median / p99: ours {bus_ms(om, rate):.1f} / "
                  f"{bus_ms(op, rate):.1f} ms, luma {bus_ms(lm, rate):.1f} / {bus_ms(lp, rate):.1f} ms")
    for skipped in found.skipped:
        print(f"    not entered: {skipped}")


def report_presses(found: Interactions) -> None:
    """Presses per record line, each game (its set-up and leaving included)."""
    for game, (presses, lines) in sorted(found.games.items()):
        print(f"    {game}: {presses} presses for {lines} lines, {presses / max(1, lines):.2f} a line")


def report_latency(found: Interactions) -> None:
    median, p99 = quantiles([1000 * s for s in found.latency])
    commit_median, commit_p99 = quantiles([1000 * s for s in found.commit])
    without = [1000 * (t - c) for t, c in zip(found.latency, found.commit)]
    print(f"input to frame (queue to display() returned): median {median:.2f} ms, p99 {p99:.2f} ms; "
          f"the durable commit's share: median {commit_median:.2f} ms, p99 {commit_p99:.2f} ms; "
          f"without it: p99 {quantiles(without)[1]:.2f} ms")


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    records = session_records()
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        work = pathlib.Path(scratch)
        print(f"benchmark session: {len(records)} records, "
              f"{sum(len(r.actions) for r in records)} lines, typed in through the screens")
        found = play_session(records, True, work)
        report_bytes(found)
        report_presses(found)
        report_latency(play_session(records, False, work))
        fresh = start_up(work / "empty")
        print(f"start to first frame, empty store: {fresh.seconds_to_ready:.2f} s; "
              f"peak resident memory {fresh.peak_rss_mb:.1f} MB")
        header, lines = long_race(LONG_GAME)
        store_long_game(work / "long", header, lines)
        resumed = start_up(work / "long")
        print(f"start to first frame, resuming a {LONG_GAME}-line game: {resumed.seconds_to_ready:.2f} s; "
              f"peak resident memory {resumed.peak_rss_mb:.1f} MB")
        text = format_record(header, lines)
        started = time.perf_counter()
        replay_text(text)
        print(f"replay of a {LONG_GAME}-line record: {time.perf_counter() - started:.2f} s")
        idle = idle_cpu(work / "idle", args.idle)
        print(f"CPU used while idle for {args.idle:.0f} s: {idle:.3f} s")
    return 0
