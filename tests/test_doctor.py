"""``companion doctor`` against a fake Pi: every check ok on a healthy box, and each broken
box changes exactly the lines it should, with the fix a maker can type."""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable

import pytest

from companion import cli, doctor
from companion.doctor import FAIL, FIXES, OK, WARN, Finding, gpio
from companion.doctor.machine import answers
from companion.store import Store
from tests.doctor_pi import WAVESHARE, FakePi, broken_pi

ROOT = pathlib.Path(__file__).resolve().parent.parent

HEALTHY = """\
ok    config    /etc/companion/companion.toml parses
ok    display   the i2c-dev module is loaded
ok    display   I2C clock 400 kHz (/boot/firmware/config.txt)
ok    display   /dev/i2c-1 is there
ok    display   a device answers at 0x3C
ok    keys      GPIO17 (up key) is free
ok    keys      GPIO22 (down key) is free
ok    keys      GPIO27 (left key) is free
ok    keys      GPIO23 (right key) is free
ok    keys      GPIO4 (select key) is free
ok    keys      GPIO5 (roll key) is free
ok    keys      GPIO6 (back key) is free
ok    access    companion can open /dev/gpiochip0 (gpio 0660)
ok    access    companion can open /dev/i2c-1 (i2c 0660)
ok    access    companion can open /dev/ttyACM0 (dialout 0660)
ok    serial 1  /dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00 is there (/dev/ttyACM0)
ok    serial 1  open in the companion (pid 812)
ok    serial    ModemManager is not installed
ok    store     /var/lib/companion/companion.sqlite opens; integrity_check ok
ok    store     2000 MB free beside the store
ok    store     no backups yet
ok    service   installed and enabled (starts at boot)
ok    service   active (running)
ok    service   watchdog ping 5 s ago (every 15 s)
ok    python    Python 3.11.2
ok    python    gpiozero 2.0.1
ok    python    luma.core 2.6.0
ok    python    luma.oled 3.16.0
ok    python    lgpio 0.2.2.0: gpiozero's pin factory
ok    python    smbus2 0.4.2: the display's bus
0 fail, 0 warn, 30 ok
"""


@pytest.fixture
def pi(tmp_path: pathlib.Path) -> FakePi:
    return FakePi(tmp_path)


def test_a_healthy_box_is_all_ok_and_exits_0(pi: FakePi) -> None:
    assert pi.report() == HEALTHY
    assert all(finding.status == OK for finding in pi.findings())


def changed(pi: FakePi) -> list[str]:
    """The lines of the report that differ from the healthy box's (the count line aside)."""
    healthy = set(HEALTHY.splitlines())
    return [line for line in pi.report().splitlines()[:-1] if line not in healthy]


def gone(pi: FakePi) -> list[str]:
    """The healthy lines missing from this box's report."""
    lines = set(pi.report().splitlines())
    return [line for line in HEALTHY.splitlines()[:-1] if line not in lines]


# --- each broken box: what breaks it, and the lines that change (whole lines, fix included) ---


def no_i2c(pi: FakePi) -> None:
    pi.remove("dev/i2c-1")
    pi.write("proc/modules", "i2c_bcm2835 16384 1 - Live 0x0000000000000000\n")


def panel_at_3d(pi: FakePi) -> None:
    pi.i2c = {0x3D}


def panel_silent(pi: FakePi) -> None:
    pi.i2c = set()


def slow_bus(pi: FakePi) -> None:
    pi.write("boot/firmware/config.txt", "dtparam=i2c_arm=on\n")
    pi.clock(100_000)


def not_rebooted(pi: FakePi) -> None:
    pi.clock(100_000)  # config.txt was edited, the Pi not restarted


def old_boot_path(pi: FakePi) -> None:
    pi.remove("boot/firmware/config.txt")
    pi.write("boot/config.txt", "dtparam=i2c_arm=on,i2c_arm_baudrate=400000\n")


def hdmi_buses_only(pi: FakePi) -> None:
    """A Pi 4 with i2c-dev loaded but I2C off: only HDMI's DDC buses are there."""
    pi.remove("dev/i2c-1")
    pi.write("dev/i2c-20", "")
    pi.write("dev/i2c-21", "")


def wrong_port(pi: FakePi) -> None:
    pi.write("etc/companion/companion.toml", pi.root.joinpath("etc/companion/companion.toml")
             .read_text().replace("--i2c-port 1", "--i2c-port 0"))


