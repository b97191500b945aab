#pragma once
/// @file
/// The classical fourth-order Runge-Kutta method on the configuration manifold (Runge-Kutta-Munthe-
/// Kaas): stages move q through integrate() with exponential coordinates whose rates are corrected by
/// exponentialCoordinateRate, so quaternion joints keep fourth-order accuracy and unit norm.
/// For unconstrained models: the accelerations come from forwardDynamics (ABA).

#include <Eigen/Core>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

namespace detail {
/// The stage vectors of one Runge-Kutta-Munthe-Kaas step, allocated once by the integrator that owns them.
struct RungeKutta4Stages {
  explicit RungeKutta4Stages(const Model& model);
  Eigen::VectorXd q_stage, v_stage, theta, k_sum, a_sum, k, a;
};
}  // namespace detail

/// The classical RK4 step on the configuration manifold, accelerations from forwardDynamics (see the file comment).
class RungeKutta4 {
 public:
  /// Allocates the stage workspace for this model; step() allocates nothing.
  explicit RungeKutta4(const Model& model);

  /// Advances (q, v) by h under constant joint forces tau (and f_ext if given, body coordinates).
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const DynamicsOptions& options = {});

 private:
  detail::RungeKutta4Stages stages_;
};

}  // namespace abdyn
