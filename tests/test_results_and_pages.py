"""Results files (schema, machine, cache key) and page helpers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rosetta.build import results, store, variables
from rosetta.project import Project
from rosetta.site import benchmark_page, framework_page, gather, markup
from rosetta.site.gather.common import Columns


def test_result_files_refuse_other_versions(tmp_path):
    project = Project(root=tmp_path)
    record = {"api_version": store.BENCHMARK.api_version, "machine": "m", "profile": "cpu", "example": "e",
              "framework": "f", "status": "ok", "steps": {}, "metrics": {}, "provenance": {}}
    path = store.save(store.BENCHMARK, store.BENCHMARK.path(project.results, "m", "cpu", "e", "f"), record)
    assert store.load(store.BENCHMARK, path)["status"] == "ok"
    path.write_text(json.dumps({**record, "api_version": 99}))
    with pytest.raises(store.ResultFileError, match="format 99"):
        store.load(store.BENCHMARK, path)
    assert store.all_stored(project, store.BENCHMARK, "e") == []


@pytest.mark.parametrize("damage, problem", [
    (lambda text: text[: len(text) // 2], "not valid JSON, truncated or edited"),      # a write cut off
    (lambda text: "", "not valid JSON"),
    (lambda text: "[1, 2]", "holds a list, not a record"),
    (lambda text: text.replace('"steps"', '"stpes"'), "fields missing: steps"),          # edited by hand
    (lambda text: text.encode("utf-16").decode("latin-1"), "not valid JSON"),
])
def test_a_damaged_result_file_is_named_with_its_problem(tmp_path, damage, problem):
    project = Project(root=tmp_path)
    record = {"api_version": store.BENCHMARK.api_version, "machine": "m", "profile": "cpu", "example": "e",
              "framework": "f", "status": "ok", "steps": {}, "metrics": {}, "provenance": {}}
    path = store.save(store.BENCHMARK, store.BENCHMARK.path(project.results, "m", "cpu", "e", "f"), record)
    path.write_text(damage(path.read_text()))
    with pytest.raises(store.ResultFileError) as raised:
        store.load(store.BENCHMARK, path)
    assert str(raised.value).startswith(f"{path}: ") and problem in str(raised.value)
    assert store.all_stored(project, store.BENCHMARK, "e") == [], "the pages skip it; the build measures it again"


def test_a_write_that_fails_leaves_the_stored_file_as_it_was(tmp_path):
    """A full disk: one error naming the path; the file already there is intact and no part file is left.
    The disk is /dev/full (every write to it fails with ENOSPC), where the new version is written first."""
    from rosetta.build.files import UnwritableError, write_atomically
    path = write_atomically(tmp_path / "store" / "a.json", '{"kept": true}')
    (tmp_path / "store" / "a.json.part").symlink_to("/dev/full")
    with pytest.raises(UnwritableError, match=f"cannot write {path}: the disk is full; what was stored"):
        write_atomically(path, '{"kept": false}')
    assert json.loads(path.read_text()) == {"kept": True} and list(path.parent.iterdir()) == [path]


def test_machine_description_and_id(monkeypatch):
    machine = results.describe_machine()
    assert machine["cores"] >= 1 and machine["cpu"] and "cpu_flags" in machine
    monkeypatch.delenv("ROSETTA_MACHINE", raising=False)
    epyc = {"cpu": "AMD EPYC 7B13 64-Core Processor", "cpu_flags": "AVX2", "cores": 2, "gpus": []}
    assert results.machine_id(epyc) == "amd-epyc-7b13-avx2-2-cores"
    assert results.machine_id({"cpu": "x", "cores": 16, "gpus": [{"name": "NVIDIA H200"}]}) == "1x-nvidia-h200"
    monkeypatch.setenv("ROSETTA_MACHINE", "My Box")
    assert results.machine_id(machine, variables.read().machine) == "my-box"


def test_two_machines_of_one_model_at_different_rates_never_share_a_name(monkeypatch):
    """197 and 493 GFLOP/s were both measured on "2-core AMD EPYC": the band of the rate tells them apart."""
    monkeypatch.delenv("ROSETTA_MACHINE", raising=False)
    slow, fast = ({"cpu": "AMD EPYC Processor", "cpu_flags": "AVX2", "cores": 2, "gpus": [],
                   "float32_matmul": {"gflops": rate}} for rate in (197.0, 493.0))
    assert results.machine_id(slow) == "amd-epyc-avx2-2-cores-100-200-gflops"
    assert results.machine_id(fast) == "amd-epyc-avx2-2-cores-400-800-gflops"
    assert results.machine_label(slow) == "2-core AMD EPYC (AVX2), 100–200 GFLOP/s"
    assert results.machine_label(fast) != results.machine_label(slow)
    assert results.peak_band(339) == results.peak_band(350) == (200, 400)


def test_cache_key_changes_with_snippet_env_profile(project, tmp_path):
    example = project.example("cnn_cifar10")
    key = results.cache_key(example, "pytorch", "env1", "cpu", "m", results.RunInputs(1))
    assert key == results.cache_key(example, "pytorch", "env1", "cpu", "m", results.RunInputs(1))
    assert key != results.cache_key(example, "pytorch", "env2", "cpu", "m", results.RunInputs(1))
    assert key != results.cache_key(example, "pytorch", "env1", "full", "m", results.RunInputs(1))
    assert key != results.cache_key(example, "mxnet", "env1", "cpu", "m", results.RunInputs(1))
    assert key != results.cache_key(example, "pytorch", "env1", "cpu", "m", results.RunInputs(3))


def test_summary_and_time_format():
    summary = results.summarise([3.0, 1.0, 2.0])
    assert (summary["median"], summary["min"], summary["max"]) == (2.0, 1.0, 3.0)
    assert markup.time_summary(summary) == "2.00 s (median of 3; 1.00–3.00)"
    assert markup.time_summary(results.summarise([12.345])) == "12.3 s"


def test_fence_outlasts_backticks_and_table_cells_are_safe():
    assert markup.fence("a ```` b").startswith("`````")
    assert markup.cell_text("a | b\nc") == "a \\| b c"


def test_writer_writes_only_changes_and_removes_leftovers(tmp_path):
    writer = markup.Writer(tmp_path)
    writer.write("a.md", "one")
    writer.write("sub/b.md", "two")
    assert writer.finish() == 2
    writer = markup.Writer(tmp_path)
    writer.write("a.md", "one")
    assert writer.finish() == 1          # b.md removed, a.md untouched
    assert not (tmp_path / "sub").exists() and (tmp_path / "a.md").read_text() == "one"


def test_outputs_text_is_capped():
    cell = {"outputs": [{"output_type": "stream", "text": "\n".join(str(i) for i in range(100))}]}
    text = markup.outputs_text([cell])
    assert text.splitlines()[-1].startswith("… 60 more lines")


def test_messages_are_escaped_not_read_as_markup():
    message = "provide cifar10-jpeg/{train,test}/<class>/<image> in __init__.py [1] a|b *x*"
    escaped = markup.escape(message)
    for raw in ("<class>", "__init__", "[1]", "*x*", "/{train"):
        assert raw not in escaped
    # Every escape is a backslash before the very character: the reader sees the message unchanged.
    assert escaped.replace("\\", "") == message
    assert markup.cell_text("a <b>\nc") == "a \\<b\\> c"


def _record(machine, framework, seconds, accuracy, status="ok"):
    return {"machine": machine, "profile": "cpu", "framework": framework, "status": status, "stale": False,
            "steps": {"train": results.summarise([seconds])}, "metrics": {"accuracy": accuracy, "throughput": 10.0},
            "provenance": {"repeats": 1, "weights": "trained"}, "reason": "", "error": None}


def table_rows(table: str) -> tuple[list[str], list[list[str]]]:
    """The header cells and the body rows' cells of a results table."""
    lines = [line for line in table.splitlines() if line.startswith("|")]
    split = lambda line: [c.strip() for c in line.strip().strip("|").split("|")]  # noqa: E731
    return split(lines[0]), [split(line) for line in lines[2:]]


