#include "abdyn/algorithms/crba.hpp"

#include "internal/checks.hpp"

namespace abdyn {

const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q, const DynamicsOptions& options) {
  internal::checkConfiguration(model, q, "abdyn::massMatrix");
  const auto& S = model.motionSubspace();
  const int n = model.nbodies();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    data.I_composite[i] = model.inertia(i);
  }
  data.M.setZero();
  for (int i = n - 1; i >= 1; --i) {
    const Joint& ji = model.joint(i);
    const RigidBodyInertia& Ic = data.I_composite[i];
    for (int k = ji.idx_v; k < ji.idx_v + ji.nv; ++k) {
      // F = Ic S_k is the force that accelerates the composite body i along S_k; each ancestor joint
      // feels it moved to its own coordinates: M(l, k) = S_l^T F.
      Force F = Ic * Motion(S.col(k));
      data.M.block(ji.idx_v, k, ji.nv, 1).noalias() = S.middleCols(ji.idx_v, ji.nv).transpose() * F.vector();
      for (int b = i; model.parent(b) > 0;) {
        F = data.X_up[b].applyInverse(F);
        b = model.parent(b);
        const Joint& jb = model.joint(b);
        data.M.block(jb.idx_v, k, jb.nv, 1).noalias() = S.middleCols(jb.idx_v, jb.nv).transpose() * F.vector();
      }
    }
    const int p = model.parent(i);
    if (p > 0) data.I_composite[p] += data.X_up[i].applyInverse(Ic);
  }
  data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
  if (options.armature) data.M.diagonal() += model.armature();
  return data.M;
}

void factorizeMassMatrix(const Model& model, Data& data) {
  // Featherstone's LTDL: eliminate from the last coordinate up, touching only ancestor pairs
  // (lambda = Model::dofParent), so no fill-in occurs.
  Eigen::MatrixXd& H = data.L;
  H = data.M;
  for (int k = model.nv() - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0)) {
      throw Error("abdyn::factorizeMassMatrix: mass matrix of model '" + model.name() + "' is not positive definite (pivot " +
                  std::to_string(H(k, k)) + " at coordinate " + std::to_string(k) + ")");
    }
    for (int i = model.dofParent(k); i >= 0; i = model.dofParent(i)) {
      const double a = H(k, i) / H(k, k);
      for (int j = i; j >= 0; j = model.dofParent(j)) H(i, j) -= a * H(k, j);
      H(k, i) = a;
    }
  }
}

void multiplyByL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = model.nv() - 1; k >= 0; --k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[k] += data.L(k, j) * x[j];
  }
}

void multiplyByLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = 0; k < model.nv(); ++k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[j] += data.L(k, j) * x[k];
  }
}

void solveL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = 0; k < model.nv(); ++k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[k] -= data.L(k, j) * x[j];
  }
}

void solveLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = model.nv() - 1; k >= 0; --k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[j] -= data.L(k, j) * x[k];
  }
}

void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> b) {
  internal::checkVector(b, model.nv(), "abdyn::solveMassMatrix", "b");
  // M^-1 = L^-1 D^-1 L^-T.
  solveLTransposed(model, data, b);
  b.array() /= data.L.diagonal().array();
  solveL(model, data, b);
}

}  // namespace abdyn
