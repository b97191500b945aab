#pragma once
// The per-joint steps of M^-1 from ABA's factors, written once for inverseMassMatrixAtFactors
// (forward_dynamics_crba.cpp) and for forwardDynamicsDerivatives' articulated pass (derivatives.cpp), which
// runs them inside its own backward and forward passes.
//
// ABA is linear in tau: at v = 0 without gravity, tau = e_k gives column k of M^-1. The steps run it for all
// k at once with ABA's factors (U, D^-1) at q. data.Minv_F[i] (6 x nv) holds the bias force pA_i for each
// right-hand side, nonzero only in the columns of i's subtree; after the backward pass the same storage
// holds A_i, body i's acceleration per right-hand side. Only the upper triangle of M^-1 (columns >= idx_v(i)
// in joint i's rows) is computed. Every column lives in world coordinates about the world origin: the
// pairings S^T F and U^T A do not depend on the frame, and there a child's force adds to its parent's, and a
// parent's acceleration passes to its child, without a transform. S_world and U_world are S and U = IA S in
// world coordinates (6 x nv); data.Minv_F[0], which the world body never uses, is the per-joint scratch.

#include "abdyn/model/data.hpp"

namespace abdyn::internal {

/// Before the backward pass: body i's bias forces are zero in its subtree's columns.
inline void clearInverseMassForces(const Model& model, Data& data, int i) {
  const int first = model.joint(i).idx_v;
  data.Minv_F[i].middleCols(first, model.lastSubtreeDof(i) - first + 1).setZero();
}

/// Backward step of joint i (leaves to root; data.Minv zero before the first): its rows of M^-1 in its
/// subtree's columns as D^-1 u, u = e_i - S^T F_i, and F_i's share passed to the parent.
template <int N>
ABDYN_ALWAYS_INLINE void inverseMassBackwardStep(const Model& model, Data& data, int i, const Matrix6X& S_world,
                                                 const Matrix6X& U_world) {
  const Joint& j = model.joint(i);
  const int first = j.idx_v, width = model.lastSubtreeDof(i) - first + 1;
  const Eigen::Block<const Matrix6X, 6, N> S(S_world, 0, first, 6, j.nv);
  const Eigen::Block<const Matrix6X, 6, N> U(U_world, 0, first, 6, j.nv);
  const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv(data.Dinv, first, 0, j.nv, j.nv);
  Eigen::Block<Eigen::MatrixXd, N, Eigen::Dynamic> x(data.Minv, first, first, j.nv, width);
  auto F = data.Minv_F[i].middleCols(first, width);
  x.leftCols(j.nv) = Dinv;  // u = e_i - S^T F_i is the identity in the joint's own columns, where F_i is zero
  if (width > j.nv) {
    Eigen::Block<Matrix6X, N, Eigen::Dynamic> u(data.Minv_F[0], 0, 0, j.nv, width - j.nv);
    u.noalias() = -S.transpose() * F.rightCols(width - j.nv);  // u = -S^T F_i
    x.rightCols(width - j.nv).noalias() = Dinv * u;           // x = D^-1 u
  }
  const int p = model.parent(i);
  if (p == 0) return;
  F.noalias() += U * x;                          // pa = pA + U D^-1 u (c = 0 at v = 0)
  data.Minv_F[p].middleCols(first, width) += F;  // pA_p += pa
}

/// Forward step of joint i (root to leaves): its rows of M^-1 corrected by the parent's accelerations,
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
  const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv(data.Dinv, first, 0, j.nv, j.nv);
  Eigen::Block<Eigen::MatrixXd, N, Eigen::Dynamic> x(data.Minv, first, first, j.nv, width);
  auto A = data.Minv_F[i].middleCols(first, width);
  if (p > 0) {
    const auto A_p = data.Minv_F[p].middleCols(first, width);  // a' = A_p
    Eigen::Block<Matrix6X, N, Eigen::Dynamic> UtA(data.Minv_F[0], 0, 0, j.nv, width);
    UtA.noalias() = U.transpose() * A_p;
    x.noalias() -= Dinv * UtA;  // x = D^-1 (u - U^T a')
    if (has_descendants) A = A_p;
  } else if (has_descendants) {
    A.setZero();
  }
  if (has_descendants) A.noalias() += S * x;  // A_i = a' + S x
}

/// After the forward pass: M^-1's lower triangle from its upper one.
inline void symmetrizeInverseMass(Data& data) {
  data.Minv.triangularView<Eigen::StrictlyLower>() = data.Minv.transpose().triangularView<Eigen::StrictlyLower>();
}

}  // namespace abdyn::internal
