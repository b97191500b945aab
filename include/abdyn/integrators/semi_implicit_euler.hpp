#pragma once
/// @file
/// Semi-implicit (symplectic) Euler on the configuration manifold, first order:
///   v[t+h] = v[t] + h a(q[t], v[t]),   q[t+h] = q[t] (+) h v[t+h],
/// the position update of impulse-based solvers (q[t+h] = q[t] + h S v[t+h]). Symplectic for
/// separable Hamiltonians, so a conservative system's energy oscillates within O(h) of its start
/// instead of drifting.

#include "abdyn/integrators/euler_integrator.hpp"

namespace abdyn {

/// SemiImplicitEuler: EulerIntegrator<EulerScheme::SemiImplicit> (euler_integrator.hpp), the step described above.
using SemiImplicitEuler = EulerIntegrator<EulerScheme::SemiImplicit>;

}  // namespace abdyn
