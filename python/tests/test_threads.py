"""Several Python threads on one Model: each with its own Data gives the serial results; a Data shared
by two threads at once is refused, never raced on."""

import threading

import numpy as np

import abdyn
from conftest import MODELS, random_state, run_in_threads


def test_threads_with_own_data_match_serial(humanoid):
    inputs = [random_state(humanoid, seed) for seed in range(8)]
    serial_data = abdyn.Data(humanoid)
    expected = [abdyn.forward_dynamics(humanoid, serial_data, *s) for s in inputs]
    results = {}

    def worker(t):
        data = abdyn.Data(humanoid)
        for _ in range(50):
            for k, s in enumerate(inputs):
                results[(t, k)] = abdyn.forward_dynamics(humanoid, data, *s)

    assert not run_in_threads(worker, 4)
    for (t, k), qdd in results.items():
        np.testing.assert_array_equal(qdd, expected[k])


def test_shared_data_is_refused():
    # A long call (the inverse mass matrix of a 1000-body chain) runs with the GIL released in one
    # thread while the main thread calls with the same Data: it must get abdyn.Error, not a data race.
    model = abdyn.load_urdf(MODELS.parent / "bench" / "models" / "chain_1000.urdf")
    data = abdyn.Data(model)
    q = abdyn.neutral(model)
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            abdyn.inverse_mass_matrix(model, data, q)

    thread = threading.Thread(target=busy)
    thread.start()
    refused = 0
    try:
        for _ in range(2000):
            try:
                abdyn.gravity_torques(model, data, q)
            except abdyn.Error as e:
                assert "in use by a call in another thread" in str(e)
                refused += 1
                if refused >= 3:
                    break
    finally:
        stop.set()
        thread.join()
    assert refused >= 3
    # The Data is free again afterwards and still right.
    other = abdyn.Data(model)
    np.testing.assert_array_equal(abdyn.gravity_torques(model, data, q), abdyn.gravity_torques(model, other, q))
