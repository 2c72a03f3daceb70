"""The play screen's rows, shared with the widgets that draw in them (number entry, the
check before logging), so that going from one to another rewrites as little as it can.

The panel's memory is 8 pages of 8 rows, and the changed-pages display path sends only the
pages (and columns) that change. So each row of words sits where its letters fill one
page: the question's letters fill page 5, a one-line result's page 3; only descenders reach
into the page under them.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import ImageDraw

from companion.ui.draw import (
    BLACK,
    HEADER,
    HEIGHT,
    HINT_GAP,
    WHITE,
    WIDTH,
    arrows,
    label_and_hint,
    length,
    lines,
    text,
    wrap,
)

#: The lit rule under the top bar, always drawn: the last row of the top bar's page of
#: memory (rows 8-15). A result's box starts on it, so the box coming and going never
#: rewrites that page, and two small lines of words fit the box with their letters in
#: pages 2 and 3.
RULE = HEADER + 1
#: The game's figures, under the rule.
PANEL = (0, RULE + 1, WIDTH - 1, RULE + 20)
#: An entry's result (or the check before logging it) in a lit box over the panel.
RESULT_BOX = (0, RULE, WIDTH - 1, PANEL[3])
#: A one-line result's baseline: its letters fill rows 24-31, page 3, so one result after
#: another rewrites that page and the descenders only.
RESULT_BASELINE = 32
RESULT_PITCH = 9  # rows from one small line of a result to the next
#: A result of more lines than the box holds (long names) takes the question's rows too,
#: down to the answer's line: four small lines.
TALL_RESULT_BOX = (0, RULE, WIDTH - 1, 50)
RESULT_ROWS = (RESULT_BOX[3] - RESULT_BOX[1] + 1) // RESULT_PITCH
TALL_RESULT_ROWS = (TALL_RESULT_BOX[3] - TALL_RESULT_BOX[1] + 1) // RESULT_PITCH
#: The question's baseline: its letters fill rows 40-47, page 5.
QUESTION_BASELINE = 48
#: The line between the question and the answer, a clear row under the question's
#: descenders; the answer (or the numbers being entered) under it.
ANSWER_LINE = 51
#: Where a notice (a refusal's reason) goes: up from the answer's line, over the question
#: and, for a longer one, the panel (one line of 11 px is where the question's is).
NOTICE_AREA = (RULE + 1, ANSWER_LINE - 1)
ANSWER_BASELINE = HEIGHT - 2
#: The top of the answer's "more above" arrow: in the last page, with the "more below"
#: one (small ones, so that a clear row parts them).
ARROWS_TOP = 56
#: Where the answer's label starts, right of the arrows.
LABEL_LEFT = 9
#: The width of the triangle that points to the optional lines, and of three dots that
#: say some of their names are left out.
MARK, DOTS = 5, 6


def result_rows(words: str) -> tuple[int, list[str]]:
    """The type size and lines of a result: one line as large as fits, else small ones
    (two fit the box)."""
    for size in (12, 11):
        if "\n" not in words and length(words, size) <= WIDTH - 4:
            return size, [words]
    return 10, wrap(words, 10)


def fits_banner(words: str) -> bool:
    """Whether ``words`` fit the result box whole (over the panel alone).

    >>> fits_banner("Ann +3 fish (7)"), fits_banner("a\\nb\\nc")
    (True, False)
    """
    return len(result_rows(words)[1]) <= RESULT_ROWS


def result_banner(draw: ImageDraw.ImageDraw, words: str) -> None:
    """Words dark on lit, over the figures panel (the question and the answer under the
    cursor stay in view); words that need more lines than that box holds take the
    question's rows too (the answer stays in view)."""
    size, rows = result_rows(words)
    box = RESULT_BOX if len(rows) <= RESULT_ROWS else TALL_RESULT_BOX
    draw.rectangle(box, fill=WHITE)
    if len(rows) == 1:
        text(draw, (2, RESULT_BASELINE), rows[0], size, BLACK, box=box)
        return
    # Small lines: the first two fill pages 2 and 3, a lit row above each.
    lines(draw, (2, box[1] + 8), words, 10, WIDTH - 4, TALL_RESULT_ROWS, RESULT_PITCH, BLACK, box)


def question_line(draw: ImageDraw.ImageDraw, question: str) -> None:
    """The question, in smaller type if it is long."""
    size = 11 if length(question, 11) <= WIDTH - 4 else 10
    text(draw, (2, QUESTION_BASELINE), question, size)


def answer_fits(label: str, hint: str) -> bool:
    """Whether an answer's label and hint fit its row side by side."""
    return LABEL_LEFT + length(label, 12) + HINT_GAP + length(hint, 10) <= WIDTH - 1


def answer_row(draw: ImageDraw.ImageDraw, label: str, hint: str, up: bool, down: bool,
               struck: bool = False, optional: Sequence[str] = (), ellipsis: bool = False) -> None:
    """The answer under the cursor, under the line that ends the question: its small hint
    on the right and the arrows that say there are more answers above or below, both in
    the last page of memory (the label's tops reach the page above). A ``struck`` answer,
    one the rules refuse now, has a line through it. With ``optional`` lines one press up,
    their names take the hint's place (:func:`optional_hint`). ``ellipsis``: the label may
    be shortened (see ``draw.text``)."""
    draw.line((0, ANSWER_LINE, WIDTH - 1, ANSWER_LINE), fill=WHITE)
    if optional:
        optional_hint(draw, int(length(label, 12)), optional)
        hint = ""
    label_and_hint(draw, (LABEL_LEFT, ANSWER_BASELINE), WIDTH - 1, label, hint, 12,
                   hint_baseline=HEIGHT - 1, struck=struck, ellipsis=ellipsis)
    arrows(draw, 0, ARROWS_TOP, HEIGHT - 1, up, down, 2)


def optional_hint(draw: ImageDraw.ImageDraw, label_width: int, names: Sequence[str]) -> None:
    """Beside the answer under optional lines: a triangle pointing up to them, and their
    names, the likeliest first, as many whole ones as fit (three dots when some are left
    out and there is room), so that no one skips a hazard without seeing it is there."""
    right = WIDTH - 1
    room = right - (LABEL_LEFT + label_width + 3) - MARK - 1
    shown = ""
    for name in names:
        trial = f"{shown}, {name}" if shown else name
        if length(trial, 10) > room:
            break
        shown = trial
    if not shown and room < DOTS:
        return
    while shown != ", ".join(names) and length(shown, 10) + DOTS > room and ", " in shown:
        shown = shown.rsplit(", ", 1)[0]  # room for the dots that say more are there
    cut = shown != ", ".join(names) and length(shown, 10) + DOTS <= room
    x = right - int(length(shown, 10)) - (DOTS if cut else 0) - MARK - 1
    tip, base = HEIGHT - 8, HEIGHT - 3
    draw.polygon([(x, base), (x + MARK // 2, tip), (x + MARK - 1, base)], fill=WHITE)
    text(draw, (x + MARK + 2, HEIGHT - 1), shown, 10)
    if cut:
        for dot in range(3):
            draw.point((right - 1 - 2 * dot, HEIGHT - 2), fill=WHITE)
