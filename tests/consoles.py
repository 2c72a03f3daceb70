"""Helpers for the serial-console tests: a console wired to an app as the daemon wires it,
a ``loop://`` port the test can write into, and the loop stepped until a port's event."""

from __future__ import annotations

import json
import pathlib
import random
import time
from typing import Any

import serial

from companion.config import Config
from companion.console import Console
from companion.io.serial import PortStatus, SerialPort
from companion.store import Store
from companion.ui.app import App
from tests.harness import PATIENCE, Harness

FAST = (0.01, 0.05)  # retry back-off for tests: the same code path, shorter waits


class ConsoleBox:
    """An app with a console attached, as the daemon wires them (no devices)."""

    def __init__(self, directory: pathlib.Path) -> None:
        self.store = Store(str(directory / "games.sqlite"))
        self.app = App(self.store, Config(), rng=random.Random(3))
        self.console = Console(self.app)

    def send(self, text: str | bytes, port: str = "serial 1") -> str | None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        return self.console.line(data, port=port).answer

    def ok(self, *lines: str) -> list[str]:
        """Send lines that must all be accepted; their answers after ``ok``."""
        out = []
        for line in lines:
            answer = self.send(line)
            assert answer is not None and (answer == "ok" or answer.startswith("ok ")), (line, answer)
            out.append(answer[3:])
        return out

    def error(self, line: str | bytes) -> str:
        """Send a line that must be refused, and check that nothing changed."""
        session = self.app.session
        before = (session.gid, session.head, session.state) if session else None
        answer = self.send(line)
        assert answer is not None and answer.startswith("error: "), (line, answer)
        session = self.app.session
        assert ((session.gid, session.head, session.state) if session else None) == before
        return answer[len("error: "):]

    def state(self) -> dict[str, object]:
        (said,) = self.ok("state")
        parsed: dict[str, object] = json.loads(said)
        return parsed


class Loop:
    """An opener for ``loop://`` that keeps the handle, so the test can write into it."""

    def __init__(self) -> None:
        self.handle: Any = None

    def __call__(self, url: str, **settings: Any) -> Any:
        self.handle = serial.serial_for_url(url, **settings)
        return self.handle


def step_until(h: Harness, kind: type, seconds: float = PATIENCE) -> Any:
    """Hand queued events to the loop (reader threads put them there) up to one of ``kind``."""
    end = time.monotonic() + seconds
    while True:
        event = h.events.get(timeout=max(0.0, end - time.monotonic()))
        h.daemon.step(event)
        if isinstance(event, kind):
            return event


def attach(h: Harness, url: str, **more: Any) -> SerialPort:
    """A port on the harness's queue, answered by its loop, connected."""
    port = SerialPort("serial 1", url, 115200, h.events, retry=FAST, **more)
    h.daemon.ports[port.name] = port
    port.start()
    status = step_until(h, PortStatus)
    assert status.connected, status.detail
    return port


