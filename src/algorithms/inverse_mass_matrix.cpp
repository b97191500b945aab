#include "abdyn/algorithms/inverse_mass_matrix.hpp"

#include "algorithms/articulated_step.hpp"
#include "algorithms/inverse_mass_steps.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "model/passes.hpp"

namespace abdyn {
namespace {

// M^-1 into data.Minv after ABA's backward pass at q, from the factors data.aba.U and data.aba.Dinv, the transforms
// data.X_body_world and the motion-subspace columns in world coordinates S_world (6 x nv, as Data::S_world).
void inverseMassMatrixAtFactors(const Model& model, Data& data, const Matrix6X& S_world) {
  // ABA with one right-hand side per coordinate (inverse_mass_steps.hpp), in world coordinates:
  // only U (one column per coordinate) is moved there, into data.minv.U_world.
  const int n = model.nbodies();
  Matrix6X& U_world = data.minv.U_world;
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const Plx& X = data.X_body_world[i];  // world to body i
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) U_world.col(k) = X.applyInverse(Force(Vector6(data.aba.U.col(k)))).vector();
    internal::clearInverseMassForces(model, data, i);
  }
  data.Minv.setZero();
  for (int i = n - 1; i >= 1; --i) {
    internal::visitJointDofs(model.joint(i), [&](auto dofs) {
      internal::inverseMassBackwardStep<decltype(dofs)::value>(model, data, i, S_world, U_world);
    });
  }
  for (int i = 1; i < n; ++i) {
    internal::visitJointDofs(model.joint(i), [&](auto dofs) {
      internal::inverseMassForwardStep<decltype(dofs)::value>(model, data, i, S_world, U_world);
    });
  }
  internal::symmetrizeInverseMass(data);
}

}  // namespace

const Eigen::MatrixXd& inverseMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                         const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::inverseMassMatrix");
  internal::checkDynamics(model, "abdyn::inverseMassMatrix");
  internal::checkConfiguration(model, q, "abdyn::inverseMassMatrix");
  internal::reserveMassMatrix(model, data);
  const int n = model.nbodies();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    data.X_body_world[i] = p > 0 ? data.X_up[i] * data.X_body_world[p] : data.X_up[i];
    data.aba.IA[i] = ArticulatedBodyInertia(model.inertia(i));
  }
  ++data.X_body_world_stamp;
  for (int k = 0; k < model.nv(); ++k) data.S_world.col(k) = internal::worldMotionColumn(model, data, k).vector();
  data.S_world_stamp = data.X_body_world_stamp;
  // ABA's factors (articulated_step.hpp): U, D^-1 and the articulated inertias, leaves to root.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      using Step = internal::ArticulatedStep<decltype(dofs)::value>;
      const Matrix6& IA = data.aba.IA[i].matrix();
      Step::factor(model, j, IA, options, data, "abdyn::inverseMassMatrix");  // U = IA S, D = S^T U, D^-1
      const int p = model.parent(i);
      if (p == 0) return;
      const ArticulatedBodyInertia Ia = Step(model, data, j).projectedInertia(IA);  // Ia = IA - U D^-1 U^T
      data.aba.IA[p] += data.X_up[i].applyInverse(Ia);                                  // IA_p += X_up^T Ia X_up
    });
  }
  inverseMassMatrixAtFactors(model, data, data.S_world);
  return data.Minv;
}

}  // namespace abdyn
