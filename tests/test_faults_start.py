"""Fault matrix, start-up: the box never crash-loops and never leaves the screen dark.

Two tables, each a list of cases easy to extend:

- ``PIN_CASES``: GPIO lines that cannot be opened (lgpio's own ``lgpio.error``, which is not
  an OSError, or gpiozero's errors), driven through the real ``runner.run`` on mock pins
  with a dummy display. The display opens first, the screen and one log line name the pin
  and its key, the other keys work, and a lost select key has a stand-in long press.
- ``EXIT_CASES``: the real ``companion`` process with a configuration or a state directory
  that cannot work: one line naming what is wrong, and the exit status that tells systemd
  what to do (2: fix the configuration, not restarted; 1: may pass, retried).
"""

from __future__ import annotations

import argparse
import logging
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.exc import PinInvalidPin
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy
from PIL import Image

from companion import runner
from companion.config import Config, ConfigError, parse
from companion.daemon import Daemon
from companion.doctor import FIXES
from companion.intents import Intent
from companion.io.base import Edge, Input
from companion.io.keylogic import KeyLogic, stand_ins
from companion.io.pins import check_pins, claims_of
from tests.harness import frame_shows

COMPANION = [sys.executable, "-m", "companion"]
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}


class error(Exception):
    """Stands in for ``lgpio.error`` (lgpio is not installed off the Pi)."""


class BusyFactory(MockFactory):  # type: ignore[misc]
    """Mock pins, except that the listed BCM pins fail to open as lgpio's would."""

    def __init__(self, busy: dict[int, Exception], opened: list[str]) -> None:
        super().__init__()
        self.busy = busy
        self.opened = opened

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        number = int(str(name).removeprefix("GPIO").removeprefix("BCM"))
        self.opened.append(f"GPIO{number}")
        if number in self.busy:
            raise self.busy[number]
        return super().pin(name, pin_class, **kwargs)


@dataclass
class PinCase:
    """Which pins fail, and what the player must still be able to do."""

    name: str
    toml: dict[str, Any]
    busy: dict[int, Exception]
    lost: list[tuple[int, str]]  # (BCM pin, key) named on screen and in the log
    works: str  # a key that must still press
    select_by: str = "select"  # the key (short press) or "hold KEY" that selects
    no_factory: Exception | None = None  # gpiozero's pin factory itself fails to start


BONNET = {"buttons": {"preset": "adafruit-bonnet"}}
MINIMAL_ENCODER = {"encoder": {"a": 5, "b": 6, "push": 13}}

PIN_CASES = [
    PinCase("w1-gpio holds the Bonnet's centre key", BONNET, {4: error("GPIO busy")},
            [(4, "select")], works="down", select_by="hold right"),
    PinCase("the minimal build loses select", {}, {22: error("GPIO busy")},
            [(22, "select")], works="up", select_by="hold down"),
    PinCase("the Waveshare HAT loses its joystick press",
            {"buttons": {"preset": "waveshare-oled-hat"}}, {13: error("GPIO busy")},
            [(13, "select")], works="back", select_by="hold right"),
    PinCase("one joystick direction busy, select intact", BONNET, {17: error("GPIO busy")},
            [(17, "up")], works="down"),
    PinCase("the encoder's push still selects", MINIMAL_ENCODER, {22: error("GPIO busy")},
            [(22, "select")], works="up", select_by="encoder push"),
    PinCase("the encoder's pin busy, the buttons work", MINIMAL_ENCODER, {5: error("GPIO busy")},
            [(5, "encoder")], works="select"),
    PinCase("the tilt switch's pin busy, the keys work", {"shake": {"pin": 12}},
            {12: error("GPIO busy")}, [(12, "tilt switch")], works="select"),
    PinCase("gpiozero's own error for a pin", {}, {27: PinInvalidPin("GPIO27 is not a valid pin")},
            [(27, "down")], works="select"),
    PinCase("lgpio not installed", {}, {}, [], works="", select_by="",
            no_factory=ModuleNotFoundError("No module named 'lgpio'")),
    PinCase("the GPIO chip refused", {}, {}, [], works="", select_by="",
            no_factory=error("can not open gpiochip")),
]


@dataclass
class Started:
    """What ``runner.run`` built, caught before its loop would block."""

    daemon: Daemon
    device: Any
    order: list[str]
    log: list[str]

    def frame(self) -> Image.Image:
        assert self.device.image is not None
        return self.device.image.convert("1")


def shows(frame: Image.Image, words: str, size: int = 11) -> bool:
    """``words`` drawn anywhere on the frame, in either colour."""
    return frame_shows(frame, words, size)