def test_results_table_has_a_row_per_framework_and_machine(project):
    example = project.example("cnn_cifar10")
    frameworks = project.frameworks()[:2]
    columns = [("box-a", "cpu"), ("box-b", "cpu"), ("gpu-box", "full", "reference")]
    by_column = {("box-a", "cpu"): {frameworks[0].name: _record("box-a", frameworks[0].name, 12.5, 0.5)},
                 ("box-b", "cpu"): {frameworks[0].name: _record("box-b", frameworks[0].name, 3.25, 0.25),
                                    frameworks[1].name: _record("box-b", frameworks[1].name, 4.0, 0.75)},
                 ("gpu-box", "full", "reference"): {frameworks[1].name: {
                     **_record("gpu-box", frameworks[1].name, 1.5, 0.8), "stale": True}}}
    labels = {"box-a": "2-core Machine A", "box-b": "Machine B", "gpu-box": "NVIDIA H200 (143771 MiB, driver 1)"}
    table = benchmark_page.results_table(example, frameworks, Columns(
        columns, by_column, labels, origins={("gpu-box", "full", "reference"): "reference results"}))
    legend_header, legend = table_rows(table.split(":::{container} rosetta-results")[0])
    assert legend_header == ["#", "Machine", "float32 peak", "Profile and sizes", "Runs", "Source", "Measured", "Stale"]
    assert [row[:2] for row in legend] == [["[1]", "2-core Machine A (`box-a`)"], ["[2]", "Machine B (`box-b`)"],
                                           ["[3]", "NVIDIA H200 (143771 MiB, driver 1) (`gpu-box`)"]]
    assert [row[3].split(":")[0] for row in legend] == ["`cpu`", "`cpu`", "`full`"]
    assert legend[2][5] == "reference results" and legend[2][7] == "1 of 1" and legend[0][7] == "none"
    header, rows = table_rows(table.split(":::{container} rosetta-results")[1])
    assert header[:4] == ["Framework", "API", "Machine", "train s"], "the width does not grow with machines"
    assert all(len(row) == len(header) for row in rows), "every row has every column"
    first, *others = [row for row in rows if row[0] == frameworks[0].label]
    assert first[2] == "[1] 2-core Machine · cpu" and first[3] == "12.5 s" and "50.00%" in first
    assert len(others) == 1 and others[0][2] == "[2] Machine B · cpu" and others[0][3] == "3.25 s"
    second = [row for row in rows if row[0] == frameworks[1].label]
    assert [row[2] for row in second] == ["[1] 2-core Machine · cpu", "[2] Machine B · cpu", "[3] H200 · full · ref."]
    assert second[0][3] == "not run", "this build's row is always there"
    assert second[0][1] == frameworks[1].api and second[1][1] == second[2][1] == "", "the API said once"
    assert second[2][3] == "1.50 s (stale)"
    assert header[-1] == "original 2017, K80 · P100: images/s", "the original's figures as rates, labelled"
    assert all(row[-1] == "" for row in [*others, *second[1:]]), "the original's figures on a framework's first row"
    # PyTorch's 169 s and 51 s for 10 epochs of 499,840 images: 2,958 and 9,801 images/s
    pytorch = project.framework("pytorch")
    table = benchmark_page.results_table(example, [pytorch],
                                         Columns([("box-a", "cpu")], {("box-a", "cpu"): {}}, labels))
    header, rows = table_rows(table.split(":::{container} rosetta-results")[1])
    assert rows[0][-1] == "2,958 · 9,801"
    assert "Machine" not in header, "one machine: the legend names it, no column repeats it"
    assert "499,840 samples ÷ its seconds" in table and "not with a time measured at other sizes" in table


