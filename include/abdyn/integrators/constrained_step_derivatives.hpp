#pragma once
/// @file
/// Transition Jacobians of one ConstrainedRungeKutta4 step (constrained_runge_kutta4.hpp) WITHOUT its
/// post-stabilisation: with x = (q, v) perturbed in the tangent space (q by integrate(q, dq)) and u = tau,
///   A = d x_next / d x   (2 nv x 2 nv, rows and columns ordered dq, dv)
///   B = d x_next / d u   (2 nv x nv)
/// of the four RK4 stages and the final integrate, i.e. the step with settings.project = false. The chain rule
/// is StepJacobians::rungeKutta4's (step_derivatives.hpp) with d qdd from forwardDynamicsConstrainedDerivatives
/// in place of forwardDynamicsDerivatives (docs/derivatives.md, section 7).
/// The projections are not included: they are a nonlinear map onto the closure manifold (Gauss-Newton to a
/// tolerance) whose derivative, at a point already on the manifold, is the projector onto its tangent space;
/// A and B here are the Jacobians of the unprojected step, whose columns leave the manifold by O(h^5).
/// Allocation-free after construction.

#include "abdyn/constraints/constrained_derivatives.hpp"
#include "abdyn/integrators/constrained_runge_kutta4.hpp"
#include "abdyn/integrators/step_derivatives.hpp"

namespace abdyn {

/// A = d x_next / d x and B = d x_next / d tau of one ConstrainedRungeKutta4 step without projection
/// (see the file comment).
class ConstrainedStepJacobians {
 public:
  /// Allocates A, B and the workspace for this model and constraint set; rungeKutta4() allocates nothing.
  ConstrainedStepJacobians(const Model& model, const ConstraintSet& constraints);

  /// A and B of ConstrainedRungeKutta4::step(..., settings) with settings.project = false (settings.project is
  /// not read), at (q, v, tau) and step h. cd is the constrained-dynamics workspace of `constraints`.
  void rungeKutta4(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                   const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
                   const ConstrainedDynamicsSettings& settings = {});

  Eigen::MatrixXd A;  ///< 2 nv x 2 nv: d (q1, v1) / d (q, v), tangent coordinates
  Eigen::MatrixXd B;  ///< 2 nv x nv: d (q1, v1) / d tau

 private:
  ConstrainedDerivatives derivatives_;
  detail::StepJacobianWorkspace w_;
};

}  // namespace abdyn
