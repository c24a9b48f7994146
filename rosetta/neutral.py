"""Framework-neutral weights and batches for the equivalence checks (numpy only).

An example that can be checked has ``snippets/<example>/equivalence/weights.toml``: the
names, shapes and layout conventions of its tensors, the seeded initial values, the input
batches and the tolerances. Every framework's adapter in the same folder maps exactly these
tensors into and out of the model its snippet builds. This module runs on both sides: in the
docs environment (which makes the files) and in each framework's environment (which reads them).
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SPEC_FILE = "weights.toml"
# Set by the equivalence checks: the batches file a snippet's data step reads under `data = "neutral"`.
BATCHES_VARIABLE = "ROSETTA_NEUTRAL_BATCHES"


class SpecError(ValueError):
    """A weights.toml that cannot be used, or weights that do not match it."""


INITS = ("glorot_uniform", "he_uniform", "uniform")
PROFILE_KEYS = {"steps", "forward_batch"}    # what a profile's table in weights.toml may change


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    init: str                 # one of INITS
    scale: float = 0.1        # for "uniform": values in [low, high], by default [-scale, scale]
    fan: tuple[int, int] = (0, 0)   # for the Glorot and He inits: (fan_in, fan_out) in the neutral layout
    low: float | None = None
    high: float | None = None
    # For the operation count: a kernel multiplies its inputs at `positions` places per sample (output
    # pixels of a convolution, time steps of a recurrence, 1 for a dense layer); 0 for tensors that
    # are not multiplied (biases, an embedding's lookup, batch-norm parameters).
    positions: int = 0
    input_grad: bool = True   # training also sends the gradient back to its input (not so for the first layer)


@dataclass(frozen=True)
class Spec:
    folder: Path
    tensors: tuple[Tensor, ...]
    conventions: tuple[str, ...]
    inputs: dict              # kind ("images" | "tokens"), shape without the batch, classes
    steps: int                # optimizer steps compared
    forward_batch: int
    batch_size: int
    overrides: dict           # settings during the checks (dropout 0)
    tolerance: dict           # logits (abs), loss (rel), weights (abs)
    notes: tuple[dict, ...] = field(default_factory=tuple)

    def names(self) -> list[str]:
        return [t.name for t in self.tensors]


def _dimension(value, hp: dict) -> int:
    """A shape entry: an int, a setting name, or "k*name" (e.g. "3*hidden_size")."""
    if isinstance(value, int):
        return value
    factor, _, name = value.rpartition("*")
    if name not in hp:
        raise SpecError(f"shape entry {value!r}: no setting {name!r}")
    return int(factor or 1) * int(hp[name])


def load_spec(folder: Path, hp: dict) -> Spec:
    """Read `folder/weights.toml`, resolving shape entries against the settings `hp`."""
    try:
        meta = tomllib.loads((folder / SPEC_FILE).read_text())
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{folder / SPEC_FILE}: {exc}") from None
    entries = list(meta.get("tensor", ()))
    if "resnet" in meta:
        entries += resnet_tensors(**meta["resnet"], image_size=int(hp.get("image_size", 224)))
    tensors = []
    for entry in entries:
        shape = tuple(_dimension(d, hp) for d in entry["shape"])
        init = entry.get("init", "uniform")
        if init not in INITS:
            raise SpecError(f"{entry['name']}: unknown init {init!r}")
        fan = tuple(_dimension(d, hp) for d in entry.get("fan", (0, 0)))
        tensors.append(Tensor(entry["name"], shape, init, float(entry.get("scale", 0.1)), fan,
                              entry.get("low"), entry.get("high"), _dimension(entry.get("positions", 0), hp),
                              bool(entry.get("input_grad", True))))
    # A profile may compare fewer steps or images (`[profiles.smoke]`), as it runs fewer batches.
    sized = dict(meta.get("profiles", {}).get(hp.get("profile"), {}))
    if set(sized) - PROFILE_KEYS:
        raise SpecError(f"{folder / SPEC_FILE}: [profiles.{hp.get('profile')}] may set only "
                        f"{', '.join(sorted(PROFILE_KEYS))}, not {', '.join(sorted(set(sized) - PROFILE_KEYS))}")
    sized = {**meta, **sized}
    overrides = dict(meta.get("overrides", {}))
    inputs = dict(meta["inputs"])
    inputs["shape"] = [_dimension(d, hp) for d in inputs["shape"]]
    if "vocabulary" in inputs:
        inputs["vocabulary"] = _dimension(inputs["vocabulary"], hp)
    return Spec(folder=folder, tensors=tuple(tensors), conventions=tuple(meta.get("conventions", ())),
                inputs=inputs, steps=int(sized.get("steps", 20)),
                forward_batch=int(sized.get("forward_batch", 64)),
                batch_size=int(overrides.get("batch_size", hp["batch_size"])),
                overrides=overrides, tolerance=dict(meta["tolerance"]),
                notes=tuple(_note(n) for n in meta.get("note", ())))


NOTE_KEYS = {"title", "text", "frameworks", "against", "change", "batches", "weights_tolerance",
             "different_function"}


def _note(entry: dict) -> dict:
    """A difference between frameworks, explained; with `against` it is also measured: the note's
    frameworks run again with `change` (code after the snippet's steps) and/or other `batches`."""
    unknown = set(entry) - NOTE_KEYS
    if unknown or not {"title", "text", "frameworks"} <= set(entry):
        raise SpecError(f"note {entry.get('title', '?')!r}: needs title, text, frameworks; "
                        f"unknown keys {sorted(unknown)}")
    if entry.get("batches", "random") not in BATCH_KINDS:
        raise SpecError(f"note {entry['title']!r}: unknown batches {entry['batches']!r}")
    return dict(entry)


def resnet_tensors(blocks: list[int], width: int = 64, expansion: int = 4, image_size: int = 224) -> list[dict]:
    """A bottleneck ResNet's tensors under torchvision's state_dict names (v1 and v1.5 share them):
    convolutions without biases, each followed by batch normalisation (weight = gamma, bias = beta,
    running_mean, running_var). Kernels He-uniform, so activations keep their scale through the net."""
    def conv(name, out_channels, in_channels, size, positions):
        fan_in = in_channels * size * size
        return [{"name": f"{name}.weight", "shape": [out_channels, in_channels, size, size],
                 "init": "he_uniform", "fan": [fan_in, out_channels * size * size], "positions": positions,
                 "input_grad": name != "conv1"}]

    def batch_norm(name, channels):
        return [{"name": f"{name}.weight", "shape": [channels], "low": 0.8, "high": 1.2},
                {"name": f"{name}.bias", "shape": [channels], "low": -0.1, "high": 0.1},
                {"name": f"{name}.running_mean", "shape": [channels], "low": -0.1, "high": 0.1},
                {"name": f"{name}.running_var", "shape": [channels], "low": 0.5, "high": 1.5}]

    # Output positions for an input of image_size: conv1 (stride 2) halves it, the max-pool halves it
    # again, and each later stage halves it in its first block. v1 (the neutral variant) does so in that
    # block's first 1x1 convolution, so every convolution of a stage works at the stage's output size.
    side = image_size // 2
    entries = conv("conv1", width, 3, 7, side * side) + batch_norm("bn1", width)
    side //= 2
    in_channels = width
    for stage, count in enumerate(blocks, 1):
        mid = width * 2 ** (stage - 1)
        out = mid * expansion
        here = side // 2 ** (stage - 1)
        for block in range(count):
            prefix = f"layer{stage}.{block}"
            entries += conv(f"{prefix}.conv1", mid, in_channels, 1, here * here) + batch_norm(f"{prefix}.bn1", mid)
            entries += conv(f"{prefix}.conv2", mid, mid, 3, here * here) + batch_norm(f"{prefix}.bn2", mid)
            entries += conv(f"{prefix}.conv3", out, mid, 1, here * here) + batch_norm(f"{prefix}.bn3", out)
            if block == 0:
                entries += conv(f"{prefix}.downsample.0", out, in_channels, 1, here * here)
                entries += batch_norm(f"{prefix}.downsample.1", out)
            in_channels = out
    return entries


def operations(spec: Spec) -> dict[str, int]:
    """Floating-point operations per sample, framework-neutral: each kernel's multiply-adds (counted as
    two operations) at each of its positions, as framework FLOP counters count matrix products and
    convolutions; elementwise work (activations, pooling, biases, normalisation) is left out. Training
    is the forward pass plus, per kernel, its weight gradient and, unless it is the first layer, its
    input gradient: the same products again."""
    forward = sum(2 * int(np.prod(t.shape)) * t.positions for t in spec.tensors)
    backward = sum((2 + 2 * t.input_grad) * int(np.prod(t.shape)) * t.positions for t in spec.tensors)
    return {"forward": forward, "train": forward + backward}


def initial_weights(spec: Spec, seed: int) -> dict[str, np.ndarray]:
    """Seeded float32 values for every tensor; biases are non-zero so a lost bias shows."""
    rng = np.random.default_rng(seed)
    weights = {}
    for t in spec.tensors:
        if t.init == "glorot_uniform":
            low = -(high := np.sqrt(6.0 / (t.fan[0] + t.fan[1])))
        elif t.init == "he_uniform":
            low = -(high := np.sqrt(6.0 / t.fan[0]))
        else:
            low, high = (t.low if t.low is not None else -t.scale), (t.high if t.high is not None else t.scale)
        weights[t.name] = rng.uniform(low, high, size=t.shape).astype(np.float32)
    return weights


BATCH_KINDS = ("random", "distinct_tokens")


def batches(spec: Spec, seed: int, kind: str = "random") -> dict[str, np.ndarray]:
    """The forward batch and the training batches (in order), the same for every framework.

    "distinct_tokens": no token repeats within a training batch (a note's experiment: it
    isolates what a framework does with repeated rows of the embedding's gradient).
    """
    if kind not in BATCH_KINDS:
        raise SpecError(f"unknown batches {kind!r}: use one of {', '.join(BATCH_KINDS)}")
    rng = np.random.default_rng(seed + 1)
    shape, classes, n = tuple(spec.inputs["shape"]), int(spec.inputs["classes"]), spec.batch_size

    def inputs(count):
        if spec.inputs["kind"] == "images":       # standardised pixels: roughly what the data step makes
            return rng.standard_normal((count, *shape)).astype(np.float32)
        if spec.inputs["kind"] == "tokens":
            return rng.integers(0, int(spec.inputs["vocabulary"]), size=(count, *shape), dtype=np.int32)
        raise SpecError(f"unknown input kind {spec.inputs['kind']!r}")

    out = {"forward_x": inputs(spec.forward_batch),
           "train_x": inputs(spec.steps * n).reshape(spec.steps, n, *shape),
           "train_y": rng.integers(0, classes, size=(spec.steps, n), dtype=np.int32)}
    if kind == "distinct_tokens":
        vocabulary, per_batch = int(spec.inputs.get("vocabulary", 0)), n * int(np.prod(shape))
        if spec.inputs["kind"] != "tokens" or per_batch > vocabulary:
            raise SpecError(f"distinct_tokens needs token inputs and at most {vocabulary} tokens per batch")
        out["train_x"] = np.stack([rng.permutation(vocabulary)[:per_batch].reshape(n, *shape)
                                   for _ in range(spec.steps)]).astype(np.int32)
    return out


def nudged(weights: dict[str, np.ndarray], seed: int) -> dict[str, np.ndarray]:
    """Every value moved by one float32 ulp, up or down at random: the rounding-noise experiment."""
    rng = np.random.default_rng(seed + 2)
    return {name: np.nextafter(value, np.where(rng.random(value.shape) < 0.5, np.inf, -np.inf)
                               .astype(np.float32)) for name, value in weights.items()}


def check_weights(spec: Spec, weights: dict[str, np.ndarray], where: str) -> None:
    """Same names, shapes and dtype as the spec, or one message saying what differs."""
    missing = [n for n in spec.names() if n not in weights]
    extra = [n for n in weights if n not in spec.names()]
    wrong = [f"{t.name} {tuple(weights[t.name].shape)} (expected {t.shape})" for t in spec.tensors
             if t.name in weights and tuple(weights[t.name].shape) != t.shape]
    if missing or extra or wrong:
        parts = [f"missing {missing}" if missing else "", f"unexpected {extra}" if extra else "",
                 f"wrong shapes: {', '.join(wrong)}" if wrong else ""]
        raise SpecError(f"{where}: " + "; ".join(p for p in parts if p))


def data_step_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What a data loader returns under the setting `data = "neutral"`: the checks' training batches in
    their order as the training set (so a train cell that does not shuffle sees exactly them), and the
    forward batch as the test set (labels 0)."""
    path = os.environ.get(BATCHES_VARIABLE)
    if not path:
        raise RuntimeError(f'data = "neutral" is for the equivalence checks, which set {BATCHES_VARIABLE}')
    arrays = load(Path(path))
    x_train = arrays["train_x"].reshape(-1, *arrays["train_x"].shape[2:])
    y_train = arrays["train_y"].reshape(-1)
    x_test = arrays["forward_x"]
    return x_train, y_train, x_test, np.zeros(len(x_test), dtype=np.int32)


def save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    np.savez(path, **arrays)


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in data.files}
