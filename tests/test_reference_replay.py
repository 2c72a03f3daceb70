"""The yardstick is honest: the plain reference engine that ``companion bench`` times beside
``companion replay`` (``companion/benchdata/reference_replay.py``) does the same job on Microbot races:
the same summary for a legal record, the same first illegal line for an illegal one.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import pathlib
import random
from types import ModuleType

import pytest

from companion.games import GAMES
from companion.games.base import Choice, Line, Roll, usable
from companion.record import Header, RecordError, format_record, replay_text, summary

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference_replay",
                                                  ROOT / "companion" / "benchdata" / "reference_replay.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_race(seed: int, most: int = 400) -> tuple[Header, list[Line]]:
    """A race of the engine's own legal lines, hazards, impacts, laps and switches included."""
    game = GAMES["microbot-racers"]
    rng = random.Random(seed)
    options = (("laps", str(rng.randint(1, 3))), ("side", rng.choice(("easy", "hard"))))
    header = Header(game, ("Ann", "Bob"), options)
    state, lines = header.start(), list[Line]()
    while len(lines) < most and not game.over(state):
        ask = game.prompt(state)
        assert ask is not None
        answers = ask.answers + ask.extras if rng.random() < 0.3 and ask.extras else ask.answers
        answer = rng.choice(usable(answers))
        if isinstance(answer, Roll):
            line = answer.line(tuple(rng.randint(1, s) for s in answer.sides))
        else:
            assert isinstance(answer, Choice)
            line = answer.line
        state = game.apply(state, line)
        lines.append(line)
    return header, lines


def reference_replay(module: ModuleType, path: pathlib.Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = module.replay(str(path))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("seed", range(12))
def test_the_reference_gives_the_same_summary(reference: ModuleType, tmp_path: pathlib.Path,
                                              seed: int) -> None:
    header, lines = random_race(seed)
    text = format_record(header, lines)
    path = tmp_path / "race.record"
    path.write_text(text)
    code, out, _ = reference_replay(reference, path)
    assert code == 0
    assert json.loads(out) == summary(replay_text(text))


@pytest.mark.parametrize("seed", range(12))
def test_the_reference_refuses_the_same_first_line(reference: ModuleType, tmp_path: pathlib.Path,
                                                   seed: int) -> None:
    header, lines = random_race(seed, most=120)
    rng = random.Random(seed)
    spot = rng.randrange(len(lines))
    wrong = rng.choice([line for line in random_race(seed + 100, most=120)[1] if line != lines[spot]])
    text = format_record(header, [*lines[:spot], wrong, *lines[spot + 1:]])
    path = tmp_path / "race.record"
    path.write_text(text)
    code, _, err = reference_replay(reference, path)
    try:
        replay_text(text)
    except RecordError as refused:
        assert (code, err.split(": ")[0]) == (1, f"{path}:{refused.line}")
    else:
        assert code == 0
