#pragma once
// The pieces of the constrained solvers (constrained_dynamics.hpp) shared by forwardDynamicsConstrained
// (constrained_dynamics.cpp), constrainedImpact (constrained_impact.cpp) and the projections
// (constraint_projection.cpp): the Factorized solver's Schur complement over the rows' supports, the
// Articulated solver's response, the KKT system, and the multiplier solve they end in. Unchecked: the
// public doors check. Defined in constrained_solvers.cpp.

#include <string>

#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn::internal {

/// x as text, for the messages.
std::string numberText(double x);

/// The solver that runs: the requested one, or for Auto the one cd's row groups suit.
ConstrainedSolver chooseSolver(const ConstrainedDynamicsData& cd, ConstrainedSolver requested);

/// The row groups of the Factorized solver and their supports (ConstrainedDynamicsData's fields).
void buildSupports(const Model& model, const ConstraintSet& constraints, ConstrainedDynamicsData& cd);

// Kinematics.

/// C and G at q (G_exact too with exact_jacobian) from one kinematics pass, whose joint transforms the
/// mass matrix can then reuse.
void constraintsAt(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                   const Eigen::VectorXd& q, bool exact_jacobian);

/// C and G at q, M at q and its factor in data.factor_L, data.factor_D, from one pass of joint transforms.
void jacobianAndFactor(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, const DynamicsOptions& options);

/// data.a = the body accelerations at qdd = 0 without gravity (a_0 = 0) from ABA's pass 1, which left the
/// joint transforms and the velocity products c_i = v_i x S qd: a_i = X_up a_p + c_i.
void biasAccelerationsFromAba(const Model& model, Data& data);

// The Factorized solver.

/// With the factor M = L^T D L in data.factor_L, data.factor_D: Y = L^-T G^T (stored transposed in cd.Yt) and
/// cd.Gamma = G M^-1 G^T + cfm 1 = Y^T D^-1 Y + cfm 1, each only over the coordinates that move the rows'
/// bodies (their supports; entries off them stay zero from construction). The rows of one group (a closure)
/// share their support and are solved together, as six rows (padded with zeros).
void factorizedSchur(const Model& model, const Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G,
                     double cfm);

/// eta -= G L^-1 D^-1 x = Y^T D^-1 x, over the rows' supports.
void subtractGTimesSolve(const Data& data, const ConstrainedDynamicsData& cd, const Eigen::VectorXd& x, Eigen::VectorXd& eta);

/// x += Y lambda, over the rows' supports.
void addYTimesLambda(const ConstrainedDynamicsData& cd, Eigen::VectorXd& x);

/// x = L^-1 D^-1 x: the second half of a solve with M.
void finishSolve(const Model& model, const Data& data, Eigen::VectorXd& x);

// The Articulated solver.

/// cd.Minv_Gt = M^-1 G^T by articulated-body propagation; ABA (forwardDynamics) must have run at q.
void articulatedResponse(const Model& model, const Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G);

/// cd.Gamma = G M^-1 G^T + cfm 1 from cd.Minv_Gt.
void articulatedGamma(ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G, double cfm);

// The Kkt solver.

/// The KKT matrix [M -G^T; G cfm 1] at the joint transforms data.X_up of the kinematics pass that gave G.
void assembleKkt(const Model& model, Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G,
                 const ConstrainedDynamicsSettings& settings);

/// The KKT system in cd.kkt / cd.kkt_rhs: solution, rank of the constraint part, consistency check.
void solveKkt(const Model& model, ConstrainedDynamicsData& cd, const ConstrainedDynamicsSettings& settings);

// Every solver.

/// lambda from Gamma lambda = eta, with cd.Gamma (cfm included) already filled: Cholesky when Gamma is
/// regular, else the minimum-norm solution through the rank-revealing factorisation, with its rank and
/// the consistency check.
void solveMultipliers(const Model& model, ConstrainedDynamicsData& cd, const ConstrainedDynamicsSettings& settings);

/// Wrench on body b at each closure, from the multipliers of its rows.
void closureWrenches(const ConstraintSet& constraints, ConstrainedDynamicsData& cd);

}  // namespace abdyn::internal
