"""The neutral format and the pairwise comparison (numpy only: no framework needed)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rosetta import neutral
from rosetta.build import comparison, equivalence, staleness, store
from rosetta.project import UsageError
from rosetta.settings import settings
from rosetta.site import same_model

EXAMPLES = ["cnn_cifar10", "gru_imdb", "resnet50_features"]


def spec_of(project, name):
    return equivalence.load_spec(project, project.example(name), "cpu")


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_has_a_spec_and_an_adapter_per_framework(project, name):
    example = project.example(name)
    spec = spec_of(project, name)
    assert len(set(spec.names())) == len(spec.names()) > 0
    # Every Python tab. A JavaScript tab runs in a worker of its own (rosetta/js/equivalence_worker.ts) where it
    # has an adapter (TensorFlow.js's); without one (ConvNetJS, one image at a time in plain JavaScript) it is
    # "not compared", and its page says so.
    for fw in project.frameworks():
        if example.snippet_path(fw).exists() and fw.language == "python":
            assert equivalence.adapter_path(example, fw).exists(), fw.name
    for note in spec.notes:
        assert set(note["frameworks"]) <= {fw.name for fw in project.frameworks()}
    # The overrides name existing settings (settings() would refuse the others).
    known = settings(name, "cpu").as_dict()
    assert set(spec.overrides) <= set(known)


def test_shapes_follow_the_settings(project):
    spec = spec_of(project, "gru_imdb")
    shapes = {t.name: t.shape for t in spec.tensors}
    assert shapes["embedding"] == (30000, 125)
    assert shapes["gru.input_kernel"] == (125, 300) and shapes["gru.recurrent_kernel"] == (100, 300)
    assert spec.inputs["shape"] == [150] and spec.inputs["vocabulary"] == 30000
    assert spec_of(project, "cnn_cifar10").overrides["dropout_dense"] == 0.0


def test_resnet_tensors_are_torchvision_names_and_sizes(project):
    spec = spec_of(project, "resnet50_features")
    names = spec.names()
    assert names[:2] == ["conv1.weight", "bn1.weight"] and "layer4.2.bn3.running_var" in names
    assert sum("downsample.0.weight" in n for n in names) == 4 and sum(n.endswith("conv2.weight") for n in names) == 16
    learned = sum(int(np.prod(t.shape)) for t in spec.tensors if "running_" not in t.name)
    assert learned == 25_557_032 - (2048 * 1000 + 1000)     # torchvision's ResNet-50 without its fc


def test_initial_weights_are_seeded_and_biases_are_not_zero(project):
    spec = spec_of(project, "cnn_cifar10")
    a, b = neutral.initial_weights(spec, 0), neutral.initial_weights(spec, 0)
    assert all(np.array_equal(a[n], b[n]) and a[n].dtype == np.float32 for n in a)
    assert not np.array_equal(a["fc1.kernel"], neutral.initial_weights(spec, 1)["fc1.kernel"])
    assert np.all(a["conv1.bias"] != 0)
    limit = np.sqrt(6 / (27 + 450))
    assert np.abs(a["conv1.kernel"]).max() <= limit
    resnet = neutral.initial_weights(spec_of(project, "resnet50_features"), 0)
    assert resnet["bn1.running_var"].min() >= 0.5


def test_batches_are_seeded_and_distinct_tokens_do_not_repeat(project):
    spec = spec_of(project, "gru_imdb")
    plain, again = neutral.batches(spec, 0), neutral.batches(spec, 0)
    assert all(np.array_equal(plain[k], again[k]) for k in plain)
    assert plain["train_x"].shape == (20, 64, 150) and plain["train_y"].shape == (20, 64)
    distinct = neutral.batches(spec, 0, "distinct_tokens")
    for batch in distinct["train_x"]:
        assert len(np.unique(batch)) == batch.size
    assert any(len(np.unique(b)) < b.size for b in plain["train_x"])   # repeats happen in the plain ones
    with pytest.raises(neutral.SpecError, match="distinct_tokens needs token inputs"):
        neutral.batches(spec_of(project, "cnn_cifar10"), 0, "distinct_tokens")


def test_nudged_weights_move_by_one_ulp(project):
    weights = neutral.initial_weights(spec_of(project, "cnn_cifar10"), 0)
    nudged = neutral.nudged(weights, 0)
    for name, value in weights.items():
        steps = np.abs(nudged[name].view(np.int32).astype(np.int64) - value.view(np.int32).astype(np.int64))
        assert steps.max() == 1 and steps.min() == 1, name


def test_check_weights_names_what_is_wrong(project):
    spec = spec_of(project, "cnn_cifar10")
    weights = neutral.initial_weights(spec, 0)
    weights["fc1.kernel"] = weights["fc1.kernel"].T
    del weights["fc2.bias"]
    with pytest.raises(neutral.SpecError, match=r"missing \['fc2.bias'\].*fc1.kernel \(512, 6400\)"):
        neutral.check_weights(spec, weights, "test")


# --- compare(): synthetic outputs -------------------------------------------------------------------

def fake_outputs(spec, initial, names, rng):
    """What workers would return: identical logits, losses and final weights, then perturbed per test."""
    logits = rng.standard_normal((4, 10)).astype(np.float32)
    losses = np.linspace(2.3, 2.2, spec.steps)
    final = {n: v + 0.01 for n, v in initial.items()}
    return {name: {"logits": logits.copy(), "losses": losses.copy(),
                   **{f"roundtrip/{n}": v.copy() for n, v in initial.items()},
                   **{f"final/{n}": v.copy() for n, v in final.items()}} for name in names}


@pytest.fixture
def cnn(project):
    spec = spec_of(project, "cnn_cifar10")
    return spec, neutral.initial_weights(spec, 0)


def test_identical_outputs_pass(cnn):
    spec, initial = cnn
    outputs = fake_outputs(spec, initial, ["a", "b", "c"], np.random.default_rng(0))
    compared = comparison.compare(spec, initial, outputs)
    assert compared["failures"] == []
    assert set(compared["logits"]) == {"a vs b", "a vs c", "b vs c"}
    assert compared["roundtrip"] == {"a": 0.0, "b": 0.0, "c": 0.0}
    assert compared["moved"]["a"] == pytest.approx(0.01, rel=1e-3)


def test_each_kind_of_difference_names_the_pair_and_its_size(cnn):
    spec, initial = cnn
    outputs = fake_outputs(spec, initial, ["a", "b"], np.random.default_rng(0))
    outputs["b"]["logits"][0, 0] += 0.5
    outputs["b"]["losses"][6] *= 1.01
    outputs["b"]["final/fc2.bias"][3] += 0.02
    outputs["b"]["roundtrip/conv3.kernel"][0, 0, 0, 0] += 1e-7
    failures = comparison.compare(spec, initial, outputs)["failures"]
    text = "\n".join(failures)
    assert "b: round trip neutral -> b -> neutral is not exact: conv3.kernel differs by" in text
    assert "forward: a vs b: max |Δ logits| = 0.5 (tolerance 0.0001)" in text
    assert "training: a vs b: loss differs by 0.0099" in text and "at step 7" in text
    assert "training: a vs b: final weights differ by 0.02 in fc2.bias" in text


def test_a_data_parallel_row_is_held_to_its_run_on_one_worker_and_its_ranks_to_each_other(cnn):
    """N workers against 1: the losses and final weights within the example's tolerances, and every rank's copy
    of the model exactly rank 0's. A failure names the row and the size."""
    spec, initial = cnn
    many = fake_outputs(spec, initial, ["a", "b", "c"], np.random.default_rng(0))
    one = fake_outputs(spec, initial, ["a", "b", "c"], np.random.default_rng(0))
    one["b"]["losses"][3] *= 1.01                      # b's shares summed wrong: another loss
    one["b"]["final/conv1.bias"][0] += 0.01
    outcomes = {"a": {"status": "ok", "ranks_differ": 0.0}, "b": {"status": "ok", "ranks_differ": 0.0},
                "c": {"status": "ok", "ranks_differ": 2e-7}}
    alone = {name: {"status": "ok", "arrays": arrays} for name, arrays in one.items()}
    alone["c"] = {"status": "failed", "reason": "rank 0 exited 1: RuntimeError: boom"}
    result = comparison.against_one_worker(spec, 2, outcomes, many, alone)
    assert result["workers"] == 2
    assert result["rows"]["a"]["loss"] == 0 and result["rows"]["a"]["weights"] == 0
    text = "\n".join(result["failures"])
    assert "workers: b: the loss on 2 workers differs from 1 worker's by 0.0099" in text and "at step 4" in text
    assert "workers: b: the final weights on 2 workers differ from 1 worker's by 0.01 in conv1.bias" in text
    assert "c on 1 worker: failed: rank 0 exited 1: RuntimeError: boom" in text
    assert result["rows"]["c"] == {"status": "failed", "reason": "rank 0 exited 1: RuntimeError: boom"}
    assert not any(line.startswith("workers: a") for line in result["failures"])
    outcomes["c"] = {"status": "ok", "ranks_differ": 2e-7}
    alone["c"] = {"status": "ok", "arrays": one["c"]}
    text = "\n".join(comparison.against_one_worker(spec, 2, outcomes, many, alone)["failures"])
    assert "workers: c: the ranks' copies of the model differ by 2e-07" in text


