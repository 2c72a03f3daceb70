"""A game in progress: undo and redo, restarts, roll-again, records, and flat memory."""

from __future__ import annotations

import pathlib
import random
import tempfile
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion.dice import device_roll
from companion.exc import NothingToRedo, NothingToUndo, Refusal
from companion.games import GAMES
from companion.games.base import Choice, Game, IllegalLine, Line, Roll, usable
from companion.record import Header, Replayed, format_record, replay_text, summary
from companion.session import CHECKPOINTS, RECENT, Session
from companion.store import Store
from tests.playout import next_entry, players_for, playout

GOLDEN = pathlib.Path(__file__).parent / "golden"
MICROBOT = GAMES["microbot-racers"]
LEAVES = GAMES["leaf-climbers"]


class Scripted(random.Random):
    """Deals the given faces in order, so a test knows exactly what the device rolled."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def golden(game_id: str, name: str) -> Replayed:
    return replay_text((GOLDEN / game_id / f"{name}.record").read_text())


def states_along(header: Header, lines: list[Line]) -> list[Any]:
    """The state after each prefix of ``lines``, by plain replay (index = entries in force)."""
    states = [header.start()]
    for line in lines:
        states.append(header.game.apply(states[-1], line))
    return states


def play_each(session: Session, lines: list[Line] | tuple[Line, ...]) -> None:
    """Log every line as its own confirmed entry."""
    for line in lines:
        session.play([line])


def stored_lines(store: Store, gid: int) -> list[tuple[str, ...]]:
    return [entry.lines for entry in store.entries(gid)]


def assert_at(session: Session, states: list[Any], head: int) -> None:
    """The session, and the store under it, stand at entry ``head`` of ``states``."""
    game = session.game
    assert session.head == head
    assert session.state == states[head]
    row = session.store.game(session.gid)
    assert row.head == head
    outcome = game.outcome(states[head])
    assert row.status == ("over" if outcome else "playing")
    assert row.winners == (outcome.winners if outcome else ())


# --- undo and redo ---


def test_undo_and_redo_walk_a_whole_race_back_and_forth(store: Store) -> None:
    race = golden("microbot-racers", "lap-win")  # two turns, ends on Bob's second lap
    session = Session.new(store, race.header)
    states = states_along(race.header, list(race.actions))
    play_each(session, race.actions)
    end = len(race.actions)
    assert_at(session, states, end)
    assert MICROBOT.details(states[end])["turn"] == 2

    for head in range(end - 1, -1, -1):
        session.undo()
        assert_at(session, states, head)
    for head in range(1, end + 1):
        session.redo()
        assert_at(session, states, head)
    # Any number of steps, either way, across the turn boundary.
    head = end
    for steps in (-5, 2, -20, 13, -1, 11):
        for _ in range(abs(steps)):
            if steps < 0:
                session.undo()
            else:
                session.redo()
        head += steps
        assert_at(session, states, head)
    assert stored_lines(store, session.gid) == [(str(x),) for x in race.actions]


def test_undo_at_the_start_is_refused_and_changes_nothing(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    start, row = session.state, store.game(session.gid)
    with pytest.raises(NothingToUndo) as refused:
        session.undo()
    # The screen shows it like any refusal, but no rule was broken.
    assert isinstance(refused.value, Refusal) and not isinstance(refused.value, IllegalLine)
    assert (session.head, session.state) == (0, start)
    assert store.game(session.gid) == row
    assert store.entries(session.gid) == []


def test_redo_with_nothing_undone_is_refused_and_changes_nothing(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    play_each(session, [Line.parse("table roll 3 2"), Line.parse("Bob pick move-2")])
    state, row = session.state, store.game(session.gid)
    with pytest.raises(NothingToRedo) as refused:
        session.redo()
    assert isinstance(refused.value, Refusal) and not isinstance(refused.value, IllegalLine)
    assert (session.head, session.state) == (2, state)
    assert store.game(session.gid) == row
    assert len(store.entries(session.gid)) == 2


def test_new_entry_after_undo_leaves_nothing_to_redo(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    play_each(session, [Line.parse("table roll 3 2"), Line.parse("Bob pick move-2")])
    session.undo()
    session.play([Line.parse("Bob pick move-3")])
    assert session.redo_entry() is None
    with pytest.raises(NothingToRedo):
        session.redo()
    assert stored_lines(store, session.gid) == [("table roll 3 2",), ("Bob pick move-3",)]
    session.undo()
    assert session.redo_entry() is not None and session.redo_entry().lines == ("Bob pick move-3",)


@pytest.mark.parametrize("entry", [
    ["Ann pick move-2", "Ann pick move-2"],  # the second line is refused: the space is taken
    ["Ann pick move-1", "Ann pick move-2", "Ann pick turn-left"],  # the third pick is Bob's
    ["Bob pick move-2"],  # Ann picks next
    ["Ann pick fly"],  # no such action
    ["Ann pick move-3"],  # Bob's marker is there
    [],  # an empty confirmation logs nothing
])
def test_illegal_entry_changes_nothing(store: Store, entry: list[str]) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    play_each(session, [Line.parse("table roll 3 2"), Line.parse("Bob pick move-3"),
                        Line.parse("Ann pick move-1")])
    session.undo()  # a redo stack that an illegal entry must not drop
    before = (session.head, session.state, session.prompt(), store.game(session.gid),
              store.entries(session.gid))
    with pytest.raises(IllegalLine):
        session.play([Line.parse(text) for text in entry])
    after = (session.head, session.state, session.prompt(), store.game(session.gid),
             store.entries(session.gid))
    assert after == before
    session.redo()
    assert MICROBOT.details(session.state)["picked"] == {"Ann": ["move-1"], "Bob": ["move-3"]}


def test_a_different_entry_after_undoing_several_drops_the_whole_redo_stack(path: str) -> None:
    """Undo three entries, then log one that differs from the next redo entry: all three go,
    in the session, in the store, and after a restart; undo walks the new branch."""
    store = Store(path)
    header = Header(MICROBOT, ("Ann", "Bob"))
    session = Session.new(store, header)
    play_each(session, [Line.parse(text) for text in (
        "table roll 3 2", "Bob pick move-3", "Ann pick move-1", "Ann pick move-2")])
    for _ in range(3):
        session.undo()
    assert session.redo_entry() is not None and session.redo_entry().lines == ("Bob pick move-3",)
    branch = [Line.parse("table roll 3 2"), Line.parse("Bob pick move-2")]
    session.play(branch[1:])
    states = states_along(header, branch)
    assert session.redo_entry() is None
    assert stored_lines(store, session.gid) == [("table roll 3 2",), ("Bob pick move-2",)]
    assert_at(session, states, 2)
    again = Session(Store(path), session.gid)
    assert again.redo_entry() is None and again.state == states[2]
    with pytest.raises(NothingToRedo):
        again.redo()
    again.undo()
    assert_at(again, states, 1)
    again.redo()
    assert_at(again, states, 2)


# --- restarts ---


def test_restart_resumes_the_same_decision_with_the_same_redo_stack(path: str) -> None:
    race = golden("microbot-racers", "spec-example")
    store = Store(path)
    session = Session.new(store, race.header)
    play_each(session, race.actions)
    for _ in range(3):
        session.undo()
    gid, head, state, ask = session.gid, session.head, session.state, session.prompt()
    redo = store.entries(gid)[head:]
    store.close()  # the power goes off

    again = Session(Store(path), gid)
    assert (again.head, again.state, again.prompt()) == (head, state, ask)
    assert again.header == race.header
    assert again.store.entries(gid)[head:] == redo
    for _ in range(3):
        again.redo()
    assert again.state == race.state
    again.store.close()


def test_restart_deep_into_a_long_game_rebuilds_the_exact_state(path: str) -> None:
    header = Header(MICROBOT, ("Ann", "Bob"))
    lines = endless_race(300, random.Random(3))
    states = states_along(header, lines)
    store = Store(path)
    session = Session.new(store, header)
    play_each(session, lines)
    for _ in range(40):  # past the recent states: rebuilt from a checkpoint
        session.undo()
    assert_at(session, states, 260)
    gid = session.gid
    store.close()

    again = Session(Store(path), gid)
    assert_at(again, states, 260)
    for _ in range(40):
        again.redo()
    assert_at(again, states, 300)
    again.store.close()


# --- rolling again after undo ---


def first_roll(session: Session) -> Roll:
    ask = session.prompt()
    assert ask is not None
    (roll,) = [a for a in ask.answers if isinstance(a, Roll)]
    return roll


def test_undone_device_roll_is_offered_again_for_its_prompt(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    ask = first_roll(session)
    assert session.roll_again(ask) is None  # nothing was rolled yet
    session.play(device_roll(MICROBOT, session.state, ask, Scripted([4, 4, 5, 2])), rolled=True)
    rolled_state = session.state
    assert session.roll_again(ask) is None  # nothing undone

    session.undo()
    assert session.roll_again(first_roll(session)) == ("4 4", "5 2")
    session.redo()  # "use 4 4, 5 2 again"
    assert session.state == rolled_state


def test_typed_in_faces_are_not_offered_again(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    session.play([Line.parse("table roll 5 2")])  # what the table rolled
    session.undo()
    assert session.roll_again(first_roll(session)) is None


def test_roll_is_offered_again_even_once_a_different_entry_replaced_it(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    ask = first_roll(session)
    session.play(device_roll(MICROBOT, session.state, ask, Scripted([5, 2])), rolled=True)
    session.undo()
    session.play([Line.parse("Ann first")])  # Ann takes P1 instead: the redo stack goes
    session.undo()
    assert session.redo_entry() is not None and session.redo_entry().lines == ("Ann first",)
    assert session.roll_again(first_roll(session)) == ("5 2",)  # the dice audit kept it


def test_roll_is_offered_again_only_for_the_prompt_it_answered(store: Store) -> None:
    session = Session.new(store, Header(LEAVES, ("Ann", "Bob")))
    drop = first_roll(session)
    rng = random.Random(5)
    session.play(device_roll(LEAVES, session.state, drop, rng), rolled=True)
    dropped = store.entry(session.gid, 1)
    d4 = first_roll(session)
    assert (d4.actor, d4.verb) == ("Ann", "roll")
    session.play(device_roll(LEAVES, session.state, d4, Scripted([3])), rolled=True)

    session.undo()
    assert session.roll_again(first_roll(session)) == ("3",)
    assert session.roll_again(drop) is None  # the leaves' prompt is not the one pending
    session.undo()
    assert session.roll_again(d4) is None
    assert dropped is not None
    assert session.roll_again(first_roll(session)) == tuple(
        " ".join(Line.parse(text).args) for text in dropped.lines)


# --- the record ---


def test_record_replays_to_the_same_summary_with_device_rolls_marked(store: Store) -> None:
    race = golden("microbot-racers", "spec-example")
    session = Session.new(store, race.header)
    rng = Scripted([4, 4, 3, 2])  # a tie, then the record's own first roll
    session.play(device_roll(MICROBOT, session.state, first_roll(session), rng), rolled=True)
    play_each(session, race.actions[1:])
    session.play([Line.parse("table roll 2 5")])
    session.undo()  # an undone entry is not part of the record

    text = session.record()
    assert summary(replay_text(text)) == session.summary()
    assert text.splitlines()[:5] == [
        "game microbot-racers", "players Ann Bob", "option laps 2",
        "table roll 4 4  # rolled by the companion", "table roll 3 2  # rolled by the companion"]
    assert sum("#" in line for line in text.splitlines()) == 2
    assert "table roll 2 5" not in text


def test_record_of_a_new_game_is_its_header(store: Store) -> None:
    header = Header(MICROBOT, ("Ann", "Bob"), (("laps", "2"),))
    session = Session.new(store, header)
    assert replay_text(session.record()).header == header


# --- the end of a game ---


@pytest.mark.parametrize("name,winners", [("lap-win", ("Bob",)), ("destruction-win", ("Ann",)),
                                          ("draw", ())])
def test_finished_race_can_be_undone_from_its_end(store: Store, name: str,
                                                  winners: tuple[str, ...]) -> None:
    race = golden("microbot-racers", name)
    session = Session.new(store, race.header)
    play_each(session, race.actions)
    assert session.over() and session.prompt() is None
    row = store.game(session.gid)
    assert (row.status, row.winners) == ("over", winners)

    session.undo()  # the final lap (or roll, or impact) was mis-logged
    assert not session.over() and session.prompt() is not None
    assert (store.game(session.gid).status, store.game(session.gid).winners) == ("playing", ())
    assert [g.id for g in store.games("playing")] == [session.gid]

    session.redo()
    assert session.state == race.state
    assert (store.game(session.gid).status, store.game(session.gid).winners) == ("over",
                                                                                row.winners)


def test_abandon_keeps_the_game_but_stops_offering_it(store: Store) -> None:
    session = Session.new(store, Header(MICROBOT, ("Ann", "Bob")))
    session.play([Line.parse("table roll 3 2")])
    session.abandon()
    assert store.game(session.gid).status == "abandoned"
    assert store.games("playing") == []
    assert Session(store, session.gid).state == session.state


# --- memory stays flat ---


class Counting:
    """A game that counts the lines it applies (the cost of rebuilding states)."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.applied = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def apply(self, state: Any, line: Line) -> Any:
        self.applied += 1
        return self.game.apply(state, line)


