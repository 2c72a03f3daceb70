"""Fault matrix, the running loop: it never waits on a device.

Three tables, each a list of cases easy to extend:

- ``FLOOD_CASES``: a serial device that sends but never reads its answers (a real
  pseudo-terminal whose other end is never read, so the kernel's buffer fills). The other
  port's answers stay quick and a button press still draws at once.
- ``SPIN_CASES``: every display state (missing, lost, present) at every screen level
  (bright, dim, blank): an idle loop wakes only when it has something to do.
- ``LEAK_CASES``: a display that keeps failing to open (or to draw) for a long time leaves
  no file descriptors and no atexit hooks behind.

The first two run the real loop on a thread with the real clock. The thresholds are the
issue's and generous (the faults they catch cost seconds, or thousands of wake-ups); delays
leave out the time spent waiting for a core other work held (tests/cores.py), and the idle
loop's cost is its own CPU time, so a busy machine fails neither.
"""

from __future__ import annotations

import atexit
import errno
import os
import pathlib
import pty
import queue
import select
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from tty import setraw
from typing import Any

import pytest
import smbus2
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy
from PIL import Image

from companion.config import Config, ScreenConfig
from companion.daemon import Daemon, Stop
from companion.io.buttons import PRESETS, Keys, KeySettings
from companion.io.display import Output, luma_opener
from companion.io.keylogic import KeyLogic
from companion.io.serial import OUTBOX, PortStatus, SerialPort
from companion.store import Store
from companion.ui.app import App
from tests.cores import took

PATIENCE = 20.0  # seconds before a wait is a failure (never a timing threshold)
QUIET = ScreenConfig(0, 0, shift=False)  # never dims, never blanks, never shifts


class Pty:
    """A device on a pseudo-terminal: the test holds the master end."""

    def __init__(self, directory: pathlib.Path, name: str) -> None:
        self.master, self.slave = pty.openpty()
        setraw(self.slave)
        self.path = directory / name
        self.path.symlink_to(os.ttyname(self.slave))
        self.heard = b""

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def answer(self) -> bytes:
        end = time.monotonic() + PATIENCE
        while b"\r\n" not in self.heard:
            assert time.monotonic() < end, f"no answer; heard {self.heard!r}"
            if select.select([self.master], [], [], 0.5)[0]:
                self.heard += os.read(self.master, 65536)
        line, self.heard = self.heard.split(b"\r\n", 1)
        return line

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


class LiveLoop:
    """The daemon as runner.py wires it, on its own thread with the real clock: store, app,
    minimal-build buttons on mock pins, a dummy display, and serial ports."""

    def __init__(self, directory: pathlib.Path, screen: ScreenConfig = QUIET,
                 opener: Callable[[], Any] | None = None,
                 ports: tuple[tuple[str, str], ...] = ()) -> None:
        Device.pin_factory = MockFactory()
        self.events: queue.Queue[object] = queue.Queue()
        self.device = dummy(width=128, height=64, mode="1")
        self.opener = opener or (lambda: self.device)
        self.directory = directory
        self.screen = screen
        self.bank = Keys(KeySettings("minimal"), self.events)
        self.ports = {name: SerialPort(name, url, 115200, self.events, retry=(0.01, 0.05))
                      for name, url in ports}
        self.daemon: Daemon | None = None
        self.up = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        store = Store(str(self.directory / "companion.sqlite"))
        try:
            app = App(store, Config(screen=self.screen))
            output = Output(self.opener, shift=False)
            self.daemon = Daemon(app, output, self.events, KeyLogic(0.02, 0.6), ports=self.ports)
            self.up.set()
            self.daemon.run()
        finally:
            store.close()

    def start(self) -> LiveLoop:
        for port in self.ports.values():
            port.start()
        self.thread.start()
        assert self.up.wait(PATIENCE)
        return self

    def stop(self) -> None:
        self.events.put(Stop("test over"))
        self.thread.join(PATIENCE)
        for port in self.ports.values():
            port.close()
        self.bank.close()


# --- a serial device that never reads ---


@dataclass
class FloodCase:
    """What the stuck device sends (``burst`` lines at once, or ``line`` without end)."""

    name: str
    line: bytes
    burst: int = 0  # 0: keep sending for the whole test


FLOOD_CASES = [
    FloodCase("floods state without reading", b"state\n"),
    FloodCase("floods help (long answers) without reading", b"help\n"),
    FloodCase("sends 300 state lines, then reads nothing", b"state\n", burst=300),
]


FLOODER = """
import os, sys
fd, line, burst = int(sys.argv[1]), sys.argv[2].encode() + b"\\n", int(sys.argv[3])
sent = 0
while burst == 0 or sent < burst:
    os.write(fd, line)  # blocks while the companion's input buffer is full
    sent += 1
"""


def flood(device: Pty, case: FloodCase) -> subprocess.Popen[bytes]:
    """The stuck device: its own process (as a real device is), sending, never reading."""
    return subprocess.Popen([sys.executable, "-c", FLOODER, str(device.master),
                             case.line.decode().strip(), str(case.burst)],
                            pass_fds=(device.master,))


