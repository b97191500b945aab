"""Argument handling: array-likes accepted, every bad input rejected with a message naming it, results
owned by the caller (never views into Data)."""

import numpy as np
import pytest

import abdyn
from conftest import random_state


def test_array_likes_are_accepted(arm):
    data = abdyn.Data(arm)
    q, v, tau = random_state(arm, 1)
    expected = abdyn.forward_dynamics(arm, data, q, v, tau)
    wide = np.zeros((arm.nv, 3))
    wide[:, 1] = tau  # a strided column view
    assert not wide[:, 1].flags.c_contiguous
    for args in [(list(q), tuple(v), wide[:, 1]),
                 (np.asfortranarray(q), v[::1], np.ascontiguousarray(tau[::-1])[::-1])]:
        np.testing.assert_array_equal(abdyn.forward_dynamics(arm, data, *args), expected)
    # float32 converts exactly to the float64 of the same values.
    q32 = q.astype(np.float32)
    np.testing.assert_array_equal(abdyn.forward_dynamics(arm, data, q32, v, tau),
                                  abdyn.forward_dynamics(arm, data, q32.astype(np.float64), v, tau))
    # Integer arrays convert exactly.
    np.testing.assert_array_equal(abdyn.forward_dynamics(arm, data, np.zeros(7, dtype=int), [0] * 7, [1] * 7),
                                  abdyn.forward_dynamics(arm, data, np.zeros(7), np.zeros(7), np.ones(7)))


@pytest.mark.parametrize("bad, error, message", [
    (np.zeros(6), abdyn.InvalidArgument, r"abdyn.forward_dynamics: 'v' must have shape \(7,\), got \(6,\)"),
    (np.zeros((7, 1)), abdyn.InvalidArgument, r"'v' must have shape \(7,\), got \(7, 1\)"),
    (np.zeros(7, dtype=complex), TypeError, r"'v' must be a float64 array-like, got dtype complex128"),
    (["a"] * 7, TypeError, r"'v' must be a float64 array-like"),
    (np.array([0, 0, np.nan, 0, 0, 0, 0]), abdyn.InvalidArgument, r"'v' has a non-finite entry nan at flat index 2"),
    (np.array([0, 0, 0, 0, 0, 0, np.inf]), abdyn.InvalidArgument, r"'v' has a non-finite entry inf at flat index 6"),
    (None, TypeError, r"'v' must be a float64 array-like"),
])
def test_bad_vectors(arm, bad, error, message):
    data = abdyn.Data(arm)
    with pytest.raises(error, match=message):
        abdyn.forward_dynamics(arm, data, np.zeros(7), bad, np.zeros(7))


def test_error_classes():
    assert issubclass(abdyn.InvalidArgument, abdyn.Error) and issubclass(abdyn.Error, ValueError)


def test_bad_arguments_of_other_calls(arm, humanoid):
    data = abdyn.Data(arm)
    with pytest.raises(abdyn.InvalidArgument, match=r"inverse_dynamics: 'qdd' must have shape \(7,\)"):
        abdyn.inverse_dynamics(arm, data, np.zeros(7), np.zeros(7), np.zeros(8))
    with pytest.raises(abdyn.InvalidArgument, match=r"'f_ext' must have shape \(8, 6\), got \(7, 6\)"):
        abdyn.inverse_dynamics(arm, data, np.zeros(7), np.zeros(7), np.zeros(7), np.zeros((7, 6)))
    with pytest.raises(abdyn.InvalidArgument, match=r"mass_matrix: 'q' must have shape \(7,\)"):
        abdyn.mass_matrix(arm, data, np.zeros(3))
    with pytest.raises(abdyn.InvalidArgument, match=r"'data' was made for another Model"):
        abdyn.forward_dynamics(humanoid, data, np.zeros(humanoid.nq), np.zeros(humanoid.nv), np.zeros(humanoid.nv))
    with pytest.raises(abdyn.InvalidArgument, match=r"'frame' 99 out of range"):
        abdyn.frame_jacobian(arm, data, np.zeros(7), 99)
    with pytest.raises(abdyn.Error, match="nope"):
        abdyn.frame_jacobian(arm, data, np.zeros(7), "nope")
    with pytest.raises(abdyn.Error, match="nope"):
        arm.joint("nope")
    with pytest.raises(abdyn.InvalidArgument, match="index 0 out of range"):
        arm.joint(0)
    with pytest.raises(abdyn.Error, match="holds no factor"):
        abdyn.solve_mass_matrix(arm, abdyn.Data(arm), np.zeros(7))
    with pytest.raises(abdyn.InvalidArgument, match=r"'gravity' must have shape \(3,\)"):
        abdyn.load_urdf_string("<robot name='r'/>", gravity=[0, 0])
    with pytest.raises(abdyn.InvalidArgument, match=r"'a' given without 'v'"):
        abdyn.forward_kinematics(arm, data, np.zeros(7), None, np.zeros(7))


def test_bad_urdf(tmp_path):
    with pytest.raises(abdyn.Error, match="no_such.urdf"):
        abdyn.load_urdf(tmp_path / "no_such.urdf")
    with pytest.raises(abdyn.Error, match="<string>"):
        abdyn.load_urdf_string("<robot name='r'><link name='a'><inertial><mass value='-1'/></inertial></link></robot>")


