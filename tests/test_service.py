"""The hardened service: the analyzer's score, what the unit allows, and the watchdog that
restarts a hung main loop (a stuck loop must stop sending WATCHDOG=1)."""

from __future__ import annotations

import os
import pathlib
import queue
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator

import pytest
from luma.core.device import dummy

from companion.config import Config
from companion.daemon import Daemon, Stop
from companion.intents import Intent
from companion.io.display import Output
from companion.io.systemd import watchdog_period
from companion.store import Store
from companion.ui.app import App
from tests.harness import service_keys

ROOT = pathlib.Path(__file__).parent.parent
UNIT = ROOT / "systemd" / "companion.service"
INSTALL = ROOT / "systemd" / "install.sh"


def test_the_unit_scores_below_one_safe_in_systemd_analyze() -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI"):
            pytest.fail("systemd-analyze is missing: .ci/run installs the systemd package")
        pytest.skip("systemd-analyze is not installed here (CI installs it)")
    run = subprocess.run([analyze, "security", "--offline=yes", str(UNIT)],
                         capture_output=True, text=True, timeout=120)
    found = re.search(r"Overall exposure level for companion\.service: (\d+\.\d+) (\w+)",
                      run.stdout)
    assert found, run.stdout[-500:] + run.stderr
    score, verdict = float(found.group(1)), found.group(2)
    assert score < 1.0 and verdict == "SAFE", f"{score} {verdict}"


def test_the_unit_runs_as_its_own_user_with_only_the_device_groups_it_needs() -> None:
    keys = service_keys()
    assert keys["User"] == ["companion"] and keys["Group"] == ["companion"]
    assert "DynamicUser" not in keys  # a fixed user keeps the device groups
    assert keys["NoNewPrivileges"] == ["yes"] and keys["CapabilityBoundingSet"] == [""]
    assert keys["AmbientCapabilities"] == [""]
    # The groups come from install.sh: exactly the devices the hardware needs.
    wanted = re.search(r'GROUPS_WANTED="([^"]*)"', INSTALL.read_text())
    assert wanted and set(wanted.group(1).split()) == {"gpio", "i2c", "spi", "dialout"}
    assert keys["DevicePolicy"] == ["closed"]
    assert {v.split()[0] for v in keys["DeviceAllow"]} == {
        "char-gpiochip", "char-i2c", "char-spi", "char-ttyUSB", "char-ttyACM"}


def test_the_unit_has_no_network_and_no_listening_socket() -> None:
    keys = service_keys()
    assert keys["PrivateNetwork"] == ["yes"]
    assert keys["RestrictAddressFamilies"] == ["AF_UNIX"]  # sd_notify and the journal only
    assert keys["IPAddressDeny"] == ["any"]
    assert not {"Sockets", "ListenStream", "ListenDatagram", "IPAddressAllow"} & set(keys)
    # The one socket is the phone view's, installed only with its drop-in (docs/phone.md).
    assert [p.name for p in UNIT.parent.glob("*.socket")] == ["companion-phone.socket"]
    assert "Sockets=companion-phone.socket" in (UNIT.parent / "phone-view.conf").read_text()


def test_the_unit_sees_a_read_only_system_and_writes_only_its_state() -> None:
    keys = service_keys()
    assert keys["ProtectSystem"] == ["strict"] and keys["ProtectHome"] == ["yes"]
    assert "ReadWritePaths" not in keys  # the only writable places are its own directories
    assert keys["StateDirectory"] == ["companion"] and keys["RuntimeDirectory"] == ["companion"]
    assert keys["PrivateTmp"] == ["yes"]


def test_the_unit_is_watched_and_restarted_if_it_hangs() -> None:
    keys = service_keys()
    assert keys["Type"] == ["notify"]
    (watchdog,) = keys["WatchdogSec"]
    assert re.fullmatch(r"\d+s?", watchdog) and int(watchdog.rstrip("s")) > 0
    assert keys["Restart"] == ["on-failure"]  # a watchdog kill is a failure


# --- the watchdog itself: a stuck main loop stops the pings ---


@pytest.fixture
def notify_socket(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """A fake systemd: the datagram socket $NOTIFY_SOCKET names."""
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(address)
        monkeypatch.setenv("NOTIFY_SOCKET", address)
        yield sock


def next_message(sock: socket.socket, seconds: float) -> str | None:
    sock.settimeout(seconds)
    try:
        return sock.recv(256).decode()
    except (TimeoutError, BlockingIOError):  # nothing within the time (or at once, for 0)
        return None


def test_watchdog_period_is_half_of_what_systemd_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_period() == 15.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert watchdog_period() is None


def test_a_stuck_main_loop_stops_sending_watchdog_pings(tmp_path: pathlib.Path,
                                                         notify_socket: socket.socket) -> None:
    period = 0.05
    stuck, release = threading.Event(), threading.Event()
    events: queue.Queue[object] = queue.Queue()

    def serve() -> None:
        """The daemon as runner.py starts it, in the thread that owns its state."""
        store = Store(str(tmp_path / "companion.sqlite"))
        app = App(store, Config())
        handle = app.handle

        def handle_or_hang(intent: Intent) -> None:
            if intent.kind == "roll":  # a bug that never returns
                stuck.set()
                release.wait()
            handle(intent)

        app.handle = handle_or_hang  # type: ignore[method-assign]
        output = Output(lambda: dummy(width=128, height=64, mode="1"), shift=False)
        try:
            Daemon(app, output, events, watchdog=period).run()
        finally:
            store.close()

    loop = threading.Thread(target=serve)
    loop.start()
    try:
        assert next_message(notify_socket, 30) == "READY=1"
        for _ in range(3):  # a healthy idle loop wakes by itself to ping
            assert next_message(notify_socket, 30) == "WATCHDOG=1"
        events.put(Intent("roll"))
        assert stuck.wait(30)
        while next_message(notify_socket, 0) is not None:
            pass  # pings sent before the loop got stuck
        # Forty periods: systemd would have killed and restarted the service long since.
        assert next_message(notify_socket, 40 * period) is None
        release.set()
        assert next_message(notify_socket, 30) == "WATCHDOG=1"  # alive again, pinging again
    finally:
        release.set()
        events.put(Stop("test over"))
        loop.join(30)
    assert not loop.is_alive()