@pytest.fixture
def two_ports(tmp_path: pathlib.Path) -> Iterator[tuple[LiveLoop, Pty, Pty]]:
    stuck, console = Pty(tmp_path, "stuck"), Pty(tmp_path, "console")
    loop = LiveLoop(tmp_path, ports=(("serial 1", str(stuck.path)), ("serial 2", str(console.path))))
    loop.start()
    yield loop, stuck, console
    loop.stop()
    stuck.close()
    console.close()


def until(condition: Callable[[], bool], seconds: float = PATIENCE) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def round_trip(console: Pty, line: bytes) -> float:
    """Seconds from a line sent to its answer, less the time spent waiting for a core that
    other work on this machine held (tests/cores.py): the box has its cores to itself."""
    def ask() -> None:
        console.send(line)
        assert console.answer().startswith(b"ok")
    return took(ask)[1]


@pytest.mark.parametrize("case", FLOOD_CASES, ids=lambda c: c.name)
def test_a_device_that_never_reads_never_slows_the_other_port_or_the_buttons(
        case: FloodCase, two_ports: tuple[LiveLoop, Pty, Pty]) -> None:
    loop, stuck, console = two_ports
    assert until(lambda: len(loop.daemon.app.links) == 2 if loop.daemon else False)
    for line in (b"game microbot-racers\n", b"players Ann Bob\n"):  # a game to report on
        round_trip(console, line)
    # The same round trips with the device quiet, on this machine now: a machine busy with
    # other work slows both alike (the pseudo-terminals' kernel work is not the loop's), a
    # loop that waits on the stuck device slows only the flooded ones (by 100 ms and more).
    quiet = statistics.quantiles([round_trip(console, b"state\n") for _ in range(100)], n=100)[98]
    allowed = max(0.050, 3 * quiet)
    sender = flood(stuck, case)
    try:
        port = loop.ports["serial 1"]
        # The kernel's buffer is full and the outbox overflowing: answers are being dropped.
        until(lambda: getattr(port, "dropped", 0) > 0, seconds=10)
        delays = [round_trip(console, b"state\n") for _ in range(300)]
        p99 = statistics.quantiles(delays, n=100)[98]
        worst = sorted(delays)[-5:]
        assert p99 < allowed, (f"p99 {p99 * 1000:.0f} ms (quiet {quiet * 1000:.0f} ms); "
                               f"the worst: {[round(d * 1000) for d in worst]} ms")
        before = loop.device.image.tobytes()
        pin = Device.pin_factory.pin(PRESETS["minimal"]["down"])

        def press() -> bool:
            pin.drive_low()
            return until(lambda: loop.device.image.tobytes() != before, seconds=5)

        drawn, delay = took(press)
        pin.drive_high()
        assert drawn and delay < 0.25, f"the press drew after {delay * 1000:.0f} ms"
        assert port.dropped > 0  # counted, and the outbox stayed bounded
        assert len(port._outbox) <= OUTBOX
    finally:
        sender.kill()
        sender.wait(PATIENCE)


