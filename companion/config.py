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
import pathlib
import shlex
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, TypeVar, get_args

from companion.exc import ConfigError, DisplayError, FileRefused
from companion.games.base import RESERVED_NAMES
from companion.io import INPUTS
from companion.record import NAME
from companion.smallfile import read_small, set_aside, write_small

DEFAULT_ROSTER = ("Ann", "Bob", "Cat", "Dan", "Eve")
#: Names typed on the box that New game offers again: the most recently used this many.
MOST_REMEMBERED = 12
DEFAULT_BAUD = 115200
MAX_PORTS = 2
#: How a device roll of many dice is shown: in one picture, or a line at a time.
Rolls = Literal["at-once", "one-by-one"]
ROLLS: tuple[Rolls, ...] = get_args(Rolls)
#: One of a closed set of strings (:meth:`TableReader.choice`).
C = TypeVar("C", bound=str)
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
    rolls: Rolls = "at-once"


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
    inputs: Mapping[str, Any] = field(default_factory=lambda: read_inputs(TableReader("(defaults)", {}, "")))
    #: Names the table typed on the box, most recently used first (from the settings file,
    #: not the configuration: the roster above is the owner's and stays as written).
    remembered: tuple[str, ...] = ()


def name_problem(name: object) -> str:
    """Why ``name`` cannot be a player's name (records.md), "" when it can.

    >>> name_problem("Zoe"), name_problem("table")
    ('', "'table' is not a valid name: 1-12 letters, digits, - or _")
    """
    if not isinstance(name, str) or not NAME.fullmatch(name) or name in RESERVED_NAMES:
        return f"{name!r} is not a valid name: 1-12 letters, digits, - or _"
    return ""


def remembered_after(remembered: tuple[str, ...], used: Iterable[str], roster: Iterable[str] = ()) -> tuple[str, ...]:
    """The remembered names once ``used`` were played: those first (in their order), then
    the others as they were; the roster's own names are not kept, and the oldest go past
    :data:`MOST_REMEMBERED`.

    >>> remembered_after(("Max", "Zoe"), ["Ann", "Zoe", "Kim"], roster=["Ann"])
    ('Zoe', 'Kim', 'Max')
    """
    skip = set(roster)
    fresh = [name for name in used if name not in skip]
    return tuple(dict.fromkeys([*fresh, *remembered]))[:MOST_REMEMBERED]


