"""Seeded random images, as the original study's inference benchmark used: timing does not depend on content."""
from __future__ import annotations

import numpy as np

from ..report import note


def prepare(hp=None) -> dict:
    return {"source": "seeded random images"}


def load(hp, layout: str = "NCHW") -> np.ndarray:
    """(batches + 1) * batch_size images of image_size², float32, standard-normal; the first batch is the warm-up."""
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"layout must be 'NCHW' or 'NHWC', not {layout!r}")
    n = (hp.batches + 1) * hp.batch_size
    shape = (n, 3, hp.image_size, hp.image_size) if layout == "NCHW" else (n, hp.image_size, hp.image_size, 3)
    note(data_source=f"seeded random images ({n} of {hp.image_size}x{hp.image_size}x3, seed {hp.seed})")
    return np.random.default_rng(hp.seed).standard_normal(shape, dtype=np.float32)
