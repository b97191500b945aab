"""Kinematics, Jacobians, centre of mass, energies and momentum against independent NumPy formulas."""

import numpy as np

import abdyn
from conftest import random_state

W = abdyn.ReferenceFrame.WORLD
L = abdyn.ReferenceFrame.LOCAL
A = abdyn.ReferenceFrame.LOCAL_WORLD_ALIGNED


def test_frame_velocity_is_jacobian_times_v(model):
    data = abdyn.Data(model)
    q, v, _ = random_state(model, 1)
    for frame in [model.frame_names[-1], 2]:
        for rf in (W, L, A):
            J = abdyn.frame_jacobian(model, data, q, frame, rf)
            abdyn.forward_kinematics(model, data, q, v)
            np.testing.assert_allclose(abdyn.frame_velocity(model, data, frame, rf), J @ v, rtol=1e-10, atol=1e-10)


def test_frame_pose_by_finite_differences(model):
    # The origin's world velocity (LOCAL_WORLD_ALIGNED linear part) is d/dt of frame_pose's position along
    # q(t) = integrate(q, v, t). Central differences with t = 1e-6: error O(t^2) plus 1e-10 round-off.
    data = abdyn.Data(model)
    q, v, _ = random_state(model, 2)
    frame = model.frame_names[-1]
    eps = 1e-6

    def position(t):
        abdyn.forward_kinematics(model, data, abdyn.integrate(model, q, v, t))
        return abdyn.frame_pose(model, data, frame)[:3, 3]

    fd = (position(eps) - position(-eps)) / (2 * eps)
    abdyn.forward_kinematics(model, data, q, v)
    np.testing.assert_allclose(abdyn.frame_velocity(model, data, frame, A)[3:], fd, rtol=1e-6, atol=1e-7)
    T = abdyn.frame_pose(model, data, frame)
    np.testing.assert_allclose(T[:3, :3].T @ T[:3, :3], np.eye(3), atol=1e-12)
    X = abdyn.frame_transform(model, data, frame)
    np.testing.assert_allclose(X.to_pose(), T, atol=1e-12)


def test_accelerations_and_time_variation(model):
    data = abdyn.Data(model)
    q, v, a = random_state(model, 3)
    frame = model.frame_names[-1]
    J, dJ = abdyn.frame_jacobian_time_variation(model, data, q, v, frame, A)
    np.testing.assert_allclose(abdyn.frame_jacobian_time_variation_times_v(model, data, q, v, frame, A), dJ @ v,
                               rtol=1e-9, atol=1e-9)
    abdyn.forward_kinematics(model, data, q, v, a)
    # Classical acceleration of the origin = dJ v + J a (LOCAL_WORLD_ALIGNED, kinematics.hpp).
    np.testing.assert_allclose(abdyn.frame_classical_acceleration(model, data, frame), (dJ @ v + J @ a)[3:],
                               rtol=1e-9, atol=1e-9)
    spatial = abdyn.frame_acceleration(model, data, frame, L)
    assert spatial.shape == (6,)


def test_joint_jacobians_sum_to_world_velocity(model):
    data = abdyn.Data(model)
    q, v, _ = random_state(model, 4)
    abdyn.forward_kinematics(model, data, q, v)
    S = abdyn.joint_jacobians(model, data)
    body = model.nbodies - 1
    frame = model.body_names[body]
    J = abdyn.frame_jacobian(model, data, q, frame, W)
    np.testing.assert_allclose(S[:, J.any(axis=0)], J[:, J.any(axis=0)], atol=1e-12)


def test_center_of_mass_energies_momentum(model):
    data = abdyn.Data(model)
    q, v, _ = random_state(model, 5)
    # COM as the mass-weighted mean of the bodies' COMs through their world poses.
    total = 0.0
    moment = np.zeros(3)
    abdyn.forward_kinematics(model, data, q)
    for b in range(1, model.nbodies):
        inertia = model.inertia(b)
        T = abdyn.body_pose(model, data, b)
        moment += inertia.mass * (T[:3, :3] @ inertia.com + T[:3, 3])
        total += inertia.mass
    np.testing.assert_allclose(abdyn.center_of_mass(model, data, q), moment / total, rtol=1e-12, atol=1e-12)
    Jc = abdyn.center_of_mass_jacobian(model, data, q)
    vc = abdyn.center_of_mass_velocity(model, data, q, v)
    np.testing.assert_allclose(vc, Jc @ v, rtol=1e-10, atol=1e-10)
    # Kinetic energy 1/2 v^T M v; linear momentum m v_com; potential -m g . c.
    M = abdyn.mass_matrix(model, data, q, armature=False)
    T = abdyn.kinetic_energy(model, data, q, v)
    np.testing.assert_allclose(T, 0.5 * v @ M @ v, rtol=1e-10)
    np.testing.assert_allclose(abdyn.spatial_momentum(model, data, q, v)[3:], total * vc, rtol=1e-10, atol=1e-10)
    U = abdyn.potential_energy(model, data, q)
    np.testing.assert_allclose(U, -total * model.gravity[3:] @ (moment / total), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(abdyn.mechanical_energy(model, data, q, v), T + U, rtol=1e-12)
