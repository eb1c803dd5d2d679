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
