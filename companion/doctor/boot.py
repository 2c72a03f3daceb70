"""The Pi's boot configuration (``config.txt``): the parameters it sets, and the pins the
kernel or an overlay takes because of it."""

from __future__ import annotations

from collections.abc import Sequence

from companion.doctor.machine import Machine

CONFIG_TXT = ("/boot/firmware/config.txt", "/boot/config.txt")


def config_txt(machine: Machine) -> tuple[str, list[str]]:
    """The boot configuration file used and its setting lines (comments dropped)."""
    for path in CONFIG_TXT:
        text = machine.read(path)
        if text is not None:
            lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
            return path, [line for line in lines if line]
    return CONFIG_TXT[0], []


def dtparams(lines: Sequence[str]) -> dict[str, str]:
    """``dtparam=a=on,b=400000`` lines as one mapping (the last one wins, as for the firmware)."""
    found: dict[str, str] = {}
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "dtparam":
            for part in value.split(","):
                name, _, setting = part.partition("=")
                found[name.strip()] = setting.strip() or "on"
    return found


#: Overlays that claim header pins: their pin parameter and its default (dtoverlay README).
OVERLAY_PINS: dict[str, tuple[str, tuple[int, ...]]] = {
    "w1-gpio": ("gpiopin", (4,)),
    "w1-gpio-pullup": ("gpiopin", (4,)),
    "gpio-ir": ("gpio_pin", (18,)),
    "gpio-ir-tx": ("gpio_pin", (18,)),
    "gpio-shutdown": ("gpio_pin", (3,)),
    "gpio-poweroff": ("gpiopin", (26,)),
    "pwm": ("pin", (18,)),
    "pwm-2chan": ("pin", (18, 19)),
    "hifiberry-dac": ("", (18, 19, 21)),
    "spi1-1cs": ("cs0_pin", (18, 19, 20, 21)),
    "uart1": ("txd1_pin", (14, 15)),
}
#: dtparam switches that give pins to the kernel.
DTPARAM_PINS = {"spi": (7, 8, 9, 10, 11), "i2s": (18, 19, 20, 21), "i2c_arm": (2, 3)}


def claimed(lines: Sequence[str]) -> dict[int, str]:
    """Pins the kernel or an overlay takes, each with the config.txt line that does it.

    Conditional sections (``[pi4]``, ``[all]``) are not told apart: a line is taken to
    apply, which at worst names an overlay meant for another model.

    >>> claimed(["dtoverlay=w1-gpio", "dtoverlay=gpio-ir,gpio_pin=17"])
    {4: 'dtoverlay=w1-gpio', 17: 'dtoverlay=gpio-ir,gpio_pin=17'}
    """
    found: dict[int, str] = {}
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "dtoverlay":
            name, *params = value.strip().split(",")
            if name not in OVERLAY_PINS:
                continue
            param, pins = OVERLAY_PINS[name]
            for item in params:
                pname, _, pvalue = item.partition("=")
                if param and pname == param and pvalue.isdigit():
                    pins = (int(pvalue),) + pins[1:]
            found.update((pin, line) for pin in pins)
        elif key.strip() == "dtparam":
            for part in value.split(","):
                name, _, setting = part.partition("=")
                if name.strip() in DTPARAM_PINS and setting.strip() in ("on", "true", "yes", ""):
                    found.update((pin, line) for pin in DTPARAM_PINS[name.strip()])
        elif key.strip() == "enable_uart" and value.strip() == "1":
            found.update({14: line, 15: line})
    return found
