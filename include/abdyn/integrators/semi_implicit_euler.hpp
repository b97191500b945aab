#pragma once
/// @file
/// Semi-implicit (symplectic) Euler on the configuration manifold, first order:
///   v[t+h] = v[t] + h a(q[t], v[t]),   q[t+h] = q[t] (+) h v[t+h],
/// the position update of impulse-based solvers (q[t+h] = q[t] + h S v[t+h]). Symplectic for
/// separable Hamiltonians, so a conservative system's energy oscillates within O(h) of its start
/// instead of drifting.

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/integrators/joint_force.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Semi-implicit (symplectic) Euler on the configuration manifold (see the file comment).
class SemiImplicitEuler {
 public:
  /// Allocates the workspace for this model; step() allocates nothing.
  explicit SemiImplicitEuler(const Model& model);

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
