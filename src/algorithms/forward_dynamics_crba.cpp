#include "abdyn/algorithms/forward_dynamics_crba.hpp"

#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "internal/articulated_step.hpp"
#include "internal/checks.hpp"
#include "internal/shared_passes.hpp"

namespace abdyn {
const Eigen::VectorXd& forwardDynamicsCrba(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                           const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::forwardDynamicsCrba");
  internal::checkVector(tau, model.nv(), "abdyn::forwardDynamicsCrba", "tau");
  internal::checkDynamicsOptions(options, "abdyn::forwardDynamicsCrba");
  data.qdd = tau - nonlinearEffects(model, data, q, v, options);
  internal::massMatrixAtTransforms(model, data, options);  // RNEA left the joint transforms at q
  internal::factorizeAtMassMatrix(model, data);
  internal::solveWithFactor(model, data, data.qdd);  // unchecked: see shared_passes.hpp
  return data.qdd;
}

const Eigen::VectorXd& forwardDynamicsCrba(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                           const std::vector<Force>& f_ext, const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::forwardDynamicsCrba");
  internal::checkVector(tau, model.nv(), "abdyn::forwardDynamicsCrba", "tau");
  internal::checkDynamicsOptions(options, "abdyn::forwardDynamicsCrba");
  data.tmp_v.setZero();
  data.qdd = tau - inverseDynamics(model, data, q, v, data.tmp_v, f_ext, options);
  internal::massMatrixAtTransforms(model, data, options);  // RNEA left the joint transforms at q
  internal::factorizeAtMassMatrix(model, data);
  internal::solveWithFactor(model, data, data.qdd);  // unchecked: see shared_passes.hpp
  return data.qdd;
}

void internal::inverseMassMatrixAtFactors(const Model& model, Data& data, const Matrix6X& S_world) {
  // ABA is linear in tau: at v = 0 without gravity, tau = e_k gives column k of M^-1. Run it for all k at
  // once, with ABA's factors (U, D^-1) at q. F_i (6 x nv): the bias force pA_i for each right-hand side,
  // nonzero only in columns of i's subtree; after the backward pass the same storage holds A_i, body i's
  // acceleration per right-hand side. Only the upper triangle (columns >= idx_v(i) in row block i) is
  // computed. The columns live in world coordinates about the world origin: the pairings S^T F and U^T A
  // do not depend on the frame, and there a child's force adds to its parent's, and a parent's
  // acceleration passes to its child, without a transform (24 multiplications per column and body saved
  // each way). Only U (one column per coordinate) is moved to world coordinates, into data.Minv_tmp; the
  // per-joint scratch (N x nv) is data.Minv_F[0], which the world body never uses.
  const int n = model.nbodies();
  const int nv = model.nv();
  Eigen::MatrixXd& Minv = data.Minv;
  Matrix6X& U_world = data.Minv_tmp;
  Matrix6X& scratch = data.Minv_F[0];
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const Plx& X = data.X_body_world[i];  // world to body i
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) U_world.col(k) = X.applyInverse(Force(Vector6(data.U.col(k)))).vector();
    data.Minv_F[i].middleCols(j.idx_v, model.lastSubtreeDof(i) - j.idx_v + 1).setZero();
  }
  Minv.setZero();
  // The articulated-body steps with one right-hand side per column; x, the joint's rows of M^-1, stands
  // for D^-1 u until the forward pass corrects it.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int first = j.idx_v, width = model.lastSubtreeDof(i) - first + 1;
    internal::visitJointDofs(j, [&](auto dofs) {
      constexpr int N = decltype(dofs)::value;
      const Eigen::Block<const Matrix6X, 6, N> S(S_world, 0, first, 6, j.nv);
      const Eigen::Block<const Matrix6X, 6, N> U(U_world, 0, first, 6, j.nv);
      const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv(data.Dinv, first, 0, j.nv, j.nv);
      Eigen::Block<Eigen::MatrixXd, N, Eigen::Dynamic> x(Minv, first, first, j.nv, width);
      auto F = data.Minv_F[i].middleCols(first, width);
      x.leftCols(j.nv) = Dinv;  // u = e_i - S^T F_i is the identity in the joint's own columns, where F_i is zero
      if (width > j.nv) {
        Eigen::Block<Matrix6X, N, Eigen::Dynamic> u(scratch, 0, 0, j.nv, width - j.nv);
        u.noalias() = -S.transpose() * F.rightCols(width - j.nv);  // u = -S^T F_i
        x.rightCols(width - j.nv).noalias() = Dinv * u;           // x = D^-1 u
      }
      const int p = model.parent(i);
      if (p == 0) return;
      F.noalias() += U * x;                          // pa = pA + U D^-1 u (c = 0 at v = 0)
      data.Minv_F[p].middleCols(first, width) += F;  // pA_p += pa
    });
  }
  // Forward pass: Minv_F[i] now holds A_i, body i's acceleration per right-hand side; a body without
  // descendant coordinates passes it to no one.
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int first = j.idx_v, width = nv - first;
    const int p = model.parent(i);
    const bool has_descendants = model.lastSubtreeDof(i) >= first + j.nv;
    internal::visitJointDofs(j, [&](auto dofs) {
      constexpr int N = decltype(dofs)::value;
      const Eigen::Block<const Matrix6X, 6, N> S(S_world, 0, first, 6, j.nv);
      const Eigen::Block<const Matrix6X, 6, N> U(U_world, 0, first, 6, j.nv);
      const Eigen::Block<const Eigen::MatrixXd, N, N> Dinv(data.Dinv, first, 0, j.nv, j.nv);
      Eigen::Block<Eigen::MatrixXd, N, Eigen::Dynamic> x(Minv, first, first, j.nv, width);
      auto A = data.Minv_F[i].middleCols(first, width);
      if (p > 0) {
        const auto A_p = data.Minv_F[p].middleCols(first, width);  // a' = A_p
        Eigen::Block<Matrix6X, N, Eigen::Dynamic> UtA(scratch, 0, 0, j.nv, width);
        UtA.noalias() = U.transpose() * A_p;
        x.noalias() -= Dinv * UtA;  // x = D^-1 (u - U^T a')
        if (has_descendants) A = A_p;
      } else if (has_descendants) {
        A.setZero();
      }
      if (has_descendants) A.noalias() += S * x;  // A_i = a' + S x
    });
  }
  Minv.triangularView<Eigen::StrictlyLower>() = Minv.transpose().triangularView<Eigen::StrictlyLower>();
}

