"""The guide to every framework: docs/systems.toml validates, statuses come from results, the matrix,
and the original study's figures beside this build's on the framework pages. Fast: no kernel runs."""
import pytest

from rosetta.build import results
from rosetta.project import Project
from rosetta.site import benchmark_page, framework_page, gather, guide, systems
from rosetta.site.gather.common import Columns

# Every system the brief of the guide names, by id.
REQUIRED_IDS = {"caffe", "caffe2", "tensorflow", "torch7", "pytorch", "theano", "lasagne", "keras", "mxnet", "cntk",
                "chainer", "deeplearning4j", "leaf", "convnetjs", "dsstne", "digits", "neon", "marvin", "brainstorm",
                "purine", "minerva", "cuda-convnet2", "knet", "r-keras", "jax", "paddlepaddle", "tensorflow-js",
                # the travel companions and the wrappers the two source documents name (issue 27)
                "onnx", "mmdnn", "cxxnet", "pylearn2", "blocks", "deepy", "scikit-neuralnetwork", "nolearn",
                "scikit-theano", "tflearn", "tf-slim"}

EXAMPLE = """\
title = "{title}"
steps = ["setup", "train"]
timed_step = "train"
throughput_unit = "samples/s"
table_metrics = [{{metric = "throughput", label = "samples/s", format = "int"}}]
[profiles.smoke]
n = 1
[reference]
caption = "original study"
columns = ["K80 (CUDA 8)", "P100"]
unit = "s"
alpha = [10, 5]
[reference.labels]
alpha = "Alpha(orig)"
[reference.others]
Gamma = [20, "–"]
[reference.accuracy]
alpha = 0.75
[reference.compare]
figure = "seconds for 100 samples"
metric = "throughput"
samples = 100
"""

GRAPHS = '[graphs]\ndynamic = "recorded as it runs"\nstatic = "declared, then run"\n'
SYSTEMS = {
    "alpha": 'name = "Alpha"\nrows = ["alpha"]\noriginal = ["Alpha(orig)"]',
    "beta": 'name = "Beta"\nrows = ["beta"]\noriginal = []\nnearest = ["Gamma"]',
    "gamma": 'name = "Gamma"\nstatus = "cannot-install"\nreason = "no wheel for this Python"\noriginal = ["Gamma"]',
    "delta": 'name = "Delta"\nstatus = "installs"\ninstall = "pip install delta (1.0)"\noriginal = []',
}


def entry(ident: str, body: str, **skip) -> str:
    fields = {"id": ident, "made_by": "someone, 2015", "language": "Python", "graph": "dynamic",
              "distributed": "none", "fate": "active", "summary": f"The {ident} system. It exists for tests."}
    lines = [f'{key} = "{value}"' for key, value in fields.items() if key not in skip]
    return "[[system]]\n" + "\n".join(lines) + "\n" + body + "\n"


def write_systems(root, entries: dict) -> None:
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "systems.toml").write_text(GRAPHS + "\n".join(entries.values()))


@pytest.fixture
def tiny(tmp_path) -> Project:
    """Rows alpha and beta; example "tiny" has both scripts, example "other" only alpha's."""
    (tmp_path / "envs").mkdir()
    for order, name in enumerate(["alpha", "beta"], 1):
        (tmp_path / "envs" / f"{name}.toml").write_text(f'label = "{name.capitalize()}"\norder = {order}\n')
        (tmp_path / "envs" / f"{name}.txt").write_text("")
    for example, rows in {"tiny": ["alpha", "beta"], "other": ["alpha"]}.items():
        folder = tmp_path / "snippets" / example
        folder.mkdir(parents=True)
        (folder / "example.toml").write_text(EXAMPLE.format(title=example.capitalize()))
        for row in rows:
            (folder / f"{row}.py").write_text("")
    write_systems(tmp_path, {ident: entry(ident, body) for ident, body in SYSTEMS.items()})
    return Project(root=tmp_path)


