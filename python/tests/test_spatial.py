"""Spatial types and convention adapters against dense NumPy formulas and round trips."""

import numpy as np
import pytest

import abdyn
from conftest import random_state


def skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def rotation(seed):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((3, 3)))
    return q * np.sign(np.linalg.det(q))


def test_plx_matches_featherstone_matrices():
    E, r = rotation(1), np.array([0.3, -0.2, 0.5])
    X = abdyn.Plx(E, r)
    dense = np.block([[E, np.zeros((3, 3))], [-E @ skew(r), E]])  # Featherstone RBDA eq. 2.24
    np.testing.assert_allclose(X.matrix, dense, atol=1e-15)
    np.testing.assert_allclose(np.asarray(X), dense, atol=1e-15)
    np.testing.assert_allclose(X.dual_matrix, np.linalg.inv(dense).T, atol=1e-12)
    m = abdyn.Motion([1, 2, 3], [4, 5, 6])
    f = abdyn.Force([0.5, -1, 2], [3, 0, -1])
    np.testing.assert_allclose((X * m).vector, dense @ m.vector, atol=1e-12)
    np.testing.assert_allclose(X.apply(f).vector, np.linalg.inv(dense).T @ f.vector, atol=1e-12)
    np.testing.assert_allclose(X.apply_inverse(X.apply(m)).vector, m.vector, atol=1e-12)
    Y = abdyn.Plx(rotation(2), [1, 0, 0])
    np.testing.assert_allclose((Y * X).matrix, Y.matrix @ X.matrix, atol=1e-12)
    np.testing.assert_allclose(X.inverse().matrix, np.linalg.inv(dense), atol=1e-12)
    T = X.to_pose()
    np.testing.assert_allclose(abdyn.Plx.from_pose(T[:3, :3], T[:3, 3]).matrix, dense, atol=1e-12)
    # Plxb is the same map written as a pose.
    B = abdyn.Plxb.from_plx(X)
    np.testing.assert_allclose(B.rotation, E.T, atol=0)
    np.testing.assert_allclose(B.apply(m).vector, (X * m).vector, atol=1e-12)
    np.testing.assert_allclose(B.to_plx().matrix, dense, atol=1e-15)
    # Power is invariant: (X m) . (X* f) = m . f.
    assert (X * m).dot(X.apply(f)) == pytest.approx(m.dot(f))


def test_inertia_matrix_and_transport():
    c = np.array([0.1, 0.2, -0.3])
    Ic = np.diag([0.4, 0.5, 0.6])
    I = abdyn.RigidBodyInertia(2.0, c, Ic)
    dense = np.block([[Ic + 2.0 * skew(c) @ skew(c).T, 2.0 * skew(c)], [2.0 * skew(c).T, 2.0 * np.eye(3)]])
    np.testing.assert_allclose(I.matrix, dense, atol=1e-15)
    X = abdyn.Plx(rotation(3), [0.2, 0.1, 0.0])
    np.testing.assert_allclose(X.apply(I).matrix, X.dual_matrix @ dense @ np.linalg.inv(X.matrix), atol=1e-12)
    v = abdyn.Motion([0.1, 0.2, 0.3], [1, 0, 0])
    assert I.kinetic_energy(v) == pytest.approx(0.5 * v.vector @ dense @ v.vector)
    np.testing.assert_allclose(abdyn.RigidBodyInertia.from_matrix(dense).com, c, atol=1e-14)
    with pytest.raises(abdyn.Error):
        abdyn.RigidBodyInertia(-1.0, c, Ic)
    asymmetric = np.eye(6)
    asymmetric[0, 1] = 1.0
    with pytest.raises(abdyn.Error):
        abdyn.ArticulatedBodyInertia.from_matrix(asymmetric)
    np.testing.assert_allclose(abdyn.ArticulatedBodyInertia(I).matrix, dense, atol=1e-15)


def test_motion_algebra():
    a, b = abdyn.Motion([1, 0, 0], [0, 1, 0]), abdyn.Motion([0, 0, 1], [1, 1, 1])
    crm = np.block([[skew(a.angular), np.zeros((3, 3))], [skew(a.linear), skew(a.angular)]])
    np.testing.assert_allclose(a.cross(b).vector, crm @ b.vector, atol=1e-15)
    f = abdyn.Force([1, 2, 3], [4, 5, 6])
    np.testing.assert_allclose(a.cross_dual(f).vector, -crm.T @ f.vector, atol=1e-15)
    np.testing.assert_allclose((2.0 * a - b).vector, 2 * a.vector - b.vector)
    np.testing.assert_allclose(abdyn.Motion.from_vector(a.vector).vector, a.vector)


