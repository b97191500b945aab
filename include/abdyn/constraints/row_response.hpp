#pragma once
// Each row's response M^-1 J^T: the joint-velocity change a unit impulse along the row produces.
//
// Articulated path, O(n) per row, allocation-free: with the articulated-body inertias IA of ABA at the
// same q, M^-1 x for a generalized impulse x is ABA's second and third passes at zero velocity and zero
// gravity (no velocity products, no bias but the impulse itself):
//   leaves to root  u_i = x_i - S_i^T p_i,   p_lambda(i) += X_up_i^T (p_i + U_i D_i^-1 u_i)
//   root to leaves  a_i = X_up_i a_lambda(i),   dv_i = D_i^-1 (u_i - U_i^T a_i),   a_i += S_i dv_i
// Dense path, for small systems: M from CRBA, its L^T D L factor, one solve per row.

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/constraints/rows.hpp"

namespace abdyn {

class RowResponse {
 public:
  explicit RowResponse(const Model& model);

  /// Minv_Jt of every row through articulated-body propagation. Reads data.X_up, data.U, data.D and
  /// data.Dinv_block, so forwardDynamics (ABA) must have run at the current q (with the same armature option).
  void articulated(const Model& model, const Data& data, RowSet& rows);
  /// Minv_Jt of every row from the dense mass matrix (massMatrix, factorizeMassMatrix and one solve per row).
  void dense(const Model& model, Data& data, const Eigen::VectorXd& q, RowSet& rows, const DynamicsOptions& options = {});

  /// M^-1 x into out by articulated-body propagation (see above); out may not alias x.
  void applyInverseMass(const Model& model, const Data& data, const Eigen::VectorXd& x, Eigen::VectorXd& out);

 private:
  std::vector<Force> p_;   // per body: propagated impulse bias, body coordinates
  std::vector<Motion> a_;  // per body: velocity change, body coordinates
  Eigen::VectorXd u_;      // per coordinate: x - S^T p
};

}  // namespace abdyn
