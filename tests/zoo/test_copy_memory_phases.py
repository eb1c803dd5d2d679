"""bench/copy_memory_phases.py (the copy-memory note's numbers): the loss
of each phase, and whether the logits depend on the current symbol alone."""

import importlib

import numpy as np


def _sequences(rng, batch=4, wait=6):
    shown = rng.integers(1, 9, (batch, 10))
    inputs = np.concatenate([shown, np.zeros((batch, wait - 1), int), np.full((batch, 11), 9)], 1)
    targets = np.concatenate([np.zeros((batch, 10 + wait), int), shown], 1)
    return inputs, targets


def test_a_memoryless_model_has_no_spread_and_the_memoryless_recall_loss(rng):
    script = importlib.import_module("bench.copy_memory_phases")
    inputs, targets = _sequences(rng)
    # Blank unless the input is the delimiter, then uniform over the 8 digits: no memory.
    logits = np.where((inputs == 9)[..., None], np.r_[-50.0, np.zeros(8), -50.0], np.r_[50.0, np.zeros(9)])
    loss = script.phase_cross_entropy(logits, targets)
    np.testing.assert_allclose(loss["recall"], np.log(8), rtol=1e-9)
    assert loss["shown"] < 1e-9
    # The wait's last step shows the delimiter while its target is still blank: 50 + ln 8 nats there.
    np.testing.assert_allclose(loss["wait"], (50.0 + np.log(8)) / 6, rtol=1e-9)
    assert script.current_input_spread(logits, inputs) == {"shown": 0.0, "wait": 0.0, "recall": 0.0}


def test_a_model_that_recalls_has_a_spread_in_the_recall_phase(rng):
    script = importlib.import_module("bench.copy_memory_phases")
    inputs, targets = _sequences(rng)
    logits = 30.0 * np.eye(10)[targets]  # right every step, which needs the shown digits at recall
    loss = script.phase_cross_entropy(logits, targets)
    assert max(loss.values()) < 1e-9
    spread = script.current_input_spread(logits, inputs)
    assert spread["recall"] > 1.0 and spread["shown"] == 0.0
