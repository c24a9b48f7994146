"""Equivalence in the real environments: the smoke build's checks, and planted differences
that must be caught (an optimizer edited in a snippet, a broken adapter)."""
from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from conftest import REPO, copy_machine_records

from rosetta.build import environments, equivalence, jobs, results, store, variables
from rosetta.build.context import Options, RunContext, Selection
from rosetta.project import Project

pytestmark = pytest.mark.envs
ROWS = Project(root=REPO).frameworks()


def compared(example: str) -> list[str]:
    """Every row with a snippet and an adapter for this example (ConvNetJS has none: its pages say it is not
    compared; test_equivalence checks that every Python row has one), less a row checked on its own sizes."""
    project = Project(root=REPO)
    ex = project.example(example)
    own = equivalence.own_sizes(ex, equivalence.load_spec(project, ex, "smoke"), "smoke")
    return [fw.name for fw in ROWS if ex.snippet_path(fw).exists() and equivalence.adapter_path(ex, fw).exists()
            and fw.name not in own]


def smoke_check(project, example):
    machine, _ = results.this_machine(project, variables.read().machine)
    return json.loads(store.CHECK.path(project.results, machine, "smoke", example).read_text())


@pytest.mark.parametrize("example", ["cnn_cifar10", "gru_imdb", "resnet50_features"])
def test_every_pair_agrees_in_the_smoke_build(smoke_site, project, example):
    check = smoke_check(project, example)
    rows = compared(example)
    assert len(rows) >= 8
    assert check["failures"] == [] and check["passed"], check["failures"]
    assert all(check["frameworks"][fw]["status"] == "ok" for fw in rows)
    assert check["roundtrip"] == {fw: 0.0 for fw in rows}
    assert len(check["logits"]) == len(rows) * (len(rows) - 1) // 2
    assert set(check["alone"]) == set(rows), "every tab's batch independence was measured"
    for note in check["notes"]:
        if note.get("against"):
            assert note["measured"]["status"] == "ok"
            assert all(m["passed"] for m in note["measured"]["frameworks"].values()), note["title"]


def test_a_javascript_row_is_checked_as_the_python_rows_are(smoke_site, project):
    """TensorFlow.js's GRU runs in its own Deno worker (rosetta/js/equivalence_worker.ts) on the same neutral
    weights and batches, its own train cell included, and is compared with every other row; its CNN likewise,
    on the batches its own row trains, with PyTorch."""
    check = smoke_check(project, "gru_imdb")
    assert "tensorflowjs" in compared("gru_imdb") and check["frameworks"]["tensorflowjs"]["status"] == "ok"
    assert check["roundtrip"]["tensorflowjs"] == 0.0
    assert check["cell_vs_steps"]["tensorflowjs"] <= check["tolerance"]["weights"]
    note = next(n for n in check["notes"] if n.get("frameworks") == ["tensorflowjs"])
    assert note["measured"]["status"] == "ok", "its Adam note's change (JavaScript) ran"
    # Its CNN, on the batches its own row trains (own_sizes.toml), against PyTorch run on them again.
    cnn = smoke_check(project, "cnn_cifar10")
    own, tol, pair = cnn["own_sizes"]["tensorflowjs"], cnn["tolerance"], "pytorch vs tensorflowjs"
    assert cnn["frameworks"]["tensorflowjs"]["status"] == "ok" and "tensorflowjs" not in cnn["roundtrip"]
    assert (own["against"], own["steps"], own["batch_size"]) == ("pytorch", 2, 1)
    assert len(cnn["frameworks"]["tensorflowjs"]["losses"]) == 2
    assert own["roundtrip"] == {"pytorch": 0.0, "tensorflowjs": 0.0}
    assert own["logits"][pair] <= tol["logits"] and own["alone"]["tensorflowjs"] <= tol["logits"]
    assert own["losses"][pair] <= tol["loss"] and own["weights"][pair] <= tol["weights"]
    assert own["cell_weights"][pair] <= tol["weights"] and own["cell_vs_steps"]["tensorflowjs"] <= tol["weights"]
    assert 0 < own["moved"]["tensorflowjs"] and own["noise_floor"]["status"] == "ok"


