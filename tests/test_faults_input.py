"""Fault matrix, input: bad input stays bounded (issue 12, section 4).

Each table below is a list of cases; add a row to add a case. Every replay, pipe and
configuration case runs twice: in this process (``main([...])``) and as a real
``python -m companion`` process, so both the code and the console script are covered.

- replay and long numbers: any number of leading zeros is legal, a number too large for
  any count is an illegal line, never a traceback from Python's 4,300-digit limit;
- replay and input size: devices, FIFOs, directories and input over the 16 MiB cap exit 2
  at once with one line; peak memory stays under 3 x the file's size + 30 MB;
- output cut short by its reader ends quietly, for every command that prints;
- a player named ``ok`` plays over the serial console, while answers coming back stay
  unanswered;
- timing keys refuse ``nan``, ``inf`` and values no timer can use; bad display flags are one
  line.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import EXIT_BROKEN_PIPE, main
from companion.config import Config, settings_path, with_settings
from companion.games import GAMES
from companion.games.base import Line, shown
from companion.io.serial import SerialLine
from companion.record import MAX_RECORD_BYTES, Header, RecordReader, UnreadableRecord
from companion.session import Session
from companion.store import Store
from tests.consoles import ConsoleBox as Box
from tests.consoles import Loop, attach, step_until
from tests.harness import COMPANION, ENV, Harness

MiB = 2 ** 20
LONG = "9" * 4301  # one digit past Python's limit on converting digit strings
ZEROS_3 = "0" * 4300 + "3"  # 4,301 characters, a legal 3
MICROBOT = "game microbot-racers\nplayers Ann Bob\n"
PENGUIN = "game penguin-panic\nplayers Ann Bob\n"
PENGUIN_BRIBED = PENGUIN + """\
table line
Ann ability 7
Bob ability 4
Bob bribe 2
Ann bribe 5
Bob bribe 1
Ann bribe 3
"""
LEMMINGS = "game quick-lemmings\nplayers Ann Bob\n"
LEAVES = "game leaf-climbers\nplayers Ann Bob\n"


@dataclass
class Outcome:
    """What a command did: its exit status and its two streams."""

    status: int
    out: str
    err: str


# --- running a command: in this process, or as a real process ---


def in_process(args: list[str], stdin: bytes | str | None = None) -> Outcome:
    """``main(args)`` here, standard input from bytes or from a file (``/dev/zero``)."""
    out, err = io.StringIO(), io.StringIO()
    source: io.BufferedIOBase = (open(stdin, "rb") if isinstance(stdin, str)  # noqa: SIM115
                                 else io.BytesIO(stdin or b""))
    previous = sys.stdin
    sys.stdin = io.TextIOWrapper(source)  # type: ignore[arg-type]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(args)  # an exception here fails the test
    finally:
        sys.stdin = previous
        source.close()
    return Outcome(status, out.getvalue(), err.getvalue())


def real_process(args: list[str], stdin: bytes | str | None = None) -> Outcome:
    """``python -m companion ARGS`` as its own process."""
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(open(stdin, "rb")) if isinstance(stdin, str) else None
        run = subprocess.run([*COMPANION, *args], stdin=source, input=None if source else stdin or b"",
                             capture_output=True, env=ENV, timeout=120, check=False)
    return Outcome(run.returncode, run.stdout.decode(), run.stderr.decode("utf-8", "replace"))


RUNNERS = {"in-process": in_process, "process": real_process}


@pytest.fixture(params=sorted(RUNNERS))
def run(request: pytest.FixtureRequest) -> object:
    """Each case once in this process and once as a real process."""
    return RUNNERS[request.param]


def assert_one_line(outcome: Outcome, status: int, starts: str, says: str) -> None:
    """Exit ``status``, nothing on stdout, one line on stderr with the given start and words."""
    assert outcome.status == status, outcome.err[:500]
    assert outcome.out == ""
    message = outcome.err.rstrip("\n")
    assert "\n" not in message, outcome.err[:2000]
    assert message.startswith(starts), message[:500]
    assert says in message, message[:500]
    for leak in ("Traceback", "set_int_max_str_digits", "Exceeds the limit"):
        assert leak not in outcome.err


# --- replay: long numbers, and input that is not a record file or too large ---


@dataclass(frozen=True)
class Replay:
    """One replay case. ``record`` is written to a file, unless ``source`` says where the
    input comes from instead: ``stdin`` (the record on standard input), ``dev-zero``,
    ``stdin-dev-zero``, ``fifo``, ``directory``, ``sparse-over-cap``. ``line`` is the
    illegal line of an exit 1; ``says`` a part of the message (or of the summary JSON)."""

    name: str
    record: str = ""
    exit: int = 0
    says: str = ""
    line: int = 0
    source: str = "file"


REPLAYS = [
    # a number past Python's limit, in every kind of number a game reads
    Replay("microbot-table-roll", MICROBOT + f"table roll {LONG} 2\n", 1, "too large", 3),
    Replay("microbot-second-die", MICROBOT + f"table roll 3 {LONG}\n", 1, "too large", 3),
    Replay("leaf-climbers-drop", LEAVES + f"table drop {LONG}\n", 1, "too large", 3),
    Replay("penguin-ability", PENGUIN + f"table line\nAnn ability {LONG}\n", 1, "too large", 4),
    Replay("penguin-roll", PENGUIN_BRIBED + f"Bob roll {LONG} 6\n", 1, "too large", 10),
    Replay("lemmings-refill", LEMMINGS + f"Ann refill {LONG}\n", 1, "too large", 3),
    Replay("lemmings-play", LEMMINGS + f"Ann play forest {LONG}\n", 1, "too large", 3),
    Replay("option-laps", MICROBOT + f"option laps {LONG}\n", 1, "too large", 3),
    Replay("option-lemmings", LEMMINGS + f"option lemmings {LONG}\n", 1, "too large", 3),
    Replay("option-deck", LEMMINGS + f"option deck 0,1,2,{LONG}\n", 1, "too large", 3),
    Replay("60000-digits", MICROBOT + f"table roll {'8' * 60_000} 2\n", 1, "too large", 3),
    # leading zeros are legal, however many
    Replay("zeros-die-face", MICROBOT + f"table roll {ZEROS_3} 2\n", 0, '"p1": "Bob"'),
    Replay("zeros-option", MICROBOT + f"option laps {ZEROS_3}\n", 0, '"next": "table"'),
    Replay("zeros-ability", PENGUIN + f"table line\nAnn ability {'0' * 5000}7\n", 0, '"Ann": 7'),
    Replay("zeros-on-stdin", MICROBOT + f"table roll {ZEROS_3} 2\n", 0, '"p1": "Bob"', source="stdin"),
    # a line longer than replay reads: before the game line not a record, after it illegal
    Replay("long-line", MICROBOT + "table roll 3 2 " + "2 " * 40_000 + "\n", 1, "longer than", 3),
    Replay("long-first-line", "x" * 70_000 + "\n" + MICROBOT, 2, "longer than"),
    # not a regular file, or over the cap: exit 2 at once
    Replay("dev-zero", exit=2, says="not a regular file", source="dev-zero"),
    Replay("fifo-without-writer", exit=2, says="not a regular file", source="fifo"),
    Replay("directory", exit=2, says="a directory", source="directory"),
    Replay("file-over-cap", exit=2, says="16 MiB", source="sparse-over-cap"),
    Replay("stdin-dev-zero", exit=2, says="16 MiB", source="stdin-dev-zero"),
    Replay("stdin-over-cap", MICROBOT + "# " + "x" * MAX_RECORD_BYTES + "\n", 2, "16 MiB",
           source="stdin"),
]


def replay_input(case: Replay, directory: pathlib.Path) -> tuple[str, bytes | str | None]:
    """The FILE argument and the standard input for a case."""
    if case.source == "stdin":
        return "-", case.record.encode()
    if case.source == "stdin-dev-zero":
        return "-", "/dev/zero"
    if case.source == "dev-zero":
        return "/dev/zero", None
    if case.source == "directory":
        return str(directory), None
    path = directory / f"{case.name}.record"
    if case.source == "fifo":
        os.mkfifo(path)
    elif case.source == "sparse-over-cap":
        with open(path, "wb") as handle:
            handle.truncate(MAX_RECORD_BYTES + 1)
    else:
        path.write_text(case.record, encoding="utf-8")
    return str(path), None


@pytest.mark.parametrize("case", REPLAYS, ids=[c.name for c in REPLAYS])
def test_replay_input_stays_bounded(case: Replay, run: object, tmp_path: pathlib.Path) -> None:
    given, stdin = replay_input(case, tmp_path)
    outcome = run(["replay", given], stdin)  # type: ignore[operator]
    if case.exit == 0:
        assert outcome.status == 0, outcome.err[:500]
        assert outcome.err == ""
        assert case.says in outcome.out
        json.loads(outcome.out)
    elif case.exit == 1:
        assert_one_line(outcome, 1, f"{given}:{case.line}: ", case.says)
    else:
        assert_one_line(outcome, 2, f"{given}: ", case.says)


# --- the streaming reader cuts lines exactly as reading the whole text does ---


def whole_text_lines(data: bytes, longest: int) -> list[tuple[int, str | None]]:
    """records.md's lines, read the simple way: the whole text at once."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    pieces = text.split("\n")
    if pieces[-1] == "" and len(pieces) > 1:
        pieces.pop()
    out: list[tuple[int, str | None]] = []
    for number, piece in enumerate(pieces, start=1):
        if piece.endswith("\r") and number <= text.count("\n"):
            piece = piece[:-1]
        content = piece.split("#", 1)[0]
        out.append((number, content if len(content.encode()) <= longest else None))
    return out


