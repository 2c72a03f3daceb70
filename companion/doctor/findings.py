"""What a check of the doctor finds: its status, what was found, and the fix for it; every
fix the doctor can print, by name, and what it prints of them.

>>> Finding(FAIL, "display", "no /dev/i2c-1", "sudo raspi-config nonint do_i2c 0").line()
'fail  display   no /dev/i2c-1; fix: sudo raspi-config nonint do_i2c 0'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

#: A check's outcome: fine, worth a look, or the box will not work (``doctor`` exits 1).
Status = Literal["ok", "warn", "fail"]
OK: Final = "ok"
WARN: Final = "warn"
FAIL: Final = "fail"
#: The example configuration's display: an SSD1306 on I2C bus 1 at 0x3C (the Bonnet).
EXAMPLE_FLAGS = "--display ssd1306 --interface i2c --i2c-port 1 --i2c-address 0x3C"
#: Every fix the doctor can print, by name. hardware/PI-INSTALL.md lists each of them (a test
#: renders every template with ``<field>`` placeholders and finds it there).
FIXES = {
    "not-a-pi": "run companion doctor on the Raspberry Pi itself",
    "install": "sudo sh ~/companion/systemd/install.sh ~/companion",
    "config-copy": "sudo install -m 0644 ~/companion/systemd/companion.example.toml "
                   "/etc/companion/companion.toml",
    "config-edit": "sudoedit {file}",
    "display-flags": f'flags = "{EXAMPLE_FLAGS}" under [display]',
    "i2c-on": "sudo raspi-config nonint do_i2c 0 && sudo reboot",
    "i2c-port": "set --i2c-port {port} in [display] flags",
    "i2c-address": "set --i2c-address {address} in [display] flags",
    "i2c-wiring": "check the wiring: SDA to GPIO2 (pin 3), SCL to GPIO3 (pin 5), VCC to 3.3V, "
                  "GND to GND",
    "i2c-speed": "dtparam=i2c_arm_baudrate=400000 in {config_txt}, then sudo reboot",
    "reboot": "sudo reboot",
    "spi-on": "sudo raspi-config nonint do_spi 0 && sudo reboot",
    "pin-twice": "give each its own GPIO: change {key} (or {other})",
    "overlay": "remove {line} from {config_txt} and sudo reboot, or move the key to a free pin",
    "pin-held": "stop the program that holds it (the companion run by hand, or the service: "
                "sudo systemctl stop companion); a driver's name (w1, spi0 CS0) means an "
                "overlay: remove it from config.txt, or move the key to a free pin",
    "group": "sudo usermod -aG {group} companion && sudo systemctl restart companion",
    "udev": "sudo apt install --reinstall raspberrypi-sys-mods && sudo reboot",
    "serial-missing": "plug the reader in, then look for it: ls -l /dev/serial/by-id/",
    "serial-by-id": 'path = "{link}" in [serial] ports',
    "serial-path": "path = the reader's link in [serial] ports: ls -l /dev/serial/by-id/",
    "serial-busy": "stop {process} (pid {pid}): it has the port open",
    "modemmanager": 'sudo apt purge modemmanager, or a udev rule ENV{{ID_MM_DEVICE_IGNORE}}="1" '
                    "for the reader",
    "sudo": "sudo /opt/companion/venv/bin/companion doctor (to see what this user may not)",
    "state-dir": "give --state a directory on the card (the service's is /var/lib/companion)",
    "convenience-damaged": "nothing to type: the companion sets it aside at its next start and "
                           "uses the defaults (choose them again on the box)",
    "store-damaged": "sudo systemctl restart companion (a damaged store is set aside at start "
                     "and its games carried over)",
    "store-path": "move {path} away (it is not a file), or set [store] path to a file in "
                  "/etc/companion/companion.toml; then sudo systemctl restart companion",
    "backup-damaged": "none needed: the store is sound, and the companion makes a new whole "
                      "copy once this one is the newest it cannot read (it is kept, never "
                      "read as sound)",
    "lock-path": "move {path} away: the companion makes its lock file again at its next start",
    "audit-damaged": "none needed: the audit only says which device rolls were made; a row "
                     "that cannot be read is left out of exports and the phone view",
    "reveal-damaged": "none needed: the game comes back on its play screen, the roll stored "
                      "(its lines are in the Log)",
    "checkpoint-damaged": "none needed: a checkpoint only saves time, and the companion drops "
                          "a damaged one and replays the record when its game is next opened",
    "disk": "sudo apt clean && sudo journalctl --vacuum-size=20M",
    "service-enable": "sudo systemctl enable companion",
    "service-start": "sudo systemctl start companion",
    "service-failed": "journalctl -u companion -n 50, fix what it names, then sudo systemctl "
                      "restart companion",
    "service-restarts": "journalctl -u companion -b (the lines before each start say why)",
    "service-hung": "sudo systemctl restart companion, and report journalctl -u companion -b",
    "lgpio": "sudo sh ~/companion/systemd/install.sh ~/companion (it installs lgpio: python3-lgpio "
             "from apt on Raspberry Pi OS, PyPI's wheel elsewhere)",
    "package": "sudo apt install {package}, then run the installer again",
    "python": "Raspberry Pi OS Bookworm or later (Python 3.11 or later)",
}


def fix(name: str, **fields: object) -> str:
    """A fix from :data:`FIXES`, filled in."""
    return FIXES[name].format(**fields)


@dataclass(frozen=True)
class Finding:
    """One check's outcome, what was found, and how to fix it."""

    status: Status
    area: str
    found: str
    fix: str = ""

    def line(self) -> str:
        tail = f"; fix: {self.fix}" if self.fix and self.status != OK else ""
        return f"{self.status:5} {self.area:9} {self.found}{tail}"


def printed(findings: Sequence[Finding]) -> str:
    """The lines and a count at the end."""
    counts = {status: sum(f.status == status for f in findings) for status in (FAIL, WARN, OK)}
    total = ", ".join(f"{n} {status}" for status, n in counts.items())
    return "\n".join([f.line() for f in findings] + [total]) + "\n"