def one_wire_on_select(pi: FakePi) -> None:
    pi.write("boot/firmware/config.txt", "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"
                                         "dtoverlay=w1-gpio\n")


def ir_moved_onto_up(pi: FakePi) -> None:
    pi.write("boot/firmware/config.txt", "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"
                                         "dtoverlay=gpio-ir,gpio_pin=17\n")


def line_held(pi: FakePi) -> None:
    pi.held = {22: "python-gpio-test"}


def pin_twice(pi: FakePi) -> None:
    text = pi.root.joinpath("etc/companion/companion.toml").read_text()
    pi.write("etc/companion/companion.toml", text + "[shake]\npin = 17\n")


def key_on_i2c_pin(pi: FakePi) -> None:
    text = pi.root.joinpath("etc/companion/companion.toml").read_text()
    pi.write("etc/companion/companion.toml", text.replace('preset = "adafruit-bonnet"',
                                                          'preset = "adafruit-bonnet"\n'
                                                          "pins = { back = 3 }"))


def not_in_i2c_group(pi: FakePi) -> None:
    text = pi.root.joinpath("etc/group").read_text()
    pi.write("etc/group", text.replace("i2c:x:998:pi,companion", "i2c:x:998:pi"))


def i2c_root_only(pi: FakePi) -> None:
    pi.nodes["/dev/i2c-1"] = pi.nodes["/dev/i2c-1"]._replace(gid=0, mode=0o020600)


def no_service_user(pi: FakePi) -> None:
    text = pi.root.joinpath("etc/passwd").read_text()
    pi.write("etc/passwd", "\n".join(line for line in text.splitlines()
                                     if not line.startswith("companion:")))


def reader_unplugged(pi: FakePi) -> None:
    pi.remove("dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00")
    pi.remove("dev/ttyACM0")


def reader_by_tty_name(pi: FakePi) -> None:
    text = pi.root.joinpath("etc/companion/companion.toml").read_text()
    pi.write("etc/companion/companion.toml",
             text.replace("/dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00", "/dev/ttyACM0"))


def modemmanager_grabs_reader(pi: FakePi) -> None:
    pi.write("usr/sbin/ModemManager", "")
    pi.link("proc/812/fd/7", "/dev/null")
    pi.link("proc/503/fd/9", "/dev/ttyACM0")
    pi.write("proc/503/comm", "ModemManager\n")


def store_damaged(pi: FakePi) -> None:
    pi.write("var/lib/companion/companion.sqlite", "SQLite format 3\0" + "garbage" * 200)


def config_cut_short(pi: FakePi) -> None:
    """The configuration cut at its very end (a power cut while it was saved): it still
    parses, and a value cut short would too (``port = 80`` of 8080)."""
    config = pi.root / "etc/companion/companion.toml"
    config.write_text(config.read_text().rstrip("\n"))


def checkpoint_damaged(pi: FakePi) -> None:
    """A long game's kept state with one bit flipped (the record itself is sound)."""
    from companion.bench import long_race
    from companion.session import Session

    store = Store(str(pi.root / "var/lib/companion/companion.sqlite"))
    header, lines = long_race(300)
    session = Session.new(store, header)
    for line in lines:
        session.play([line])
    store.db.execute("UPDATE checkpoints SET state = replace(state, '\"laps\":3', '\"laps\":1')")
    store.close()


def disk_nearly_full(pi: FakePi) -> None:
    pi.free = 20 * 1024 * 1024


def disk_full(pi: FakePi) -> None:
    pi.free = 1024 * 1024


def service_not_installed(pi: FakePi) -> None:
    pi.show = {"LoadState": "not-found", "ActiveState": "inactive"}


def service_disabled_and_stopped(pi: FakePi) -> None:
    pi.show.update(UnitFileState="disabled", ActiveState="inactive", SubState="dead")


def service_bad_config(pi: FakePi) -> None:
    pi.show.update(ActiveState="failed", SubState="failed", Result="exit-code",
                   ExecMainCode="1", ExecMainStatus="2")


def service_hung(pi: FakePi) -> None:
    pi.show.update(WatchdogTimestampMonotonic="940000000")


def restarted(pi: FakePi) -> None:
    pi.show.update(NRestarts="3")


