"""Buttons and the rotary encoder (gpiozero), and the key logic that turns edges into intents.

gpiozero callbacks only put :class:`Edge` values on the daemon's queue. The main loop feeds
them to :class:`KeyLogic`, which does the debouncing (a level must hold for ``debounce``
seconds to count: ours, so tests can prove it; lgpio's own bounce time may sit on top) and
the long press (held ``long_press`` seconds: the context menu, and the release then does
nothing, as on EdgeTX radios).
"""

from __future__ import annotations

import queue
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from gpiozero import DigitalInputDevice, Factory, RotaryEncoder
from gpiozero.exc import BadPinFactory

from companion.config import Config
from companion.exc import ConfigError
from companion.intents import ENCODER, Intent

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
#: What a long press of a role means; such a role's short press acts on its release.
HOLDS = {"select": "context"}
#: A box whose select key cannot be opened still plays: a long press of the first of these
#: keys it has acts as select (its short press keeps its own meaning), and where there is
#: no context key either, a long press of the first other key opens the context menu.
SELECT_STAND_INS = ("right", "down", "roll", "up", "left", "back", "context")
CONTEXT_STAND_INS = ("left", "up", "back", "roll", "down", "right")


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
    holds: dict[str, str] = field(default_factory=lambda: dict(HOLDS))

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
                  if role in self.holds and k.down_since is not None and not k.held]
        return min(times) if times else None

    def due(self, now: float) -> list[Intent]:
        """The intents that became true by ``now``."""
        out: list[Intent] = []
        for role, key in self.keys.items():
            if key.raw != key.stable and now >= key.changed + self.debounce:
                key.stable = key.raw
                out += self._settled(role, key, key.changed + self.debounce)
            if (role in self.holds and key.down_since is not None and not key.held
                    and now >= key.down_since + self.long_press):
                key.held = True
                out.append(Intent(self.holds[role]))
        return out

    def _settled(self, role: str, key: _Key, at: float) -> list[Intent]:
        if role not in self.holds:
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


@dataclass(frozen=True)
class LostPin:
    """A pin that could not be opened (another driver or program holds it, or it does
    not exist): the key it was meant for does nothing, and the screen and the log say so."""

    role: str
    pin: int
    reason: str
    what: str = ""  # what the pin was for, when not a key: "encoder", "tilt switch"

    @property
    def label(self) -> str:
        return self.what or f"{self.role} key"

    def line(self) -> str:
        """For the log: ``GPIO4 (select key) cannot be opened: GPIO busy``."""
        return f"GPIO{self.pin} ({self.label}) cannot be opened: {self.reason}"


def stand_ins(roles: set[str]) -> dict[str, str]:
    """What a long press of each key means, given the roles that still have a key.

    >>> stand_ins({"up", "down", "select"})
    {'select': 'context'}
    >>> stand_ins({"up", "down"})  # the minimal build without its select key
    {'down': 'select', 'up': 'context'}
    """
    if "select" in roles:
        return dict(HOLDS)
    holds: dict[str, str] = {}
    select = next((role for role in SELECT_STAND_INS if role in roles), None)
    if select is None:
        return holds
    holds[select] = "select"
    if "context" not in roles:
        context = next((r for r in CONTEXT_STAND_INS if r in roles and r != select), None)
        if context is not None:
            holds[context] = "context"
    return holds


def hold_hint(holds: dict[str, str]) -> str:
    """How to play without a select key, in words (``""`` when select works)."""
    if "select" in holds:
        return ""
    words = [f"hold {role} = {meaning}" for role, meaning in holds.items()]
    return "; ".join(words) if words else "no key left to select with"


class ButtonBank:
    """gpiozero input devices (and an optional encoder) that only enqueue edges and intents.

    Each key is a :class:`DigitalInputDevice`, not a ``Button``: a ``Button`` starts a hold
    thread that wakes ten times a second for ``when_held``, and the long press here is
    :class:`KeyLogic`'s. So an idle box sleeps until a pin changes.

    A pin that cannot be opened costs only its own key: it is listed in :attr:`lost`, and
    :meth:`holds` gives the long presses that stand in for a lost select key. A pin factory
    that cannot start at all (:class:`~gpiozero.exc.BadPinFactory`) still raises: there
    are no buttons, and the caller says so once.

    ``factory`` is the gpiozero pin factory for all of them (the emulator's mock pins);
    None: gpiozero's default, chosen from GPIOZERO_PIN_FACTORY or the Pi's own.
    """

    def __init__(self, pins: Mapping[str, int], events: queue.Queue[object],
                 encoder: tuple[int, int, int | None] | None = None,
                 clock: Callable[[], float] = time.monotonic, factory: Factory | None = None) -> None:
        self.events = events
        self.clock = clock
        self.factory = factory
        self.buttons: dict[str, DigitalInputDevice] = {}
        self.lost: list[LostPin] = []
        self.roles: set[str] = set()  # the roles that have a working key
        for role, pin in pins.items():
            self._add(role, role, pin)
        # The encoder's push is a second select button: kept under its own name so both
        # stay open, reporting as select.
        self.encoder: RotaryEncoder | None = None
        if encoder is not None:
            a, b, push = encoder
            self.encoder = self._encoder(a, b)
            if push is not None:
                self._add("encoder-push", "select", push, f"encoder push GPIO{push}")

    def _add(self, name: str, role: str, pin: int, where: str = "") -> None:
        try:
            self.buttons[name] = self._button(role, pin, where)
        except BadPinFactory:
            self.close()
            raise
        except Exception as err:
            self.lost.append(LostPin(role, pin, reason(err)))
        else:
            self.roles.add(role)

    def _encoder(self, a: int, b: int) -> RotaryEncoder | None:
        try:
            encoder = RotaryEncoder(a, b, pin_factory=self.factory)
        except BadPinFactory:
            self.close()
            raise
        except Exception as err:
            self.lost.append(LostPin("encoder", a, f"GPIO{a}/GPIO{b}: {reason(err)}", "encoder"))
            return None
        encoder.when_rotated_clockwise = lambda: self.events.put(Intent("down", source=ENCODER))
        encoder.when_rotated_counter_clockwise = lambda: self.events.put(Intent("up", source=ENCODER))
        self.roles.update(("up", "down"))
        return encoder

    def _button(self, role: str, pin: int, where: str = "") -> DigitalInputDevice:
        # No gpiozero bounce_time: the debounce is KeyLogic's, on the main thread.
        button = key_device(pin, self.factory)
        where = where or f"GPIO{pin}"
        button.when_activated = lambda: self.events.put(Edge(role, True, self.clock(), where))
        button.when_deactivated = lambda: self.events.put(Edge(role, False, self.clock(), where))
        return button

    def holds(self) -> dict[str, str]:
        """What a long press of each working key means (select's stand-in if it was lost)."""
        return stand_ins(self.roles)

    def close(self) -> None:
        """Release the pins (explicit lifetimes: no reliance on ``__del__``)."""
        for button in self.buttons.values():
            button.close()
        if self.encoder is not None:
            self.encoder.close()


