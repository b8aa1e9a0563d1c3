import os
import sys
from pathlib import Path

import pytest

# The package from this checkout, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpu_reference import BACKENDS  # noqa: E402


def pytest_configure(config):
    # Here too, not only in pyproject.toml: the tests also run from a copy
    # against an installed wheel (test/Wheel/run.sh).
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and the kernel library")


def pytest_collection_modifyitems(config, items):
    import torch
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def gpupoor_opt():
    """gpupoor-opt of this checkout's build (or $GPUPOOR_OPT)."""
    path = os.environ.get("GPUPOOR_OPT") or str(
        Path(__file__).resolve().parents[2] / "build" / "bin" / "gpupoor-opt")
    if not os.access(path, os.X_OK):
        pytest.skip("gpupoor-opt not built")
    return path


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each backend of $GPUPOOR_TEST_BACKENDS (mlir, triton) in turn."""
    return request.param