def test_a_wrong_shape_from_an_adapter_is_reported_not_compared(cnn):
    spec, initial = cnn
    outputs = fake_outputs(spec, initial, ["a", "b"], np.random.default_rng(0))
    outputs["b"]["roundtrip/fc1.kernel"] = outputs["b"]["roundtrip/fc1.kernel"].T
    compared = comparison.compare(spec, initial, outputs)
    assert any("b adapter, read after load: wrong shapes: fc1.kernel" in f for f in compared["failures"])
    assert compared["logits"] == {}


def test_a_note_allows_the_size_it_explains_for_its_pairs_only(project):
    spec = spec_of(project, "gru_imdb")
    assert comparison.pair_tolerance(spec, "pytorch", "mxnet") == 2e-2
    assert comparison.pair_tolerance(spec, "tensorflow", "pytorch") == 2e-2
    assert comparison.pair_tolerance(spec, "mxnet", "chainer") == spec.tolerance["weights"] == 1e-4


def test_a_different_variant_is_measured_not_judged(project):
    spec = spec_of(project, "resnet50_features")
    initial = {t.name: np.zeros(t.shape, np.float32) for t in spec.tensors[:3]}
    spec = neutral.Spec(**{**spec.__dict__, "tensors": spec.tensors[:3]})
    features = np.ones((2, 2048), np.float32)
    outputs = {name: {"logits": features * scale, "losses": np.zeros(0),
                      **{f"roundtrip/{n}": v for n, v in initial.items()},
                      **{f"final/{n}": v for n, v in initial.items()}}
               for name, scale in (("pytorch", 1.5), ("tensorflow", 1.0), ("mxnet", 1.0005), ("chainer", 1.0))}
    compared = comparison.compare(spec, initial, outputs)
    assert compared["logits"]["tensorflow vs mxnet"] == pytest.approx(0.0005 / 1.0005, rel=1e-4)
    assert compared["logits"]["pytorch vs tensorflow"] == pytest.approx(0.5)
    assert compared["failures"] == []          # pytorch (v1.5) and chainer (Caffe pooling) are exempt
    outputs["mxnet"]["logits"] = features * 1.01
    assert compared["losses"] == {} and any(
        "tensorflow vs mxnet" in f for f in comparison.compare(spec, initial, outputs)["failures"])


