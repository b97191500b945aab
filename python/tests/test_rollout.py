"""abdyn.rollout against the C++ Simulator run step by step, thread-count invariance, bad inputs, pickling."""

import pickle

import numpy as np
import pytest

import abdyn
from conftest import MODELS

RAGDOLL = {"ground": True, "joint_limits": True, "contact": {"height": -0.95, "mu": 0.8}, "solver": {"max_iterations": 20}}


def batch(model, runs, steps, seed, tau_scale=1.0):
    """Runs from the neutral pose with one-DoF joints turned by up to 0.3 rad, velocities up to 0.5 and
    joint forces up to tau_scale (none on a floating base)."""
    rng = np.random.default_rng(seed)
    q0 = np.tile(abdyn.neutral(model), (runs, 1))
    v0 = rng.uniform(-0.5, 0.5, (runs, model.nv))
    tau = np.zeros((runs, steps, model.nv))
    for j in model.joints:
        if j.nq == 1:
            q0[:, j.idx_q] += rng.uniform(-0.3, 0.3, runs)
            tau[:, :, j.idx_v] = rng.uniform(-tau_scale, tau_scale, (runs, steps))
    return q0, v0, tau


def test_shapes_and_initial_state(arm):
    q0, v0, tau = batch(arm, 3, 4, 1)
    Q, V = abdyn.rollout(arm, q0, v0, tau, 1e-3, threads=2)
    assert Q.shape == (3, 5, arm.nq) and V.shape == (3, 5, arm.nv)
    assert np.array_equal(Q[:, 0], q0) and np.array_equal(V[:, 0], v0)


def test_one_run_equals_steps_of_one_run(arm):
    # Run n of a batch equals the batch of run n alone: the runs are independent (a serial loop of
    # one-run calls is the reference the C++ tests check against the Simulator itself).
    q0, v0, tau = batch(arm, 4, 30, 2, tau_scale=5.0)
    Q, V = abdyn.rollout(arm, q0, v0, tau, 1e-3, threads=1)
    for n in range(4):
        Qn, Vn = abdyn.rollout(arm, q0[n : n + 1], v0[n : n + 1], tau[n : n + 1], 1e-3, threads=1)
        assert np.array_equal(Qn[0], Q[n]) and np.array_equal(Vn[0], V[n])


def test_matches_explicit_free_motion_without_rows(arm):
    # Independent check of the physics on the plain path: with joint friction off and no limits, a
    # Simulator step is v+ = v + dt qdd(q, v, tau) (ABA with damping), q+ = q + dt v+ (revolute joints).
    q0, v0, tau = batch(arm, 2, 10, 3)
    dt = 1e-3
    Q, V = abdyn.rollout(arm, q0, v0, tau, dt, settings={"joint_friction": False, "implicit_damping": False})
    data = abdyn.Data(arm)
    for n in range(2):
        q, v = q0[n].copy(), v0[n].copy()
        for t in range(10):
            v = v + dt * abdyn.forward_dynamics(arm, data, q, v, tau[n, t])
            q = q + dt * v
        # Rounding only: the Simulator takes the CRBA or ABA path; both agree to ~1e-13 relative on the arm.
        np.testing.assert_allclose(Q[n, -1], q, rtol=0, atol=1e-11)
        np.testing.assert_allclose(V[n, -1], v, rtol=0, atol=1e-9)


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_thread_count_invariance_ragdoll(humanoid, threads):
    q0, v0, tau = batch(humanoid, 7, 40, 4, tau_scale=2.0)
    Q1, V1 = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, threads=1, settings=RAGDOLL)
    Qk, Vk = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, threads=threads, settings=RAGDOLL)
    assert np.array_equal(Q1, Qk) and np.array_equal(V1, Vk)
    # The settings took effect: the runs fall from 2 cm onto the ground at -0.95 m and stop there.
    assert Q1[:, -1, 2].min() > -0.5