def result(row: str, status: str = "ok", **extra) -> dict:
    return {"framework": row, "status": status, "profile": "smoke", "machine": "box", "machine_label": "Box",
            "reason": "" if status == "ok" else "ZeroDivisionError: division by zero",
            "steps": {"train": results.summarise([2.0])} if status == "ok" else {},
            "metrics": {"throughput": 50.0, "train_samples": 100, "accuracy": 0.5} if status == "ok" else {},
            **extra}


RESULTS = {"tiny": {"alpha": result("alpha"), "beta": result("beta", "failed")},
           "other": {"alpha": result("alpha")}}


def problems(project: Project) -> str:
    with pytest.raises(systems.SystemsError) as info:
        systems.load_systems(project)
    return str(info.value)


# --- the real project ------------------------------------------------------------------------------

def test_the_real_data_file_validates_and_covers_every_row_and_every_label(project):
    found = systems.load_systems(project)
    ids = {system.id for system in found}
    assert REQUIRED_IDS <= ids, f"missing: {REQUIRED_IDS - ids}"
    rows = {row for system in found for row in system.rows}
    assert rows == {fw.name for fw in project.frameworks()}, "every row of the project belongs to one system"
    labels = {label for system in found for label in system.original}
    assert systems.known_labels(project.examples()) <= labels, "every system of the original's tables has an entry"
    assert systems.system_of_row(found, "mxnet-module").id == "mxnet"
    assert systems.system_of_row(found, "theano").nearest == ("Lasagne", "Keras(Theano)")


def test_the_real_references_keep_the_benchmark_tables_and_carry_every_figure(project):
    by_name = {example.name: example for example in project.examples()}
    cnn = systems.original_figures(by_name["cnn_cifar10"])
    assert cnn["Lasagne"] == [253, 65] and cnn["Gluon"] == [152, 57] and cnn["MXNet"] == [145, 52]
    assert len(cnn) == 13 and len(systems.original_figures(by_name["resnet50_features"])) == 11
    assert len(systems.original_figures(by_name["gru_imdb"])) == 8
    example = by_name["cnn_cifar10"]
    table = benchmark_page.results_table(example, project.frameworks(), Columns([("box", "cpu")], {}, {}))
    pytorch = next(line for line in table.splitlines() if line.startswith("| PyTorch"))
    assert pytorch.rstrip(" |").endswith("2,958 · 9,801"), "the benchmark table shows the row's figures, as rates"


# --- validation ---------------------------------------------------------------------------------------

def test_a_typed_runs_is_rejected(tiny):
    write_systems(tiny.root, {"alpha": entry("alpha", 'name = "Alpha"\nstatus = "runs"\noriginal = []')})
    message = problems(tiny)
    assert "systems.toml: [[system]] #1 (alpha): status 'runs' is typed" in message


def test_an_unknown_row_is_rejected(tiny):
    write_systems(tiny.root, {"alpha": entry("alpha", 'name = "Alpha"\nrows = ["alpha", "omega"]\noriginal = []')})
    assert "#1 (alpha): unknown row 'omega': there is no envs/omega.toml" in problems(tiny)


def test_a_missing_field_is_rejected_and_every_problem_is_listed(tiny):
    write_systems(tiny.root, {
        "alpha": entry("alpha", 'name = "Alpha"\nrows = ["alpha"]\noriginal = []', fate=True),
        "beta": entry("beta", 'name = "Beta"\nstatus = "vanished"\noriginal = []'),
        "again": entry("beta", 'name = "Beta again"\nstatus = "installs"\noriginal = []'),
        "gamma": entry("gamma", 'name = "Gamma"\nrows = ["beta"]', graph=True)})
    lines = problems(tiny).splitlines()
    assert any(line.endswith("#1 (alpha): missing field 'fate'") for line in lines)
    assert any("#2 (beta): unknown status 'vanished'" in line for line in lines)
    assert any("#3 (beta): duplicate id 'beta'" in line for line in lines)
    assert any("#3 (beta): status 'installs' needs install = " in line for line in lines)
    assert any(line.endswith("#4 (gamma): missing field 'graph'") for line in lines)
    assert any("#4 (gamma): missing field 'original'" in line for line in lines)
    assert all("systems.toml: " in line for line in lines), "each problem names the file"


