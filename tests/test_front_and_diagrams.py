"""The front page's "which one, for what?" matrix and the benchmark pages' network diagrams."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browsing import SCREENSHOTS, Watch, browser_marks
from conftest import REPO

from rosetta.build.environments import EnvStatus
from rosetta.build.lessons import Lesson
from rosetta.project import Project
from rosetta.site import diagrams, front_page, gather
from rosetta.site.gather.common import LessonsInput, SiteInput

DOT = Path(sys.executable).parent / "graphviz-pure"


# --- diagrams: the DOT text of each example ----------------------------------------------------------

def boxes_of(project, example: str) -> list[diagrams.Box]:
    return diagrams.read(project, project.example(example), "cpu")[1]


def summary(found: list[diagrams.Box]) -> list[tuple[str, str]]:
    return [(box.kind, diagrams.shape_line(box)) for box in found]


def test_the_cnn_is_one_box_per_layer_with_its_output_shape(project):
    found = boxes_of(project, "cnn_cifar10")
    assert summary(found) == [
        ("input", "32×32×3"), ("conv", "32×32×50"), ("conv", "32×32×50"), ("pool", "16×16×50"),
        ("conv", "16×16×100"), ("conv", "16×16×100"), ("pool", "8×8×100"), ("flatten", "6,400"),
        ("dense", "512"), ("dense", "10 (logits)")]
    labels = [" ".join(box.label) for box in found]
    assert labels[1] == "conv 3×3, 50 · ReLU" and labels[2] == "conv 3×3, 50"
    # ReLU after the pooling (the snippets' order), dropout at the example's settings
    assert labels[3] == "max-pool 2×2 · ReLU · dropout 0.25" and labels[8] == "dense 512 · ReLU · dropout 0.5"
    text = diagrams.dot("cnn_cifar10", found)
    assert text.count(" -> ") == len(found) - 1 and text.count("[label=") == len(found)
    assert 'label="conv 3×3, 50 · ReLU\\n32×32×50"' in text


def test_resnet_50_has_its_53_convolutions_in_16_bottlenecks(project):
    found = boxes_of(project, "resnet50_features")
    blocks = [box for box in found if box.kind == "block"]
    assert sum(box.count for box in blocks) == 16 == sum([3, 4, 6, 3])
    assert sum(box.convolutions for box in found) == 53, "the stem, 3 per bottleneck, 4 shortcut projections"
    assert summary(found)[:3] == [("input", "224×224×3"), ("conv", "112×112×64"), ("pool", "56×56×64")]
    assert found[1].label == ["conv 7×7, 64, stride 2 · BN · ReLU"]
    assert [diagrams.shape_line(box) for box in blocks] == [
        "56×56×256", "56×56×256", "28×28×512", "28×28×512", "14×14×1,024", "14×14×1,024", "7×7×2,048", "7×7×2,048"]
    assert [box.count for box in blocks] == [1, 2, 1, 3, 1, 5, 1, 2]
    # v1, as the neutral description counts it: the stride 2 in the first 1x1 convolution of a stage
    assert blocks[2].label == ["bottleneck: 1×1, 128, stride 2 · 3×3, 128 · 1×1, 512", "shortcut: 1×1, 512, stride 2"]
    assert summary(found)[-1] == ("pool", "2,048")
    assert '"layer3.1–5" [label="5 × bottleneck' in diagrams.dot("resnet50_features", found)


def test_the_gru_reads_its_embedding_recurrence_and_last_step(project):
    found = boxes_of(project, "gru_imdb")
    assert [(box.label[0], diagrams.shape_line(box)) for box in found] == [
        ("word ids", "150"), ("embedding 30,000 × 125", "150×125"), ("GRU, 100 units", "150×100"),
        ("output at the last time step", "100"), ("dense 2", "2 (logits)")]


def test_a_step_that_contradicts_the_description_is_an_error(project):
    example = project.example("cnn_cifar10")
    spec, _, hp = diagrams.read(project, example, "cpu")
    wrong = {**diagrams.BETWEEN["cnn_cifar10"], "conv2": ["max-pool 4×4"]}
    with pytest.raises(diagrams.DiagramError, match="gives 8×8, but conv3 works at 16×16"):
        diagrams.boxes(spec, wrong, hp)


@pytest.mark.parametrize("example", ["cnn_cifar10", "resnet50_features", "gru_imdb"])
def test_dot_draws_each_diagram_as_svg_with_every_box(project, example):
    if not DOT.exists():
        pytest.skip("graphviz-pure is installed in the build's environment (envs/docs.txt), not in this Python's")
    found = boxes_of(project, example)
    svg = subprocess.run([str(DOT), "-Tsvg"], input=diagrams.dot(example, found), capture_output=True, text=True,
                         check=True).stdout
    assert svg.count('class="node"') == len(found) and svg.count('class="edge"') == len(found) - 1
    for box in found:
        assert diagrams.shape_line(box) in svg
    outside = set(re.findall(r"https?://[^\s\"']+", svg)) - {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink",
                                                            "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"}
    assert not outside, "the drawing fetches nothing"
    assert not re.search(r'fill="(white|#ffffff)"', svg, re.I), "a transparent background, for dark mode"


def test_the_site_configuration_finds_dot_or_says_what_is_missing(tmp_path):
    code = f"import runpy; print(runpy.run_path({str(REPO / 'conf.py')!r})['graphviz_dot'])"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if DOT.exists():
        assert found.returncode == 0 and found.stdout.strip() == str(DOT)
    bare = shutil.which("python3", path="/usr/bin")
    if not bare or (Path(bare).parent / "graphviz-pure").exists():
        pytest.skip("needs a Python without graphviz-pure beside it (the system's /usr/bin/python3)")
    missing = subprocess.run([bare, "-c", code], capture_output=True, text=True, env={"PATH": str(tmp_path)})
    assert missing.returncode != 0 and "graphviz-pure (dot) is not installed" in missing.stderr


# --- the front page's matrix -------------------------------------------------------------------------

MACHINE = {"gpus": [], "cores": 2, "cpu": "EPYC"}


def ok(framework: str, throughput: float, accuracy: float | None = None, **extra) -> dict:
    metrics = {"throughput": throughput, **({"accuracy": accuracy} if accuracy is not None else {})}
    return {"framework": framework, "status": "ok", "metrics": metrics, "steps": {}, "provenance": {}, **extra}


def rows_of(text: str) -> dict[str, list[str]]:
    """Framework label -> its cells (the first is the framework's own)."""
    lines = [line for line in text.splitlines() if line.startswith("| {doc}")]
    cells = [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines]
    return {re.match(r"\{doc\}`(.+?) <", row[0]).group(1): row for row in cells}


def lesson_for(tmp_path: Path) -> Lesson:
    folder = tmp_path / "faster"
    folder.mkdir()
    for name in ("pytorch", "mxnet"):
        (folder / f"{name}.py").write_text("")
    rule = {"claim": "b is faster", "metric": "seconds", "variant": "b", "baseline": "a", "at_least": 1.1}
    return Lesson(name="faster", folder=folder, title="Faster", claim="b is faster", source="",
                  variants={"a": "", "b": ""}, rules=(rule,), profiles={"cpu": {}})


def test_the_matrix_has_every_row_and_says_why_a_cell_is_empty(project, tmp_path):
    frameworks, examples = project.frameworks(), project.examples()
    here = Project(root=REPO, results=tmp_path / "results", extra_results=(tmp_path / "none",))
    own_sizes = {"train_images": 640, "test_images": 500, "epochs": 1}
    current = {"cnn_cifar10": {"pytorch": ok("pytorch", 100, 0.5), "tensorflow": ok("tensorflow", 400, 0.625),
                               "jax": ok("jax", 380, 0.6),
                               "chainer": {"framework": "chainer", "status": "failed", "reason": "boom"},
                               "theano": {"framework": "theano", "status": "not-installed", "reason": "no wheel"},
                               "convnetjs": ok("convnetjs", 4, 0.1, sizes=own_sizes)},
               "resnet50_features": {"pytorch": ok("pytorch", 20)},
               "gru_imdb": {}, "cnn_cifar10_data_parallel": {}}
    envs = {"theano": EnvStatus("theano", ok=False, reason="no wheel")}
    lesson = lesson_for(tmp_path)
    measured = {"faster": {"pytorch": {"status": "ok", "variants": {"a": {"seconds": [2.0, 2.1]},
                                                                        "b": {"seconds": [1.0, 1.1]}}}}}
    text = front_page.matrix_table(gather.front.front_views(SiteInput(
        here, examples, frameworks, current, envs, "cpu", "box", MACHINE,
        lessons=LessonsInput([lesson], measured, [])))[0])
    rows = rows_of(text)
    assert list(rows) == [fw.label for fw in frameworks], "every row, in tab order, installed or not"
    assert text.startswith("Machine: 2-core EPYC, profile `cpu`, this build.")
    assert all(len(row) == 2 + len(examples) for row in rows.values()), "a cell per benchmark, and the lessons"
    cnn, resnet, gru = 1, 2, 3
    assert rows["TensorFlow"][cnn] == "**{ref}`1.0× <cnn_cifar10>`** · 62.5%", "the fastest, in bold"
    assert rows["PyTorch"][cnn] == "{ref}`4.0× <cnn_cifar10>` · 50.0%" and rows["JAX"][cnn].startswith("{ref}`1.05×")
    assert rows["Chainer"][cnn] == "failed"
    assert rows["Theano"][0].endswith("(not installed here)") and rows["Theano"][cnn] == "not installed"
    assert rows["ConvNetJS"][cnn] == "{ref}`100× <cnn_cifar10>` · 10.0%†", "its own sizes: its accuracy is marked"
    assert rows["ConvNetJS"][resnet] == rows["ConvNetJS"][gru] == "no program"
    assert rows["MXNet Module"][resnet] == "no program" and rows["MXNet"][resnet] == "not run"
    assert rows["PyTorch"][resnet] == "**{ref}`1.0× <resnet50_features>`**", "no accuracy where there is none"
    assert all(row[gru] in ("not run", "not installed", "no program") for row in rows.values())
    assert rows["PyTorch"][-1] == "{bdg-success}`holds: 1`" and rows["MXNet"][-1] == "not run: 1"
    assert rows["JAX"][-1] == "no lesson"
    assert sum("1.0×" in cell for row in rows.values() for cell in row) == 2, "only the fastest reads 1.0×"


def test_the_matrix_gives_each_machine_a_line_in_every_cell(project, tmp_path):
    frameworks, examples = project.frameworks(), project.examples()
    shutil.copytree(REPO / "benchmarks" / "reference", tmp_path / "elsewhere")
    here = Project(root=REPO, results=tmp_path / "results", extra_results=(tmp_path / "elsewhere",))
    current = {"cnn_cifar10": {"pytorch": ok("pytorch", 1e6, 0.5)}, "resnet50_features": {}, "gru_imdb": {},
               "cnn_cifar10_data_parallel": {}}
    text = front_page.matrix_table(gather.front.front_views(SiteInput(
        here, examples, frameworks, current, {}, "cpu", "box", MACHINE))[0])
    # The machines with a benchmark's result (one result file names its machine's label), in folder order;
    # which of them hold the CNN's PyTorch row.
    benchmark_files = {machine.name: sorted(path for ex in examples
                                            for path in (machine / "cpu" / ex.name).glob("*.json"))
                       for machine in sorted((tmp_path / "elsewhere").iterdir()) if machine.is_dir()}
    labels = [json.loads(files[0].read_text())["machine_label"] for files in benchmark_files.values() if files]
    with_cnn = [n for n, files in enumerate((f for f in benchmark_files.values() if f), 2)
                if any(path.parent.name == "cnn_cifar10" and path.stem == "pytorch" for path in files)]
    machines = text.split("\n")[0].split("; ")
    assert machines[0] == "Machines: [1] 2-core EPYC, profile `cpu`, this build" and len(machines) == 1 + len(labels)
    for n, (label, line) in enumerate(zip(labels, machines[1:]), 2):
        assert line.startswith(f"[{n}] {label}, profile `cpu`, results folder `elsewhere`, measured "), line
    rows = rows_of(text)
    assert len(next(iter(rows.values()))) == 1 + len(examples), "no lessons: no lessons column"
    first, *others = rows["PyTorch"][1].split("<br>")
    assert first == "[1] **{ref}`1.0× <cnn_cifar10>`** · 50.0%" and len(others) == len(with_cnn) >= 1
    assert all(line.startswith(f"[{n}] {{ref}}`") for n, line in zip(with_cnn, others))
    # each other machine's fastest is its own: each machine compares within itself
    for n in with_cnn:
        assert sum(line.startswith(f"[{n}] **") for row in rows.values() for line in row[1].split("<br>")) == 1
    assert rows["ConvNetJS"][2] == "[1] no program"


# --- the built site ---------------------------------------------------------------------------------

EXAMPLES = ("cnn_cifar10", "resnet50_features", "gru_imdb")


@pytest.mark.envs
@pytest.mark.parametrize("example", EXAMPLES)
def test_each_benchmark_page_shows_its_network_drawn_as_svg(smoke_site, project, example):
    html = smoke_site["output"]
    page = (html / "_gen" / "benchmarks" / f"{example}.html").read_text()
    # (its accessible name: the alt text, conf.py's addition to Sphinx's rendering)
    drawn = re.findall(r'<object role="img" aria-label="Diagram of the network, from input to output: [^"]+" '
                       r'data="\.\./\.\./(_images/graphviz-[0-9a-f]+\.svg)" type="image/svg\+xml" '
                       r'class="graphviz rosetta-network">', page)
    assert len(drawn) == 1, "one diagram per benchmark page"
    svg = (html / drawn[0]).read_text()
    assert "<svg" in svg
    for box in boxes_of(project, example):
        assert diagrams.shape_line(box) in svg
    assert "Diagram of the network, from input to output:" in page, "the text alternative"
    assert "parameters. Drawn when this page was built" in page


@pytest.mark.envs
def test_the_home_page_shows_the_matrix_with_links(smoke_site, project):
    home = (smoke_site["output"] / "index.html").read_text()
    table = home[home.index('class="rosetta-matrix'):]
    table = table[:table.index("</table>")]
    for fw in project.frameworks():
        assert f"_gen/frameworks/{fw.name}.html" in table, fw.name
    for example in EXAMPLES:
        assert f"_gen/benchmarks/{example}.html" in table
    assert table.count("1.0×") >= len(EXAMPLES), "each benchmark's fastest"


# Where each cell's content ends (text included: a range over the cell), against the table's visible edge
# (the table's, or its box's where the box is narrower and scrolls); the box is the selector's.
TABLE_FIT = """(selector) => {
    const box = document.querySelector(selector), table = box.querySelector('table');
    const edge = Math.min(table.getBoundingClientRect().right, box.getBoundingClientRect().right);
    const outside = [];
    for (const cell of table.querySelectorAll('tbody td')) {
        const range = document.createRange();
        range.selectNodeContents(cell);
        if (range.getBoundingClientRect().right > edge + 1) outside.push(cell.innerText.slice(0, 60));
    }
    return {outside, table: table.scrollWidth, box: box.clientWidth, display: getComputedStyle(table).display,
            labels: [...table.querySelectorAll('tbody td')].map(td => td.dataset.label || '')};
}"""


@pytest.mark.parametrize("width, scheme", [pytest.param(*case, marks=browser_marks)
                                           for case in [(1280, "light"), (1400, "dark"), (390, "dark")]])
def test_the_diagram_the_matrix_and_the_lessons_fit_a_phone_and_read_in_dark_mode(server, browser, width, scheme):
    example = "cnn_cifar10"
    page = browser.new_page(viewport={"width": width, "height": 1400}, color_scheme=scheme)   # (the whole figure)
    watch = Watch(page, server)
    page.goto(f"{server}/_gen/benchmarks/{example}.html")
    diagram = page.locator("object.rosetta-network")
    diagram.wait_for()
    box = diagram.bounding_box()
    assert box["width"] > 100 and box["x"] + box["width"] <= width, "scaled down to the column, never wider"
    dark = page.evaluate("getComputedStyle(document.querySelector('object.rosetta-network')).filter")
    assert ("invert" in dark) == (scheme == "dark"), dark
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("div.rosetta-network").screenshot(path=SCREENSHOTS / f"diagram-{example}-{width}-{scheme}.png")
    page.goto(f"{server}/index.html")
    page.wait_for_load_state("networkidle")
    box = page.locator(".rosetta-matrix").bounding_box()
    assert box["x"] + box["width"] <= width, "the matrix stays in the page's column"
    fit = page.evaluate(TABLE_FIT, ".rosetta-matrix")
    assert fit["outside"] == [], f"cells whose content runs past the table's edge at {width} px: {fit['outside']}"
    assert fit["table"] <= fit["box"] + 1, f"the matrix is {fit['table']} px wide in a {fit['box']} px column"
    if width < 540:       # a phone: a block per framework, each cell under its column's name
        assert fit["display"] == "block"
        names = [label for label in fit["labels"] if label]
        assert len(names) == len(fit["labels"]) and any(name.startswith("CNN on") for name in names), fit["labels"]
    else:
        assert fit["display"] == "table"
    page.screenshot(path=SCREENSHOTS / f"matrix-{width}-{scheme}.png", full_page=True)
    # The lessons index: its long verdicts wrap at a desktop width; on a phone a block per claim, as above.
    page.goto(f"{server}/_gen/lessons.html")
    page.wait_for_load_state("networkidle")
    fit = page.evaluate(TABLE_FIT, ".rosetta-lesson-index")
    assert fit["outside"] == [] and fit["table"] <= fit["box"] + 1, (width, fit["outside"], fit["table"], fit["box"])
    assert fit["display"] == ("block" if width < 540 else "table")
    assert not watch.errors and not watch.outside, (watch.errors, watch.outside)
    page.close()

