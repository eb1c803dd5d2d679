"""keras-seq's TrellisNet on this process's Keras backend next to the
public PyTorch TrellisNet of Bai, Kolter and Koltun
(github.com/locuslab/trellisnet), in one process, training steps
interleaved (on TensorFlow and JAX the reference runs on PyTorch beside
Keras).

The reference is imported at run time from the directory given on the
command line (its `seq_MNIST_CIFAR/model.py`, `TrellisNetModel`); nothing of
it is copied here. Both sides use the sequential-MNIST training setup of the
reference's script: input dropout 0.2, hidden dropout 0.2, temporal weight
dropout 0.1, output dropout 0.1, weight normalisation, Adam (lr 4e-3) and a
global gradient-norm clip of 0.5.
"""

import contextlib
import functools
import importlib.util
import os
import sys

import keras
import numpy as np

from bench.measure import Result
from bench.measure import interleaved
from bench.measure import progress
from bench.measure import warm_up
from keras_seq.models import TrellisNet

OUTPUTS = 10  # the reference's output channels are the classes
DROPOUT = dict(input=0.2, hidden=0.2, weight=0.1, output=0.1)
LEARNING_RATE = 4e-3
CLIP_NORM = 0.5
THEIRS = "TrellisNet, reference PyTorch code"


def package_directory(path):
    """The reference's package directory (the one holding `trellisnet.py`):
    `path` itself or its `TrellisNet` folder."""
    for candidate in (path, os.path.join(path, "TrellisNet")):
        if os.path.isfile(os.path.join(candidate, "trellisnet.py")):
            return candidate
    raise FileNotFoundError(f"no trellisnet.py in {path} or {os.path.join(path, 'TrellisNet')}")


def load_model_class(path):
    """`TrellisNetModel` of the reference's `seq_MNIST_CIFAR/model.py`. Its
    own imports (`trellisnet`, `optimizations`) resolve from the package
    directory; `sys.path` is restored afterwards (the module appends
    `'../'` to it)."""
    directory = package_directory(path)
    saved = list(sys.path)
    sys.path.insert(0, directory)
    try:
        spec = importlib.util.spec_from_file_location(
            "trellisnet_reference_seq_mnist_model", os.path.join(directory, "seq_MNIST_CIFAR", "model.py")
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module.TrellisNetModel


@contextlib.contextmanager
def cuda_calls_on_cpu(torch):
    """Runtime shim: the reference moves its zero states to the GPU
    unconditionally (`.cuda()` in `TrellisNet.transform_input`), which
    raises on a machine without CUDA; there `Tensor.cuda` returns the tensor
    itself while the block runs."""
    if torch.cuda.is_available():
        yield
        return
    original = torch.Tensor.cuda
    torch.Tensor.cuda = lambda tensor, *args, **kwargs: tensor
    try:
        yield
    finally:
        torch.Tensor.cuda = original


def reference_model(torch, model_class, hidden, levels, dilations):
    """The reference network of `hidden` channels (its `nhid` excludes the
    outputs) and its optimizer; its construction message goes to stderr."""
    torch.manual_seed(0)
    with contextlib.redirect_stdout(sys.stderr):  # it prints "Weight normalization applied"
        model = model_class(
            ninp=1,
            nhid=hidden - OUTPUTS,
            nout=OUTPUTS,
            nlevels=levels,
            kernel_size=2,
            dilation=list(dilations),
            dropout=DROPOUT["output"],
            dropouti=DROPOUT["input"],
            dropouth=DROPOUT["hidden"],
            wdrop=DROPOUT["weight"],
            temporalwdrop=True,
            wnorm=True,
            aux=False,
        )
    model.train()
    return model, torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)


def reference_step(torch, model, optimizer, x, y):
    """One training step of the reference network: negative log-likelihood
    of its log-probabilities, backward, clip, Adam update."""
    optimizer.zero_grad()
    log_probabilities, _ = model(x, model.init_hidden(x.shape[0]))
    loss = torch.nn.functional.nll_loss(log_probabilities, y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
    optimizer.step()


def our_name(jit_compile):
    return f"TrellisNet, keras-seq (Keras on {keras.backend.backend()}, jit_compile={jit_compile})"


def our_model(hidden, levels, dilations, steps, jit_compile):
    """keras-seq's TrellisNet with the same sizes and regularisers, compiled."""
    model = TrellisNet(
        hidden,
        OUTPUTS,
        levels,
        input_dim=1,
        num_outputs=OUTPUTS,
        return_sequences=False,
        dilations=dilations,
        sequence_length=steps,
        input_dropout=DROPOUT["input"],
        output_dropout=DROPOUT["output"],
        dropout=DROPOUT["hidden"],
        weight_dropout=DROPOUT["weight"],
    )
    model.compile(
        optimizer=keras.optimizers.Adam(LEARNING_RATE, global_clipnorm=CLIP_NORM),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    return model


def compare(path, plan, memory, jit_settings, batch, steps, hidden, levels, dilations):
    """Results for ours at each of `jit_settings` and the reference (last);
    the ratio is ours / reference."""
    import torch

    rng = np.random.default_rng(0)
    x = rng.random((batch, steps, 1)).astype("float32")
    y = rng.integers(0, OUTPUTS, (batch,))
    ours = {our_name(jit): our_model(hidden, levels, dilations, steps, jit) for jit in jit_settings}
    theirs, optimizer = reference_model(torch, load_model_class(path), hidden, levels, dilations)
    x_channels_first = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1)))
    y_torch = torch.from_numpy(y)
    calls = {name: functools.partial(model.train_on_batch, x, y) for name, model in ours.items()}
    calls[THEIRS] = lambda: reference_step(torch, theirs, optimizer, x_channels_first, y_torch)
    with cuda_calls_on_cpu(torch):
        progress("reference: training steps")
        first_peaks = warm_up(calls, plan.warmup, memory)
        medians, peak_mib = interleaved(calls, plan.repeats, memory)
    parameters = {name: model.count_params() for name, model in ours.items()}
    parameters[THEIRS] = sum(p.numel() for p in theirs.parameters())
    return [
        Result(
            name, parameters[name], medians[name] * 1e3, first_peak_mib=first_peaks[name], train_peak_mib=peak_mib[name]
        )
        for name in calls
    ]