def endless_race(length: int, rng: random.Random) -> list[Line]:
    """Microbot Racers with only the required answers on the easy side: no laps, no hazards,
    no impacts, so nobody ever wins and the race goes on for as long as we like."""
    state = MICROBOT.start(("Ann", "Bob"), MICROBOT.option_values({}))
    lines = []
    while len(lines) < length:
        ask = MICROBOT.prompt(state)
        assert ask is not None
        option = rng.choice(usable(ask.answers))
        if isinstance(option, Choice):
            line = option.line
        else:
            assert isinstance(option, Roll)
            line = option.line(tuple(rng.randint(1, s) for s in option.sides))
        state = MICROBOT.apply(state, line)
        lines.append(line)
    return lines


def test_memory_stays_flat_over_five_thousand_entries(store: Store) -> None:
    header = Header(MICROBOT, ("Ann", "Bob"))
    lines = endless_race(5000, random.Random(1))
    session = Session.new(store, header)
    for line in lines:
        session.play([line])
        assert len(session._recent) <= RECENT
        assert len(session._checkpoints) <= CHECKPOINTS + 1
    assert session.head == 5000
    assert MICROBOT.details(session.state)["turn"] > 300

    expected = states_along(header, lines[:10])[10]
    counting = Counting(MICROBOT)
    session.game = counting
    while session.head > 10:
        session.undo()
        assert len(session._recent) <= RECENT
        assert len(session._checkpoints) <= CHECKPOINTS + 1
    assert session.state == expected
    # Holding undo stays cheap: states are rebuilt from a checkpoint once per window of
    # recent states, not once per press (that was about 250 lines a press here).
    assert counting.applied <= 16 * 4990
    assert store.game(session.gid).head == 10
    for _ in range(5):
        session.redo()
    assert session.state == states_along(header, lines[:15])[15]


