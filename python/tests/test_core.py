"""The dynamics calls against each other and against independent NumPy formulas."""

import numpy as np
import pytest

import abdyn
from conftest import random_state


def test_sizes_and_lookups(arm, humanoid):
    assert (arm.nq, arm.nv, arm.nbodies) == (7, 7, 8)
    assert humanoid.nq == humanoid.nv + 1
    root = humanoid.joint("root_joint")
    assert (root.type, root.idx_q, root.idx_v, root.nq, root.nv) == ("floating", 0, 0, 7, 6)
    name = arm.joint_names[3]
    assert arm.joint(name).idx_v == 3 and arm.joint_id(name) == 4 and arm.joint(4).name == name
    assert arm.body_names[0] == "world" and arm.body_id(arm.body_names[2]) == 2
    assert arm.frame_id(arm.body_names[2]) >= 0 and arm.parents[0] == -1
    assert arm.lower_position_limit.shape == (7,) and np.all(arm.lower_position_limit < arm.upper_position_limit)
    np.testing.assert_array_equal(arm.gravity, [0, 0, 0, 0, 0, -9.81])
    np.testing.assert_array_equal(arm.with_gravity([0, 0, -1]).gravity, [0, 0, 0, 0, 0, -1])
    assert arm.total_mass == pytest.approx(sum(arm.inertia(i).mass for i in range(1, arm.nbodies)))


def test_load_urdf_string_and_options(arm):
    xml = (abdyn_models() / "iiwa7.urdf").read_text()
    model = abdyn.load_urdf_string(xml, gravity=(0, 0, -1.62))
    assert model.nv == arm.nv and model.gravity[5] == pytest.approx(-1.62)
    floating = abdyn.load_urdf_string(xml, floating_base=True)
    assert (floating.nq, floating.nv) == (arm.nq + 7, arm.nv + 6)


def test_kinematic_model_refuses_dynamics():
    # A file without <inertial>: a kinematic model whose dynamics calls raise abdyn.Error naming its
    # massless bodies; kinematics works; the bounds give it dynamics.
    xml = ('<robot name="k"><link name="base"/><joint name="j" type="continuous"><parent link="base"/>'
           '<child link="a"/><axis xyz="0 1 0"/></joint><link name="a"/></robot>')
    model = abdyn.load_urdf_string(xml)
    assert not model.has_dynamics and model.massless_bodies == [1]
    data = abdyn.Data(model)
    abdyn.forward_kinematics(model, data, np.zeros(1))
    with pytest.raises(abdyn.Error, match="no mass or inertia"):
        abdyn.forward_dynamics(model, data, np.zeros(1), np.zeros(1), np.zeros(1))
    bounded = abdyn.load_urdf_string(xml, bound_mass=0.1, bound_inertia=1e-3)
    assert bounded.has_dynamics and bounded.massless_bodies == []


def abdyn_models():
    from conftest import MODELS
    return MODELS


def test_inverse_of_forward(model):
    # RNEA(q, v, ABA(q, v, tau)) = tau: two independent recursions; 1e-9 relative covers cond(M) ~ 1e4
    # times machine epsilon on these models.
    data = abdyn.Data(model)
    for seed in range(5):
        q, v, tau = random_state(model, seed)
        qdd = abdyn.forward_dynamics(model, data, q, v, tau)
        np.testing.assert_allclose(abdyn.inverse_dynamics(model, data, q, v, qdd), tau, rtol=1e-9, atol=1e-9)


def test_mass_matrix_is_the_derivative_of_rnea(model):
    # RNEA is affine in qdd, so M e_j = RNEA(q, 0, e_j) - RNEA(q, 0, 0) exactly up to round-off: an
    # independent route to CRBA's M (tolerance: a few ulps of the largest torque).
    data = abdyn.Data(model)
    q, _, _ = random_state(model, 3)
    zero = np.zeros(model.nv)
    g = abdyn.inverse_dynamics(model, data, q, zero, zero)
    columns = [abdyn.inverse_dynamics(model, data, q, zero, e) - g for e in np.eye(model.nv)]
    M = abdyn.mass_matrix(model, data, q)
    np.testing.assert_allclose(M, np.array(columns).T, rtol=0, atol=1e-9 * np.abs(M).max())
    np.testing.assert_array_equal(M, M.T)


