"""The configuration file (TOML, read with tomllib) and the players' own settings.

Every key has a default, so an empty or missing file is a valid configuration. A bad file
raises :class:`ConfigError`, which names the file, the key and the problem in one line.
What players change on the settings screen is kept as JSON in the state directory and
overrides the file; a damaged settings file is set aside and the defaults are used.

>>> cfg = parse({"screen": {"dim_after": 30}}, "companion.toml")
>>> cfg.screen.dim_after, cfg.inputs["buttons"].preset
(30.0, 'minimal')
>>> parse({"screen": {"dim_after": "soon"}}, "companion.toml")
Traceback (most recent call last):
...
companion.exc.ConfigError: companion.toml: screen.dim_after: must be a number of seconds, not 'soon'
"""

from __future__ import annotations

import ipaddress
import json
import os
import pathlib
import time
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from companion.exc import ConfigError
from companion.games.base import RESERVED_NAMES
from companion.record import NAME

DEFAULT_ROSTER = ("Ann", "Bob", "Cat", "Dan", "Eve")
DEFAULT_BAUD = 115200
MAX_PORTS = 2
#: How a device roll of many dice is shown: in one picture, or a line at a time.
ROLLS = ("at-once", "one-by-one")
#: The longest time a timing key may give: a day, in seconds.
MOST_SECONDS = 86_400


@dataclass(frozen=True)
class KeyTiming:
    """How every key is read, whichever input it belongs to (``[buttons]`` long_press and
    debounce, for the key logic of :mod:`companion.io.keylogic`)."""

    long_press: float = 0.6
    debounce: float = 0.02


@dataclass(frozen=True)
class ScreenConfig:
    dim_after: float = 60.0
    blank_after: float = 600.0
    shift: bool = True
    rolls: str = "at-once"


@dataclass(frozen=True)
class PortConfig:
    """A serial port: a die reader or a console (a device path or a pyserial URL)."""

    path: str
    baud: int = DEFAULT_BAUD


@dataclass(frozen=True)
class PhoneConfig:
    """The phone view (``[phone]``, companion/phone.py): off by default; where it listens when on."""

    enabled: bool = False
    address: str = "0.0.0.0"
    port: int = 8080


@dataclass(frozen=True)
class Config:
    """Everything the daemon reads from the configuration file."""

    display: str = ""
    keys: KeyTiming = field(default_factory=KeyTiming)
    screen: ScreenConfig = field(default_factory=ScreenConfig)
    roster: tuple[str, ...] = DEFAULT_ROSTER
    store: str = ""
    source: str = "(defaults)"
    serial: tuple[PortConfig, ...] = ()
    phone: PhoneConfig = field(default_factory=PhoneConfig)
    #: Each registered input's settings by its table (``companion.io.INPUTS``); None for an
    #: input the file does not set up.
    inputs: Mapping[str, Any] = field(default_factory=lambda: read_inputs(_Reader("(defaults)", {}, "")))