# --- properties over every game ---

PLAY, UNDO, REDO = "play", "undo", "redo"
BACK, FORWARD = "back", "forward"  # a long press: undo or redo 40 times


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 3), lead=st.integers(0, 100),
       ops=st.lists(st.sampled_from((PLAY, PLAY, UNDO, UNDO, REDO, BACK, FORWARD)),
                    max_size=60))
def test_any_mix_of_play_undo_redo_matches_replay_of_the_entries(
        game_id: str, seed: int, extra: int, lead: int, ops: list[str]) -> None:
    """``lead`` plays first, so that undo also reaches past the recent states and the
    checkpoints."""
    game = GAMES[game_id]
    header = Header(game, players_for(game, extra))
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as directory:
        store = Store(f"{directory}/c.db")
        session = Session.new(store, header)
        entries: list[tuple[str, ...]] = []  # the model: entries and head
        states = [header.start()]
        head = 0
        for op in [PLAY] * lead + ops:
            if op == PLAY:
                if session.prompt() is None:
                    continue
                lines, rolled = next_entry(session, rng)
                session.play(lines, rolled)
                state = states[head]
                for line in lines:
                    state = game.apply(state, line)
                texts = tuple(str(x) for x in lines)
                if entries[head:head + 1] != [texts]:  # equal to the next redo entry: a redo
                    entries[head:] = [texts]
                    states[head + 1:] = [state]
                head += 1
            elif op in (UNDO, BACK):
                if head == 0:
                    with pytest.raises(NothingToUndo):
                        session.undo()
                for _ in range(min(head, 40 if op == BACK else 1)):
                    session.undo()
                    head -= 1
            else:
                if head == len(entries):
                    with pytest.raises(NothingToRedo):
                        session.redo()
                for _ in range(min(len(entries) - head, 40 if op == FORWARD else 1)):
                    session.redo()
                    head += 1
            assert stored_lines(store, session.gid) == entries
            assert_at(session, states, head)

        text = format_record(header, [x for e in entries[:head] for x in e])
        assert replay_text(text).state == session.state
        redo = session.redo_entry()
        store.close()
        again = Session(Store(f"{directory}/c.db"), session.gid)
        assert (again.head, again.state, again.redo_entry()) == (head, session.state, redo)
        again.store.close()


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 3), played=st.integers(0, 60),
       back=st.integers(1, 60))
