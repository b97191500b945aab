#include "abdyn/algorithms/aba.hpp"

#include "algorithms/articulated_step.hpp"
#include "algorithms/joint_ops.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {
namespace {

// u's joint-space terms beyond tau - S^T pA: - damping qd, + the springs' force, - the floating joints'
// armature products a (w x v) (joint_ops.hpp), as `options` ask.
template <class U>
ABDYN_ALWAYS_INLINE void addJointForces(const Model& model, const Joint& j, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const DynamicsOptions& options, U& u) {
  if (options.damping) u -= model.damping().segment(j.idx_v, j.nv).cwiseProduct(v.segment(j.idx_v, j.nv));
  if (options.springs && model.hasSprings()) internal::addJointSpringForce(model, j, q, 1.0, u.data());
  if (options.armature) internal::addFloatingArmatureProduct(model, j, v, -1.0, u.data());
}

// The articulated-body algorithm (Featherstone, RBDA sec. 7.3, spatial_v2's FDab), in body coordinates.
// Glossary (FDab's names; D is FDab's d, a matrix for a multi-DoF joint):
//   Xup    X_i_lambda(i): parent-body coordinates to body-i coordinates      S   motion subspace of joint i
//   v, c   body velocity; velocity-product acceleration c = v x vJ (vJ = S qd)
//   IA, pA articulated-body inertia and bias force of the subtree at body i
//   U, D   U = IA S, D = S^T IA S (+ armature, + h damping);  u = tau - S^T pA (- damping qd + springs)
//   Ia, pa what the parent feels through joint i: IA - U D^-1 U^T and pA + Ia c + U D^-1 u
//   a      body acceleration, from a_0 = -gravity so that gravity needs no other term
// One departure from FDab: pass 2 leaves x = D^-1 u in qdd (it forms pa's U D^-1 u), and pass 3 corrects
// it to D^-1 (u - U^T a) = x - D^-1 U^T a. The per-joint steps (`step`: U, D, u, Ia, pa, qdd) are
// articulated_step.hpp's, shared with the row response, inverseMassMatrix and the derivatives.
ABDYN_FLATTEN void aba(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                       const std::vector<Force>* f_ext, const DynamicsOptions& options, const char* caller) {
  Data::ArticulatedBodyWorkspace& w = data.aba;
  const int n = model.nbodies();
  data.v[0] = Motion::Zero();
  for (int i = 1; i < n; ++i) {  // pass 1, root to leaves
    const Joint& j = model.joint(i);
    const Motion vJ = internal::jointMotion(model, j, v);                        // vJ = S qd
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));  // Xup = XJ Xtree
    data.v[i] = data.X_up[i].apply(data.v[model.parent(i)]) + vJ;               // v = Xup v_p + vJ
    w.c[i] = data.v[i].cross(vJ);                                                // c = v x vJ
    w.IA[i] = ArticulatedBodyInertia::fromMatrixUnchecked(model.inertiaMatrix(i));  // IA = I
    w.pA[i] = data.v[i].crossDual(model.inertia(i) * data.v[i]);                 // pA = v x* I v
    if (f_ext) w.pA[i] -= (*f_ext)[i];                                           //      - f_ext
  }
  for (int i = n - 1; i >= 1; --i) {  // pass 2, leaves to root
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    internal::withArticulatedStep(model, data, j, [&](const auto& step) {
      step.factor(model, j, w.IA[i].matrix(), options, data, caller);           // U = IA S, D = S^T U
      auto u = step.rows(w.u, j);
      step.bias(step.rows(tau, j), w.pA[i].vector(), u);                        // u = tau - S^T pA
      addJointForces(model, j, q, v, options, u);
      auto x = step.rows(data.qdd, j);
      step.solve(u, x);                                                          // x = D^-1 u
      if (p == 0) return;
      const ArticulatedBodyInertia Ia = step.projectedInertia(w.IA[i].matrix()); // Ia = IA - U D^-1 U^T
      Vector6 pa = w.pA[i].vector() + Ia.matrix() * w.c[i].vector();
      step.addResponse(x, pa);                                                   // pa = pA + Ia c + U x
      w.IA[p] += data.X_up[i].applyInverse(Ia);                                  // IA_p += Xup^T Ia Xup
      w.pA[p] += data.X_up[i].applyInverse(Force(pa));                           // pA_p += Xup^T pa
    });
  }
  data.a_with_gravity[0] = -model.gravity();
  for (int i = 1; i < n; ++i) {  // pass 3, root to leaves
    const Joint& j = model.joint(i);
    internal::withArticulatedStep(model, data, j, [&](const auto& step) {
      Vector6 a = (data.X_up[i].apply(data.a_with_gravity[model.parent(i)]) + w.c[i]).vector();  // a = Xup a_p + c
      auto qdd = step.rows(data.qdd, j);
      step.correct(a, qdd);                                                      // qdd = D^-1 (u - U^T a)
      step.addMotion(qdd, a);                                                    // a += S qdd
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
