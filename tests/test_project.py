import pytest

from rosetta.project import PROFILES, UsageError, check_name, resolve_profile


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


def test_four_frameworks_in_tab_order(project):
    assert [fw.name for fw in project.frameworks()][:4] == ["pytorch", "tensorflow", "mxnet", "chainer"]
    for fw in project.frameworks():
        assert fw.requirements.exists(), f"{fw.name} has no requirements file"


def test_every_example_defines_every_profile(project):
    for example in project.examples():
        assert set(example.profiles) == set(PROFILES), example.name
        assert example.timed_step in example.steps
        assert example.profiles["smoke"].get("data") == "synthetic"
