"""The ONNX conversions: every row's export tab or its reason, the verdicts against the tolerance, the cache key,
the page; in the real environments (marked envs), the smoke build's conversions and a planted refusal."""
from __future__ import annotations

import ast
import json
import shutil

import numpy as np
import pytest
from conftest import REPO

from rosetta import model
from rosetta.build import conversion, environments, equivalence, jobs, results, store, variables
from rosetta.build.context import Options, RunContext, Selection
from rosetta.project import Project
from rosetta.site import conversion_page, gather
from rosetta.site.markup import Writer

CONVERTED = ["cnn_cifar10", "resnet50_features", "gru_imdb"]


@pytest.mark.parametrize("name", CONVERTED)
def test_every_row_with_a_program_has_an_export_tab_or_says_why_not(project, name):
    example = project.example(name)
    left_out = {row for entry in model.export_left_out(example) for row in entry["rows"]}
    assert all(entry["why"].strip() for entry in model.export_left_out(example))
    for fw in project.frameworks():
        if not example.snippet_path(fw).exists():
            continue
        has_tab = conversion.tab_path(example, fw).exists()
        assert has_tab != (fw.name in left_out), f"{fw.name}: an export tab, or a reason in left_out.toml (not both)"
        if has_tab:
            assert equivalence.adapter_path(example, fw).exists(), f"{fw.name}: the weights load through its adapter"


@pytest.mark.parametrize("name", CONVERTED)
def test_every_export_tab_defines_inputs_and_export(project, name):
    folder = conversion.tabs_folder(project.example(name))
    for path in sorted(folder.glob("*.py")):
        functions = {node.name: [a.arg for a in node.args.args] for node in ast.parse(path.read_text()).body
                     if isinstance(node, ast.FunctionDef)}
        assert functions.get("inputs") == ["ns", "x"] and functions.get("export") == ["ns", "x", "path"], path.name
        assert ast.get_docstring(ast.parse(path.read_text())), f"{path.name}: a docstring says what its exporter does"


def test_an_exporters_message_is_its_first_sentence_on_one_line():
    from rosetta.conversion_worker import MESSAGE_LENGTH, exporter_message

    class ValidationError(Exception):
        pass
    chainer = ValidationError("Nodes in a graph must be topologically sorted, however input 'v706' of node: \n"
                              "name:  OpType: Concat\n is not output of any previous nodes.\n\nBad node spec: ...")
    assert exporter_message(chainer) == ("ValidationError: Nodes in a graph must be topologically sorted, however "
                                         "input 'v706' of node: name:  OpType: Concat is not output of any previous "
                                         "nodes.")
    assert exporter_message(ValueError("planted\nTraceback follows")) == "ValueError: planted"
    assert exporter_message(KeyError()) == "KeyError"
    long = exporter_message(RuntimeError("graph " * 200))
    assert long.endswith("…") and len(long) <= len("RuntimeError: ") + MESSAGE_LENGTH


def found(runtime="", imported=""):
    return {"opset": 17, "opsets": {"ai.onnx": 17}, "operators": {"Conv": 4, "Gemm": 2}, "checker": "",
            "producer": "exporter 1.0", "runtime": runtime, "import": imported}


def test_each_output_is_judged_against_the_logits_tolerance(project):
    spec = equivalence.load_spec(project, project.example("cnn_cifar10"), "smoke")
    tolerance = spec.tolerance["logits"]
    own = np.zeros((4, 10), np.float32)
    close, far = own + tolerance / 2, own + tolerance * 3
    row = conversion.judged(spec, own, {"ort": close, "torch": far}, found())
    assert row["runtime"] == {"status": "ok", "difference": pytest.approx(tolerance / 2)}
    assert row["import"]["status"] == conversion.DIFFERS and row["status"] == "ok"
    row = conversion.judged(spec, own, {"torch": close}, found(runtime="Fail: Gemm shape"))
    assert row["runtime"] == {"status": conversion.NOT_RUN, "message": "Fail: Gemm shape"}
    assert row["status"] == conversion.NOT_RUN and row["import"]["status"] == "ok"
    row = conversion.judged(spec, own, {"ort": close}, found(imported="NotImplementedError: Identity v21"))
    assert row["import"] == {"status": conversion.REFUSED, "message": "NotImplementedError: Identity v21"}
    nan = own.copy()
    nan[0, 0] = np.nan
    assert conversion.judged(spec, own, {"ort": nan, "torch": own}, found())["runtime"]["status"] == conversion.DIFFERS


