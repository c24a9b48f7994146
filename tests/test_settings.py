import pytest

from rosetta.project import UsageError
from rosetta.report import _context
from rosetta.settings import settings


def test_settings_merge_hyperparameters_and_profile_sizes():
    hp = settings("cnn_cifar10", "cpu")
    assert hp.batch_size == 64 and hp.learning_rate == 0.01 and hp.epochs == 1 and hp.data == "real"
    assert settings("cnn_cifar10", "full").epochs == 10
    assert settings("cnn_cifar10", "smoke").data == "synthetic"
    with pytest.raises(AttributeError, match="has no setting 'batchsize'"):
        _ = hp.batchsize


def test_weights_setting_is_explicit_and_recorded(monkeypatch):
    monkeypatch.delenv("ROSETTA_WEIGHTS", raising=False)
    assert settings("resnet50_features", "cpu").weights == "pretrained"
    monkeypatch.setenv("ROSETTA_WEIGHTS", "random")
    assert settings("resnet50_features", "cpu").weights == "random"
    assert "random weights" in _context["weights"]
    monkeypatch.setenv("ROSETTA_WEIGHTS", "randm")
    with pytest.raises(UsageError, match="Did you mean 'random'"):
        settings("resnet50_features", "cpu")


def test_overrides_replace_existing_settings_only(monkeypatch):
    monkeypatch.setenv("ROSETTA_OVERRIDES", '{"dropout_dense": 0.0, "batch_size": 8}')
    hp = settings("cnn_cifar10", "cpu")
    assert hp.dropout_dense == 0.0 and hp.batch_size == 8 and hp.dropout_conv == 0.25
    monkeypatch.setenv("ROSETTA_OVERRIDES", '{"dropout": 0.0}')
    with pytest.raises(KeyError, match="has no setting 'dropout'"):
        settings("cnn_cifar10", "cpu")
