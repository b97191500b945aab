"""build_reduced_model, save_urdf_string / save_urdf from Python (the C++ tests cover the rules)."""

import numpy as np
import pytest

import abdyn
from conftest import MODELS


def test_reduced_model_rows_equal_the_full_model(humanoid):
    locked = ["left_elbow", "right_elbow", "waist_yaw"]
    q_ref = abdyn.random_configuration(humanoid, seed=7)
    reduced = abdyn.build_reduced_model(humanoid, locked, q_ref)
    assert reduced.nv == humanoid.nv - 3
    assert reduced.total_mass == pytest.approx(humanoid.total_mass, rel=1e-12)
    # Free joints at random positions and rates, locked ones held at q_ref with zero rates: tau of the
    # reduced model is the full model's rows of the free joints (to 1e-12 relative to |tau|).
    rng = np.random.default_rng(3)
    q = q_ref.copy()
    q_free = abdyn.random_configuration(humanoid, seed=8)
    v, a = np.zeros(humanoid.nv), np.zeros(humanoid.nv)
    q_r, v_r, a_r = np.zeros(reduced.nq), np.zeros(reduced.nv), np.zeros(reduced.nv)
    for j in reduced.joints:
        full = humanoid.joint(j.name)
        q[full.idx_q:full.idx_q + full.nq] = q_free[full.idx_q:full.idx_q + full.nq]
        v[full.idx_v:full.idx_v + full.nv] = rng.normal(size=full.nv)
        a[full.idx_v:full.idx_v + full.nv] = rng.normal(size=full.nv)
    for j in reduced.joints:
        full = humanoid.joint(j.name)
        q_r[j.idx_q:j.idx_q + j.nq] = q[full.idx_q:full.idx_q + full.nq]
        v_r[j.idx_v:j.idx_v + j.nv] = v[full.idx_v:full.idx_v + full.nv]
        a_r[j.idx_v:j.idx_v + j.nv] = a[full.idx_v:full.idx_v + full.nv]
    tau = abdyn.inverse_dynamics(humanoid, abdyn.Data(humanoid), q, v, a)
    tau_r = abdyn.inverse_dynamics(reduced, abdyn.Data(reduced), q_r, v_r, a_r)
    for j in reduced.joints:
        full = humanoid.joint(j.name)
        np.testing.assert_allclose(tau_r[j.idx_v:j.idx_v + j.nv], tau[full.idx_v:full.idx_v + full.nv],
                                   rtol=0, atol=1e-12 * np.linalg.norm(tau))


def test_reduced_model_errors(humanoid):
    q0 = abdyn.neutral(humanoid)
    with pytest.raises(abdyn.Error, match="no joint named 'nowhere'"):
        abdyn.build_reduced_model(humanoid, ["nowhere"], q0)
    with pytest.raises(abdyn.Error, match="q_reference"):
        abdyn.build_reduced_model(humanoid, ["left_elbow"], q0[:-1])


def test_save_urdf_round_trip(humanoid, tmp_path):
    xml = abdyn.save_urdf_string(humanoid)
    back = abdyn.load_urdf_string(xml)
    assert back.joint_names == humanoid.joint_names and back.frame_names == humanoid.frame_names
    for i in range(humanoid.nbodies):
        np.testing.assert_array_equal(back.inertia(i).matrix, humanoid.inertia(i).matrix)
    path = tmp_path / "humanoid_copy.urdf"
    abdyn.save_urdf(humanoid, path)
    assert abdyn.load_urdf(path).nv == humanoid.nv
    assert "Gravity in world coordinates" in path.read_text()
    assert abdyn.load_urdf(MODELS / "iiwa7.urdf").nv == 7