def test_other_mistakes_are_named(tiny):
    write_systems(tiny.root, {
        "alpha": entry("alpha", 'name = "Alpha"\nrows = ["alpha"]\noriginal = ["Nobody(TF)"]\ncolour = "red"'),
        "beta": entry("beta", 'name = "Beta"\nrows = ["alpha"]\nstatus = "installs"\noriginal = []'),
        "Gamma": entry("Gamma", 'name = "Gamma"\nrows = ["alpha"]\noriginal = []\nreason = "x"', graph=True)
        + 'graph = "quantum"\n'})
    message = problems(tiny)
    assert "#1 (alpha): unknown key 'colour'." in message
    assert "#1 (alpha): original label 'Nobody(TF)' is in no example's [reference]" in message
    assert "#2 (beta): both rows and status" in message
    assert "#3 (Gamma): id 'Gamma' is not a slug" in message
    assert "#3 (Gamma): graph 'quantum' is not in the [graphs] vocabulary" in message
    assert "#3 (Gamma): row 'alpha' is already the row of system 'alpha'" in message
    assert "#3 (Gamma): field 'reason' belongs to a typed status" in message


# --- status, matrix, pages --------------------------------------------------------------------------

def test_status_comes_from_this_build_s_results(tiny):
    by_id = {system.id: system for system in systems.load_systems(tiny)}
    assert systems.status_of(by_id["alpha"], RESULTS).kind == "runs"
    assert systems.status_of(by_id["beta"], RESULTS).kind == "fails here"
    assert systems.status_of(by_id["gamma"], RESULTS) == systems.Status("cannot install", "no wheel for this Python")
    assert systems.status_of(by_id["delta"], RESULTS).kind == "installs"
    not_installed = {"tiny": {"beta": result("beta", "not-installed", reason="environment not set up")}}
    assert systems.status_of(by_id["beta"], not_installed).kind == "not installed"
    assert systems.status_of(by_id["beta"], {}).kind == "not run"


def test_the_coverage_matrix_says_not_written_where_a_script_is_missing(tiny):
    paths = guide.write(tiny, RESULTS, tiny.frameworks())
    assert {path.relative_to(tiny.generated).as_posix() for path in paths} == {
        "guide.md", "guide/alpha.md", "guide/beta.md", "guide/gamma.md", "guide/delta.md"}
    page = (tiny.generated / "guide.md").read_text()
    assert page.startswith("(guide)=\n# Guide to every framework")
    header = next(line for line in page.splitlines() if line.startswith("| System"))
    assert header == "| System | Graph | Here | Other | Tiny |"
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
            for line in page.splitlines() if line.startswith("| {doc}")}
    assert rows["{doc}`Alpha </_gen/guide/alpha>`"][2:] == ["runs", "✓ ran", "✓ ran"]
    assert rows["{doc}`Beta </_gen/guide/beta>`"][2:] == ["fails here", "not written", "✗ failed"]
    assert rows["{doc}`Gamma </_gen/guide/gamma>`"][2:] == ["cannot install", "cannot install", "cannot install"]
    assert rows["{doc}`Delta </_gen/guide/delta>`"][2:] == ["installs", "—", "—"]
    assert "**not written**:" in page and "guide/alpha\n" in page, "the legend, and the hidden toctree"