class FakeEnv:
    ok = True

    def __init__(self, digest):
        self.fingerprint_hash = digest


def test_the_checks_rerun_when_an_adapter_or_an_environment_changes(tmp_path, project):
    import shutil

    from rosetta.project import Project
    shutil.copytree(project.snippets / "gru_imdb", tmp_path / "snippets" / "gru_imdb")
    copy = Project(root=tmp_path, envs=project.envs)
    example = copy.example("gru_imdb")
    frameworks = project.frameworks()
    envs = {fw.name: FakeEnv("a") for fw in frameworks}
    key = equivalence.cache_key(copy, example, frameworks, envs, "cpu", "m")
    assert key == equivalence.cache_key(copy, example, frameworks, envs, "cpu", "m")
    assert key != equivalence.cache_key(copy, example, frameworks, {**envs, "mxnet": FakeEnv("b")}, "cpu", "m")
    adapter = equivalence.adapter_path(example, "chainer")
    adapter.write_text(adapter.read_text() + "\n# edited\n")
    assert key != equivalence.cache_key(copy, example, frameworks, envs, "cpu", "m")


def test_a_result_on_record_is_marked_stale_once_its_inputs_change(tmp_path, project):
    import json
    import shutil

    from rosetta.project import Project
    shutil.copytree(project.snippets / "cnn_cifar10", tmp_path / "snippets" / "cnn_cifar10")
    copy = Project(root=tmp_path, envs=project.envs)
    example = copy.example("cnn_cifar10")
    frameworks = project.frameworks()
    envs = {fw.name: FakeEnv("a") for fw in frameworks}
    path = store.CHECK.path(copy.results, "m", "cpu", example.name)
    path.parent.mkdir(parents=True)
    key = equivalence.cache_key(copy, example, frameworks, envs, "cpu", "m")
    path.write_text(json.dumps({"api_version": store.CHECK.api_version, "cache_key": key, "example": example.name,
                                "frameworks": {}, "failures": [], "passed": True}))
    assert staleness.check_on_record(copy, example, "cpu", "m", frameworks, envs)["stale"] is False
    snippet = example.snippet_path("mxnet")
    source = snippet.read_text()
    assert "trainer.step(hp.batch_size)" in source
    snippet.write_text(source.replace("trainer.step(hp.batch_size)", "trainer.step(1)"))
    assert staleness.check_on_record(copy, example, "cpu", "m", frameworks, envs)["stale"] is True
    snippet.write_text(source)
    assert staleness.check_on_record(copy, example, "cpu", "m", frameworks, envs)["stale"] is False
    path.write_text("{not json")
    assert staleness.check_on_record(copy, example, "cpu", "m", frameworks, envs) is None
    heard = []
    assert store.previous(store.CHECK, path, heard.append) is None
    assert len(heard) == 1 and heard[0].startswith(f"  {path}: not valid JSON, truncated or edited")
    assert heard[0].endswith(": treated as missing, measured again")


