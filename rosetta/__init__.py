"""Build pipeline and snippet helpers of the deep-learning Rosetta Stone.

Snippets import only ``settings`` and ``report`` from here, plus a data loader from
``rosetta.data``; everything else is the build (see build_docs.py).
"""
from .report import report
from .settings import settings

__all__ = ["report", "settings"]