def test_framework_pages_show_the_fairness_ratios_and_say_when_they_are_stale(project):
    fw = project.framework("keras-tensorflow")
    examples = project.examples()
    cnn = project.example("cnn_cifar10")
    plain = project.root / "benchmarks" / "plain" / "cnn_cifar10" / "keras.py"

    def entry(snippet_sha):
        summary = {"status": "ok", "median": 5.5, "min": 5.0, "max": 6.0}
        return {"example": "cnn_cifar10", "framework": "keras-tensorflow", "verdict": "snippet >10 % slower",
                "same_work": True, "ratios": {"kernel/plain": 1.25},
                "variants": {"kernel": summary, "script": {**summary, "median": 4.5},
                             "plain": {**summary, "median": 4.4}},
                "provenance": {"machine": {"cpu": "Some CPU", "cores": 2, "gpus": []}, "profile": "cpu",
                               "sizes": {"train_images": 2560}, "repeats": 3, "date": "2026-11-30T20:00:00",
                               "snippet_sha256": snippet_sha, "plain_sha256": results.file_sha256(plain)}}

    current = framework_page.fairness_section(
        fw, gather.framework.fairness(project, fw, examples, [entry(results.file_sha256(cnn.snippet_path(fw)))]))
    row = next(line for line in current if line.startswith("| CNN"))
    assert "| 5.50 (5.00–6.00) | 4.50 (5.00–6.00) | 4.40 (5.00–6.00) | 1.25 | snippet \\>10 % slower; its runs in " \
           "the kernel differ by up to 1.20× |" in row
    assert "2-core Some" in row
    old = framework_page.fairness_section(fw, gather.framework.fairness(project, fw, examples, [entry("0" * 64)]))
    assert "(stale: the code changed since)" in next(line for line in old if line.startswith("| CNN"))
    mxnet = project.framework("mxnet")
    assert "Not measured on any machine yet." in framework_page.fairness_section(
        mxnet, gather.framework.fairness(project, mxnet, examples, [entry("x")]))



