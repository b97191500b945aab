#pragma once
/// @file
/// Semi-implicit Euler with the joint damping taken implicitly (the scheme of MuJoCo's Euler and
/// implicitfast integrators, for joint damping): first order, unconditionally stable in the damping.
///
/// Why: a viscous joint damper d on a coordinate of small effective inertia m (a finger, a wheel, a
/// gripper pad) decays at the rate lambda = d / m. An explicit step multiplies that mode by 1 - h lambda
/// (Euler) or by RK4's polynomial in h lambda, and grows without bound once h lambda > 2 (Euler) or
/// h lambda > 2.785 (RK4): at h = 1 ms a 0.1 kg finger with d = 1 N s/m already has h lambda = 10.
///
/// The step. With D = diag(damping), f(q, v) = tau - C(q, v) v - g(q) the other joint forces, and M(q)
/// including the armature (the armature is inertia: it enters M exactly, in every integrator):
///   M(q) (v[t+h] - v[t]) = h (f(q[t], v[t]) - D v[t+h])        (damping at the END of the step)
/// which, with dv = v[t+h] - v[t], is the linear system
///   (M + h D) dv = h (f - D v[t])        i.e.   dv = h (M + h D)^-1 (f - D v[t]),
///   q[t+h] = q[t] (+) h v[t+h]                                  (as semi-implicit Euler).
/// M + h D is M with h damping(k) added to its diagonal, i.e. an armature: ABA solves the system in O(n)
/// with DynamicsOptions::implicit_damping_step = h, no factorisation of M needed.
///
/// Order: (M + h D)^-1 = M^-1 - h M^-1 D M^-1 + O(h^2), so dv = h a(q, v) + O(h^2) per step and the
/// scheme is first order, like semi-implicit Euler, to which it reduces when D = 0.
///
/// Stability and energy. For one coordinate without other forces, m dv = -h d v[t+h] gives
///   v[t+h] = v[t] / (1 + h d / m):
/// monotone decay for every h > 0 (L-stable: the factor tends to 0 as h d / m grows, no ringing), where
/// the exact factor is exp(-h d / m). In general, with f = 0, multiplying by v[t+h]^T:
///   T[t+h] - T[t] = -h v[t+h]^T D v[t+h] - 1/2 dv^T M dv <= 0      (T = 1/2 v^T M v at q[t]),
/// so the damper removes at least the work it does over the step, h v^T D v at the new velocity, for
/// any h: the damping never adds energy (the explicit schemes' instability). What the scheme conserves
/// is what semi-implicit Euler conserves: with D = 0 it is symplectic for separable Hamiltonians, so
/// a conservative model's energy oscillates within O(h) of its start; with D > 0 the energy decreases
/// (up to that O(h) oscillation), and the stationary states (v = 0, f = 0) are those of the model.

#include "abdyn/integrators/euler_integrator.hpp"

namespace abdyn {

/// ImplicitDampingEuler: EulerIntegrator<EulerScheme::ImplicitDamping> (euler_integrator.hpp), the step described above.
using ImplicitDampingEuler = EulerIntegrator<EulerScheme::ImplicitDamping>;

}  // namespace abdyn