@pytest.fixture
def start(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
          caplog: pytest.LogCaptureFixture) -> Iterator[Callable[[PinCase], Started]]:
    """Run the real start-up for a case, up to the loop, on mock pins and a dummy display."""
    caught: list[Daemon] = []

    class Caught(Daemon):
        def run(self) -> None:
            self.refresh()
            caught.append(self)

    def starter(case: PinCase) -> Started:
        order: list[str] = []
        device = dummy(width=128, height=64, mode="1")
        device.persist = True  # as luma_opener sets it: the last picture stays after the exit

        def opener() -> Any:
            order.append("display")
            return device

        Device.pin_factory = BusyFactory(case.busy, order)
        if case.no_factory is not None:
            failure = case.no_factory

            def no_factory() -> None:
                raise failure

            Device.pin_factory = None
            monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_factory))
        monkeypatch.setattr(runner, "choose_display", lambda config, args: (opener, False))
        monkeypatch.setattr(runner, "Daemon", Caught)
        # the test presses on after the start: keep the pins and the store open
        monkeypatch.setattr(Input, "close", lambda self: None)
        monkeypatch.setattr(runner.Store, "close", lambda self: None)
        config = parse(case.toml, "companion.toml")
        args = argparse.Namespace(emulator=None, display=None, keys=None, capture_dir="")
        caplog.set_level(logging.WARNING)
        assert runner.run(config, tmp_path, str(tmp_path / "games.sqlite"), args) == 0
        lines = [r.getMessage() for r in caplog.records if r.name.startswith("companion")]
        return Started(caught[-1], device, order, lines)

    yield starter
    Device.pin_factory = MockFactory()


def press(started: Started, role: str, hold: float = 0.1) -> list[Intent]:
    """Press and release a key's mock pin; the intents the loop made of it."""
    daemon = started.daemon
    handled: list[Intent] = []
    daemon.app.handle = handled.append  # type: ignore[method-assign]
    pins = started_pins(started)
    pin = Device.pin_factory.pin(pins[role])
    base = time.monotonic()
    daemon.clock = lambda: base
    pin.drive_low()
    drain(daemon)
    daemon.clock = lambda: base + hold
    daemon.step(None)
    pin.drive_high()
    drain(daemon)
    daemon.clock = lambda: base + hold + 1.0
    daemon.step(None)
    return handled


def drain(daemon: Daemon) -> None:
    while True:
        try:
            event = daemon.events.get_nowait()
        except queue.Empty:
            return
        if isinstance(event, Edge):  # the pin's edge at the fake clock's time
            event = Edge(event.role, event.pressed, daemon.clock())
        daemon.step(event)


def started_pins(started: Started) -> dict[str, int]:
    """Each key's pin by role; the encoder's push as "encoder push"."""
    config: Config = started.daemon.app.config
    claims = claims_of(config, [])
    pins = {claim.role: claim.pin for claim in claims if claim.key.startswith("buttons.")}
    pins.update(("encoder push", claim.pin) for claim in claims if claim.key == "encoder.push")
    return pins


@pytest.mark.parametrize("case", PIN_CASES, ids=lambda c: c.name)
def test_a_pin_that_cannot_be_opened_costs_only_its_key(case: PinCase,
                                                         start: Callable[[PinCase], Started]) -> None:
    started = start(case)
    assert started.order[0] == "display" or not started.order  # the display opens first
    frame = started.frame()
    for pin, role in case.lost:
        named = [line for line in started.log if f"GPIO{pin} " in line and role in line]
        assert len(named) == 1, started.log
        assert shows(frame, f"GPIO{pin}"), "the screen must name the pin"
    if case.no_factory is not None:
        assert [line for line in started.log if "GPIO" in line] == [
            line for line in started.log if "no GPIO buttons" in line and str(case.no_factory) in line]
        assert len(started.log) == 1, started.log
        assert shows(frame, "No buttons")
        return
    assert [i.kind for i in press(started, case.works)] == [case.works.split()[0]]
    if case.select_by.startswith("hold "):
        key = case.select_by.removeprefix("hold ")
        assert shows(frame, f"Hold {key} = select")
        assert [i.kind for i in press(started, key, hold=1.0)] == ["select"]
        assert [i.kind for i in press(started, key)] == [key]  # its short press is unchanged
    else:
        assert [i.kind for i in press(started, case.select_by)] == ["select"]


