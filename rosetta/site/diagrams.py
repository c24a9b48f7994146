"""Network diagrams of the benchmark pages: each example's model as a Graphviz graph (DOT text), drawn
by Sphinx's own graphviz extension at build time.

The graph is read from the example's framework-neutral description, the one the equivalence checks
load into every tab (``snippets/<example>/equivalence/weights.toml``, read by rosetta/neutral.py): its
tensors give every layer (a kernel and its bias, a batch normalisation folded into the convolution
before it) and, with each kernel's ``positions`` (the places per sample it is applied), every output
shape and stride. What tensors cannot show, the steps between the layers (activations, pooling,
dropout), is said per example in ``BETWEEN`` below; a pooling step's output size is checked against
the layer after it, so the table cannot drift from the description. An example missing from the
table still gets its layers, with strides, a pooling before a dense layer and the flattening inferred
from the shapes.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from .. import neutral
from ..build.equivalence import has_checks, spec_folder
from ..project import Example, Project
from ..settings import settings


class DiagramError(ValueError):
    """A neutral description this module cannot draw, or a BETWEEN entry that contradicts it."""


# Per example: layer name -> the steps after it, in order ("{setting}" is the example's setting).
# A pooling step or "last time step" changes the shape and gets its own box; the other steps are folded
# into the box before them. "end": the steps after the last layer.
BETWEEN = {
    "cnn_cifar10": {
        "conv1": ["ReLU"],
        "conv2": ["max-pool 2×2", "ReLU", "dropout {dropout_conv}"],
        "conv3": ["ReLU"],
        "conv4": ["max-pool 2×2", "ReLU", "dropout {dropout_conv}"],
        "fc1": ["ReLU", "dropout {dropout_dense}"],
    },
    "gru_imdb": {"gru": ["last time step"]},
    "resnet50_features": {"conv1": ["ReLU", "max-pool 3×3, stride 2"], "end": ["global average pool"]},
}
# Per example: what the boxes leave out, for the caption.
NOTES = {
    "resnet50_features": "Batch normalisation and ReLU follow every convolution; each bottleneck adds its "
                         "input (or the shortcut's projection of it) before its last ReLU. Strides as in v1, "
                         "the neutral description's variant (torchvision's v1.5 moves each stride 2 of a "
                         "bottleneck to its 3×3 convolution).",
}

POOL = re.compile(r"(?:max|average)-pool (\d+)×\1(?:, stride (\d+))?$")
GATES = {1: "RNN", 3: "GRU", 4: "LSTM"}        # a recurrent kernel's width in units of its hidden size
BLOCK = re.compile(r"^([A-Za-z_]+\d*\.\d+)\.")  # torchvision's numbered blocks: layer1.0.conv1 -> layer1.0
KIND_STYLE = {   # fill colours: convolutions, dense and recurrent layers, the rest (light; dark mode inverts)
    "conv": "#dbe8f7", "block": "#dbe8f7", "dense": "#f7e6c4", "recurrent": "#f7e6c4", "embedding": "#f7e6c4",
    "pool": "#e8e8e8", "flatten": "#e8e8e8", "step": "#e8e8e8",
}


@dataclass
class Box:
    """One node: a layer (or a merged run of identical blocks) and the shape of its output."""
    name: str                 # the spec's layer name (the SVG shows it on hover)
    kind: str                 # input, conv, block, dense, embedding, recurrent, pool, flatten, step
    label: list[str]          # lines; the steps folded into it join the first
    shape: tuple[int, ...]    # (height, width, channels), (time steps, features) or (features,)
    note: str = ""            # after the shape: "(logits)"
    count: int = 1            # identical blocks merged into this box
    convolutions: int = 0     # convolutions inside (a block's, with its shortcut)


def shape_text(shape: tuple[int, ...]) -> str:
    return "×".join(f"{n:,}" for n in shape)


def conv_text(kernel: neutral.Tensor, stride: int) -> str:
    out, _, height, width = kernel.shape
    return f"{height}×{width}, {out:,}" + (f", stride {stride}" if stride > 1 else "")


def side_of(tensor: neutral.Tensor) -> int:
    side = math.isqrt(tensor.positions)
    if side * side != tensor.positions:
        raise DiagramError(f"{tensor.name}: {tensor.positions} positions is not a square map")
    return side


def stride_between(before: int, after: int, where: str) -> int:
    if after <= 0 or before % after:
        raise DiagramError(f"{where}: a {before}×{before} map cannot become {after}×{after}")
    return before // after


def group_layers(spec: neutral.Spec) -> dict[str, dict[str, neutral.Tensor]]:
    """Layer name -> its tensors by role ("kernel", "bias", "running_mean"...), in the spec's order."""
    layers: dict[str, dict[str, neutral.Tensor]] = {}
    for tensor in spec.tensors:
        layer, _, role = tensor.name.rpartition(".")
        layers.setdefault(layer or tensor.name, {})[role if layer else ""] = tensor
    return layers


