"""systemd/install.sh's decisions, without root, apt or systemd: where lgpio comes from,
whether the unit is started, and which hints it prints.

The script is sourced with ``COMPANION_INSTALL_SOURCED=1`` (it then only defines its steps),
and the steps that decide something run against fake ``apt-cache``, ``apt-get``, ``pip`` and
``systemctl`` commands that log their arguments. ``make pi-check`` (hardware/pi-check) runs
the whole script for real in an arm64 Debian root."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).parent.parent
INSTALL = ROOT / "systemd" / "install.sh"
PI_CHECK = ROOT / "hardware" / "pi-check"
SH = shutil.which("sh") or "/bin/sh"

#: What `apt-cache madison python3-lgpio` prints where the Raspberry Pi OS archive is a source.
MADISON_RPI = ("python3-lgpio | 0.2.2-1~rpt1 | http://archive.raspberrypi.com/debian "
               "bookworm/main arm64 Packages\n")


@dataclass
class Run:
    code: int
    out: str
    err: str
    calls: list[str]  # each fake command's arguments, one call a line: "systemctl enable x"


class FakeSystem:
    """A directory of fake commands on PATH, a fake venv and fake system paths."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        self.dir = tmp_path
        self.bin = tmp_path / "bin"
        self.venv = tmp_path / "venv"
        self.log = tmp_path / "calls"
        self.log.touch()
        for name in ("apt-get", "systemctl"):
            self.fake(self.bin / name)
        self.fake(self.bin / "apt-cache", "")  # Debian: apt has no python3-lgpio
        self.fake(self.venv / "bin" / "pip")
        self.fake(self.venv / "bin" / "companion")
        (self.bin / "python3").symlink_to(sys.executable)
        (self.venv / "bin" / "python").symlink_to(sys.executable)
        self.systemd = tmp_path / "run-systemd-system"  # stands for /run/systemd/system
        self.conf = tmp_path / "companion.toml"
        self.src = tmp_path / "clone"  # what step 4 builds from: a clone's files it reads
        (self.src / "systemd").mkdir(parents=True)
        for name in ("pyproject.toml", "systemd/companion.service", "systemd/companion.example.toml"):
            shutil.copy(ROOT / name, self.src / name)
        self.site = tmp_path / "site-packages"  # the venv's: pip "installed" lgpio there
        (self.site / "lgpio-0.2.2.0.dist-info").mkdir(parents=True)
        (self.site / "lgpio-0.2.2.0.dist-info" / "METADATA").write_text("Name: lgpio\nVersion: 0.2.2.0\n")

    def fake(self, path: pathlib.Path, prints: str = "", status: int = 0) -> None:
        """A command that logs its name and arguments, prints ``prints`` and exits ``status``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'#!/bin/sh\necho "{path.name} $*" >> "{self.log}"\n'
                        f"printf '%s' '{prints}'\nexit {status}\n")
        path.chmod(0o755)

    def run(self, steps: str, env: dict[str, str] | None = None) -> Run:
        """Source install.sh, point its paths here, then run ``steps`` (shell commands)."""
        script = (f'COMPANION_INSTALL_SOURCED=1 . "{INSTALL}"\n'
                  f'VENV="{self.venv}" UNIT="{self.dir}/companion.service"\n'
                  f'CONF_DIR="{self.conf.parent}" CONF="{self.conf}"\n'
                  f'SRC="{self.src}" SYSTEMD_RUNNING_DIR="{self.systemd}"\n' + steps)
        run = subprocess.run([SH, "-c", script], capture_output=True, text=True, timeout=60,
                             env={"PATH": f"{self.bin}:/usr/bin:/bin", "LANG": "C.UTF-8",
                                  "PYTHONPATH": str(self.site), **(env or {})})
        return Run(run.returncode, run.stdout, run.stderr, self.log.read_text().splitlines())


@pytest.fixture
def system(tmp_path: pathlib.Path) -> FakeSystem:
    return FakeSystem(tmp_path)


def test_install_sh_is_valid_posix_shell() -> None:
    run = subprocess.run([SH, "-n", str(INSTALL)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def test_the_installer_and_pi_check_pass_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        if os.environ.get("CI"):
            pytest.fail("shellcheck is missing: .ci/run installs it")
        pytest.skip("shellcheck is not installed here (CI installs it)")
    run = subprocess.run([shellcheck, str(INSTALL), str(PI_CHECK)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr


def test_sourcing_it_runs_nothing(system: FakeSystem) -> None:
    run = system.run("true")
    assert (run.code, run.out, run.err, run.calls) == (0, "", "", [])


# --- where lgpio comes from --------------------------------------------------------------

def test_raspberry_pi_os_gets_python3_lgpio_from_apt(system: FakeSystem) -> None:
    system.fake(system.bin / "apt-cache", MADISON_RPI)
    run = system.run("install_system_packages")
    assert run.code == 0, run.err
    assert "lgpio: python3-lgpio from apt (the Raspberry Pi OS archive)" in run.out
    install = [call for call in run.calls if call.startswith("apt-get install")]
    assert install == ["apt-get install -y python3-venv python3-spidev fonts-dejavu-core python3-lgpio"]


def test_plain_debian_gets_lgpio_from_pypi_and_says_so(system: FakeSystem) -> None:
    run = system.run("install_system_packages")
    assert run.code == 0, run.err
    assert "lgpio: apt has no python3-lgpio (not Raspberry Pi OS): lgpio comes from PyPI's wheel" in run.out
    assert run.calls[0] == "apt-get update"  # asked only after apt knows its sources
    assert run.calls[1] == "apt-cache madison python3-lgpio"
    install = [call for call in run.calls if call.startswith("apt-get install")]
    assert install == ["apt-get install -y python3-venv python3-spidev fonts-dejavu-core"]


def test_lgpio_from_pypi_is_taken_as_a_wheel_only(system: FakeSystem) -> None:
    """Its source needs liblgpio-dev, which only Raspberry Pi OS has: never try to build it."""
    run = system.run("LGPIO=pypi; install_project")
    assert run.code == 0, run.err
    pip = [call for call in run.calls if call.startswith("pip ")]
    assert len(pip) == 1 and pip[0].startswith("pip install --upgrade --only-binary lgpio ")
    assert pip[0].endswith("[pi]")
    assert f"installing companion[pi] from {system.src}" in run.out


def test_lgpio_from_apt_is_not_fetched_again(system: FakeSystem) -> None:
    run = system.run("LGPIO=apt; install_project")
    assert run.code == 0, run.err
    pip = [call for call in run.calls if call.startswith("pip ")]
    assert len(pip) == 1 and "--only-binary" not in pip[0]


def test_no_lgpio_wheel_says_what_to_do(system: FakeSystem) -> None:
    system.fake(system.venv / "bin" / "pip", status=1)
    run = system.run("LGPIO=pypi; install_project")
    assert run.code == 1
    assert "PyPI has them for aarch64 and armv7l" in run.err
    assert "use Raspberry Pi OS, whose apt has python3-lgpio" in run.err


@pytest.mark.parametrize("lgpio", ["apt", "pypi"])
def test_pip_failing_is_one_line_that_names_the_network_first(system: FakeSystem, lgpio: str) -> None:
    """Offline, pip fails before it changes anything (it cannot fetch the build's setuptools):
    the line says to run the installer again once online, on Raspberry Pi OS too, before
    any word about lgpio wheels."""
    system.fake(system.venv / "bin" / "pip", status=1)
    run = system.run(f"LGPIO={lgpio}; install_project")
    assert run.code == 1
    assert run.err.startswith("install.sh: error: pip could not install companion[pi] (its message above "
                              "says why); without the network, run this again once the Pi is online")


def test_it_says_which_lgpio_the_venv_has_and_where_from(system: FakeSystem) -> None:
    run = system.run("LGPIO=pypi; install_project")
    assert run.code == 0, run.err
    assert f"install.sh: lgpio 0.2.2.0 in {system.site}" in run.out


def test_a_venv_without_lgpio_is_an_error(system: FakeSystem) -> None:
    shutil.rmtree(system.site / "lgpio-0.2.2.0.dist-info")
    if importlib.util.find_spec("lgpio"):
        pytest.skip("this Python has lgpio")
    run = system.run("LGPIO=pypi; install_project")
    assert run.code == 1
    assert run.err.startswith("install.sh: error: the venv has no lgpio")  # no traceback first
    assert "the venv has no lgpio: gpiozero would have no pin factory for the keys" in run.err


# --- starting the unit: a running system, or a chroot (an image build) ------------------

@pytest.mark.parametrize(("systemd_running", "no_start", "calls", "says"), [
    (True, None, ["daemon-reload", "enable companion.service", "restart companion.service"], "started"),
    (True, "1", ["daemon-reload", "enable companion.service"], "enabled, not started (COMPANION_NO_START=1)"),
    (False, None, ["enable companion.service"], "systemd is not running here (a chroot or an image build)"),
    (False, "1", ["enable companion.service"], "systemd is not running here (a chroot or an image build)"),
], ids=["running", "running, no start", "chroot", "chroot, no start"])
def test_the_unit_is_enabled_and_started_only_where_systemd_runs(
        system: FakeSystem, systemd_running: bool, no_start: str | None, calls: list[str], says: str) -> None:
    if systemd_running:
        system.systemd.mkdir()
    run = system.run("install_unit", {"COMPANION_NO_START": no_start} if no_start else None)
    assert run.code == 0, run.err
    assert [call.removeprefix("systemctl ") for call in run.calls] == calls
    assert says in run.out
    unit = (system.src / "systemd" / "companion.service").read_bytes()
    assert (system.dir / "companion.service").read_bytes() == unit


# --- the configuration: never overwritten ------------------------------------------------

def test_a_missing_configuration_is_the_example(system: FakeSystem) -> None:
    run = system.run("install_config")
    assert run.code == 0, run.err
    assert system.conf.read_bytes() == (ROOT / "systemd" / "companion.example.toml").read_bytes()


@pytest.mark.parametrize("kind", ["edited", "a link", "a link to a file not there"])
def test_a_configuration_in_place_is_never_replaced(system: FakeSystem, kind: str) -> None:
    """Kept however it stands, a link too: one to a file on the boot partition (edited from
    a PC) may lead nowhere while an image is built, its partition not mounted."""
    target = system.dir / "boot" / "companion.toml"
    if kind == "edited":
        system.conf.write_text("[display]\nflags = ''  # mine\n")
    else:
        system.conf.symlink_to(target)
        if kind == "a link":
            target.parent.mkdir()
            target.write_text("# mine\n")
    run = system.run("install_config")
    assert run.code == 0, run.err
    assert f"keeping existing {system.conf}" in run.out
    if kind == "edited":
        assert system.conf.read_text() == "[display]\nflags = ''  # mine\n"
    else:
        assert system.conf.is_symlink() and system.conf.readlink() == target
        assert target.exists() == (kind == "a link")
        assert kind != "a link" or target.read_text() == "# mine\n"


# --- hints -----------------------------------------------------------------------------

SPI_FLAGS = "--display sh1106 --interface spi --spi-port 0 --spi-device 0"


@pytest.mark.parametrize(("config", "warns"), [
    ((ROOT / "systemd" / "companion.example.toml").read_text(), False),  # SPI only in a comment
    (f'[display]\nflags = "{SPI_FLAGS}"\n', True),
    (f'[display]\nflags = "{SPI_FLAGS.replace("--interface spi", "--interface=spi")}"\n', True),
    ("[display]\nflags = '--display ssd1306 --interface i2c'\n", False),
    ("not toml [", False),
], ids=["example", "spi", "spi with =", "i2c", "unreadable"])
def test_the_spi_hint_reads_the_flags_not_the_comments(system: FakeSystem, config: str, warns: bool) -> None:
    if pathlib.Path("/dev/spidev0.0").exists():
        pytest.skip("this machine has /dev/spidev0.0: the hint never shows here")
    system.conf.write_text(config)
    run = system.run("hints")
    assert run.code == 0, run.err
    assert ("asks for an SPI display" in run.err) == warns
