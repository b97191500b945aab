"""The analytic derivatives against centred finite differences computed here in NumPy.

Perturbations of q are tangent ones, as in C++: q -> abdyn.integrate(model, q, t e_k, 1), and configurations
are compared in the tangent space by abdyn.difference. The differences are centred and of fourth order,
(8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / 12h: truncation h^4 |f^(5)| / 30, rounding about eps_machine |f| / h.
The step is 1e-5 where f is not polynomial (q; v and tau through an integrator step). The stiffest case sets
it: the humanoid's RK4 step at random angles and velocities has |A| ~ 1e9 (light links), and its truncation
error, measured, is 3.6e-6 relative for a second-order difference at 1e-5, 2e-6 for the fourth-order one at
1e-4 and 2e-10 at 1e-5 (rounding stays far below). The step is 1e-2 in v, qdd and tau of the dynamics calls,
which are at most quadratic in them (the differences are then exact up to rounding). Agreement is asked to
1e-6 in the Frobenius norm relative to the difference quotient's, as in tests/test_derivatives.cpp.
"""

import numpy as np
import pytest

import abdyn
from conftest import MODELS, random_state, run_in_threads

STEP = 1e-5
STEP_QUADRATIC = 1e-2
TOL = 1e-6


def relative_error(analytic, numeric):
    return np.linalg.norm(analytic - numeric) / max(1.0, np.linalg.norm(numeric))


def centred(f, step):
    """Fourth-order centred difference of t -> f(t) at 0: (8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / 12h."""
    return (8 * (f(step) - f(-step)) - (f(2 * step) - f(-2 * step))) / (12 * step)


def tangent_fd(model, f, q, step=STEP):
    """Column k: the derivative of f(q (+) t e_k) at t = 0."""
    eye = np.eye(model.nv)
    return np.array([centred(lambda t: f(abdyn.integrate(model, q, t * eye[k], 1.0)), step) for k in range(model.nv)]).T


def vector_fd(f, x, step):
    """Column k: the derivative of f(x + t e_k) at t = 0."""
    eye = np.eye(x.size)
    return np.array([centred(lambda t: f(x + t * eye[k]), step) for k in range(x.size)]).T


def external_forces(model, seed):
    return np.random.default_rng(seed).standard_normal((model.nbodies, 6))


@pytest.mark.parametrize("with_forces", [False, True])
@pytest.mark.parametrize("call", ["inverse_dynamics", "forward_dynamics"])
def test_dynamics_derivatives(model, call, with_forces):
    """d/dq, d/dv and d/dw of inverse_dynamics(q, v, qdd = w) and forward_dynamics(q, v, tau = w); besides,
    d tau / d qdd is the mass matrix and d qdd / d tau its inverse."""
    function, derivatives = getattr(abdyn, call), getattr(abdyn, call + "_derivatives")
    data = abdyn.Data(model)
    for seed in range(2):
        q, v, w = random_state(model, seed)
        f = external_forces(model, seed) if with_forces else None
        dq, dv, dw = derivatives(model, data, q, v, w, f)
        y = lambda q_, v_, w_: function(model, data, q_, v_, w_, f)
        assert relative_error(dq, tangent_fd(model, lambda x: y(x, v, w), q)) < TOL
        assert relative_error(dv, vector_fd(lambda x: y(q, x, w), v, STEP_QUADRATIC)) < TOL
        assert relative_error(dw, vector_fd(lambda x: y(q, v, x), w, STEP_QUADRATIC)) < TOL
        M = abdyn.mass_matrix(model, data, q)
        if call == "inverse_dynamics":
            np.testing.assert_allclose(dw, M, rtol=0, atol=1e-10 * np.abs(dw).max())
        else:
            np.testing.assert_allclose(dw @ M, np.eye(model.nv), atol=1e-9)


def test_integrate_and_difference_jacobians(model):
    for seed in range(2):
        q, v, _ = random_state(model, seed)
        dt = 0.3
        d_dq, d_dv = abdyn.integrate_jacobians(model, q, v, dt)
        q1 = abdyn.integrate(model, q, v, dt)
        tangent_of = lambda y: abdyn.difference(model, q1, y)  # chart at q1: zero at q1, tangent there
        assert relative_error(d_dq, tangent_fd(model, lambda x: tangent_of(abdyn.integrate(model, x, v, dt)), q)) < TOL
        assert relative_error(d_dv, vector_fd(lambda x: tangent_of(abdyn.integrate(model, q, x, dt)), v, STEP)) < TOL
        q0 = abdyn.random_configuration(model, 100 + seed)
        q0 = abdyn.integrate(model, q, 0.2 * (abdyn.difference(model, q, q0)), 1.0)  # nearby: away from the cut locus
        d_dq0, d_dq1 = abdyn.difference_jacobians(model, q0, q)
        assert relative_error(d_dq0, tangent_fd(model, lambda x: abdyn.difference(model, x, q), q0)) < TOL
        assert relative_error(d_dq1, tangent_fd(model, lambda x: abdyn.difference(model, q0, x), q)) < TOL