def watchdog_killed(pi: FakePi) -> None:
    pi.show.update(ActiveState="activating", SubState="auto-restart", Result="watchdog",
                   ExecMainCode="2", ExecMainStatus="6")


def no_systemd(pi: FakePi) -> None:
    pi.systemd = False


def no_lgpio(pi: FakePi) -> None:
    pi.packages["lgpio"] = None


def old_luma(pi: FakePi) -> None:
    pi.packages["luma.oled"] = "3.8.1"


def old_python(pi: FakePi) -> None:
    pi.python = (3, 9, 2)


def bad_config(pi: FakePi) -> None:
    pi.write("etc/companion/companion.toml", "[screen]\ndim_after = 'soon'\n")


def reader_path_a_directory(pi: FakePi) -> None:
    pi.remove("dev/ttyACM0")
    (pi.root / "dev/ttyACM0").mkdir()


def reader_path_a_symlink_loop(pi: FakePi) -> None:
    pi.link("dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00", "loop")
    pi.link("dev/serial/by-id/loop", "usb-Raspberry_Pi_Pico_E661-if00")


def settings_damaged(pi: FakePi) -> None:
    pi.write("var/lib/companion/settings.json", '{"screen": 5}')


def phone_json_a_directory(pi: FakePi) -> None:
    (pi.root / "var/lib/companion/phone.json").mkdir()


