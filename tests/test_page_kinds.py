"""The site side's page kinds: each gathers its views (the one layer that reads files), then renders them
from the views alone. Fast: the real project's definitions and its reference results, nothing executed."""
from pathlib import Path

import matplotlib
import pytest

from rosetta.build import lessons, store
from rosetta.project import Project
from rosetta.site import benchmark_page, framework_page, gather, pages
from rosetta.site.gather.common import LessonsInput, SiteInput
from rosetta.site.markup import escape

BOX = {"cpu": "Test CPU", "cores": 2, "gpus": []}
READING = ("read_text", "read_bytes", "exists", "open", "glob", "rglob", "iterdir", "is_file", "is_dir")


class Collected:
    """A writer that keeps what the renderers write (and touches no file)."""

    def __init__(self):
        self.files: dict[str, str | bytes] = {}

    def write(self, relative: str, content: str | bytes) -> None:
        self.files[relative] = content


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> SiteInput:
    """This build has no result of its own; the reference results sit beside it (other machines' columns)."""
    project = Project(root=Path(__file__).resolve().parents[1], results=tmp_path_factory.mktemp("results"))
    found, problems = lessons.all_lessons(project)
    examples = project.examples()
    return SiteInput(project, examples, project.frameworks(), {ex.name: {} for ex in examples}, {}, "cpu",
                     "test-box", BOX, {}, LessonsInput(found, {}, problems))


def test_every_page_kind_renders_from_its_view_without_reading_a_file(site, monkeypatch):
    views = [(kind, view) for kind in pages.PAGE_KINDS for view in kind.gather(site)]
    assert {kind.name for kind, _ in views} == {kind.name for kind in pages.PAGE_KINDS}, "every kind has a view"

    def refuse(path, *args, **kwargs):
        raise AssertionError(f"a renderer read {path}")
    assert matplotlib.__version__   # (matplotlib reads its own version file the first time a PNG is saved: not ours)
    writer = Collected()
    with monkeypatch.context() as reading_off:
        for name in READING:
            reading_off.setattr(Path, name, refuse)
        for kind, view in views:
            kind.render(view, writer)
    example, fw = site.examples[0], site.frameworks[0]
    expected = {f"benchmarks/{example.name}.md", f"notebooks/{example.name}/{fw.name}.ipynb",
                f"frameworks/{fw.name}.md", "benchmarks.md", "frameworks.md", "includes/matrix.md",
                "includes/benchmark_list.md", "environments.md", "includes/profiles.md", "includes/provenance.md",
                f"lessons/{site.lessons.lessons[0].name}.md", "lessons.md", "guide.md"}
    assert expected <= set(writer.files)


def test_the_benchmark_view_holds_what_its_page_shows(site):
    example = site.examples[0]
    view = next(view for view in gather.benchmark.benchmark_views(site) if view.example is example)
    assert view.columns.keys[0] == ("test-box", "cpu"), "this build's column first, if empty"
    assert any(len(key) == 3 and key[2] == "reference" for key in view.columns.keys), "the reference results beside it"
    assert view.intro and not view.intro.startswith("# "), "the README without its title"
    assert {group.path.name for group in view.groups} >= {"pytorch.py"} and view.groups[0].steps
    assert view.written == {fw.name for fw in site.frameworks if example.snippet_path(fw).exists()}
    assert view.shown and all(result.get("shown_from") for result in view.shown.values()), \
        "no run of this build: its tabs show other machines' runs, each marked with its machine"
    assert set(view.ran) == set(view.shown)


def test_a_lesson_view_holds_its_code_its_scripts_and_the_other_machines(site):
    view = next(view for view in gather.lessons.lesson_views(site) if view.evidence.groups)
    lesson, rows = view.evidence.lesson, view.evidence.rows
    assert rows and all(lesson.snippet_path(fw).exists() for fw in rows), "its rows: those with a script"
    assert set(view.code) == set(view.scripts) == {fw.name for fw in rows}
    assert all(view.code[fw.name] for fw in rows), "each script's steps, as it stands"
    assert all(script == lesson.snippet_path(fw).read_bytes() for fw in rows for script in [view.scripts[fw.name]])
    assert all(column[2] != "smoke" for column in view.evidence.groups), "smoke runs judge nothing"
    assert view.evidence.current == {} and all(notebook is None for notebook in view.executed.values())


