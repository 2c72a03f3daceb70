"""Serial ports: pyserial's ``loop://`` and pseudo-terminals (real tty paths, reached through a
``/dev/serial/by-id``-style link) carry lines to the real daemon loop and its answers back;
closing the terminal unplugs the device, opening a new one plugs it in again."""

from __future__ import annotations

import os
import pathlib
import queue
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from companion.config import ConfigError, PortConfig, parse
from companion.io.serial import MAX_LINE, LineCutter, PortStatus, SerialLine, SerialPort
from companion.ui.app import App
from companion.ui.draw import HEADER, WIDTH
from companion.ui.linkmarks import link_marks
from tests.consoles import FAST, Loop, attach, step_until
from tests.harness import PATIENCE, Harness, Tty


def next_of(events: queue.Queue[object], kind: type) -> Any:
    """The next event of ``kind`` from a plain queue."""
    end = time.monotonic() + PATIENCE
    while True:
        event = events.get(timeout=max(0.0, end - time.monotonic()))
        if isinstance(event, kind):
            return event


@pytest.fixture
def h(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


@pytest.fixture
def tty(tmp_path: pathlib.Path) -> Iterator[Tty]:
    device = Tty(tmp_path / "usb-Dice_Tower_1234-if00")
    device.plug()
    yield device
    if device.master >= 0:
        device.unplug()


def talk(h: Harness, tty: Tty, line: bytes) -> str:
    """Send one line from the device; the companion's answer."""
    tty.send(line + b"\n")
    step_until(h, SerialLine)
    return tty.answer()


# --- cutting lines ---


@pytest.mark.parametrize("chunks, lines", [
    ([b"die 4\n"], [b"die 4"]),
    ([b"die 4\r\n"], [b"die 4"]),
    ([b"die 4\r"], [b"die 4"]),  # a terminal program's Enter
    ([b"die 4\r", b"\ndie 5\n"], [b"die 4", b"die 5"]),  # CR-LF split between reads
    ([b"\n\n"], [b"", b""]),
    ([b"di", b"ce 3", b" 5\n"], [b"dice 3 5"]),
])
def test_lines_end_with_lf_cr_or_crlf(chunks: list[bytes], lines: list[bytes]) -> None:
    cutter = LineCutter()
    got = [line for chunk in chunks for line in cutter.feed(chunk)]
    assert got == [(line, False) for line in lines]


def test_an_over_long_line_is_reported_once_and_the_next_line_is_whole() -> None:
    cutter = LineCutter()
    first = list(cutter.feed(b"x" * (MAX_LINE + 1)))
    assert first == [(b"x" * MAX_LINE, True)]
    assert list(cutter.feed(b"y" * 5000)) == []  # the rest of it is skipped
    assert list(cutter.feed(b"\nstate\n")) == [(b"state", False)]
    assert list(cutter.feed(b"z" * MAX_LINE + b"\n")) == [(b"z" * MAX_LINE, False)]


# --- loop:// ---


def test_loop_lines_reach_the_loop_and_answers_go_back_on_the_same_port(h: Harness) -> None:
    loop = Loop()
    port = attach(h, "loop://", opener=loop)
    try:
        loop.handle.write(b"game microbot-racers\r\nplayers Ann Bob\r\ndice 3 5\r\n")
        heard = [step_until(h, SerialLine).data for _ in range(6)]
        # loop:// echoes what the companion writes: each answer comes back, unanswered
        assert heard == [b"game microbot-racers", b"players Ann Bob", b"dice 3 5",
                         b"ok game microbot-racers: the players line next",
                         b"ok players Ann Bob: game started", b"ok table roll 3 5"]
        assert h.app.session is not None and h.app.session.summary()["p1"] == "Ann"
        assert h.says("Ann 3, Bob 5"), h.texts()
    finally:
        port.close()
    assert not port.thread.is_alive()


def test_loop_over_long_line_is_refused_and_the_next_one_is_read(h: Harness) -> None:
    loop = Loop()
    port = attach(h, "loop://", opener=loop)
    try:
        loop.handle.write(b"dice " + b"3 " * 400 + b"\nhelp\n")
        first = step_until(h, SerialLine)
        assert first.overflow and len(first.data) == MAX_LINE
        assert step_until(h, SerialLine).data == b"help"
        assert step_until(h, SerialLine).data == b"error: line too long; ignored"
    finally:
        port.close()


def test_a_reader_waits_for_its_lines_to_be_answered(tmp_path: pathlib.Path) -> None:
    events: queue.Queue[object] = queue.Queue()
    loop = Loop()
    port = SerialPort("serial 1", "loop://", 115200, events, retry=FAST, opener=loop)
    port.start()
    try:
        next_of(events, PortStatus)
        loop.handle.write(b"".join(b"die %d\n" % n for n in range(40)))
        got = [next_of(events, SerialLine).data for _ in range(16)]
        for _ in range(24):  # each answered line makes room for one more
            port.done(None)
            got.append(next_of(events, SerialLine).data)
        assert got == [b"die %d" % n for n in range(40)]
    finally:
        port.close()


# --- a pseudo-terminal: a real tty path ---


def test_faces_from_a_tty_answer_the_prompt_and_refusals_change_nothing(h: Harness, tty: Tty) -> None:
    port = attach(h, str(tty.link))
    try:
        assert talk(h, tty, b"game microbot-racers") == "ok game microbot-racers: the players line next"
        assert talk(h, tty, b"players Ann Bob") == "ok players Ann Bob: game started"
        assert talk(h, tty, b"dice 7 5") == "error: no 7 on a d6 (Ann)"
        assert h.shows("no 7 on a d6 (Ann)", 11)
        assert talk(h, tty, b"dice 3 5") == "ok table roll 3 5"
        assert h.says("Ann 3, Bob 5"), h.texts()
        assert talk(h, tty, b"die 2") == "error: no dice are asked for now"
        session = h.app.session
        assert session is not None and session.head == 1
    finally:
        port.close()


def test_unplugging_and_replugging_mid_game_loses_nothing(h: Harness, tty: Tty) -> None:
    port = attach(h, str(tty.link), )
    try:
        for line in (b"game microbot-racers", b"players Ann Bob", b"dice 5 2", b"Bob pick move-2"):
            assert talk(h, tty, line).startswith("ok ")
        assert h.app.links == {"serial 1": True}
        tty.unplug()
        status = step_until(h, PortStatus)
        assert not status.connected and status.detail
        assert h.app.links == {"serial 1": False}
        assert h.shows("serial 1: not", 11) and h.shows("connected", 11)  # two lines
        tty.plug()  # a new tty behind the same link, as udev does
        assert step_until(h, PortStatus).connected
        assert h.shows("serial 1: connected", 11)
        assert talk(h, tty, b"Ann pick move-3") == "ok Ann pick move-3"
        summary = h.app.session.summary() if h.app.session else {}
        assert (summary["p1"], summary["next"]) == ("Bob", "Ann")
        assert port.thread.is_alive()
    finally:
        port.close()


def test_a_device_plugged_in_after_the_start_is_found(h: Harness, tty: Tty) -> None:
    tty.unplug()
    port = SerialPort("serial 1", str(tty.link), 115200, h.events, retry=FAST)
    h.daemon.ports[port.name] = port
    port.start()
    try:
        missing = step_until(h, PortStatus)
        assert not missing.connected and "No such file" in missing.detail
        tty.plug()
        assert step_until(h, PortStatus).connected
        assert talk(h, tty, b"help").startswith("ok game ID")
    finally:
        port.close()


def test_a_tty_over_long_line_and_noise_are_refused(h: Harness, tty: Tty) -> None:
    port = attach(h, str(tty.link))
    try:
        talk(h, tty, b"game microbot-racers")
        talk(h, tty, b"players Ann Bob")
        tty.send(b"dice " + b"1 " * MAX_LINE + b"\n")
        assert step_until(h, SerialLine).overflow
        assert tty.answer() == "error: line too long; ignored"
        assert talk(h, tty, bytes(range(128, 256))) == "error: not UTF-8 text; ignored"
        assert talk(h, tty, b"\x00\x07dice 3 5") == "error: control character 0x00 in the line; ignored"
        session = h.app.session
        assert session is not None and session.head == 0
        assert talk(h, tty, b"dice 3 5") == "ok table roll 3 5"
    finally:
        port.close()


def test_the_port_is_opened_exclusively(tty: Tty) -> None:
    events: queue.Queue[object] = queue.Queue()
    first = SerialPort("serial 1", str(tty.link), 115200, events, retry=FAST)
    first.start()
    try:
        assert next_of(events, PortStatus).connected
        second = SerialPort("serial 2", str(tty.link), 115200, events, retry=FAST)
        second.start()
        try:
            busy = next_of(events, PortStatus)
            assert (busy.port, busy.connected) == ("serial 2", False)
            assert "lock" in busy.detail
        finally:
            second.close()
    finally:
        first.close()


# --- what the screen shows ---


def test_the_top_bar_marks_each_port_without_covering_its_words(h: Harness) -> None:
    app: App = h.app
    plain = app.frame()
    app.links = {"serial 1": True}
    solid = app.frame()
    app.links = {"serial 1": False}
    crossed = app.frame()
    assert solid.tobytes() != plain.tobytes() != crossed.tobytes() != solid.tobytes()
    for marked in (solid, crossed):
        changed = [(x, y) for y in range(64) for x in range(WIDTH)
                   if marked.getpixel((x, y)) != plain.getpixel((x, y))]
        assert changed and all(y < HEADER for _, y in changed)
        columns = {x for x, _ in changed}
        for x in columns:  # only columns that held none of the bar's words
            assert all(plain.getpixel((x, y)) for y in range(1, HEADER - 1))


def test_no_mark_where_the_bar_has_no_room() -> None:
    from PIL import Image

    full = Image.new("1", (WIDTH, 64), 0)  # a screen with no white bar at all
    link_marks(full, [True, False])
    assert full.getbbox() is None


def test_the_first_status_of_a_device_that_is_there_says_nothing(h: Harness) -> None:
    h.events.put(PortStatus("serial 1", True, "/dev/ttyACM0"))
    h.pump()
    assert h.app.links == {"serial 1": True} and h.app.top.message == ""


def test_a_serial_line_wakes_a_dark_screen_and_is_acted_on(h: Harness) -> None:
    h.wait(700)  # past blank_after
    assert h.output.level == "blank"
    h.events.put(SerialLine("serial 1", b"game microbot-racers"))
    h.pump()
    assert h.output.level == "blank"  # nothing to see yet: the screen stays dark
    h.events.put(SerialLine("serial 1", b"players Ann Bob"))
    h.pump()
    assert h.output.level == "bright"
    assert h.app.session is not None


# --- configuration ---


def test_serial_ports_in_the_configuration() -> None:
    config = parse({"serial": {"ports": [
        {"path": "/dev/serial/by-id/usb-Arduino_LLC_Arduino_Micro-if00"},
        {"path": "/dev/ttyUSB0", "baud": 9600}]}}, "c.toml")
    assert config.serial == (PortConfig("/dev/serial/by-id/usb-Arduino_LLC_Arduino_Micro-if00", 115200),
                             PortConfig("/dev/ttyUSB0", 9600))
    assert parse({}, "c.toml").serial == ()


@pytest.mark.parametrize("serial_table, message", [
    ({"ports": [{"path": "ttyACM0"}]}, "serial.ports[1].path: must be a device path"),
    ({"ports": [{}]}, "serial.ports[1].path: must be a device path"),
    ({"ports": [{"path": "/dev/a", "baud": "fast"}]}, "serial.ports[1].baud: must be a baud rate"),
    ({"ports": [{"path": "/dev/a", "baud": 0}]}, "serial.ports[1].baud: must be a baud rate"),
    ({"ports": [{"path": "/dev/a"}, {"path": "/dev/a"}]}, "serial.ports[2].path: /dev/a is already"),
    ({"ports": [{"path": "/a"}, {"path": "/b"}, {"path": "/c"}]}, "serial.ports: at most 2, not 3"),
    ({"ports": [{"path": "/dev/a", "parity": "E"}]}, "serial.ports[1].parity: is not a setting"),
    ({"ports": "/dev/ttyACM0"}, "serial.ports: must be a list of tables"),
    ({"port": "/dev/ttyACM0"}, "serial.port: is not a setting"),
])
def test_bad_serial_settings_name_the_key(serial_table: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse({"serial": serial_table}, "c.toml")


# --- the real process ---


def test_the_companion_process_takes_a_game_from_a_tty(tmp_path: pathlib.Path, tty: Tty) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(f'[serial]\nports = [{{ path = "{tty.link}" }}]\n', encoding="utf-8")
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    command = [sys.executable, "-m", "companion"]
    log = tmp_path / "companion.log"  # the process's own account, for a failure's post-mortem
    with log.open("wb") as stderr, subprocess.Popen(
            [*command, "run", "--emulator", "none", "--state", str(tmp_path), "--config", str(config)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=env) as process:
        try:
            tty.until_answered()
            tty.send(b"game microbot-racers\nplayers Ann Bob\ndice 2 5\nstate\n")
            answers: list[str] = []
            while len(answers) < 4:
                answer = tty.answer()
                if not answer.startswith("ok game ID"):  # a late answer to a 'help'
                    answers.append(answer)
            assert answers[:3] == ["ok game microbot-racers: the players line next",
                                   "ok players Ann Bob: game started", "ok table roll 2 5"]
            assert answers[3].startswith('ok {"game": "microbot-racers"') and '"p1": "Ann"' in answers[3]
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=PATIENCE) == 0, log.read_text()
        finally:
            if process.poll() is None:
                process.kill()
    record = subprocess.run([*command, "export", "--state", str(tmp_path), "--config", str(config)],
                            env=env, capture_output=True, text=True, timeout=60)
    assert record.stdout.splitlines() == ["game microbot-racers", "players Ann Bob", "table roll 2 5"]