PARTS = [s.encode() for s in ["a", "b ", "#", "\n", "\r", "\r\n", "\ufeff", "\u00e9", "\u20ac", "12",
                               " # note"]] + [b"\xff", b"\xc3", b"\xe2\x82"]  # not UTF-8


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PARTS), min_size=1, max_size=40),
       st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=12))
def test_the_streaming_reader_cuts_lines_as_the_whole_text_does(
        parts: list[bytes], chunk: int, longest: int) -> None:
    data = b"".join(parts)
    try:
        want: object = whole_text_lines(data, longest)
    except UnicodeDecodeError as err:
        want = f"not UTF-8 text (byte {err.start})"
    with pytest.MonkeyPatch.context() as patch:  # tiny reads and lines: every boundary is met
        patch.setattr("companion.record.CHUNK", chunk)
        patch.setattr("companion.record.MAX_LINE_BYTES", longest)
        try:
            got: object = list(RecordReader(io.BytesIO(data), most=None).lines())
        except UnreadableRecord as err:
            got = str(err)
    assert got == want


@pytest.mark.parametrize("data, at", [
    (b"game x\n#" + b"y" * 200_000 + b"\xff\n", 200_008),
    (b"game x\n" + b"\xc3\xa9" * 70_000 + b"\xff\n", 140_007),
    (b"game x\n#" + b"y" * 200_000 + b"\xc3", 200_008),
])
def test_a_byte_that_is_not_utf8_deep_in_a_long_line_is_found_and_placed(data: bytes, at: int) -> None:
    with pytest.raises(UnreadableRecord, match=f"byte {at}"):
        list(RecordReader(io.BytesIO(data)).lines())