def test_a_notebook_view_without_a_run_anywhere_is_the_program_read_as_a_notebook(site, monkeypatch):
    import dataclasses
    monkeypatch.setattr(store, "all_stored", lambda *args: [])      # (no machine on record holds a result)
    views = gather.notebook.notebook_views(dataclasses.replace(site, column_cache={}))   # (read afresh)
    assert {(v.example.name, v.fw.name) for v in views} == {
        (ex.name, fw.name) for ex in site.examples for fw in site.frameworks if ex.snippet_path(fw).exists()}
    view = views[0]
    assert view.result is None and view.notebook.cells, "no result: the program's own cells"
    assert view.script == view.example.snippet_path(view.fw).name


def test_a_framework_view_gathers_its_environment_fairness_and_guide_entry(site):
    views = {view.fw.name: view for view in gather.framework.framework_views(site)}
    pytorch = views["pytorch"]
    assert pytorch.reason == "not set up", "no environment here"
    assert pytorch.versions and "torch" in pytorch.versions and pytorch.versions_from, \
        "the versions its newest result on another machine recorded, with that machine"
    assert pytorch.history.system is not None and pytorch.history.system.id == "pytorch"
    assert all(entry.entry["framework"] == "pytorch" for entry in pytorch.fairness)
    assert [ex.name for ex, _ in pytorch.notebooks] == [ex.name for ex in site.examples]


@pytest.fixture(scope="module")
def published(site) -> SiteInput:
    """A publishing build's input: its own column is the reference machine's results (the one that measured the
    most rows, as a publishing build takes it), with that machine's rate."""
    import json
    project = site.project
    reference = project.root / "benchmarks" / "reference"
    box = max((folder.name for folder in reference.iterdir() if folder.is_dir()),
              key=lambda name: store.rows_measured(reference / name / "cpu"))
    info = json.loads((reference / box / "machine.json").read_text())
    own = {ex.name: {r["framework"]: r for r in store.all_stored(project, store.BENCHMARK, ex.name)
                     if r["machine"] == box and r["profile"] == "cpu"} for ex in site.examples}
    return SiteInput(project, site.examples, site.frameworks, own, {}, "cpu", box, info, {}, site.lessons)


def test_a_framework_view_says_how_far_each_tab_is_from_the_machine_s_peak(published):
    """The tab's share of the peak is the results table's "% of peak"; tuned is the tuning lessons' fastest
    variant for that row (its speed-up over the lessons' own as-written code); a row without a tuning script
    gets none, and says so."""
    import statistics
    views = {view.fw.name: view for view in gather.framework.framework_views(published)}
    cnn = published.examples[0]
    peak = published.machine_info["float32_matmul"]
    for name, view in views.items():
        ceiling = next((c for c in view.ceilings if c.example is cnn), None)
        if ceiling is None:
            assert not cnn.snippet_path(published.project.framework(name)).exists()
            continue
        result, its_peak = published.all_results[cnn.name].get(name), peak
        if result is None:               # not measured on this machine: the share on the machine its pages show
            table = gather.common.columns(published, cnn)
            column = gather.common.shown_column(table, name, "cpu")
            result, its_peak = table.by_column[column][name], table.peaks[column]
            assert ceiling.machine_label == table.labels[column[0]] != published.machine_label
        operations = gather.benchmark.timed_operations(published.project, cnn, "cpu")
        assert ceiling.share == pytest.approx(result["metrics"]["throughput"] * operations
                                              / (its_peak["gflops"] * 1e9))
        assert ceiling.peak == its_peak
    tuned = {t.lesson.name: t for t in next(c for c in views["pytorch"].ceilings if c.example is cnn).tuned}
    lesson = tuned["tuned_cnn"]
    stored = next(r for r in store.all_stored(published.project, store.LESSON, "tuned_cnn")
                  if r["framework"] == "pytorch" and r["machine"] == published.machine)
    medians = {v: statistics.median(m["seconds"]) for v, m in stored["variants"].items()}
    fastest = min((v for v in medians if v != "as_written"), key=medians.get)
    assert lesson.variant == fastest and lesson.speedup == pytest.approx(medians["as_written"] / medians[fastest])
    untuned = "mxnet-module"                             # the tuning lessons leave it out, with their reason
    assert all(c.tuned == [] for c in views[untuned].ceilings), "no tuning lesson has an MXNet Module script"

    writer = Collected()
    framework_page.render(views[untuned], writer)
    page = writer.files[f"frameworks/{untuned}.md"]
    assert "## How far from the machine?" in page and "no tuning lesson has a script for this row" in page
    assert writer.files[f"frameworks/{untuned}-ceiling.png"][:8] == b"\x89PNG\r\n\x1a\n"
    framework_page.render(views["pytorch"], writer)
    shown = f"{escape(lesson.variant)} ({lesson.speedup:.2f}× the code as written"
    assert shown in writer.files["frameworks/pytorch.md"]


