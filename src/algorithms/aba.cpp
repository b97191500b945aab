#include "abdyn/algorithms/aba.hpp"

#include <Eigen/Cholesky>

#include "internal/checks.hpp"
#include "internal/flatten.hpp"
#include "internal/joint_ops.hpp"

namespace abdyn {
namespace {

using SmallMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

[[noreturn]] void throwSingular(const Model& model, const Joint& j, double D) {
  throw Error("abdyn::forwardDynamics: joint '" + j.name + "' of model '" + model.name() +
              "' has no articulated inertia to move (S^T IA S = " + std::to_string(D) +
              "): the mass matrix is singular (e.g. a massless body whose motion another joint duplicates)");
}

// The articulated-body algorithm, in body coordinates. Symbols (RBDA ch. 7):
//   X_up   X_i_lambda(i), parent to body coordinates     S    motion subspace (constant in body coordinates)
//   v, c   body velocity; velocity-product acceleration v x (S qd)
//   IA, pA articulated-body inertia and bias force of the subtree at body i
//   U, D   IA S and S^T IA S;  u = tau - S^T pA
//   a      body acceleration, starting from a_0 = -gravity so that gravity needs no other term
ABDYN_FLATTEN void aba(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
         const std::vector<Force>* f_ext, const DynamicsOptions& options) {
  const auto& S = model.motionSubspace();
  const int n = model.nbodies();

  // Pass 1, root to leaves: transforms, velocities, velocity products and the rigid-body start of IA, pA.
  data.v[0] = Motion::Zero();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    const Motion vJ = internal::jointMotion(model, j, v);
    data.v[i] = data.X_up[i].apply(data.v[p]) + vJ;
    data.c[i] = data.v[i].cross(vJ);
    const RigidBodyInertia& I = model.inertia(i);
    data.IA[i] = ArticulatedBodyInertia::fromMatrixUnchecked(model.inertiaMatrix(i));
    data.pA[i] = data.v[i].crossDual(I * data.v[i]);
    if (f_ext) data.pA[i] -= (*f_ext)[i];
  }

  // Pass 2, leaves to root: project each subtree's inertia and bias through its joint onto the parent.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    const Matrix6& IA = data.IA[i].matrix();
    if (j.nv == 1) {
      const int k = j.idx_v;
      const Vector6 U = IA * S.col(k);
      double D = S.col(k).dot(U);
      if (options.armature) D += model.armature()[k];
      if (options.damping) D += options.implicit_damping_step * model.damping()[k];
      if (!(D > 0.0)) throwSingular(model, j, D);
      double u = tau[k] - S.col(k).dot(data.pA[i].vector());
      if (options.damping) u -= model.damping()[k] * v[k];
      data.U.col(k) = U;
      data.D[k] = 1.0 / D;  // stored inverted
      data.u[k] = u;
      if (p > 0) {
        ArticulatedBodyInertia Ia = data.IA[i];
        Ia.subtractRankOne(U, 1.0 / D);
        const Force pa = data.pA[i] + Ia * data.c[i] + Force(U * (u / D));
        data.IA[p] += data.X_up[i].applyInverse(Ia);
        data.pA[p] += data.X_up[i].applyInverse(pa);
      }
    } else {
      const auto Sj = S.middleCols(j.idx_v, j.nv);
      auto U = data.U.middleCols(j.idx_v, j.nv);
      U.noalias() = IA * Sj;
      SmallMatrix D = Sj.transpose() * U;
      if (options.armature) D.diagonal() += model.armature().segment(j.idx_v, j.nv);
      if (options.damping) D.diagonal() += options.implicit_damping_step * model.damping().segment(j.idx_v, j.nv);
      SmallVector u = tau.segment(j.idx_v, j.nv) - Sj.transpose() * data.pA[i].vector();
      if (options.damping) u -= model.damping().segment(j.idx_v, j.nv).cwiseProduct(v.segment(j.idx_v, j.nv));
      const Eigen::LLT<SmallMatrix> llt(D);
      if (llt.info() != Eigen::Success) throwSingular(model, j, D.diagonal().minCoeff());
      const SmallMatrix Dinv = llt.solve(SmallMatrix::Identity(j.nv, j.nv));
      data.Dinv_block.block(j.idx_v, 0, j.nv, j.nv) = Dinv;
      data.u.segment(j.idx_v, j.nv) = u;
      if (p > 0) {
        const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> UDinv = U * Dinv;
        const Matrix6 Ia = IA - UDinv * U.transpose();
        const Vector6 pa = data.pA[i].vector() + Ia * data.c[i].vector() + UDinv * u;
        data.IA[p] += data.X_up[i].applyInverse(ArticulatedBodyInertia::fromMatrixUnchecked(Ia));
        data.pA[p] += data.X_up[i].applyInverse(Force(pa));
      }
    }
  }

  // Pass 3, root to leaves: accelerations.
  data.a[0] = -model.gravity();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const Motion a = data.X_up[i].apply(data.a[model.parent(i)]) + data.c[i];
    if (j.nv == 1) {
      const int k = j.idx_v;
      data.qdd[k] = data.D[k] * (data.u[k] - data.U.col(k).dot(a.vector()));
      data.a[i] = a + Motion(S.col(k) * data.qdd[k]);
    } else {
      const auto Sj = S.middleCols(j.idx_v, j.nv);
      const SmallVector rhs = data.u.segment(j.idx_v, j.nv) - data.U.middleCols(j.idx_v, j.nv).transpose() * a.vector();
      data.qdd.segment(j.idx_v, j.nv).noalias() = data.Dinv_block.block(j.idx_v, 0, j.nv, j.nv) * rhs;
      data.a[i] = a + Motion(Vector6(Sj * data.qdd.segment(j.idx_v, j.nv)));
    }
  }
}

void checkInputs(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                 const DynamicsOptions& options) {
  internal::checkConfiguration(model, q, "abdyn::forwardDynamics");
  internal::checkDynamicsOptions(options, "abdyn::forwardDynamics");
  internal::checkVector(v, model.nv(), "abdyn::forwardDynamics", "v");
  internal::checkVector(tau, model.nv(), "abdyn::forwardDynamics", "tau");
}

}  // namespace

const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& tau, const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::forwardDynamics");
  checkInputs(model, q, v, tau, options);
  aba(model, data, q, v, tau, nullptr, options);
  return data.qdd;
}

const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& tau, const std::vector<Force>& f_ext,
                                       const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::forwardDynamics");
  checkInputs(model, q, v, tau, options);
  internal::checkForces(model, f_ext, "abdyn::forwardDynamics");
  aba(model, data, q, v, tau, &f_ext, options);
  return data.qdd;
}

}  // namespace abdyn
