#pragma once
/// @file
/// Sub-stepping: one step of length h taken as n steps of h / n with the same integrator, so that a
/// caller's frame rate and the integrator's stable step size can differ.

#include "abdyn/error.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Advances (q, v) by h in `substeps` equal steps of any integrator with a
/// step(model, data, q, v, tau, h, options) member (tau: constant vector or JointForceFunction).
template <class Integrator, class Tau, class Options>
void stepWithSubsteps(Integrator& integrator, const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                      const Tau& tau, double h, int substeps, const Options& options) {
  if (substeps < 1) {
    throw InvalidArgument("abdyn::stepWithSubsteps: 'substeps' must be at least 1, got " + std::to_string(substeps));
  }
  const double dt = h / substeps;
  for (int s = 0; s < substeps; ++s) integrator.step(model, data, q, v, tau, dt, options);
}

}  // namespace abdyn