def test_a_framework_page_says_what_each_lesson_with_its_script_found_for_it(published):
    """Every lesson with a script for the row, each claim with this row's verdict (never blank): judged on the
    build's own results, or the reason there is none here."""
    import dataclasses
    views = {view.fw.name: view for view in gather.framework.framework_views(published)}
    theano = views["theano"]
    with_script = {lesson.name for lesson in published.lessons.lessons
                   if lesson.snippet_path(published.project.framework("theano")).exists()}
    assert {item.lesson.name for item in theano.lessons} == with_script and "theano_elementwise" in with_script
    writer = Collected()
    framework_page.render(theano, writer)
    page = writer.files["frameworks/theano.md"]
    section = page[page.index("## What the lessons found"):page.index("## Notebooks")]
    def own_rules(item):                                 # a rule naming other rows (frameworks = [...]) is theirs
        return [rule for rule in item.lesson.rules if "theano" in rule.get("frameworks", ["theano"])]
    for item in theano.lessons:
        assert f"<{'/_gen/lessons/' + item.lesson.name}>" in section
        assert all(escape(rule["claim"]) in section for rule in own_rules(item))
    assert any(len(own_rules(item)) < len(item.lesson.rules) for item in theano.lessons), "tuned_cnn's, for one"
    assert section.count("{bdg-") == sum(len(own_rules(item)) for item in theano.lessons), "a verdict per claim"

    stored = {r["framework"]: r for r in store.all_stored(published.project, store.LESSON, "theano_elementwise")
              if r["machine"] == published.machine and r["profile"] == "cpu"}
    judged = [dataclasses.replace(item, current=stored) if item.lesson.name == "theano_elementwise" else item
              for item in theano.lessons]
    framework_page.render(dataclasses.replace(theano, lessons=judged), writer)
    page = writer.files["frameworks/theano.md"]
    line = next(line for line in page.splitlines() if "NumPy&#x27;s tanh" in line or "NumPy's tanh" in line)
    assert "{bdg-success}`holds`" in line, line
    assert framework_page.lessons_section(dataclasses.replace(theano, lessons=[])) == [], "no lesson: no section"


def test_a_lesson_with_a_curve_draws_its_variants_as_lines_not_bars(site):
    """[curve]: one chart, a line per framework through the variants' points (batch sizes), for every metric
    it lists that was measured; a metric measured nowhere (GPU memory on a CPU) is no panel."""
    import dataclasses
    view = next(view for view in gather.lessons.lesson_views(site) if view.evidence.lesson.curve)
    lesson = view.evidence.lesson
    sizes = {name: at for name, at in lesson.curve["x"].items() if at <= 32}
    measured = {name: {"seconds": [1.0 / at, 1.1 / at], "images_per_second": [32.0 * at, 30.0 * at],
                       "peak_memory_mb": [10.0 * at]} for name, at in sizes.items()}
    ok = {"status": "ok", "variants": measured}
    rows = view.evidence.rows[:2]
    current = {fw.name: ok for fw in rows}
    shown = dataclasses.replace(view, evidence=dataclasses.replace(view.evidence, current=current))
    writer = Collected()
    from rosetta.site import lesson_pages
    lines = lesson_pages.chart_lines(shown, writer)
    assert list(writer.files) == [f"lessons/{lesson.name}-curve.png"], "one chart; no bars for the curve's metric"
    assert writer.files[f"lessons/{lesson.name}-curve.png"][:8] == b"\x89PNG\r\n\x1a\n"
    caption = "\n".join(lines)
    assert "Images per second and extra peak memory, MB against images per batch" in caption
    assert "gpu" not in caption.lower(), "GPU memory was measured nowhere: no panel, no caption"
    nothing = dataclasses.replace(view, evidence=dataclasses.replace(view.evidence, current={}))
    assert lesson_pages.chart_lines(nothing, Collected()) == []


