import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _seeded():
    keras.utils.set_random_seed(1234)
    np.random.seed(1234)
    yield
    keras.backend.clear_session()


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def shared_data_dir():
    """The project's benchmark data (`../shared/data`), never copied here."""
    path = os.environ.get(
        "KERAS_SEQ_SHARED_DATA",
        os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"),
    )
    if not os.path.isdir(path):
        pytest.fail(f"benchmark data not found at {os.path.abspath(path)}")
    return path


# Tests that exercise no Keras backend (numpy loaders, tf.data pipelines,
# reports, the import graph, the docs): run once, in the TensorFlow run, and
# deselected in the others.
BACKEND_INDEPENDENT = ("data/", "test_docs.py", "test_import_graph.py", "zoo/test_report.py", "bench/test_plots.py")


def pytest_collection_modifyitems(config, items):
    if keras.backend.backend() == "tensorflow":
        return
    here = os.path.dirname(os.path.abspath(__file__))
    kept, deselected = [], []
    for item in items:
        relative = os.path.relpath(str(item.path), here).replace(os.sep, "/")
        (deselected if relative.startswith(BACKEND_INDEPENDENT) else kept).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