@pytest.mark.parametrize("library", ["rbdl", "pinocchio", "brax", "mujoco"])
def test_state_round_trips(humanoid, library):
    lib = getattr(abdyn, library)
    q, v, tau = random_state(humanoid, 6)
    other = lib.state_from_abdyn(humanoid, q, v, tau=tau)
    assert set(other) == {"q", "v", "tau"}
    back = lib.state_to_abdyn(humanoid, other["q"], other["v"], tau=other["tau"])
    np.testing.assert_allclose(back["q"], q, atol=1e-12)
    np.testing.assert_allclose(back["v"], v, atol=1e-12)
    np.testing.assert_allclose(back["tau"], tau, atol=1e-12)


def test_state_layouts(humanoid):
    q, v, _ = random_state(humanoid, 7)
    # Pinocchio: floating velocity linear first; Brax/MuJoCo: quaternion (w, x, y, z) kept, linear
    # velocity of the origin in the world first; RBDL: the root quaternion's w after the nv others.
    pin = abdyn.pinocchio.state_from_abdyn(humanoid, q, v)
    np.testing.assert_array_equal(pin["v"][:6], np.concatenate([v[3:6], v[0:3]]))
    np.testing.assert_array_equal(pin["q"][3:7], np.concatenate([q[4:7], q[3:4]]))  # (x, y, z, w)
    rbdl = abdyn.rbdl.state_from_abdyn(humanoid, q, v)
    assert rbdl["q"][-1] == q[3]
    mj = abdyn.mujoco.state_from_abdyn(humanoid, q, v)
    w = q[3:7]
    x, y, z = w[1:]
    Rw = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w[0] * z), 2 * (x * z + w[0] * y)],
                   [2 * (x * y + w[0] * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w[0] * x)],
                   [2 * (x * z - w[0] * y), 2 * (y * z + w[0] * x), 1 - 2 * (x * x + y * y)]])
    np.testing.assert_allclose(mj["v"][:3], Rw @ v[3:6], atol=1e-12)  # world velocity of the origin
    np.testing.assert_array_equal(mj["q"][3:7], q[3:7])
    with pytest.raises(abdyn.InvalidArgument):
        abdyn.mujoco.state_from_abdyn(humanoid, q[:5])


def test_object_adapters():
    X = abdyn.Plx(rotation(4), [1, 2, 3])
    R, p = abdyn.pinocchio.se3_from_abdyn(X)
    np.testing.assert_allclose(R, X.E.T)
    np.testing.assert_allclose(abdyn.pinocchio.se3_to_abdyn(R, p).matrix, X.matrix, atol=1e-14)
    m = abdyn.Motion([1, 2, 3], [4, 5, 6])
    np.testing.assert_array_equal(abdyn.pinocchio.motion_from_abdyn(m), [4, 5, 6, 1, 2, 3])
    np.testing.assert_array_equal(abdyn.pinocchio.motion_to_abdyn([4, 5, 6, 1, 2, 3]).vector, m.vector)
    np.testing.assert_array_equal(abdyn.pinocchio.force_to_abdyn(abdyn.pinocchio.force_from_abdyn(
        abdyn.Force([1, 2, 3], [4, 5, 6]))).vector, [1, 2, 3, 4, 5, 6])
    I = abdyn.RigidBodyInertia(2.0, [0.1, 0, 0], np.diag([1.0, 2.0, 2.5]))
    m_, h, Io = abdyn.rbdl.inertia_from_abdyn(I)
    np.testing.assert_allclose(h, [0.2, 0, 0])
    np.testing.assert_allclose(abdyn.rbdl.inertia_to_abdyn(m_, h, Io).matrix, I.matrix, atol=1e-14)
    np.testing.assert_allclose(abdyn.tds.inertia_to_abdyn(*abdyn.tds.inertia_from_abdyn(I)).matrix, I.matrix, atol=1e-14)
    T = abdyn.Plxb(rotation(5), [0.1, 0.2, 0.3])
    pos, rot = abdyn.brax.transform_from_abdyn(T)
    np.testing.assert_allclose(abdyn.brax.transform_to_abdyn(pos, rot).rotation, T.rotation, atol=1e-12)
    pos2, quat = abdyn.mujoco.pose_from_abdyn(T)
    np.testing.assert_allclose(quat, rot, atol=1e-15)
    tr, rt = abdyn.tds.transform_from_abdyn(T)
    np.testing.assert_array_equal(rt, T.rotation)
    f = abdyn.Force([0, 0, 0], [0, 0, 1])
    np.testing.assert_allclose(abdyn.rbdl.external_force_from_abdyn(abdyn.Plx.translation([1, 0, 0]), f),
                               [0, -1, 0, 0, 0, 1], atol=1e-15)  # moment r x f about the world origin
