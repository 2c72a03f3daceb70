"""The main loop: one thread owns all state and blocks on one queue.

The inputs, the keyboard and the serial readers only put events on the queue. The
loop wakes for an event or for the next thing the clock owes it (a debounce or long press
settling, dimming, blanking, the burn-in shift, the systemd watchdog), and otherwise sleeps:
an idle companion uses no CPU.
"""

from __future__ import annotations

import gc
import logging
import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.console import Console, Reply
from companion.intents import Intent
from companion.io.base import Edge
from companion.io.display import Output
from companion.io.keyboard import Quit
from companion.io.keylogic import KeyLogic
from companion.io.serial import PortStatus, SerialLine, SerialPort
from companion.io.systemd import notify
from companion.phone import PhoneView
from companion.ui.app import App

log = logging.getLogger(__name__)

SHIFT_PERIOD = 120.0  # seconds between burn-in shifts of the picture


@dataclass(frozen=True)
class Stop:
    """Ask the loop to end (tests, a scripted run, SIGTERM)."""

    reason: str = ""


class Daemon:
    """Wires the queue, the key logic, the app and the display together."""

    def __init__(self, app: App, output: Output, events: queue.Queue[object],
                 keys: KeyLogic | None = None, clock: Callable[[], float] = time.monotonic,
                 watchdog: float | None = None, ports: Mapping[str, SerialPort] | None = None,
                 phone: PhoneView | None = None) -> None:
        self.app = app
        self.output = output
        self.events = events
        self.keys = keys or KeyLogic()
        self.clock = clock
        self.watchdog = watchdog
        self.started = clock()
        self.last_input = self.started
        self.last_watchdog = self.started
        self.presses = 0
        self.ports = dict(ports or {})  # by name: where a serial line's answer goes
        self.console = Console(app)
        self.phone = phone
        # What each kind of event does, found by its type in one lookup. Every input puts
        # only intents and edges on the queue, so a new input adds nothing here; an event
        # of another type (or of a subclass) is ignored.
        self.handlers: dict[type[Any], Callable[[Any, float], None]] = {
            Intent: self.press, Edge: self.edge, SerialLine: self.serial_line,
            PortStatus: self.port_status}

    def run(self) -> None:
        """Show the first screen, tell systemd we are up, then serve events until stopped."""
        self.refresh()
        # What start-up built (modules, fonts, the game so far) lives as long as the daemon:
        # moved out of the collector's sight, a later full collection no longer walks it in
        # the middle of a press.
        gc.freeze()
        notify("READY=1")
        log.info("ready")
        while True:
            event = self.wait()
            if isinstance(event, (Stop, Quit)):
                log.info("stopping %s", getattr(event, "reason", ""))
                break
            self.step(event)
        notify("STOPPING=1")

    def wait(self) -> object | None:
        """Block until an event arrives or the clock owes us something."""
        deadline = self.deadline()
        timeout = None if deadline is None else max(0.0, deadline - self.clock())
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def step(self, event: object | None) -> None:
        """Handle one event (or a timeout) and show the result."""
        now = self.clock()
        handler = self.handlers.get(type(event))
        if handler is not None:
            handler(event, now)
        for intent in self.keys.due(now):
            self.press(intent, now)
        self.care(now)
        self.app.tick(now)
        if self.watchdog is not None and now - self.last_watchdog >= self.watchdog:
            notify("WATCHDOG=1")
            self.last_watchdog = now
        self.refresh()

    def edge(self, edge: Edge, now: float) -> None:
        """A key's raw edge: the key test shows it as it is; otherwise the key logic reads it."""
        if self.app.take_edge(edge):
            self.last_input = now  # the key test shows every raw edge; the key logic sees none
            self.output.set_level("bright")
        else:
            self.keys.feed(edge)

    def port_status(self, event: PortStatus, now: float) -> None:
        """A serial port's device came or went."""
        self.app.link(event.port, event.connected)

    def press(self, intent: Intent, now: float) -> None:
        """One intent; on a dimmed or blank screen the first press only wakes it."""
        self.last_input = now
        if self.output.level != "bright":
            self.output.set_level("bright")
            return
        self.presses += 1
        try:
            self.app.handle(intent)
        except Exception:  # a bug must not take the table's game down with it
            log.exception("error handling %s", intent)
            self.app.toast("internal error: see the log")

    def serial_line(self, event: SerialLine, now: float) -> None:
        """A die reader's or console's line: acted on at once, even on a dark screen (it
        was sent on purpose), and answered on the port it came from."""
        try:
            reply = self.console.line(event.data, event.overflow, event.port)
        except Exception:  # a bug must not take the table's game down with it
            log.exception("error handling serial line %r", event.data)
            reply = Reply("error: internal error; see the log")
        if reply.shown:
            self.last_input = now
            self.output.set_level("bright")
        port = self.ports.get(event.port)
        if port is not None:
            port.done(reply.answer)

    def care(self, now: float) -> None:
        """Dim after a quiet spell, blank after a longer one."""
        screen = self.app.config.screen
        idle = now - self.last_input
        if screen.blank_after and idle >= screen.blank_after:
            self.output.set_level("blank")
        elif screen.dim_after and idle >= screen.dim_after:
            self.output.set_level("dim")

    def refresh(self) -> None:
        """Draw the top screen; the output sends it only if it changed."""
        if self.output.level == "blank":
            return
        self.output.shift = self.app.config.screen.shift and not self.app.exact_pixels()
        frame = self.app.frame()
        self.output.show(frame, self.shift_step(self.clock()))
        if self.phone is not None:  # after the panel has the frame: pages never delay it
            self.phone.publish(self.app, frame)

    def shift_step(self, now: float) -> int:
        return int((now - self.started) // SHIFT_PERIOD)

    def deadline(self) -> float | None:
        """The next moment the loop must wake without an event."""
        screen = self.app.config.screen
        times = [t for t in (self.keys.deadline(),) if t is not None]
        if self.output.level == "bright" and screen.dim_after:
            times.append(self.last_input + screen.dim_after)
        if self.output.level != "blank" and screen.blank_after:
            times.append(self.last_input + screen.blank_after)
        if self.output.level != "blank" and screen.shift:
            times.append(self.started + (self.shift_step(self.clock()) + 1) * SHIFT_PERIOD)
        if self.watchdog is not None:
            times.append(self.last_watchdog + self.watchdog)
        # A lost display is retried by refresh(), which draws nothing on a blank screen:
        # waking for the retry then would find it still due and spin. The press that
        # lights the screen again retries it.
        if self.output.retry_at is not None and self.output.level != "blank":
            times.append(self.output.retry_at)
        shown_until = self.app.deadline()  # a result line that goes after a while
        if shown_until is not None:
            times.append(shown_until)
        return min(times) if times else None