@pytest.mark.parametrize("method,integrator", [("explicit_euler", abdyn.ExplicitEuler),
                                               ("semi_implicit_euler", abdyn.SemiImplicitEuler),
                                               ("runge_kutta4", abdyn.RungeKutta4)])
def test_step_jacobians(model, method, integrator):
    data = abdyn.Data(model)
    jacobians = abdyn.StepJacobians(model)
    stepper = integrator(model)
    h = 1e-2
    q, v, tau = random_state(model, 3)
    A, B = getattr(jacobians, method)(model, data, q, v, tau, h)
    nv = model.nv
    q1, _ = stepper.step(model, data, q, v, tau, h)

    def state(q_, v_, t_):
        qn, vn = stepper.step(model, data, q_, v_, t_, h)
        return np.concatenate([abdyn.difference(model, q1, qn), vn])

    numeric_A = np.hstack([tangent_fd(model, lambda x: state(x, v, tau), q), vector_fd(lambda x: state(q, x, tau), v, STEP)])
    numeric_B = vector_fd(lambda x: state(q, v, x), tau, STEP)
    assert A.shape == (2 * nv, 2 * nv) and B.shape == (2 * nv, nv)
    assert relative_error(A, numeric_A) < TOL
    assert relative_error(B, numeric_B) < TOL


def test_results_are_copies(arm):
    data = abdyn.Data(arm)
    q, v, tau = random_state(arm, 0)
    dq, _, _ = abdyn.forward_dynamics_derivatives(arm, data, q, v, tau)
    kept = dq.copy()
    dq[:] = 0.0
    again, _, _ = abdyn.forward_dynamics_derivatives(arm, data, q, v, tau)
    np.testing.assert_array_equal(again, kept)
    abdyn.forward_dynamics_derivatives(arm, data, q, 2 * v, tau)
    np.testing.assert_array_equal(again, kept)  # a later call does not write into an earlier result
    jacobians = abdyn.StepJacobians(arm)
    A, _ = jacobians.semi_implicit_euler(arm, data, q, v, tau, 1e-2)
    A_kept = A.copy()
    jacobians.semi_implicit_euler(arm, data, q, 3 * v, tau, 1e-2)
    np.testing.assert_array_equal(A, A_kept)


def test_threads_with_own_data_match_serial(humanoid):
    # The calls release the GIL; each thread with its own Data and StepJacobians gets the serial results.
    inputs = [random_state(humanoid, seed) for seed in range(4)]
    data, jacobians = abdyn.Data(humanoid), abdyn.StepJacobians(humanoid)
    expected = [(abdyn.forward_dynamics_derivatives(humanoid, data, *s)[0],
                 jacobians.runge_kutta4(humanoid, data, *s, 1e-3)[0]) for s in inputs]
    results = {}

    def worker(t):
        own, own_jacobians = abdyn.Data(humanoid), abdyn.StepJacobians(humanoid)
        for _ in range(10):
            for k, s in enumerate(inputs):
                results[(t, k)] = (abdyn.forward_dynamics_derivatives(humanoid, own, *s)[0],
                                   own_jacobians.runge_kutta4(humanoid, own, *s, 1e-3)[0])

    assert not run_in_threads(worker, 3)
    for (_, k), (dq, A) in results.items():
        np.testing.assert_array_equal(dq, expected[k][0])
        np.testing.assert_array_equal(A, expected[k][1])