def seconds_problem(value: object, positive: bool = False) -> str:
    """Why ``value`` is not a time in seconds the companion can wait: "" when it is one
    (finite, 0 or, when ``positive``, more than 0, up to :data:`MOST_SECONDS`).

    >>> seconds_problem(30), seconds_problem(float("nan"))
    ('', 'must be a number of seconds, not nan (0 to 86,400)')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number of seconds, not {quoted(value)}"
    span = f"{'above 0, up to' if positive else '0 to'} {MOST_SECONDS:,}"
    if not (value > 0 if positive else value >= 0) or not value <= MOST_SECONDS:
        return f"must be a number of seconds, not {quoted(value)} ({span})"
    return ""


def quoted(value: object, most: int = 40) -> str:
    """A value as an error quotes it: its repr, cut short when long (a hostile file's
    value stays a short line).

    >>> quoted("soon"), quoted("x" * 500)
    ("'soon'", "'xxxxxxxxxxxxxxxxxxx... (502 characters)")
    """
    text = repr(value)
    return text if len(text) <= most else f"{text[:most // 2]}... ({len(text):,} characters)"


class TableReader:
    """Takes keys out of one table (TOML, or a JSON object), checking each, and refuses
    leftovers: every key of every file the companion reads goes through one of these."""

    def __init__(self, file: str, table: dict[str, Any], prefix: str) -> None:
        self.file, self.table, self.prefix = file, dict(table), prefix

    @classmethod
    def document(cls, file: str, data: object) -> TableReader:
        """The top of a parsed file, which must be a table (a JSON file may hold anything)."""
        if not isinstance(data, dict):
            raise ConfigError(file, "(file)", f"must hold an object of settings, not {quoted(data)}")
        return cls(file, data, "")

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(self.file, f"{self.prefix}{key}", problem)

    def seconds(self, key: str, default: float, positive: bool = False) -> float:
        """A time in seconds: finite, 0 (or, when ``positive``, more than 0) to a day.

        TOML and JSON both allow ``nan`` and ``inf``, which no timer can wait for; a wait
        longer than a day is a typing slip, and Python's own waits overflow far beyond it.
        """
        value = self.table.pop(key, default)
        problem = seconds_problem(value, positive)
        if problem:
            raise self.fail(key, problem)
        return float(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.table.pop(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {quoted(value)}")
        return value

    def text(self, key: str, default: str, choices: tuple[str, ...] = ()) -> str:
        value = self.table.pop(key, default)
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, not {quoted(value)}")
        if choices and value not in choices:
            raise self.fail(key, f"must be one of {', '.join(choices)}, not {quoted(value)}")
        return value

    def path(self, key: str) -> str:
        """A file's or a device's path ("" when not given). TOML strings may hold a NUL
        byte, which no path can: the system refuses it (``ValueError``) wherever it is used."""
        value = self.text(key, "")
        if "\0" in value:
            raise self.fail(key, f"a path cannot hold a NUL byte: {quoted(value)}")
        return value

    def choice(self, key: str, default: C, choices: tuple[C, ...]) -> C:
        """:meth:`text` for a closed set: the one of ``choices`` it is."""
        value = self.text(key, default, choices)
        return next(choice for choice in choices if choice == value)

    def pin(self, key: str) -> int | None:
        value = self.table.pop(key, None)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or not 0 <= value <= 27):
            raise self.fail(key, f"must be a BCM pin number 0-27, not {quoted(value)}")
        return value

    def baud(self, key: str, default: int) -> int:
        value = self.table.pop(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 50 <= value <= 4_000_000:
            raise self.fail(key, f"must be a baud rate such as 9600 or 115200, not {quoted(value)}")
        return value

    def port(self, key: str, default: int) -> int:
        value = self.table.pop(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
            raise self.fail(key, f"must be a TCP port number (1-65535), not {quoted(value)}")
        return value

    def address(self, key: str, default: str) -> str:
        value = self.text(key, default)
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise self.fail(key, "must be an IP address of this box, or 0.0.0.0 for all, "
                                 f"not {quoted(value)}") from None
        return value

    def tables(self, key: str, most: int) -> list[TableReader]:
        """A list of tables (``ports = [{...}, {...}]``), at most ``most`` of them."""
        value = self.table.pop(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, "must be a list of tables, such as [{ path = \"/dev/ttyACM0\" }]")
        if len(value) > most:
            raise self.fail(key, f"at most {most}, not {len(value)}")
        return [TableReader(self.file, v, f"{self.prefix}{key}[{i}].") for i, v in enumerate(value, 1)]

    def table_of(self, key: str) -> TableReader:
        value = self.table.pop(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table")
        return TableReader(self.file, value, f"{self.prefix}{key}.")

    def done(self) -> None:
        for key in self.table:
            raise self.fail(key, "is not a setting the companion knows")


def parse(data: dict[str, Any], file: str) -> Config:
    """A Config from parsed TOML, every key checked."""
    top = TableReader(file, data, "")
    display = top.table_of("display")
    flags = display.text("flags", "")
    try:
        words = display_words(flags)
    except DisplayError as err:
        raise display.fail("flags", str(err)) from None
    if flags and not any(word.split("=")[0] == "--display" for word in words):
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
                              screen.flag("shift", True), screen.choice("rolls", "at-once", ROLLS))
    screen.done()
    players = top.table_of("players")
    roster = players.table.pop("roster", list(DEFAULT_ROSTER))
    if not isinstance(roster, list) or not roster:
        raise players.fail("roster", "must be a list of names")
    for name in roster:
        if name_problem(name):
            raise players.fail("roster", name_problem(name))
    players.done()
    store = top.table_of("store")
    store_path = store.path("path")
    store.done()
    ports = serial_ports(top.table_of("serial"))
    phone = top.table_of("phone")
    phone_cfg = PhoneConfig(phone.flag("enabled", False), phone.address("address", "0.0.0.0"),
                            phone.port("port", 8080))
    phone.done()
    top.done()
    return Config(display=flags, keys=keys, screen=screen_cfg, roster=tuple(dict.fromkeys(roster)),
                  store=store_path, source=file, serial=ports, phone=phone_cfg, inputs=inputs)


def read_inputs(top: TableReader, opened: Mapping[str, TableReader] | None = None) -> dict[str, Any]:
    """Every registered input's settings, each read from its own table of ``top`` (or the
    one already ``opened``): ``companion.io.base.Input.read``."""
    found: dict[str, Any] = {}
    for name, kit in INPUTS.items():
        table = opened[name] if opened and name in opened else top.table_of(name)
        found[name] = kit.input.read(table)
        table.done()
    return found


def serial_ports(table: TableReader) -> tuple[PortConfig, ...]:
    """``[serial] ports``: one or two devices, each a path under /dev or a pyserial URL."""
    ports: list[PortConfig] = []
    for port in table.tables("ports", MAX_PORTS):
        path = port.path("path")
        if not (path.startswith("/") or "://" in path):
            raise port.fail("path", f"must be a device path such as /dev/serial/by-id/..., not {quoted(path)}")
        if "://" in path and not url_handled(path):
            raise port.fail("path", f"{quoted(path)} is no URL pyserial can open "
                            "(a device path, or loop://, socket://HOST:PORT, rfc2217://HOST:PORT)")
        if path in (p.path for p in ports):
            raise port.fail("path", f"{path} is already the port before it")
        ports.append(PortConfig(path, port.baud("baud", DEFAULT_BAUD)))
        port.done()
    table.done()
    return tuple(ports)


def url_handled(url: str) -> bool:
    """Whether pyserial has a handler for ``url``'s scheme: it looks the scheme up among the
    modules of its URL handler packages only when the port is opened, so an unknown one
    would fail then, and again at every retry."""
    import importlib.util

    import serial

    scheme = url.split("://", 1)[0]
    return scheme.isidentifier() and any(importlib.util.find_spec(f"{package}.protocol_{scheme}") is not None
                                         for package in serial.protocol_handler_packages)


def display_words(flags: str) -> list[str]:
    """luma's display flags as words, split as a shell would: the one splitting that the
    configuration check, the pin check, the display and the doctor all use.
    :class:`DisplayError` for what cannot be split (an unclosed quote)."""
    try:
        return shlex.split(flags)
    except ValueError as err:
        raise DisplayError(f"the display flags cannot be split into words: {err}") from None


#: The most a configuration file may hold: the example, every comment included, is 3 KB.
MAX_CONFIG_BYTES = 64 * 1024


def load(path: str | None) -> Config:
    """Read the configuration file; ``None`` means the defaults.

    Anything but a regular file within :data:`MAX_CONFIG_BYTES` (a FIFO, a device, a
    directory, a symbolic link loop) is refused before it is read, in one line.
    """
    if path is None:
        return Config()
    try:
        text = read_small(path, MAX_CONFIG_BYTES).decode("utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(path, "(file)", "does not exist") from None
    except OSError as err:  # FileRefused says what it is; the others why it could not be read
        raise ConfigError(path, "(file)", str(err) if isinstance(err, FileRefused)
                          else f"cannot be read: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(path, "(syntax)", str(err)) from None
    except UnicodeDecodeError:
        raise ConfigError(path, "(file)", "is not UTF-8 text") from None
    except ValueError:  # tomllib's int() of a number over Python's 4,300-digit limit
        raise ConfigError(path, "(syntax)", "a number far too long to be a setting") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(path, "(syntax)", "arrays or tables nested too deeply") from None
    return parse(data, path)


# --- the players' settings, kept in the state directory ---

SETTINGS_FILE = "settings.json"


def settings_path(state_dir: pathlib.Path) -> pathlib.Path:
    return state_dir / SETTINGS_FILE


#: The most a convenience file of the state directory may hold (the companion writes ~100 bytes).
MAX_SAVED_BYTES = 4096


def read_saved(path: pathlib.Path) -> TableReader | None:
    """A JSON file the companion keeps in the state directory, read within
    :data:`MAX_SAVED_BYTES`, as a table whose keys the caller checks; None when there is
    none. :class:`ConfigError` naming the file (and the key) when it is damaged."""
    file = str(path)
    try:
        data = json.loads(read_small(path, MAX_SAVED_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ConfigError(file, "(file)", str(err) if isinstance(err, FileRefused)
                          else f"cannot be read: {err.strerror}") from None
    except RecursionError:
        raise ConfigError(file, "(syntax)", "nested too deeply") from None
    except ValueError as err:  # not JSON, not UTF-8, a number too long to convert
        raise ConfigError(file, "(syntax)", str(err)) from None
    return TableReader.document(file, data)


def set_aside_note(path: pathlib.Path, err: ConfigError, what: str) -> str:
    """Move a damaged convenience file out of the way; the one line that says so."""
    try:
        kept = f"kept as {set_aside(path).name}"
    except OSError as failed:
        kept = f"could not be set aside: {failed.strerror or failed}"
    return f"{what} damaged ({err}); {kept}, using defaults"


def read_settings(path: pathlib.Path, config: Config) -> Config | None:
    """What players changed on the box over ``config``: the screen settings and the names
    typed at New game; None when there are none; ConfigError naming the key when the file
    is damaged (anything but the object save_settings writes)."""
    top = read_saved(path)
    if top is None:
        return None
    saved = top.table_of("screen")
    screen = config.screen
    merged = ScreenConfig(saved.seconds("dim_after", screen.dim_after),
                          saved.seconds("blank_after", screen.blank_after),
                          saved.flag("shift", screen.shift),
                          saved.choice("rolls", screen.rolls, ROLLS))
    saved.done()
    remembered = remembered_names(top)
    top.done()
    return replace(config, screen=merged, remembered=remembered)


def remembered_names(saved: TableReader) -> tuple[str, ...]:
    """``names`` of the settings file: at most :data:`MOST_REMEMBERED` different valid
    names, as :func:`save_settings` writes them (anything else is a damaged file)."""
    names = saved.table.pop("names", [])
    if not isinstance(names, list) or len(names) > MOST_REMEMBERED:
        raise saved.fail("names", f"must be a list of at most {MOST_REMEMBERED} names")
    for name in names:
        if name_problem(name):
            raise saved.fail("names", name_problem(name))
    if len(set(names)) != len(names):
        raise saved.fail("names", "a name is there twice")
    return tuple(names)


def with_settings(config: Config, state_dir: pathlib.Path) -> tuple[Config, str]:
    """The config with the saved settings applied (the screen's, the names typed on the
    box); a note if the file was damaged (set aside, the defaults used)."""
    path = settings_path(state_dir)
    try:
        merged = read_settings(path, config)
    except ConfigError as err:
        return config, set_aside_note(path, err, "settings")
    return (config if merged is None else merged), ""


def save_settings(config: Config, state_dir: pathlib.Path) -> None:
    """Write what the players changed on the box, the screen settings and the names they
    typed, atomically (a crash leaves old or new, never half); OSError when they cannot be
    written."""
    document = {"screen": asdict(config.screen), "names": list(config.remembered)}
    write_small(settings_path(state_dir), json.dumps(document).encode())
