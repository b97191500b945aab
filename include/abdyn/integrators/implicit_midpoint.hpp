#pragma once
/// @file
/// The implicit midpoint rule on the configuration manifold, second order and symmetric. With the
/// velocity increment dv = v[t+h] - v[t] as unknown and the midpoint state
///   v_m = v[t] + dv / 2,   q_m = q[t] (+) (h / 2) v_m,
/// the step solves  r(dv) = dv - h a(q_m, v_m) = 0  and sets  q[t+h] = q[t] (+) h v_m,  v[t+h] = v[t] + dv.
/// For one-DoF joints q_m is exactly (q[t] + q[t+h]) / 2, so the rule is the classical implicit midpoint
/// and conserves every quadratic invariant (e.g. a linear oscillator's energy) up to the solve's tolerance.
/// The solve is Newton's method with a forward-difference Jacobian I - h da/d(dv), started from the
/// explicit Euler increment; it throws abdyn::Error if it does not converge.

#include <Eigen/LU>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/integrators/joint_force.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Newton solve settings of ImplicitMidpoint.
struct ImplicitMidpointSettings {
  /// Converged when max |r_k| <= tolerance * (1 + max |v[t]| + max |dv|).
  double tolerance = 1e-12;
  /// Newton iterations before the step gives up with abdyn::Error.
  int max_iterations = 30;
  /// Relative forward-difference step for the Jacobian columns.
  double difference_step = 1e-7;
};

/// The implicit midpoint rule on the configuration manifold, solved by Newton's method (see the file comment).
class ImplicitMidpoint {
 public:
  /// Allocates the workspace (including the nv x nv Jacobian) for this model; step() allocates nothing.
  explicit ImplicitMidpoint(const Model& model, const ImplicitMidpointSettings& settings = {});

  /// Advances (q, v) by h under constant joint forces tau.
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const DynamicsOptions& options = {});
  /// Advances (q, v) by h under joint forces evaluated at the midpoint state.
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const JointForceFunction& tau,
            double h, const DynamicsOptions& options = {});

  /// Newton iterations of the last step.
  int lastIterations() const { return last_iterations_; }

 private:
  template <class TauAt>
  void advance(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const TauAt& tau_at, double h,
               const DynamicsOptions& options);
  template <class TauAt>
  void residual(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                const Eigen::VectorXd& dv, const TauAt& tau_at, double h, const DynamicsOptions& options,
                Eigen::VectorXd& r);

  ImplicitMidpointSettings settings_;
  int last_iterations_ = 0;
  Eigen::VectorXd dv_, dv_trial_, r_, r_trial_, v_mid_, q_mid_, tau_, delta_;
  Eigen::MatrixXd jacobian_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

}  // namespace abdyn