I2C_ON = "sudo raspi-config nonint do_i2c 0 && sudo reboot"
CASES: dict[str, tuple[Callable[[FakePi], None], list[str]]] = {
    "I2C off": (no_i2c, [
        f"fail  display   the i2c-dev module is not loaded; fix: {I2C_ON}",
        f"fail  display   no /dev/i2c-1: I2C is not enabled; fix: {I2C_ON}"]),
    "only HDMI's I2C buses": (hdmi_buses_only, [
        f"fail  display   no /dev/i2c-1: I2C is not enabled; fix: {I2C_ON}"]),
    "panel at 0x3D": (panel_at_3d, [
        ("fail  display   nothing answers at 0x3C; found a device at 0x3D; "
        "fix: set --i2c-address 0x3D in [display] flags")]),
    "panel silent": (panel_silent, [
        ("fail  display   nothing answers on I2C bus 1; fix: check the wiring: SDA to GPIO2 "
        "(pin 3), SCL to GPIO3 (pin 5), VCC to 3.3V, GND to GND")]),
    "bus at 100 kHz": (slow_bus, [
        ("warn  display   I2C clock 100 kHz: a full frame takes ~93 ms; fix: "
        "dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt, then sudo reboot")]),
    "config.txt edited, no reboot yet": (not_rebooted, [
        ("warn  display   I2C clock 100 kHz now; /boot/firmware/config.txt gives 400 kHz from "
         "the next boot; fix: sudo reboot")]),
    "Bullseye's /boot/config.txt": (old_boot_path, [
        "ok    display   I2C clock 400 kHz (/boot/config.txt)"]),
    "wrong I2C port": (wrong_port, [
        ("fail  display   no /dev/i2c-0; the header's bus is /dev/i2c-1; "
        "fix: set --i2c-port 1 in [display] flags")]),
    "1-Wire overlay on BCM 4": (one_wire_on_select, [
        ("fail  keys      GPIO4 (select key) is claimed by dtoverlay=w1-gpio; fix: remove "
        "dtoverlay=w1-gpio from /boot/firmware/config.txt and sudo reboot, or move the key to "
        "a free pin")]),
    "IR overlay moved onto a key": (ir_moved_onto_up, [
        ("fail  keys      GPIO17 (up key) is claimed by dtoverlay=gpio-ir,gpio_pin=17; fix: remove "
        "dtoverlay=gpio-ir,gpio_pin=17 from /boot/firmware/config.txt and sudo reboot, or move "
        "the key to a free pin")]),
    "line held by another program": (line_held, [
        ('fail  keys      GPIO22 (down key) is held by "python-gpio-test"; fix: stop the program '
        "that holds it (the companion run by hand, or the service: sudo systemctl stop "
        "companion); a driver's name (w1, spi0 CS0) means an overlay: remove it from "
        "config.txt, or move the key to a free pin")]),
    "pin used twice": (pin_twice, [
        ("fail  keys      GPIO17 (tilt switch) is also the adafruit-bonnet preset's up key; fix: "
        "give each its own GPIO: change shake.pin (or buttons.preset)")]),
    "key on the display's I2C pin": (key_on_i2c_pin, [
        ("fail  keys      GPIO3 (back key) is also the display's I2C1 SCL; fix: give each its own "
        "GPIO: change buttons.pins.back (or display.flags)")]),
    "not in group i2c": (not_in_i2c_group, [
        ("fail  access    companion cannot open /dev/i2c-1 (i2c 0660): not in group i2c; "
        "fix: sudo usermod -aG i2c companion && sudo systemctl restart companion")]),
    "udev rule missing": (i2c_root_only, [
        ("fail  access    /dev/i2c-1 is root 0600, not for group i2c; fix: sudo apt install "
        "--reinstall raspberrypi-sys-mods && sudo reboot")]),
    "no service user": (no_service_user, [
        ("warn  access    no user companion: the service is not installed; "
        "fix: sudo sh ~/companion/systemd/install.sh ~/companion")]),
    "reader unplugged": (reader_unplugged, [
        ("fail  serial 1  /dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00 is not there; "
        "fix: plug the reader in, then look for it: ls -l /dev/serial/by-id/")]),
    "reader by its tty name": (reader_by_tty_name, [
        ("warn  serial 1  /dev/ttyACM0 is there, but its name can change when devices are "
        'replugged; fix: path = "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00" in '
        "[serial] ports")]),
    "ModemManager has the reader": (modemmanager_grabs_reader, [
        ("fail  serial 1  /dev/ttyACM0 is open in ModemManager (pid 503); "
        "fix: stop ModemManager (pid 503): it has the port open"),
        ("warn  serial    ModemManager is installed: it probes new serial devices and can grab "
        'a die reader; fix: sudo apt purge modemmanager, or a udev rule '
        'ENV{ID_MM_DEVICE_IGNORE}="1" for the reader')]),
    "store damaged": (store_damaged, [
        ("fail  store     /var/lib/companion/companion.sqlite is damaged (file is not a "
        "database); fix: sudo systemctl restart companion (a damaged store is set aside at "
        "start and its games carried over)")]),
    "the configuration cut short": (config_cut_short, [
        ("warn  config    /etc/companion/companion.toml parses, but its last line has no line "
         "break: was it cut short?; fix: sudoedit /etc/companion/companion.toml")]),
    "checkpoint damaged": (checkpoint_damaged, [
        ("warn  store     /var/lib/companion/companion.sqlite opens; integrity_check ok; 1 "
         "damaged checkpoint; fix: none needed: a checkpoint only saves time, and the companion "
         "drops a damaged one and replays the record when its game is next opened")]),
    "the reader's path is a directory": (reader_path_a_directory, [
        ("fail  serial 1  /dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00 is a directory, not a "
         "serial device; fix: path = the reader's link in [serial] ports: ls -l /dev/serial/by-id/")]),
    "the reader's path is a symlink loop": (reader_path_a_symlink_loop, [
        ("fail  serial 1  /dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if00 cannot be opened: Too "
         "many levels of symbolic links; fix: path = the reader's link in [serial] ports: "
         "ls -l /dev/serial/by-id/")]),
    "settings.json damaged": (settings_damaged, [
        ("warn  state     /var/lib/companion/settings.json: screen: must be a table: set aside at "
         "the next start; fix: nothing to type: the companion sets it aside at its next start and "
         "uses the defaults (choose them again on the box)")]),
    "phone.json a directory": (phone_json_a_directory, [
        ("warn  state     /var/lib/companion/phone.json: (file): is a directory, not a regular file: "
         "set aside at the next start; fix: nothing to type: the companion sets it aside at its "
         "next start and uses the defaults (choose them again on the box)")]),
    "disk nearly full": (disk_nearly_full, [
        ("warn  store     20 MB free beside the store; fix: sudo apt clean && sudo journalctl "
        "--vacuum-size=20M")]),
    "disk full": (disk_full, [
        ("fail  store     1 MB free beside the store; fix: sudo apt clean && sudo journalctl "
        "--vacuum-size=20M")]),
    "service not installed": (service_not_installed, [
        ("warn  service   companion.service is not installed; "
        "fix: sudo sh ~/companion/systemd/install.sh ~/companion")]),
    "service disabled and stopped": (service_disabled_and_stopped, [
        ("warn  service   installed but disabled: it will not start at boot; "
        "fix: sudo systemctl enable companion"),
        ("warn  service   not running (inactive, dead); last exit: status 0: stopped "
         "normally; fix: sudo systemctl start companion")]),
    "service stopped by a bad configuration": (service_bad_config, [
        ("fail  service   failed: status 2: a bad configuration or state directory (the journal "
        "names the file and the key); not retried; fix: journalctl -u companion -n 50, fix what it names, then sudo "
        "systemctl restart companion")]),
    "service hung": (service_hung, [
        ("fail  service   last watchdog ping 60 s ago: the loop is stuck; fix: sudo systemctl "
        "restart companion, and report journalctl -u companion -b")]),
    "killed by the watchdog": (watchdog_killed, [
        ("warn  service   not running (activating, auto-restart); last exit: watchdog: stopped "
        "answering, and the watchdog killed it; fix: journalctl -u companion -b (the lines "
        "before each start say why)")]),
    "restarted by systemd": (restarted, [
        ("warn  service   active (running), but systemd restarted it 3 times; "
        "fix: journalctl -u companion -b (the lines before each start say why)")]),
    "no lgpio": (no_lgpio, [
        ("fail  python    lgpio is missing: gpiozero has no pin factory for the keys; fix: sudo "
        "sh ~/companion/systemd/install.sh ~/companion (it installs lgpio: python3-lgpio from apt "
        "on Raspberry Pi OS, PyPI's wheel elsewhere)")]),
    "old luma.oled": (old_luma, [
        ("fail  python    luma.oled 3.8.1 is older than 3.16.0; "
        "fix: sudo sh ~/companion/systemd/install.sh ~/companion")]),
    "old Python": (old_python, [
        ("fail  python    Python 3.9.2 is too old; fix: Raspberry Pi OS Bookworm or later "
        "(Python 3.11 or later)")]),
}