def test_array_likes_and_non_contiguous_inputs(arm):
    q0, v0, tau = batch(arm, 2, 3, 5)
    Q, V = abdyn.rollout(arm, q0, v0, tau, 1e-3)
    q0_strided = np.asfortranarray(q0)
    Q2, V2 = abdyn.rollout(arm, q0_strided, v0.tolist(), tau, 1e-3)
    assert np.array_equal(Q, Q2) and np.array_equal(V, V2)


def test_bad_inputs(arm):
    q0, v0, tau = batch(arm, 2, 3, 6)
    nan = q0.copy()
    nan[1, 2] = np.nan
    cases = [
        (dict(q0=q0[:, :-1]), "'q0'"),
        (dict(v0=v0[:1]), "'v0'"),
        (dict(tau=tau[:, :, :-1]), "'tau'"),
        (dict(tau=tau[0]), "'tau'"),
        (dict(q0=nan), "'q0'"),
        (dict(tau=np.full_like(tau, np.inf)), "'tau'"),
        (dict(dt=0.0), "'dt'"),
        (dict(dt=float("nan")), "'dt'"),
        (dict(threads=0), "'threads'"),
        (dict(q0=np.zeros((0, arm.nq)), v0=np.zeros((0, arm.nv)), tau=np.zeros((0, 3, arm.nv))), "'q0'"),
        (dict(settings={"ground": True, "frobnicate": 1}), "'frobnicate'"),
        (dict(settings={"contact": {"mu": "high"}}), "'contact.mu'"),
        (dict(settings=[1, 2]), "'settings'"),
    ]
    for change, name in cases:
        args = dict(model=arm, q0=q0, v0=v0, tau=tau, dt=1e-3)
        args.update(change)
        with pytest.raises(abdyn.InvalidArgument, match=name):
            abdyn.rollout(**args)


def test_divergence_raises_error(arm):
    q0, v0, tau = batch(arm, 3, 12, 7)
    tau[1, 6, 0] = 1e300
    with pytest.raises(abdyn.Error, match="diverged"):
        abdyn.rollout(arm, q0, v0, tau, 1e-3, threads=2)


def test_model_pickles_as_urdf_text(humanoid):
    # The pickle holds the URDF text and the options, and the unpickled model simulates identically.
    data = pickle.dumps(humanoid)
    assert b"<robot" in data and b"floating_base" in data
    copy = pickle.loads(data)
    assert (copy.nq, copy.nv, copy.joint_names) == (humanoid.nq, humanoid.nv, humanoid.joint_names)
    q0, v0, tau = batch(humanoid, 2, 20, 8)
    Q, V = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, settings=RAGDOLL)
    Qc, Vc = abdyn.rollout(copy, q0, v0, tau, 2e-3, settings=RAGDOLL)
    assert np.array_equal(Q, Qc) and np.array_equal(V, Vc)
    assert pickle.loads(pickle.dumps(copy)).nq == humanoid.nq  # an unpickled model pickles again


def test_model_from_string_pickles():
    text = (MODELS / "pendulum.urdf").read_text()
    model = abdyn.load_urdf_string(text, gravity=[0.0, 0.0, -3.0])
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.gravity, model.gravity)


def test_settings_object_equals_dict(humanoid):
    # A SimulatorSettings object (the module's binding of the C++ struct) and the dict give one result.
    if not hasattr(abdyn, "SimulatorSettings"):
        pytest.skip("this build of the module does not bind SimulatorSettings")
    settings = abdyn.SimulatorSettings()
    settings.ground = True
    settings.joint_limits = True
    settings.contact.height = -0.95
    settings.contact.mu = 0.8
    settings.solver.max_iterations = 20
    q0, v0, tau = batch(humanoid, 2, 30, 9)
    Q, V = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, settings=settings)
    Qd, Vd = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, settings=RAGDOLL)
    assert np.array_equal(Q, Qd) and np.array_equal(V, Vd)
