"""Serial ports (pyserial): a die reader or a console on USB, read by one thread each.

A reader thread only cuts bytes into bounded lines and puts them on the daemon's queue,
with a :class:`PortStatus` whenever the device comes or goes; the main loop interprets the
lines and answers through :meth:`SerialPort.done`, on its own thread. pyserial never
reconnects by itself, so the thread does: when the device is unplugged (a read fails) or
missing (the open fails), it closes, waits (0.5 s, then twice as long each time up to 5 s)
and opens the same path again. ``/dev/serial/by-id/...`` paths name the device, not the
order it was plugged in, so the same reader comes back under the same path.

The port is opened exclusively (``flock``): a second program, or a second companion, gets
"port is busy" instead of stealing half the lines.

Answers never make the main loop wait: :meth:`SerialPort.done` puts them in a bounded
outbox, and a writer thread per port sends them. A device that stops reading (firmware
stuck, a terminal paused) fills the kernel's buffer and then the outbox; from then on the
oldest answers are dropped and counted, with one log line when it starts and one with the
count when the device reads again.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import serial

log = logging.getLogger(__name__)

MAX_LINE = 256  # bytes in a line, line end not counted; longer lines are refused whole
WAITING = 16  # lines read but not yet answered; past this the thread stops reading
RETRY_FIRST, RETRY_LONGEST = 0.5, 5.0  # seconds between attempts to open a missing device
WRITE_TIMEOUT = 1.0  # an answer the device does not take in this time is dropped
OUTBOX = 32  # answers waiting for the writer thread; past this the oldest are dropped
ENDING = b"\r\n"  # after every answer: what terminals and line readers both expect


@dataclass(frozen=True)
class SerialLine:
    """One line from a port, without its line end. ``overflow``: it was longer than
    :data:`MAX_LINE` and ``data`` holds only its start."""

    port: str
    data: bytes
    overflow: bool = False


@dataclass(frozen=True)
class PortStatus:
    """A port was opened (``connected``) or lost; ``detail`` says why, for the log."""

    port: str
    connected: bool
    detail: str = ""


class LineCutter:
    """Cuts a byte stream into lines ended by LF, CR or CR-LF, at most ``limit`` bytes each.

    Terminal programs send CR for Enter, files and microcontrollers LF or CR-LF: all end a
    line, and the LF of a CR-LF does not end a second, empty one. An over-long line is
    reported once, as soon as it passes the limit, and the rest of it is skipped.

    >>> cut = LineCutter(limit=4)
    >>> list(cut.feed(b"die 4\\r\\nok\\n12"))
    [(b'die ', True), (b'ok', False)]
    >>> list(cut.feed(b"3\\r"))
    [(b'123', False)]
    """

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self.line = bytearray()
        self.skipping = False  # inside an over-long line, already reported
        self.after_cr = False

    def feed(self, chunk: bytes) -> Iterator[tuple[bytes, bool]]:
        """The lines (and over-long starts) that ``chunk`` completes."""
        for byte in chunk:
            if byte == 0x0A and self.after_cr:
                self.after_cr = False
                continue
            self.after_cr = byte == 0x0D
            if byte in (0x0A, 0x0D):
                if not self.skipping:
                    yield bytes(self.line), False
                self.line.clear()
                self.skipping = False
            elif not self.skipping:
                self.line.append(byte)
                if len(self.line) > self.limit:
                    yield bytes(self.line[:self.limit]), True
                    self.line.clear()
                    self.skipping = True


Opener = Callable[..., Any]


def deliver(handle: Any, data: bytes, timeout: float = WRITE_TIMEOUT) -> None:
    """Write ``data``, waiting for room with ``select`` for at most ``timeout`` seconds
    (then SerialTimeoutException).

    Why not pyserial's own write timeout: pyserial 3.5 on POSIX retries a write that
    fails with EAGAIN (the device's buffer is full) at once, without waiting, so a device
    that stops reading makes it spin a core for the whole timeout. Its descriptor is
    non-blocking, so it is written here directly once ``select`` says there is room.
    Handles without a descriptor (pyserial URL handlers such as ``loop://``) never block
    and are written through pyserial.
    """
    try:
        fd = handle.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        handle.write(data)
        return
    view = memoryview(data)
    end = time.monotonic() + timeout
    while view:
        left = end - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise serial.SerialTimeoutException("Write timeout")
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:  # room for less than the kernel wanted: wait again
            continue


class SerialPort:
    """One configured port: a reader thread that reopens the device whenever it comes back.

    ``url`` is a device path (``/dev/serial/by-id/...``, ``/dev/ttyACM0``) or a pyserial URL
    (``loop://`` in tests).
    """

    def __init__(self, name: str, url: str, baud: int, events: queue.Queue[object],
                 retry: tuple[float, float] = (RETRY_FIRST, RETRY_LONGEST),
                 opener: Opener = serial.serial_for_url) -> None:
        self.name = name
        self.url = url
        self.baud = baud
        self.events = events
        self.retry = retry
        self.opener = opener
        self.connected: bool | None = None  # None until the first attempt
        self._handle: Any = None
        self._lock = threading.Lock()  # guards _handle between the reader and the writer
        self._room = threading.Semaphore(WAITING)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"serial {name}", daemon=True)
        self._outbox: deque[bytes] = deque()
        self._mail = threading.Condition(threading.RLock())  # the outbox and the drop count
        self.dropped = 0  # answers dropped because the device did not read them
        self._dropping = 0  # dropped in the current episode (logged when it ends)
        self.writer = threading.Thread(target=self._send, name=f"serial {name} writer",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()
        self.writer.start()

    def close(self) -> None:
        """Stop the thread and release the device (explicit lifetimes: no ``__del__``)."""
        self._stop.set()
        with self._lock:
            if self._handle is not None:
                self._handle.cancel_read()
        for _ in range(WAITING):  # a thread waiting for room must see the stop too
            self._room.release()
        with self._mail:
            self._mail.notify_all()
        self.thread.join(timeout=5)
        self.writer.join(timeout=WRITE_TIMEOUT + 5)

    # --- the main loop's side ---

    def done(self, answer: str | None) -> None:
        """A line from this port was handled: queue its answer (if any) for the writer
        thread, and make room for one more line.

        Runs on the main thread and never waits on the device. An answer for a device that
        is gone is dropped; the game has already changed (or not) either way.
        """
        self._room.release()
        if answer is None:
            return
        if self._handle is None:  # a read of one reference: no lock needed
            log.info("%s: not connected; answer dropped: %s", self.name, answer)
            return
        with self._mail:
            if len(self._outbox) >= OUTBOX:
                self._outbox.popleft()
                self._drop(f"{OUTBOX} answers waiting")
            self._outbox.append(answer.encode("utf-8") + ENDING)
            self._mail.notify_all()

    # --- the writer thread ---

    def _send(self) -> None:
        """Write queued answers one by one; a device that does not take one within
        :data:`WRITE_TIMEOUT` loses it."""
        while True:
            with self._mail:
                while not self._outbox and not self._stop.is_set():
                    self._mail.wait()
                if self._stop.is_set():
                    return
                data = self._outbox.popleft()
                self._mail.notify_all()  # room in the outbox: a waiting reader reads on
            # Under the lock: the reader must not close the handle in mid-write. It waits
            # at most WRITE_TIMEOUT, and only when it is giving the device up anyway.
            with self._lock:
                if self._handle is None:
                    continue
                try:
                    deliver(self._handle, data)
                except serial.SerialTimeoutException:
                    self._drop("its answer was not taken in time")
                    continue
                except (serial.SerialException, OSError) as err:  # the reader reports a loss
                    log.warning("%s: answer not sent (%s): %s", self.name, err,
                                data.decode("utf-8", "replace").strip())
                    continue
            self._caught_up()

    def _drop(self, why: str) -> None:
        """Count a dropped answer; the first of an episode is logged (call with or without
        the outbox's lock held: it is reentrant)."""
        with self._mail:
            self.dropped += 1
            self._dropping += 1
            first = self._dropping == 1
        if first:
            log.warning("%s: the device is not reading its answers (%s); dropping the oldest "
                        "answers and reading its lines slowly until it does", self.name, why)

    def _caught_up(self) -> None:
        """After a write: when the outbox has drained, close a dropping episode in the log."""
        with self._mail:
            if self._outbox or not self._dropping:
                return
            dropped, self._dropping = self._dropping, 0
        log.warning("%s: the device reads again; %d answers were dropped", self.name, dropped)

    # --- the reader thread ---

    def _run(self) -> None:
        delay = self.retry[0]
        while not self._stop.is_set():
            handle = self._open()
            if handle is None:
                self._stop.wait(delay)
                delay = min(delay * 2, self.retry[1])
                continue
            delay = self.retry[0]
            detail = self._read(handle)
            with self._lock:
                self._handle = None
            handle.close()
            if not self._stop.is_set():
                self._report(False, detail)

    def _open(self) -> Any:
        try:
            handle = self.opener(self.url, baudrate=self.baud, timeout=None,
                                 write_timeout=WRITE_TIMEOUT, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as err:
            self._report(False, str(err))
            return None
        with self._lock:
            self._handle = handle
        self._report(True, self.url)
        return handle

    def _read(self, handle: Any) -> str:
        """Read until the device goes away (the reason) or the port is closed ("")."""
        cutter = LineCutter()
        while not self._stop.is_set():
            try:
                chunk = handle.read(1)
                waiting = handle.in_waiting
                if waiting:
                    chunk += handle.read(waiting)
            except (serial.SerialException, OSError) as err:
                return str(err)
            for data, overflow in cutter.feed(chunk):
                if not self._put(SerialLine(self.name, data, overflow)):
                    return ""
        return ""

    def _put(self, line: SerialLine) -> bool:
        """Queue a line once the main loop has room for it; False when stopping.

        Waiting here stops the reading, so a flood of noise backs up into the device's
        and the kernel's buffers instead of filling memory. While the outbox is full (the
        device is not reading its answers) a line is passed on only once an answer has
        left it or every :data:`WRITE_TIMEOUT`: a stuck device that keeps sending costs
        the loop one line a second, and a die reader that never reads is still served.
        """
        self._room.acquire()
        if self._stop.is_set():
            return False
        with self._mail:  # a device that does not read its answers is read slowly
            self._mail.wait_for(lambda: len(self._outbox) < OUTBOX or self._stop.is_set(),
                                timeout=WRITE_TIMEOUT)
        self.events.put(line)
        return True

    def _report(self, connected: bool, detail: str) -> None:
        """Queue a status change (only changes: a missing device retried is not news)."""
        if connected == self.connected:
            return
        self.connected = connected
        log.info("%s %s: %s", self.name, "connected" if connected else "not connected", detail)
        self.events.put(PortStatus(self.name, connected, detail))
