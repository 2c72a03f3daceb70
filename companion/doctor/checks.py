"""The doctor's checks, one area after another (configuration, display, keys, access,
serial ports, state, store, service, Python), each yielding its findings."""

from __future__ import annotations

import errno
import os
import pathlib
import re
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass

from companion.backup import CHANGES, changes_of, copies, copies_unreadable, numbered, regular
from companion.config import Config, load, read_settings, settings_path
from companion.doctor.boot import claimed, config_txt, dtparams
from companion.doctor.findings import EXAMPLE_FLAGS, FAIL, OK, WARN, Finding, fix
from companion.doctor.machine import Machine, answers, can_open, group_file, passwd
from companion.exc import ConfigError, DisplayError
from companion.io.base import Claim
from companion.io.pins import claims_of, clashes, display_claims
from companion.phone import STATE_FILE, read_choice
from companion.salvage import behind_copies, missing_or_hidden
from companion.smallfile import file_kind
from companion.statedir import COMPANIONS, LOCK_FILE, SQLITE_MAGIC, examine, locate, not_a_file
from companion.store import Store

SERVICE = "companion"
SERVICE_USER = "companion"
HEADER_BUS = 1  # the I2C bus on the header's pins 3 and 5 (GPIO 2 and 3)
I2C_DEFAULT_HZ = 100_000
I2C_FAST_HZ = 400_000
#: The addresses i2cdetect probes by default.
I2C_SCAN = range(0x08, 0x78)
LOW_SPACE = 50 * 1024 * 1024  # bytes: below this the card is nearly full (warn)
NO_SPACE = 5 * 1024 * 1024  # bytes: below this a press may be refused "disk full" (fail)
MINIMUM = {"gpiozero": (2, 0, 1), "luma.core": (2, 6, 0), "luma.oled": (3, 16, 0)}


@dataclass(frozen=True)
class Display:
    """The display flags, as luma's own parser reads them (the one ``companion run`` uses)."""

    interface: str
    i2c_port: int
    i2c_address: int
    spi_port: int
    spi_device: int


def display_of(flags: str) -> Display:
    """:class:`DisplayError` or ``ValueError`` (an address that is no number) when refused."""
    from companion.io.display import luma_flags

    args = luma_flags(flags)
    address = int(str(args.i2c_address), 0)
    return Display(args.interface, args.i2c_port, address, args.spi_port, args.spi_device)


