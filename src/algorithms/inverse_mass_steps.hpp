#pragma once
// The per-joint steps of M^-1 from ABA's factors, written once for inverseMassMatrixAtFactors
// (forward_dynamics_crba.cpp) and for forwardDynamicsDerivatives' articulated pass (derivatives.cpp), which
// runs them inside its own backward and forward passes.
//
// ABA is linear in tau: at v = 0 without gravity, tau = e_k gives column k of M^-1. The steps run it for all
// k at once with ABA's factors (U, D^-1) at q. data.minv.F[i] holds the bias force pA_i for each right-hand
// side, nonzero only for the right-hand sides of i's subtree; after the backward pass the same storage holds
// A_i, body i's acceleration per right-hand side. Only one triangle of M^-1 is computed. Every force and
// acceleration is in world coordinates about the world origin: the pairings S^T F and U^T A do not depend on
// the frame, and there a child's force adds to its parent's, and a parent's acceleration passes to its child,
// without a transform. S_world and U_world are S and U = IA S in world coordinates (6 x nv);
// data.minv.F[0], which the world body never uses, is the per-joint scratch.

#include "abdyn/model/data.hpp"

namespace abdyn::internal {

// data.minv.F[i]'s storage is read as nv x 6 rows (ForceRows), row k the 6-vector of right-hand side k, and
// the steps write M^-1's lower triangle (joint i's columns, rows >= idx_v(i)): every product then runs down
// contiguous columns of length up to nv, and vectorises along the right-hand sides (with 6 x nv columns
// it would be 6-long dot products per right-hand side). The products are lazy (coefficient-based): with
// an inner dimension of at most 6 a blocked matrix product would only pack, and it may allocate.
using ForceRows = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, 6>>;
ABDYN_ALWAYS_INLINE ForceRows forceRows(Matrix6X& m) { return ForceRows(m.data(), m.cols(), 6); }

/// Before the backward pass: body i's bias forces are zero in its subtree's rows.
inline void clearInverseMassForces(const Model& model, Data& data, int i) {
  const int first = model.joint(i).idx_v;
  forceRows(data.minv.F[i]).middleRows(first, model.lastSubtreeDof(i) - first + 1).setZero();
}

/// Backward step of joint i (leaves to root; data.Minv zero before the first): its columns of M^-1 in its
/// subtree's rows, X = x^T with x = D^-1 u, u = e_i - S^T F_i, and F_i's share passed to the parent.
template <int N>
ABDYN_ALWAYS_INLINE void inverseMassBackwardStep(const Model& model, Data& data, int i, const Matrix6X& S_world,
                                                 const Matrix6X& U_world) {
  const Joint& j = model.joint(i);
  const int first = j.idx_v, width = model.lastSubtreeDof(i) - first + 1;
  const Eigen::Block<const Matrix6X, 6, N> S(S_world, 0, first, 6, j.nv);
  const Eigen::Block<const Matrix6X, 6, N> U(U_world, 0, first, 6, j.nv);
  const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv(data.aba.Dinv, first, 0, j.nv, j.nv);  // symmetric
  Eigen::Block<Eigen::MatrixXd, Eigen::Dynamic, N> X(data.Minv, first, first, width, j.nv);
  ForceRows F_all = forceRows(data.minv.F[i]);
  auto F = F_all.middleRows(first, width);
  X.topRows(j.nv) = Dinv;  // u = e_i - S^T F_i is the identity in the joint's own rows, where F_i is zero
  if (width > j.nv) {
    ForceRows scratch = forceRows(data.minv.F[0]);
    Eigen::Block<ForceRows, Eigen::Dynamic, N> FtS(scratch, 0, 0, width - j.nv, j.nv);
    FtS.noalias() = F.bottomRows(width - j.nv).lazyProduct(S);      // F_i^T S = -u^T
    X.bottomRows(width - j.nv).noalias() = -FtS.lazyProduct(Dinv);  // x^T = u^T D^-1
  }
  const int p = model.parent(i);
  if (p == 0) return;
  F.noalias() += X.lazyProduct(U.transpose());           // pa = pA + U D^-1 u (c = 0 at v = 0)
  forceRows(data.minv.F[p]).middleRows(first, width) += F;  // pA_p += pa
}

/// Forward step of joint i (root to leaves): its columns of M^-1 corrected by the parent's accelerations,
/// x = D^-1 (u - U^T A_p), and A_i = A_p + S x for its descendants (a body without descendant coordinates
/// passes it to no one).
template <int N>
ABDYN_ALWAYS_INLINE void inverseMassForwardStep(const Model& model, Data& data, int i, const Matrix6X& S_world,
                                                const Matrix6X& U_world) {
  const Joint& j = model.joint(i);
  const int first = j.idx_v, width = model.nv() - first;
  const int p = model.parent(i);
  const bool has_descendants = model.lastSubtreeDof(i) >= first + j.nv;
  const Eigen::Block<const Matrix6X, 6, N> S(S_world, 0, first, 6, j.nv);
  const Eigen::Block<const Matrix6X, 6, N> U(U_world, 0, first, 6, j.nv);
  const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv(data.aba.Dinv, first, 0, j.nv, j.nv);
  Eigen::Block<Eigen::MatrixXd, Eigen::Dynamic, N> X(data.Minv, first, first, width, j.nv);
  ForceRows A_all = forceRows(data.minv.F[i]);
  auto A = A_all.middleRows(first, width);
  if (p > 0) {
    ForceRows A_p_all = forceRows(data.minv.F[p]), scratch = forceRows(data.minv.F[0]);
    const auto A_p = A_p_all.middleRows(first, width);  // a' = A_p
    Eigen::Block<ForceRows, Eigen::Dynamic, N> AtU(scratch, 0, 0, width, j.nv);
    AtU.noalias() = A_p.lazyProduct(U);
    X.noalias() -= AtU.lazyProduct(Dinv);  // x^T = (u - U^T a')^T D^-1
    if (has_descendants) A = A_p;
  } else if (has_descendants) {
    A.setZero();
  }
  if (has_descendants) A.noalias() += X.lazyProduct(S.transpose());  // A_i = a' + S x
}

/// After the forward pass: M^-1's upper triangle from its lower one.
inline void symmetrizeInverseMass(Data& data) {
  data.Minv.triangularView<Eigen::StrictlyUpper>() = data.Minv.transpose().triangularView<Eigen::StrictlyUpper>();
}

}  // namespace abdyn::internal
