"""The shell commands and the links of README.md and docs/*.md, read as a reader would.

A *command* is a line of a fenced ```bash / ```sh / ```shell / ```console block (a line of an
unlabelled block only when it starts with `$ ` or `proseval `), with its `\\` continuations joined
and its `$ ` prompt dropped, cut at `&&`, `||`, `;` and `|` into the simple commands a shell runs.
A `proseval` command (also `.venv/bin/proseval`) may carry a marker comment naming what it needs
that a checkout does not have: `# needs: network`, `# needs: keys`, `# needs: your data`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELLS = {"bash", "sh", "shell", "console"}
NEEDS = ("network", "keys", "your data")
MARKER = re.compile(r"#.*?\bneeds:\s*([^#]+?)\s*$")
FENCE = re.compile(r"^ *```([^\n`]*)\n(.*?)^ *```", re.DOTALL | re.MULTILINE)
SEPARATORS = {"&&", "||", ";", "|"}


def pages() -> list[Path]:
    """README.md and every page of docs/, in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Documented:
    """One `proseval` command of a page, as written there."""

    page: str  # the page, relative to the checkout
    line: int  # the line the command starts on
    block: int  # which fenced block of the page (commands of one block run in turn)
    text: str  # the logical line as written (continuations joined)
    words: tuple[str, ...]  # its words after `proseval`, unquoted as a shell would
    stdout: str | None = None  # the file a `>` sends its output to

    @property
    def needs(self) -> tuple[str, ...]:
        """What the marker comment says the command needs (empty: no marker)."""
        found = MARKER.search(self.text)
        return tuple(part.strip() for part in found.group(1).split(",")) if found else ()

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def logical_lines(block: str, first_line: int) -> list[tuple[int, str]]:
    """The block's lines with `\\` continuations joined, each with the line it starts on."""
    lines: list[tuple[int, str]] = []
    pending, start = "", first_line
    for number, raw in enumerate(block.splitlines(), first_line):
        if not pending:
            start = number
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        lines.append((start, pending + raw))
        pending = ""
    if pending:
        lines.append((start, pending))
    return lines


def shell_words(line: str) -> list[str]:
    """The words of a line as bash splits them (quotes removed, comments dropped), with the
    operators `&&`, `||`, `;`, `|`, `>` as words of their own."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="&|;<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def simple_commands(words: list[str]) -> list[list[str]]:
    """The words cut at the operators that separate commands."""
    commands: list[list[str]] = [[]]
    for word in words:
        if word in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def is_proseval(program: str) -> bool:
    return program == "proseval" or program.endswith("/proseval")


def commands_of(page: Path) -> list[Documented]:
    """Every `proseval` command of the page's shell blocks."""
    text = page.read_text(encoding="utf-8")
    found: list[Documented] = []
    for block, fence in enumerate(FENCE.finditer(text)):
        language = fence.group(1).strip().lower()
        if language and language not in SHELLS:
            continue
        first = text[: fence.start(2)].count("\n") + 1
        for number, line in logical_lines(fence.group(2), first):
            stripped = line.strip()
            prompted = stripped.startswith("$ ")
            stripped = stripped[2:] if prompted else stripped
            if language in ("", "console") and not (prompted or stripped.startswith("proseval ")):
                continue
            for words in simple_commands(shell_words(stripped)):
                if not is_proseval(words[0]):
                    continue
                rest, stdout = words[1:], None
                if ">" in rest:
                    at = rest.index(">")
                    rest, stdout = rest[:at] + rest[at + 2 :], rest[at + 1]
                found.append(Documented(str(page.relative_to(ROOT)), number, block, stripped, tuple(rest), stdout))
    return found


def all_commands() -> list[Documented]:
    return [command for page in pages() for command in commands_of(page)]


# --- links -----------------------------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def without_code(text: str) -> str:
    """The page without its fenced blocks (a `#` line in a block is no heading)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its rendered text lower-cased, punctuation but `-` and `_`
    dropped, each space a `-`."""
    rendered = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    rendered = re.sub(r"<[^>]+>", "", rendered)
    return re.sub(r"[^\w\- ]", "", rendered.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings (a repeated heading's get `-1`, `-2`, …) and of its `<a id>`s."""
    text = page.read_text(encoding="utf-8")
    found: set[str] = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(without_code(text)):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def anchored_links(page: Path) -> list[tuple[str, Path, str]]:
    """The page's relative links that name an anchor: (the link as written, the page it names,
    the anchor)."""
    links = []
    for target in LINK.findall(without_code(page.read_text(encoding="utf-8"))):
        if "://" in target or target.startswith("mailto:") or "#" not in target:
            continue
        path, _, anchor = target.partition("#")
        links.append((target, (page.parent / path).resolve() if path else page, anchor))
    return links