class Doctor:
    """Runs every check against one machine; :meth:`findings` yields them in order."""

    def __init__(self, machine: Machine, config_file: str | None, state: str | None) -> None:
        self.machine = machine
        self.config_file = config_file
        self.state = state
        self.config = Config()
        self.display: Display | None = None
        self.display_pins: list[Claim] = []
        self.boot_file, self.boot = config_txt(machine)
        self.chip: str | None = None
        self._service: dict[str, str] | None = None

    def findings(self) -> Iterator[Finding]:
        yield from self.check_config()
        yield from self.check_display()
        yield from self.check_keys()
        yield from self.check_permissions()
        yield from self.check_serial()
        state = list(self.check_state())
        yield from state
        if all(finding.status != FAIL for finding in state):  # else run stops before the store
            yield from self.check_store()
        yield from self.check_service()
        yield from self.check_python()

    # --- configuration ---

    def check_config(self) -> Iterator[Finding]:
        if self.config_file is None:
            yield Finding(WARN, "config", "no /etc/companion/companion.toml: using the defaults "
                          "(no display, the minimal preset)", fix("config-copy"))
            return
        try:
            self.config = load(self.config_file)
        except ConfigError as err:
            yield Finding(FAIL, "config", str(err), fix("config-edit", file=self.config_file))
            return
        if not ends_a_line(self.config_file):  # parses, yet may be cut short: `port = 80` of 8080
            yield Finding(WARN, "config", f"{self.config_file} parses, but its last line has no line "
                          "break: was it cut short?", fix("config-edit", file=self.config_file))
            return
        yield Finding(OK, "config", f"{self.config_file} parses")

    # --- the display bus ---

    def check_display(self) -> Iterator[Finding]:
        flags = self.config.display
        if not flags:
            # Most builds are I2C panels at 0x3C: look there, so that the lines below say
            # whether the bus works and what answers on it, before the file names a display.
            yield Finding(WARN, "display", "no display configured: the box runs headless "
                          "(looking on I2C bus 1)", fix("display-flags"))
            flags = EXAMPLE_FLAGS
        try:
            self.display = display_of(flags)
            # The pins of the display the file names (none when the box runs headless), as
            # `companion run` counts them.
            self.display_pins = display_claims(self.config.display)
        except (DisplayError, ValueError):
            yield Finding(FAIL, "display", f"luma refuses the flags {flags!r}",
                          fix("config-edit", file=self.config_file))
            return
        if self.display.interface == "i2c":
            yield from self.check_i2c(self.display)
        elif self.display.interface == "spi":
            yield from self.check_spi(self.display)
        else:
            yield Finding(OK, "display", f"interface {self.display.interface}: not checked")

    def check_i2c(self, display: Display) -> Iterator[Finding]:
        device = f"/dev/i2c-{display.i2c_port}"
        loaded = self.module_loaded("i2c_dev")
        if not loaded:
            yield Finding(FAIL, "display", "the i2c-dev module is not loaded", fix("i2c-on"))
        else:
            yield Finding(OK, "display", "the i2c-dev module is loaded")
        yield from self.check_i2c_speed(display.i2c_port)
        if not self.machine.exists(device):
            # The header's bus is 1 on every Pi since the first; others (a Pi 4's i2c-20 and
            # i2c-21) are HDMI's, never the panel's.
            if display.i2c_port != HEADER_BUS and self.machine.exists(f"/dev/i2c-{HEADER_BUS}"):
                yield Finding(FAIL, "display", f"no {device}; the header's bus is "
                              f"/dev/i2c-{HEADER_BUS}", fix("i2c-port", port=HEADER_BUS))
            else:
                yield Finding(FAIL, "display", f"no {device}: I2C is not enabled", fix("i2c-on"))
            return
        yield Finding(OK, "display", f"{device} is there")
        yield from self.check_i2c_address(display)

    def check_i2c_address(self, display: Display) -> Iterator[Finding]:
        wanted = f"0x{display.i2c_address:02X}"
        try:
            bus = self.machine.smbus(display.i2c_port)
        except OSError as err:
            yield Finding(WARN, "display", f"cannot open /dev/i2c-{display.i2c_port} to look for "
                          f"the panel ({err.strerror})", fix("sudo"))
            return
        try:
            if answers(bus, display.i2c_address):
                yield Finding(OK, "display", f"a device answers at {wanted}")
                return
            found = [address for address in I2C_SCAN if answers(bus, address)]
        finally:
            bus.close()
        if found:
            names = ", ".join(f"0x{a:02X}" for a in found)
            yield Finding(FAIL, "display", f"nothing answers at {wanted}; found a device at {names}",
                          fix("i2c-address", address=f"0x{found[0]:02X}"))
        else:
            yield Finding(FAIL, "display", f"nothing answers on I2C bus {display.i2c_port}",
                          fix("i2c-wiring"))

    def check_i2c_speed(self, port: int) -> Iterator[Finding]:
        params = dtparams(self.boot)
        rate = params.get("i2c_arm_baudrate") or params.get("i2c_baudrate")
        hz = int(rate) if rate and rate.isdigit() else I2C_DEFAULT_HZ
        # The clock the running kernel uses (big-endian u32 in the device tree): config.txt
        # only counts from the next boot.
        live = self.machine.read_bytes(f"/sys/class/i2c-adapter/i2c-{port}/of_node/clock-frequency")
        now = int.from_bytes(live[:4], "big") if live and len(live) >= 4 else hz
        if now != hz:
            yield Finding(WARN, "display", f"I2C clock {now // 1000} kHz now; {self.boot_file} "
                          f"gives {hz // 1000} kHz from the next boot", fix("reboot"))
        elif hz >= I2C_FAST_HZ:
            yield Finding(OK, "display", f"I2C clock {hz // 1000} kHz ({self.boot_file})")
        else:
            yield Finding(WARN, "display", f"I2C clock {hz // 1000} kHz: a full frame takes "
                          f"~{9 * 1034 * 1000 // hz} ms", fix("i2c-speed", config_txt=self.boot_file))

    def check_spi(self, display: Display) -> Iterator[Finding]:
        device = f"/dev/spidev{display.spi_port}.{display.spi_device}"
        if self.machine.exists(device):
            yield Finding(OK, "display", f"{device} is there")
        else:
            yield Finding(FAIL, "display", f"no {device}: SPI is not enabled", fix("spi-on"))

    def module_loaded(self, name: str) -> bool:
        """A kernel module loaded (``/proc/modules``) or built in (``/sys/module``)."""
        modules = self.machine.read("/proc/modules") or ""
        return any(line.split(" ", 1)[0] == name for line in modules.splitlines()) \
            or self.machine.exists(f"/sys/module/{name}")

    # --- the keys ---

    def check_keys(self) -> Iterator[Finding]:
        """Each pin of each configured input: taken twice (as `companion run` refuses it),
        claimed by an overlay, held by another program, or free."""
        claims = claims_of(self.config, self.display_pins)
        clashed = {id(clash.later): clash for clash in clashes(claims)}
        overlays = claimed(self.boot)
        self.chip = self.gpio_chip()
        if self.chip is None:
            yield Finding(FAIL, "keys", "no GPIO chip (/dev/gpiochip0)", fix("not-a-pi"))
        for claim in claims[len(self.display_pins):]:
            name = f"GPIO{claim.pin} ({claim.name})"
            clash = clashed.get(id(claim))
            if clash is not None:
                yield Finding(FAIL, "keys", f"GPIO{clash.pin} ({clash.blamed.name}) is also "
                              f"{clash.other.owner}",
                              fix("pin-twice", key=clash.blamed.key, other=clash.other.key))
            elif claim.pin in overlays:
                yield Finding(FAIL, "keys", f"{name} is claimed by {overlays[claim.pin]}",
                              fix("overlay", line=overlays[claim.pin], config_txt=self.boot_file))
            elif self.chip is not None:
                yield self.line_state(name, claim.pin)

    def gpio_chip(self) -> str | None:
        """The header's chip: the one whose label is a pin controller, else gpiochip0."""
        chips = [name for name in self.machine.listdir("/dev") if re.fullmatch(r"gpiochip\d+", name)]
        for name in sorted(chips, key=lambda n: int(n[8:])):
            try:
                if self.machine.lines.label(self.machine.at(f"/dev/{name}")).startswith("pinctrl-"):
                    return f"/dev/{name}"
            except OSError:
                continue
        return "/dev/gpiochip0" if "gpiochip0" in chips else None

    def line_state(self, name: str, pin: int) -> Finding:
        assert self.chip is not None
        try:
            holder = self.machine.lines.consumer(self.machine.at(self.chip), pin)
        except OSError as err:
            return Finding(WARN, "keys", f"{name}: cannot read {self.chip} ({err.strerror})",
                           fix("sudo"))
        if holder is None:
            return Finding(OK, "keys", f"{name} is free")
        who = f'"{holder}"' if holder else "an unnamed consumer"
        if holder in ("lg", "lgpio", "gpiozero") and self.service_active():
            return Finding(OK, "keys", f"{name} is held by {who}, the running service")
        return Finding(FAIL, "keys", f"{name} is held by {who}", fix("pin-held"))

    # --- permissions ---

    def check_permissions(self) -> Iterator[Finding]:
        user = passwd(self.machine).get(SERVICE_USER)
        if user is None:
            yield Finding(WARN, "access", f"no user {SERVICE_USER}: the service is not installed",
                          fix("install"))
            return
        uid, gid = user
        groups = group_file(self.machine)
        member = {g for g, (_, members) in groups.items() if SERVICE_USER in members} | {gid}
        names = {g: name for g, (name, _) in groups.items()}
        for device, group in self.devices():
            node = self.machine.node(self.machine.at(device))
            if node is None or not stat.S_ISCHR(node.mode):  # its own check says what it is
                continue
            owner = f"{names.get(node.gid, node.gid)} {node.mode & 0o777:04o}"
            if can_open(node, uid, member):
                yield Finding(OK, "access", f"{SERVICE_USER} can open {device} ({owner})")
            elif node.gid in names and names[node.gid] != "root" and (node.mode & 0o060) == 0o060:
                yield Finding(FAIL, "access", f"{SERVICE_USER} cannot open {device} ({owner}): not "
                              f"in group {names[node.gid]}", fix("group", group=names[node.gid]))
            else:
                yield Finding(FAIL, "access", f"{device} is {owner}, not for group {group}",
                              fix("udev"))

    def devices(self) -> list[tuple[str, str]]:
        """Each device node the service opens, with the group that should own it."""
        found: list[tuple[str, str]] = []
        if self.chip is not None:
            found.append((self.chip, "gpio"))
        if self.display is not None and self.display.interface == "i2c":
            found.append((f"/dev/i2c-{self.display.i2c_port}", "i2c"))
        elif self.display is not None and self.display.interface == "spi":
            found.append((f"/dev/spidev{self.display.spi_port}.{self.display.spi_device}", "spi"))
        found += [(self.machine.resolve(port.path), "dialout") for port in self.config.serial
                  if "://" not in port.path]
        return found

    # --- serial ports ---

    def check_serial(self) -> Iterator[Finding]:
        if not self.config.serial:
            return
        for number, port in enumerate(self.config.serial, start=1):
            area = f"serial {number}"
            if "://" in port.path:
                yield Finding(OK, area, f"{port.path} is a pyserial URL, not a device")
                continue
            device = self.machine.resolve(port.path)
            if not self.machine.exists(device):
                yield Finding(FAIL, area, f"{port.path} is not there", fix("serial-missing"))
                continue
            problem = self.not_a_device(port.path, device)
            if problem:
                yield Finding(FAIL, area, f"{port.path} {problem}", fix("serial-path"))
                continue
            yield self.by_id(area, port.path, device)
            yield self.holders(area, device)
        if self.machine.exists("/usr/sbin/ModemManager"):
            yield Finding(WARN, "serial", "ModemManager is installed: it probes new serial "
                          "devices and can grab a die reader", fix("modemmanager"))
        else:
            yield Finding(OK, "serial", "ModemManager is not installed")

    def not_a_device(self, path: str, device: str) -> str:
        """Why a serial port's path (leading to ``device``) is not a device, in words after
        the path ("" when it is one): a directory, a regular file, a symbolic link loop."""
        node = self.machine.node(self.machine.at(device))
        if node is None:  # it is there, but cannot be followed to anything
            try:
                os.stat(self.machine.at(path))
            except OSError as err:
                return f"cannot be opened: {err.strerror}"
            return "cannot be opened"
        return "" if stat.S_ISCHR(node.mode) else f"is {file_kind(node.mode)}, not a serial device"

    def by_id(self, area: str, path: str, device: str) -> Finding:
        if path.startswith("/dev/serial/by-id/"):
            return Finding(OK, area, f"{path} is there ({device})")
        links = [f"/dev/serial/by-id/{name}" for name in self.machine.listdir("/dev/serial/by-id")]
        stable = [link for link in links if self.machine.resolve(link) == device]
        if stable:
            return Finding(WARN, area, f"{path} is there, but its name can change when "
                           "devices are replugged", fix("serial-by-id", link=stable[0]))
        return Finding(OK, area, f"{path} is there (no /dev/serial/by-id link: a built-in port)")

    def holders(self, area: str, device: str) -> Finding:
        hidden = False
        for pid in self.machine.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                fds = os.listdir(self.machine.at(f"/proc/{pid}/fd"))
            except OSError:
                hidden = True
                continue
            for fd in fds:
                try:
                    target = os.readlink(self.machine.at(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    continue
                if target == device:
                    process = (self.machine.read(f"/proc/{pid}/comm") or "?").strip()
                    if process == SERVICE or process.startswith("companion"):
                        return Finding(OK, area, f"open in the companion (pid {pid})")
                    return Finding(FAIL, area, f"{device} is open in {process} (pid {pid})",
                                   fix("serial-busy", process=process, pid=pid))
        seen = " (of the processes this user can see)" if hidden and self.machine.euid else ""
        return Finding(OK, area, f"no other process has it open{seen}")

    # --- the state directory and its convenience files ---

    def state_directory(self) -> str:
        """The state directory the store's lines look in (statedir.locate decides it)."""
        return str(locate(self.state, self.config.store, reading=True, root=self.machine.root).directory)

    def check_state(self) -> Iterator[Finding]:
        """What ``run`` checks before it makes the state directory (the same code, which
        changes nothing), then its convenience files: no line when all is well.

        This user's permissions count for a directory named by --state (whoever runs the
        doctor so runs the companion by hand), not for the service's: the doctor is not the
        service's user, and systemd gives the service its directory at every start.
        """
        directory = self.state_directory()
        real = pathlib.Path(self.machine.at(directory))
        unusable = examine(real)
        if unusable is not None and (self.state is not None or unusable.error.errno != errno.EACCES):
            said = str(unusable.raised()).replace(str(real), directory)
            yield Finding(FAIL, "state", said, fix("state-dir"))
            return
        if not real.is_dir() or not self.machine.readable(str(real)):
            return
        checks = ((settings_path(real), lambda path: read_settings(path, Config())),
                  (real / STATE_FILE, lambda path: read_choice(path, False)))
        for path, read in checks:
            try:
                read(path)
            except ConfigError as err:
                said = str(err).replace(str(real), directory)
                yield Finding(WARN, "state", f"{said}: set aside at the next start",
                              fix("convenience-damaged"))
        lock = real / LOCK_FILE  # what run takes before it opens the store (statedir.hold)
        problem = not_a_file(str(lock))
        if not problem and self.state is not None and lock.exists() and \
                not os.access(lock, os.R_OK | os.W_OK):
            problem = "cannot be read and written by this user"
        if problem:
            shown = f"{directory.rstrip('/')}/{LOCK_FILE}"
            yield Finding(FAIL, "state", f"{shown} {problem}", fix("lock-path", path=shown))

    # --- the store ---

    def check_store(self) -> Iterator[Finding]:
        path = locate(self.state, self.config.store, reading=True, root=self.machine.root).store
        real = self.machine.at(path)
        directory = os.path.dirname(real)
        if os.path.isdir(directory) and not self.machine.readable(directory):
            yield Finding(WARN, "store", f"cannot look into {os.path.dirname(path)}", fix("sudo"))
            return
        for suffix in ("", *COMPANIONS):  # stat only: a FIFO or a device is never opened
            problem = not_a_file(real + suffix)
            if problem:
                yield Finding(FAIL, "store", f"{path}{suffix} {problem}",
                              fix("store-path", path=path + suffix))
                return
        # What the companion would take for damage at its start: a main file missing or
        # empty beside its log or copies, not SQLite's, or a log hiding committed changes.
        problem = missing_or_hidden(pathlib.Path(real))
        if not os.path.exists(real) and not problem:
            yield Finding(OK, "store", f"no store yet at {path} (made at the first start)")
            return
        if not problem:
            yield from self.integrity(path, real)
        elif copies(real) or os.path.exists(f"{real}-wal"):
            yield Finding(FAIL, "store", f"{path}: {problem}", fix("store-damaged"))
        else:  # nothing was ever kept there: the first start makes the store in its place
            yield Finding(WARN, "store", f"{path}: {problem}, and there is no copy of it",
                          fix("store-damaged"))
        yield self.space(directory)
        yield from self.backups(path, real)

    def integrity(self, path: str, real: str) -> Iterator[Finding]:
        """SQLite's integrity check, every stored value read as the companion reads it, the
        store against its copies; then what only caches or tells (warn): the checkpoints'
        own digests, the dice audit's rows."""
        # Read-only, and nothing left behind: a store closed cleanly has no -wal, and a
        # read-only connection would create -wal and -shm beside it and leave them; opened
        # as immutable it reads the one file as it is. A running store's log is read as usual.
        immutable = "" if os.path.exists(real + "-wal") else "&immutable=1"
        try:
            store = Store(real, connect=lambda name: sqlite3.connect(
                f"file:{urllib.parse.quote(name)}?mode=ro{immutable}", uri=True))
            try:
                rows = store.integrity()
                sound = rows == ["ok"]
                damage = (store.unreadable() or behind_copies(store, real)) if sound else ""
                damaged = store.damaged_checkpoints() if sound else 0
                rolls = store.damaged_rolls() if sound else 0
                reveals = store.damaged_reveals() if sound else 0
            finally:
                store.close(fold_log=False)
        except sqlite3.DatabaseError as err:
            if "unable to open" in str(err) or "readonly" in str(err):
                yield Finding(WARN, "store", f"cannot open {path} ({err})", fix("sudo"))
            else:
                yield Finding(FAIL, "store", f"{path} is damaged ({err})", fix("store-damaged"))
            return
        result = "; ".join(rows[:3])
        if result != "ok":
            yield Finding(FAIL, "store", f"{path} integrity_check: {result}", fix("store-damaged"))
        elif damage:
            yield Finding(FAIL, "store", f"{path} is damaged: {damage}", fix("store-damaged"))
        elif damaged:
            yield Finding(WARN, "store", f"{path} opens; integrity_check ok; {damaged} damaged "
                          f"checkpoint{'s' if damaged > 1 else ''}", fix("checkpoint-damaged"))
        else:
            yield Finding(OK, "store", f"{path} opens; integrity_check ok")
        if rolls:
            yield Finding(WARN, "store", f"{path}: {rolls} dice-audit row{'s' if rolls > 1 else ''} "
                          "cannot be read", fix("audit-damaged"))
        if reveals:
            yield Finding(WARN, "store", f"{path}: {reveals} roll{'s' if reveals > 1 else ''} shown "
                          "one by one cannot say how far the table saw", fix("reveal-damaged"))

    def space(self, directory: str) -> Finding:
        free = self.machine.free(directory)
        said = f"{free / 1024 / 1024:.0f} MB free beside the store"
        if free < NO_SPACE:
            return Finding(FAIL, "store", said, fix("disk"))
        if free < LOW_SPACE:
            return Finding(WARN, "store", said, fix("disk"))
        return Finding(OK, "store", said)

    def backups(self, path: str, real: str) -> Iterator[Finding]:
        """Backups the store keeps beside itself: any file named after it with "backup" in
        its name, here or in a ``backups`` folder (whatever the store's own naming), and
        a warning for each of the companion's own copies (companion/backup.py) that it
        could not restore from (not a file, not readable, damaged): it is passed over."""
        name = os.path.basename(real)
        stem = name.rsplit(".", 1)[0]
        here = os.path.dirname(real)
        for base in (base for _, base in numbered(pathlib.Path(real))):
            for copy in (base, changes_of(base)):
                problem = (not_a_file(str(copy)) or copy_damage(copy)) if os.path.lexists(copy) else ""
                if problem:
                    shown = os.path.join(os.path.dirname(path), copy.name)
                    yield Finding(WARN, "store", f"backup {shown} {problem}", fix("backup-damaged"))
        found: list[tuple[float, str]] = []
        for folder, named in ((here, True), (os.path.join(here, "backups"), False)):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for file in names:
                full = os.path.join(folder, file)
                if (not named or (file != name and file.startswith(stem) and "backup" in file.lower())) \
                        and regular(pathlib.Path(full)):
                    found.append((os.stat(full).st_mtime, file))
        if not found:
            yield Finding(OK, "store", "no backups yet")
            return
        stamp, newest = max(found)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
        count = f"{len(found)} backup{'s' if len(found) > 1 else ''}"
        yield Finding(OK, "store", f"{count}, newest {newest} ({when})")

    # --- the service ---

    def service(self) -> dict[str, str]:
        """``systemctl show companion``'s properties ({} when systemd does not answer)."""
        if self._service is None:
            code, out = self.machine.run(["systemctl", "show", SERVICE, "-p", ",".join(SERVICE_KEYS)])
            pairs = [line.split("=", 1) for line in out.splitlines() if "=" in line]
            self._service = dict(pairs) if code == 0 else {}
        return self._service

    def service_active(self) -> bool:
        return self.service().get("ActiveState") == "active"

    def check_service(self) -> Iterator[Finding]:
        show = self.service()
        if not show:
            yield Finding(WARN, "service", "systemd does not answer here", fix("not-a-pi"))
            return
        if show.get("LoadState") != "loaded":
            yield Finding(WARN, "service", "companion.service is not installed", fix("install"))
            return
        enabled = show.get("UnitFileState", "")
        if enabled == "enabled":
            yield Finding(OK, "service", "installed and enabled (starts at boot)")
        else:
            yield Finding(WARN, "service", f"installed but {enabled or 'not enabled'}: it will not "
                          "start at boot", fix("service-enable"))
        yield from self.service_state(show)

    def service_state(self, show: dict[str, str]) -> Iterator[Finding]:
        state = show.get("ActiveState", "")
        last = exit_meaning(show)
        if state == "failed":
            yield Finding(FAIL, "service", f"failed: {last}", fix("service-failed"))
            return
        if state != "active":
            sub = show.get("SubState", "")
            again = sub == "auto-restart"  # systemd starts it again by itself
            yield Finding(WARN, "service", f"not running ({state}, {sub}); last exit: {last}",
                          fix("service-restarts" if again else "service-start"))
            return
        restarts = int(show.get("NRestarts", "0") or 0)
        running = f"active ({show.get('SubState', '')})"
        if restarts:
            yield Finding(WARN, "service", f"{running}, but systemd restarted it {restarts} times",
                          fix("service-restarts"))
        else:
            yield Finding(OK, "service", running)
        period = timespan(show.get("WatchdogUSec", "0"))
        pinged = int(show.get("WatchdogTimestampMonotonic", "0") or 0) / 1e6
        if not period:
            yield Finding(WARN, "service", "no watchdog: the unit is not the project's",
                          fix("install"))
        elif not pinged:
            yield Finding(FAIL, "service", "no watchdog ping yet", fix("service-hung"))
        elif self.machine.clock() - pinged > period:
            yield Finding(FAIL, "service", f"last watchdog ping {self.machine.clock() - pinged:.0f} s "
                          "ago: the loop is stuck", fix("service-hung"))
        else:
            yield Finding(OK, "service", f"watchdog ping {self.machine.clock() - pinged:.0f} s ago "
                          f"(every {period / 2:.0f} s)")

    # --- Python ---

    def check_python(self) -> Iterator[Finding]:
        version = ".".join(map(str, self.machine.python))
        if self.machine.python >= (3, 11):
            yield Finding(OK, "python", f"Python {version}")
        else:
            yield Finding(FAIL, "python", f"Python {version} is too old", fix("python"))
        for name, least in MINIMUM.items():
            have = self.machine.package(name)
            if have is None:
                yield Finding(FAIL, "python", f"{name} is not installed", fix("install"))
            elif numbers(have) < least:
                yield Finding(FAIL, "python", f"{name} {have} is older than "
                              f"{'.'.join(map(str, least))}", fix("install"))
            else:
                yield Finding(OK, "python", f"{name} {have}")
        lgpio = self.machine.package("lgpio")
        if lgpio is None:
            yield Finding(FAIL, "python", "lgpio is missing: gpiozero has no pin factory for "
                          "the keys", fix("lgpio"))
        else:
            yield Finding(OK, "python", f"lgpio {lgpio}: gpiozero's pin factory")
        if self.display is not None and self.display.interface in ("i2c", "spi"):
            module, package = {"i2c": ("smbus2", "python3-smbus2"),
                               "spi": ("spidev", "python3-spidev")}[self.display.interface]
            have = self.machine.package(module)
            if have is None:
                yield Finding(FAIL, "python", f"{module} is missing: no display",
                              fix("package", package=package))
            else:
                yield Finding(OK, "python", f"{module} {have}: the display's bus")


SERVICE_KEYS = ("LoadState", "UnitFileState", "ActiveState", "SubState", "Result",
                "ExecMainCode", "ExecMainStatus", "NRestarts", "WatchdogUSec",
                "WatchdogTimestampMonotonic")
#: The companion's own exit statuses (cli.py) and systemd's for a start that failed early.
EXIT_MEANINGS = {
    0: "stopped normally",
    1: "something that may pass (a full or read-only disk, a store that cannot open): retried",
    2: "a bad configuration or state directory (the journal names the file and the key); not retried",
    141: "its output went to a closed pipe",
    200: "systemd could not change into WorkingDirectory",
    203: "the program /opt/companion/venv/bin/companion is missing",
    217: "the user companion is missing",
    226: "systemd could not set up the sandbox",
    233: "systemd could not make /run/companion",
    238: "systemd could not make /var/lib/companion",
}
RESULTS = {
    "watchdog": "stopped answering, and the watchdog killed it",
    "start-limit-hit": "crashed 5 times in 5 minutes; systemd gave up",
    "core-dump": "crashed (core dump)",
    "signal": "killed by a signal",
    "timeout": "did not start (or stop) in time",
}


def exit_meaning(show: dict[str, str]) -> str:
    """The last exit in words, from ``Result``, ``ExecMainCode`` and ``ExecMainStatus``."""
    result = show.get("Result", "success")
    status = int(show.get("ExecMainStatus", "0") or 0)
    if result in RESULTS:
        return f"{result}: {RESULTS[result]}"
    if show.get("ExecMainCode") in ("2", "3"):  # CLD_KILLED, CLD_DUMPED: status is a signal
        return f"signal {status}: killed by a signal"
    return f"status {status}: {EXIT_MEANINGS.get(status, 'see journalctl -u companion -n 50')}"


def timespan(text: str) -> float:
    """systemd's printed time span in seconds: ``30s``, ``1min 30s``, ``500ms``; 0 for none."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
    total = 0.0
    for number, unit in re.findall(r"([\d.]+)\s*(us|ms|min|s|h)", text):
        total += float(number) * units[unit]
    return total


def numbers(version: str) -> tuple[int, ...]:
    """``2.0.1.post3`` -> ``(2, 0, 1)``."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("post")[0])[:3])


def diagnose(machine: Machine, config_file: str | None, state: str | None) -> list[Finding]:
    return list(Doctor(machine, config_file, state).findings())


def ends_a_line(file: str) -> bool:
    """Whether a text file (read already: a regular file) is empty or ends with a line
    break, as every editor leaves it: one whose last line has none may have been cut short
    (a power cut while it was written), and a value cut short can still parse."""
    try:
        with open(file, "rb") as handle:
            if handle.seek(0, os.SEEK_END) == 0:
                return True
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
    except OSError:
        return True  # gone since it was read: the next start says so


def copy_damage(file: pathlib.Path) -> str:
    """Why the companion could not restore from one of its backup files ("" when it can):
    empty, not SQLite's, or damaged as SQLite's quick check finds (read-only and as
    immutable, so nothing is written beside it)."""
    try:
        with open(file, "rb") as handle:
            start = handle.read(len(SQLITE_MAGIC))
    except OSError as err:
        return f"cannot be read: {err.strerror}"
    if start != SQLITE_MAGIC:
        return "is empty (0 bytes)" if not start else "is not an SQLite file"
    uri = f"file:{urllib.parse.quote(str(file))}?mode=ro&immutable=1"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            found = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
            if found == ["ok"] and file.name.endswith(CHANGES):
                found = [copies_unreadable(db)] if copies_unreadable(db) else found
        finally:
            db.close()
        if found == ["ok"] and not file.name.endswith(CHANGES):  # a whole copy: a store
            copy = Store(str(file), connect=lambda _: sqlite3.connect(uri, uri=True))
            try:
                found = [copy.unreadable() or "ok"]
            finally:
                copy.close(fold_log=False)
    except sqlite3.DatabaseError as err:
        return f"is damaged ({err})"
    except (sqlite3.Error, ValueError, TypeError, OSError) as err:
        # A copy is whatever the card holds: what its reading raises is its damage, said
        # on its line (a chaos run saw doctor end in a traceback here), never doctor's end.
        return f"could not be checked ({type(err).__name__}: {err})"
    return "" if found == ["ok"] else f"is damaged ({'; '.join(found[:2])})"