@pytest.mark.parametrize("example", ["cnn_cifar10", "gru_imdb"])
def test_training_checks_cover_every_step_and_the_noise_floor(smoke_site, project, example):
    check = smoke_check(project, example)
    rows = compared(example)
    assert len(check["losses"]) == len(check["weights"]) == len(rows) * (len(rows) - 1) // 2
    steps = equivalence.load_spec(project, project.example(example), "smoke").steps
    assert check["steps"] == steps >= 2, "the smoke profile's own steps (weights.toml's [profiles.smoke])"
    assert all(len(check["frameworks"][fw]["losses"]) == steps for fw in rows)
    floor = check["noise_floor"]
    assert floor["status"] == "ok" and 0 < floor["weights"] < check["tolerance"]["weights"]
    # The snippets' own train cells ran, and took the same steps as the adapters did.
    assert len(check["cell_weights"]) == len(rows) * (len(rows) - 1) // 2
    assert all(check["cell_vs_steps"][fw] <= check["tolerance"]["weights"] for fw in rows)


def test_data_parallel_rows_agree_with_each_other_and_with_one_worker(smoke_site, project):
    """Each data-parallel tab on 2 workers, each taking half of every batch: every pair of tabs agrees, each tab
    agrees with the same program on 1 worker taking whole batches, and its two ranks end with equal weights."""
    check = smoke_check(project, "cnn_cifar10_data_parallel")
    rows = compared("cnn_cifar10_data_parallel")
    assert set(rows) == {"pytorch", "tensorflow", "jax", "keras-jax", "mxnet", "mxnet-module", "chainer", "paddle"}
    assert check["failures"] == [] and check["passed"], check["failures"]
    assert len(check["weights"]) == len(check["cell_weights"]) == len(rows) * (len(rows) - 1) // 2
    against = check["workers"]
    assert against["workers"] == 2 and set(against["rows"]) == set(rows)
    for row in against["rows"].values():
        assert row["status"] == "ok" and row["ranks_differ"] == 0.0
        assert row["loss"] <= check["tolerance"]["loss"] and row["weights"] <= check["tolerance"]["weights"]
    assert all(check["frameworks"][fw]["ranks_differ"] == 0.0 for fw in rows)


def test_the_v1_zoos_agree_and_the_variants_are_explained(smoke_site, project):
    check = smoke_check(project, "resnet50_features")
    assert check["logits"]["keras-tensorflow vs mxnet"] <= 1e-3
    assert check["logits"]["pytorch vs mxnet"] > 1e-2          # v1.5: another function
    v15 = next(n for n in check["notes"] if "v1.5" in n["title"])["measured"]["frameworks"]["pytorch"]
    assert v15["after"] <= 1e-3 < v15["before"]
    flops = check["frameworks"]["pytorch"]["facts"]["forward GFLOPs per sample"]
    assert flops > v15["facts_after"]["forward GFLOPs per sample"]          # v1.5 costs more than v1


@pytest.mark.parametrize("example", ["cnn_cifar10", "gru_imdb", "resnet50_features"])
def test_the_neutral_operation_count_is_what_pytorch_counts(smoke_site, project, example):
    operations = smoke_check(project, example)["operations"]
    assert operations["counted"]["framework"] == "pytorch"
    assert set(operations["differences"]) == set(operations["neutral"]) and operations["differences"]
    assert all(d <= operations["tolerance"] for d in operations["differences"].values()), operations


def test_the_page_shows_the_section(smoke_site):
    page = (smoke_site["output"] / "_gen" / "benchmarks" / "gru_imdb.html").read_text()
    assert "Are these the same model?" in page and "Keras’ Adam and repeated words" in page
    assert re.search(r"\d\.\d+e-\d\d ✓", page)
    assert (smoke_site["output"] / "_images").exists() and "gru_imdb-equivalence.png" in page
    page = (smoke_site["output"] / "_gen" / "benchmarks" / "cnn_cifar10.html").read_text()
    assert "TensorFlow.js, on the batches its row trains" in page and "TensorFlow.js against PyTorch" in page


# --- planted differences --------------------------------------------------------------------------

def copied_project(tmp_path, example: str, smoke_site) -> tuple[Project, object]:
    """A project whose snippets are a copy of one real example; real envs, its own results. The smoke build's
    kept worker outputs of the example come with it (hard links), as a second check finds its first one's: a
    row whose snippet, adapter, environment and inputs are unchanged is not run again (its key says so); the
    row a test edits runs, and every pair is compared."""
    assert smoke_site["built"], "the smoke site's build, whose check outputs the copy starts from"
    real = Project(root=equivalence.results.REPO_ROOT)
    shutil.copytree(real.snippets / example, tmp_path / "snippets" / example)
    project = Project(root=tmp_path, envs=real.envs, venvs=real.venvs)
    copy_machine_records(project.results)
    kept = real.build / "equivalence" / example / "kept"
    if kept.is_dir():
        shutil.copytree(kept, project.build / "equivalence" / example / "kept", copy_function=os.link)
    return project, project.example(example)