def test_the_drops_are_one_log_line_and_a_count(tmp_path: pathlib.Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    class Stuck:
        """A device that takes nothing: every write times out after a while."""

        def __init__(self) -> None:
            self.release = threading.Event()

        def write(self, data: bytes) -> int:
            self.release.wait(PATIENCE)
            return len(data)

        def read(self, size: int = 1) -> bytes:
            self.release.wait(PATIENCE)
            return b""

        in_waiting = 0

        def cancel_read(self) -> None:
            self.release.set()

        def close(self) -> None:
            self.release.set()

    stuck = Stuck()
    events: queue.Queue[object] = queue.Queue()
    port = SerialPort("serial 1", "stuck://", 115200, events, opener=lambda *a, **k: stuck)
    port.start()
    try:
        assert isinstance(events.get(timeout=PATIENCE), PortStatus)
        for _ in range(OUTBOX + 11):
            port.done("ok")  # the main loop's side: must return at once
        assert port.dropped >= 10
        warned = [r for r in caplog.records if "not reading" in r.getMessage()]
        assert len(warned) == 1
    finally:
        port.close()


# --- a display that is missing while the screen is dimmed or blank ---


class Flaky:
    """A panel that opened and then stopped answering."""

    mode = "1"

    def display(self, image: Any) -> None:
        raise OSError(errno.EREMOTEIO, "Remote I/O error")

    def contrast(self, level: int) -> None:
        raise OSError(errno.EREMOTEIO, "Remote I/O error")

    hide = show = cleanup = lambda self: None


def missing() -> Any:
    raise OSError(errno.ENOENT, "No such file or directory: '/dev/i2c-1'")


@dataclass
class SpinCase:
    display: str  # missing, lost or present
    level: str  # the screen level the loop idles at
    opener: Callable[[], Any] | None = field(default=None, repr=False)


LEVELS = {"bright": ScreenConfig(0, 0, shift=False), "dim": ScreenConfig(0.05, 0, shift=False),
          "blank": ScreenConfig(0.05, 0.1, shift=False)}
OPENERS: dict[str, Callable[[], Any] | None] = {"missing": missing, "lost": Flaky, "present": None}
SPIN_CASES = [SpinCase(display, level, OPENERS[display]) for display in OPENERS for level in LEVELS]
WINDOW = 3.0  # seconds of idle measured; the budget is 0.05 s of CPU per 10 s


class Probe:
    """An event that makes the loop note its own CPU time (thread_time is per thread)."""

    def __init__(self) -> None:
        self.cpu = -1.0
        self.done = threading.Event()


@pytest.mark.parametrize("case", SPIN_CASES, ids=lambda c: f"{c.display} display, {c.level}")
def test_an_idle_loop_sleeps_whatever_the_display_and_screen_level(case: SpinCase,
                                                                  tmp_path: pathlib.Path) -> None:
    loop = LiveLoop(tmp_path, LEVELS[case.level], opener=case.opener)
    wakes = 0
    loop.start()
    daemon = loop.daemon
    assert daemon is not None
    step = daemon.step

    def counted(event: object | None) -> None:
        nonlocal wakes
        wakes += 1
        if isinstance(event, Probe):
            event.cpu = time.thread_time()
            event.done.set()
        step(event)

    daemon.step = counted  # type: ignore[method-assign]
    try:
        assert until(lambda: daemon.output.level == case.level)
        time.sleep(0.3)  # settled: dimmed or blanked, the first retries made
        first, last = Probe(), Probe()
        loop.events.put(first)
        assert first.done.wait(PATIENCE)
        counted_from = wakes
        time.sleep(WINDOW)
        loop.events.put(last)
        assert last.done.wait(PATIENCE)
        idle_wakes = wakes - counted_from - 1
        cpu = last.cpu - first.cpu
    finally:
        loop.stop()
    assert idle_wakes <= 3, f"{idle_wakes} wake-ups in {WINDOW} s idle"
    assert cpu < 0.05 * WINDOW / 10 + 0.005, f"{cpu:.3f} s of CPU in {WINDOW} s idle"


# --- a display that keeps failing to open ---


class FakeBus:
    """smbus2.SMBus on a bus where the panel does not answer: a real descriptor (so leaks
    show in /proc/self/fd), writes failing as the I2C adapter fails them."""

    answer_data = 0  # data writes answered per bus before the panel goes quiet
    answer_commands = False

    def __init__(self, bus: Any = None, force: bool = False) -> None:
        self.fd: int | None = os.open(os.devnull, os.O_RDWR)
        self.data_left = self.answer_data

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if not self.answer_commands:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")

    def i2c_rdwr(self, *messages: Any) -> None:
        if self.data_left <= 0:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.data_left -= 1

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class LoosePanel(FakeBus):
    """Answers the handshake and its first frame, then the cable comes loose."""

    answer_commands = True
    answer_data = 1


@dataclass
class LeakCase:
    name: str
    flags: str
    bus: type[FakeBus] | None  # None: the real smbus2 on a bus that does not exist
    through_output: bool = False  # via Output's retries (open, draw, fail) instead of opens


I2C = "--display {} --interface i2c --i2c-port {} --i2c-address 0x3C"
LEAK_CASES = [
    LeakCase("SSD1306: bus there, no panel", I2C.format("ssd1306", 1), FakeBus),
    LeakCase("SH1106: bus there, no panel", I2C.format("sh1106", 1), FakeBus),
    LeakCase("no such bus", I2C.format("ssd1306", 97), None),
    LeakCase("panel answers, then the cable is loose", I2C.format("ssd1306", 1), LoosePanel,
             through_output=True),
]
# The count must come back exactly, so one descriptor or hook kept per failed open shows
# after the first (a bus that never closes fails with 100 left); 100 opens, not 1,000, are
# still 50 minutes of retries at the longest pause (30 s).
OPENS = 100


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("case", LEAK_CASES, ids=lambda c: c.name)
def test_a_display_that_keeps_failing_leaks_nothing(case: LeakCase,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if case.bus is not None:
        monkeypatch.setattr(smbus2, "SMBus", case.bus)
    opener = luma_opener(case.flags)
    now = [0.0]
    output = Output(opener, shift=False, clock=lambda: now[0])
    frame = Image.new("1", (128, 64), 0)
    frame.putpixel((5, 5), 1)  # a picture the panel does not hold yet: it must be sent

    def fail_once() -> bool:
        if case.through_output:
            now[0] += 60.0  # past any retry pause
            return not output.show(frame) and output.device is None
        try:
            opener()
        except Exception:
            return True
        return False

    assert fail_once()  # the panel that answered at the start is gone now
    fds, hooks = open_files(), atexit._ncallbacks()
    failures = sum(fail_once() for _ in range(OPENS))
    assert failures == OPENS
    assert (open_files(), atexit._ncallbacks()) == (fds, hooks), (
        f"{open_files() - fds} descriptors and {atexit._ncallbacks() - hooks} atexit hooks "
        f"left after {OPENS} failed opens")