class _Reader:
    """Takes keys out of one TOML table, checking each, and refuses leftovers."""

    def __init__(self, file: str, table: dict[str, Any], prefix: str) -> None:
        self.file, self.table, self.prefix = file, dict(table), prefix

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(self.file, f"{self.prefix}{key}", problem)

    def seconds(self, key: str, default: float, positive: bool = False) -> float:
        """A time in seconds: finite, 0 (or, when ``positive``, more than 0) to a day.

        TOML and JSON both allow ``nan`` and ``inf``, which no timer can wait for; a wait
        longer than a day is a typing slip, and Python's own waits overflow far beyond it.
        """
        value = self.table.pop(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"must be a number of seconds, not {value!r}")
        span = f"{'above 0, up to' if positive else '0 to'} {MOST_SECONDS:,}"
        if not (value > 0 if positive else value >= 0) or not value <= MOST_SECONDS:
            raise self.fail(key, f"must be a number of seconds, not {value!r} ({span})")
        return float(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.table.pop(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def text(self, key: str, default: str, choices: tuple[str, ...] = ()) -> str:
        value = self.table.pop(key, default)
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, not {value!r}")
        if choices and value not in choices:
            raise self.fail(key, f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    def pin(self, key: str) -> int | None:
        value = self.table.pop(key, None)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or not 0 <= value <= 27):
            raise self.fail(key, f"must be a BCM pin number 0-27, not {value!r}")
        return value

    def baud(self, key: str, default: int) -> int:
        value = self.table.pop(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 50 <= value <= 4_000_000:
            raise self.fail(key, f"must be a baud rate such as 9600 or 115200, not {value!r}")
        return value

    def port(self, key: str, default: int) -> int:
        value = self.table.pop(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
            raise self.fail(key, f"must be a TCP port number (1-65535), not {value!r}")
        return value

    def address(self, key: str, default: str) -> str:
        value = self.text(key, default)
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise self.fail(key, f"must be an IP address of this box, or 0.0.0.0 for all, not {value!r}") from None
        return value

    def tables(self, key: str, most: int) -> list[_Reader]:
        """A list of tables (``ports = [{...}, {...}]``), at most ``most`` of them."""
        value = self.table.pop(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, "must be a list of tables, such as [{ path = \"/dev/ttyACM0\" }]")
        if len(value) > most:
            raise self.fail(key, f"at most {most}, not {len(value)}")
        return [_Reader(self.file, v, f"{self.prefix}{key}[{i}].") for i, v in enumerate(value, 1)]

    def table_of(self, key: str) -> _Reader:
        value = self.table.pop(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table")
        return _Reader(self.file, value, f"{self.prefix}{key}.")

    def done(self) -> None:
        for key in self.table:
            raise self.fail(key, "is not a setting the companion knows")


def parse(data: dict[str, Any], file: str) -> Config:
    """A Config from parsed TOML, every key checked."""
    top = _Reader(file, data, "")
    display = top.table_of("display")
    flags = display.text("flags", "")
    if flags and "--display" not in flags.split():
        raise display.fail("flags", "must name the display: add --display ssd1306 (or sh1106, ...)")
    display.done()
    # [buttons] holds the timing of every key, and the build's keys: the input registered
    # under that table reads the rest of it.
    buttons = top.table_of("buttons")
    keys = KeyTiming(buttons.seconds("long_press", 0.6, positive=True),
                     buttons.seconds("debounce", 0.02))
    inputs = read_inputs(top, {"buttons": buttons})
    screen = top.table_of("screen")
    screen_cfg = ScreenConfig(screen.seconds("dim_after", 60.0), screen.seconds("blank_after", 600.0),
                              screen.flag("shift", True), screen.text("rolls", "at-once", ROLLS))
    screen.done()
    players = top.table_of("players")
    roster = players.table.pop("roster", list(DEFAULT_ROSTER))
    if not isinstance(roster, list) or not roster:
        raise players.fail("roster", "must be a list of names")
    for name in roster:
        if not isinstance(name, str) or not NAME.fullmatch(name) or name in RESERVED_NAMES:
            raise players.fail("roster", f"{name!r} is not a valid name: 1-12 letters, digits, - or _")
    players.done()
    store = top.table_of("store")
    store_path = store.text("path", "")
    store.done()
    ports = serial_ports(top.table_of("serial"))
    phone = top.table_of("phone")
    phone_cfg = PhoneConfig(phone.flag("enabled", False), phone.address("address", "0.0.0.0"),
                            phone.port("port", 8080))
    phone.done()
    top.done()
    return Config(display=flags, keys=keys, screen=screen_cfg, roster=tuple(dict.fromkeys(roster)),
                  store=store_path, source=file, serial=ports, phone=phone_cfg, inputs=inputs)


def read_inputs(top: _Reader, opened: Mapping[str, _Reader] | None = None) -> dict[str, Any]:
    """Every registered input's settings, each read from its own table of ``top`` (or the
    one already ``opened``): ``companion.io.base.Input.read``."""
    from companion.io import INPUTS  # the registry: each input loads when first read

    found: dict[str, Any] = {}
    for name, kit in INPUTS.items():
        table = opened[name] if opened and name in opened else top.table_of(name)
        found[name] = kit.input.read(table)
        table.done()
    return found


def serial_ports(table: _Reader) -> tuple[PortConfig, ...]:
    """``[serial] ports``: one or two devices, each a path under /dev or a pyserial URL."""
    ports: list[PortConfig] = []
    for port in table.tables("ports", MAX_PORTS):
        path = port.text("path", "")
        if not (path.startswith("/") or "://" in path):
            raise port.fail("path", f"must be a device path such as /dev/serial/by-id/..., not {path!r}")
        if path in (p.path for p in ports):
            raise port.fail("path", f"{path} is already the port before it")
        ports.append(PortConfig(path, port.baud("baud", DEFAULT_BAUD)))
        port.done()
    table.done()
    return tuple(ports)


def load(path: str | None) -> Config:
    """Read the configuration file; ``None`` means the defaults."""
    if path is None:
        return Config()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(path, "(file)", "does not exist") from None
    except OSError as err:
        raise ConfigError(path, "(file)", f"cannot be read: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(path, "(syntax)", str(err)) from None
    except UnicodeDecodeError:
        raise ConfigError(path, "(file)", "is not UTF-8 text") from None
    except ValueError:  # tomllib's int() of a number over Python's 4,300-digit limit
        raise ConfigError(path, "(syntax)", "a number far too long to be a setting") from None
    return parse(data, path)


# --- the players' settings, kept in the state directory ---

SETTINGS_FILE = "settings.json"


def settings_path(state_dir: pathlib.Path) -> pathlib.Path:
    return state_dir / SETTINGS_FILE


def with_settings(config: Config, state_dir: pathlib.Path) -> tuple[Config, str]:
    """The config with the saved screen settings applied; a note if the file was damaged."""
    path = settings_path(state_dir)
    if not path.exists():
        return config, ""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        screen = _Reader(str(path), saved.get("screen", {}), "screen.")
        merged = ScreenConfig(screen.seconds("dim_after", config.screen.dim_after),
                              screen.seconds("blank_after", config.screen.blank_after),
                              screen.flag("shift", config.screen.shift),
                              screen.text("rolls", config.screen.rolls, ROLLS))
        screen.done()
    except (ValueError, ConfigError, AttributeError, OSError) as err:
        aside = path.with_name(f"{SETTINGS_FILE}.damaged-{int(time.time())}")
        os.replace(path, aside)
        return config, f"settings damaged ({err}); kept as {aside.name}, using defaults"
    return replace(config, screen=merged), ""


def save_settings(screen: ScreenConfig, state_dir: pathlib.Path) -> None:
    """Write the players' screen settings atomically (a crash leaves old or new, never half)."""
    path = settings_path(state_dir)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"screen": asdict(screen)}, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