def ran(heard: list[str]) -> list[str]:
    """The workers a check ran (not kept), as the build logs them."""
    return sorted(line.split(": ok in")[0] for line in heard if ": ok in" in line)


def run_check(project, example, names, log=lambda line: None, gpus=None):
    frameworks = [fw for fw in project.frameworks() if fw.name in names]
    envs = {fw.name: environments.ensure(project, fw, create=False) for fw in frameworks}
    assert all(env.ok for env in envs.values()), "run `make test` (it creates the environments first)"
    given = variables.read()
    machine, info = results.this_machine(project, given.machine)
    info = info if gpus is None else {**info, "gpus": gpus}       # (only the number of workers reads it)
    context = RunContext(project, "smoke", Options(), Selection(), given, tuple(frameworks), (example,), (),
                         machine=machine, machine_info=info, envs=envs, log=log)
    return jobs.run_job(context, equivalence.job(context, example, selected=True))


def test_a_planted_momentum_variant_is_caught_and_a_second_check_runs_again_only_its_row(tmp_path, smoke_site):
    """Nesterov's momentum planted in PyTorch's snippet is caught in the training check, while the model (the
    logits) still agrees. After the smoke build's check (the first), the rows whose snippet, adapter,
    environment and inputs are unchanged keep their workers' outputs; the edited row runs again (its noise
    floor and note too), and every pair is compared again: the planted difference is caught as in a first
    check."""
    project, example = copied_project(tmp_path, "cnn_cifar10", smoke_site)
    snippet = example.snippet_path("pytorch")
    source = snippet.read_text()
    assert "momentum=hp.momentum)" in source
    snippet.write_text(source.replace("momentum=hp.momentum)", "momentum=hp.momentum, nesterov=True)"))
    heard = []
    check = run_check(project, example, ["pytorch", "mxnet"], heard.append)
    assert "  equivalence: mxnet (base): ok, kept from the last check (nothing it depends on changed)" in heard
    assert ran(heard) == [    # (the last two side by side)
        "  equivalence: pytorch (base)", "  equivalence: pytorch (note-random)", "  equivalence: pytorch (nudged)"]
    assert check["frameworks"]["mxnet"]["kept"] is True and "kept" not in check["frameworks"]["pytorch"]
    assert not check["passed"]
    planted = [f for f in check["failures"] if f.startswith("training: pytorch vs mxnet")]
    assert planted, check["failures"]
    size = float(re.search(r"differ(?:s)? by ([0-9.e-]+)", planted[0]).group(1))
    assert size > check["tolerance"]["loss"]
    assert check["logits"]["pytorch vs mxnet"] <= 1e-4          # the model itself is unchanged


def test_a_planted_learning_rate_in_a_train_cell_is_caught(tmp_path, smoke_site):
    """trainer.step(1) instead of trainer.step(batch_size): Gluon's gradients are summed over the batch, so
    this is a 64 times larger learning rate, in the timed cell only (the adapters never see it)."""
    project, example = copied_project(tmp_path, "cnn_cifar10", smoke_site)
    snippet = example.snippet_path("mxnet")
    source = snippet.read_text()
    assert "trainer.step(hp.batch_size)" in source
    snippet.write_text(source.replace("trainer.step(hp.batch_size)", "trainer.step(1)"))
    check = run_check(project, example, ["pytorch", "mxnet"])
    print("\n".join(check["failures"]))         # shown with -s: what the build prints
    planted = [f for f in check["failures"] if f.startswith("train cell: pytorch vs mxnet:")]
    assert planted, check["failures"]
    assert check["cell_weights"]["pytorch vs mxnet"] > check["weights_tolerance"]["pytorch vs mxnet"]
    assert any(f.startswith("train cell: mxnet:") for f in check["failures"]), "and against its own steps"
    assert check["weights"]["pytorch vs mxnet"] <= check["tolerance"]["weights"], "the adapters' steps agree"


