"""The core calls: forward and inverse dynamics and the mass matrix against each other and NumPy."""

import numpy as np
import pytest

import abdyn
from conftest import random_state


def test_sizes(arm, humanoid):
    assert (arm.nq, arm.nv) == (7, 7)
    assert humanoid.nq == humanoid.nv + 1
    assert humanoid.joint("root_joint").nq == 7


def test_inverse_of_forward(model):
    # RNEA(q, v, ABA(q, v, tau)) = tau: two independent recursions; 1e-9 relative covers cond(M) ~ 1e4
    # times machine epsilon on these models.
    data = abdyn.Data(model)
    for seed in range(5):
        q, v, tau = random_state(model, seed)
        qdd = abdyn.forward_dynamics(model, data, q, v, tau)
        np.testing.assert_allclose(abdyn.inverse_dynamics(model, data, q, v, qdd), tau, rtol=1e-9, atol=1e-9)


def test_forward_is_solve_of_mass_matrix(model):
    # ABA against the dense formula qdd = M^-1 (tau - h), h = RNEA(q, v, 0), solved by NumPy.
    data = abdyn.Data(model)
    q, v, tau = random_state(model, 11)
    M = abdyn.mass_matrix(model, data, q)
    h = abdyn.inverse_dynamics(model, data, q, v, np.zeros(model.nv))
    np.testing.assert_allclose(abdyn.forward_dynamics(model, data, q, v, tau), np.linalg.solve(M, tau - h),
                               rtol=1e-8, atol=1e-9)


def test_bad_shape_names_argument(arm):
    data = abdyn.Data(arm)
    with pytest.raises(abdyn.InvalidArgument, match=r"forward_dynamics: 'q' must have shape \(7,\), got \(3,\)"):
        abdyn.forward_dynamics(arm, data, np.zeros(3), np.zeros(7), np.zeros(7))
