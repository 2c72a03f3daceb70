"""Buttons and the rotary encoder (gpiozero), and the key logic that turns edges into intents.

gpiozero callbacks only put :class:`Edge` values on the daemon's queue. The main loop feeds
them to :class:`KeyLogic`, which does the debouncing (a level must hold for ``debounce``
seconds to count: ours, so tests can prove it; lgpio's own bounce time may sit on top) and
the long press (held ``long_press`` seconds: the context menu, and the release then does
nothing, as on EdgeTX radios).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from gpiozero import Device, DigitalInputDevice, RotaryEncoder

from companion.ui.intents import ENCODER, Intent

#: BCM pins per build (hardware/README.md has the wiring).
PRESETS: dict[str, dict[str, int]] = {
    "adafruit-bonnet": {"up": 17, "down": 22, "left": 27, "right": 23, "select": 4,
                        "roll": 5, "back": 6},
    "waveshare-oled-hat": {"up": 6, "down": 19, "left": 5, "right": 26, "select": 13,
                           "roll": 21, "context": 20, "back": 16},
    "minimal": {"up": 17, "down": 27, "select": 22},
    "custom": {},
}
#: The terminal emulator's virtual pins: every role, on mock pins only.
EMULATOR_PINS = {"up": 5, "down": 6, "left": 12, "right": 13, "select": 16, "back": 19,
                 "context": 20, "roll": 21}
#: Roles whose long press opens the context menu (their short press acts on release).
LONG_PRESS_ROLES = frozenset({"select"})


@dataclass(frozen=True)
class Edge:
    """A raw level change on a button: ``pressed`` True when it went down; ``source`` says
    where it is wired (``GPIO17``), for the key test."""

    role: str
    pressed: bool
    at: float
    source: str = field(default="", compare=False)


@dataclass
class _Key:
    raw: bool = False
    stable: bool = False
    changed: float = 0.0
    down_since: float | None = None
    held: bool = False


@dataclass
class KeyLogic:
    """Debounce and long press, driven by edges and the clock; no threads, no sleeping.

    >>> keys = KeyLogic(debounce=0.02, long_press=0.6)
    >>> keys.feed(Edge("up", True, 0.0)); keys.due(0.01)
    []
    >>> keys.due(0.03)
    [Intent(kind='up', value=0)]
    """

    debounce: float = 0.02
    long_press: float = 0.6
    keys: dict[str, _Key] = field(default_factory=dict)

    def feed(self, edge: Edge) -> None:
        """A raw edge; it counts only once it has held for the debounce time."""
        key = self.keys.setdefault(edge.role, _Key())
        if edge.pressed != key.raw:
            key.raw = edge.pressed
            key.changed = edge.at

    def deadline(self) -> float | None:
        """When :meth:`due` next has something to do (``None``: nothing pending)."""
        times = [k.changed + self.debounce for k in self.keys.values() if k.raw != k.stable]
        times += [k.down_since + self.long_press for role, k in self.keys.items()
                  if role in LONG_PRESS_ROLES and k.down_since is not None and not k.held]
        return min(times) if times else None

    def due(self, now: float) -> list[Intent]:
        """The intents that became true by ``now``."""
        out: list[Intent] = []
        for role, key in self.keys.items():
            if key.raw != key.stable and now >= key.changed + self.debounce:
                key.stable = key.raw
                out += self._settled(role, key, key.changed + self.debounce)
            if (role in LONG_PRESS_ROLES and key.down_since is not None and not key.held
                    and now >= key.down_since + self.long_press):
                key.held = True
                out.append(Intent("context"))
        return out

    def _settled(self, role: str, key: _Key, at: float) -> list[Intent]:
        if role not in LONG_PRESS_ROLES:
            return [Intent(role)] if key.stable else []
        if key.stable:
            key.down_since, key.held = at, False
            return []
        held, key.down_since, key.held = key.held, None, False
        return [] if held else [Intent(role)]


def pins_for(preset: str, custom: Mapping[str, int]) -> dict[str, int]:
    """The preset's pins with the configured ones laid over them."""
    pins = dict(PRESETS[preset])
    pins.update(custom)
    return pins


class ButtonBank:
    """gpiozero input devices (and an optional encoder) that only enqueue edges and intents.

    Each key is a :class:`DigitalInputDevice`, not a ``Button``: a ``Button`` starts a hold
    thread that wakes ten times a second for ``when_held``, and the long press here is
    :class:`KeyLogic`'s. So an idle box sleeps until a pin changes.
    """

    def __init__(self, pins: Mapping[str, int], events: queue.Queue[object],
                 encoder: tuple[int, int, int | None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.events = events
        self.clock = clock
        self.buttons: dict[str, DigitalInputDevice] = {}
        for role, pin in pins.items():
            self.buttons[role] = self._button(role, pin)
        # The encoder's push is a second select button: kept under its own name so both
        # stay open, reporting as select.
        self.encoder: RotaryEncoder | None = None
        if encoder is not None:
            a, b, push = encoder
            self.encoder = RotaryEncoder(a, b)
            self.encoder.when_rotated_clockwise = lambda: events.put(Intent("down", source=ENCODER))
            self.encoder.when_rotated_counter_clockwise = lambda: events.put(Intent("up", source=ENCODER))
            if push is not None:
                self.buttons["encoder-push"] = self._button("select", push, f"encoder push GPIO{push}")

    def _button(self, role: str, pin: int, where: str = "") -> DigitalInputDevice:
        # No gpiozero bounce_time: the debounce is KeyLogic's, on the main thread.
        button = key_device(pin)
        where = where or f"GPIO{pin}"
        button.when_activated = lambda: self.events.put(Edge(role, True, self.clock(), where))
        button.when_deactivated = lambda: self.events.put(Edge(role, False, self.clock(), where))
        return button

    def close(self) -> None:
        """Release the pins (explicit lifetimes: no reliance on ``__del__``)."""
        for button in self.buttons.values():
            button.close()
        if self.encoder is not None:
            self.encoder.close()


def key_device(pin: int) -> DigitalInputDevice:
    """A switch between ``pin`` and ground (internal pull-up): pressed is active.

    Edges arrive from the pin factory's own callback (lgpio's alert thread on a Pi, the
    driving thread under MockFactory); nothing of ours polls. The pin factory may: lgpio's C
    alert thread waits in ``ppoll`` with a 0.5 ms timeout while any line is watched (lg's
    ``lgPthAlerts.c``), and gpiozero's native factory polls every 10 ms.
    """
    return DigitalInputDevice(pin, pull_up=True)


def mock_pin(pin: int) -> object:
    """The mock pin behind a BCM number (emulator and tests)."""
    return Device.pin_factory.pin(pin)