def test_the_measurement_table_lists_variants_in_the_lesson_s_order(site):
    """batch_1, batch_4, batch_16, batch_32 as lesson.toml lists them, not batch_1, batch_16, batch_32, batch_4."""
    from rosetta.site import lesson_pages
    view = next(view for view in gather.lessons.lesson_views(site) if view.evidence.lesson.curve)
    lesson, fw = view.evidence.lesson, view.evidence.rows[0]
    sizes = ["batch_32", "batch_16", "batch_4", "batch_1"]                  # as a stored result's sorted keys may come
    result = {"status": "ok", "variants": {name: {"seconds": [1.0]} for name in sorted(sizes)}}
    lines = lesson_pages.measurement_table(lesson, [fw], {fw.name: result})
    shown = [line.split("`")[1] for line in lines[2:]]
    assert shown == ["batch_1", "batch_4", "batch_16", "batch_32"]


def test_a_data_parallel_example_s_page_says_how_each_row_starts_its_workers_and_which_rows_it_leaves_out(site):
    view = next(view for view in gather.benchmark.benchmark_views(site)
                if view.example.name == "cnn_cifar10_data_parallel")
    assert view.workers == 2
    assert set(view.launches) >= {"pytorch", "tensorflow", "jax", "keras-jax", "mxnet", "mxnet-module", "chainer",
                                  "paddle"}
    assert "keras-tensorflow" not in view.launches, "a Keras row's own table, not its environment's"
    assert view.launches["keras-jax"]["engine"].startswith("keras.distribution.DataParallel")
    left_out = {row for entry in view.left_out for row in entry["rows"]}
    assert left_out == {fw.name for fw in site.frameworks} - view.written, "every row without a program says why"
    writer = Collected()
    from rosetta.site import benchmark_page
    benchmark_page.render(view, writer)
    page = writer.files["benchmarks/cnn_cifar10_data_parallel.md"]
    assert "Each row runs as **2 worker processes**" in page
    assert "| PyTorch | DistributedDataParallel (gloo on a CPU, NCCL on GPUs) | `torchrun --nproc-per-node=2" in page
    assert "| MXNet | kvstore dist\\_sync" in page and "| scheduler, server |" in page
    # An MPI row: its launcher, which the build runs, gives each worker its rank.
    assert ("| `mpiexec -n 2 python chainer.py` | its MPI rank, from `mpiexec.gforker`; `UCX_NET_DEVICES` | none |"
            in page)
    assert "- Theano: Theano has no distributed API of its own" in page
    # The results table names each row's engine, not its single-process API.
    assert "| PyTorch | DistributedDataParallel (gloo on a CPU, NCCL on GPUs) |" in page.split("## How the workers")[0]
    single = next(view for view in gather.benchmark.benchmark_views(site) if view.example.name == "cnn_cifar10")
    assert single.workers == 1 and "## How the workers start" not in benchmark_page.workers_lines(single)


