"""The machine as the doctor sees it: a root directory and the probes, everything the
doctor reads or tries (files, an I2C bus, GPIO lines, read-only commands, installed
packages). The tests replace each one: a fake root, a fake SMBus, a fake systemctl."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from companion.doctor.gpio import KernelLines, LineSource


class Bus(Protocol):
    """The part of smbus2's SMBus the doctor uses."""

    def read_byte(self, i2c_addr: int) -> int: ...
    def write_quick(self, i2c_addr: int) -> None: ...
    def close(self) -> None: ...


class Node(NamedTuple):
    """A device node's mode bits and owners."""

    mode: int
    uid: int
    gid: int


def open_smbus(port: int) -> Bus:
    from smbus2 import SMBus  # a luma.core dependency

    return SMBus(port)


def run_read_only(argv: Sequence[str]) -> tuple[int, str]:
    """Run a read-only command; its exit status and output (127 when it is not there)."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return 127, str(err)
    return done.returncode, done.stdout + done.stderr


def node_of(path: str) -> Node | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Node(st.st_mode, st.st_uid, st.st_gid)


@dataclass
class Machine:
    """The machine as the doctor sees it: a root directory and the probes."""

    root: pathlib.Path = pathlib.Path("/")
    run: Callable[[Sequence[str]], tuple[int, str]] = run_read_only
    smbus: Callable[[int], Bus] = open_smbus
    lines: LineSource = field(default_factory=KernelLines)
    node: Callable[[str], Node | None] = node_of  # given a path under root
    free: Callable[[str], int] = lambda path: shutil.disk_usage(path).free
    readable: Callable[[str], bool] = lambda path: os.access(path, os.R_OK | os.X_OK)
    clock: Callable[[], float] = time.monotonic  # CLOCK_MONOTONIC, as systemd's *Monotonic
    euid: int = field(default_factory=os.geteuid)
    package: Callable[[str], str | None] = lambda name: package_version(name)
    python: tuple[int, ...] = tuple(sys.version_info[:3])

    def at(self, path: str) -> str:
        """A system path (``/dev/i2c-1``) as a path under the root."""
        return str(self.root / path.lstrip("/"))

    def exists(self, path: str) -> bool:
        return os.path.lexists(self.at(path))

    def read(self, path: str) -> str | None:
        try:
            return pathlib.Path(self.at(path)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def read_bytes(self, path: str) -> bytes | None:
        try:
            return pathlib.Path(self.at(path)).read_bytes()
        except OSError:
            return None

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(self.at(path)))
        except OSError:
            return []

    def resolve(self, path: str) -> str:
        """Follow symbolic links inside the root; a system path back."""
        for _ in range(40):
            try:
                target = os.readlink(self.at(path))
            except OSError:
                return path
            path = os.path.normpath(os.path.join(os.path.dirname(path), target))
        return path


def answers(bus: Bus, address: int) -> bool:
    """Whether a device acknowledges ``address``, probed as i2cdetect does by default: a
    quick write (an OLED controller takes writes only), but a one-byte read in the EEPROM
    ranges, where a quick write can change what some EEPROMs store."""
    try:
        if 0x30 <= address <= 0x37 or 0x50 <= address <= 0x5F:
            bus.read_byte(address)
        else:
            bus.write_quick(address)
    except OSError:
        return False
    return True


def can_open(node: Node, uid: int, groups: set[int]) -> bool:
    """Whether a user with these groups may read and write the node."""
    if uid == 0:
        return True
    if node.uid == uid:
        return node.mode & 0o600 == 0o600
    if node.gid in groups:
        return node.mode & 0o060 == 0o060
    return node.mode & 0o006 == 0o006


def passwd(machine: Machine) -> dict[str, tuple[int, int]]:
    """Users from ``/etc/passwd``: name -> (uid, gid)."""
    users: dict[str, tuple[int, int]] = {}
    for line in (machine.read("/etc/passwd") or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 4 and parts[2].isdigit() and parts[3].isdigit():
            users[parts[0]] = (int(parts[2]), int(parts[3]))
    return users


def group_file(machine: Machine) -> dict[int, tuple[str, set[str]]]:
    """Groups from ``/etc/group``: gid -> (name, members)."""
    groups: dict[int, tuple[str, set[str]]] = {}
    for line in (machine.read("/etc/group") or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 4 and parts[2].isdigit():
            groups[int(parts[2])] = (parts[0], {m for m in parts[3].split(",") if m})
    return groups


def package_version(name: str) -> str | None:
    """A distribution's version; "(system)" for a module installed without metadata (an apt
    package seen through --system-site-packages may lack it); None when it is missing."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        return "(system)" if importlib.util.find_spec(name) is not None else None
    except (ImportError, ValueError):
        return None
