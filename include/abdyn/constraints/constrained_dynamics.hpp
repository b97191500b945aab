#pragma once
// Forward dynamics of a tree with loop closures and joint couplings (loop_closure.hpp), by Lagrange
// multipliers at the acceleration level:
//   M qdd + h(q, v) = tau + G^T lambda,      G qdd = gamma - 2 alpha G v - beta^2 C   (Baumgarte)
// The impulse-level twin (the reference notes' Gamma lambda = eta) follows from integrating over an
// instant; here Gamma = G M^-1 G^T and eta = gamma - 2 alpha G v - beta^2 C - G qdd0 with qdd0 the
// unconstrained acceleration, so lambda solves Gamma lambda = eta and qdd = qdd0 + M^-1 G^T lambda.
//
// Two solvers that must agree:
//   Direct       the KKT system [M -G^T; G cfm 1] [qdd; lambda] = [tau - h; rhs] from CRBA, dense.
//   Articulated  ABA for qdd0, then each column of M^-1 G^T by articulated-body propagation (O(n) per
//                row, no mass matrix), then the m x m system for lambda.
// Redundant closures (a planar loop closed by a 3-D revolute joint) make Gamma singular: both solvers
// use a rank-revealing complete orthogonal decomposition, report the rank and take the minimum-norm
// multipliers (qdd is unique either way); constraints that cannot all hold throw abdyn::Error.

#include <Eigen/QR>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/constraints/row_response.hpp"

namespace abdyn {

enum class ConstrainedSolver { Direct, Articulated };

struct ConstrainedDynamicsSettings {
  ConstrainedSolver solver = ConstrainedSolver::Articulated;
  double baumgarte_alpha = 0.0;  // velocity feedback (1/s): rhs -= 2 alpha G v
  double baumgarte_beta = 0.0;   // position feedback (1/s): rhs -= beta^2 C
  double cfm = 0.0;              // constraint force mixing: Gamma + cfm 1 (softens, regularises)
  double rank_tolerance = 1e-10; // relative pivot threshold of the rank-revealing factorisation
  double consistency_tolerance = 1e-8;  // |Gamma lambda - eta| / (1 + |eta|) above this: inconsistent
  DynamicsOptions dynamics;
};

/// Workspace and results of the constrained solvers for one model and constraint set.
struct ConstrainedDynamicsData {
  ConstrainedDynamicsData(const Model& model, const ConstraintSet& constraints);

  ConstraintKinematics kinematics;  // C, G, gamma at the last call
  Eigen::VectorXd qdd;              // result
  Eigen::VectorXd lambda;           // multipliers: G^T lambda is the generalized constraint force
  std::vector<Vector6> closure_wrench;  // per loop closure: the wrench [torque; force] on body b at Fb's
                                        // origin, in Fa's axes (body a feels the opposite)
  int rank = 0;                     // rank of the constraint system at the last call

  // Scratch.
  Eigen::VectorXd qdd0, rhs, eta, row, column;
  Eigen::MatrixXd Minv_Gt, Gamma, kkt;
  Eigen::VectorXd kkt_rhs, kkt_solution;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> gamma_solver, kkt_solver, jacobian_solver;
  RowResponse response;
};

/// qdd of the constrained system at (q, v, tau), into cd.qdd (and cd.lambda, cd.closure_wrench, cd.rank).
const Eigen::VectorXd& forwardDynamicsConstrained(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                  const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                  const ConstrainedDynamicsSettings& settings = {});

/// Post-stabilisation of positions (and assembly from a nearby guess): Gauss-Newton on the manifold,
/// q <- q (+) (-J^+ C) with J = dC/dq, until max |C| <= tolerance. Returns the iterations taken; throws
/// abdyn::Error naming the remaining error when max_iterations do not reach the tolerance.
int projectPositions(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                     Eigen::VectorXd& q, double tolerance = 1e-12, int max_iterations = 50);

/// Post-stabilisation of velocities: the M-orthogonal projection of v onto G v = 0,
/// v <- v - M^-1 G^T (G M^-1 G^T)^+ G v (the kinetic-energy-closest admissible velocity).
void projectVelocities(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, Eigen::VectorXd& v, const DynamicsOptions& options = {});

}  // namespace abdyn