def test_bad_arguments_name_themselves(arm, humanoid):
    data = abdyn.Data(arm)
    q, v, tau = random_state(arm, 0)
    with pytest.raises(abdyn.InvalidArgument, match="'tau'"):
        abdyn.forward_dynamics_derivatives(arm, data, q, v, tau[:-1])
    with pytest.raises(abdyn.InvalidArgument, match="'qdd'"):
        abdyn.inverse_dynamics_derivatives(arm, data, q, v, np.full(arm.nv, np.nan))
    with pytest.raises(abdyn.InvalidArgument, match="'q'"):
        abdyn.inverse_dynamics_derivatives(arm, data, q[:3], v, tau)
    with pytest.raises(abdyn.InvalidArgument, match="'f_ext'"):
        abdyn.forward_dynamics_derivatives(arm, data, q, v, tau, np.zeros((2, 6)))
    with pytest.raises(abdyn.InvalidArgument, match="'v'"):
        abdyn.integrate_jacobians(arm, q, v[:2], 0.1)
    with pytest.raises(abdyn.InvalidArgument, match="'q1'"):
        abdyn.difference_jacobians(arm, q, np.zeros(arm.nq + 1))
    jacobians = abdyn.StepJacobians(arm)
    with pytest.raises(abdyn.InvalidArgument, match="'v'"):
        jacobians.runge_kutta4(arm, data, q, v[1:], tau, 1e-2)
    with pytest.raises(abdyn.InvalidArgument, match="'h'"):
        jacobians.explicit_euler(arm, data, q, v, tau, -1.0)
    with pytest.raises(abdyn.InvalidArgument, match="another Model"):
        jacobians.explicit_euler(humanoid, abdyn.Data(humanoid), abdyn.neutral(humanoid), np.zeros(humanoid.nv),
                                 np.zeros(humanoid.nv), 1e-2)
    with pytest.raises(TypeError):
        abdyn.forward_dynamics_derivatives(arm, data, q, v, ["a"] * arm.nv)


@pytest.mark.parametrize("name,q_guess", [("four_bar.urdf", [0.7, -0.3, 1.1]), ("slider_crank.urdf", [1.0, 0.0, 1.0]),
                                          ("delta_robot.urdf", None)])
def test_forward_dynamics_constrained_derivatives(name, q_guess):
    # At a closed configuration (project_positions) with v projected onto G v = 0; Baumgarte gains so that
    # the stabilisation terms count. Step 1e-3 in q, fourth order, as tests/test_constrained_derivatives.cpp
    # argues (the delta robot's constrained solve rounds at about 1e-11 relative); 1e-2 in v and tau, in
    # which qdd and lambda are quadratic and linear.
    model = abdyn.load_urdf(MODELS / name)
    loops = abdyn.load_urdf_loops(MODELS / name, model)
    data, cdata = abdyn.Data(model), abdyn.ConstrainedData(model, loops)
    q0 = abdyn.neutral(model) if q_guess is None else np.array(q_guess)
    q, _ = abdyn.project_positions(model, data, cdata, loops, q0)
    rng = np.random.default_rng(19)
    v = abdyn.project_velocities(model, data, cdata, loops, q, rng.standard_normal(model.nv))
    tau = rng.standard_normal(model.nv)
    settings = abdyn.ConstrainedDynamicsSettings()
    settings.baumgarte_alpha, settings.baumgarte_beta = 4.0, 6.0
    results = abdyn.forward_dynamics_constrained_derivatives(model, data, cdata, loops, q, v, tau, settings)
    m = loops.rows
    assert [r.shape for r in results] == [(model.nv, model.nv)] * 3 + [(m, model.nv)] * 3

    def both(q_, v_, t_):
        qdd = abdyn.forward_dynamics_constrained(model, data, cdata, loops, q_, v_, t_, settings)
        return np.concatenate([qdd, cdata.multipliers])

    numeric = [tangent_fd(model, lambda x: both(x, v, tau), q, 1e-3),
               vector_fd(lambda x: both(q, x, tau), v, STEP_QUADRATIC),
               vector_fd(lambda x: both(q, v, x), tau, STEP_QUADRATIC)]
    for i in range(3):
        assert relative_error(results[i], numeric[i][:model.nv]) < TOL
        assert relative_error(results[3 + i], numeric[i][model.nv:]) < TOL


def four_bar_at_rest():
    """The four-bar and its loop closure, at rest at the configuration near its closed set the program starts from."""
    model = abdyn.load_urdf(MODELS / "four_bar.urdf")
    return model, abdyn.load_urdf_loops(MODELS / "four_bar.urdf", model), np.array([0.7, -0.3, 1.1]), np.zeros(3)


def test_constrained_derivatives_bad_arguments():
    model, loops, q, v = four_bar_at_rest()
    data, cdata = abdyn.Data(model), abdyn.ConstrainedData(model, loops)
    with pytest.raises(abdyn.InvalidArgument, match="'tau'"):
        abdyn.forward_dynamics_constrained_derivatives(model, data, cdata, loops, q, v, np.zeros(2))
    with pytest.raises(abdyn.InvalidArgument, match="'q'"):
        abdyn.forward_dynamics_constrained_derivatives(model, data, cdata, loops, [np.inf, 0, 0], v, v)
    other = abdyn.load_urdf_loops(MODELS / "four_bar.urdf", model)
    with pytest.raises(abdyn.InvalidArgument, match="'cdata'"):
        abdyn.forward_dynamics_constrained_derivatives(model, data, cdata, other, q, v, v)
    settings = abdyn.ConstrainedDynamicsSettings()
    settings.stabilisation = abdyn.Stabilisation.PREDICTED_ERROR  # needs settings.time_step
    with pytest.raises(abdyn.InvalidArgument, match="time_step"):
        abdyn.forward_dynamics_constrained_derivatives(model, data, cdata, loops, q, v, v, settings)


