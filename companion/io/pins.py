"""Whose each GPIO pin is: the display's bus, read from luma's own flag parser, and every
configured input's (the registry's :meth:`~companion.io.base.Input.claims`).

One pin with two owners is a configuration error: ``companion run`` refuses to start, in one
line naming the pin, its owner and the key to change, before it opens a pin, and
``companion doctor`` fails that pin's line, in the same words. Both read the pins here.

The display's pins are the Raspberry Pi's buses as luma drives them: luma opens
``/dev/i2c-PORT`` or ``/dev/spidevPORT.DEVICE`` and drives DC and RST itself. A bus takes its
pins whole, whatever the panel wires: the kernel's SPI driver holds MISO and both chip
selects of SPI0 even for a panel that has neither, and a key there would never work.

>>> [(c.pin, c.name) for c in display_claims("--display ssd1306 --i2c-port 1")]
[(2, 'I2C1 SDA'), (3, 'I2C1 SCL')]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.config import Config
from companion.exc import ConfigError, DisplayError
from companion.io import INPUTS
from companion.io.base import Claim

#: The header pins of each I2C bus (``--i2c-port``): bus 1 is the header's own (pins 3 and
#: 5), bus 0 the one the HAT ID EEPROM uses (pins 27 and 28). Other buses (a Pi 4's extra
#: ones, made by overlays) are not mapped: their pins depend on the overlay.
I2C_BUSES: dict[int, dict[int, str]] = {0: {0: "SDA", 1: "SCL"}, 1: {2: "SDA", 3: "SCL"}}
#: The data pins of each SPI bus (``--spi-port``): SPI0 on pins 19, 21 and 23; SPI1 (the
#: spi1-1cs/2cs/3cs overlays) on pins 35, 38 and 40.
SPI_BUSES: dict[int, dict[int, str]] = {0: {9: "MISO", 10: "MOSI", 11: "SCLK"},
                                        1: {19: "MISO", 20: "MOSI", 21: "SCLK"}}
#: Each SPI bus's chip selects, CE0 first: the kernel's driver holds them as GPIO lines.
SPI_SELECTS: dict[int, tuple[int, ...]] = {0: (8, 7), 1: (18, 17, 16)}
#: luma's parallel bus (``bitbang_6800``) when the flags name no pins: its own defaults.
PARALLEL = {22: "RS", 17: "E", 25: "D4", 24: "D5", 23: "D6", 18: "D7"}


def display_claims(flags: str) -> list[Claim]:
    """The pins the display takes with these luma flags (none without flags, and none for
    luma's emulators): :class:`DisplayError` for flags luma refuses."""
    if not flags:
        return []
    from companion.io.display import display_kind, luma_flags

    args = luma_flags(flags)
    if display_kind(args.display) in ("emulator", "core"):
        return []  # a window, a file or the frame buffer: no pin of the header
    return [Claim(pin, name, "display.flags", "the display") for pin, name in bus_pins(args).items()]


def bus_pins(args: Any) -> dict[int, str]:
    """The header pins of luma's interface (``args`` as luma's parser gives them)."""
    interface = args.interface
    if interface in ("i2c", "pcf8574"):
        return {pin: f"I2C{args.i2c_port} {signal}"
                for pin, signal in I2C_BUSES.get(args.i2c_port, {}).items()}
    if interface == "bitbang_6800":
        return {pin: f"parallel {signal}" for pin, signal in PARALLEL.items()}
    if interface not in ("spi", "gpio_cs_spi"):
        return {}  # noop, an FTDI adapter on USB, luma's bit-banging without pins: none
    port = args.spi_port
    pins = {pin: f"SPI{port} {signal}" for pin, signal in SPI_BUSES.get(port, {}).items()}
    pins.update((pin, f"SPI{port} CE{n}") for n, pin in enumerate(chip_selects(port, args.spi_device)))
    pins[args.gpio_data_command] = "DC (--gpio-data-command)"
    pins[args.gpio_reset] = "RST (--gpio-reset)"
    if interface == "gpio_cs_spi":
        pins[args.gpio_chip_select] = "CS (--gpio-chip-select)"
    return pins


def chip_selects(port: int, device: int) -> tuple[int, ...]:
    """The chip-select lines the kernel's SPI driver holds for ``/dev/spidevPORT.DEVICE``:
    ``dtparam=spi=on`` gives SPI0 both of its own; SPI1's ``spi1-Ncs`` overlay, the one a
    device needs, takes the first N.

    >>> chip_selects(0, 0), chip_selects(1, 1)
    ((8, 7), (18, 17))
    """
    selects = SPI_SELECTS.get(port, ())
    return selects if port == 0 else selects[:device + 1]


def claims_of(config: Config, display: list[Claim]) -> list[Claim]:
    """Every pin the configuration takes: the display's first, then each configured
    input's, in the registry's order."""
    found = list(display)
    for name, kit in INPUTS.items():
        settings = config.inputs.get(name)
        if settings is not None:
            found += kit.input.claims(settings)
    return found


@dataclass(frozen=True)
class Clash:
    """A pin claimed twice: ``later`` is named after ``earlier`` in :func:`claims_of`."""

    later: Claim
    earlier: Claim

    @property
    def pin(self) -> int:
        return self.later.pin

    @property
    def blamed(self) -> Claim:
        """The claim whose key to change: one its own key sets (the later one first), else
        the later one (a preset's key on the display's bus: ``buttons.preset``)."""
        return self.earlier if self.later.given_by and not self.earlier.given_by else self.later

    @property
    def other(self) -> Claim:
        return self.later if self.blamed is self.earlier else self.earlier

    def problem(self) -> str:
        """``GPIO17 is also the minimal preset's up key``: the line's words after the key."""
        return f"GPIO{self.pin} is also {self.other.owner}"


def clashes(claims: list[Claim]) -> Iterator[Clash]:
    """Each claim of a pin an earlier claim took, with that earlier claim."""
    seen: dict[int, Claim] = {}
    for claim in claims:
        if claim.pin in seen:
            yield Clash(claim, seen[claim.pin])
        else:
            seen[claim.pin] = claim


def check_pins(config: Config, flags: str) -> None:
    """Refuse a configuration that gives one GPIO two owners, before any pin is opened: a
    :class:`ConfigError` naming the key to change, the pin and its other owner."""
    try:
        display = display_claims(flags)
    except DisplayError as err:
        raise ConfigError(config.source, "display.flags", str(err)) from None
    clash = next(clashes(claims_of(config, display)), None)
    if clash is not None:
        raise ConfigError(config.source, clash.blamed.key, clash.problem())
