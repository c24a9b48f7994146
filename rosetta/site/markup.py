"""The bottom layer of the site side: MyST markup and the Writer that puts pages under docs/_gen/.

Text in, text out: fences, escaping, numbers and times as the pages print them, the names of generated
documents. It knows nothing of results folders, lessons or pages; every page kind builds on it.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..build.files import write_atomically
from ..build.outcome import Outcome
from ..build.store import without_local_paths
from ..report import MIME_TYPE

GENERATED = "_gen"            # docs/_gen/, see Project.generated
MAX_OUTPUT_LINES = 40
STATUS_TEXT = {Outcome.FAILED: "failed", Outcome.TIMEOUT: "timed out", Outcome.NOT_INSTALLED: "not installed",
               Outcome.SNIPPET_ERROR: "snippet error", Outcome.DATA_ERROR: "data missing"}


class Writer:
    """Writes files under a root only when changed; removes what was not written this time."""

    def __init__(self, root: Path):
        self.root = root
        self.produced: set[Path] = set()
        self.changed = 0

    def write(self, relative: str, content: str | bytes) -> None:
        path = self.root / relative
        data = content.encode() if isinstance(content, str) else content
        self.produced.add(path)
        if path.exists() and path.read_bytes() == data:
            return
        write_atomically(path, data)
        self.changed += 1

    def finish(self) -> int:
        if self.root.exists():
            for path in sorted(self.root.rglob("*"), reverse=True):
                if path.is_file() and path not in self.produced:
                    path.unlink()
                    self.changed += 1
                elif path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
        return self.changed


# --- small formatting helpers -------------------------------------------------------------------

def fence(text: str, language: str = "") -> str:
    """A backtick fence longer than any backtick run inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&{}$#])")


def escape(text: str) -> str:
    """A message shown as written: no character of it read as markup (`<class>` would be an HTML tag,
    `__init__` bold, `[x]` a link). CommonMark lets any ASCII punctuation be escaped with a backslash."""
    return MARKDOWN_SPECIALS.sub(r"\\\1", text)


def cell_text(value: str) -> str:
    """Make a message safe for one cell of a markdown table: one line, escaped."""
    return escape(" ".join(value.split()))


def seconds(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def time_summary(summary: dict) -> str:
    text = f"{seconds(summary['median'])} s"
    if len(summary["runs"]) > 1:
        text += f" (median of {len(summary['runs'])}; {seconds(summary['min'])}–{seconds(summary['max'])})"
    return text


def sizes_text(sizes: dict) -> str:
    parts = [f"{key.replace('_', ' ')} {value:,}" if isinstance(value, int) else f"{key} {value}"
             for key, value in sizes.items()]
    return ", ".join(parts)


def traceback_label(example: str, framework: str) -> str:
    return f"traceback-{example}-{framework}"


def notebook_doc(example: str, framework: str) -> str:
    """Path of a notebook page under docs/_gen/ (without suffix)."""
    return f"notebooks/{example}/{framework}"


def doc_link(relative: str) -> str:
    """Absolute Sphinx document name of a generated page."""
    return f"/{GENERATED}/{relative}"


def outputs_text(cells: list) -> str:
    """What the step printed: streams, plain-text results, error lines."""
    chunks = []
    for cell in cells:
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "stream":
                chunks.append(output.get("text", ""))
            elif kind in ("execute_result", "display_data"):
                data = output.get("data", {})
                if "text/plain" in data:
                    chunks.append(data["text/plain"] + "\n")
                if any(key.startswith("image/") for key in data):
                    chunks.append("(a figure: see the full notebook)\n")
            elif kind == "error":
                chunks.append(f"{output.get('ename')}: {output.get('evalue')}\n")
    lines = without_local_paths("".join(chunks)).rstrip("\n").splitlines()
    if len(lines) > MAX_OUTPUT_LINES:
        hidden = len(lines) - MAX_OUTPUT_LINES
        lines = lines[:MAX_OUTPUT_LINES] + [f"… {hidden} more lines in the full notebook"]
    return "\n".join(lines)



def metric_text(value, style: str) -> str:
    if value is None:
        return ""
    if style == "percent":
        return f"{value:.2%}"
    if style == "percent1":
        return f"{value:.1%}"
    if style == "int":
        return f"{value:,.0f}"
    if style == "float2":
        return f"{value:.2f}"
    return cell_text(str(value))



def table_row(cells) -> str:
    return "| " + " | ".join(cells) + " |"


def without_build_outputs(notebook) -> None:
    """A notebook as a reader downloads it: the report output's own MIME type is for the build (the page shows
    its text line), and printed paths lose the measuring machine's folders."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(MIME_TYPE, None)
            if output.get("output_type") == "stream":
                output["text"] = without_local_paths(output.get("text", ""))