def no_configuration(pi: FakePi) -> None:
    pi.remove("etc/companion/companion.toml")


def spi_off(pi: FakePi) -> None:
    pi.write("etc/companion/companion.toml", WAVESHARE)
    pi.remove("dev/spidev0.0")


def not_a_pi(pi: FakePi) -> None:
    pi.remove("dev/gpiochip0")
    pi.remove("dev/gpiochip1")
    pi.systemd = False


def gpio_unreadable(pi: FakePi) -> None:
    pi.gpio_readable = False


def store_private(pi: FakePi) -> None:
    pi.unreadable.add("/var/lib/companion")


def foreign_unit(pi: FakePi) -> None:
    pi.show["WatchdogUSec"] = "0"


def display_flags_refused(pi: FakePi) -> None:
    pi.write("etc/companion/companion.toml", '[display]\nflags = "--display ssd1306 --bogus"\n')


def no_smbus2(pi: FakePi) -> None:
    pi.packages["smbus2"] = None


#: Broken boxes whose reports change more than a line or two: lines each report must have.
MORE: dict[str, tuple[Callable[[FakePi], None], list[str]]] = {
    "a bad configuration": (bad_config, [
        ("fail  config    /etc/companion/companion.toml: screen.dim_after: must be a number of "
        "seconds, not 'soon'; fix: sudoedit /etc/companion/companion.toml")]),
    "no configuration": (no_configuration, [
        ("warn  config    no /etc/companion/companion.toml: using the defaults (no display, the "
        "minimal preset); fix: sudo install -m 0644 ~/companion/systemd/companion.example.toml "
        "/etc/companion/companion.toml"),
        ('warn  display   no display configured: the box runs headless (looking on I2C bus 1); '
         'fix: flags = "--display ssd1306 --interface i2c --i2c-port 1 --i2c-address 0x3C" '
         'under [display]'),
        "ok    display   a device answers at 0x3C",
        "ok    keys      GPIO17 (up key) is free"]),
    "SPI off": (spi_off, [
        ("fail  display   no /dev/spidev0.0: SPI is not enabled; "
        "fix: sudo raspi-config nonint do_spi 0 && sudo reboot")]),
    "not a Pi": (not_a_pi, [
        ("fail  keys      no GPIO chip (/dev/gpiochip0); "
        "fix: run companion doctor on the Raspberry Pi itself"),
        ("warn  service   systemd does not answer here; "
        "fix: run companion doctor on the Raspberry Pi itself")]),
    "GPIO chip unreadable": (gpio_unreadable, [
        ("warn  keys      GPIO17 (up key): cannot read /dev/gpiochip0 (Permission denied); "
        "fix: sudo /opt/companion/venv/bin/companion doctor (to see what this user may not)")]),
    "the service's store, without sudo": (store_private, [
        ("warn  store     cannot look into /var/lib/companion; "
        "fix: sudo /opt/companion/venv/bin/companion doctor (to see what this user may not)")]),
    "a unit without a watchdog": (foreign_unit, [
        ("warn  service   no watchdog: the unit is not the project's; "
        "fix: sudo sh ~/companion/systemd/install.sh ~/companion")]),
    "display flags luma refuses": (display_flags_refused, [
        ("fail  display   luma refuses the flags '--display ssd1306 --bogus'; "
        "fix: sudoedit /etc/companion/companion.toml")]),
    "no smbus2": (no_smbus2, [
        ("fail  python    smbus2 is missing: no display; "
        "fix: sudo apt install python3-smbus2, then run the installer again")]),
}


