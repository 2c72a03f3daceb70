"""The fault matrix in the suite (the machinery and its invariants: tests/faultmatrix.py).

The suite runs a covering sample of the cells: each cell that found a fault (its test, with
the seed that found it), then every stored artifact, every kind of fault and both
baselines at least once, each cell through every way in. The sample is drawn by a seed (24
unless ``COMPANION_MATRIX_SEED`` says otherwise) and printed in pytest's header, so a
failure is run again with the same seed, or alone:

    python -m tests.faultmatrix store-bitflips-killed --seed 24

``COMPANION_MATRIX=full`` runs every cell (245; ``-n 4`` takes some minutes).
"""

from __future__ import annotations

import pathlib
import re

import pytest

from tests.faultmatrix import (
    ARTIFACTS,
    BASELINES,
    FAULTS,
    FOUND,
    SUITE_SEED,
    Baseline,
    Cell,
    applies,
    build_baseline,
    product,
    restorable,
    run_cell,
    sample,
    suite_cells,
)

SEED = SUITE_SEED
CELLS = suite_cells()


@pytest.fixture(scope="module")
def baselines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    """Both baselines, built once for this worker."""
    made = {}
    for kind in BASELINES:
        top = tmp_path_factory.mktemp(f"baseline-{kind}")
        build_baseline(top, kind)
        made[kind] = top
    return made


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: cell.id)
def test_no_fault_loses_an_entry_crash_loops_or_goes_unnamed(
        cell: Cell, baselines: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    found = run_cell(cell, baselines[cell.baseline], tmp_path / "cell", FOUND.get(cell.id, SEED))
    if found.skipped:
        pytest.skip(found.skipped)
    assert not found.violations, found.report()


def test_the_sample_reaches_every_artifact_fault_and_baseline() -> None:
    reached = {(kind, name) for cell in sample(SEED) for kind, name in (
        ("artifact", cell.artifact), ("fault", cell.fault), ("baseline", cell.baseline))}
    assert reached == ({("artifact", a) for a in ARTIFACTS} | {("fault", f) for f in FAULTS}
                       | {("baseline", b) for b in BASELINES})


def test_every_artifact_meets_every_kind_of_fault_somewhere_in_the_product() -> None:
    """A cell is left out only with its reason; no artifact or fault is out everywhere."""
    cells = product()
    assert {c.artifact for c in cells} == set(ARTIFACTS)
    assert {c.fault for c in cells} == set(FAULTS)
    for artifact in ARTIFACTS:
        for fault in FAULTS:
            for baseline in BASELINES:
                assert (Cell(artifact, fault, baseline) in cells) != bool(
                    applies(artifact, fault, baseline))


def test_the_baseline_holds_every_artifact(tmp_path: pathlib.Path) -> None:
    """What the cells damage is there to damage: the log and its index when killed, two
    whole copies and their changes, a checkpoint, rolls in the dice audit."""
    import sqlite3

    for kind in BASELINES:
        baseline = build_baseline(tmp_path / kind, kind)
        state = tmp_path / kind / "state"
        names = {path.name for path in state.iterdir()}
        assert {"companion.sqlite", "settings.json", "phone.json", "companion.lock"} <= names
        wholes = {name for name in names if re.fullmatch(r"companion\.sqlite\.backup-[0-9]+", name)}
        assert wholes and {f"{name}.changes" for name in wholes} <= names
        assert ("companion.sqlite-wal" in names) == (kind == "killed")
        db = sqlite3.connect(state / "companion.sqlite")
        assert db.execute("SELECT count(*) FROM checkpoints").fetchone()[0] >= 1
        assert db.execute("SELECT count(*) FROM rolls").fetchone()[0] >= 10
        db.close()
        assert Baseline.load(tmp_path / kind).games == baseline.games
        assert restorable(state)
