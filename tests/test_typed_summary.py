"""mypy catches a misspelt summary key, wherever it is read: the session's summary (the
shared keys of records.md, typed ``Summary``), a game's own summary type, and a game's
screens, whose panel, painter and summary page must all read the same game's summary.

Each snippet is checked by mypy as the project's configuration says (``--strict``), with a
cache under the project's ``.mypy_cache`` so that a run after ``make test``'s own mypy reuses
what it knows of ``companion`` (about 2 s; 4 s with no cache). mypy replaces its cache files
whole, so two test workers may share it. The snippets that spell every key right must pass, so a
snippet that fails for another reason (an import gone, a renamed type) fails the test too.
"""

from __future__ import annotations

import pathlib
import textwrap

import pytest
from mypy import api

ROOT = pathlib.Path(__file__).resolve().parent.parent

SNIPPETS = {
    "session_ok": """
        from typing import Any

        from companion.games.base import Summary
        from companion.session import Session

        def headline(session: Session[Any, Summary]) -> str:
            summary = session.summary()
            return ", ".join(summary["winners"]) if summary["over"] else str(summary["next"])
        """,
    "session_misspelt": """
        from typing import Any

        from companion.games.base import Summary
        from companion.session import Session

        def headline(session: Session[Any, Summary]) -> object:
            return session.summary()["winers"]
        """,
    "game_ok": """
        from companion.games.leaf_climbers import LeafSummary

        def seats(summary: LeafSummary) -> int:
            return len(summary["players"]) + len(summary["leaves"])
        """,
    "game_misspelt": """
        from companion.games.leaf_climbers import LeafSummary

        def seats(summary: LeafSummary) -> object:
            return summary["leafs"]
        """,
    "screens_ok": """
        from companion.games.leaf_climbers import LeafSummary
        from companion.ui.games import Screens
        from companion.ui.games.leaf_climbers import panel, summary_lines

        SCREENS: Screens[LeafSummary] = Screens(panel=panel, summary_lines=summary_lines)
        """,
    "screens_mixed": """
        from companion.games.leaf_climbers import LeafSummary
        from companion.ui.games import Screens
        from companion.ui.games.leaf_climbers import panel
        from companion.ui.games.microbot_racers import summary_lines

        SCREENS: Screens[LeafSummary] = Screens(panel=panel, summary_lines=summary_lines)
        """,
}


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each snippet's mypy errors (one mypy run for all of them), by snippet name."""
    where = tmp_path_factory.mktemp("snippets")
    files = []
    for name, code in SNIPPETS.items():
        path = where / f"{name}.py"
        path.write_text(textwrap.dedent(code))
        files.append(str(path))
    out, err, _ = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(ROOT / ".mypy_cache"),
                           "--no-error-summary", "--show-error-codes", *files])
    assert not err, err
    errors: dict[str, list[str]] = {name: [] for name in SNIPPETS}
    for line in out.splitlines():
        if ": note:" in line:  # mypy's hints ("Did you mean ...?") after an error
            continue
        name = pathlib.Path(line.split(":", 1)[0]).stem
        assert name in errors, line  # an error in companion itself, or a crash
        errors[name].append(line)
    return errors


@pytest.mark.parametrize("name", ["session_ok", "game_ok", "screens_ok"])
def test_summary_keys_spelt_right_pass_mypy(mypy_errors: dict[str, list[str]], name: str) -> None:
    assert mypy_errors[name] == []


def test_a_misspelt_key_of_the_session_summary_is_a_mypy_error(mypy_errors: dict[str, list[str]]) -> None:
    [error] = mypy_errors["session_misspelt"]
    assert 'TypedDict "Summary" has no key "winers"' in error


def test_a_misspelt_key_of_a_games_summary_is_a_mypy_error(mypy_errors: dict[str, list[str]]) -> None:
    [error] = mypy_errors["game_misspelt"]
    assert 'TypedDict "LeafSummary" has no key "leafs"' in error


def test_a_games_screens_must_all_read_that_games_summary(mypy_errors: dict[str, list[str]]) -> None:
    """Leaf-Climbers' screens with Microbot Racers' summary page: the page reads
    ``RaceSummary``, the screens hand it ``LeafSummary``, so mypy refuses the Screens.
    (The screens modules write their ``Screens[...]`` type: left to infer it, mypy would
    settle on a summary type with both games' keys.)"""
    assert mypy_errors["screens_mixed"]
    assert all("LeafSummary" in error or "RaceSummary" in error for error in mypy_errors["screens_mixed"])