def constrained_rk4(model, data, cdata, loops, q, v, tau, h, settings):
    """The RK4 step of forward_dynamics_constrained without projection, written out for models whose joints
    are all one-DoF (the four-bar, the slider-crank), where RK-Munthe-Kaas stages need no rate correction."""
    def accel(q_, v_):
        return abdyn.forward_dynamics_constrained(model, data, cdata, loops, q_, v_, tau, settings)
    a1 = accel(q, v)
    v2 = v + 0.5 * h * a1
    a2 = accel(abdyn.integrate(model, q, v, 0.5 * h), v2)
    v3 = v + 0.5 * h * a2
    a3 = accel(abdyn.integrate(model, q, v2, 0.5 * h), v3)
    v4 = v + h * a3
    a4 = accel(abdyn.integrate(model, q, v3, h), v4)
    return (abdyn.integrate(model, q, (v + 2 * v2 + 2 * v3 + v4) / 6, h),
            v + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4))


@pytest.mark.parametrize("name,q_guess", [("four_bar.urdf", [0.7, -0.3, 1.1]), ("slider_crank.urdf", [1.0, 0.0, 1.0])])
def test_constrained_step_jacobians(name, q_guess):
    # A and B of the unprojected constrained RK4 step against fourth-order centred differences of the step
    # written out above, in the tangent space (next state compared by difference at the unperturbed next
    # state), step 1e-3 as tests/test_constrained_step.cpp argues; Baumgarte gains so that their terms count.
    model = abdyn.load_urdf(MODELS / name)
    loops = abdyn.load_urdf_loops(MODELS / name, model)
    data, cdata = abdyn.Data(model), abdyn.ConstrainedData(model, loops)
    q, _ = abdyn.project_positions(model, data, cdata, loops, np.array(q_guess))
    rng = np.random.default_rng(23)
    v = abdyn.project_velocities(model, data, cdata, loops, q, rng.standard_normal(model.nv))
    tau = rng.standard_normal(model.nv)
    settings = abdyn.ConstrainedDynamicsSettings()
    settings.baumgarte_alpha, settings.baumgarte_beta = 4.0, 6.0
    h, n = 0.01, model.nv
    A, B = abdyn.ConstrainedStepJacobians(model, loops).runge_kutta4(model, data, loops, q, v, tau, h, settings)
    assert A.shape == (2 * n, 2 * n) and B.shape == (2 * n, n)
    q1, v1 = constrained_rk4(model, data, cdata, loops, q, v, tau, h, settings)

    def next_state(x):
        qq, vv = constrained_rk4(model, data, cdata, loops, abdyn.integrate(model, q, x[:n], 1.0), v + x[n:2 * n],
                                 tau + x[2 * n:], h, settings)
        return np.concatenate([abdyn.difference(model, q1, qq), vv - v1])

    numeric = vector_fd(next_state, np.zeros(3 * n), 1e-3)
    assert relative_error(A, numeric[:, :2 * n]) < TOL
    assert relative_error(B, numeric[:, 2 * n:]) < TOL


def test_constrained_step_jacobians_bad_arguments():
    model, loops, q, v = four_bar_at_rest()
    data, jacobians = abdyn.Data(model), abdyn.ConstrainedStepJacobians(model, loops)
    with pytest.raises(abdyn.InvalidArgument, match="'tau'"):
        jacobians.runge_kutta4(model, data, loops, q, v, np.zeros(2), 0.01)
    with pytest.raises(abdyn.InvalidArgument, match="'h'"):
        jacobians.runge_kutta4(model, data, loops, q, v, v, 0.0)
    other = abdyn.load_urdf_loops(MODELS / "four_bar.urdf", model)
    with pytest.raises(abdyn.InvalidArgument, match="another Model or ConstraintSet"):
        jacobians.runge_kutta4(model, data, other, q, v, v, 0.01)