@pytest.mark.parametrize("build", [
    {"buttons": {"preset": "adafruit-bonnet"},
     "display": {"flags": "--display ssd1306 --interface i2c --i2c-address 0x3C"}},
    {"buttons": {"preset": "waveshare-oled-hat"},
     "display": {"flags": "--display sh1106 --interface spi --gpio-data-command 24 --gpio-reset 25"}},
    {"buttons": {"preset": "minimal"}, "encoder": {"a": 5, "b": 6, "push": 13},
     "display": {"flags": "--display ssd1306 --interface i2c"}},
], ids=["adafruit-bonnet", "waveshare-oled-hat", "minimal with encoder"])
def test_the_documented_tilt_pin_is_free_on_every_build(build: dict[str, Any]) -> None:
    config = parse({**build, "shake": {"pin": 12}}, "companion.toml")
    check_pins(config, config.display)  # hardware/README.md: BCM 12 on every build


def test_a_box_left_with_one_key_selects_by_holding_it() -> None:
    assert stand_ins({"back"}) == {"back": "select"}
    keys = KeyLogic(holds=stand_ins({"back"}))
    keys.feed(Edge("back", True, 0.0))
    assert keys.due(0.7) == [Intent("select")]


# --- the real process: one line and the exit status systemd acts on ---


@dataclass
class ExitCase:
    """A start that cannot work; ``setup`` prepares the directory and gives the extra
    arguments (and optionally a command prefix such as a mount namespace)."""

    name: str
    setup: Callable[[pathlib.Path], tuple[list[str], list[str]]]
    status: int
    says: list[str]  # every one of these is in the one line
    needs: Callable[[], bool] = field(default=lambda: True)


def config_file(text: str) -> Callable[[pathlib.Path], tuple[list[str], list[str]]]:
    def setup(tmp: pathlib.Path) -> tuple[list[str], list[str]]:
        path = tmp / "companion.toml"
        path.write_text(text)
        return [], ["--config", str(path), "--state", str(tmp / "state")]
    return setup


def state_at(where: Callable[[pathlib.Path], str]) -> Callable[[pathlib.Path], tuple[list[str], list[str]]]:
    def setup(tmp: pathlib.Path) -> tuple[list[str], list[str]]:
        return [], ["--state", where(tmp)]
    return setup


def store_is_a_directory(tmp: pathlib.Path) -> tuple[list[str], list[str]]:
    (tmp / "games.sqlite").mkdir()
    path = tmp / "companion.toml"
    path.write_text(f'[store]\npath = "{tmp / "games.sqlite"}"\n')
    return [], ["--config", str(path), "--state", str(tmp / "state")]


def namespaced(script: str) -> Callable[[pathlib.Path], tuple[list[str], list[str]]]:
    """Run the companion in a mount namespace where ``script`` has prepared ``$0``."""
    def setup(tmp: pathlib.Path) -> tuple[list[str], list[str]]:
        (tmp / "mnt").mkdir()
        unshare = shutil.which("unshare") or "unshare"
        return ([unshare, "-rm", "sh", "-c", f'{script} && exec "$@"', str(tmp / "mnt")],
                ["--state", str(tmp / "mnt" / "state")])
    return setup


def namespaces_allowed() -> bool:
    unshare = shutil.which("unshare")
    return unshare is not None and subprocess.run([unshare, "-rm", "true"],
                                                  capture_output=True, check=False).returncode == 0