def pins(path) -> dict:
    """name -> version of a requirements file or lock (markers left off)."""
    found = [line.partition("==") for line in path.read_text().splitlines() if "==" in line and line[0] not in "# "]
    return {name.strip(): version.split(";")[0].strip() for name, _, version in found}


def test_an_export_environment_runs_the_rows_own_framework_versions(project):
    """The JAX rows export where jax2onnx installs (envs/jax-onnx.txt): the same framework pins as the
    environment their tabs are timed in, so the exported function is the one measured."""
    rows = {fw.name: fw for fw in project.frameworks()}
    for name in ("jax", "keras-jax"):
        exporter = conversion.exporter(rows[name])
        assert exporter.environment == "jax-onnx" and exporter.name == name
        assert exporter.variables == rows[name].variables, "Keras keeps its backend where it exports"
        assert environments.lock_is_current(exporter.requirements), "run `make lock` and commit envs/jax-onnx.lock"
    assert conversion.exporter(rows["pytorch"]) is rows["pytorch"], "a row without one exports where it runs"
    timed, exporting = pins(rows["jax"].requirements), pins(conversion.exporter(rows["jax"]).requirements)
    shared = {name: version for name, version in timed.items() if name != "ipykernel"}
    assert {name: exporting.get(name) for name in shared} == shared
    assert "jax2onnx" in exporting
    locked = [pins(environments.lock_path(fw.requirements)) for fw in (rows["jax"], conversion.exporter(rows["jax"]))]
    for name in (*rows["jax"].packages, *rows["keras-jax"].packages, "numpy", "ml-dtypes"):
        assert locked[0][name] == locked[1][name], name


class FakeEnv:
    ok = True

    def __init__(self, digest):
        self.fingerprint_hash = digest


def test_the_conversions_run_again_when_a_tab_an_adapter_or_an_environment_changes(tmp_path, project):
    shutil.copytree(project.snippets / "cnn_cifar10", tmp_path / "snippets" / "cnn_cifar10")
    copy = Project(root=tmp_path, envs=project.envs)
    example = copy.example("cnn_cifar10")
    rows = conversion.candidates_of(example, project.frameworks())
    envs = {fw.name: FakeEnv("a") for fw in project.frameworks()}
    key = conversion.cache_key(copy, example, rows, envs, "cpu", "m")
    assert key == conversion.cache_key(copy, example, rows, envs, "cpu", "m")
    assert key != conversion.cache_key(copy, example, rows, {**envs, "chainer": FakeEnv("b")}, "cpu", "m")
    assert key != conversion.cache_key(copy, example, rows, {**envs, "pytorch": FakeEnv("b")}, "cpu", "m"), \
        "the environment that runs ONNX Runtime and onnx2torch counts too"
    exporting = {**envs, "jax-onnx": FakeEnv("a")}
    assert conversion.cache_key(copy, example, rows, exporting, "cpu", "m") != \
        conversion.cache_key(copy, example, rows, {**exporting, "jax-onnx": FakeEnv("b")}, "cpu", "m"), \
        "the JAX rows' export environment counts"
    tab = conversion.tab_path(example, "chainer")
    tab.write_text(tab.read_text() + "\n# a comment changes nothing\n")
    assert key == conversion.cache_key(copy, example, rows, envs, "cpu", "m")
    tab.write_text(tab.read_text().replace('"train", False', '"train", True'))
    assert key != conversion.cache_key(copy, example, rows, envs, "cpu", "m")