def test_a_data_parallel_loss_averaged_over_the_share_instead_of_the_batch_is_caught_against_one_worker(
        tmp_path, smoke_site):
    """The classic slip of a hand-written data-parallel step: each worker divides its summed loss by its own
    share, so the all-reduced gradient is N times the batch mean. On 1 worker the share is the batch, so only
    the comparison with 1 worker can see it; the pair with another row sees it too."""
    project, example = copied_project(tmp_path, "cnn_cifar10_data_parallel", smoke_site)
    snippet = example.snippet_path("tensorflow")
    source = snippet.read_text()
    assert "logits=logits)) / hp.batch_size" in source
    snippet.write_text(source.replace("logits=logits)) / hp.batch_size", "logits=logits)) / share"))
    check = run_check(project, example, ["pytorch", "tensorflow"])
    planted = [f for f in check["failures"] if f.startswith("workers: tensorflow: the loss on 2 workers differs")]
    assert planted, check["failures"]
    assert check["workers"]["rows"]["tensorflow"]["loss"] == pytest.approx(0.5, abs=0.05), "twice the loss"
    assert not any(f.startswith("workers: pytorch") for f in check["failures"]), check["failures"]
    assert check["workers"]["rows"]["tensorflow"]["ranks_differ"] == 0.0, "its ranks still agree with each other"
    assert any(f.startswith("training: pytorch vs tensorflow") for f in check["failures"])


def test_on_a_machine_with_one_gpu_a_data_parallel_row_is_checked_on_one_worker(tmp_path, smoke_site):
    """The prepared GPU run has one GPU: each data-parallel row runs as 1 worker (ranks.workers_here), still
    started as its launcher would and still with its train cell in a launch of its own; there is no second
    run to hold it against. Run here on the CPU with the machine said to have one GPU."""
    project, example = copied_project(tmp_path, "cnn_cifar10_data_parallel", smoke_site)
    heard = []
    check = run_check(project, example, ["pytorch", "mxnet"], heard.append, gpus=[{"name": "one GPU"}])
    assert check["passed"], check["failures"]
    assert check["workers"] is None
    done = sorted(re.sub(r": ok( in .*|, kept .*)$", "", line) for line in heard if ": ok" in line)   # (run or kept)
    assert "  equivalence: pytorch (base-1w)" in done and "  equivalence: pytorch (base-1w-cell)" in done, done
    assert not any("2w" in line for line in done), done


def test_a_broken_adapter_is_caught(tmp_path, smoke_site):
    project, example = copied_project(tmp_path, "gru_imdb", smoke_site)
    adapter = equivalence.adapter_path(example, "keras")
    source = adapter.read_text()
    # Forget that Keras orders the gates z, r, n: the classic slip when porting GRU weights.
    adapter.write_text(source.replace("return np.concatenate([z, r, n], axis=axis)",
                                      "return np.concatenate([r, z, n], axis=axis)"))
    check = run_check(project, example, ["keras-tensorflow", "mxnet"])
    forward = [f for f in check["failures"] if f.startswith("forward: keras-tensorflow vs mxnet")]
    assert forward, check["failures"]
    assert float(re.search(r"= ([0-9.e-]+)", forward[0]).group(1)) > 1e-4
    assert check["roundtrip"]["keras-tensorflow"] == 0.0             # a consistent slip still round-trips


def test_an_edited_model_is_caught_in_the_forward_check(tmp_path, smoke_site):
    project, example = copied_project(tmp_path, "cnn_cifar10", smoke_site)
    snippet = example.snippet_path("mxnet")
    source = snippet.read_text()
    first_conv = 'nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),'
    assert first_conv in source
    snippet.write_text(source.replace(first_conv, first_conv.replace('"relu"', '"tanh"'), 1))
    check = run_check(project, example, ["keras-tensorflow", "mxnet"])
    forward = [f for f in check["failures"] if f.startswith("forward: keras-tensorflow vs mxnet")]
    assert forward, check["failures"]
    assert check["roundtrip"]["mxnet"] == 0.0                 # the weights went in right: the model differs


def test_an_adapter_that_raises_is_reported_and_the_others_still_run(tmp_path, smoke_site):
    project, example = copied_project(tmp_path, "gru_imdb", smoke_site)
    adapter = equivalence.adapter_path(example, "mxnet")
    adapter.write_text(adapter.read_text().replace(
        "def load(ns, weights, x):\n", "def load(ns, weights, x):\n    raise RuntimeError('planted adapter error')\n"))
    check = run_check(project, example, ["pytorch", "mxnet"])
    assert check["frameworks"]["pytorch"]["status"] == "ok"
    assert check["frameworks"]["mxnet"]["status"] == "failed"
    assert "mxnet: failed: worker exited 1: RuntimeError: planted adapter error" in check["failures"]
    assert not check["passed"]
    eps_note = next(n for n in check["notes"] if "epsilon" in n["title"])
    assert eps_note["measured"] == {"status": "not-run", "reason": "mxnet did not run"}
