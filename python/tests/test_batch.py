"""Batched calls against loops of the single-state calls: equal to round-off (1e-13 relative, the bound of
C++ batch.hpp), and bit-identical to themselves for every thread count and batch size."""

import numpy as np
import pytest

import abdyn


def states(model, n, seed):
    rng = np.random.default_rng(seed)
    Q = np.array([abdyn.random_configuration(model, seed * 1000 + k) for k in range(n)])
    return Q, rng.standard_normal((n, model.nv)), rng.standard_normal((n, model.nv))


@pytest.mark.parametrize("threads", [1, 2, 3, 8, None])
def test_batch_equals_loop(model, threads):
    n = 23
    Q, V, W = states(model, n, 1)
    data = abdyn.Data(model)
    qdd = np.array([abdyn.forward_dynamics(model, data, Q[k], V[k], W[k]) for k in range(n)])
    tau = np.array([abdyn.inverse_dynamics(model, data, Q[k], V[k], W[k]) for k in range(n)])
    M = np.array([abdyn.mass_matrix(model, data, Q[k]) for k in range(n)])
    def close(batch, single):
        scale = 1.0 + np.abs(single).reshape(n, -1).max(axis=1)
        assert (np.abs(batch - single).reshape(n, -1).max(axis=1) <= 1e-13 * scale).all()

    qdd_batch = abdyn.forward_dynamics_batch(model, Q, V, W, threads=threads)
    close(qdd_batch, qdd)
    close(abdyn.inverse_dynamics_batch(model, Q, V, W, threads=threads), tau)
    close(abdyn.mass_matrix_batch(model, Q, threads=threads), M)
    bare = np.array([abdyn.forward_dynamics(model, data, Q[k], V[k], W[k], armature=False, damping=False)
                     for k in range(n)])
    close(abdyn.forward_dynamics_batch(model, Q, V, W, threads, armature=False, damping=False), bare)
    # A state's result depends on its row only: one thread, a shorter batch and the rows shifted by one.
    np.testing.assert_array_equal(qdd_batch, abdyn.forward_dynamics_batch(model, Q, V, W, threads=1))
    np.testing.assert_array_equal(qdd_batch[1:6], abdyn.forward_dynamics_batch(model, Q[1:6], V[1:6], W[1:6]))


def test_batch_accepts_strided_and_lists(arm):
    Q, V, W = states(arm, 6, 2)
    expected = abdyn.forward_dynamics_batch(arm, Q, V, W)
    big = np.zeros((12, arm.nv))
    big[::2] = V
    np.testing.assert_array_equal(abdyn.forward_dynamics_batch(arm, Q.tolist(), big[::2], np.asfortranarray(W)), expected)
    assert abdyn.forward_dynamics_batch(arm, Q[:0], V[:0], W[:0]).shape == (0, arm.nv)


def test_batch_bad_inputs(arm):
    Q, V, W = states(arm, 4, 3)
    with pytest.raises(abdyn.InvalidArgument, match=r"forward_dynamics_batch: 'V' must have shape \(4, 7\), got \(3, 7\)"):
        abdyn.forward_dynamics_batch(arm, Q, V[:3], W)
    with pytest.raises(abdyn.InvalidArgument, match=r"'Q' must have shape \(N, 7\), got \(4, 6\)"):
        abdyn.inverse_dynamics_batch(arm, Q[:, :6], V, W)
    with pytest.raises(abdyn.InvalidArgument, match=r"'Q' must have shape \(N, 7\), got \(7,\)"):
        abdyn.mass_matrix_batch(arm, Q[0])
    W[2, 3] = np.nan
    with pytest.raises(abdyn.InvalidArgument, match=r"'TAU' has a non-finite entry nan at flat index 17"):
        abdyn.forward_dynamics_batch(arm, Q, V, W)
    with pytest.raises(TypeError, match="'Q' must be a float64"):
        abdyn.mass_matrix_batch(arm, Q.astype(complex))
    with pytest.raises(abdyn.InvalidArgument, match="'threads' must be None"):
        abdyn.mass_matrix_batch(arm, Q, threads=0)


@pytest.mark.parametrize("integrator", ["semi_implicit_euler", "rk4"])
def test_rollout_batch_agrees_with_single_steps(arm, integrator):
    """rollout_batch against its own runs one at a time: equal to round-off (the batched ABA's 1e-13
    relative, over 10 steps of 1 ms), and bit-identical whatever the thread count."""
    n, T = 6, 10
    Q0, V0, _ = states(arm, n, 4)
    tau = np.random.default_rng(5).standard_normal((n, T, arm.nv))
    Q, V = abdyn.rollout_batch(arm, Q0, V0, tau, 1e-3, integrator=integrator, threads=2)
    assert Q.shape == (n, T + 1, arm.nq) and V.shape == (n, T + 1, arm.nv)
    np.testing.assert_array_equal(Q[:, 0], Q0)
    Q1, V1 = abdyn.rollout_batch(arm, Q0, V0, tau, 1e-3, integrator=integrator, threads=1)
    np.testing.assert_array_equal(Q1, Q)
    np.testing.assert_array_equal(V1, V)
    for k in range(n):
        Qk, Vk = abdyn.rollout_batch(arm, Q0[k:k + 1], V0[k:k + 1], tau[k:k + 1], 1e-3, integrator=integrator)
        np.testing.assert_array_equal(Qk[0], Q[k])
    # The arm's joints are revolute: q is a vector space, semi-implicit Euler's step is explicit arithmetic.
    if integrator == "semi_implicit_euler":
        data = abdyn.Data(arm)
        q, v = Q0[0].copy(), V0[0].copy()
        for t in range(T):
            v = v + 1e-3 * abdyn.forward_dynamics(arm, data, q, v, tau[0, t])
            q = q + 1e-3 * v
        assert np.abs(V[0, T] - v).max() <= 1e-12 * (1 + np.abs(v).max())
        assert np.abs(Q[0, T] - q).max() <= 1e-12 * (1 + np.abs(q).max())
    with pytest.raises(abdyn.InvalidArgument, match="rollout_batch: 'integrator' is 'euler'"):
        abdyn.rollout_batch(arm, Q0, V0, tau, 1e-3, integrator="euler")
    with pytest.raises(abdyn.InvalidArgument, match="rollout_batch: 'tau' has shape"):
        abdyn.rollout_batch(arm, Q0, V0, tau[:, :, :2], 1e-3)


def test_batch_threads_are_kept_and_shared_safely(arm):
    """The calls keep a workspace per model and thread count: calls in a row, and calls from two Python
    threads at once on the same model (one borrows the kept workspace, the other builds its own), give the
    one-thread results bit for bit."""
    import threading

    Q, V, W = states(arm, 40, 4)
    expected = abdyn.inverse_dynamics_batch(arm, Q, V, W, threads=1)
    for _ in range(3):
        np.testing.assert_array_equal(abdyn.inverse_dynamics_batch(arm, Q, V, W, threads=2), expected)
    results = [[] for _ in range(2)]

    def work(k):
        for _ in range(20):
            results[k].append(abdyn.inverse_dynamics_batch(arm, Q, V, W, threads=2))

    users = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for u in users:
        u.start()
    for u in users:
        u.join()
    for r in results:
        assert len(r) == 20
        for tau in r:
            np.testing.assert_array_equal(tau, expected)