def test_the_smoke_profile_compares_fewer_steps_and_a_profile_changes_nothing_else(project, tmp_path):
    for name in ("cnn_cifar10", "gru_imdb"):
        smoke = equivalence.load_spec(project, project.example(name), "smoke")
        assert 2 <= smoke.steps < spec_of(project, name).steps == 20
        assert smoke.forward_batch == spec_of(project, name).forward_batch
    (tmp_path / neutral.SPEC_FILE).write_text("steps = 20\n[profiles.smoke]\nsteps = 5\ntolerance = 1\n"
                                              "[inputs]\nshape = [3]\n[tolerance]\nlogits = 1e-4\n")
    with pytest.raises(neutral.SpecError, match=r"\[profiles.smoke\] may set only forward_batch, steps, "
                                                r"not tolerance"):
        neutral.load_spec(tmp_path, {"profile": "smoke", "batch_size": 4})
    assert neutral.load_spec(tmp_path, {"profile": "cpu", "batch_size": 4}).steps == 20


def test_a_slow_row_is_checked_on_the_batches_its_own_row_trains(project, tmp_path):
    """TensorFlow.js's CNN (own_sizes.toml): its row's own batch size and number of batches at each
    profile (example.toml's [row_sizes]), against PyTorch, whose snippet gets the same batch size to train."""
    example = project.example("cnn_cifar10")
    for profile in ("smoke", "cpu"):
        own = equivalence.own_sizes(example, equivalence.load_spec(project, example, profile), profile)
        assert set(own) == {"tensorflowjs"} and own["tensorflowjs"].against == "pytorch"
        spec, row = own["tensorflowjs"].spec, settings("cnn_cifar10", profile, row="tensorflowjs")
        assert (spec.batch_size, spec.steps * spec.batch_size) == (row.batch_size, row.train_images), profile
        assert spec.overrides["batch_size"] == row.batch_size and spec.notes == () and spec.steps >= 2
        assert "7 hours" in own["tensorflowjs"].why
    assert equivalence.own_sizes(project.example("gru_imdb"), spec_of(project, "gru_imdb"), "cpu") == {}
    (tmp_path / "equivalence").mkdir()
    (tmp_path / "equivalence" / "own_sizes.toml").write_text('[slow]\nsteps = 2\n')
    with pytest.raises(neutral.SpecError, match=r"own_sizes.toml: \[slow\] needs `against`"):
        equivalence.own_sizes(SimpleNamespace(folder=tmp_path), spec_of(project, "cnn_cifar10"), "cpu")
    (tmp_path / "equivalence" / "own_sizes.toml").write_text('[slow]\nagainst = "pytorch"\nbatchsize = 2\n')
    with pytest.raises(UsageError, match=r"own_sizes.toml: unknown key \[slow\] 'batchsize'. Did you mean"):
        equivalence.own_sizes(SimpleNamespace(folder=tmp_path), spec_of(project, "cnn_cifar10"), "cpu")