@pytest.mark.parametrize("name", MORE)
def test_each_box_with_wider_changes_says_what_is_wrong(pi: FakePi, name: str) -> None:
    breaks, expected = MORE[name]
    breaks(pi)
    lines = pi.report().splitlines()
    assert [line for line in expected if line not in lines] == []


@pytest.mark.parametrize("name", CASES)
def test_each_broken_box_changes_only_its_own_lines(pi: FakePi, name: str) -> None:
    breaks, expected = CASES[name]
    breaks(pi)
    assert changed(pi) == expected


def test_the_service_hung_line_replaces_the_ping_line(pi: FakePi) -> None:
    service_hung(pi)
    assert gone(pi) == ["ok    service   watchdog ping 5 s ago (every 15 s)"]


def test_the_waveshare_hat_checks_spi_and_its_own_pins(tmp_path: pathlib.Path) -> None:
    pi = FakePi(tmp_path, WAVESHARE)
    lines = pi.report().splitlines()
    assert "ok    display   /dev/spidev0.0 is there" in lines
    assert "ok    access    companion can open /dev/spidev0.0 (spi 0660)" in lines
    assert "ok    python    spidev 3.6: the display's bus" in lines
    assert not any("I2C" in line or "i2c" in line for line in lines)
    assert lines[-1] == "0 fail, 0 warn, 24 ok"
    pi.remove("dev/spidev0.0")
    assert changed_from(pi, lines) == [
        ("fail  display   no /dev/spidev0.0: SPI is not enabled; "
        "fix: sudo raspi-config nonint do_spi 0 && sudo reboot")]


def changed_from(pi: FakePi, before: list[str]) -> list[str]:
    return [line for line in pi.report().splitlines()[:-1] if line not in before]


def test_a_line_held_by_the_running_service_is_fine(pi: FakePi) -> None:
    pi.held = {17: "lg"}
    assert changed(pi) == ['ok    keys      GPIO17 (up key) is held by "lg", the running service']
    pi.show["ActiveState"] = "inactive"
    assert 'fail  keys      GPIO17 (up key) is held by "lg"' in pi.report()


def test_the_header_chip_is_found_by_its_label(pi: FakePi) -> None:
    """A Pi 5 on an older kernel: the header is gpiochip4, not gpiochip0."""
    pi.held = {17: "held-on-the-header"}
    pi.remove("dev/gpiochip0")
    pi.write("dev/gpiochip4", "")
    pi.nodes["/dev/gpiochip4"] = pi.nodes.pop("/dev/gpiochip0")

    class Pi5Lines:
        def label(self, chip: str) -> str:
            return "pinctrl-rp1" if chip.endswith("gpiochip4") else "gpio-brcmstb@107d508500"

        def consumer(self, chip: str, offset: int) -> str | None:
            return "held-on-the-header" if chip.endswith("gpiochip4") and offset == 17 else None

    machine = pi.machine()
    machine.lines = Pi5Lines()
    lines = doctor.printed(doctor.diagnose(machine, str(pi.root / "etc/companion/companion.toml"), None))
    assert 'fail  keys      GPIO17 (up key) is held by "held-on-the-header"' in lines
    assert "companion can open /dev/gpiochip4" in lines


