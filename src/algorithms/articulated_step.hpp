#pragma once
// The articulated-body step of one joint (RBDA sec. 7.3), written once for its four users: the
// articulated-body algorithm (aba.cpp), the impulse propagation of RowResponse::applyInverseMass
// (row_response.cpp), inverseMassMatrix (forward_dynamics_crba.cpp: ABA with nv right-hand sides) and
// the world-coordinate ABA inside forwardDynamicsDerivatives (derivatives.cpp).
//
// For joint i with motion subspace S (6 x N) and articulated inertia IA of its subtree:
//   factor    U = IA S;  D = S^T IA S (+ armature, + h damping);  D^-1
//   bias      u = tau - S^T pA
//   solve     x = D^-1 u                       the joint's acceleration if its parent stood still
//   project   Ia = IA - U D^-1 U^T;  pa = pA + Ia c + U x;  both moved to the parent by X_up^T
//   correct   qdd = x - D^-1 U^T a = D^-1 (u - U^T a)   once the parent's acceleration a is known
//   motion    a_i = a + S qdd
// The right-hand sides (tau, pA, u, x, a) have one column for ABA and the row response and one per
// velocity coordinate for inverseMassMatrix; every step takes either.
//
// N is the joint's number of velocity coordinates, fixed at compile time for one-DoF joints (N = 1:
// revolute, prismatic, helical; scalars and 6-vectors on the stack) and six-DoF joints (N = 6: floating),
// and Eigen::Dynamic (at most 6: spherical, planar) otherwise. The same code serves all three;
// visitJointDofs picks N. A one-DoF joint whose S is +-e_k (Joint::axis_column and axis_sign: a revolute or
// prismatic joint about a coordinate axis) takes its products with S as picks: U = +-column k of IA,
// D = IA(k, k), S x adds +-x to a_k.

#include <string>

#include <Eigen/Cholesky>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn::internal {

template <int N>
class ArticulatedStep {
 public:
  static constexpr int kMaxN = N == Eigen::Dynamic ? 6 : N;
  using Square = Eigen::Matrix<double, N, N, 0, kMaxN, kMaxN>;  // N x N: D, D^-1
  using Rows = Eigen::Matrix<double, N, 1, 0, kMaxN, 1>;        // N: one right-hand side's u, x

  /// Joint j's views of model.motionSubspace() and of data.aba.U and data.aba.Dinv (written by factor).
  ArticulatedStep(const Model& model, const Data& data, const Joint& j)
      : S(model.motionSubspace(), 0, j.idx_v, 6, j.nv),
        U(data.aba.U, 0, j.idx_v, 6, j.nv),
        Dinv(data.aba.Dinv, j.idx_v, 0, j.nv, j.nv),
        axis(N == 1 ? j.axis_column : -1),
        axis_sign(j.axis_sign) {}

  /// The same step with S and U taken from 6 x nv column sets in other coordinates (the world coordinates of
  /// the derivatives' articulated pass, derivatives.cpp), without axis picks; D^-1 from data.aba.Dinv.
  ArticulatedStep(const Matrix6X& S_columns, const Matrix6X& U_columns, const Data& data, const Joint& j)
      : S(S_columns, 0, j.idx_v, 6, j.nv),
        U(U_columns, 0, j.idx_v, 6, j.nv),
        Dinv(data.aba.Dinv, j.idx_v, 0, j.nv, j.nv),
        axis(-1),
        axis_sign(1.0) {}

  /// U = IA S; D = S^T IA S, plus the armature and h times the damping as `options` ask; D^-1. Writes
  /// them into data.aba.U and data.aba.Dinv; throws abdyn::Error naming `function` and the joint when D is not
  /// positive definite (a massless body whose motion another joint duplicates).
  static void factor(const Model& model, const Joint& j, const Matrix6& IA, const DynamicsOptions& options, Data& data,
                     const char* function) {
    factorWith(model, j, IA, model.motionSubspace(), N == 1 ? j.axis_column : -1, data.aba.U, options, data, function);
  }

  /// factor with S's columns from S_columns (6 x nv, in IA's coordinates) and U written into U_columns, without
  /// axis picks (the second constructor's step).
  static void factor(const Model& model, const Joint& j, const Matrix6& IA, const Matrix6X& S_columns,
                     Matrix6X& U_columns, const DynamicsOptions& options, Data& data, const char* function) {
    factorWith(model, j, IA, S_columns, -1, U_columns, options, data, function);
  }

  /// Joint j's rows of an nv-vector (tau, v, u, qdd, the armature).
  template <class Vector>
  static Eigen::VectorBlock<Vector, N> rows(Vector& x, const Joint& j) {
    return Eigen::VectorBlock<Vector, N>(x, j.idx_v, j.nv);
  }

  /// u = tau - S^T p. A product even where S = e_k: when velocity products overflow, p's other
  /// components are infinite, and 0 * inf = NaN is what lets the simulator report the divergence
  /// (test_simulator's divergence_is_a_clear_error); a pick would carry on with p_k alone.
  template <class Tau, class P, class Out>
  void bias(const Tau& tau, const P& p, Out&& u) const {
    u = tau;
    u.noalias() -= S.transpose() * p;
  }

  /// x = D^-1 u.
  template <class In, class Out>
  void solve(const In& u, Out&& x) const {
    x.noalias() = Dinv * u;
  }