def test_frame_queries_need_kinematics(arm):
    data = abdyn.Data(arm)
    with pytest.raises(abdyn.Error, match="frame_pose reads the positions"):
        abdyn.frame_pose(arm, data, 1)
    abdyn.forward_kinematics(arm, data, np.zeros(7))
    abdyn.frame_pose(arm, data, 1)
    abdyn.frame_pose(arm, data, 2)  # queries keep the kinematics
    with pytest.raises(abdyn.Error, match="frame_velocity reads the velocities"):
        abdyn.frame_velocity(arm, data, 1)
    abdyn.mass_matrix(arm, data, np.ones(7))  # any other call invalidates them
    with pytest.raises(abdyn.Error, match="frame_pose reads the positions"):
        abdyn.frame_pose(arm, data, 1)


def test_results_are_owned_copies(arm):
    # Results are new arrays: writeable, owning their memory, unchanged by later calls on the same Data.
    data = abdyn.Data(arm)
    q, v, tau = random_state(arm, 2)
    qdd = abdyn.forward_dynamics(arm, data, q, v, tau)
    M = abdyn.mass_matrix(arm, data, q)
    for result in (qdd, M, arm.damping, abdyn.neutral(arm)):
        assert result.flags.owndata and result.flags.writeable
    kept = qdd.copy(), M.copy()
    abdyn.forward_dynamics(arm, data, q, -v, -tau)
    abdyn.mass_matrix(arm, data, abdyn.neutral(arm))
    np.testing.assert_array_equal(qdd, kept[0])
    np.testing.assert_array_equal(M, kept[1])
    # Writing into a result changes nothing in abdyn: the next call gives the same answer.
    M[:] = 0
    np.testing.assert_array_equal(abdyn.mass_matrix(arm, data, q), kept[1])
    # Inputs are read, never written.
    q_before = q.copy()
    abdyn.forward_dynamics(arm, data, q, v, tau)
    np.testing.assert_array_equal(q, q_before)


def test_data_outlives_nothing(arm):
    # A Data keeps its Model alive; results keep nothing alive.
    data = abdyn.Data(abdyn.load_urdf_string((__import__("conftest").MODELS / "iiwa7.urdf").read_text()))
    model = data.model
    q = abdyn.neutral(model)
    qdd = abdyn.forward_dynamics(model, data, q, np.zeros(7), np.zeros(7))
    del data
    assert qdd.base is None


def test_indices_are_checked(arm):
    for method in ("parent", "children", "body_name", "inertia", "xtree"):
        with pytest.raises(abdyn.InvalidArgument, match=rf"Model.{method}: 'body' 8 out of range \[0, 7\]"):
            getattr(arm, method)(8)
        with pytest.raises(abdyn.InvalidArgument):
            getattr(arm, method)(-1)
    with pytest.raises(abdyn.InvalidArgument, match="'frame'"):
        arm.frame_body(arm.nframes)
    data = abdyn.Data(arm)
    abdyn.forward_kinematics(arm, data, np.zeros(7))
    with pytest.raises(abdyn.InvalidArgument, match="'body' 8 out of range"):
        abdyn.body_pose(arm, data, 8)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_bad_scalars_are_named(arm, bad):
    q, v, tau = random_state(arm, 2)
    data = abdyn.Data(arm)
    with pytest.raises(abdyn.InvalidArgument, match=r"abdyn.integrate: 'dt' is .*, expected a finite number"):
        abdyn.integrate(arm, q, v, bad)
    with pytest.raises(abdyn.InvalidArgument, match=r"abdyn.integrate_jacobians: 'dt' is"):
        abdyn.integrate_jacobians(arm, q, v, bad)
    with pytest.raises(abdyn.InvalidArgument, match=r"'h' is"):
        abdyn.SemiImplicitEuler(arm).step(arm, data, q, v, tau, bad)
    with pytest.raises(abdyn.InvalidArgument, match=r"abdyn.Simulator.step: 'h' is"):
        abdyn.Simulator(arm).step(bad)
    with pytest.raises(abdyn.InvalidArgument, match=r"abdyn.RigidBodyInertia: 'mass' is"):
        abdyn.RigidBodyInertia(bad, [0, 0, 0], np.eye(3))
    with pytest.raises(abdyn.InvalidArgument, match=r"abdyn.Motion.__mul__: 's' is"):
        abdyn.Motion([0, 0, 1], [0, 0, 0]) * bad
    with pytest.raises(abdyn.InvalidArgument, match=r"abdyn.JointMotor: 'max_effort' is"):
        abdyn.JointMotor(0, 1.0, bad)


@pytest.fixture
def checked_mode_restored():
    previous = abdyn.checked_mode()
    yield
    abdyn.set_checked_mode(previous)


def test_checked_mode_from_python(humanoid, checked_mode_restored):
    model = humanoid
    data = abdyn.Data(model)
    q = abdyn.neutral(model)
    q[3:7] = [2.0, 0.0, 0.0, 0.0]  # the base quaternion with norm 2: only checked mode looks at norms
    zeros = np.zeros(model.nv)
    abdyn.set_checked_mode(True)
    assert abdyn.checked_mode()
    with pytest.raises(abdyn.InvalidArgument, match="quaternion"):
        abdyn.forward_dynamics(model, data, q, zeros, zeros)
    abdyn.set_checked_mode(False)
    assert not abdyn.checked_mode()
    assert np.isfinite(abdyn.forward_dynamics(model, data, q, zeros, zeros)).all()