def reason(err: Exception) -> str:
    """An error in a few words: lgpio's own text (``GPIO busy``) or the exception's."""
    return str(err) or type(err).__name__


# --- pins used twice: a configuration error, found before any pin is opened ---

#: Header pins a display takes, by interface (luma's SPI defaults: DC 24, RST 25, CE0 8).
I2C_PINS = {2: "the display's I2C SDA", 3: "the display's I2C SCL"}
SPI_PINS = {10: "the display's SPI MOSI", 11: "the display's SPI SCLK"}


def pin_uses(config: Config, display_flags: str = "") -> list[tuple[int, str]]:
    """Every GPIO the configuration claims, with what claims it (its key where it has one).

    >>> from companion.config import EncoderConfig
    >>> pin_uses(Config(encoder=EncoderConfig(5, 6)))[-2:]
    [(5, 'encoder.a'), (6, 'encoder.b')]
    """
    preset = config.buttons.preset
    uses = [(pin, f"buttons.pins.{role}" if role in config.buttons.pins
             else f"the {preset} preset's {role} key")
            for role, pin in pins_for(preset, config.buttons.pins).items()]
    for key in ("a", "b", "push"):
        pin = getattr(config.encoder, key)
        if pin is not None:
            uses.append((pin, f"encoder.{key}"))
    if config.shake.pin is not None:
        uses.append((config.shake.pin, "shake.pin"))
    return uses + display_pins(display_flags)


def display_pins(flags: str) -> list[tuple[int, str]]:
    """The GPIOs luma will drive for these display flags (none without flags)."""
    if not flags:
        return []
    words = shlex.split(flags)
    if _flag(words, "--interface", "i2c") != "spi":
        return list(I2C_PINS.items())
    device = _flag(words, "--spi-device", "0")
    pins = {**SPI_PINS, 8 if device == "0" else 7: f"the display's SPI CE{device}"}
    for flag, default, what in (("--gpio-data-command", "24", "DC"), ("--gpio-reset", "25", "RST")):
        value = _flag(words, flag, default)
        if value.isdigit():
            pins[int(value)] = f"the display's {what} ({flag})"
    return list(pins.items())


def _flag(words: list[str], name: str, default: str) -> str:
    """A flag's value in ``--name VALUE`` or ``--name=VALUE`` form (the last one wins)."""
    value = default
    for i, word in enumerate(words):
        if word == name and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith(name + "="):
            value = word.partition("=")[2]
    return value


def check_pins(config: Config, display_flags: str = "") -> None:
    """Refuse a configuration that gives one GPIO two jobs, naming both (ConfigError)."""
    seen: dict[int, str] = {}
    for pin, use in pin_uses(config, display_flags):
        if pin in seen:
            first = seen[pin]
            if _is_key(use):
                raise ConfigError(config.source, use, f"GPIO{pin} is also {first}")
            key = first if _is_key(first) else "buttons.preset"
            raise ConfigError(config.source, key, f"GPIO{pin} is also {use}")
        seen[pin] = use


def _is_key(use: str) -> bool:
    return not use.startswith("the ")


def key_device(pin: int, factory: Factory | None = None) -> DigitalInputDevice:
    """A switch between ``pin`` and ground (internal pull-up): pressed is active.

    Edges arrive from the pin factory's own callback (lgpio's alert thread on a Pi, the
    driving thread under MockFactory); nothing of ours polls. The pin factory may: lgpio's C
    alert thread waits in ``ppoll`` with a 0.5 ms timeout while any line is watched (lg's
    ``lgPthAlerts.c``), and gpiozero's native factory polls every 10 ms.
    """
    return DigitalInputDevice(pin, pull_up=True, pin_factory=factory)  # None: gpiozero's default