def test_backups_beside_the_store_are_counted(pi: FakePi) -> None:
    store = pi.root / "var/lib/companion"
    Store(str(store / "companion.sqlite.backup-1")).close()  # one of the companion's copies
    (store / "backups").mkdir()
    (store / "backups" / "companion-2026-11-23.sqlite").write_bytes(b"")
    (store / "companion.sqlite.backup-1").touch()
    line = next(f for f in pi.findings() if f.area == "store" and "backup" in f.found)
    assert line.status == OK
    assert line.found.startswith("2 backups, newest ")


@pytest.mark.parametrize("content", [b"", b"SQLite format 3\0" + b"\xff" * 5000, b"not a copy"],
                         ids=["empty", "damaged", "not sqlite"])
def test_a_copy_the_companion_could_not_restore_from_is_a_warning(pi: FakePi, content: bytes) -> None:
    store = pi.root / "var/lib/companion"
    (store / "companion.sqlite.backup-2").write_bytes(content)
    line = next(f for f in pi.findings() if f.area == "store" and "backup-2" in f.found)
    assert line.status == WARN
    assert line.found.startswith("backup /var/lib/companion/companion.sqlite.backup-2 is ")


def test_a_store_in_use_is_read_with_its_log_and_left_as_it_was(pi: FakePi) -> None:
    path = pi.root / "var/lib/companion/companion.sqlite"
    store = Store(str(path))  # the service has it open: the entries are still in -wal
    try:
        gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
        store.push(gid, ["table roll 3 2"], rolled=True, over=False, winners=[])
        files = sorted(p.name for p in path.parent.iterdir())
        assert "companion.sqlite-wal" in files
        assert changed(pi) == []
        assert sorted(p.name for p in path.parent.iterdir()) == files
    finally:
        store.close()


def test_the_store_named_by_state_is_checked(pi: FakePi, tmp_path: pathlib.Path) -> None:
    found = pi.findings(state="/home/pi/companion-test")
    assert Finding(OK, "store", "no store yet at /home/pi/companion-test/companion.sqlite "
                                "(made at the first start)") in found


@pytest.mark.parametrize(("state", "says"), [
    ("/etc/passwd/x", "/etc/passwd/x: (state): cannot be made: Not a directory"),
    ("/etc/passwd", "/etc/passwd: (state): cannot be used: is a regular file, not a directory"),
    ("/srv/loop/games", "/srv/loop/games: (state): cannot be used: Too many levels of symbolic links"),
], ids=["under a file", "a file", "a symlink loop"])
def test_a_state_directory_run_would_refuse_fails_and_hides_the_store(pi: FakePi, state: str,
                                                                         says: str) -> None:
    """Issue 24, fault 19: doctor said "made at the first start" where run exits 2."""
    pi.link("srv/loop", "loop")
    found = [f for f in pi.findings(state=state) if f.area in ("state", "store")]
    assert [(f.status, f.found.replace(str(pi.root), "")) for f in found] == [(FAIL, says)]
    assert found[0].fix == FIXES["state-dir"]


def test_the_doctor_only_reads(pi: FakePi) -> None:
    """Nothing under the root changes, not even the store's files (the fake systemctl also
    refuses anything but ``show``)."""
    def snapshot() -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in pi.root.rglob("*") if p.is_file()}

    before = snapshot()
    pi.report()
    assert snapshot() == before


def test_the_bus_is_probed_as_i2cdetect_does() -> None:
    """An OLED controller takes writes only: a read at 0x3C would miss it. EEPROM ranges
    are read instead of written to."""
    probes: list[tuple[str, int]] = []

    class WriteOnlyPanelAndEeprom:
        def read_byte(self, i2c_addr: int) -> int:
            probes.append(("read", i2c_addr))
            if i2c_addr != 0x50:
                raise OSError(121, "Remote I/O error")
            return 0xFF

        def write_quick(self, i2c_addr: int) -> None:
            probes.append(("quick", i2c_addr))
            if i2c_addr != 0x3C:
                raise OSError(121, "Remote I/O error")

        def close(self) -> None:
            pass

    bus = WriteOnlyPanelAndEeprom()
    assert answers(bus, 0x3C) and answers(bus, 0x50)
    assert not answers(bus, 0x3D)
    assert probes == [("quick", 0x3C), ("read", 0x50), ("quick", 0x3D)]