def test_a_data_parallel_page_sets_each_row_s_workers_against_one_process_on_the_same_cores(site):
    """The overhead table, from this build's results (here: the reference's, as if measured on this machine)."""
    import dataclasses
    import json

    from rosetta.site import benchmark_page
    view = next(view for view in gather.benchmark.benchmark_views(site)
                if view.example.name == "cnn_cifar10_data_parallel")
    stored = {path.stem: json.loads(path.read_text()) for path in Path(__file__).resolve().parents[1].glob(
        "benchmarks/reference/*/cpu/cnn_cifar10_data_parallel/*.json")}
    assert {"pytorch", "jax"} <= set(stored) and all("one_process" in result for result in stored.values())
    lines = benchmark_page.overhead_lines(dataclasses.replace(view, current=stored))
    assert lines[0] == "### 2 workers against 1 process"
    pytorch = next(line for line in lines if line.startswith("| PyTorch |"))
    many = stored["pytorch"]["steps"]["train"]["median"]
    one = stored["pytorch"]["one_process"]["steps"]["train"]["median"]
    change = many / one - 1
    assert pytorch.startswith(f"| PyTorch | {many:.2f} (") and pytorch.endswith(
        f"| {'+' if change >= 0 else '−'}{abs(change):.0%} |")
    died = {"status": "failed", "reason": "KernelDied: x"}
    failed = {**stored, "pytorch": {**stored["pytorch"], "one_process": died}}
    lines = benchmark_page.overhead_lines(dataclasses.replace(view, current=failed))
    assert any(line.startswith("| PyTorch |") and "failed: KernelDied: x" in line for line in lines)
    assert benchmark_page.overhead_lines(view) == [], "nothing measured by this build: no table"
    # Side by side (a smoke build: rows shared the cores), no figure is a cost: the page says so, with none.
    crowded = {name: {**result, "provenance": {**result["provenance"], "side_by_side": 2}}
               for name, result in stored.items()}
    lines = benchmark_page.overhead_lines(dataclasses.replace(view, current=crowded))
    assert lines[2].startswith("Not measured by this build: it ran 2 rows at a time") and "| PyTorch |" not in lines
    # The check on record: each row on 2 workers against 1 worker, and its ranks against each other.
    check = json.loads(next(Path(__file__).resolve().parents[1].glob(
        "benchmarks/reference/*/cpu/_equivalence/cnn_cifar10_data_parallel.json")).read_text())
    writer = Collected()
    benchmark_page.render(dataclasses.replace(view, current=stored, check=check), writer)
    page = writer.files["benchmarks/cnn_cifar10_data_parallel.md"]
    assert "### 2 workers against 1 process" in page and "### 2 workers against one" in page
    assert page.count("| equal ✓ |") == len(stored) == 8


def test_on_gpus_the_data_parallel_page_shows_the_scaling_from_one_gpu_with_its_efficiency(site):
    """A machine with GPUs runs one worker per GPU, and its 1-worker run has 1 GPU: the page shows speed-up and
    efficiency instead of the CPU's overhead (the figures here are a made-up result, for the arithmetic)."""
    import dataclasses

    from rosetta.site import benchmark_page
    view = next(view for view in gather.benchmark.benchmark_views(site)
                if view.example.name == "cnn_cifar10_data_parallel")
    run = {"status": "ok", "metrics": {"throughput": 12000.0}, "steps": {"train": {"median": 2.0}},
           "provenance": {"workers": 2, "side_by_side": 1},
           "one_process": {"status": "ok", "metrics": {"throughput": 7500.0}, "steps": {"train": {"median": 3.2}}}}
    four_gpus = {**view.machine_info, "gpus": [{"name": "V100"}] * 4}
    lines = benchmark_page.overhead_lines(dataclasses.replace(view, current={"pytorch": run}, machine_info=four_gpus))
    assert lines[0] == "### 1 GPU against 2"
    assert "| PyTorch | 3.20 (7,500 images/s) | 2.00 (12,000 images/s) | 1.60× | 80% |" in lines


