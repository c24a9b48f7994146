import pytest

from rosetta.project import PROFILES, Project, UsageError, check_name, resolve_profile


def test_unknown_name_suggests_the_closest(project):
    with pytest.raises(UsageError, match=r"unknown framework 'pytroch'. Did you mean 'pytorch'\?"):
        project.framework("pytroch")
    with pytest.raises(UsageError, match="unknown example 'cnn'"):
        project.example("cnn")


def test_profiles_are_checked():
    assert resolve_profile("smoke") == "smoke"
    with pytest.raises(UsageError, match="Did you mean 'full'"):
        resolve_profile("ful")
    assert resolve_profile(None) in PROFILES


def test_check_name_without_hint():
    with pytest.raises(UsageError) as info:
        check_name("profile", "zzzz", PROFILES)
    assert "Did you mean" not in str(info.value)


def test_the_rows_in_tab_order(project):
    assert [fw.name for fw in project.frameworks()] == [
        "pytorch", "keras-tensorflow", "keras-jax", "keras-torch", "tensorflow", "jax", "mxnet", "mxnet-module",
        "chainer", "paddle", "theano", "convnetjs", "tensorflowjs"]
    for fw in project.frameworks():
        assert fw.requirements.exists(), f"{fw.name} has no requirements file"


def test_keras_is_one_program_run_by_three_rows_in_three_environments(project):
    rows = {fw.name: fw for fw in project.frameworks() if fw.program == "keras"}
    assert {name: (fw.environment, fw.variables["KERAS_BACKEND"]) for name, fw in rows.items()} == {
        "keras-tensorflow": ("tensorflow", "tensorflow"), "keras-jax": ("jax", "jax"),
        "keras-torch": ("pytorch", "torch")}
    for fw in rows.values():
        owner = project.framework(fw.environment)
        assert (fw.requirements, fw.definition, fw.kernel_name) == \
            (owner.requirements, owner.definition, owner.kernel_name), "the owner's venv and kernel"
        assert fw.program_label == "Keras 3" and fw.backend.split()[0] in fw.label
        for example in project.examples():
            # One program for the three rows, except where one row has a program of its own: the data-parallel
            # example's Keras tab runs on JAX only (keras.distribution), and the other two have none there.
            own = (example.name, fw.name) == ("cnn_cifar10_data_parallel", "keras-jax")
            assert example.snippet_path(fw) == example.folder / ("keras-jax.py" if own else "keras.py")
            assert example.snippet_path(fw).exists() == (own or example.name != "cnn_cifar10_data_parallel")
    assert project.framework("tensorflow").program == "tensorflow", "TensorFlow without Keras is its own row"


def write_rows(tmp_path, rows: dict) -> Project:
    (tmp_path / "envs").mkdir()
    for name, text in rows.items():
        (tmp_path / "envs" / f"{name}.toml").write_text(text)
        (tmp_path / "envs" / f"{name}.txt").write_text("ipykernel\n")
    return Project(root=tmp_path)


def test_a_row_may_share_another_rows_environment_with_its_own_variables(tmp_path):
    project = write_rows(tmp_path, {
        "owner": 'label = "Owner"\ninstall_first = ["setuptools<70"]\nno_build_isolation = true\n',
        "guest": 'label = "Guest"\nprogram = "shared"\nenvironment = "owner"\n[variables]\nMODE = 2\n'})
    guest, owner = project.framework("guest"), project.framework("owner")
    assert guest.environment == "owner" and guest.kernel_name == "rosetta-owner"
    assert guest.variables == {"MODE": "2"}, "variables are strings, as the environment holds them"
    assert guest.install_first == ("setuptools<70",) and guest.no_build_isolation, "the owner installs it"
    assert guest.environment_label == "Owner" and owner.program == "owner" and owner.backend == "Owner"
    # A row's own script wins over its program's: a lesson written for one backend only.
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "shared.py").write_text("")
    assert guest.script(folder) == folder / "shared.py"
    (folder / "guest.py").write_text("")
    assert guest.script(folder) == folder / "guest.py"


def test_an_environment_that_does_not_exist_is_named(tmp_path):
    project = write_rows(tmp_path, {"guest": 'label = "Guest"\nenvironment = "nowhere"\n'})
    with pytest.raises(UsageError, match=r"guest.toml: environment 'nowhere' has no envs/nowhere.toml"):
        project.frameworks()


def test_every_example_defines_every_profile(project):
    for example in project.examples():
        assert set(example.profiles) == set(PROFILES), example.name
        assert example.timed_step in example.steps
        assert example.profiles["smoke"].get("data") == "synthetic"


def write_example(tmp_path, parts: str):
    folder = tmp_path / "demo"
    folder.mkdir(exist_ok=True)
    (folder / "example.toml").write_text(
        'title = "Demo"\nsteps = ["setup", "model", "train"]\ntimed_step = "train"\n' + parts)
    return folder


def test_parts_are_read_per_step_and_checked(tmp_path):
    from rosetta.project import load_example
    folder = write_example(tmp_path, '[parts]\nmodel = ["network", "loss"]\ntrain = ["training-step"]\n')
    assert load_example(folder).parts == {"model": ("network", "loss"), "train": ("training-step",)}
    assert load_example(write_example(tmp_path, "")).parts == {}, "no [parts]: every step is one piece"
    for table, message in (
            ('modle = ["network"]', r"demo/example.toml: \[parts\] names step 'modle', which is not one of the "
                                    r"example's steps \(setup, model, train\). Did you mean 'model'\?"),
            ('model = ["Network"]', r"demo/example.toml: \[parts\] model: 'Network' is not a part name"),
            ('model = ["loss", "loss"]', r"demo/example.toml: \[parts\] model names a part twice"),
            ('model = "network"', r"demo/example.toml: \[parts\] model must be a list of part names")):
        with pytest.raises(UsageError, match=message):
            load_example(write_example(tmp_path, f"[parts]\n{table}\n"))
