"""`train --set` and `select --only` read ARGUMENT=VALUE pairs one way."""

import pytest

from keras_seq.zoo import assignments


def test_values_are_python_literals_else_text():
    parsed = assignments.parse(["units=50", "l2=1e-4", "widths=(3, 5)", "optimizer=sgd", "stateful=True"], "--set")
    assert parsed == {"units": 50, "l2": 1e-4, "widths": (3, 5), "optimizer": "sgd", "stateful": True}
    assert type(parsed["units"]) is int and type(parsed["l2"]) is float


def test_several_values_are_comma_separated():
    parsed = assignments.parse(["units=50,100", "dropout=0", "learning_rate=0.001,3e-3"], "--only", several=True)
    assert parsed == {"units": (50, 100), "dropout": (0,), "learning_rate": (0.001, 0.003)}


@pytest.mark.parametrize("pair", ["units", "=5", "units="])
def test_a_pair_without_argument_or_value_is_refused_naming_the_flag(pair):
    with pytest.raises(ValueError, match=f"--only takes ARGUMENT=V1,V2 pairs; got '{pair}'"):
        assignments.parse([pair], "--only", several=True)
    with pytest.raises(ValueError, match=f"--set takes ARGUMENT=VALUE pairs; got '{pair}'"):
        assignments.parse([pair], "--set")