def test_a_row_measured_only_on_another_machine_is_shown_with_that_machine_never_as_not_installed(published):
    """A publishing build whose own machine never set the row up (it was measured on another machine of the
    reference): its framework page gives the versions that machine recorded, and its lessons' verdicts are
    judged on that machine's results, named; never "not installed". (The reference is one whole run: here its
    machine's column lacks TensorFlow.js's and PaddlePaddle's rows, as a machine that could not install them.)"""
    import dataclasses

    from rosetta.build.outcome import Outcome
    from rosetta.site import verdicts
    published = dataclasses.replace(published, column_cache={}, all_results={
        example: {row: result for row, result in rows.items() if row not in ("tensorflowjs", "paddle")}
        for example, rows in published.all_results.items()})
    elsewhere_only = [fw for fw in published.frameworks
                      if not any(fw.name in rows for rows in published.all_results.values())
                      and any(r["status"] == Outcome.OK for ex in published.examples
                              for r in store.all_stored(published.project, store.BENCHMARK, ex.name)
                              if r["framework"] == fw.name)]
    assert elsewhere_only, "the reference holds a row that its publishing machine did not measure"
    views = {view.fw.name: view for view in gather.framework.framework_views(published)}
    for fw in elsewhere_only:
        view = views[fw.name]
        assert view.versions and view.versions_from, fw.name
        writer = Collected()
        framework_page.render(view, writer)
        page = writer.files[f"frameworks/{fw.name}.md"]
        assert "Not installed on this machine" not in page and escape(view.versions_from) in page, fw.name
        assert f"the program `{fw.program}{fw.suffix}`" in page, "a JavaScript row's program is its .js file"
    assert any(fw.suffix == ".js" for fw in elsewhere_only), "TensorFlow.js's rows, measured elsewhere only"
    fw = next(fw for fw in elsewhere_only if views[fw.name].lessons)   # Paddle's lessons
    item = views[fw.name].lessons[0]
    not_installed = {**item.current, fw.name: {"framework": fw.name, "status": Outcome.NOT_INSTALLED}}
    shown = verdicts.shown_results(type(item)(item.lesson, not_installed, item.groups, item.rows), "cpu")
    assert shown[fw.name]["status"] != Outcome.NOT_INSTALLED and shown[fw.name]["shown_from"]


def test_a_row_this_build_did_not_run_shows_the_result_another_machine_holds_with_its_machine(site):
    """This site ran nothing; the reference holds the GRU's PaddlePaddle row: its tabs, notebook page, framework
    page and ceiling show that run, named with its machine, never "not run"."""
    example = next(ex for ex in site.examples if ex.name == "gru_imdb")
    fw = next(fw for fw in site.frameworks if fw.name == "paddle")
    view = next(v for v in gather.benchmark.benchmark_views(site) if v.example is example)
    shown = view.shown[fw.name]
    assert shown["status"] == "ok" and shown["shown_from"] == shown["machine_label"], shown.get("shown_from")
    assert view.ran[fw.name], "its tabs show that run's output"
    group = next(g for g in view.groups if fw in g.rows)
    tab = benchmark_page.step_tab(example, group, "train", view.shown, view.ran)
    assert f"Step time on {escape(shown['shown_from'])}, profile cpu:" in tab and "Step time:" not in tab
    notebook = next(v for v in gather.notebook.notebook_views(site) if v.example is example and v.fw is fw)
    assert notebook.result["shown_from"] and notebook.notebook.cells[-1].outputs, "the executed notebook, read"
    framework = next(v for v in gather.framework.framework_views(site) if v.fw is fw)
    assert dict((ex.name, r.get("shown_from")) for ex, r in framework.notebooks)["gru_imdb"] == shown["shown_from"]
    ceiling = next(c for c in framework.ceilings if c.example is example)
    assert ceiling.share is not None and ceiling.machine_label == shown["shown_from"]


def test_conversions_another_machine_made_stand_beside_that_machine_s_own_results(site):
    """A build with no conversions of its own shows the newest another machine made, named, and their ONNX Runtime
    times beside that machine's benchmark results, never another machine's (this build has none)."""
    import dataclasses

    from rosetta.build import staleness
    from rosetta.site import conversion_page
    example = next(ex for ex in site.examples if ex.name == "resnet50_features")     # (its ONNX Runtime times)
    record = staleness.conversions_elsewhere(site.project, example, "cpu", site.machine, site.frameworks)
    assert record is not None and record["machine"] != site.machine and record["stale"] is False
    shown = dataclasses.replace(site, conversions={example.name: record}, column_cache={})
    view = next(v for v in gather.conversion.conversion_views(shown) if v.example.name == example.name)
    assert view.native and {result["machine"] for result in view.native.values()} == {record["machine"]}
    writer = Collected()
    conversion_page.render(view, writer)
    page = writer.files[f"conversions/{example.name}.md"]
    assert f"Converted on {escape(record['machine_label'])}" in page
    assert "## Inference time: ONNX Runtime against each framework" in page
    assert "| PyTorch | not measured here |" not in page, "PyTorch's own rate on the converting machine"