def test_forward_dynamics_paths_agree_with_numpy_solve(model):
    # ABA and the CRBA path against the dense formula qdd = M^-1 (tau - h), solved by NumPy.
    data = abdyn.Data(model)
    q, v, tau = random_state(model, 11)
    M = abdyn.mass_matrix(model, data, q)
    h = abdyn.nonlinear_effects(model, data, q, v)
    np.testing.assert_allclose(h, abdyn.inverse_dynamics(model, data, q, v, np.zeros(model.nv)), rtol=1e-12, atol=1e-12)
    expected = np.linalg.solve(M, tau - h)
    np.testing.assert_allclose(abdyn.forward_dynamics(model, data, q, v, tau), expected, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(abdyn.forward_dynamics_crba(model, data, q, v, tau), expected, rtol=1e-8, atol=1e-9)
    B = np.random.default_rng(1).standard_normal((model.nv, 3))
    np.testing.assert_allclose(abdyn.solve_mass_matrix(model, data, B), np.linalg.solve(M, B), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(abdyn.inverse_mass_matrix(model, data, q) @ M, np.eye(model.nv), atol=1e-8)
    abdyn.factorize_mass_matrix(model, data, q)
    np.testing.assert_allclose(abdyn.solve_mass_matrix(model, data, tau), np.linalg.solve(M, tau), rtol=1e-8, atol=1e-10)


def test_gravity_torques_and_options(arm):
    data = abdyn.Data(arm)
    q, v, _ = random_state(arm, 4)
    zero = np.zeros(arm.nv)
    np.testing.assert_allclose(abdyn.gravity_torques(arm, data, q), abdyn.inverse_dynamics(arm, data, q, zero, zero),
                               rtol=1e-12, atol=1e-12)
    # Without damping and armature, the two differ by exactly damping * v and armature * qdd.
    qdd = np.ones(arm.nv)
    full = abdyn.inverse_dynamics(arm, data, q, v, qdd)
    bare = abdyn.inverse_dynamics(arm, data, q, v, qdd, armature=False, damping=False)
    np.testing.assert_allclose(full - bare, arm.damping * v + arm.armature * qdd, atol=1e-9)


def test_external_forces(humanoid):
    # A force f_ext on body b enters RNEA as -J_b^T f_ext (J_b: body b's Jacobian in body coordinates).
    data = abdyn.Data(humanoid)
    q, v, qdd = random_state(humanoid, 5)
    b = humanoid.nbodies - 1
    F = np.zeros((humanoid.nbodies, 6))
    F[b] = [0.1, -0.2, 0.3, 5.0, -4.0, 3.0]
    J = abdyn.frame_jacobian(humanoid, data, q, humanoid.body_names[b], abdyn.ReferenceFrame.LOCAL)
    tau0 = abdyn.inverse_dynamics(humanoid, data, q, v, qdd)
    tau1 = abdyn.inverse_dynamics(humanoid, data, q, v, qdd, F)
    np.testing.assert_allclose(tau1, tau0 - J.T @ F[b], rtol=1e-9, atol=1e-9)
    qdd_f = abdyn.forward_dynamics(humanoid, data, q, v, tau0, F)
    np.testing.assert_allclose(abdyn.inverse_dynamics(humanoid, data, q, v, qdd_f, F), tau0, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(abdyn.forward_dynamics_crba(humanoid, data, q, v, tau0, F), qdd_f, rtol=1e-8, atol=1e-9)


def test_configuration_functions(humanoid):
    q0 = abdyn.random_configuration(humanoid, 1)
    q1 = abdyn.random_configuration(humanoid, 2)
    np.testing.assert_array_equal(q0, abdyn.random_configuration(humanoid, 1))  # seeded: reproducible
    dq = abdyn.difference(humanoid, q0, q1)
    np.testing.assert_allclose(abdyn.integrate(humanoid, q0, dq, 1.0), q1, atol=1e-10)
    n = abdyn.neutral(humanoid)
    np.testing.assert_array_equal(n[3:7], [1, 0, 0, 0])
    scaled = q0.copy()
    scaled[3:7] *= 2.0
    np.testing.assert_allclose(abdyn.normalize(humanoid, scaled), q0, atol=1e-15)