def test_the_kernel_line_info_decodes_the_uapi_struct() -> None:
    """The ioctl's 256-byte answer: consumer at 32, flags (USED = bit 0) at 72."""
    import struct

    info = bytearray(gpio.LINE_INFO_SIZE)
    info[32:36] = b"w1\0\0"
    struct.pack_into("=Q", info, gpio.FLAGS_AT, gpio.GPIO_V2_LINE_FLAG_USED)
    assert gpio.GPIO_V2_GET_LINEINFO_IOCTL == (3 << 30) | (256 << 16) | (0xB4 << 8) | 0x05
    assert gpio.GPIO_GET_CHIPINFO_IOCTL == (2 << 30) | (68 << 16) | (0xB4 << 8) | 0x01
    assert gpio.decode_line(bytes(info)) == "w1"
    assert gpio.decode_line(bytes(gpio.LINE_INFO_SIZE)) is None


# --- the command and its documentation ---


def test_the_command_exits_1_on_a_failure_and_0_otherwise(
        pi: FakePi, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    machine = pi.machine()
    monkeypatch.setattr(doctor, "Machine", lambda: machine)
    config = str(pi.root / "etc/companion/companion.toml")
    assert cli.main(["doctor", "--config", config]) == 0
    assert capsys.readouterr().out.endswith("0 fail, 0 warn, 30 ok\n")
    pi.i2c = set()
    assert cli.main(["doctor", "--config", config]) == 1
    assert "1 fail" in capsys.readouterr().out


def test_warnings_alone_exit_0(pi: FakePi, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    slow_bus(pi)
    machine = pi.machine()
    monkeypatch.setattr(doctor, "Machine", lambda: machine)
    assert cli.main(["doctor", "--config", str(pi.root / "etc/companion/companion.toml")]) == 0
    assert "0 fail, 1 warn" in capsys.readouterr().out


def placeholders(template: str) -> str:
    """A fix template as PI-INSTALL.md writes it: each field as ``<field>``."""
    return re.sub(r"(?<!\{)\{(\w+)\}(?!\})", r"<\1>", template).replace("{{", "{").replace("}}", "}")


def test_every_fix_the_doctor_prints_is_in_pi_install() -> None:
    text = (ROOT / "hardware" / "PI-INSTALL.md").read_text(encoding="utf-8")
    missing = [name for name, template in FIXES.items() if placeholders(template) not in text]
    assert missing == []


def test_every_finding_words_in_the_troubleshooting_table_are_the_doctors(pi: FakePi) -> None:
    """The table quotes doctor lines (`fail  display ...`): each quote must be something the
    doctor prints for one of the broken boxes above, so the two never disagree."""
    text = (ROOT / "hardware" / "PI-INSTALL.md").read_text(encoding="utf-8")
    quoted = re.findall(r"`((?:fail|warn) +\w+(?: \d)? +[^`;]+)`", text)
    assert quoted, "the troubleshooting table quotes no doctor lines"
    printed: set[str] = set()
    for _breaks, expected in [*CASES.values(), *MORE.values()]:
        printed.update(line.split("; fix:")[0] for line in expected)
    printed.update(line.split("; fix:")[0] for line in broken_pi_lines(pi.root / "readme"))
    unknown = [quote for quote in quoted if not any(p.startswith(quote) for p in printed)]
    assert unknown == []


def broken_pi_lines(root: pathlib.Path) -> list[str]:
    root.mkdir()
    return broken_pi(root).report().splitlines()


def test_the_pi_page_shows_the_broken_pi_as_the_doctor_prints_it(tmp_path: pathlib.Path) -> None:
    page = (ROOT / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    sample = broken_pi(tmp_path).report()
    assert f"```console\n$ companion doctor\n{sample}```" in page
    assert {FAIL, WARN} <= {line.split()[0] for line in sample.splitlines()[:-1]}


@pytest.mark.parametrize("raised", [ValueError("a number of the wrong kind"), TypeError("not text"),
                                    OSError(5, "Input/output error")])
def test_a_copy_whose_reading_raises_is_its_own_line_not_doctor_s_end(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, raised: Exception) -> None:
    """A chaos run saw doctor end in a traceback while checking a backup copy: whatever
    reading a copy raises is that copy's problem, said on its line."""
    from companion.doctor import checks

    path = tmp_path / "companion.sqlite.backup-1"
    Store(str(path)).close()

    def failing(self: Store) -> str:
        raise raised
    monkeypatch.setattr(Store, "unreadable", failing)
    said = checks.copy_damage(path)
    assert said.startswith("could not be checked (") and str(raised) in said
