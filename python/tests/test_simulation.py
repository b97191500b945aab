"""Simulator, integrators and loop closures against the formulas that define them."""

import numpy as np
import pytest

import abdyn
from conftest import MODELS, random_state


def test_explicit_and_semi_implicit_euler_are_their_formulas(humanoid):
    data = abdyn.Data(humanoid)
    q, v, tau = random_state(humanoid, 1)
    h = 1e-3
    a = abdyn.forward_dynamics(humanoid, data, q, v, tau)
    q1, v1 = abdyn.ExplicitEuler(humanoid).step(humanoid, data, q, v, tau, h)
    np.testing.assert_allclose(v1, v + h * a, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(q1, abdyn.integrate(humanoid, q, v, h), rtol=1e-14, atol=1e-14)
    q2, v2 = abdyn.SemiImplicitEuler(humanoid).step(humanoid, data, q, v, tau, h)
    np.testing.assert_allclose(q2, abdyn.integrate(humanoid, q, v + h * a, h), rtol=1e-14, atol=1e-14)
    # Substeps: two steps of h/2.
    qa, va = abdyn.ExplicitEuler(humanoid).step(humanoid, data, q, v, tau, h / 2)
    qb, vb = abdyn.ExplicitEuler(humanoid).step(humanoid, data, qa, va, tau, h / 2)
    qs, vs = abdyn.ExplicitEuler(humanoid).step(humanoid, data, q, v, tau, h, substeps=2)
    np.testing.assert_array_equal(qs, qb)
    np.testing.assert_array_equal(vs, vb)


def test_higher_order_integrators_converge(arm):
    # RK4 and the implicit midpoint rule against a fine RK4 reference after 0.1 s: errors shrink by
    # about 2^4 and 2^2 when h halves (orders 4 and 2).
    data = abdyn.Data(arm)
    q0, v0, _ = random_state(arm, 2)
    tau = np.zeros(arm.nv)

    def run(integrator, h):
        q, v = q0, v0
        for _ in range(int(round(0.1 / h))):
            q, v = integrator.step(arm, data, q, v, tau, h)
        return q

    reference = run(abdyn.RungeKutta4(arm), 1e-4)
    for integrator, order in [(abdyn.RungeKutta4(arm), 4), (abdyn.ImplicitMidpoint(arm), 2)]:
        e1 = np.abs(run(integrator, 0.01) - reference).max()
        e2 = np.abs(run(integrator, 0.005) - reference).max()
        assert e1 / e2 > 2 ** order * 0.7


def test_simulator_falls_onto_ground(humanoid):
    settings = abdyn.SimulatorSettings()
    settings.ground = True
    settings.joint_limits = True
    sim = abdyn.Simulator(humanoid, settings)
    q = sim.q
    q[2] = 1.0
    sim.q = q
    assert sim.q[2] == 1.0 and sim.time == 0.0
    energy = []
    for _ in range(600):
        stats = sim.step(2e-3)
        energy.append(stats.energy)
    assert sim.time == pytest.approx(1.2)
    assert stats.contacts > 0 and stats.rows > 0
    # Contacts only remove energy (restitution 0): the energy at the end is below the start's.
    assert energy[-1] < energy[0]
    data = abdyn.Data(humanoid)
    assert abdyn.mechanical_energy(humanoid, data, sim.q, sim.v) == pytest.approx(stats.energy, rel=1e-9)
    sim.settings.contact.mu = 0.3
    assert sim.settings.contact.mu == 0.3
    with pytest.raises(abdyn.InvalidArgument):
        sim.step(0.0)
    with pytest.raises(abdyn.InvalidArgument, match=r"'q' must have shape \(37,\)"):
        sim.q = np.zeros(3)


def test_simulator_motor_drives_velocity(arm):
    sim = abdyn.Simulator(arm.with_gravity([0, 0, 0]))
    sim.motors = [abdyn.JointMotor(2, 0.5, 1000.0)]
    assert sim.motors[0].coordinate == 2
    for _ in range(20):
        sim.step(1e-3)
    assert sim.v[2] == pytest.approx(0.5, abs=1e-6)


def test_limit_and_contact_push_settings(arm):
    """A joint 0.5 rad past its limit returns at limit_max_push_velocity (here 0.5 rad/s: without gravity the
    limit row is the only thing moving it: to the row solver's tolerance, 1e-6 rad/s), through the Simulator and
    rollout's settings dict; the speculative-row settings are carried; a cap that is not positive is refused."""
    free = arm.with_gravity([0, 0, 0])
    upper = free.upper_position_limit[0]
    settings = abdyn.SimulatorSettings()
    settings.joint_limits = True
    settings.limit_max_push_velocity = 0.5
    settings.contact.speculative_gap = 2e-3
    settings.contact.speculative_steps = float("inf")
    assert settings.contact.speculative_gap == 2e-3 and settings.contact.speculative_steps == float("inf")
    sim = abdyn.Simulator(free, settings)
    q = sim.q
    q[0] = upper + 0.5
    sim.q = q
    sim.step(2e-3)
    assert sim.v[0] == pytest.approx(-0.5, abs=1e-6)
    Q, V = abdyn.rollout(free, q[None, :], np.zeros((1, free.nv)), np.zeros((1, 3, free.nv)), 2e-3, threads=1,
                         settings={"joint_limits": True, "limit_max_push_velocity": 0.5,
                                   "contact": {"speculative_steps": 5.0, "speculative_gap": 1e-3}})
    assert V[0, -1, 0] == pytest.approx(-0.5, abs=1e-6)
    sim.settings.limit_max_push_velocity = 0.0
    with pytest.raises(abdyn.InvalidArgument, match="limit_max_push_velocity"):
        sim.step(2e-3)


def test_loop_closure_dynamics():
    model = abdyn.load_urdf(MODELS / "four_bar.urdf")
    loops = abdyn.load_urdf_loops(MODELS / "four_bar.urdf", model)
    data, cdata = abdyn.Data(model), abdyn.ConstrainedData(model, loops)
    q, iterations = abdyn.project_positions(model, data, cdata, loops, abdyn.neutral(model) + 0.1)
    assert iterations >= 1
    rng = np.random.default_rng(3)
    v = abdyn.project_velocities(model, data, cdata, loops, q, rng.standard_normal(model.nv))
    tau = rng.standard_normal(model.nv)
    qdd = abdyn.forward_dynamics_constrained(model, data, cdata, loops, q, v, tau)
    G, lam = cdata.constraint_jacobian, cdata.multipliers
    assert np.abs(cdata.constraint_error).max() < 1e-10
    np.testing.assert_allclose(G @ v, 0, atol=1e-10)
    # The constrained equations of motion, checked with the unconstrained calls: M qdd + h = tau + G^T lambda.
    M = abdyn.mass_matrix(model, data, q)
    h = abdyn.nonlinear_effects(model, data, q, v)
    np.testing.assert_allclose(M @ qdd + h, tau + G.T @ lam, rtol=1e-8, atol=1e-8)
    assert cdata.closure_wrenches.shape == (len(loops.loop_names), 6)
    # A plastic impact (e = 0) removes the constraint-violating velocity.
    v_plus = abdyn.constrained_impact(model, data, cdata, loops, q, rng.standard_normal(model.nv), 0.0)
    np.testing.assert_allclose(G @ v_plus, 0, atol=1e-10)
    other = abdyn.load_urdf(MODELS / "four_bar.urdf")
    with pytest.raises(abdyn.InvalidArgument, match="'cdata' was made for another Model"):
        abdyn.forward_dynamics_constrained(other, abdyn.Data(other), cdata, loops, q, v, tau)
    with pytest.raises(abdyn.Error, match="<string>"):
        abdyn.load_urdf_loops_string("<robot", model)
