"""Fault matrix, the small files read at start: the configuration, ``settings.json`` and
``phone.json``.

Each is replaced by every fault of :data:`tests.faults.FILE_FAULTS` (missing, empty,
truncated, not UTF-8, a directory, a FIFO, a device, a symbolic link loop, a gigabyte), by
every single-bit flip of what the companion writes, and by a value of every JSON type at
every key (:func:`tests.faults.with_each_value`). The invariants:

- the configuration is the installer's: ``run`` starts, or exits 2 with one line naming
  it; ``doctor`` says ``fail  config`` exactly when ``run`` refuses it; both within seconds;
- ``settings.json`` and ``phone.json`` are conveniences: never an error; a damaged one is
  set aside with one line naming the file and the key, and the defaults are used; what is
  taken has the types the companion writes; a failed write is a line in the log;
- no traceback anywhere.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import fields
from typing import Any

import pytest

from companion.config import (
    MOST_REMEMBERED,
    ROLLS,
    Config,
    ConfigError,
    PhoneConfig,
    ScreenConfig,
    load,
    name_problem,
    parse,
    save_settings,
    settings_path,
    with_settings,
)
from companion.phone import STATE_FILE, PhoneView, looks_like_token
from tests.faults import FILE_FAULTS, bit_flips, disk_full, fill_up, put, tiny_disk_command, with_each_value

COMPANION = [sys.executable, "-m", "companion"]
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
ROOT = pathlib.Path(__file__).parent.parent
EXAMPLE = ROOT / "systemd" / "companion.example.toml"
#: A fault that reads as "no file at all": the defaults, silently (a dangling link is
#: replaced by the next save, as a missing file is made).
ABSENT = ("missing", "dangling link")
#: Screen settings unlike the defaults, so that a half-applied file would show.
PLAYERS_SCREEN = ScreenConfig(dim_after=30.0, blank_after=0.0, shift=False, rolls="one-by-one")
TOKEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def set_aside(directory: pathlib.Path, name: str, clear: bool = False) -> list[str]:
    """The files set aside from ``name``; removed when ``clear`` (a loop of many cases)."""
    found = sorted(p for p in directory.iterdir() if p.name.startswith(f"{name}.damaged-"))
    for path in found if clear else []:
        path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    return [path.name for path in found]


def named(key: str) -> str:
    """What a refusal of a value replaced at ``key`` must name: the key (or one inside the
    table replaced); any key when the whole file was replaced."""
    return {"(file)": "", "(unknown key)": "colour"}.get(key, key)


def one_line(text: str) -> bool:
    return "\n" not in text and len(text) < 400


# --- settings.json: set aside when damaged, in any way, and the defaults used ---


def written_settings(directory: pathlib.Path) -> bytes:
    save_settings(Config(screen=PLAYERS_SCREEN, remembered=("Zoe", "Max")), directory)
    return settings_path(directory).read_bytes()


def assert_settings_taken_or_set_aside(directory: pathlib.Path, config: Config, note: str,
                                       key: str = "") -> None:
    """Either the file was taken whole (values of the written types), or it was set aside
    with one line naming it (and ``key``) and every default kept."""
    screen = config.screen
    if note:
        assert config == Config(), note
        assert "settings.json" in note and f": {key}" in note and one_line(note), note
        assert not os.path.lexists(settings_path(directory)) or "could not be set aside" in note
        set_aside(directory, "settings.json", clear=True)
        return
    assert [type(getattr(screen, f.name)) for f in fields(screen)] == [float, float, bool, str]
    assert screen.rolls in ROLLS
    names = config.remembered  # names a record may hold, each once, no more than are kept
    assert not any(map(name_problem, names)) and len(set(names)) == len(names) <= MOST_REMEMBERED


@pytest.mark.parametrize("fault", FILE_FAULTS)
def test_a_settings_file_holding_anything_else_is_set_aside(tmp_path: pathlib.Path, fault: str) -> None:
    put(fault, settings_path(tmp_path), written_settings(tmp_path))
    started = time.monotonic()
    config, note = with_settings(Config(), tmp_path)
    assert time.monotonic() - started < 1.0
    assert config == Config()
    if fault in ABSENT:
        assert note == ""
        return
    assert len(set_aside(tmp_path, "settings.json")) == 1
    assert_settings_taken_or_set_aside(tmp_path, config, note)


@pytest.mark.parametrize("document", [{"screen": 5}, {"screen": [1]}, 5, [1], "screen", None,
                                      {"screen": {"shift": "false"}}],
                         ids=["screen-5", "screen-list", "a-number", "a-list", "a-string", "null",
                              "shift-a-string"])
def test_the_reported_shapes_of_settings_are_set_aside(tmp_path: pathlib.Path, document: Any) -> None:
    """Issue 24, fault 9: ``{"screen": 5}`` was a TypeError traceback at every start."""
    settings_path(tmp_path).write_text(json.dumps(document))
    config, note = with_settings(Config(), tmp_path)
    assert config == Config() and "damaged" in note
    assert set_aside(tmp_path, "settings.json")


def test_every_value_of_every_type_at_every_key_of_settings(tmp_path: pathlib.Path) -> None:
    good = json.loads(written_settings(tmp_path))
    for key, document in with_each_value(good):
        settings_path(tmp_path).write_text(json.dumps(document))
        config, note = with_settings(Config(), tmp_path)
        assert_settings_taken_or_set_aside(tmp_path, config, note, named(key))


def test_every_bit_flip_of_settings_is_taken_whole_or_set_aside(tmp_path: pathlib.Path) -> None:
    good = written_settings(tmp_path)
    for flipped in bit_flips(good):
        settings_path(tmp_path).write_bytes(flipped)
        config, note = with_settings(Config(), tmp_path)
        assert_settings_taken_or_set_aside(tmp_path, config, note)


def test_settings_that_cannot_be_set_aside_still_leave_the_defaults(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that cannot be renamed (a read-only mount, a busy name): the defaults, and
    the note says the file stayed."""
    put("truncated", settings_path(tmp_path), written_settings(tmp_path))

    def read_only(source: object, target: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "rename", read_only)
    config, note = with_settings(Config(), tmp_path)
    assert config == Config()
    assert "could not be set aside: Read-only file system" in note and one_line(note)