  /// Ia = IA - U D^-1 U^T: the inertia the parent feels through the joint. For one DoF only the 21
  /// entries of one triangle are computed (Ia is symmetric).
  ArticulatedBodyInertia projectedInertia(const Matrix6& IA) const {
    Matrix6 Ia;
    if constexpr (N == 1) {
      const Vector6 UDinv = U * Dinv(0, 0);
      for (int c = 0; c < 6; ++c) {
        for (int r = c; r < 6; ++r) Ia(c, r) = Ia(r, c) = IA(r, c) - UDinv[r] * U(c, 0);
      }
    } else {
      const Eigen::Matrix<double, 6, N, 0, 6, kMaxN> UDinv = U * Dinv;
      Ia = IA;
      Ia.noalias() -= UDinv * U.transpose();
    }
    return ArticulatedBodyInertia::fromMatrixUnchecked(Ia);
  }

  /// p += U x: the force through the joint that gives it the acceleration x.
  template <class X, class P>
  void addResponse(const X& x, P&& p) const {
    p.noalias() += U * x;
  }

  /// x -= D^-1 U^T a: the joint's acceleration once its parent's acceleration a is known. `scratch`
  /// (N rows, as many columns as a) holds U^T a.
  template <class A, class Scratch, class X>
  void correct(const A& a, Scratch&& scratch, X&& x) const {
    scratch.noalias() = U.transpose() * a;
    x.noalias() -= Dinv * scratch;
  }

  /// a += S x.
  template <class X, class A>
  void addMotion(const X& x, A&& a) const {
    if (axis >= 0) {
      a.row(axis) += axis_sign * x.row(0);
    } else {
      a.noalias() += S * x;
    }
  }

  const Eigen::Block<const Matrix6X, 6, N> S;               // motion subspace, body coordinates
  const Eigen::Block<const Matrix6X, 6, N> U;               // IA S
  const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv;     // (S^T IA S)^-1
  const int axis;                                           // k when S = axis_sign e_k (one DoF), else -1
  const double axis_sign;                                   // +1 or -1

 private:
  static void factorWith(const Model& model, const Joint& j, const Matrix6& IA, const Matrix6X& S_columns, int axis_column,
                         Matrix6X& U_columns, const DynamicsOptions& options, Data& data, const char* function) {
    const Eigen::Block<const Matrix6X, 6, N> Sj(S_columns, 0, j.idx_v, 6, j.nv);
    Eigen::Block<Matrix6X, 6, N> Uj(U_columns, 0, j.idx_v, 6, j.nv);
    Square D(j.nv, j.nv);
    if (axis_column >= 0) {  // a one-DoF joint's S = +-e_k
      if (j.axis_sign > 0.0) {
        Uj.col(0) = IA.col(axis_column);
      } else {
        Uj.col(0) = -IA.col(axis_column);
      }
      D(0, 0) = IA(axis_column, axis_column);
    } else {
      Uj.noalias() = IA * Sj;
      D.noalias() = Sj.transpose() * Uj;
    }
    if (options.armature) D.diagonal() += rows(model.armature(), j);
    if (options.damping) D.diagonal() += options.implicit_damping_step * rows(model.damping(), j);
    Eigen::Block<Eigen::MatrixXd, N, N> Dinv(data.aba.Dinv, j.idx_v, 0, j.nv, j.nv);
    if constexpr (N == 1) {
      if (!(D(0, 0) > 0.0)) throwSingular(model, j, D(0, 0), function);
      Dinv(0, 0) = 1.0 / D(0, 0);
    } else {
      const Eigen::LLT<Square> llt(D);
      if (llt.info() != Eigen::Success) throwSingular(model, j, D.diagonal().minCoeff(), function);
      // D^-1 = L^-T L^-1 with L^-1 by forward substitution, written out: Eigen's solve against the identity
      // calls its general triangular solver, whose set-up costs more than these at most 56 + 91 products.
      const Square& L = llt.matrixLLT();  // lower triangle: L
      Square Linv = Square::Zero(j.nv, j.nv);
      for (int c = 0; c < j.nv; ++c) {
        Linv(c, c) = 1.0 / L(c, c);
        for (int r = c + 1; r < j.nv; ++r) {
          double s = 0.0;
          for (int k = c; k < r; ++k) s += L(r, k) * Linv(k, c);
          Linv(r, c) = -s / L(r, r);
        }
      }
      Dinv.noalias() = Linv.transpose() * Linv;
    }
  }

  [[noreturn]] static void throwSingular(const Model& model, const Joint& j, double D, const char* function) {
    throw Error(std::string(function) + ": joint '" + j.name + "' of model '" + model.name() +
                "' has no articulated inertia to move (S^T IA S = " + std::to_string(D) +
                "): the mass matrix is singular (e.g. a massless body whose motion another joint duplicates)");
  }
};

/// Calls f(std::integral_constant<int, N>{}) with N = 1 for a one-DoF joint, N = 6 for a six-DoF one (the
/// floating base, whose fixed-size 6 x 6 factor and products are about twice as fast as dynamic ones), else
/// Eigen::Dynamic.
template <class F>
ABDYN_ALWAYS_INLINE void visitJointDofs(const Joint& j, F&& f) {
  if (j.nv == 1) {
    f(std::integral_constant<int, 1>{});
  } else if (j.nv == 6) {
    f(std::integral_constant<int, 6>{});
  } else {
    f(std::integral_constant<int, Eigen::Dynamic>{});
  }
}

}  // namespace abdyn::internal
