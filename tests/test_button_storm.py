"""Buttons gone wild: our debounce against a model on any edge train, and a storm of presses,
holds, bounces, glitches and chords through mock pins that leaves a valid game and a live loop.
(gpiozero's MockPin ignores bounce_time: the debounce under test is ours, KeyLogic.)"""

from __future__ import annotations

import logging
import pathlib
import random
from dataclasses import replace

import pytest
from gpiozero import Device
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion import ai
from companion.intents import Intent
from companion.io.base import Edge
from companion.io.keylogic import KeyLogic
from companion.record import format_record, replay_text
from companion.session import Session
from companion.ui.keytest import KeyTest
from tests.harness import Harness

DEBOUNCE_MS = 20


def drive(keys: KeyLogic, role: str, durations: list[int]) -> list[Intent]:
    """Toggle ``role`` after each duration (ms; pressed first), waking the logic whenever it
    asks, as the daemon does; then leave it alone for good."""
    out: list[Intent] = []
    now_ms = 0

    def until(limit: float) -> None:
        while (deadline := keys.deadline()) is not None and deadline < limit:
            out.extend(keys.due(deadline))

    pressed = False
    for duration in durations:
        pressed = not pressed
        until(now_ms / 1000)
        keys.feed(Edge(role, pressed, now_ms / 1000))
        now_ms += duration
    until(now_ms / 1000 + 10)
    return out


def settled_presses(durations: list[int]) -> list[int]:
    """The model: a level counts once it has held longer than the debounce (the last one
    holds for ever); the hold time of each counted press (ms), by the same rule."""
    stable, since, holds = False, 0, []
    now, pressed = 0, False
    for duration in [*durations[:-1], 10**9] if durations else []:
        pressed = not pressed
        if duration > DEBOUNCE_MS and pressed != stable:
            stable = pressed
            if pressed:
                since = now
            else:
                holds.append(now - since)
        now += duration
    if stable:
        holds.append(10**9)
    return holds


durations = st.lists(st.integers(1, 900).filter(lambda d: d != DEBOUNCE_MS), max_size=60)


@settings(max_examples=400, deadline=None)
@given(durations)
def test_debounce_counts_exactly_the_levels_that_held(train: list[int]) -> None:
    keys = KeyLogic(DEBOUNCE_MS / 1000, 0.6)
    intents = drive(keys, "up", [*train, 1])  # the last edge releases (or presses) for good
    assert intents == [Intent("up")] * len(settled_presses([*train, 1]))
    assert keys.deadline() is None  # nothing left owed: no busy loop after a storm


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(1, DEBOUNCE_MS - 1), max_size=80))
def test_glitches_shorter_than_the_debounce_never_count(train: list[int]) -> None:
    keys = KeyLogic(DEBOUNCE_MS / 1000, 0.6)
    train = train if len(train) % 2 == 0 else [*train, 1]  # an even number of edges: released
    assert drive(keys, "select", train) == []


@settings(max_examples=300, deadline=None)
@given(durations)
def test_select_gives_select_on_a_short_press_and_the_menu_on_a_long_one(train: list[int]) -> None:
    keys = KeyLogic(DEBOUNCE_MS / 1000, 0.6)
    train = train if len(train) % 2 == 0 else [*train, 1]  # an even number of edges: released
    holds = settled_presses(train)
    assume(all(abs(hold - 600) > 1 for hold in holds))  # a tie is decided by float rounding
    expected = [Intent("context") if hold > 600 else Intent("select") for hold in holds]
    assert drive(keys, "select", train) == expected


# --- a storm through the real loop ---