def test_a_javascript_tab_s_fairness_row_has_no_run_without_a_kernel_and_says_why(project):
    tfjs, gru = project.framework("tensorflowjs"), project.example("gru_imdb")
    summary = {"status": "ok", "median": 70.0, "min": 69.0, "max": 71.0}
    entry = {"example": "gru_imdb", "framework": "tensorflowjs", "verdict": "within 10 %", "same_work": True,
             "ratios": {"kernel/plain": 1.02}, "variants": {"kernel": summary, "plain": {**summary, "median": 68.6}},
             "provenance": {"machine": {"cpu": "Some CPU", "cores": 2, "gpus": []}, "profile": "cpu",
                            "sizes": {"train_reviews": 640}, "repeats": 3, "date": "2026-12-07T14:00:00"}}
    lines = framework_page.fairness_section(tfjs, [gather.framework.FairnessEntry(entry, gru, False)])
    row = next(line for line in lines if line.startswith("| GRU"))
    assert "| 70.00 (69.00–71.00) | — | 68.60 (69.00–71.00) | 1.02 | within 10 %" in row
    assert "A JavaScript tab has no run without a kernel" in " ".join(lines)
    assert "failed" not in row


def test_a_plain_twin_written_another_way_shows_its_time_and_what_the_plain_twin_s_way_costs(project):
    jax, cnn = project.framework("jax"), project.example("cnn_cifar10")
    summary = {"status": "ok", "median": 30.0, "min": 29.0, "max": 31.0}
    entry = {"example": "cnn_cifar10", "framework": "jax", "verdict": "within 10 %", "same_work": True,
             "ratios": {"kernel/plain": 1.0, "plain/plain@pure-jit": 1.2},
             "variants": {"kernel": summary, "script": summary, "plain": summary,
                          "plain@pure-jit": {**summary, "median": 25.0, "min": 24.5, "max": 25.5}},
             "provenance": {"machine": {"cpu": "Some CPU", "cores": 2, "gpus": []}, "profile": "cpu",
                            "sizes": {"train_images": 3200}, "repeats": 3, "date": "2026-12-02T20:00:00",
                            "alternatives": {"plain@pure-jit": {
                                "file": "benchmarks/plain/cnn_cifar10/jax@pure-jit.py", "identity": "x",
                                "about": "Plain-script twin of snippets/cnn_cifar10/jax.py without Flax: pure "
                                         "functions under jax.jit"}}}}
    lines = framework_page.fairness_section(jax, [gather.framework.FairnessEntry(entry, cnn, False)])
    other = next(line for line in lines if line.startswith("- CNN"))
    assert other == ("- CNN on CIFAR-10, written another way: `benchmarks/plain/cnn_cifar10/jax@pure-jit.py` "
                     "(without Flax: pure functions under jax.jit): 25.00 s (24.50–25.50); the plain twin takes "
                     "1.20× its time.")