const Eigen::MatrixXd& inverseMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                         const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::inverseMassMatrix");
  internal::checkConfiguration(model, q, "abdyn::inverseMassMatrix");
  internal::reserveMassMatrix(model, data);
  const int n = model.nbodies();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    data.X_body_world[i] = p > 0 ? data.X_up[i] * data.X_body_world[p] : data.X_up[i];
    data.IA[i] = ArticulatedBodyInertia(model.inertia(i));
  }
  ++data.X_body_world_stamp;
  for (int k = 0; k < model.nv(); ++k) data.S_world.col(k) = internal::worldMotionColumn(model, data, k).vector();
  data.S_world_stamp = data.X_body_world_stamp;
  // ABA's factors (internal/articulated_step.hpp): U, D^-1 and the articulated inertias, leaves to root.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      using Step = internal::ArticulatedStep<decltype(dofs)::value>;
      const Matrix6& IA = data.IA[i].matrix();
      Step::factor(model, j, IA, options, data, "abdyn::inverseMassMatrix");  // U = IA S, D = S^T U, D^-1
      const int p = model.parent(i);
      if (p == 0) return;
      const ArticulatedBodyInertia Ia = Step(model, data, j).projectedInertia(IA);  // Ia = IA - U D^-1 U^T
      data.IA[p] += data.X_up[i].applyInverse(Ia);                                  // IA_p += X_up^T Ia X_up
    });
  }
  internal::inverseMassMatrixAtFactors(model, data, data.S_world);
  return data.Minv;
}

}  // namespace abdyn
