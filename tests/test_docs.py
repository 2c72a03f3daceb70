"""The README is a front page, and the pages it leads to hold together (issue 29).

Every link and picture between README.md, docs/ and hardware/ must reach a file that
exists and, after a ``#``, a heading of that file, named as GitHub names headings. Links to
other sites are not followed (the suite needs no network).
"""

from __future__ import annotations

import pathlib
import re
import unicodedata

import pytest

ROOT = pathlib.Path(__file__).parent.parent
README = ROOT / "README.md"
PAGES = sorted([README, *(ROOT / "docs").rglob("*.md"), *(ROOT / "hardware").rglob("*.md")])

#: A link or picture written inline: [text](target) or ![alt](target "title").
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: A reference definition on a line of its own: [label]: target.
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")
#: src= and href= of HTML written into the Markdown.
HTML_LINK = re.compile(r"""<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
#: A target with a scheme (https:, mailto:) leaves the repository.
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks: a `# comment` in a shell block is no heading,
    and a `[x](y)` in a code sample is no link."""
    lines: list[str] = []
    fence = ""
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text as rendered (code spans, links and
    emphasis reduced to their words), lower case, every character that is not a letter, a
    digit, a space, a hyphen or an underscore dropped, and each space made a hyphen.

    >>> slug("Checking a build: `companion doctor` and the key test")
    'checking-a-build-companion-doctor-and-the-key-test'
    >>> slug("Waveshare 1.3inch OLED HAT")
    'waveshare-13inch-oled-hat'
    >>> slug("Gleeb's and Grues")
    'gleebs-and-grues'
    """
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\*+", "", text).strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: pathlib.Path) -> set[str]:
    """Every heading's anchor in a page; a repeated one gets -1, -2... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$", line)
        if not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def targets(page: pathlib.Path) -> list[str]:
    """Every link and picture target in a page's prose."""
    found: list[str] = []
    for line in prose_lines(page.read_text(encoding="utf-8")):
        reference = REFERENCE.match(line)
        if reference:
            found.append(reference.group(1))
        line = CODE_SPAN.sub("", line)
        found += INLINE_LINK.findall(line) + HTML_LINK.findall(line)
    return found


def broken(page: pathlib.Path, target: str, root: pathlib.Path = ROOT) -> str | None:
    """Why a link of this page leads nowhere, or None when it arrives."""
    if SCHEME.match(target):
        return None
    path, _, anchor = target.partition("#")
    destination = (page.parent / path).resolve() if path else page
    if not destination.is_relative_to(root.resolve()):
        return "leaves the repository"
    if not destination.exists():
        return "no such file"
    if anchor:
        if destination.suffix != ".md":
            return "an anchor into a file that is not Markdown"
        if anchor not in anchors(destination):
            return f"no heading {anchor!r} in {destination.relative_to(root.resolve())}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_picture_arrives(page: pathlib.Path) -> None:
    bad = [f"{target}: {why}" for target in targets(page) if (why := broken(page, target))]
    assert bad == []


def test_every_docs_page_can_be_reached_from_the_readme() -> None:
    reached = {README.resolve()}
    todo = [README]
    while todo:
        page = todo.pop()
        for target in targets(page):
            path = target.partition("#")[0]
            if not path or SCHEME.match(target):
                continue
            destination = (page.parent / path).resolve()
            if destination.is_dir():  # a folder's page list, as GitHub shows it
                found = sorted(destination.glob("*.md"))
            else:
                found = [destination] if destination.suffix == ".md" and destination.exists() else []
            for linked in found:
                if linked not in reached:
                    reached.add(linked)
                    todo.append(linked)
    orphans = [str(p.relative_to(ROOT)) for p in PAGES if p.resolve() not in reached]
    assert orphans == []


def test_the_checker_catches_what_it_should(tmp_path: pathlib.Path) -> None:
    """The checks above pass only if they can fail: a missing file, a missing heading, a
    heading that exists only inside a code block, and the second of two equal headings."""
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n## Twice\n\n## Twice\n\n```sh\n# not a heading\n```\n", encoding="utf-8")
    assert anchors(page) == {"top", "twice", "twice-1"}
    assert broken(page, "#twice-1", tmp_path) is None
    assert broken(page, "#twice-2", tmp_path) is not None
    assert broken(page, "#not-a-heading", tmp_path) is not None
    assert broken(page, "missing.png", tmp_path) == "no such file"
    assert broken(page, "../outside.md", tmp_path) == "leaves the repository"
    assert targets(page) == []
    page.write_text("See [a](b.md#c), ![p](p.png) and `[not](a-link)`.\n", encoding="utf-8")
    assert targets(page) == ["b.md#c", "p.png"]


#: At most this many words on the front page (issue 29: a page to start from, not a manual).
README_WORDS = 1500


def test_the_readme_is_a_front_page() -> None:
    """Words counted as `wc -w` counts them: every run of characters between ASCII
    whitespace is a word, so code blocks, table pipes and Markdown marks all count, as
    they do for a reader's eye."""
    words = re.findall(r"[^ \t\n\v\f\r]+", README.read_text(encoding="utf-8"))
    assert len(words) <= README_WORDS