def test_the_share_of_the_peak_is_throughput_times_operations_over_the_machine_rate(project):
    example = project.example("cnn_cifar10")
    fw = project.frameworks()[0]
    record = _record("box", fw.name, 10.0, 0.5)            # 10 images/s
    columns = [("box", "cpu"), ("other", "cpu")]
    by_column = {("box", "cpu"): {fw.name: record}, ("other", "cpu"): {fw.name: {**record, "machine": "other"}}}
    table = benchmark_page.results_table(example, [fw], Columns(columns, by_column, {},
                                                                peaks={"box": {"gflops": 100.0}}), 2e9)
    table = table.split(":::{container} rosetta-results")[1]
    header, rows = table_rows(table)
    assert "% of peak" in header
    assert rows[0][header.index("% of peak")] == "20.0%", "10 images/s x 2 GFLOP / 100 GFLOP/s"
    assert rows[1][header.index("% of peak")] == "", "no rate on record for the other machine"
    # The same machine's reference results carry the rate of their own machine.json, not this build's.
    reference = ("box", "cpu", "reference")
    table = benchmark_page.results_table(example, [fw], Columns(
        [("box", "cpu"), reference], {("box", "cpu"): {fw.name: record}, reference: {fw.name: record}}, {},
        peaks={("box", "cpu"): {"gflops": 100.0}, reference: {"gflops": 50.0}}), 2e9)
    legend_header, legend = table_rows(table.split(":::{container} rosetta-results")[0])
    assert [row[2] for row in legend] == ["100 GFLOP/s", "50 GFLOP/s"], "each machine's own rate, in its legend row"
    header, rows = table_rows(table.split(":::{container} rosetta-results")[1])
    assert [row[header.index("% of peak")] for row in rows] == ["20.0%", "40.0%"]
    assert gather.framework.peak_fraction(record, None, {"gflops": 1.0}) is None
    # A run that recorded its machine's rate is measured against that one, not its folder's machine.json (which a
    # later, partial run rewrites); the legend says the runs' own rates, a range where they differ.
    def ran_at(gflops, framework):
        provenance = {**record.get("provenance", {}), "machine": {"float32_matmul": {"gflops": gflops}}}
        return {**record, "framework": framework, "provenance": provenance}
    column = {fw.name: ran_at(40.0, fw.name)}
    table = benchmark_page.results_table(example, [fw], Columns(
        [reference], {reference: column}, {}, peaks={reference: {"gflops": 50.0}}), 2e9)
    legend_header, legend = table_rows(table.split(":::{container} rosetta-results")[0])
    assert legend[0][2] == "40 GFLOP/s", legend
    header, rows = table_rows(table.split(":::{container} rosetta-results")[1])
    assert rows[0][header.index("% of peak")] == "50.0%", "10 images/s x 2 GFLOP / the run's own 40 GFLOP/s"
    column["other"] = ran_at(60.4, "other")
    assert benchmark_page.peak_text(column, {"gflops": 50.0}) == "40–60 GFLOP/s (runs of several days)"
    assert benchmark_page.peak_text({}, {"gflops": 50.0}) == "50 GFLOP/s"


def test_the_machine_rate_is_the_best_environment_s_and_is_kept(tmp_path, monkeypatch):
    import sys

    from rosetta.build.environments import EnvStatus
    from rosetta.project import Framework
    from rosetta.project import Project as P
    project = P(root=tmp_path)
    here = results.describe_machine()
    assert results.known_peak(project.results, here) is None
    # Two "frameworks" run by this very Python: one multiplies, one slows itself down on purpose.
    fast = Framework("fast", "Fast", "", 1, tmp_path / "x.txt", matmul="def make(a, b):\n    return lambda: a @ b\n")
    slow = Framework("slow", "Slow", "", 2, tmp_path / "y.txt",
                     matmul="import time\ndef make(a, b):\n    return lambda: (time.sleep(0.2), a @ b)\n")
    envs = {name: EnvStatus(name, True, python=Path(sys.executable)) for name in ("fast", "slow")}
    monkeypatch.setenv("PYTHONPATH", str(results.REPO_ROOT))     # framework venvs have it by a .pth line
    rate = results.measure_peak(project, [fast, slow], envs, size=256)
    assert set(rate["by"]) == {"numpy (build)", "fast", "slow"}
    assert rate["by"]["slow"] < rate["by"]["fast"] and rate["gflops"] == max(rate["by"].values())
    assert "float32 256x256 product" in rate["how"]
    results.save_machine(project, "m", {**here, "float32_matmul": rate})
    assert results.known_peak(project.results, here) == rate          # found by its hardware, under any name
    assert results.known_peak(project.results, {**here, "cores": here["cores"] + 1}) is None