def test_a_file_set_aside_never_replaces_one_set_aside_before(tmp_path: pathlib.Path) -> None:
    kept = []
    for _ in range(3):  # within one second: one name each
        put("binary", settings_path(tmp_path))
        with_settings(Config(), tmp_path)
        kept = set_aside(tmp_path, "settings.json")
    assert len(kept) == 3


# --- phone.json: the same, and never a write that is not needed ---


def written_phone(directory: pathlib.Path, enabled: bool = True) -> bytes:
    path = directory / STATE_FILE
    path.write_text(json.dumps({"enabled": enabled, "token": TOKEN}))
    return path.read_bytes()


def phone_view(directory: pathlib.Path, enabled: bool = False) -> PhoneView:
    return PhoneView(PhoneConfig(enabled=enabled, address="127.0.0.1", port=free_port()), directory,
                     str(directory / "companion.sqlite"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def assert_phone_taken_or_set_aside(directory: pathlib.Path, view: PhoneView,
                                    caplog: pytest.LogCaptureFixture, key: str = "") -> None:
    assert isinstance(view.enabled, bool) and looks_like_token(view.token)
    said = [r.getMessage() for r in caplog.records if "phone.json" in r.getMessage()]
    caplog.clear()
    if said:
        assert len(said) == 1 and f": {key}" in said[0] and one_line(said[0]), said
        assert view.enabled is False and view.token != TOKEN  # the configuration, a new link
        assert not os.path.lexists(directory / STATE_FILE)
        set_aside(directory, STATE_FILE, clear=True)


@pytest.mark.parametrize("fault", FILE_FAULTS)
def test_a_phone_file_holding_anything_else_is_set_aside(tmp_path: pathlib.Path, fault: str,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    put(fault, tmp_path / STATE_FILE, written_phone(tmp_path))
    started = time.monotonic()
    view = phone_view(tmp_path)
    assert time.monotonic() - started < 1.0
    assert view.enabled is False and view.token != TOKEN
    if fault in ABSENT:
        assert not caplog.records
        return
    assert len(set_aside(tmp_path, STATE_FILE)) == 1
    assert_phone_taken_or_set_aside(tmp_path, view, caplog)


def test_phone_json_saying_false_as_a_string_leaves_the_view_off(tmp_path: pathlib.Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Issue 24, fault 21: ``"enabled": "false"`` was read as true."""
    (tmp_path / STATE_FILE).write_text(json.dumps({"enabled": "false", "token": TOKEN}))
    view = phone_view(tmp_path)
    assert view.enabled is False
    assert_phone_taken_or_set_aside(tmp_path, view, caplog, "enabled")


def test_every_value_of_every_type_at_every_key_of_phone_json(tmp_path: pathlib.Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    good = json.loads(written_phone(tmp_path))
    for key, document in with_each_value(good):
        (tmp_path / STATE_FILE).write_text(json.dumps(document))
        view = phone_view(tmp_path)
        assert_phone_taken_or_set_aside(tmp_path, view, caplog, named(key))
        if isinstance(document, dict) and view.token == TOKEN:  # taken: as written
            assert view.enabled is document["enabled"]


def test_every_bit_flip_of_phone_json_is_taken_whole_or_set_aside(tmp_path: pathlib.Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    good = written_phone(tmp_path, enabled=False)
    for flipped in bit_flips(good):
        (tmp_path / STATE_FILE).write_bytes(flipped)
        assert_phone_taken_or_set_aside(tmp_path, phone_view(tmp_path), caplog)


def test_a_phone_json_directory_with_the_view_on_starts_the_view(tmp_path: pathlib.Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    """Issue 24, fault 11: a directory at phone.json was an IsADirectoryError at start."""
    (tmp_path / STATE_FILE).mkdir()
    view = phone_view(tmp_path, enabled=True)
    try:
        view.start()
        assert view.server is not None and view.failure == ""
    finally:
        view.stop()
    assert json.loads((tmp_path / STATE_FILE).read_text())["token"] == view.token  # kept now


def test_starting_the_view_writes_nothing_it_already_has(tmp_path: pathlib.Path) -> None:
    """Issue 24, fault 7: phone.json was rewritten at every start, so a full disk stopped the
    box. Nothing may grow here: any write would fail."""
    written_phone(tmp_path)
    before = os.stat(tmp_path / STATE_FILE)
    (tmp_path / "empty").write_bytes(b"")
    view = phone_view(tmp_path)
    try:
        with disk_full(str(tmp_path / "empty")):
            view.start()
        assert view.server is not None
    finally:
        view.stop()
    after = os.stat(tmp_path / STATE_FILE)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_choice_or_a_link_that_cannot_be_saved_is_a_line_not_a_crash(
        tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    written_phone(tmp_path, enabled=False)
    (tmp_path / "empty").write_bytes(b"")
    view = phone_view(tmp_path)
    try:
        with disk_full(str(tmp_path / "empty")):
            turned = view.turn(True)
            renewed = view.renew()
        assert view.server is not None
    finally:
        view.stop()
    assert "not saved" in turned and "not saved" in renewed
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 2
    # The old token was removed with the file: a new link never opens the old page again.
    assert not (tmp_path / STATE_FILE).exists()
    assert phone_view(tmp_path).token != TOKEN


def phone_view_on_a_full_disk(directory: pathlib.Path) -> None:
    """Inside a tiny file system: the view on, a power cut, the disk filled, two starts (one
    with phone.json, one without: a new token that cannot be kept)."""
    state = directory / "state"
    config = directory / "companion.toml"
    config.write_text(f'[phone]\nenabled = true\naddress = "127.0.0.1"\nport = {free_port()}\n')
    command = [*COMPANION, "run", "--emulator", "none", "--config", str(config), "--state", str(state)]
    first = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    deadline = time.monotonic() + 60
    while not (state / STATE_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    first.kill()  # the power cut: the store's log and index are left as they were
    first.wait()
    assert (state / "companion.sqlite-wal").exists()
    # Each start from the power cut's files (a clean stop in between would leave no log and
    # no index, which a full disk has no room to make again: exit 1, "the disk is full").
    cut = pathlib.Path(tempfile.mkdtemp()) / "state"
    shutil.copytree(state, cut)
    for case in ("with phone.json", "without phone.json"):
        shutil.rmtree(state)
        shutil.copytree(cut, state)
        if case.startswith("without"):
            (state / STATE_FILE).unlink()
        fill_up(directory)
        again = subprocess.run([*command, "--keys", ""], stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, env=ENV, timeout=120, check=False)
        assert again.returncode == 0 and "Traceback" not in again.stderr, (case, again.stderr)
        (directory / "filler").unlink()
    shutil.rmtree(cut.parent)
    print("started twice on a full disk with the view on")


def test_the_view_on_a_full_disk_after_a_power_cut_still_starts(tmp_path: pathlib.Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    prefix = tiny_disk_command(str(disk), size_kib=1024)
    if prefix is None:
        pytest.skip("this machine allows no mount namespace for a tiny file system")
    run = subprocess.run([*prefix, sys.executable, "-m", "tests.test_faults_files", str(disk)],
                         capture_output=True, text=True, env=ENV, timeout=300, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "started twice" in run.stdout


@pytest.mark.parametrize(("name", "content"), [
    ("settings.json", '{"screen": 5}'), ("settings.json", "directory"),
    ("phone.json", '{"enabled": "false", "token": 5}'), ("phone.json", "directory"),
], ids=["settings-screen-5", "settings-a-directory", "phone-wrong-types", "phone-a-directory"])
def test_the_daemon_starts_past_a_damaged_convenience_file(tmp_path: pathlib.Path, name: str,
                                                          content: str) -> None:
    """The real ``run``, the view on: the file set aside, one line in the log, a start."""
    state = tmp_path / "state"
    state.mkdir()
    if content == "directory":
        (state / name).mkdir()
    else:
        (state / name).write_text(content)
    config = tmp_path / "companion.toml"
    config.write_text(f'[phone]\nenabled = true\naddress = "127.0.0.1"\nport = {free_port()}\n')
    run = subprocess.run([*COMPANION, "run", "--emulator", "none", "--keys", "", "--config", str(config),
                          "--state", str(state)], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, env=ENV, timeout=60, check=False)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    said = [line for line in run.stderr.splitlines() if name in line]
    assert len(said) == 1 and said[0].startswith("WARNING") and "kept as" in said[0], run.stderr
    assert set_aside(state, name)


# --- the configuration: the installer's file, refused in one line by run and doctor alike ---


def assert_run_and_doctor_agree(config: pathlib.Path, state: pathlib.Path) -> None:
    started = time.monotonic()
    run = subprocess.run([*COMPANION, "run", "--emulator", "none", "--keys", "", "--config", str(config),
                          "--state", str(state)], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, env=ENV, timeout=60, check=False)
    doctor = subprocess.run([*COMPANION, "doctor", "--config", str(config), "--state", str(state)],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                            timeout=60, check=False)
    assert time.monotonic() - started < 20  # a FIFO or /dev/zero is not waited on or read
    assert "Traceback" not in run.stderr + doctor.stderr + doctor.stdout
    said = [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]
    config_line = [line for line in doctor.stdout.splitlines() if line.split()[1:2] == ["config"]]
    assert len(config_line) == 1, doctor.stdout
    if run.returncode == 0:  # doctor may still warn of a last line cut short: run starts on it
        cut_short = f"was it cut short?; fix: sudoedit {config}"
        assert said == [] and (config_line[0].startswith("ok") or (
            config_line[0].startswith("warn") and config_line[0].endswith(cut_short))), (run.stderr, config_line)
    else:
        assert run.returncode == 2 and len(said) == 1 and said[0].startswith(f"{config}: "), run.stderr
        assert config_line[0].startswith(f"fail  config    {said[0]}"), (said, config_line)


@pytest.mark.parametrize("fault", [*FILE_FAULTS, "deeply-nested", "deeply-nested-tables"])
def test_a_configuration_holding_anything_else_is_one_line_from_run_and_doctor(
        tmp_path: pathlib.Path, fault: str) -> None:
    """Issue 24, faults 8 and 15: 5,000 ``[`` were a RecursionError traceback (exit 1, and in
    doctor); ``/dev/zero`` took 7 GB and ignored SIGTERM; a FIFO hung run and doctor."""
    config = tmp_path / "companion.toml"
    nested = {"deeply-nested": "a = " + "[" * 5000, "deeply-nested-tables": "a = " + "{ b = " * 5000}
    if fault in nested:
        config.write_text(nested[fault])
    else:
        put(fault, config, EXAMPLE.read_bytes())
    assert_run_and_doctor_agree(config, tmp_path / "state")


def test_every_bit_flip_of_a_configuration_loads_or_is_one_line(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "companion.toml"
    good = b'[screen]\ndim_after = 30\nshift = false\n[phone]\nenabled = true\nport = 8080\n'
    for flipped in bit_flips(good):
        config.write_bytes(flipped)
        try:
            load(str(config))
        except ConfigError as err:
            assert str(err).startswith(f"{config}: ") and one_line(str(err))


def test_every_value_of_every_type_at_every_key_of_the_configuration() -> None:
    import tomllib

    good = tomllib.loads(EXAMPLE.read_text())
    for key, document in with_each_value(good):
        if key == "(file)":
            continue  # tomllib gives a table or nothing
        try:
            parse(document, "companion.toml")  # type: ignore[arg-type]
        except ConfigError as err:
            assert f": {named(key)}" in str(err) and one_line(str(err)), (key, str(err))


if __name__ == "__main__":
    phone_view_on_a_full_disk(pathlib.Path(sys.argv[1]))


def test_the_emulators_log_file_on_a_full_disk_drops_lines_without_a_traceback(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The terminal emulator logs to a file in the state directory (the terminal is the
    screen). On a full disk every line logged printed logging's '--- Logging error ---'
    and a traceback on standard error, that is on the screen (found by the chaos run)."""
    import errno

    from companion.runner import log_to_file

    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    root = logging.getLogger()
    kept = list(root.handlers)
    try:
        log_to_file(tmp_path / "companion.log")
        handler = root.handlers[0]
        assert isinstance(handler, logging.StreamHandler)
        opened = handler.setStream(Full())
        assert opened is not None
        opened.close()
        logging.getLogger("companion.test").warning("a line the disk has no room for")
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in kept:
            root.addHandler(handler)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out and "Logging error" not in captured.err