def test_a_system_page_shows_its_evidence_and_the_original_s_figures(tiny):
    guide.write(tiny, RESULTS, tiny.frameworks())
    alpha = (tiny.generated / "guide" / "alpha.md").read_text()
    assert "(guide-alpha)=\n# Alpha" in alpha and "- **Graph:** dynamic: recorded as it runs" in alpha
    assert "{doc}`ran </_gen/notebooks/tiny/alpha>`" in alpha and "train 2.00 s, samples/s 50" in alpha
    assert "| Alpha(orig) | Tiny | K80 10 s, P100 5 s | seconds for 100 samples |" in alpha
    assert "Test accuracy the original reported: Alpha(orig) 75.0% on Other; Alpha(orig) 75.0% on Tiny." in alpha
    beta = (tiny.generated / "guide" / "beta.md").read_text()
    assert "| {doc}`Beta </_gen/frameworks/beta>` | {doc}`Other </_gen/benchmarks/other>` | not written | |" in beta
    assert "ZeroDivisionError: division by zero" in beta
    assert "Beta had no row of its own there, but it ran underneath these rows:" in beta
    gamma = (tiny.generated / "guide" / "gamma.md").read_text()
    assert "It cannot be installed here: no wheel for this Python." in gamma
    assert "| Gamma | Tiny | K80 20 s, P100 – |" in gamma


def test_a_removed_system_loses_its_page_and_a_missing_file_still_gives_a_guide(tiny):
    guide.write(tiny, RESULTS, tiny.frameworks())
    write_systems(tiny.root, {ident: entry(ident, SYSTEMS[ident]) for ident in ("alpha", "beta")})
    guide.write(tiny, RESULTS, tiny.frameworks())
    assert sorted(p.name for p in (tiny.generated / "guide").iterdir()) == ["alpha.md", "beta.md"]
    (tiny.docs / "systems.toml").unlink()
    assert [p.name for p in guide.write(tiny, RESULTS, tiny.frameworks())] == ["guide.md"]
    assert "no `docs/systems.toml`" in (tiny.generated / "guide.md").read_text()


def test_a_file_that_does_not_validate_is_shown_on_the_guide_page(tiny, capsys):
    write_systems(tiny.root, {"alpha": entry("alpha", 'name = "Alpha"\nstatus = "runs"\noriginal = []')})
    guide.write(tiny, RESULTS, tiny.frameworks())
    page = (tiny.generated / "guide.md").read_text()
    assert "```{error}" in page and "status 'runs' is typed" in page
    assert "status 'runs' is typed" in capsys.readouterr().err


def test_framework_pages_put_the_original_s_figures_beside_this_build_s_as_rates(tiny):
    alpha, beta = tiny.frameworks()
    lines = framework_page.history_section(gather.framework.history(tiny, alpha, tiny.examples(), RESULTS))
    text = "\n".join(lines)
    assert "this build ran profile `smoke` on Box" in text and "the 100 samples of the original's run" in text
    row = next(line for line in lines if line.startswith("| Tiny"))
    # The original: 100 samples in 10 s (K80) and 5 s (P100); this build: 100 samples in 2 s.
    assert row == "| Tiny | train, samples/s | 10 (10 s) | 20 (5 s) | 50 (100 samples in 2.00 s) |"
    assert "Tiny: the original reported 75.0% test accuracy after its full run; this build 50.0%" in text
    beta_text = "\n".join(framework_page.history_section(
        gather.framework.history(tiny, beta, tiny.examples(), RESULTS)))
    assert "The original study had no Beta row. Its nearest rows there, from {doc}`Beta in the guide" in beta_text
    assert "| Gamma | Tiny | K80 20 s, P100 – |" in beta_text


def test_a_row_without_any_figure_or_neighbour_says_so(tiny):
    write_systems(tiny.root, {"beta": entry("beta", 'name = "Beta"\nrows = ["beta"]\noriginal = []')})
    beta = tiny.frameworks()[1]
    text = "\n".join(framework_page.history_section(gather.framework.history(tiny, beta, tiny.examples(), RESULTS)))
    assert "The original study had no Beta row. Nor any row near it (see {doc}`Beta in the guide" in text
    (tiny.docs / "systems.toml").unlink()
    lines = framework_page.history_section(gather.framework.history(tiny, beta, tiny.examples(), RESULTS))
    assert lines[2] == "The original study had no Beta row."