def test_a_row_on_its_own_sizes_has_a_table_of_every_comparison(cnn):
    spec, initial = cnn
    outputs = fake_outputs(spec, initial, ["pytorch", "tensorflowjs"], np.random.default_rng(0))
    outputs["tensorflowjs"]["losses"][1] *= 1.01
    compared = comparison.compare(spec, initial, outputs)
    result = {"against": "pytorch", "why": "It is slow.", "steps": 2, "batch_size": 8, "forward_batch": 64,
              "frameworks": {"pytorch": {"status": "ok"}}, "noise_floor": None, **compared}
    check = {"tolerance": spec.tolerance, "frameworks": {"tensorflowjs": {"status": "ok"}}}
    labels = {"pytorch": "PyTorch", "tensorflowjs": "TensorFlow.js"}
    text = "\n".join(same_model.own_sizes_lines("tensorflowjs", result, check, labels))
    assert "### TensorFlow.js, on the batches its row trains" in text and "It is slow." in text
    assert "takes 2 steps on batches of 8" in text and "PyTorch is run again on the same batches" in text
    assert "| Round trip neutral → TensorFlow.js → neutral | exact ✓ | exact |" in text
    assert "| Loss at any of the 2 steps, largest relative difference | **9.9e-03 ✗** | 0.001 |" in text
    assert "| Any weight after the last step, largest \\|difference\\| | 0.0e+00 ✓ | 0.003 |" in text
    check["frameworks"]["tensorflowjs"] = {"status": "timeout", "reason": "no answer within 900 s"}
    text = "\n".join(same_model.own_sizes_lines("tensorflowjs", result, check, labels))
    assert "Not compared in this build: TensorFlow.js: timeout (no answer within 900 s)." in text
    assert "| measured |" not in text


