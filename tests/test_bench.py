"""The benchmark's byte figures hold (bytes, not timings: the suite never times anything)."""

from __future__ import annotations

import pathlib
import statistics

import pytest

from companion.bench import FULL_FRAME, Interactions, play_session, session_records


@pytest.fixture(scope="module")
def races(tmp_path_factory: pytest.TempPathFactory) -> Interactions:
    """Every whole Microbot race of the benchmark session, typed in through the screens."""
    records = [r for r in session_records() if r.header.game.id == "microbot-racers"]
    return play_session(records, True, tmp_path_factory.mktemp("races"))


def test_a_whole_race_costs_under_a_third_of_luma_bytes_per_press(races: Interactions) -> None:
    assert races.skipped == []
    for kind, full in FULL_FRAME.items():
        assert statistics.median(races.bytes[f"ours {kind}"]) <= 0.3 * full
        assert set(races.bytes[f"luma {kind}"]) == {full}  # luma sends the whole frame every time
    assert races.redraw_bytes == 0


def test_no_press_puts_more_on_the_i2c_wire_than_luma_full_frame(races: Interactions) -> None:
    """Counted with each transfer's address and control byte, on luma's own bus and on a bus
    handed to it (32-byte blocks)."""
    for kind in FULL_FRAME:
        for framing in (0, 1):
            luma = {press[framing] for press in races.wire[f"luma {kind}"]}
            assert len(luma) == 1
            assert max(press[framing] for press in races.wire[f"ours {kind}"]) <= luma.pop()


def test_every_press_that_shows_a_frame_has_its_cpu_time_with_and_without_the_commit(
        races: Interactions) -> None:
    assert len(races.cpu) == len(races.cpu_net) == len(races.latency) > 0
    assert all(net <= total for net, total in zip(races.cpu_net, races.cpu))


def test_the_backup_figures_stores_hold_as_many_games_as_they_say(tmp_path: pathlib.Path) -> None:
    from companion.bench import games_store
    from companion.store import Store

    path = tmp_path / "games.sqlite"
    games_store(path, session_records(), 37)
    store = Store(str(path))
    rows = store.games(limit=100)
    assert len(rows) == 37 and {row.status for row in rows} == {"over"}
    assert all(store.entries(row.id) for row in rows)
    assert len({row.touched for row in rows}) == 37  # each its own place in the order
    store.close()
