"""What an input device is: the interface every input implements, as every game implements
:class:`~companion.games.base.Game`.

An input (the build's keys, the rotary encoder, the tilt switch) is one class in a module of
its own and one registry line in :mod:`companion.io`. The class says:

- how it reads its own table of the configuration file (:meth:`Input.read`), and which GPIO
  pins those settings take, each under the key that gives it (:meth:`Input.claims`): the pin
  checks of ``companion run`` and ``companion doctor`` read these, and open nothing;
- what the key test lists for it (:meth:`Input.sources`);
- how it opens: the class itself, called with its settings, the daemon's queue, a gpiozero
  pin factory and a clock; from then on gpiozero's callbacks put only :class:`Intent` and
  :class:`Edge` values on the queue, and nothing of it wakes while nobody touches it;
- how it closes (:meth:`Input.close`), freeing every pin it opened.

A pin that cannot be opened costs only what it was for: one line in the log, and a
:class:`LostPin` the screen names. :func:`companion.io.testing.check_input` is the test every
input passes; docs/adding-an-input.md walks through writing one.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Generic, Literal, Protocol, TypeVar

from companion.intents import Intent, Role

if TYPE_CHECKING:
    import queue

    from gpiozero import Device, DigitalInputDevice, Factory

log = logging.getLogger(__name__)

Settings = TypeVar("Settings")
Opened = TypeVar("Opened", bound="Device")
#: One of a closed set of strings (:meth:`Table.choice`: a key's role).
C = TypeVar("C", bound=str)
Clock = Callable[[], float]


@dataclass(frozen=True)
class Edge:
    """A raw level change on a key: ``pressed`` True when it went down; ``source`` says
    where it is wired (``GPIO17``), for the key test. The daemon's key logic
    (:mod:`companion.io.keylogic`) debounces edges and times long presses into intents."""

    role: Role
    pressed: bool
    at: float
    source: str = field(default="", compare=False)


#: What an input may put on the daemon's queue.
Event = Intent | Edge


@dataclass(frozen=True)
class Claim:
    """A GPIO pin (BCM) that an input or the display takes, and where the configuration
    gives it.

    ``key`` is the configuration key to change to move the pin. ``given_by`` says where the
    pin comes from when that key does not name it itself (``the minimal preset``, ``the
    display``). ``role`` is the key role its edges report, if it is a key: the terminal
    emulator presses a role's pin.
    """

    pin: int
    name: str  # what it is for, in a few words: "up key", "encoder A", "tilt switch"
    key: str
    given_by: str = ""
    role: Role | Literal[""] = ""

    @property
    def owner(self) -> str:
        """Who has the pin, in the words a clash uses: ``shake.pin``, ``the minimal
        preset's up key``, ``the display's I2C1 SCL``."""
        return f"{self.given_by}'s {self.name}" if self.given_by else self.key


@dataclass(frozen=True)
class LostPin:
    """A pin that could not be opened (another driver or program holds it, or it does not
    exist): what it was for does nothing, and the log and the screen say so."""

    pin: int
    name: str  # what it was for: "select key", "encoder", "tilt switch"
    reason: str
    role: Role | Literal[""] = ""  # the key role it would have reported, if it is a key

    def line(self) -> str:
        """For the log: ``GPIO4 (select key) cannot be opened: GPIO busy``."""
        return f"GPIO{self.pin} ({self.name}) cannot be opened: {self.reason}"


class Table(Protocol):
    """An input's table of the configuration file (``companion.config``'s reader): each
    getter takes its key out of the table and checks it, :meth:`fail` is the one-line error
    that names the file and the key, and the keys nobody took are refused afterwards."""

    def pin(self, key: str) -> int | None: ...
    def seconds(self, key: str, default: float, positive: bool = False) -> float: ...
    def text(self, key: str, default: str, choices: tuple[str, ...] = ()) -> str: ...
    def path(self, key: str) -> str: ...
    def choice(self, key: str, default: C, choices: tuple[C, ...]) -> C: ...
    def table_of(self, key: str) -> Table: ...
    def fail(self, key: str, problem: str) -> Exception: ...
    def done(self) -> None: ...


class Input(ABC, Generic[Settings]):
    """One kind of input device; an instance is the device opened.

    Making one opens it: ``Input(settings, events, factory, clock)`` calls :meth:`open`.
    ``factory`` is the gpiozero pin factory for its pins (the emulator's or a test's mock
    pins); None: gpiozero's default, chosen from ``GPIOZERO_PIN_FACTORY`` or the Pi's own.
    ``clock`` stamps its edges (a test's fake clock).
    """

    #: Its table in the configuration file (``[shake]``), and its registry line's name.
    table: ClassVar[str]
    #: A table that sets it up, as the configuration file would write it: the documentation
    #: shows it, and the conformance test opens the input with it.
    example: ClassVar[Mapping[str, object]]

    @classmethod
    @abstractmethod
    def read(cls, table: Table) -> Settings | None:
        """Its settings from its table, every key checked (raise ``table.fail(key, why)``);
        None when the table does not set it up: it is then neither checked nor opened."""

    @classmethod
    @abstractmethod
    def claims(cls, settings: Settings) -> list[Claim]:
        """Every pin it opens with these settings."""

    @classmethod
    @abstractmethod
    def sources(cls, settings: Settings) -> list[str]:
        """What the key test lists for it, each crossed off when it reports: a key's role
        (an :class:`Edge`'s), or the ``source`` of the intents it sends."""

    @classmethod
    def emulated(cls) -> Settings | None:
        """Its settings in the terminal emulator, whose keyboard presses its mock pins by
        role; None (the default): it is not opened there."""
        return None

    def __init__(self, settings: Settings, events: queue.Queue[object],
                 factory: Factory | None = None, clock: Clock = time.monotonic) -> None:
        self.settings = settings
        self.events = events
        self.factory = factory
        self.clock = clock
        self.lost: list[LostPin] = []
        self.keys: set[Role] = set()  # the roles of its keys that opened (they can be held)
        self.devices: list[Device] = []
        self.open()

    @abstractmethod
    def open(self) -> None:
        """Open its pins with :meth:`device` (or :meth:`key`, for a switch that reports
        edges), giving gpiozero callbacks that only :meth:`emit`."""

    def claimed(self) -> list[Claim]:
        """The pins this input's settings take."""
        return type(self).claims(self.settings)

    def emit(self, event: Event) -> None:
        """Put an event on the daemon's queue: the one thing a callback does."""
        self.events.put(event)

    def device(self, make: Callable[[], Opened], pin: int, name: str, role: Role | Literal[""] = "",
               detail: str = "") -> Opened | None:
        """``make()`` a gpiozero device, kept for :meth:`close`. A pin that cannot be opened
        (busy, missing) is logged and listed in :attr:`lost`, and None comes back; a pin
        factory that cannot start at all (``BadPinFactory``) still raises, after closing
        what was opened: there is then no input at all, and the caller says so once.
        ``detail`` goes before the reason (the pins of a device that takes two)."""
        from gpiozero.exc import BadPinFactory

        try:
            made = make()
        except BadPinFactory:
            self.close()
            raise
        except Exception as err:  # lgpio's error is not an OSError; gpiozero's own are many
            lost = LostPin(pin, name, f"{detail}: {reason(err)}" if detail else reason(err), role)
            log.error("%s", lost.line())
            self.lost.append(lost)
            return None
        self.devices.append(made)
        if role:
            self.keys.add(role)
        return made

    def key(self, pin: int, role: Role, name: str = "", where: str = "") -> DigitalInputDevice | None:
        """A switch between ``pin`` and ground that reports its edges as the key ``role``;
        ``where`` names it for the key test (``GPIO17`` unless given)."""
        button = self.device(lambda: key_device(pin, self.factory), pin, name or f"{role} key", role)
        if button is not None:
            source = where or f"GPIO{pin}"
            button.when_activated = lambda: self.emit(Edge(role, True, self.clock(), source))
            button.when_deactivated = lambda: self.emit(Edge(role, False, self.clock(), source))
        return button

    def close(self) -> None:
        """Release every pin (explicit lifetimes: no reliance on ``__del__``). A pin that
        fails to close (its line gone with its GPIO chip) is logged, and the others are
        still closed: a composite device's parts (an encoder's two pins) one by one, since
        gpiozero's own close stops at the first part that fails."""
        devices, self.devices = self.devices, []
        for device in devices:
            failed = ""
            for part in (*getattr(device, "all", ()), device):
                try:
                    part.close()
                except Exception as err:
                    failed = failed or f"{part!r}: {reason(err)}"
            if failed:
                log.warning("%s: closing failed: %s", type(self).__name__, failed)


def key_device(pin: int, factory: Factory | None = None) -> DigitalInputDevice:
    """A switch between ``pin`` and ground (internal pull-up): pressed is active.

    A ``DigitalInputDevice``, not a ``Button``: a ``Button`` starts a hold thread that wakes
    ten times a second for ``when_held``, and long presses are the key logic's. No gpiozero
    ``bounce_time`` either: the debounce is ours, on the main thread (and MockPin has none).
    Edges arrive from the pin factory's own callback (lgpio's alert thread on a Pi, the
    driving thread under MockFactory); nothing of ours polls. The pin factory may: lgpio's C
    alert thread waits in ``ppoll`` with a 0.5 ms timeout while any line is watched (lg's
    ``lgPthAlerts.c``), and gpiozero's native factory polls every 10 ms.
    """
    from gpiozero import DigitalInputDevice  # loaded only when a pin opens

    return DigitalInputDevice(pin, pull_up=True, pin_factory=factory)  # None: gpiozero's default


def reason(err: Exception) -> str:
    """An error in a few words: lgpio's own text (``GPIO busy``) or the exception's."""
    return str(err) or type(err).__name__
