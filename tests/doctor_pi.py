"""A fake Raspberry Pi for ``companion doctor``: a root directory and fake probes.

:class:`FakePi` starts healthy (an Adafruit Bonnet build, installed and running); tests break
one thing at a time. ``python -m tests.doctor_pi`` prints the doctor's report of the broken
Pi that docs/raspberry-pi.md shows.
"""

from __future__ import annotations

import os
import pathlib
import stat
import sys
import tempfile
from collections.abc import Sequence

from companion.doctor import Finding, Machine, Node, diagnose, printed
from companion.store import Store

CHAR = 0o020000  # S_IFCHR
BONNET = """\
[display]
flags = "--display ssd1306 --interface i2c --i2c-port 1 --i2c-address 0x3C"
[buttons]
preset = "adafruit-bonnet"
[serial]
ports = [{ path = "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00" }]
"""
WAVESHARE = """\
[display]
flags = "--display sh1106 --interface spi --spi-port 0 --spi-device 0"
[buttons]
preset = "waveshare-oled-hat"
"""
HEALTHY_SHOW = {
    "LoadState": "loaded", "UnitFileState": "enabled", "ActiveState": "active",
    "SubState": "running", "Result": "success", "ExecMainCode": "0", "ExecMainStatus": "0",
    "NRestarts": "0", "WatchdogUSec": "30s", "WatchdogTimestampMonotonic": "995000000",
}
PACKAGES = {"gpiozero": "2.0.1", "luma.core": "2.6.0", "luma.oled": "3.16.0",
            "lgpio": "0.2.2.0", "smbus2": "0.4.2", "spidev": "3.6"}


class FakeBus:
    """An SMBus with devices at chosen addresses."""

    def __init__(self, addresses: set[int]) -> None:
        self.addresses = addresses

    def read_byte(self, i2c_addr: int) -> int:
        self.write_quick(i2c_addr)
        return 0

    def write_quick(self, i2c_addr: int) -> None:
        if i2c_addr not in self.addresses:
            raise OSError(121, "Remote I/O error")

    def close(self) -> None:
        pass


class FakeLines:
    """GPIO line info: chip labels and who holds which line."""

    def __init__(self, held: dict[int, str], readable: bool = True) -> None:
        self.held = held
        self.readable = readable

    def label(self, chip: str) -> str:
        return "pinctrl-bcm2711" if chip.endswith("gpiochip0") else "raspberrypi-exp-gpio"

    def consumer(self, chip: str, offset: int) -> str | None:
        if not self.readable:
            raise PermissionError(13, "Permission denied")
        return self.held.get(offset)