def test_a_broken_spec_names_its_file(tmp_path):
    (tmp_path / neutral.SPEC_FILE).write_text("steps = twenty\n")
    with pytest.raises(neutral.SpecError, match=r"weights.toml: Invalid value"):
        neutral.load_spec(tmp_path, {})


def test_a_diverged_run_never_compares_as_close(cnn):
    """NaN > tolerance is False: without care a run that blew up would pass every check."""
    spec, initial = cnn
    outputs = fake_outputs(spec, initial, ["a", "b"], np.random.default_rng(0))
    outputs["b"]["losses"][5:] = np.nan
    outputs["b"]["final/conv1.kernel"][0, 0, 0, 0] = np.inf
    compared = comparison.compare(spec, initial, outputs)
    text = "\n".join(compared["failures"])
    assert "training: a vs b: loss differs by inf (a value is not finite: the run diverged) relative at step 6" in text
    assert "final weights differ by inf" in text and compared["weights"]["a vs b"] == np.inf


def test_the_train_cells_are_compared_across_frameworks_and_with_their_steps(cnn):
    spec, initial = cnn
    outputs = fake_outputs(spec, initial, ["a", "b", "c"], np.random.default_rng(0))
    for name in outputs:
        outputs[name].update({f"cell/{n}": v.copy() for n, v in split_final(outputs[name]).items()})
        outputs[name]["alone"] = outputs[name]["logits"][:1].copy()
    assert comparison.compare(spec, initial, outputs)["failures"] == []
    outputs["c"]["cell/fc2.bias"][0] += 0.05              # only c's timed cell learned something else
    outputs["b"]["alone"][0, 3] += 0.01                  # b's first input depends on its batch
    compared = comparison.compare(spec, initial, outputs)
    text = "\n".join(compared["failures"])
    assert "train cell: a vs c: weights after the snippets' own train cells differ by 0.05 in fc2.bias" in text
    assert "train cell: c: the snippet's own train cell ends 0.05 away from the same 20 steps" in text
    assert "train cell: a vs b" not in text and compared["cell_weights"]["a vs b"] == 0
    assert "forward: b: one input alone differs from the same input in its batch by 0.01" in text


def split_final(arrays):
    return comparison.split(arrays, "final/")


def test_operations_per_sample_are_counted_from_the_neutral_model(project):
    cnn = neutral.operations(spec_of(project, "cnn_cifar10"))
    # conv1..4 at 32x32, 32x32, 16x16, 16x16 output pixels, then two dense layers; 2 operations per multiply-add
    forward = 2 * (50 * 3 * 9 * 1024 + 50 * 50 * 9 * 1024 + 100 * 50 * 9 * 256 + 100 * 100 * 9 * 256
                   + 6400 * 512 + 512 * 10)
    assert cnn["forward"] == forward
    assert cnn["train"] == 3 * forward - 2 * 50 * 3 * 9 * 1024, "no gradient for the images"
    gru = neutral.operations(spec_of(project, "gru_imdb"))
    assert gru["forward"] == 2 * (125 * 300 * 150 + 100 * 300 * 150 + 100 * 2)
    resnet = neutral.operations(spec_of(project, "resnet50_features"))
    assert resnet["forward"] / 1e9 == pytest.approx(7.71, abs=0.01), "ResNet-50 v1 at 224 x 224"