def record(project) -> dict:
    ok = {"status": "ok", "exported": True, "message": "", "bytes": 13 * 2**20, "file": "pytorch.onnx",
          **conversion.judged(equivalence.load_spec(project, project.example("cnn_cifar10"), "smoke"),
                              np.zeros((2, 10), np.float32), {"ort": np.full((2, 10), 3e-7, np.float32)},
                              found(imported="NotImplementedError: Reshape | v19")),
          "versions": {"onnx": "1.23.2", "onnxruntime": "1.31.1"}, "exporter_versions": {"torch": "2.14.1"}}
    refused = {"status": conversion.REFUSED, "exported": False,
               "message": "TypeError: patched_max_pool() takes 1 positional argument but 2 were given",
               "export_environment": "jax-onnx", "exporter_versions": {"jax2onnx": "0.17.1"}}
    beside = {**ok, "file": "keras-jax.onnx", "external_data": ["model.onnx.data"]}
    return {"api_version": 1, "example": "cnn_cifar10", "profile": "smoke", "machine": "box", "machine_label": "a box",
            "cache_key": "k", "date": "2026-12-03T00:00:00+00:00", "seed": 0, "forward_batch": 2, "tolerance": 1e-4,
            "runtime_row": "pytorch", "import_route": "onnx2torch",
            "frameworks": {"pytorch": ok, "jax": refused, "keras-jax": beside}}


def test_the_page_shows_each_export_its_messages_and_the_rows_left_out(tmp_path, project):
    example = project.example("cnn_cifar10")
    site = gather.common.SiteInput(project, [example], project.frameworks(), {}, {}, "smoke", "box", {},
                            conversions={"cnn_cifar10": record(project)})
    views = gather.conversion.conversion_views(site)
    writer = Writer(tmp_path)
    conversion_page.render(views[0], writer)
    conversion_page.render_index(views, writer)
    page = (tmp_path / "conversions" / "cnn_cifar10.md").read_text()
    assert "| PyTorch | ✓ 13.0 MiB | 17 | ✓ 3.0e-07 | refused: `NotImplementedError: Reshape \\| v19` |" in page
    assert "| JAX | refused: `TypeError: patched_max_pool() takes 1 positional argument but 2 were given` |" in page
    assert "| Theano | no exporter: Theano has no ONNX exporter" in page
    assert "| MXNet | not converted yet |" in page, "a row with a tab and no record says so"
    assert ":sync-group: framework" in page and ":sync: pytorch" in page, "tabs follow the benchmark pages' choice"
    assert "torch.onnx.export(" in page and "def check(job_dir: Path)" in page, "the export code and the checker"
    assert "operators: Conv ×4, Gemm ×2" in page and "onnx 1.23.2, onnxruntime 1.31.1" in page
    assert "JAX (exported in `envs/jax-onnx.txt`): jax2onnx 0.17.1" in page, "where an export ran, when not its own"
    assert "**JAX backend**: written: opset 17, 13.0 MiB (its weights written beside it, in `model.onnx.data`: kept " \
        "inside it here)" in page
    index = (tmp_path / "conversions.md").read_text()
    assert "2 of 3 rows' files run in ONNX Runtime" in index and "conversions/cnn_cifar10" in index


# --- in the real environments ------------------------------------------------------------------------

def smoke_record(project, example: str) -> tuple[dict, object]:
    machine, _ = results.this_machine(project, variables.read().machine)
    path = store.CONVERSION.path(project.results, machine, "smoke", example)
    return json.loads(path.read_text()), path.parent / example


