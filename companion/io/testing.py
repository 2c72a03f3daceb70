"""The conformance test every input passes, on gpiozero's mock pins: :func:`check_input`.

In the spirit of trio's ``check_one_way_stream``: it is handed a way to make the input and
checks the contract of :class:`~companion.io.base.Input` from outside, through the pins
alone. The suite runs it for every registered input (``tests/test_input_kits.py``), so a new
input is checked by adding its registry line, and ``docs/adding-an-input.md``'s example
passes it too. It needs no pytest: a broken promise raises :class:`AssertionError` saying
which.

>>> from functools import partial
>>> from companion.io.shake import ShakeSettings, ShakeSwitch
>>> check_input(partial(ShakeSwitch, ShakeSettings(26)), idle=0.05)
"""

from __future__ import annotations

import logging
import os
import pathlib
import queue
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from gpiozero import DigitalInputDevice
from gpiozero.exc import PinInvalidPin
from gpiozero.pins.mock import MockFactory

from companion.config import parse
from companion.intents import KINDS, Intent
from companion.io import INPUTS
from companion.io.base import Edge, Input

#: Makes the input on the pins of the factory it is given, putting its events on the queue
#: and stamping them with the clock: ``functools.partial(ShakeSwitch, settings)``.
Make = Callable[[queue.Queue[object], MockFactory, Callable[[], float]], Input[Any]]
#: Seconds an opened input is watched for wake-ups while nobody touches it.
IDLE = 0.5


def lgpio_error(message: str) -> Exception:
    """What lgpio raises for a line another program holds, or a handle gone: its ``error``
    is a plain Exception, not an OSError."""
    return Exception(message)


class PinFactory(MockFactory):  # type: ignore[misc]
    """Mock pins that note every pin opened, and fail to open the pins in ``fails``."""

    def __init__(self, fails: dict[int, Exception] | None = None) -> None:
        super().__init__()
        self.fails = fails or {}
        self.opened: set[int] = set()

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        number = gpio_number(self, name)
        self.opened.add(number)
        if number in self.fails:
            raise self.fails[number]
        return super().pin(name, pin_class, **kwargs)


def gpio_number(factory: MockFactory, name: Any) -> int:
    """The BCM number of a pin gpiozero names in any of its ways (17, "GPIO17", "BOARD11")."""
    for _header, info in factory.board_info.find_pin(name):
        return int(str(info.name).removeprefix("GPIO"))
    raise PinInvalidPin(f"{name} is not a valid pin name")


class Clock:
    """A clock that the test moves on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def example(table: str) -> Make:
    """How to make the input registered under ``table``, set up by its own example table
    read as the configuration file's (``companion.io.base.Input.example``)."""
    kind = INPUTS[table].input
    settings = parse({table: dict(kind.example)}, f"{kind.__name__}.example").inputs[table]
    expect(settings is not None, f"{kind.__name__}.example does not set it up")
    return partial(kind, settings)


def check_input(make: Make, idle: float = IDLE) -> None:
    """Check that the input ``make`` opens keeps the promises of
    :class:`~companion.io.base.Input`; :class:`AssertionError` for the first it breaks.

    - It opens only pins it claims, and claims each pin once.
    - Driven through every claimed pin, it puts only intents and edges on the queue: edges
      of the roles its claims name, stamped by its clock; intents under a name the key test
      lists.
    - Closed, it frees every pin (each can be opened again) and sends nothing more.
    - A pin that is busy (lgpio's error) or does not exist (gpiozero's) when it opens, or
      whose line vanishes before it closes, costs a line in the log, never an exception;
      the lost pin is named in ``lost``, and the rest is still freed on close.
    - Left alone for ``idle`` seconds it sends nothing, and no thread of it wakes.
    """
    claims = check_opens_what_it_claims(make)
    check_emits_only_intents_and_edges(make)
    for pin in claims:
        check_survives_a_failing_pin(make, pin, lgpio_error("GPIO busy"))
        check_survives_a_failing_pin(make, pin, PinInvalidPin(f"GPIO{pin} does not exist"))
    check_survives_a_line_vanishing(make)
    check_sleeps_when_idle(make, idle)


def expect(holds: bool, promise: str) -> None:
    """An assertion that ``python -O`` keeps."""
    if not holds:
        raise AssertionError(promise)


def opened(make: Make, factory: PinFactory, events: queue.Queue[object] | None = None,
           clock: Callable[[], float] | None = None) -> Input[Any]:
    made = make(events if events is not None else queue.Queue(), factory, clock or Clock())
    expect(isinstance(made, Input), f"{made!r} is not an Input")
    return made


def check_opens_what_it_claims(make: Make) -> list[int]:
    """The pins it claims (each once), having checked it opens no other and frees them all."""
    factory = PinFactory()
    made = opened(make, factory)
    name = type(made).__name__
    try:
        pins = [claim.pin for claim in made.claimed()]
        expect(bool(pins), f"{name} claims no pin")
        expect(len(set(pins)) == len(pins), f"{name} claims a pin twice: {pins}")
        expect(factory.opened <= set(pins),
               f"{name} opened GPIO{sorted(factory.opened - set(pins))}, which it does not claim")
        expect(not made.lost, f"{name} lost pins on free mock pins: {made.lost}")
    finally:
        made.close()
    check_free(factory, pins, name)
    return pins


def check_free(factory: PinFactory, pins: list[int], name: str) -> None:
    """Every one of ``pins`` can be opened again on ``factory``."""
    for pin in pins:
        if pin in factory.fails:
            continue
        try:
            DigitalInputDevice(pin, pin_factory=factory).close()
        except Exception as err:
            raise AssertionError(f"{name} did not free GPIO{pin} on close: {err}") from None


