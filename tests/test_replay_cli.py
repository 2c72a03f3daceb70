"""``companion replay FILE`` as a real process: exit codes, streams and the error prefix.

records.md, "The command": a legal record prints one JSON summary on stdout (exit 0); an
illegal one prints ``FILE:LINE: REASON`` on stderr, FILE as given and LINE physical, with
nothing on stdout (exit 1); an unreadable file, non-UTF-8 text, or a missing or unknown
``game`` line is a one-line message on stderr (exit 2).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from tests.examples import HEADER, LAP_WIN, ROLL, SPEC_EXAMPLE

ROOT = pathlib.Path(__file__).resolve().parent.parent




def replay(file: str, *, stdin: bytes = b"", cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m companion replay FILE`` from this checkout."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "companion", "replay", file], input=stdin,
                         capture_output=True, cwd=cwd, env=env, timeout=60)
    return subprocess.CompletedProcess(run.args, run.returncode,
                                       run.stdout.decode("utf-8"), run.stderr.decode("utf-8", "replace"))


def write(directory: pathlib.Path, data: str | bytes, name: str = "game.record") -> pathlib.Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def assert_illegal(run: subprocess.CompletedProcess[str], file: str, line: int) -> None:
    """Exit 1, nothing on stdout, and ``FILE:LINE: REASON`` on stderr."""
    assert run.returncode == 1, run.stderr
    assert run.stdout == ""
    prefix = f"{file}:{line}: "
    assert run.stderr.startswith(prefix), run.stderr
    assert run.stderr[len(prefix):].strip(), "the error needs a reason after the prefix"


def assert_unreadable(run: subprocess.CompletedProcess[str]) -> None:
    """Exit 2, nothing on stdout, a one-line message on stderr."""
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    message = run.stderr.rstrip("\n")
    assert message.strip() and "\n" not in message, run.stderr
    assert "Traceback" not in run.stderr


# --- legal records: one JSON object on stdout, exit 0 ---


def test_a_legal_record_prints_one_json_summary_object_and_exits_0(tmp_path: pathlib.Path) -> None:
    run = replay(str(write(tmp_path, SPEC_EXAMPLE)))
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert isinstance(summary, dict)
    assert {k: summary[k] for k in ("game", "players", "over", "winners", "next")} == {
        "game": "microbot-racers", "players": ["Ann", "Bob"], "over": False, "winners": [],
        "next": "table"}


def test_the_summary_of_the_spec_example_has_its_game_keys(tmp_path: pathlib.Path) -> None:
    summary = json.loads(replay(str(write(tmp_path, SPEC_EXAMPLE))).stdout)
    want = {"over": False, "next": "table", "turn": 1, "p1": "Bob", "health": {"Ann": 5, "Bob": 5},
            "laps": {"Ann": 0, "Bob": 0}, "privilege": {"Ann": True, "Bob": True}}
    assert {k: summary.get(k) for k in want} == want


def test_a_finished_game_prints_over_true_its_winners_and_next_null(tmp_path: pathlib.Path) -> None:
    run = replay(str(write(tmp_path, LAP_WIN)))
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert (summary["over"], summary["winners"], summary["next"]) == (True, ["Ann"], None)


def test_a_record_that_is_not_finished_is_legal_and_summarised_where_it_stands(tmp_path: pathlib.Path) -> None:
    summary = json.loads(replay(str(write(tmp_path, HEADER + ROLL + "Bob pick move-2\n"))).stdout)
    assert (summary["over"], summary["winners"], summary["next"]) == (False, [], "Ann")


def test_a_header_only_record_is_legal(tmp_path: pathlib.Path) -> None:
    run = replay(str(write(tmp_path, HEADER)))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["next"] == "table"


def test_a_dash_reads_the_record_from_standard_input() -> None:
    run = replay("-", stdin=(HEADER + ROLL).encode())
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["next"] == "Bob"


def test_a_bom_crlf_commented_record_replays_like_the_plain_one(tmp_path: pathlib.Path) -> None:
    plain = json.loads(replay(str(write(tmp_path, HEADER + ROLL, "plain.record"))).stdout)
    typed = b"\xef\xbb\xbf# Tuesday\r\n\r\ngame\tmicrobot-racers\r\nplayers Ann  Bob # seats\r\ntable roll 03 2"
    run = replay(str(write(tmp_path, typed, "typed.record")))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == plain


# --- illegal records: FILE:LINE: REASON on stderr, nothing on stdout, exit 1 ---

ILLEGAL = "# a race\n\n" + HEADER + "\n# the first roll\ntable roll 7 2   # no such face\n"
ILLEGAL_LINE = 7


def test_an_illegal_record_names_a_relative_file_as_given(tmp_path: pathlib.Path) -> None:
    write(tmp_path, ILLEGAL, "records/race.record")
    assert_illegal(replay("records/race.record", cwd=tmp_path), "records/race.record", ILLEGAL_LINE)


def test_an_illegal_record_names_the_file_as_given_without_normalising_it(tmp_path: pathlib.Path) -> None:
    write(tmp_path, ILLEGAL, "records/race.record")
    given = "./records/../records//race.record"
    assert_illegal(replay(given, cwd=tmp_path), given, ILLEGAL_LINE)


def test_an_illegal_record_names_a_file_with_spaces_as_given(tmp_path: pathlib.Path) -> None:
    write(tmp_path, ILLEGAL, "my games/race 1.record")
    assert_illegal(replay("my games/race 1.record", cwd=tmp_path), "my games/race 1.record", ILLEGAL_LINE)


def test_an_illegal_record_names_an_absolute_file_as_given(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, ILLEGAL)
    assert path.is_absolute()
    assert_illegal(replay(str(path), cwd=ROOT), str(path), ILLEGAL_LINE)


def test_an_illegal_record_on_standard_input_is_named_dash() -> None:
    assert_illegal(replay("-", stdin=ILLEGAL.encode()), "-", ILLEGAL_LINE)


@pytest.mark.parametrize("data, line", [
    (b"\xef\xbb\xbf" + ILLEGAL.encode(), ILLEGAL_LINE),
    (ILLEGAL.replace("\n", "\r\n").encode(), ILLEGAL_LINE),
    ((HEADER + "table roll 3 2\rBob pick move-2\n").encode(), 3),
    ((HEADER + "table roll 3 2\r").encode(), 3),
    ((HEADER + "table roll +3 2\n").encode(), 3),
    ((HEADER + "table roll \uff13 2\n").encode(), 3),
    ((HEADER + "table roll 3 2 1\n").encode(), 3),
    ((HEADER + "Table roll 3 2\n").encode(), 3),
], ids=["bom", "crlf", "lone-cr", "lone-cr-at-end", "sign", "fullwidth-digit", "extra-token", "upper-case"])
def test_grammar_faults_are_illegal_lines_with_physical_numbers(tmp_path: pathlib.Path, data: bytes, line: int) -> None:
    path = str(write(tmp_path, data))
    assert_illegal(replay(path), path, line)


def test_leading_zeros_are_accepted_where_a_sign_is_refused(tmp_path: pathlib.Path) -> None:
    run = replay(str(write(tmp_path, HEADER + "table roll 03 2\n")))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["next"] == "Bob"


@pytest.mark.parametrize("text, line", [
    ("game microbot-racers\nplayers Ann\n", 2),
    ("game microbot-racers\nplayers Ann Bob Cat\n", 2),
    ("game penguin-panic\nplayers Ann Bob Cat Dan Eve Fay\n", 2),
    ("game microbot-racers\nplayers Ann Ann\n", 2),
    ("game microbot-racers\nplayers Ann table\n", 2),
    ("game microbot-racers\nplayers Ann Zoë\n", 2),
    ("game microbot-racers\nplayers Ann Bartholomew-Jr\n", 2),
    (HEADER + "option colour red\n", 3),
    (HEADER + "option laps 10\n", 3),
    (HEADER + "option laps 2\n# again\noption laps 2\n", 5),
    ("game gleebs-and-grues\nplayers Ann Bob\noption first Zed\n", 3),
    ("game microbot-racers\noption laps 2\nplayers Ann Bob\n", 2),
    ("game microbot-racers\n\ngame microbot-racers\n", 3),
    ("game microbot-racers 2\nplayers Ann Bob\n", 1),
    (HEADER + "players Ann Bob\n", 3),
    (HEADER + ROLL + "option laps 2\n", 4),
    (HEADER + ROLL + "players Ann Bob\n", 4),
    ("game microbot-racers\n# no seats\ntable roll 3 2\n", 3),
], ids=["one-player", "three-players", "six-penguin-players", "same-name", "reserved-name",
        "non-ascii-name", "13-character-name", "unknown-option", "bad-option-value",
        "repeated-option", "option-naming-no-player", "option-before-players", "repeated-game",
        "game-with-extra-tokens", "repeated-players", "option-after-action",
        "players-after-action", "no-players-before-action"])
def test_header_faults_are_illegal_lines(tmp_path: pathlib.Path, text: str, line: int) -> None:
    path = str(write(tmp_path, text))
    assert_illegal(replay(path), path, line)


@pytest.mark.parametrize("text, line", [
    ("game microbot-racers", 1),
    ("game microbot-racers\n", 1),
    ("game microbot-racers\n\n# no seats\n", 3),
    ("game microbot-racers\n\n# no seats", 3),
    ("game microbot-racers\r\n\r\n", 2),
], ids=["no-line-end", "line-end", "trailing-comment", "trailing-comment-no-line-end", "crlf-blank"])
def test_no_players_line_and_no_action_is_illegal_at_the_last_line(tmp_path: pathlib.Path, text: str,
                                                                    line: int) -> None:
    path = str(write(tmp_path, text))
    assert_illegal(replay(path), path, line)


# --- not a record at all: one line on stderr, nothing on stdout, exit 2 ---


def test_a_missing_file_is_unreadable(tmp_path: pathlib.Path) -> None:
    assert_unreadable(replay(str(tmp_path / "nowhere.record")))


def test_a_directory_is_unreadable(tmp_path: pathlib.Path) -> None:
    assert_unreadable(replay(str(tmp_path)))


@pytest.mark.parametrize("data", [
    HEADER.encode() + b"# caf\xe9\n",
    b"game microbot-racers\nplayers Ann B\xf6b\n",
    HEADER.encode() + b"table roll 9 9\n# \xff after an illegal line\n",
    HEADER.encode() + ROLL.encode() + b"\x80",
], ids=["in-a-comment", "in-a-name", "after-an-illegal-line", "last-byte"])
def test_a_byte_that_is_not_utf8_is_unreadable(tmp_path: pathlib.Path, data: bytes) -> None:
    assert_unreadable(replay(str(write(tmp_path, data))))


def test_non_utf8_standard_input_is_unreadable() -> None:
    assert_unreadable(replay("-", stdin=HEADER.encode() + b"\xfe\n"))


@pytest.mark.parametrize("data", [
    b"",
    b"# just a comment\n\n",
    b"players Ann Bob\ngame microbot-racers\n",
    b"game\nplayers Ann Bob\n",
    b"Game microbot-racers\nplayers Ann Bob\n",
    (HEADER + ROLL).replace("\n", "\r").encode(),
], ids=["empty", "comment-only", "players-first", "no-id", "upper-case-keyword", "cr-only-line-ends"])
def test_a_missing_game_line_is_unreadable(tmp_path: pathlib.Path, data: bytes) -> None:
    assert_unreadable(replay(str(write(tmp_path, data))))


@pytest.mark.parametrize("line", ["game chess", "game chess classic", "game Microbot-Racers"])
def test_a_game_line_naming_no_known_game_is_unreadable(tmp_path: pathlib.Path, line: str) -> None:
    assert_unreadable(replay(str(write(tmp_path, line + "\nplayers Ann Bob\n"))))


def test_an_empty_standard_input_is_unreadable() -> None:
    assert_unreadable(replay("-", stdin=b""))


# --- the command line around the file ---


@pytest.mark.parametrize("words", [["replay"], ["replay", "a.record", "b.record"], ["replay", "-x"],
                                   ["replay", "--", "a.record", "b.record"]])
def test_anything_but_replay_and_one_file_is_the_parsers_usage_error(words: list[str],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A plain ``replay FILE`` skips the argument parser; every other form still meets it."""
    from companion.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(words)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.startswith("usage: companion")


def test_a_file_named_like_a_command_is_still_the_file(tmp_path: pathlib.Path) -> None:
    write(tmp_path, HEADER + ROLL, name="games")
    run = replay("games", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["players"] == ["Ann", "Bob"]