def test_the_legend_names_the_rows_with_random_weights_unless_all_are():
    def run(weights, status="ok"):
        return {"status": status, "provenance": {"weights": weights}}
    labels = {"jax": "JAX", "pytorch": "PyTorch"}
    zoo = "pretrained (the model zoo's ImageNet weights)"
    mixed = {"pytorch": run(zoo), "jax": run("random weights (seeded): Flax has no ImageNet model zoo")}
    assert benchmark_page.random_weights(mixed, labels) == ", **random weights** for JAX"
    assert benchmark_page.random_weights({"jax": mixed["jax"]}, labels) == ", **random weights**"
    assert benchmark_page.random_weights({"pytorch": run(zoo), "jax": run("random", "failed")}, labels) == ""


def test_a_fairness_ratio_stays_current_through_a_comment_edit_and_goes_stale_with_the_code(project, tmp_path):
    """A record with identities (benchmarks/fairness.py writes them) is judged by the substance of the tab and
    of its plain twin; an older one, with file hashes only, by the bytes."""
    import shutil

    from rosetta.build import identity, staleness
    from rosetta.project import Project
    shutil.copytree(project.snippets / "cnn_cifar10", tmp_path / "snippets" / "cnn_cifar10")
    plain_folder = tmp_path / "benchmarks" / "plain" / "cnn_cifar10"
    shutil.copytree(project.root / "benchmarks" / "plain" / "cnn_cifar10", plain_folder)
    copy = Project(root=tmp_path, envs=project.envs)
    fw, example = copy.framework("pytorch"), copy.example("cnn_cifar10")
    snippet, plain = example.snippet_path(fw), plain_folder / "pytorch.py"
    record = {"example": "cnn_cifar10", "provenance": {
        "snippet_sha256": results.file_sha256(snippet), "plain_sha256": results.file_sha256(plain),
        "snippet_identity": identity.snippet_identity(snippet), "plain_identity": identity.script_identity(plain)}}
    old_style = {"example": "cnn_cifar10", "provenance": {
        "snippet_sha256": results.file_sha256(snippet), "plain_sha256": results.file_sha256(plain)}}
    assert not staleness.fairness_is_stale(copy, example, fw, record)
    assert not staleness.fairness_is_stale(copy, example, fw, old_style)
    plain.write_text(plain.read_text() + "\n# a comment\n")
    snippet.write_text(snippet.read_text().replace("\n", "\n# a comment\n", 1))
    assert not staleness.fairness_is_stale(copy, example, fw, record), "a comment changes no measurement"
    assert staleness.fairness_is_stale(copy, example, fw, old_style), "without identities, the bytes decide"
    plain.write_text(plain.read_text() + "x = 1\n")
    assert staleness.fairness_is_stale(copy, example, fw, record), "the plain twin's code changed"
    assert staleness.fairness_is_stale(copy, None, fw, record), "an example that is gone"


def test_a_fairness_record_goes_stale_when_another_plain_twin_changes_or_goes(project, tmp_path):
    """JAX's record carries its pure-jax.jit twin's identity too: that twin's time is on the page as well."""
    import shutil

    from rosetta.build import identity, staleness
    from rosetta.project import Project
    shutil.copytree(project.snippets / "cnn_cifar10", tmp_path / "snippets" / "cnn_cifar10")
    plain_folder = tmp_path / "benchmarks" / "plain" / "cnn_cifar10"
    shutil.copytree(project.root / "benchmarks" / "plain" / "cnn_cifar10", plain_folder)
    copy = Project(root=tmp_path, envs=project.envs)
    fw, example = copy.framework("jax"), copy.example("cnn_cifar10")
    other = plain_folder / "jax@pure-jit.py"
    record = {"example": "cnn_cifar10", "provenance": {
        "snippet_identity": identity.snippet_identity(example.snippet_path(fw)),
        "plain_identity": identity.script_identity(plain_folder / "jax.py"),
        "alternatives": {"plain@pure-jit": {"file": "benchmarks/plain/cnn_cifar10/jax@pure-jit.py",
                                            "identity": identity.script_identity(other)}}}}
    assert not staleness.fairness_is_stale(copy, example, fw, record)
    other.write_text(other.read_text() + "\n# a comment\n")
    assert not staleness.fairness_is_stale(copy, example, fw, record), "a comment changes no measurement"
    other.write_text(other.read_text() + "x = 1\n")
    assert staleness.fairness_is_stale(copy, example, fw, record), "the other twin's code changed"
    other.unlink()
    assert staleness.fairness_is_stale(copy, example, fw, record), "the other twin is gone"