def kernel_of(tensors: dict[str, neutral.Tensor]) -> neutral.Tensor | None:
    return tensors.get("kernel") or tensors.get("weight")


def boxes(spec: neutral.Spec, between: dict[str, list[str]], hp: dict) -> list[Box]:
    """The diagram's boxes, from the input to the last layer (and the steps after it)."""
    inputs = spec.inputs
    if inputs["kind"] == "images":
        channels, height, width = inputs["shape"]
        shape = (height, width, channels)
        out = [Box("input", "input", ["images"], shape)]
    else:
        shape = tuple(inputs["shape"])
        out = [Box("input", "input", ["word ids" if inputs["kind"] == "tokens" else inputs["kind"]], shape)]
    layers = group_layers(spec)
    names = list(layers)
    index = 0
    while index < len(names):
        name = names[index]
        block = BLOCK.match(name)
        if block:           # every layer of a numbered block: one box
            members = [n for n in names[index:] if n.startswith(block.group(1) + ".")]
            box = block_box(block.group(1), {n: layers[n] for n in members}, out[-1].shape)
            index += len(members)
        else:
            box = layer_box(name, layers[name], out[-1].shape, out)
            index += 1
            # A batch normalisation right after a convolution: folded into its box, before its steps.
            while box.kind == "conv" and index < len(names) and "running_mean" in layers[names[index]]:
                box.label[0] += " · BN"
                name = names[index]
                index += 1
        append(out, box)
        after(out, [*between.get(box.name, []), *(between.get(name, []) if name != box.name else [])], hp,
              layers, names[index] if index < len(names) else None)
    after(out, between.get("end", []), hp, layers, None)
    if inputs.get("classes") and out[-1].kind == "dense" and out[-1].shape == (inputs["classes"],):
        out[-1].note = "logits"
    return out


def append(out: list[Box], box: Box) -> None:
    """Add a box; a block identical to the one before (same layers, same shape) is merged into it."""
    last = out[-1]
    if box.kind == "block" and last.kind == "block" and (last.label, last.shape) == (box.label, box.shape):
        last.count += 1
        last.convolutions += box.convolutions
        last.name = f"{last.name.split('–')[0]}–{box.name.rsplit('.', 1)[-1]}"
        return
    out.append(box)


