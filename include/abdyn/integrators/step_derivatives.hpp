#pragma once
/// @file
/// Transition Jacobians of one step of the unconstrained integrators (explicit_euler.hpp,
/// semi_implicit_euler.hpp, runge_kutta4.hpp): with the state x = (q, v) perturbed in the tangent space
/// (q by integrate(q, dq), as in derivatives.hpp) and the joint forces u = tau,
///   A = d x_next / d x   (2 nv x 2 nv, rows and columns ordered dq, dv)
///   B = d x_next / d u   (2 nv x nv).
/// Each is the chain rule through the step exactly as the integrator computes it (docs/derivatives.md):
/// d qdd from forwardDynamicsDerivatives, d integrate from integrateJacobians, and for RK4 the
/// derivative of exponentialCoordinateRate at every stage. External forces are not taken.

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

namespace detail {
/// Integration Jacobians and, for RK4, the stage state and the derivatives of each stage's quantities with
/// respect to (dq, dv, dtau) as nv x 3 nv matrices.
struct StepJacobianWorkspace {
  explicit StepJacobianWorkspace(const Model& model);
  Eigen::MatrixXd Jq, Jv, Rt, Rv;
  Eigen::MatrixXd d_theta, d_v, d_q, d_a, d_k, d_ksum, d_asum;
  Eigen::VectorXd q_stage, v_stage, theta, k, a, k_sum, a_sum;
};
}  // namespace detail

/// A = d x_next / d x and B = d x_next / d tau of one step of an unconstrained integrator (see the file comment).
class StepJacobians {
 public:
  /// Allocates A, B and the workspace for this model; the calls below allocate nothing.
  explicit StepJacobians(const Model& model);

  /// ExplicitEuler::step: q1 = q (+) h v, v1 = v + h qdd(q, v, tau).
  void explicitEuler(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                     const Eigen::VectorXd& tau, double h, const DynamicsOptions& options = {});
  /// SemiImplicitEuler::step: v1 = v + h qdd(q, v, tau), q1 = q (+) h v1.
  void semiImplicitEuler(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                         const Eigen::VectorXd& tau, double h, const DynamicsOptions& options = {});
  /// RungeKutta4::step (Runge-Kutta-Munthe-Kaas, four stages).
  void rungeKutta4(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   const Eigen::VectorXd& tau, double h, const DynamicsOptions& options = {});

  Eigen::MatrixXd A;  ///< 2 nv x 2 nv: d (q1, v1) / d (q, v), tangent coordinates
  Eigen::MatrixXd B;  ///< 2 nv x nv: d (q1, v1) / d tau

 private:
  void check(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
             double h, const char* function) const;

  detail::StepJacobianWorkspace w_;
};

}  // namespace abdyn
