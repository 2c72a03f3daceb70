"""One registration per game: each kit's parts resolve to what they claim, the title is the
engine's, and naming a part loads nothing until it is used (`companion replay` loads the
engine of its game and no screen, no picture library, no other game)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from companion.ai import advisor
from companion.games import GAMES, KITS, Kit, game_by_id, title
from companion.games.base import Game
from companion.ui.games import GENERIC, Screens, screen_title, screens_of
from tests.example_game.rules import Pig

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game_id", list(KITS))
def test_each_kit_resolves_to_its_engine_its_screens_and_its_advisor(game_id: str) -> None:
    kit = KITS[game_id]
    assert isinstance(kit.game, Game) and kit.game.id == game_id and GAMES[game_id] is kit.game
    assert isinstance(screens_of(kit.game), Screens) and screens_of(kit.game) is not GENERIC
    assert (advisor(game_id) is not None) == bool(kit.advisor)
    assert title(game_id) == kit.game.title and screen_title(game_id) in (kit.game.title,
                                                                          screens_of(kit.game).short_title)


def test_a_game_not_registered_has_no_engine_the_generic_screens_and_its_id_for_a_title() -> None:
    assert game_by_id("chess") is None and "chess" not in GAMES
    assert screens_of(Pig()) is GENERIC and advisor("chess") is None  # Pig: registered in its folder only
    assert title("chess") == screen_title("chess") == "chess"


def test_only_leaf_climbers_shortens_its_title_on_screen() -> None:
    assert {gid: screen_title(gid) for gid in GAMES if screen_title(gid) != title(gid)} == {
        "leaf-climbers": "Leaf-Climbers"}


@pytest.mark.parametrize(("fields", "wrong"), [
    (("Pig", "tests.example_game.rules:Pig"), "is not a game ID"),
    (("pig", "tests.example_game.rules.Pig"), "must be written"),
    (("pig", "tests.example_game.rules:Pig", "screens"), "must be written"),
])
def test_a_kit_is_checked_when_it_is_written(fields: tuple[str, ...], wrong: str) -> None:
    with pytest.raises(ValueError, match=wrong):
        Kit(*fields)


def test_an_engine_for_another_game_id_is_refused_when_first_used() -> None:
    with pytest.raises(TypeError, match="not the rules of 'racers'"):
        _ = Kit("racers", "companion.games.microbot_racers:MicrobotRacers").game


PROBE = """
import sys
from companion.cli import main
code = main(sys.argv[1:])
print(sorted(m for m in sys.modules if m.split('.')[0] in ('PIL', 'luma', 'gpiozero')
             or m.startswith(('companion.ui', 'companion.ai', 'companion.io'))
             or (m.startswith('companion.games.') and m not in ('companion.games.base', 'companion.games.frozen'))))
"""


def test_replay_loads_the_engine_of_its_game_only() -> None:
    record = ROOT / "tests" / "golden" / "gleebs-and-grues" / "bob-first-no-stack.record"
    run = subprocess.run([sys.executable, "-c", PROBE, "replay", str(record)], capture_output=True,
                         text=True, check=True, cwd=ROOT, timeout=60)
    summary, loaded = run.stdout.strip().splitlines()
    assert json.loads(summary)["game"] == "gleebs-and-grues"
    assert loaded == str(["companion.games.gleebs_and_grues"])
