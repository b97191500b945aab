#include "abdyn/algorithms/forward_dynamics_crba.hpp"

#include <Eigen/Cholesky>

#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/rnea.hpp"
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
  using SmallMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
  const auto& S = model.motionSubspace();
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
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int first = j.idx_v, last = model.lastSubtreeDof(i), width = last - first + 1;
    const auto Sj = S.middleCols(first, j.nv);
    auto U = data.U.middleCols(first, j.nv);
    U.noalias() = data.IA[i].matrix() * Sj;
    SmallMatrix D = Sj.transpose() * U;
    if (options.armature) D.diagonal() += model.armature().segment(first, j.nv);
    if (options.damping) D.diagonal() += options.implicit_damping_step * model.damping().segment(first, j.nv);
    Eigen::LLT<SmallMatrix> llt(D);
    if (llt.info() != Eigen::Success) {
      throw Error("abdyn::inverseMassMatrix: joint '" + j.name + "' of model '" + model.name() + "' has a singular inertia");
    }
    const SmallMatrix Dinv = llt.solve(SmallMatrix::Identity(j.nv, j.nv));
    data.Dinv_block.block(first, 0, j.nv, j.nv) = Dinv;
    // Row block i of M^-1 before the parent's accelerations: D^-1 (e_i - S^T F_i).
    Minv.block(first, first, j.nv, j.nv) = Dinv;
    if (width > j.nv) {
      auto StF = data.Minv_tmp.topLeftCorner(j.nv, width - j.nv);
      StF.noalias() = Sj.transpose() * data.Minv_F[i].middleCols(first + j.nv, width - j.nv);
      Minv.block(first, first + j.nv, j.nv, width - j.nv).noalias() = -Dinv * StF;
    }
    const int p = model.parent(i);
    if (p > 0) {
      const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> UDinv = U * Dinv;
      Matrix6 Ia = data.IA[i].matrix();
      Ia.noalias() -= UDinv * U.transpose();
      data.IA[p] += data.X_up[i].applyInverse(ArticulatedBodyInertia::fromMatrixUnchecked(Ia));
      auto Fi = data.Minv_F[i].middleCols(first, width);
      Fi.noalias() += U * Minv.block(first, first, j.nv, width);
      data.Minv_F[p].middleCols(first, width).noalias() += data.X_up[i].matrix().transpose() * Fi;
    }
  }
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int first = j.idx_v, width = nv - first;
    const int p = model.parent(i);
    auto Ai = data.Minv_F[i].middleCols(first, width);
    if (p > 0) {
      Ai.noalias() = data.X_up[i].matrix() * data.Minv_F[p].middleCols(first, width);
      auto UtA = data.Minv_tmp.topLeftCorner(j.nv, width);
      UtA.noalias() = data.U.middleCols(first, j.nv).transpose() * Ai;
      Minv.block(first, first, j.nv, width).noalias() -= data.Dinv_block.block(first, 0, j.nv, j.nv) * UtA;
    } else {
      Ai.setZero();
    }
    Ai.noalias() += S.middleCols(first, j.nv) * Minv.block(first, first, j.nv, width);
  }
  Minv.triangularView<Eigen::StrictlyLower>() = Minv.transpose().triangularView<Eigen::StrictlyLower>();
  return Minv;
}

}  // namespace abdyn