@pytest.mark.envs
def test_the_smoke_build_exports_every_row_it_can_and_runs_each_file(smoke_site, project):
    converted, files = smoke_record(project, "cnn_cifar10")
    example = project.example("cnn_cifar10")
    rows = converted["frameworks"]
    assert set(rows) == {fw.name for fw in conversion.candidates_of(example, project.frameworks())}
    through = [name for name, row in rows.items() if row["status"] == "ok"]
    assert {"pytorch", "keras-tensorflow", "keras-torch", "tensorflow", "mxnet", "chainer"} <= set(through), rows
    for name in through:
        assert rows[name]["runtime"]["difference"] <= converted["tolerance"]
        assert (files / rows[name]["file"]).stat().st_size == rows[name]["bytes"] > 10 * 2**20, "the weights inside"
        assert rows[name]["opset"] >= 11 and rows[name]["operators"]["Conv"] == 4
    imported = [name for name, row in rows.items() if row.get("import", {}).get("status") == "ok"]
    assert {"tensorflow", "chainer"} <= set(imported), "a model goes from X through ONNX into PyTorch"
    for row in rows.values():
        assert row["status"] in ("ok", conversion.REFUSED, conversion.NOT_RUN), row
        if row["status"] == conversion.REFUSED:
            assert row["message"], "a refusal says what the exporter said"
    for name in ("jax", "keras-jax"):       # in their export environment, with its exporter: a result either way
        assert rows[name]["export_environment"] == "jax-onnx" and "jax2onnx" in rows[name]["exporter_versions"]
        assert rows[name]["status"] in ("ok", conversion.REFUSED, conversion.NOT_RUN), rows[name]
    if rows["keras-jax"].get("exported"):    # Keras on JAX writes its weights beside the file: kept inside it
        assert rows["keras-jax"]["external_data"] == ["model.onnx.data"]
        assert (files / rows["keras-jax"]["file"]).stat().st_size == rows["keras-jax"]["bytes"] > 10 * 2**20
    page = (smoke_site["output"] / "_gen" / "conversions" / "cnn_cifar10.html").read_text()
    assert "through ONNX" in page and "jax2onnx" in page
    assert converted["timing"] is None, "the CNN's benchmark times training: no inference to time"
    gru, _ = smoke_record(project, "gru_imdb")
    gru_through = {name for name, row in gru["frameworks"].items() if row["status"] == "ok"}
    assert {"pytorch", "tensorflow", "keras-tensorflow", "jax", "keras-jax"} <= gru_through, gru["frameworks"]


@pytest.mark.envs
def test_resnet_files_are_timed_in_onnx_runtime_over_the_benchmarks_batches(smoke_site, project):
    converted, _ = smoke_record(project, "resnet50_features")
    timing = converted["timing"]
    assert timing["status"] == "ok" and timing["rounds"] == conversion.TIMING_ROUNDS
    example = project.example("resnet50_features")
    assert timing["images"] == timing["batch_size"] * timing["batches"] > 0
    through = {name for name, row in converted["frameworks"].items() if row["status"] == "ok"}
    assert set(timing["rows"]) | set(timing["skipped"]) == through and {"pytorch", "tensorflow"} <= set(timing["rows"])
    assert all(len(row["seconds"]) == conversion.TIMING_ROUNDS and row["images_per_second"] > 0
               for row in timing["rows"].values())
    assert all("fixed the batch size" in why for why in timing["skipped"].values())
    page = (smoke_site["output"] / "_gen" / "conversions" / "resnet50_features.html").read_text()
    assert "Inference time: ONNX Runtime against each framework" in page and example.throughput_unit in page


@pytest.mark.envs
def test_an_exporter_that_raises_is_a_refusal_with_its_message(tmp_path):
    real = Project(root=REPO)
    shutil.copytree(real.snippets / "cnn_cifar10", tmp_path / "snippets" / "cnn_cifar10")
    project = Project(root=tmp_path, envs=real.envs, venvs=real.venvs)
    example = project.example("cnn_cifar10")
    tab = conversion.tab_path(example, "pytorch")
    tab.write_text(tab.read_text().replace('    model = ns["model"].eval()',
                                           '    raise ValueError("planted: no exporter today")'))
    frameworks = [fw for fw in project.frameworks() if fw.name == "pytorch"]
    envs = {fw.name: environments.ensure(project, fw, create=False) for fw in frameworks}
    assert all(env.ok for env in envs.values()), "run `make test` (it creates the environments first)"
    given = variables.read()
    machine, info = results.this_machine(project, given.machine)
    context = RunContext(project, "smoke", Options(), Selection(), given, tuple(frameworks), (example,), (),
                         machine=machine, machine_info=info, envs=envs)
    converted = jobs.run_job(context, conversion.job(context, example, selected=True))
    row = converted["frameworks"]["pytorch"]
    assert row["status"] == conversion.REFUSED and row["message"] == "ValueError: planted: no exporter today"
    assert "runtime" not in row and not list(conversion.files_folder(project.results, machine, "smoke",
                                                                     example).glob("*.onnx"))
