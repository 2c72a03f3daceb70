"""The error module: one hierarchy, each error also the built-in that fits, and a refusal
that breaks no rule never taken for a rule broken."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sqlite3

import pytest

import companion
from companion import exc
from companion.exc import CompanionError, IllegalLine, Refusal

#: Each error and the built-in a caller who knows nothing of the companion would catch it as.
BUILT_IN = {
    exc.IllegalLine: ValueError,
    exc.NotYourTurn: ValueError,
    exc.BadArguments: ValueError,
    exc.UnknownVerb: ValueError,
    exc.GameOver: ValueError,
    exc.NothingToUndo: LookupError,
    exc.NothingToRedo: LookupError,
    exc.RollRefused: RuntimeError,
    exc.ConsoleRefused: ValueError,
    exc.RecordError: ValueError,
    exc.UnreadableRecord: ValueError,
    exc.ConfigError: ValueError,
    exc.DisplayError: ValueError,
    exc.NoSuchGame: KeyError,
    exc.NotAPlay: ValueError,
    exc.Unreadable: sqlite3.DatabaseError,
    exc.Incompatible: ValueError,
    exc.StateUnavailable: OSError,
    exc.FileRefused: OSError,
    exc.PageClosed: ConnectionError,
    exc.DriverError: LookupError,
    exc.OutOfTime: TimeoutError,
}
#: Turned down without a rule broken: shown like a refusal, but never an IllegalLine.
NOT_RULES = [exc.NothingToUndo, exc.NothingToRedo, exc.RollRefused, exc.ConsoleRefused]


def errors_in_exc() -> set[type[BaseException]]:
    return {cls for _, cls in inspect.getmembers(exc, inspect.isclass)
            if issubclass(cls, BaseException) and cls.__module__ == exc.__name__}


def test_every_error_of_the_module_is_checked_here() -> None:
    assert errors_in_exc() - {CompanionError, Refusal} == set(BUILT_IN)


@pytest.mark.parametrize(("error", "built_in"), BUILT_IN.items(), ids=lambda x: x.__name__)
def test_each_error_is_a_companion_error_and_the_built_in_that_fits(
        error: type[CompanionError], built_in: type[BaseException]) -> None:
    assert issubclass(error, CompanionError)
    assert issubclass(error, built_in)


@pytest.mark.parametrize("error", NOT_RULES, ids=lambda x: x.__name__)
def test_a_refusal_that_breaks_no_rule_is_not_an_illegal_line(error: type[Refusal]) -> None:
    assert issubclass(error, Refusal)
    assert not issubclass(error, IllegalLine)
    with pytest.raises(Refusal):  # what the screens and the console catch to show the reason
        raise error("nothing to undo")


def test_the_rules_errors_are_still_reached_through_the_engines_module() -> None:
    """Engines import only games/base.py; it hands on the same classes, not copies."""
    from companion.games import base

    for name in ("IllegalLine", "NotYourTurn", "BadArguments", "UnknownVerb", "GameOver"):
        assert getattr(base, name) is getattr(exc, name)


def test_every_companion_error_is_defined_in_the_error_module() -> None:
    """Only a game's own kinds of illegal line live in its engine (the game stays one module)."""
    elsewhere = set()
    for module in pkgutil.walk_packages(companion.__path__, "companion."):
        if module.name.endswith("__main__"):
            continue
        loaded = importlib.import_module(module.name)
        for _, cls in inspect.getmembers(loaded, inspect.isclass):
            if (issubclass(cls, BaseException) and cls.__module__ == module.name != exc.__name__
                    and not (module.name.startswith("companion.games.") and issubclass(cls, IllegalLine))):
                elsewhere.add(f"{module.name}.{cls.__name__}")
    assert elsewhere == set()


def test_a_record_error_keeps_its_line_number_and_a_short_reason() -> None:
    err = exc.RecordError(7, "x" * 10_000)
    assert err.line == 7 and str(err).startswith("7: xxx")
    assert len(str(err)) < exc.MAX_REASON + 40