EXIT_CASES = [
    ExitCase("select and up on one pin",
             config_file('[buttons]\npreset = "custom"\npins = { select = 5, up = 5 }\n'), 2,
             ["buttons.pins.", "GPIO5", "select", "up"]),
    ExitCase("encoder a = b", config_file("[encoder]\na = 6\nb = 6\n"), 2,
             ["encoder.b", "GPIO6", "encoder.a"]),
    ExitCase("encoder on the Bonnet's roll key",
             config_file('[buttons]\npreset = "adafruit-bonnet"\n[encoder]\na = 5\nb = 12\n'), 2,
             ["encoder.a", "GPIO5", "adafruit-bonnet", "roll"]),
    ExitCase("shake on a key's pin", config_file("[shake]\npin = 17\n"), 2,
             ["shake.pin", "GPIO17", "minimal", "up"]),
    ExitCase("shake on the encoder's pin", config_file("[encoder]\na = 5\nb = 6\n[shake]\npin = 6\n"),
             2, ["shake.pin", "GPIO6", "encoder.b"]),
    ExitCase("tilt switch on the Waveshare joystick's right",
             config_file('[buttons]\npreset = "waveshare-oled-hat"\n[shake]\npin = 26\n'), 2,
             ["shake.pin", "GPIO26", "waveshare-oled-hat", "right"]),
    ExitCase("a key on the display's I2C pin",
             config_file('[display]\nflags = "--display ssd1306 --interface i2c"\n'
                         "[buttons]\npins = { up = 3 }\n"), 2,
             ["buttons.pins.up", "GPIO3", "I2C"]),
    ExitCase("a key on the Waveshare HAT's SPI MISO",
             config_file('[display]\nflags = "--display sh1106 --interface spi"\n'
                         '[buttons]\npreset = "waveshare-oled-hat"\npins = { roll = 9 }\n'), 2,
             ["buttons.pins.roll", "GPIO9", "the display's SPI0 MISO"]),
    ExitCase("state under a file", state_at(lambda tmp: "/etc/passwd/x"), 2,
             ["/etc/passwd/x", "Not a directory"]),
    ExitCase("state under /proc", state_at(lambda tmp: "/proc/companion-test/state"), 2,
             ["/proc/companion-test/state", "/proc is on a file system with no room for files"]),
    ExitCase("state is a file", state_at(lambda tmp: "/etc/passwd"), 2,
             ["/etc/passwd", "not a directory"]),
    ExitCase("store path is a directory", store_is_a_directory, 2,
             ["games.sqlite", "is a directory"]),
    ExitCase("read-only mount: may be remounted, retried",
             namespaced('mkdir "$0/state" && mount --bind -o ro "$0" "$0"'), 1,
             ["mnt/state", "Read-only file system"], needs=namespaces_allowed),
    ExitCase("full disk at start: may be freed, retried",
             namespaced('mount -t tmpfs -o size=64k tmpfs "$0" && mkdir "$0/state" && '
                        '{ head -c 1000000 /dev/zero > "$0/filler" 2>/dev/null || true; }'), 1,
             ["mnt/state", "full"], needs=namespaces_allowed),
]


@pytest.mark.parametrize("case", EXIT_CASES, ids=lambda c: c.name)
def test_a_start_that_cannot_work_is_one_line_and_the_right_exit(case: ExitCase,
                                                                   tmp_path: pathlib.Path) -> None:
    if not case.needs():
        pytest.skip("this machine allows no mount namespaces")
    prefix, extra = case.setup(tmp_path)
    run = subprocess.run([*prefix, *COMPANION, "run", "--emulator", "none", *extra],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                         timeout=120, check=False)
    lines = [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]
    assert len(lines) == 1, run.stderr
    assert all(word in lines[0] for word in case.says), lines[0]
    assert "Traceback" not in run.stderr
    assert run.returncode == case.status, run.stderr


#: The state directories above that run refuses for good (exit 2) whoever runs it.
REFUSED_STATES = ["state under a file", "state under /proc", "state is a file"]


@pytest.mark.parametrize("name", REFUSED_STATES)
def test_doctor_fails_a_state_directory_in_the_words_run_exits_with(name: str, tmp_path: pathlib.Path) -> None:
    """Issue 24, fault 19: run and doctor judge the state directory with the same code, so
    doctor's line is run's: never "made at the first start" where run exits 2."""
    case = next(c for c in EXIT_CASES if c.name == name)
    _prefix, extra = case.setup(tmp_path)
    run = subprocess.run([*COMPANION, "run", "--emulator", "none", *extra], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, env=ENV, timeout=120, check=False)
    doctor = subprocess.run([*COMPANION, "doctor", *extra], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, env=ENV, timeout=120, check=False)
    said = [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]
    assert run.returncode == 2 and len(said) == 1, run.stderr
    lines = [line for line in doctor.stdout.splitlines() if line.split()[1:2] in (["state"], ["store"])]
    assert lines == [f"fail  state     {said[0]}; fix: {FIXES['state-dir']}"], doctor.stdout
    assert "Traceback" not in doctor.stderr


def test_a_state_directory_that_cannot_work_is_on_the_screen_too(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    device = dummy(width=128, height=64, mode="1")
    device.persist = True  # as luma_opener sets it: the message stays after the exit
    monkeypatch.setattr(runner, "choose_display", lambda config, args: (lambda: device, False))
    args = argparse.Namespace(emulator=None, display=None, keys=None, capture_dir="")
    with pytest.raises(ConfigError, match="Not a directory"):
        runner.run(Config(), pathlib.Path("/etc/passwd/x"), "/etc/passwd/x/games.sqlite", args)
    assert device.image is not None
    assert shows(device.image.convert("1"), "Cannot start:")


def test_the_unit_restarts_on_every_failure_but_a_configuration_error() -> None:
    from companion import cli
    from tests.harness import service_keys

    keys = service_keys()
    assert keys["Restart"] == ["on-failure"]
    assert keys["RestartPreventExitStatus"] == [str(cli.EXIT_CONFIG)]
    assert cli.EXIT_RETRY != cli.EXIT_CONFIG and cli.EXIT_RETRY != 0
