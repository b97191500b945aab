#include "abdyn/algorithms/aba.hpp"

#include "algorithms/articulated_step.hpp"
#include "algorithms/joint_ops.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {
namespace {

// The articulated-body algorithm (Featherstone, RBDA sec. 7.3, spatial_v2's FDab), in body coordinates.
// Glossary:
//   X_up   X_i_lambda(i): parent-body coordinates to body-i coordinates      S   motion subspace of joint i
//   v, c   body velocity; velocity-product acceleration c = v x vJ (vJ = S qd)
//   IA, pA articulated-body inertia and bias force of the subtree at body i
//   U, D   U = IA S, D = S^T IA S (+ armature, + h damping);  u = tau - S^T pA (- damping qd + springs)
//   Ia, pa what the parent feels through joint i: IA - U D^-1 U^T and pA + Ia c + U D^-1 u
//   a      body acceleration, from a_0 = -gravity so that gravity needs no other term
// The per-joint steps (U, D, u, Ia, pa, qdd) are articulated_step.hpp's, shared with the row
// response and inverseMassMatrix. Pass 2 leaves x = D^-1 u in qdd (it forms pa's U D^-1 u), and pass 3
// corrects it to FDab's D^-1 (u - U^T a) = x - D^-1 U^T a.
ABDYN_FLATTEN void aba(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
         const std::vector<Force>* f_ext, const DynamicsOptions& options, const char* caller) {
  const int n = model.nbodies();

  // Pass 1, root to leaves.
  data.v[0] = Motion::Zero();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));  // X_up = X_J(q) X_T
    const Motion vJ = internal::jointMotion(model, j, v);                        // vJ = S qd
    data.v[i] = data.X_up[i].apply(data.v[p]) + vJ;                              // v_i = X_up v_p + vJ
    data.aba.c[i] = data.v[i].cross(vJ);                                             // c_i = v_i x vJ
    const RigidBodyInertia& I = model.inertia(i);
    data.aba.IA[i] = ArticulatedBodyInertia::fromMatrixUnchecked(model.inertiaMatrix(i));  // IA_i = I_i
    data.aba.pA[i] = data.v[i].crossDual(I * data.v[i]);                             // pA_i = v_i x* I_i v_i
    if (f_ext) data.aba.pA[i] -= (*f_ext)[i];                                        //        - f_ext_i
  }

  // Pass 2, leaves to root.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      using Step = internal::ArticulatedStep<decltype(dofs)::value>;
      const Matrix6& IA = data.aba.IA[i].matrix();
      Step::factor(model, j, IA, options, data, caller);                   // U = IA S, D = S^T U, D^-1
      const Step step(model, data, j);
      auto u = Step::rows(data.aba.u, j);
      step.bias(Step::rows(tau, j), data.aba.pA[i].vector(), u);                 // u = tau - S^T pA
      if (options.damping) u -= Step::rows(model.damping(), j).cwiseProduct(Step::rows(v, j));  // - damping qd
      if (options.springs && model.hasSprings()) internal::addJointSpringForce(model, j, q, 1.0, u.data());  // + springs
      if (options.armature) internal::addFloatingArmatureProduct(model, j, v, -1.0, u.data());  // - a (w x v)
      auto qdd = Step::rows(data.qdd, j);
      step.solve(u, qdd);                                                    // qdd = D^-1 u, for now
      if (p == 0) return;
      const ArticulatedBodyInertia Ia = step.projectedInertia(IA);           // Ia = IA - U D^-1 U^T
      Vector6 pa = data.aba.pA[i].vector() + Ia.matrix() * data.aba.c[i].vector();
      step.addResponse(qdd, pa);                                             // pa = pA + Ia c + U D^-1 u
      data.aba.IA[p] += data.X_up[i].applyInverse(Ia);                           // IA_p += X_up^T Ia X_up
      data.aba.pA[p] += data.X_up[i].applyInverse(Force(pa));                    // pA_p += X_up^T pa
    });
  }

  // Pass 3, root to leaves.
  data.a_with_gravity[0] = -model.gravity();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      using Step = internal::ArticulatedStep<decltype(dofs)::value>;
      const Step step(model, data, j);
      Vector6 a = (data.X_up[i].apply(data.a_with_gravity[model.parent(i)]) + data.aba.c[i]).vector();  // a' = X_up a_p + c
      auto qdd = Step::rows(data.qdd, j);
      typename Step::Rows Uta(j.nv, 1);
      step.correct(a, Uta, qdd);                                             // qdd = D^-1 (u - U^T a')
      step.addMotion(qdd, a);                                                // a_i = a' + S qdd
      data.a_with_gravity[i] = Motion(a);
    });
  }
}

}  // namespace

const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& tau, const DynamicsOptions& options) {
  internal::checkForwardDynamics(model, data, q, v, tau, nullptr, options, "abdyn::forwardDynamics");
  aba(model, data, q, v, tau, nullptr, options, "abdyn::forwardDynamics");
  return data.qdd;
}

const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& tau, const std::vector<Force>& f_ext,
                                       const DynamicsOptions& options) {
  internal::checkForwardDynamics(model, data, q, v, tau, &f_ext, options, "abdyn::forwardDynamics");
  aba(model, data, q, v, tau, &f_ext, options, "abdyn::forwardDynamics");
  return data.qdd;
}

namespace internal {

const Eigen::VectorXd& forwardDynamicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                const DynamicsOptions& options, const char* caller) {
  aba(model, data, q, v, tau, nullptr, options, caller);
  return data.qdd;
}

}  // namespace internal

}  // namespace abdyn
