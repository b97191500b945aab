#pragma once
/// @file
/// First-order derivatives of forwardDynamicsConstrained (constrained_dynamics.hpp): of qdd and of the
/// multipliers lambda with respect to q (tangent space, as in algorithms/derivatives.hpp), v and tau, for every
/// stabilisation and cfm. Derivation: docs/derivatives.md, section 6. In short, the forward call solves
///   [M  -G^T ] [qdd   ]   [tau - h          ]
///   [G  cfm 1] [lambda] = [gamma - a G v - b C]      (gamma = -Gdot v; a, b the stabilisation gains)
/// Write ID = M qdd + h and Phi = G qdd - gamma, the closures' relative acceleration. Differentiating at the
/// solution leaves the same matrix on the left and, on the right, with qdd and lambda held,
///   top:    d tau - d ID + d (G^T) lambda     (dRNEA at the solution's qdd; the closure wrenches turn with q)
///   bottom: -d Phi - a d (G v) - b d C        (the closures' own kinematics)
/// The linear system is solved as the forward call's is: qdd through M^-1, lambda through the Schur complement
/// Gamma = G M^-1 G^T + cfm 1, by Cholesky when Gamma is regular. With redundant closures (Gamma singular) the
/// forward call returns the minimum-norm multipliers, and this call their derivative: the minimum-norm
/// solution plus the term along null(G^T) that keeps lambda in the turning range of G.
///
/// Allocation-free after ConstrainedDerivatives is built.

#include <vector>

#include <Eigen/Cholesky>

#include "abdyn/constraints/constrained_dynamics.hpp"

namespace abdyn {

/// Results (and workspace) of forwardDynamicsConstrainedDerivatives for one model and constraint set.
struct ConstrainedDerivatives {
  /// Results and workspace sized for `model` and `constraints`.
  ConstrainedDerivatives(const Model& model, const ConstraintSet& constraints);

  ///@{
  Eigen::MatrixXd dqdd_dq, dqdd_dv, dqdd_dtau;           ///< nv x nv
  ///@}
  ///@{
  Eigen::MatrixXd dlambda_dq, dlambda_dv, dlambda_dtau;  ///< m x nv
  ///@}

  /// Scratch of the call.
  struct Workspace {
    /// Sized for `model` and `constraints`.
    Workspace(const Model& model, const ConstraintSet& constraints);
    ConstraintKinematics kinematics;  ///< C, G, G_exact at q
    ///@{
    Eigen::MatrixXd rhs_top, rhs_bottom;  ///< nv x 3 nv, m x 3 nv: the differentiated right-hand side
    ///@}
    ///@{
    Eigen::MatrixXd Z, Minv_Gt, Gamma, E, Lambda;  ///< M^-1 rhs_top, M^-1 G^T, the Schur complement, its rhs, d lambda
    ///@}
    ///@{
    Eigen::LLT<Eigen::MatrixXd> mass_factor, gamma_factor;  ///< Cholesky factors of M (nv x nv) and Gamma (m x m)
    ///@}
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> gamma_solver;  ///< Gamma's, when it is rank-deficient
    ///@{
    Eigen::VectorXd column, projected, solve_work, solve_y;  ///< m each
    ///@}
    Eigen::MatrixXd dG_y;                         ///< m x nv: d (G y) / d q for the null-space term
    Eigen::VectorXd y;                            ///< nv: M^-1 G^T Gamma^+ lambda, with G y = lambda
    std::vector<Motion> v_y;                      ///< per body: the velocity that y produces (world)
    std::vector<int> path;                        ///< per closure: the coordinates moving body a or b, ascending
    std::vector<int> path_offset;                 ///< per closure: where its coordinates start in path
  } work;  ///< scratch of the call
};

/// Runs forwardDynamicsConstrained(model, data, cd, constraints, q, v, tau, settings) (its results stay in
/// cd) and leaves d qdd / d (q, v, tau) and d lambda / d (q, v, tau) in `out`. Derivatives with respect to q
/// are tangent ones: column k along integrate(q, eps e_k). The external conditions are the forward call's:
/// no external forces, settings.dynamics for armature and damping.
void forwardDynamicsConstrainedDerivatives(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                           ConstrainedDerivatives& out, const ConstraintSet& constraints,
                                           const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                           const Eigen::VectorXd& tau,
                                           const ConstrainedDynamicsSettings& settings = {});

}  // namespace abdyn
