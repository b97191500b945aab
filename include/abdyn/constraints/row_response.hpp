#pragma once
/// @file
/// Each row's response M^-1 J^T: the joint-velocity change a unit impulse along the row produces.
///
/// Articulated path, O(n) per row, allocation-free: with the articulated-body inertias IA of ABA at the
/// same q, M^-1 x for a generalized impulse x is ABA's second and third passes at zero velocity and zero
/// gravity (no velocity products, no bias but the impulse itself):
///   leaves to root  u_i = x_i - S_i^T p_i,   p_lambda(i) += X_up_i^T (p_i + U_i D_i^-1 u_i)
///   root to leaves  a_i = X_up_i a_lambda(i),   dv_i = D_i^-1 (u_i - U_i^T a_i),   a_i += S_i dv_i
/// Factorized path: M from CRBA and its L^T D L factor (crba.hpp), whose L has the tree's sparsity (row k
/// is nonzero only at k's ancestor coordinates), then per row  x = L^-T J^T,  x = D^-1 x,  x = L^-1 x:
/// O(nnz(L)) per row instead of O(n) bodies of 6-D algebra, over each coordinate's packed row of L
/// (Model::ancestors), and L^-T skips the zeros of a sparse J. Cheaper than propagation unless the tree is deep (a long
/// chain makes nnz(L) ~ n^2 / 2): `Automatic` picks by the operation counts of the model. The PGS solve
/// in the factor's coordinates (row_pgs.hpp), which the Simulator uses on this path, needs only the
/// sparse first half, L^-T J^T, and computes it itself.

#include <cstdint>
#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/constraints/rows.hpp"

namespace abdyn {

/// How M^-1 J^T of the rows is formed: by articulated-body propagation, from the factor of M, or chosen
/// from the model (Automatic: Factorized when the factor is sparse next to the tree; RowResponse::choose).
enum class ResponseMethod { Automatic, Articulated, Factorized };

/// Forms each row's response RowSolverState::Minv_Jt = M^-1 J^T (the impulse-to-velocity map the solver needs).
class RowResponse {
 public:
  /// Workspace for `model`.
  explicit RowResponse(const Model& model);

  /// Minv_Jt of every row through articulated-body propagation. Reads data.X_up, data.aba.U and data.aba.Dinv,
  /// so forwardDynamics (ABA) must have run at the current q (with the same armature option).
  void articulated(const Model& model, const Data& data, RowSet& rows);
  /// Minv_Jt of every row from the factor of M already in data.factor_L, data.factor_D (factorizeMassMatrix at the current q).
  void factorized(const Model& model, const Data& data, RowSet& rows);
  /// The same after computing M (massMatrix) and its factor at q.
  void dense(const Model& model, Data& data, const Eigen::VectorXd& q, RowSet& rows, const DynamicsOptions& options = {});
  /// The cheaper of the two for this model: Factorized when nnz(L) is small next to the number of bodies
  /// (measured crossover: about 20 bodies' worth of propagation per ancestor coordinate pair).
  ResponseMethod choose(ResponseMethod requested) const;

  /// M^-1 x into out by articulated-body propagation (see above); out may not alias x.
  void applyInverseMass(const Model& model, const Data& data, const Eigen::VectorXd& x, Eigen::VectorXd& out);

 private:
  /// Throws abdyn::InvalidArgument unless data and this RowResponse were built for model.
  void checkModel(const Model& model, const Data& data, const char* function) const;
  std::vector<Force> p_;   ///< per body: propagated impulse bias, body coordinates
  std::vector<Motion> a_;  ///< per body: velocity change, body coordinates
  Eigen::VectorXd u_;      ///< per coordinate: x - S^T p
  std::int64_t ancestor_pairs_ = 0;  ///< nnz of L below the diagonal
  int nbodies_ = 0;
};

}  // namespace abdyn