def test_undo_then_redo_changes_nothing(game_id: str, seed: int, extra: int, played: int,
                                        back: int) -> None:
    game = GAMES[game_id]
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as directory:
        store = Store(f"{directory}/c.db")
        session = Session.new(store, Header(game, players_for(game, extra)))
        for _ in range(played):
            if session.over():
                break
            session.play(*next_entry(session, rng))
        back = min(back, session.head)

        def snapshot() -> tuple[Any, ...]:
            row = store.game(session.gid)
            return (session.head, session.state, session.prompt(), row.head, row.status,
                    row.winners, store.entries(session.gid))

        before = snapshot()
        for _ in range(back):
            session.undo()
        for _ in range(back):
            session.redo()
        assert snapshot() == before
        store.close()


SHORT = {"microbot-racers": {"laps": "1"}}  # the same rules, a shorter race


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 3), back=st.integers(1, 6))
def test_store_says_over_exactly_when_the_game_is_over(game_id: str, seed: int, extra: int,
                                                       back: int) -> None:
    game = GAMES[game_id]
    players = players_for(game, extra)
    options = SHORT.get(game_id, {})
    final, lines = playout(game, players, random.Random(seed), steps=3000, options=options)
    assume(game.over(final))  # a playout of 3000 lines that never ends is not our case
    with tempfile.TemporaryDirectory() as directory:
        store = Store(f"{directory}/c.db")
        session = Session.new(store, Header(game, players, tuple(options.items())))
        states = states_along(session.header, lines)
        for head, line in enumerate(lines, start=1):
            session.play([line])
            assert_at(session, states, head)
        assert store.game(session.gid).status == "over"
        back = min(back, len(lines))
        for head in range(len(lines) - 1, len(lines) - back - 1, -1):
            session.undo()
            assert_at(session, states, head)
        for head in range(len(lines) - back + 1, len(lines) + 1):
            session.redo()
            assert_at(session, states, head)
        store.close()