def test_the_operation_count_is_checked_against_a_framework_counter(project):
    spec = spec_of(project, "resnet50_features")
    neutral_forward = neutral.operations(spec)["forward"]
    per_framework = {"mxnet": {"status": "ok", "facts": {}},
                     "pytorch": {"status": "ok", "facts": {"forward GFLOPs per sample": 8.17}}}
    as_built = comparison.operations_check(spec, per_framework, [])
    assert as_built["counted"]["variant"] == "as built" and "train" not in as_built["neutral"]
    assert as_built["differences"]["forward"] > comparison.OPERATIONS_TOLERANCE
    note = {"title": "v1.5", "different_function": True, "frameworks": ["pytorch"],
            "measured": {"frameworks": {"pytorch": {"facts_after": {"forward GFLOPs per sample":
                                                                    neutral_forward / 1e9 * 1.001}}}}}
    variant = comparison.operations_check(spec, per_framework, [note])
    assert variant["counted"]["variant"].startswith("with the change of the note")
    assert variant["differences"]["forward"] == pytest.approx(0.001, rel=1e-3)
    # The note's change could not be measured (its `against` row did not run): PyTorch's count is not
    # the neutral model's, so it is not compared; the next counter would be, and here there is none.
    unmeasured = comparison.operations_check(spec, per_framework, [{**note, "measured": None}])
    assert unmeasured["counted"] is None and unmeasured["differences"] == {}


def test_a_check_made_on_another_machine_is_shown_where_this_one_has_none(tmp_path, project):
    """A build on a new machine (no check of its own yet) shows the reference's check, judged stale or not
    by the key of the machine that made it; this machine's own check, once made, comes first."""
    import json
    import shutil

    from rosetta.project import Project
    shutil.copytree(project.root / "benchmarks" / "reference", tmp_path / "elsewhere")
    here = Project(root=project.root, results=tmp_path / "results", extra_results=(tmp_path / "elsewhere",))
    example, frameworks = here.example("cnn_cifar10"), here.frameworks()
    made = max((tmp_path / "elsewhere").glob("*/cpu/_equivalence/cnn_cifar10.json"),   # the newest check on record
               key=lambda path: json.loads(path.read_text())["date"])
    shown = staleness.check_on_record(here, example, "cpu", "a-new-machine", frameworks, {})
    assert shown["machine"] == made.parent.parent.parent.name and shown["stale"] is False
    assert staleness.check_on_record(here, example, "smoke", "a-new-machine", frameworks, {}) is None, \
        "only a check of the same profile stands in"
    planted = json.loads(made.read_text())
    made.write_text(json.dumps({**planted, "cache_key": "0" * 64}))
    assert staleness.check_on_record(here, example, "cpu", "a-new-machine", frameworks, {})["stale"] is True
    own = store.CHECK.path(here.results, "a-new-machine", "cpu", example.name)
    own.parent.mkdir(parents=True)
    own.write_text(json.dumps({**planted, "machine": "a-new-machine", "date": "2000-01-01"}))
    assert staleness.check_on_record(here, example, "cpu", "a-new-machine", frameworks, {})["machine"] == \
        "a-new-machine", "this machine's own check, however old, comes first"


def test_a_javascript_worker_gets_and_gives_its_arrays_as_raw_files(tmp_path):
    """js_worker: the job's .npz files as raw files with an index (token ids int32), and the worker's raw output
    back as out.npz, value for value."""
    from rosetta.build import js_worker
    arrays = {"gru.input_kernel": np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32),
              "train_x": np.arange(12, dtype=np.int64).reshape(2, 2, 3), "seconds": np.array(1.5)}
    js_worker.write_raw(arrays, tmp_path / "raw")
    back = js_worker.read_raw(tmp_path / "raw")
    assert back["train_x"].dtype == np.int32 and np.array_equal(back["train_x"], arrays["train_x"])
    assert back["gru.input_kernel"].dtype == np.float32 and np.array_equal(back["gru.input_kernel"],
                                                                            arrays["gru.input_kernel"])
    assert back["seconds"].shape == () and float(back["seconds"]) == 1.5
    with pytest.raises(ValueError, match="beyond int32"):
        js_worker.write_raw({"ids": np.array([2 ** 40])}, tmp_path / "too-big")
    with pytest.raises(TypeError, match="complex"):
        js_worker.write_raw({"z": np.zeros(2, dtype=np.complex64)}, tmp_path / "complex")