class FakePi:
    """A healthy Pi in ``root``; change its attributes or files to break it."""

    def __init__(self, root: pathlib.Path, config: str = BONNET) -> None:
        self.root = root
        self.i2c: set[int] = {0x3C}
        self.held: dict[int, str] = {}
        self.gpio_readable = True
        self.unreadable: set[str] = set()  # directories this user may not look into
        self.show = dict(HEALTHY_SHOW)
        self.systemd = True
        self.free = 2_000 * 1024 * 1024
        self.packages: dict[str, str | None] = dict(PACKAGES)
        self.python = (3, 11, 2)
        self.nodes: dict[str, Node] = {
            "/dev/gpiochip0": Node(CHAR | 0o660, 0, 997),
            "/dev/gpiochip1": Node(CHAR | 0o660, 0, 997),
            "/dev/i2c-1": Node(CHAR | 0o660, 0, 998),
            "/dev/spidev0.0": Node(CHAR | 0o660, 0, 999),
            "/dev/ttyACM0": Node(CHAR | 0o660, 0, 20),
        }
        self.write("etc/companion/companion.toml", config)
        self.write("boot/firmware/config.txt",
                   "# the Pi's boot configuration\ndtparam=i2c_arm=on\n"
                   "dtparam=i2c_arm_baudrate=400000\ndtparam=audio=on\n")
        self.write("proc/modules", "i2c_dev 20480 0 - Live 0x0000000000000000\n"
                                   "i2c_bcm2835 16384 1 - Live 0x0000000000000000\n")
        self.clock(400_000)
        for device in self.nodes:
            self.write(device.lstrip("/"), "")
        self.write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
                                 "pi:x:1000:1000::/home/pi:/bin/bash\n"
                                 "companion:x:995:995::/var/lib/companion:/usr/sbin/nologin\n")
        self.write("etc/group", "root:x:0:\ndialout:x:20:pi,companion\ngpio:x:997:pi,companion\n"
                                "i2c:x:998:pi,companion\nspi:x:999:pi,companion\n"
                                "pi:x:1000:\ncompanion:x:995:\n")
        self.write("etc/systemd/system/companion.service", "[Service]\n")
        self.link("dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00", "../../ttyACM0")
        self.link("proc/812/fd/7", "/dev/ttyACM0")
        self.write("proc/812/comm", "companion\n")
        self.link("proc/640/fd/0", "/dev/null")
        self.write("proc/640/comm", "systemd-journal\n")
        store = root / "var/lib/companion/companion.sqlite"
        store.parent.mkdir(parents=True)
        Store(str(store)).close()  # the real thing: WAL mode, closed as after a clean stop

    def clock(self, hz: int) -> None:
        """The I2C clock the running kernel uses (set at boot from config.txt)."""
        target = self.root / "sys/class/i2c-adapter/i2c-1/of_node/clock-frequency"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(hz.to_bytes(4, "big"))

    def write(self, path: str, text: str) -> pathlib.Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def link(self, path: str, target: str) -> None:
        where = self.root / path
        where.parent.mkdir(parents=True, exist_ok=True)
        if where.is_symlink() or where.exists():
            where.unlink()
        os.symlink(target, where)

    def remove(self, path: str) -> None:
        (self.root / path).unlink()

    def systemctl(self, argv: Sequence[str]) -> tuple[int, str]:
        assert argv[:3] == ["systemctl", "show", "companion"], argv  # reads, never changes
        if not self.systemd:
            return 1, "System has not been booted with systemd as init system (PID 1).\n"
        return 0, "".join(f"{key}={value}\n" for key, value in self.show.items())

    def node(self, path: str) -> Node | None:
        """The fake device's node for a regular file standing in for one; what is there
        otherwise (a directory, a FIFO); None when nothing can be reached."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode):
            return Node(status.st_mode, status.st_uid, status.st_gid)
        return self.nodes.get("/" + os.path.relpath(path, self.root))

    def machine(self) -> Machine:
        return Machine(root=self.root, run=self.systemctl, smbus=lambda port: FakeBus(self.i2c),
                    lines=FakeLines(self.held, self.gpio_readable), node=self.node,
                    free=lambda path: self.free,
                    readable=lambda path: "/" + os.path.relpath(path, self.root) not in self.unreadable,
                    clock=lambda: 1000.0, euid=0, package=self.packages.get, python=self.python)

    def findings(self, state: str | None = None) -> list[Finding]:
        config = self.root / "etc/companion/companion.toml"
        return diagnose(self.machine(), str(config) if config.exists() else None, state)

    def report(self) -> str:
        """The report, with the fake root's path shown as a real Pi's would be."""
        return printed(self.findings()).replace(str(self.root), "")


def broken_pi(root: pathlib.Path) -> FakePi:
    """docs/raspberry-pi.md's example: a maker's first Bonnet build with the usual mistakes.

    I2C enabled but at 100 kHz, the panel at 0x3D, a 1-Wire overlay on the joystick's centre
    (BCM 4), the service user missing from the i2c group, ModemManager installed, and the
    service stopped after a bad configuration line.
    """
    pi = FakePi(root)
    pi.i2c = {0x3D}
    pi.write("boot/firmware/config.txt", "dtparam=i2c_arm=on\ndtoverlay=w1-gpio\n")
    pi.clock(100_000)
    pi.write("etc/group", "root:x:0:\ndialout:x:20:pi,companion\ngpio:x:997:pi,companion\n"
                          "i2c:x:998:pi\nspi:x:999:pi,companion\npi:x:1000:\ncompanion:x:995:\n")
    pi.write("usr/sbin/ModemManager", "")
    pi.link("proc/812/fd/7", "/dev/null")  # the service is not running: nobody has the reader
    pi.show.update(ActiveState="failed", SubState="failed", Result="exit-code",
                   ExecMainCode="1", ExecMainStatus="2", WatchdogTimestampMonotonic="0")
    return pi


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        sys.stdout.write(broken_pi(pathlib.Path(scratch)).report())