def layer_box(name: str, tensors: dict[str, neutral.Tensor], shape: tuple[int, ...], out: list[Box]) -> Box:
    kernel = kernel_of(tensors)
    if "running_mean" in tensors:               # (one right after a convolution is folded into it)
        raise DiagramError(f"{name}: a batch normalisation that follows no convolution")
    if "input_kernel" in tensors and "recurrent_kernel" in tensors:
        inputs, width = tensors["input_kernel"].shape
        hidden = tensors["recurrent_kernel"].shape[0]
        if len(shape) != 2 or shape[1] != inputs:
            raise DiagramError(f"{name}: takes {inputs} features per step, gets {shape_text(shape)}")
        cell = GATES.get(width // hidden, f"{width // hidden}-gate recurrent layer")
        return Box(name, "recurrent", [f"{cell}, {hidden:,} units"], (shape[0], hidden))
    if kernel is None and "" in tensors and len(tensors[""].shape) == 2 and not tensors[""].positions:
        vocabulary, size = tensors[""].shape
        return Box(name, "embedding", [f"{name} {vocabulary:,} × {size:,}"], (*shape, size))
    if kernel is not None and len(kernel.shape) == 4:
        if len(shape) != 3 or shape[2] != kernel.shape[1]:
            raise DiagramError(f"{name}: takes {kernel.shape[1]} channels, gets {shape_text(shape)}")
        side = side_of(kernel)
        stride = stride_between(shape[0], side, name)
        return Box(name, "conv", [f"conv {conv_text(kernel, stride)}"], (side, side, kernel.shape[0]),
                   convolutions=1)
    if kernel is not None and len(kernel.shape) == 2:
        inputs, outputs = kernel.shape
        if len(shape) == 3:                     # a feature map before a dense layer: flattened
            pooled = flatten_side(shape, inputs, name)
            if pooled != shape[0]:
                append(out, Box(f"pool before {name}", "pool", [f"pool {shape[0] // pooled}×{shape[0] // pooled}"],
                                (pooled, pooled, shape[2])))
            append(out, Box(f"flatten before {name}", "flatten", ["flatten"], (inputs,)))
        elif shape != (inputs,):
            raise DiagramError(f"{name}: takes {inputs} features, gets {shape_text(shape)}")
        return Box(name, "dense", [f"dense {outputs:,}"], (outputs,))
    raise DiagramError(f"{name}: tensors {sorted(tensors)} are no layer this module knows")


def flatten_side(shape: tuple[int, ...], inputs: int, name: str) -> int:
    """The map's side when a dense layer of `inputs` flattens it (smaller when a pooling came first)."""
    side = math.isqrt(inputs // shape[2]) if inputs % shape[2] == 0 else 0
    if side * side * shape[2] != inputs or side == 0 or shape[0] % side:
        raise DiagramError(f"{name}: takes {inputs} inputs, which no pooling of {shape_text(shape)} flattens to")
    return side


def block_box(block: str, layers: dict[str, dict[str, neutral.Tensor]], shape: tuple[int, ...]) -> Box:
    """A residual block: its main path's convolutions, and its shortcut's projection if it has one."""
    main, shortcut, side, convolutions = [], [], shape[0], 0
    for name, tensors in layers.items():
        kernel = kernel_of(tensors)
        if "running_mean" in tensors or kernel is None:
            continue                            # batch normalisations: said once, in the caption
        if len(kernel.shape) != 4:
            raise DiagramError(f"{name}: a block of convolutions has a {len(kernel.shape)}-d kernel")
        convolutions += 1
        if ".downsample." in name or ".shortcut." in name:
            shortcut.append(conv_text(kernel, stride_between(shape[0], side_of(kernel), name)))
            continue
        stride = stride_between(side, side_of(kernel), name)
        side = side_of(kernel)
        main.append(conv_text(kernel, stride))
        channels = kernel.shape[0]
    sizes = [text.split(",")[0] for text in main]
    kind = "bottleneck" if sizes == ["1×1", "3×3", "1×1"] else "residual block"
    label = [f"{kind}: " + " · ".join(main)] + ([f"shortcut: {' · '.join(shortcut)}"] if shortcut else [])
    return Box(block, "block", label, (side, side, channels), convolutions=convolutions)


def after(out: list[Box], steps: list[str], hp: dict, layers: dict, following: str | None) -> None:
    """The steps after a layer: a pooling or the last time step gets a box of its own, checked against
    the layer that follows; the others are folded into the box before them."""
    for text in (step.format(**hp) for step in steps):
        box, shape = out[-1], out[-1].shape
        pool = POOL.match(text)
        if pool:
            stride = int(pool.group(2) or pool.group(1))
            side = shape[0] // stride
            expected = expected_side(layers, following)
            if expected is not None and expected != side:
                raise DiagramError(f"{text} after {box.name} gives {side}×{side}, but {following} works at "
                                   f"{expected}×{expected}")
            out.append(Box(f"{text} after {box.name}", "pool", [text], (side, side, shape[2])))
        elif text == "global average pool":
            out.append(Box(text, "pool", [text], (shape[-1],)))
        elif text == "last time step":
            out.append(Box(text, "step", ["output at the last time step"], (shape[-1],)))
        else:
            box.label[0] += f" · {text}"


def expected_side(layers: dict, following: str | None) -> int | None:
    """The map side the next convolution works at (a block's first), or None when it is no convolution."""
    if following is None:
        return None
    kernel = kernel_of(layers[following])
    if kernel is None or len(kernel.shape) != 4:
        return None
    return side_of(kernel) if not BLOCK.match(following) else None


def parameters(spec: neutral.Spec) -> int:
    """Trained numbers (batch normalisation's running statistics are not trained)."""
    return sum(math.prod(t.shape) for t in spec.tensors if not t.name.endswith(("running_mean", "running_var")))


FONT_SIZE = 11


@functools.cache
def _font():
    from matplotlib import font_manager, ft2font  # (matplotlib carries DejaVu Sans)
    font = ft2font.FT2Font(font_manager.findfont("DejaVu Sans"))
    font.set_size(FONT_SIZE, 72)
    return font


def text_width(line: str) -> float:
    """Points that a line takes in DejaVu Sans, the widest of the usual sans-serif fonts and the one a
    Linux browser falls back to: dot only has Helvetica's metrics (and none for ×), so the boxes are
    sized here, wide enough for either."""
    font = _font()
    font.set_text(line)
    return font.get_width_height()[0] / 64


def dot(example_name: str, found: list[Box]) -> str:
    """The DOT text: top to bottom (narrow: it fits a phone), light boxes on a transparent background."""
    lines = [f'digraph "{example_name}" {{',
             '  graph [bgcolor="transparent", rankdir=TB, nodesep=0.2, ranksep=0.22, fontname="Helvetica"];',
             # Helvetica is the font dot has metrics for; the SVG names it with sans-serif as the fallback.
             '  node [shape=box, style="rounded,filled", color="#5b6b80", fontname="Helvetica", '
             f'fontsize={FONT_SIZE}, margin="0.12,0.06", penwidth=0.8];',
             '  edge [color="#5b6b80", arrowsize=0.6, penwidth=0.8];']
    for box in found:
        texts = [text.replace('"', "'") for text in box.label] + [shape_line(box)]
        if box.count > 1:
            texts[0] = f"{box.count} × {texts[0]}"
        width = (max(map(text_width, texts)) + 2 * 9) / 72        # inches, with the margin
        style = ('shape=plaintext, style=""' if box.kind == "input"
                 else f'fillcolor="{KIND_STYLE.get(box.kind, "#e8e8e8")}"')
        label = "\\n".join(texts)
        lines.append(f'  "{box.name}" [label="{label}", width={width:.2f}, {style}];')
    lines += [f'  "{a.name}" -> "{b.name}";' for a, b in zip(found, found[1:])]
    return "\n".join(lines + ["}"]) + "\n"


def read(project: Project, example: Example, profile: str) -> tuple[neutral.Spec, list[Box], dict]:
    """The example's neutral description under the profile's settings (not the checks' overrides: the
    diagram shows the model as the snippets build it, dropout included) and its boxes."""
    hp = settings(example.name, profile, snippets=project.snippets).as_dict()
    spec = neutral.load_spec(spec_folder(example), hp)
    return spec, boxes(spec, BETWEEN.get(example.name, {}), hp), hp


def shape_line(box: Box) -> str:
    return shape_text(box.shape) + (f" ({box.note})" if box.note else "")


def alt_text(found: list[Box]) -> str:
    return " → ".join((f"{box.count} × " if box.count > 1 else "") + f"{', '.join(box.label)}: {shape_line(box)}"
                      for box in found)


def figure(project: Project, example: Example, profile: str) -> list[str]:
    """The benchmark page's lines: the diagram with its caption, or nothing for an example without a
    neutral description (a description this module cannot draw is a warning on the page)."""
    if not has_checks(example):
        return []
    try:
        spec, found, _ = read(project, example, profile)
    except (DiagramError, neutral.SpecError, KeyError) as exc:
        return ["```{warning}", f"The network diagram could not be drawn: {exc}", "```", ""]
    layout = "height×width×channels" if spec.inputs["kind"] == "images" else "time steps×features"
    caption = (f"The network: one box per layer with the shape of its output ({layout}); "
               f"{parameters(spec):,} parameters. Drawn when this page was built from the model's neutral "
               "description, the tensors that the equivalence checks load into every tab. "
               + NOTES.get(example.name, "")).strip()
    alt = "Diagram of the network, from input to output: " + alt_text(found)
    return ["::::{container} rosetta-network", "", "```{graphviz}", f":alt: {alt}", f":caption: {caption}",
            ":class: rosetta-network", "", dot(example.name, found).rstrip(), "```", "", "::::", ""]
