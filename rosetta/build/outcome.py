"""How a measured thing (a benchmark row, a lesson row, an equivalence worker) ended.

An Outcome is a str, so the stored JSON keeps the same strings and results read back from a file (plain
strings) compare equal to it.
"""
from __future__ import annotations

from enum import Enum


class Outcome(str, Enum):     # noqa: UP042 (as the issue asks; __str__ below gives StrEnum's formatting)
    OK = "ok"
    FAILED = "failed"                  # the code raised, or its kernel died
    TIMEOUT = "timeout"                # a cell ran past --timeout
    NOT_INSTALLED = "not-installed"    # its environment could not be set up
    SNIPPET_ERROR = "snippet-error"    # its script cannot be parsed or is misaligned with the others
    DATA_ERROR = "data-error"          # its data set could not be prepared
    NEEDS_GPU = "needs-gpu"            # a GPU lesson on a machine without one
    NO_ADAPTER = "no-adapter"          # an equivalence check's row without an adapter

    def __str__(self) -> str:          # (f-strings and logs show the word, not the member's name)
        return self.value


# Outcomes that may not happen again (a download cut off, a busy machine): the next build tries them again.
RETRIED = (Outcome.FAILED, Outcome.TIMEOUT)

# Outcomes that --strict counts, and that the failure summary at the end of a build names.
BAD = (Outcome.FAILED, Outcome.TIMEOUT, Outcome.NOT_INSTALLED, Outcome.SNIPPET_ERROR, Outcome.DATA_ERROR)