@pytest.mark.parametrize("preset", ["minimal", "adafruit-bonnet", "waveshare-oled-hat"])
@pytest.mark.parametrize("seed", range(3))
def test_a_storm_of_presses_leaves_a_valid_game_and_a_live_loop(
        tmp_path: pathlib.Path, preset: str, seed: int, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A storm that reaches a game with hints thinks for each of them; what is tested here is
    # the keys and the loop, not the advice, so the advisor gets a short budget.
    monkeypatch.setattr(ai, "THINK", 0.05)
    rng = random.Random(seed)
    box = Harness(tmp_path, preset=preset, seed=seed)
    roles = sorted(box.pins)
    caplog.set_level(logging.WARNING)
    try:
        for _ in range(400):
            kind = rng.random()
            if kind < 0.55:  # an ordinary press, sometimes bouncing, sometimes held long
                box.press(rng.choice(roles), hold=rng.choice([0.03, 0.08, 0.2, 0.7, 1.3]),
                          bounce=rng.random() < 0.3)
            elif kind < 0.7:  # a glitch: shorter than the debounce
                pin = Device.pin_factory.pin(box.pins[rng.choice(roles)])
                pin.drive_low()
                box.pump()
                box.now += rng.uniform(0.0005, 0.015)
                pin.drive_high()
                box.pump()
            elif kind < 0.85:  # a chord: several buttons at once, released in any order
                chord = rng.sample(roles, min(len(roles), rng.randint(2, 3)))
                for role in chord:
                    Device.pin_factory.pin(box.pins[role]).drive_low()
                    box.pump()
                box.wait(rng.choice([0.05, 0.7]))
                for role in rng.sample(chord, len(chord)):
                    Device.pin_factory.pin(box.pins[role]).drive_high()
                    box.pump()
                box.wait(0.05)
            else:  # digits typed, as the keyboard or a reader sends them
                box.intent("digit", rng.randint(0, 9))
        box.wait(2.0)
        assert box.daemon.keys.deadline() is None, "a key is still owed something"

        # Valid: what the screen works from is what the store replays to.
        assert box.store.check() == ""
        session = box.app.session
        if session is not None:
            stored = Session(box.store, session.gid)
            assert stored.state == session.state and stored.head == session.head
            lines = [x for e in box.store.entries(session.gid, session.head) for x in e.lines]
            assert replay_text(format_record(session.header, lines)).state == session.state
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "a handler failed"

        # Live: presses are still handled, and the screen shows where the app now stands
        # (unshifted: the storm may have switched the shift on again in Settings).
        box.app.config = replace(box.app.config, screen=replace(box.app.config.screen, shift=False))
        if isinstance(box.app.top, KeyTest):  # the storm reached Settings > Test keys, where
            box.press("select", hold=2.5)  # keys only show their names: a long hold leaves it
        assert not isinstance(box.app.top, KeyTest)
        presses = box.daemon.presses
        for role in ("down", "up", "down"):
            box.press(role)
        assert box.daemon.presses == presses + 3
        assert box.screen.tobytes() == box.app.frame().convert("1").tobytes()
    finally:
        box.close()


def test_going_back_to_an_earlier_seat_or_option_and_on_again_starts_a_legal_game(
        tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    """What the storm found: names and options chosen twice made a header that does not
    replay (two players of one name, an option given twice), stored, and so unplayable."""
    box = Harness(tmp_path, preset="adafruit-bonnet")
    caplog.set_level(logging.ERROR)
    try:
        box.presses("select", "select", "select")  # New game > Microbot Racers > seat 1: Ann
        box.presses("back", "select")  # back to seat 1, Ann again
        box.presses("select")  # seat 2: the set-up list
        box.presses("down", "select", "down", "select")  # laps: not the default, 4
        box.presses("select", "down", "select")  # laps again: 5
        box.presses("down", "select")  # the side: hard
        box.presses("back", "select")  # back to seat 2, Bob again: the same set-up
        box.presses("select")  # Start game
        session = box.app.session
        assert session is not None and not caplog.records
        assert len(set(session.players)) == 2
        assert session.header.options == (("laps", "5"), ("side", "hard"))
        assert Session(box.store, session.gid).header == session.header
    finally:
        box.close()