def _pendulum_on_its_limit(model):
    """A Simulator of the double pendulum with its first joint 2 mrad past its upper limit, pushed into it."""
    settings = abdyn.SimulatorSettings()
    settings.joint_limits = True
    settings.solver.tolerance = 1e-14
    settings.solver.max_iterations = 5000
    sim = abdyn.Simulator(model, settings)
    sim.q = np.array([np.pi + 0.002, 0.4])
    sim.v = np.array([0.1, -0.5])
    sim.tau = np.array([5.0, 0.2])
    return sim


def test_simulator_step_jacobians():
    """SimulatorStepJacobians against second-order centred differences (1e-5, as in
    tests/test_simulator_derivatives.cpp: the step is smooth on its branch and the solver converged to 1e-14) of
    Simulator.step from fresh simulators, in the tangent space, on the double pendulum resting on its limit
    (the limit row free); every perturbed step keeps the one limit row; relative to [A - 1, B], asked 1e-6."""
    model = abdyn.load_urdf(MODELS / "double_pendulum.urdf")
    n, h = model.nv, 1e-3
    sim = _pendulum_on_its_limit(model)
    jacobians = abdyn.SimulatorStepJacobians(sim)
    A, B = jacobians.step(sim, h)
    assert list(jacobians.activity) == [abdyn.RowActivity.FREE]
    q1 = sim.q
    start = _pendulum_on_its_limit(model)
    q0, v0, tau0 = start.q, start.v, start.tau

    def next_state(dq, dv, dtau):
        s = _pendulum_on_its_limit(model)
        s.q, s.v, s.tau = abdyn.integrate(model, q0, dq, 1.0), v0 + dv, tau0 + dtau
        s.step(h)
        assert s.statistics.rows == 1
        return np.concatenate([abdyn.difference(model, q1, s.q), s.v])

    eye, zero = np.eye(n), np.zeros(n)
    columns = []
    for part in range(3):
        for k in range(n):
            e = [zero, zero, zero]
            e[part] = STEP * eye[k]
            minus = [-x for x in e]
            columns.append((next_state(*e) - next_state(*minus)) / (2 * STEP))
    fd = np.array(columns).T
    analytic = np.hstack([A, B])
    scale = np.linalg.norm(np.hstack([A - np.eye(2 * n), B]))
    assert np.linalg.norm(analytic - fd) / scale < TOL


def test_simulator_step_jacobians_analytic_rows_match_rebuilt_rows():
    """The analytic row derivatives (the limit row of the double pendulum pressed past its bound) against
    rebuild_all_rows, every row differentiated by centred rebuilds
    (configuration_step 1e-5: truncation O(1e-10), rounding 1e-16 / 1e-5), relative to [A - 1, B], asked 1e-7
    as tests/test_simulator_derivatives.cpp."""
    model = abdyn.load_urdf(MODELS / "double_pendulum.urdf")
    analytic, rebuilt = _pendulum_on_its_limit(model), _pendulum_on_its_limit(model)
    jacobians, reference = abdyn.SimulatorStepJacobians(analytic), abdyn.SimulatorStepJacobians(rebuilt)
    assert not jacobians.rebuild_all_rows
    reference.rebuild_all_rows = True
    assert reference.rebuild_all_rows
    A, B = jacobians.step(analytic, 1e-3)
    A_ref, B_ref = reference.step(rebuilt, 1e-3)
    n = model.nv
    scale = np.linalg.norm(np.hstack([A_ref - np.eye(2 * n), B_ref]))
    assert np.linalg.norm(np.hstack([A - A_ref, B - B_ref])) / scale < 1e-7


def test_simulator_settings_energy(arm):
    """SimulatorSettings.energy: on by default, the step's energy then finite; off, NaN."""
    settings = abdyn.SimulatorSettings()
    assert settings.energy is True
    sim = abdyn.Simulator(arm, settings)
    assert np.isfinite(sim.step(1e-3).energy)
    settings.energy = False
    assert settings.energy is False
    sim = abdyn.Simulator(arm, settings)
    assert np.isnan(sim.step(1e-3).energy)


def test_simulator_step_jacobians_bad_arguments(arm):
    model = abdyn.load_urdf(MODELS / "double_pendulum.urdf")
    sim = _pendulum_on_its_limit(model)
    jacobians = abdyn.SimulatorStepJacobians(sim)
    with pytest.raises(abdyn.InvalidArgument, match="not the model"):
        jacobians.step(abdyn.Simulator(arm), 1e-3)
    with pytest.raises(abdyn.InvalidArgument, match="'h'"):
        jacobians.step(sim, -1.0)
    sim.settings.substeps = 2
    with pytest.raises(abdyn.InvalidArgument, match="substeps"):
        jacobians.step(sim, 1e-3)
