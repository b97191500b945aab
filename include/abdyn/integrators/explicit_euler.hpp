#pragma once
/// @file
/// Explicit (forward) Euler on the configuration manifold, first order:
///   q[t+h] = q[t] (+) h v[t],   v[t+h] = v[t] + h a(q[t], v[t]),
/// with (+) the exponential map of configuration.hpp. It adds energy to every oscillation (for a
/// harmonic oscillator, by the factor 1 + (h w)^2 per step); kept as the baseline of the comparisons.

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/integrators/joint_force.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Explicit Euler on the configuration manifold (see the file comment).
class ExplicitEuler {
 public:
  /// Allocates the workspace for this model; step() allocates nothing.
  explicit ExplicitEuler(const Model& model);

  /// Advances (q, v) by h under constant joint forces tau.
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const DynamicsOptions& options = {});
  /// Advances (q, v) by h under joint forces evaluated at the start of the step.
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const JointForceFunction& tau,
            double h, const DynamicsOptions& options = {});

 private:
  Eigen::VectorXd tau_;
};

}  // namespace abdyn
