"""Shared fixtures: the repository's models, loaded once per test session."""

import os
import pathlib
import threading

import numpy as np
import pytest

import abdyn

SOURCE_DIR = pathlib.Path(os.environ.get("ABDYN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MODELS = SOURCE_DIR / "models"


@pytest.fixture(scope="session")
def arm():
    """The 7-DoF arm (revolute joints only, nq == nv)."""
    return abdyn.load_urdf(MODELS / "iiwa7.urdf")


@pytest.fixture(scope="session")
def humanoid():
    """The humanoid on a floating base (a quaternion in q, nq == nv + 1)."""
    return abdyn.load_urdf(MODELS / "humanoid.urdf", floating_base=True)


@pytest.fixture(params=["arm", "humanoid"])
def model(request):
    return request.getfixturevalue(request.param)


def random_state(model, seed):
    """A random (q, v, w) with q from abdyn.random_configuration and v, w standard normal."""
    rng = np.random.default_rng(seed)
    q = abdyn.random_configuration(model, seed)
    return q, rng.standard_normal(model.nv), rng.standard_normal(model.nv)


def run_in_threads(work, count):
    """Runs work(t) for t = 0 .. count - 1, each in its own thread, all at once; returns the exceptions raised."""
    errors = []

    def guarded(t):
        try:
            work(t)
        except Exception as e:  # noqa: BLE001 - returned to the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors
