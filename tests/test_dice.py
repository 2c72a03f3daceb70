"""Device dice: fair faces in range, chained rolls as one entry, refused faces rolled again."""

from __future__ import annotations

import inspect
import math
import pathlib
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from companion.dice import FAIR, device_roll, roll_faces
from companion.exc import Refusal, RollRefused
from companion.games import GAMES
from companion.games.base import IllegalLine, Line, Roll
from companion.games.frozen import replace
from companion.games.leaf_climbers import LeafRefused
from companion.record import Header, replay_text
from companion.session import Session
from companion.store import Store

MICROBOT = GAMES["microbot-racers"]
LEAVES = GAMES["leaf-climbers"]


class Scripted(random.Random):
    """Deals the given faces in order, so a test knows exactly what the device rolled."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


def chi2_sf_5(x: float) -> float:
    """Survival function of the chi-square distribution with 5 degrees of freedom."""
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3)


# --- fairness and range ---


def test_device_dice_come_from_the_operating_system_generator() -> None:
    assert isinstance(FAIR, random.SystemRandom)
    assert inspect.signature(roll_faces).parameters["rng"].default is FAIR
    assert inspect.signature(device_roll).parameters["rng"].default is FAIR


@pytest.mark.parametrize("sides", [(4,), (6,), (20,), (6, 6), (6, 4, 20)])
def test_device_faces_are_in_range_and_every_face_comes_up(sides: tuple[int, ...]) -> None:
    ask = Roll("table", "roll", sides, tuple(f"d{s}" for s in sides))
    seen: list[set[int]] = [set() for _ in sides]
    for _ in range(2000):
        faces = roll_faces(ask)
        assert len(faces) == len(sides)
        for die, (face, top) in enumerate(zip(faces, sides)):
            assert 1 <= face <= top
            seen[die].add(face)
    # 2000 rolls miss one face of a d20 with odds below 1e-40.
    assert seen == [set(range(1, top + 1)) for top in sides]


def test_d6_from_the_device_is_fair() -> None:
    rolls = 6000
    ask = Roll("table", "roll", (6,), ("d6",))
    counts = Counter(roll_faces(ask)[0] for _ in range(rolls))
    expected = rolls / 6
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    # A fair die exceeds 35.89 with probability 1e-6: this test does not flake.
    bound = 35.89
    assert abs(chi2_sf_5(bound) - 1e-6) < 1e-8
    assert chi2 < bound, f"faces {sorted(counts.items())} are not those of a fair d6"


# --- chained rolls: one confirmation, one entry, one undo ---


def test_tied_first_player_roll_is_rolled_again_in_the_same_entry(tmp_path: pathlib.Path) -> None:
    store = Store(str(tmp_path / "c.db"))
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    start = session.state
    prompt = session.prompt()
    assert prompt is not None
    (ask,) = prompt.answers
    assert isinstance(ask, Roll)

    lines = device_roll(MICROBOT, session.state, ask, Scripted([3, 3, 4, 4, 5, 2]))
    assert [str(x) for x in lines] == ["table roll 3 3", "table roll 4 4", "table roll 5 2"]

    session.play(lines, rolled=True)
    assert session.head == 1
    entry = store.entry(session.gid, 1)
    assert entry is not None
    assert entry.lines == ("table roll 3 3", "table roll 4 4", "table roll 5 2") and entry.rolled
    assert session.summary()["p1"] == "Bob"  # Ann 5, Bob 2: the lower roll is P1
    session.undo()  # one press takes back the whole chain
    assert (session.head, session.state) == (0, start)
    store.close()


def test_chain_stops_when_someone_else_must_answer() -> None:
    state = MICROBOT.start(("Ann", "Bob"), MICROBOT.option_values({}))
    prompt = MICROBOT.prompt(state)
    assert prompt is not None
    lines = device_roll(MICROBOT, state, prompt.answers[0], Scripted([2, 5]))
    assert [str(x) for x in lines] == ["table roll 2 5"]
    after = MICROBOT.apply(state, lines[0])
    assert MICROBOT.next_actor(after) == "Ann"


def test_leaf_drop_and_all_its_leaves_are_one_roll() -> None:
    state = LEAVES.start(("Ann", "Bob"), {})
    prompt = LEAVES.prompt(state)
    assert prompt is not None
    lines = device_roll(LEAVES, state, prompt.answers[0], random.Random(11))
    drop = int(lines[0].args[0])
    assert str(lines[0]).startswith("table drop ")
    assert [x.verb for x in lines[1:]] == ["leaf"] * drop
    for line in lines:
        state = LEAVES.apply(state, line)
    assert LEAVES.next_actor(state) != "table"


# --- refused faces ---

CORNERS = [(1, 1), (6, 6)]  # Ann's and Bob's starting squares
STILL_GREEN = [(2, 1), (1, 2), (5, 6), (6, 5)]


def nearly_blue_board() -> str:
    """A record whose last round has only the two meeples' corners left for leaves.

    Thirty squares are blue (three rounds of two leaves each), and the four squares still
    green other than the corners take their two leaves this round, so 34 of 36 squares
    refuse the next leaf.
    """
    blue = [(c, r) for r in range(1, 7) for c in range(1, 7)
            if (c, r) not in CORNERS + STILL_GREEN]
    assert len(blue) == 30
    lines = ["game leaf-climbers", "players Ann Bob"]
    players = ["Ann roll 1", "Ann stay", "Bob roll 1", "Bob stay"]
    for group in (blue[:10], blue[10:20], blue[20:]):
        for _ in range(3):
            lines.append("table drop 20")
            lines += [f"table leaf {c} {r}" for c, r in group for _ in range(2)]
            lines += players
    lines.append("table drop 20")  # only 12 can fall: six green squares, two each
    lines += [f"table leaf {c} {r}" for c, r in STILL_GREEN for _ in range(2)]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def crowded() -> tuple[Any, Roll]:
    state = replay_text(nearly_blue_board()).state
    assert LEAVES.details(state)["falling"] == 4
    prompt = LEAVES.prompt(state)
    assert prompt is not None
    (ask,) = prompt.answers
    assert isinstance(ask, Roll) and ask.reroll_refused
    return state, ask


def test_refused_leaf_faces_are_rolled_again_until_a_square_takes_the_leaf(
        crowded: tuple[Any, Roll]) -> None:
    state, ask = crowded
    faces = Scripted([3, 3,  # blue
                      2, 1,  # already two leaves this round
                      1, 1,  # leaf 1 on Ann's corner
                      6, 6,  # leaf 2 on Bob's corner
                      1, 1,  # leaf 3
                      1, 1,  # Ann's corner is full now
                      4, 4,  # blue
                      6, 6])  # leaf 4
    lines = device_roll(LEAVES, state, ask, faces)
    assert [str(x) for x in lines] == ["table leaf 1 1", "table leaf 6 6",
                                       "table leaf 1 1", "table leaf 6 6"]
    assert faces.faces == []


def test_device_finds_the_last_free_squares_of_a_nearly_blue_board(
        crowded: tuple[Any, Roll]) -> None:
    state, ask = crowded
    lines = device_roll(LEAVES, state, ask, random.Random(7))
    assert sorted(str(x) for x in lines) == ["table leaf 1 1", "table leaf 1 1",
                                             "table leaf 6 6", "table leaf 6 6"]


def test_refused_faces_raise_when_the_roll_may_not_be_repeated(
        crowded: tuple[Any, Roll]) -> None:
    state, ask = crowded
    strict = replace(ask, reroll_refused=False)
    with pytest.raises(LeafRefused):
        device_roll(LEAVES, state, strict, Scripted([3, 3]))
    # Faces that fit need no second try.
    assert device_roll(LEAVES, state, strict, Scripted([1, 1, 6, 6, 1, 1, 6, 6])) == [
        Line.parse("table leaf 1 1"), Line.parse("table leaf 6 6")] * 2


def test_faces_that_can_never_fit_give_up_instead_of_hanging(
        crowded: tuple[Any, Roll]) -> None:
    state, ask = crowded
    hopeless = replace(state, leaves=state.leaves + tuple(CORNERS * 2))
    with pytest.raises(RollRefused) as refused:
        device_roll(LEAVES, hopeless, ask)
    assert isinstance(refused.value, Refusal)  # shown like any refusal; no rule was broken
    assert not isinstance(refused.value, IllegalLine)