def drive(factory: PinFactory, pins: list[int], clock: Clock) -> None:
    """Every pin low in turn, then high in turn, then the same the other way round: a press
    of each switch, and a detent each way of any two pins read as quadrature. The clock
    moves on two seconds between levels (past any settling or long press)."""
    for order in (pins, pins[::-1]):
        for level in ("drive_low", "drive_high"):
            for pin in order:
                clock.now += 2.0
                getattr(factory.pin(pin), level)()


def drained(events: queue.Queue[object]) -> list[object]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def check_emits_only_intents_and_edges(make: Make) -> None:
    factory, events, clock = PinFactory(), queue.Queue[object](), Clock()
    made = opened(make, factory, events, clock)
    name = type(made).__name__
    claims = made.claimed()
    roles = {claim.role for claim in claims if claim.role}
    listed = set(type(made).sources(made.settings))
    pins = [claim.pin for claim in claims]
    try:
        drive(factory, pins, clock)
        sent = drained(events)
    finally:
        made.close()
    expect(bool(sent), f"{name} sent nothing when each of its pins was driven")
    stamps = {1000.0 + 2.0 * step for step in range(1, 4 * len(pins) + 1)}
    for event in sent:
        if isinstance(event, Edge):
            expect(event.role in roles, f"{name} sent an edge of {event.role!r}, a role none of "
                   f"its claims names ({sorted(roles)})")
            expect(event.role in KINDS, f"{name} sent an edge of {event.role!r}, not a key role")
            expect(event.at in stamps, f"{name} stamped an edge {event.at}, not by its clock")
            expect(bool(event.source), f"{name} sent an edge without saying where it is wired")
        elif isinstance(event, Intent):
            expect(event.source in listed, f"{name} sent {event} from {event.source!r}, which is "
                   f"not among what the key test lists for it ({sorted(listed)})")
        else:
            raise AssertionError(f"{name} sent {event!r}: an input sends only intents and edges")
    drive(factory, pins, clock)
    expect(events.empty(), f"{name} still sends once closed: {drained(events)}")


@contextmanager
def logged(level: int = logging.WARNING) -> Iterator[list[str]]:
    """The log's lines at ``level`` and above while the block runs."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler, root = Keep(level), logging.getLogger()
    before = root.level
    root.addHandler(handler)
    if before > level:
        root.setLevel(level)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(before)


def check_survives_a_failing_pin(make: Make, pin: int, failure: Exception) -> None:
    factory = PinFactory({pin: failure})
    with logged() as lines:
        try:
            made = opened(make, factory)
        except Exception as err:
            raise AssertionError(f"GPIO{pin} failing ({failure}) made opening raise {err!r}") from None
    name = type(made).__name__
    try:
        expect(any(f"GPIO{pin}" in line for line in lines),
               f"{name}: GPIO{pin} failing ({failure}) left no line in the log naming it: {lines}")
        expect(bool(made.lost), f"{name}: GPIO{pin} failed ({failure}) and nothing is listed lost")
        claimed = {claim.pin for claim in made.claimed()}
        expect(all(lost.pin in claimed for lost in made.lost),
               f"{name} lists a lost pin it does not claim: {made.lost}")
    finally:
        made.close()
    check_free(factory, sorted(claimed), name)


def check_survives_a_line_vanishing(make: Make) -> None:
    """Each pin's line gone while the input is open (its GPIO chip unbound): closing logs
    it, raises nothing and still frees the others."""
    factory = PinFactory()
    made = opened(make, factory)
    name = type(made).__name__
    pins = [claim.pin for claim in made.claimed()]

    for pin in pins:
        mock = factory.pin(pin)
        mock.close = partial(vanished, mock)
    with logged() as lines:
        try:
            made.close()
        except Exception as err:
            raise AssertionError(f"{name}: closing with its lines gone raised {err!r}") from None
    expect(bool(lines), f"{name}: closing with its lines gone left no line in the log")
    check_free(factory, pins, name)


def vanished(mock: Any) -> None:
    """A mock pin's close, the first time: its line is gone (lgpio's error); the mock pin's
    own close from then on, as gpiozero retries it when the device is collected."""
    del mock.close
    raise lgpio_error("bad handle")


def context_switches(pid: int) -> dict[str, int]:
    """Per thread, voluntary plus involuntary context switches so far, from /proc."""
    counts = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text().splitlines()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        counts[task.name] = sum(int(line.split()[1]) for line in status
                                if line.split(":")[0].endswith("ctxt_switches"))
    return counts


def check_sleeps_when_idle(make: Make, idle: float) -> None:
    """Opened and left alone, it sends nothing and wakes no thread: the threads it started
    (gpiozero's ``Button`` would start one that wakes ten times a second) switch no more."""
    factory, events = PinFactory(), queue.Queue[object]()
    before = set(context_switches(os.getpid()))
    made = opened(make, factory, events)
    name = type(made).__name__
    try:
        time.sleep(0.05)  # a thread just started may still be getting to its wait
        start = {tid: n for tid, n in context_switches(os.getpid()).items() if tid not in before}
        time.sleep(idle)
        end = context_switches(os.getpid())
        woken = sum(end.get(tid, n) - n for tid, n in start.items())
        expect(woken == 0, f"{name}'s {len(start)} threads woke {woken} times in {idle} s idle")
        expect(events.empty(), f"{name} sent {drained(events)} while nobody touched it")
    finally:
        made.close()
