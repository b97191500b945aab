#pragma once
/// @file
/// Explicit (forward) Euler on the configuration manifold, first order:
///   q[t+h] = q[t] (+) h v[t],   v[t+h] = v[t] + h a(q[t], v[t]),
/// with (+) the exponential map of configuration.hpp. It adds energy to every oscillation (for a
/// harmonic oscillator, by the factor 1 + (h w)^2 per step); kept as the baseline of the comparisons.

#include "abdyn/integrators/euler_integrator.hpp"

namespace abdyn {

/// ExplicitEuler: EulerIntegrator<EulerScheme::Explicit> (euler_integrator.hpp), the step described above.
using ExplicitEuler = EulerIntegrator<EulerScheme::Explicit>;

}  // namespace abdyn