# --- replay's peak memory: at most 3 x the file's size + 30 MB ---


def peak_rss_mib(args: list[str]) -> float:
    """The peak resident memory of ``python -m companion ARGS``, from the kernel's own count."""
    probe = ("import resource, subprocess, sys; "
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    run = subprocess.run([sys.executable, "-c", probe, *COMPANION, *args], capture_output=True,
                         text=True, env=ENV, timeout=300, check=True)
    return int(run.stdout) / 1024  # ru_maxrss is in KiB on Linux


def legal_lines(size: int) -> str:
    """A legal Quick Lemmings record of about ``size`` bytes: refills that never end."""
    return LEMMINGS + "Ann refill 0\nBob refill 0\n" * (size // 26)


BIG_RECORDS = {
    "one-comment-line": lambda size: MICROBOT + "# " + "x" * size + "\n",
    "one-line-of-words": lambda size: MICROBOT + "a " * (size // 2) + "\n",
    "many-legal-lines": legal_lines,
}
BIG_SIZES = {"one-comment-line": 15 * MiB, "one-line-of-words": 15 * MiB, "many-legal-lines": 2 * MiB}


@pytest.mark.parametrize("kind", sorted(BIG_RECORDS))
def test_replay_memory_stays_under_three_times_the_file_plus_30_mb(kind: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "big.record"
    path.write_text(BIG_RECORDS[kind](BIG_SIZES[kind]), encoding="utf-8")
    size_mib = path.stat().st_size / MiB
    assert size_mib * MiB <= MAX_RECORD_BYTES
    assert peak_rss_mib(["replay", str(path)]) <= 3 * size_mib + 30


# --- output cut short by its reader: no BrokenPipeError, a quiet exit ---


@pytest.fixture
def stored(tmp_path: pathlib.Path) -> pathlib.Path:
    """A state directory with one stored game, for ``games`` and ``export``."""
    store = Store(str(tmp_path / "companion.sqlite"))
    try:
        session = Session.new(store, Header(GAMES["microbot-racers"], ("Ann", "Bob")))
        session.play([Line("table", "roll", ("3", "2"))])
    finally:
        store.close()
    return tmp_path


PRINTERS = {
    "replay": lambda state, record: ["replay", str(record)],
    "replay-stdin": lambda state, record: ["replay", "-"],
    "games": lambda state, record: ["games", "--state", str(state)],
    "export": lambda state, record: ["export", "latest", "--state", str(state)],
    "export-summary": lambda state, record: ["export", "latest", "--summary", "--state", str(state)],
    "help": lambda state, record: ["--help"],
    "replay-help": lambda state, record: ["replay", "--help"],
}


def quiet_status(command: str) -> set[int]:
    """Every command says that its output was cut short, as a program stopped by SIGPIPE
    does; argparse's help may have ignored the failed write itself and exit 0."""
    return {0, EXIT_BROKEN_PIPE} if command.endswith("help") else {EXIT_BROKEN_PIPE}


@contextlib.contextmanager
def closed_pipe() -> Iterator[int]:
    """The writing end of a pipe whose reader has already gone."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        yield writer
    finally:
        with contextlib.suppress(OSError):
            os.close(writer)


@pytest.mark.parametrize("command", sorted(PRINTERS))
def test_a_reader_that_goes_away_ends_the_output_quietly_in_a_process(
        command: str, stored: pathlib.Path, tmp_path: pathlib.Path) -> None:
    record = tmp_path / "race.record"
    record.write_text(MICROBOT + "table roll 3 2\n")
    with closed_pipe() as writer:
        run = subprocess.run([*COMPANION, *PRINTERS[command](stored, record)], stdout=writer,
                             input=record.read_bytes(), stderr=subprocess.PIPE, env=ENV, timeout=60,
                             check=False)
    assert run.returncode in quiet_status(command), run.stderr
    assert run.stderr == b""  # no traceback, no "Exception ignored"


@pytest.mark.parametrize("command", sorted(PRINTERS))
def test_a_reader_that_goes_away_ends_the_output_quietly_in_process(
        command: str, stored: pathlib.Path, tmp_path: pathlib.Path) -> None:
    record = tmp_path / "race.record"
    record.write_text(MICROBOT + "table roll 3 2\n")
    previous_out, previous_in = sys.stdout, sys.stdin
    with closed_pipe() as writer:
        sys.stdout = open(writer, "w", closefd=False)  # noqa: SIM115
        sys.stdin = io.TextIOWrapper(io.BytesIO(record.read_bytes()))
        try:
            status = main(PRINTERS[command](stored, record))  # BrokenPipeError here fails
            sys.stdout.write("x" * 100_000)
            sys.stdout.flush()  # standard output now leads nowhere, and nowhere broken
        finally:
            sys.stdout.close()
            sys.stdout, sys.stdin = previous_out, previous_in
    assert status in quiet_status(command)


# --- configuration: timing keys and display flags ---


@dataclass(frozen=True)
class Setting:
    """A configuration file that must be refused with ``FILE: KEY: problem``, exit 2."""

    name: str
    toml: str
    key: str
    command: str = "games"


SETTINGS = [
    Setting("dim-nan", "[screen]\ndim_after = nan\n", "screen.dim_after"),
    Setting("dim-inf", "[screen]\ndim_after = inf\n", "screen.dim_after"),
    Setting("blank-inf", "[screen]\nblank_after = +inf\n", "screen.blank_after"),
    Setting("dim-overflow", "[screen]\ndim_after = 1e999\n", "screen.dim_after"),
    Setting("dim-past-any-wait", "[screen]\ndim_after = 1e10\n", "screen.dim_after"),
    Setting("long-press-nan", "[buttons]\nlong_press = nan\n", "buttons.long_press"),
    Setting("long-press-zero", "[buttons]\nlong_press = 0\n", "buttons.long_press"),
    Setting("debounce-inf", "[buttons]\ndebounce = inf\n", "buttons.debounce"),
    Setting("settle-nan", "[shake]\nsettle = nan\n", "shake.settle"),
    Setting("settle-zero", "[shake]\nsettle = 0.0\n", "shake.settle"),
    Setting("5000-digit-number", f"[screen]\ndim_after = {'9' * 5000}\n", "(syntax)"),
    Setting("display-not-an-int", '[display]\nflags = "--display ssd1306 --width abc"\n',
            "display.flags", "run"),
    Setting("display-unknown-flag", '[display]\nflags = "--display ssd1306 --bogus 1"\n',
            "display.flags", "run"),
    Setting("display-unknown-interface", '[display]\nflags = "--display ssd1306 --interface x"\n',
            "display.flags", "run"),
    Setting("display-help", '[display]\nflags = "--display ssd1306 --help"\n', "display.flags", "run"),
    Setting("display-open-quote", "[display]\nflags = \"--display 'ssd1306\"\n", "display.flags", "run"),
    # TOML strings may hold a NUL, which no path can: it ended run and doctor in a traceback.
    Setting("store-path-nul", '[store]\npath = "games\\u0000.sqlite"\n', "store.path"),
    Setting("serial-path-nul", '[serial]\nports = [{ path = "/dev/ttyACM0\\u0000" }]\n',
            "serial.ports[1].path"),
    # A URL pyserial has no handler for: doctor said "a pyserial URL", run tried it for ever.
    Setting("serial-url-unknown", '[serial]\nports = [{ path = "nope://x" }]\n', "serial.ports[1].path"),
    Setting("serial-url-not-a-handler", '[serial]\nports = [{ path = "..://x" }]\n', "serial.ports[1].path"),
]


@pytest.mark.parametrize("case", SETTINGS, ids=[c.name for c in SETTINGS])
def test_a_bad_setting_is_one_line_and_exit_2(case: Setting, run: object, tmp_path: pathlib.Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(case.toml)
    outcome = run([case.command, "--config", str(config), "--state", str(tmp_path)])  # type: ignore[operator]
    assert_one_line(outcome, 2, f"{config}: {case.key}: ", "")
    assert "usage:" not in outcome.err


@pytest.mark.parametrize("case", [c for c in SETTINGS if c.name.startswith(("store-path", "serial-"))],
                         ids=lambda c: c.name)
def test_doctor_fails_a_path_no_file_can_have_in_the_words_run_exits_with(
        case: Setting, run: object, tmp_path: pathlib.Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(case.toml)
    outcome = run(["doctor", "--config", str(config), "--state", str(tmp_path)])  # type: ignore[operator]
    assert outcome.status == 1 and "Traceback" not in outcome.err, outcome.err[-2000:]
    assert re.search(rf"^fail +config +{re.escape(f'{config}: {case.key}: ')}", outcome.out, re.MULTILINE), outcome.out


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e10"])
def test_saved_screen_settings_no_timer_can_use_are_set_aside(value: str, tmp_path: pathlib.Path) -> None:
    settings_path(tmp_path).write_text(f'{{"screen": {{"dim_after": {value}}}}}')
    config, note = with_settings(Config(), tmp_path)
    assert config.screen.dim_after == Config().screen.dim_after
    assert "screen.dim_after" in note and not settings_path(tmp_path).exists()


#: Display flags that cannot be split into words, given by the file or by ``--display``,
#: with every emulator: the pin check reads them whatever shows the screen.
DISPLAY_FLAGS = {
    "file, no emulator": ("[display]\nflags = \"--display 'ssd1306\"\n", [], "display.flags: "),
    "file, --emulator none": ("[display]\nflags = \"--display 'ssd1306\"\n", ["--emulator", "none"],
                              "display.flags: "),
    "--display, no emulator": ("", ["--display", "--display 'ssd1306"], "--display: "),
    "--display, --emulator none": ("", ["--emulator", "none", "--display", "--display 'ssd1306"],
                                   "--display: "),
}


@pytest.mark.parametrize("name", sorted(DISPLAY_FLAGS))
def test_display_flags_with_an_open_quote_are_one_line_whatever_the_emulator(
        name: str, run: object, tmp_path: pathlib.Path) -> None:
    """Issue 24, fault 18: with ``--emulator none`` an unclosed quote was a ValueError traceback."""
    toml, extra, says = DISPLAY_FLAGS[name]
    config = tmp_path / "companion.toml"
    config.write_text(toml)
    outcome = run(["run", "--config", str(config), "--state", str(tmp_path), "--keys", "", *extra])  # type: ignore[operator]
    assert_one_line(outcome, 2, str(config) if toml else "--display", says)


# --- numbers on the command line ---


ARGUMENTS = {
    "keys-superscript-digit": (["run", "--emulator", "none", "--keys", "digit:\u00b2"], "--keys: "),
    "keys-5000-digits": (["run", "--emulator", "none", "--keys", "digit:" + "9" * 5000], "--keys: "),
    "export-superscript-digit": (["export", "\u00b2"], "export takes"),
    "export-5000-digits": (["export", "9" * 5000], "export takes"),
}


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_a_bad_number_argument_is_one_line_and_exit_2(name: str, run: object, stored: pathlib.Path) -> None:
    args, starts = ARGUMENTS[name]
    state = stored if args[0] == "export" else stored / "fresh"  # run: no game to resume and log
    outcome = run([*args, "--state", str(state)])  # type: ignore[operator]
    assert_one_line(outcome, 2, starts, "")


# --- every path and number of every command: one line and the exit that fits, before any work ---


def bad_path(kind: str, tmp: pathlib.Path) -> str:
    """A path of one wrong kind, made in ``tmp``."""
    if kind in ("a-file", "under-a-file"):
        (tmp / "file").write_text("x")
    elif kind == "a-fifo":
        os.mkfifo(tmp / "fifo")
    elif kind == "a-symlink-loop":
        (tmp / "loop").symlink_to("loop2")
        (tmp / "loop2").symlink_to("loop")
    return {"missing": str(tmp / "nowhere" / "x"), "a-file": str(tmp / "file"),
            "under-a-file": str(tmp / "file" / "x"), "a-directory": str(tmp),
            "a-fifo": str(tmp / "fifo"), "a-device": "/dev/zero", "a-full-device": "/dev/full",
            "a-symlink-loop": str(tmp / "loop"), "under-proc": "/proc/companion-test/x"}[kind]


#: Numbers no count or time may be (with ``--idle 0`` and ``--limit 0`` besides).
BAD_NUMBERS = {"negative": "-5", "nan": "nan", "inf": "inf", "overflow": "1e999",
               "5000-digits": "9" * 5000, "a-word": "x", "superscript": "\u00b2"}
#: The path kinds a folder (used or made) and an output (written) meet.
FOLDER = ("a-file", "under-a-file", "a-fifo", "a-device", "a-symlink-loop", "under-proc")
OUTPUT = ("missing", "a-directory", "a-fifo", "a-full-device", "a-symlink-loop", "under-a-file")
#: (command words, flag, the kinds it meets, the exit status). Run, with no game to play,
#: starts with ``--keys ""`` and stops at once when nothing is wrong.
RUN = ["run", "--emulator", "none", "--keys", ""]
#: Stands for a good record file, for the commands that read one before they use a flag.
RECORD = "{record}"
#: The configuration of run and doctor meets every file fault in tests/test_faults_files.py;
#: games and export read it and their state directory with the same code as run.
FLAGS: list[tuple[list[str], str, tuple[str, ...], int]] = [
    (RUN, "--config", ("under-a-file",), 2),
    (RUN, "--state", FOLDER, 2),
    (["run", "--emulator", "capture", "--keys", ""], "--capture-dir", FOLDER, 2),
    (["games"], "--config", ("a-fifo", "a-device"), 2),
    (["games"], "--state", ("a-file", "a-symlink-loop"), 2),
    (["export"], "--config", ("a-fifo", "a-directory"), 2),
    (["export"], "--state", ("a-fifo", "under-a-file"), 2),
    (["doctor"], "--config", ("under-a-file",), 1),  # the report, with a fail line naming it
    (["doctor"], "--state", FOLDER, 1),
    (["bench"], "--dir", FOLDER, 2),
    (["import"], "file", ("missing", "a-directory", "a-fifo", "a-device", "a-symlink-loop"), 2),
    (["import", RECORD], "--config", ("a-fifo", "a-symlink-loop"), 2),
    (["import", RECORD], "--state", FOLDER, 2),
    (["stats"], "--config", ("a-device", "under-a-file"), 2),
    (["stats"], "--state", ("a-fifo", "a-symlink-loop"), 2),
]
#: Each output kind's exit: 1 where it may pass (a full disk), 2 for a mistake.
OUTPUT_EXITS = {"a-full-device": 1}
NUMBERS: list[tuple[list[str], str, tuple[str, ...]]] = [
    (["games"], "--limit", (*BAD_NUMBERS.values(), "0")),
    (["bench"], "--idle", (*BAD_NUMBERS.values(), "0")),
]
#: What the cases above leave to other tables: the record replay reads (REPLAYS), the
#: game export takes and the keys run presses (ARGUMENTS), the display flags (SETTINGS,
#: DISPLAY_FLAGS), and flags that take no value or only a choice.
ELSEWHERE = {("replay", "file"), ("export", "game"), ("run", "--keys"), ("run", "--display"),
             ("run", "--emulator"), ("export", "--summary"), ("export", "--raw")}


def argument_cases() -> list[tuple[str, list[str], int]]:
    """Every case: (id, the words after ``companion``, the exit status)."""
    cases = [(f"{words[0]} {flag} {kind}", [*words, flag, kind], status)
             for words, flag, kinds, status in FLAGS for kind in kinds]
    cases += [(f"export --output {kind}", ["export", "--output", kind], OUTPUT_EXITS.get(kind, 2))
              for kind in OUTPUT]
    cases += [(f"{words[0]} {flag} {name}", [*words, flag, f"={value}"], 2)
              for words, flag, values in NUMBERS
              for name, value in [*BAD_NUMBERS.items(), ("zero", "0")] if value in values]
    return cases


@pytest.mark.parametrize(("words", "status"), [case[1:] for case in argument_cases()],
                         ids=[case[0] for case in argument_cases()])
def test_every_path_and_number_argument_is_one_line_and_the_right_exit(
        words: list[str], status: int, stored: pathlib.Path) -> None:
    """Issue 24, fault 17: ``export -o /nonexistent/x``, ``-o /tmp``, ``-o /dev/full``,
    ``bench --dir MISSING``, ``bench --idle -5`` (after a minute of work) and ``run
    --capture-dir FILE`` each ended in a traceback."""
    scratch = stored / "scratch"
    scratch.mkdir()
    (scratch / "game.record").write_text(MICROBOT + "table roll 3 2\n")
    *command, flag, value = words
    command = [str(scratch / "game.record") if word == RECORD else word for word in command]
    value = value[1:] if value.startswith("=") else bad_path(value, scratch)
    state = [] if flag == "--state" or command[0] == "bench" else ["--state", str(stored)]
    given = f"{flag}={value}" if flag.startswith("-") else value  # a flag, or the command's file
    started = time.monotonic()
    run = subprocess.run([*COMPANION, *command, *state, given], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, env=ENV, timeout=60, check=False)
    assert time.monotonic() - started < 20, "the argument must be checked before any work"
    assert "Traceback" not in run.stderr + run.stdout
    assert run.returncode == status, run.stderr[-2000:]
    if command[0] == "doctor":  # a report: the line for that argument fails
        area = "config" if flag == "--config" else "(state|store)"
        assert re.search(rf"^(fail|warn) +{area} ", run.stdout, re.MULTILINE), run.stdout
        return
    said = [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]
    assert len(said) == 1, run.stderr[-2000:]
    assert value[:20] in said[0] or shown(value)[:20] in said[0], said


def test_the_argument_cases_reach_every_path_and_number_of_every_command() -> None:
    """A new flag that takes a path or a number gets its row above."""
    import argparse

    from companion.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    taken = {(name, action.option_strings[-1] if action.option_strings else action.dest)
             for name, sub in commands.choices.items() for action in sub._actions
             if action.nargs != 0 and not isinstance(action, argparse._HelpAction)}
    covered = {(words[0], flag) for words, flag, _kinds, _status in FLAGS}
    covered |= {(words[0], flag) for words, flag, _values in NUMBERS} | {("export", "--output")}
    assert taken - covered - ELSEWHERE == set()


# --- a player named ok over the serial console ---


@dataclass(frozen=True)
class Named:
    """Lines sent to a console whose game has a player named ``ok``; the last one's answer
    must start with ``answer`` (answered, not taken for an echo)."""

    name: str
    lines: tuple[str, ...]
    answer: str


NAMED_OK = [
    Named("microbot-pick", ("game microbot-racers", "players ok Bob", "dice 2 3", "ok pick move-2"),
          "ok ok pick move-2"),
    Named("microbot-refused-pick", ("game microbot-racers", "players ok Bob", "dice 2 3", "ok pick fly"),
          "error: "),
    Named("microbot-privilege", ("game microbot-racers", "players ok Bob", "ok first"), "ok ok first"),
    # 'ok first' also has the shape of an answer (a record line of the player 'first'), but
    # the rules take it: it is theirs
    Named("shaped-like-an-answer", ("game microbot-racers", "players ok first", "ok first"),
          "ok ok first"),
    Named("lemmings-refill", ("game quick-lemmings", "players ok Bob", "ok refill 0"), "ok ok refill 0"),
    Named("lemmings-refused-play", ("game quick-lemmings", "players ok Bob", "ok play forest 9"),
          "error: "),
    Named("penguin-ability", ("game penguin-panic", "players ok Bob", "table line", "ok ability 7"),
          "ok ok ability 7"),
    Named("second-seat", ("game microbot-racers", "players Ann ok", "dice 3 2", "ok pick move-1"),
          "ok ok pick move-1"),
]


@pytest.mark.parametrize("case", NAMED_OK, ids=[c.name for c in NAMED_OK])
def test_a_player_named_ok_plays_over_the_console(case: Named, tmp_path: pathlib.Path) -> None:
    box = Box(tmp_path)
    *setup, last = case.lines
    box.ok(*setup)
    answer = box.send(last)
    assert answer is not None and answer.startswith(case.answer), answer


def test_a_player_named_ok_plays_through_the_daemon_loop_with_answers_echoed(tmp_path: pathlib.Path) -> None:
    """loop:// echoes every answer back, as a loopback plug does: ok's line is played, and
    each echoed answer is read and left unanswered."""
    h = Harness(tmp_path)
    loop = Loop()
    port = attach(h, "loop://", opener=loop)
    try:
        loop.handle.write(b"game microbot-racers\nplayers ok Bob\ndice 2 3\nok pick move-2\n")
        heard = [step_until(h, SerialLine).data for _ in range(8)]
        assert heard[4:] == [b"ok game microbot-racers: the players line next",
                             b"ok players ok Bob: game started", b"ok table roll 2 3",
                             b"ok ok pick move-2"]
        assert h.app.session is not None
        assert h.app.session.record().splitlines()[-1] == "ok pick move-2"
    finally:
        port.close()
        h.close()


# The loop safety the echo rule exists for (these held before, and must keep holding).
ECHOES = ["ok", "ok ok pick move-2", "ok Bob pick move-2", "ok table roll 2 3",
          'ok {"game": "microbot-racers", "over": false}', "ok game microbot-racers: the players line next",
          "ok players ok Bob: game started", "ok undone: ok pick move-2", "ok redone",
          "ok waiting for 1 more face(s): ok 2, Bob ?", "error: 'fly' is not on the easy side"]


@pytest.mark.parametrize("echo", ECHOES)
def test_answers_coming_back_stay_unanswered_with_a_player_named_ok(echo: str, tmp_path: pathlib.Path) -> None:
    box = Box(tmp_path)
    box.ok("game microbot-racers", "players ok Bob", "dice 2 3", "ok pick move-2")
    before = box.app.session.state if box.app.session else None
    assert box.send(echo) is None
    assert box.app.session is not None and box.app.session.state == before


def test_two_companions_wired_together_never_answer_each_other_for_ever(tmp_path: pathlib.Path) -> None:
    """Each answer of one is a line for the other; with a player named ok on both sides, the
    exchange still ends after at most one refusal."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = Box(tmp_path / "a"), Box(tmp_path / "b")
    for box in (a, b):
        box.ok("game microbot-racers", "players ok Bob", "dice 2 3")
    for line in ["ok pick move-2", "Bob pick move-1", "state", "help", "ok pick fly", "undo"]:
        said: str | None = line
        hops = 0
        sender, receiver = a, b
        said = sender.send(said)
        while said is not None:
            hops += 1
            assert hops <= 2, (line, said)
            sender, receiver = receiver, sender
            said = sender.send(said)


def test_error_cannot_be_a_name_and_the_refusal_is_answered(tmp_path: pathlib.Path) -> None:
    box = Box(tmp_path)
    box.ok("game microbot-racers")
    assert "not a valid name" in box.error("players error: Bob")


# --- stopped by a signal: the exit status says so ---


#: Commands that wait on standard input, so a signal finds them at work.
READERS = {"replay": lambda state: ["replay", "-"],
           "import": lambda state: ["import", "-", "--state", str(state)]}


def waiting_with_handlers(pid: int) -> bool:
    """Whether the process sleeps (in its read of standard input) with its handlers for
    SIGINT and SIGTERM installed: a signal now finds the command at work."""
    try:
        status = dict(line.split(":\t", 1) for line in
                      pathlib.Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    except OSError:
        return False
    caught = int(status.get("SigCgt", "0"), 16)
    wanted = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    return caught & wanted == wanted and status.get("State", "").startswith("S")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", sorted(READERS))
def test_a_command_stopped_by_a_signal_does_not_exit_0(command: str, signum: int, tmp_path: pathlib.Path) -> None:
    """Review of issue 28: Ctrl-C or a SIGTERM in the middle of ``companion import`` (or
    replay) printed nothing and exited 0, so ``companion import game.record && rm
    game.record`` lost the record. The status is now the shell's for a stopped program,
    128 + the signal, and nothing is stored. (``run`` still stops cleanly with 0: systemd
    stops the daemon with SIGTERM.)"""
    child = subprocess.Popen([*COMPANION, *READERS[command](tmp_path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert child.stdin is not None
    child.stdin.write((MICROBOT + "table roll 3 2\n").encode())
    child.stdin.flush()
    deadline = time.monotonic() + 30
    while not waiting_with_handlers(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    child.send_signal(signum)
    out, _ = child.communicate(timeout=30)
    assert child.returncode == 128 + signum
    assert out == b""
    assert not (tmp_path / "companion.sqlite").exists()
