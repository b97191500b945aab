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

const Eigen::MatrixXd& inverseMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                         const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::inverseMassMatrix");
  // ABA is linear in tau: at v = 0 without gravity, tau = e_k gives column k of M^-1. Run it for all
  // k at once. F_i (6 x nv): the bias force pA_i for each right-hand side, nonzero only in columns of
  // i's subtree; after the backward pass the same storage holds A_i, body i's acceleration per
  // right-hand side. Only the upper triangle (columns >= idx_v(i) in row block i) is computed.
  internal::checkConfiguration(model, q, "abdyn::inverseMassMatrix");
  internal::reserveMassMatrix(model, data);
  const int n = model.nbodies();
  const int nv = model.nv();
  Eigen::MatrixXd& Minv = data.Minv;
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    data.IA[i] = ArticulatedBodyInertia(model.inertia(i));
    data.Minv_F[i].setZero();
  }
  Minv.setZero();
  // The articulated-body steps of internal/articulated_step.hpp with one right-hand side per column;
  // x, the joint's rows of M^-1, stands for D^-1 u until the forward pass corrects it.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int first = j.idx_v, width = model.lastSubtreeDof(i) - first + 1;
    internal::visitJointDofs(j, [&](auto dofs) {
      constexpr int N = decltype(dofs)::value;
      using Step = internal::ArticulatedStep<N>;
      const Matrix6& IA = data.IA[i].matrix();
      Step::factor(model, j, IA, options, data, "abdyn::inverseMassMatrix");  // U = IA S, D = S^T U, D^-1
      const Step step(model, data, j);
      // u = e_i - S^T F_i, x = D^-1 u: e_i is the identity in the joint's own columns, where F_i is zero.
      Eigen::Block<Eigen::MatrixXd, N, Eigen::Dynamic> x(Minv, first, first, j.nv, width);
      x.leftCols(j.nv) = step.Dinv;
      if (width > j.nv) {
        Eigen::Block<Matrix6X, N, Eigen::Dynamic> u(data.Minv_tmp, 0, 0, j.nv, width - j.nv);
        step.bias(Eigen::MatrixXd::Zero(j.nv, width - j.nv), data.Minv_F[i].middleCols(first + j.nv, width - j.nv), u);
        step.solve(u, x.rightCols(width - j.nv));
      }
      const int p = model.parent(i);
      if (p == 0) return;
      const ArticulatedBodyInertia Ia = step.projectedInertia(IA);  // Ia = IA - U D^-1 U^T
      data.IA[p] += data.X_up[i].applyInverse(Ia);  // IA_p += X_up^T Ia X_up
      auto F = data.Minv_F[i].middleCols(first, width);
      step.addResponse(x, F);  // pa = pA + U D^-1 u (c = 0 at v = 0)
      data.Minv_F[p].middleCols(first, width).noalias() += data.X_up[i].matrix().transpose() * F;
    });
  }
  // Forward pass: Minv_F[i] now holds A_i, body i's acceleration per right-hand side.
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int first = j.idx_v, width = nv - first;
    const int p = model.parent(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      constexpr int N = decltype(dofs)::value;
      using Step = internal::ArticulatedStep<N>;
      const Step step(model, data, j);
      auto A = data.Minv_F[i].middleCols(first, width);
      Eigen::Block<Eigen::MatrixXd, N, Eigen::Dynamic> x(Minv, first, first, j.nv, width);
      if (p > 0) {
        A.noalias() = data.X_up[i].matrix() * data.Minv_F[p].middleCols(first, width);                // A' = X_up A_p
        step.correct(A, Eigen::Block<Matrix6X, N, Eigen::Dynamic>(data.Minv_tmp, 0, 0, j.nv, width), x);  // x = D^-1 (u - U^T A')
      } else {
        A.setZero();
      }
      step.addMotion(x, A);  // A_i = A' + S x
    });
  }
  Minv.triangularView<Eigen::StrictlyLower>() = Minv.transpose().triangularView<Eigen::StrictlyLower>();
  return Minv;
}

}  // namespace abdyn
