// RNEA over packs of W states, one state per SIMD lane (pack_dynamics.hpp), compiled by Highway once per
// instruction set: foreach_target re-includes this file with each target's HWY_NAMESPACE and attributes.
// A file of its own so that a parallel build compiles the kernels side by side (pack_lanes-inl.hpp).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "algorithms/pack_rnea.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "algorithms/pack_lanes-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace abdyn::internal::HWY_NAMESPACE {

// RNEA (rnea.cpp): v_i, a_i (from a_0 = -gravity), f_i in body-i coordinates.
void rneaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
              const double* qdd, double* tau) {
  BodyLanes* body = bodyLanes(work);
  const int n = static_cast<int>(model.bodies.size());
  for (int r = 0; r < 6; ++r) body[0].a.s[r] = bc(model.minus_gravity[r]);  // body[0].v = 0 is never read
  for (int i = 1; i < n; ++i) {
    const PackBody& B = model.bodies[i];
    BodyLanes& b = body[i];
    const BodyLanes& p = body[B.parent];
    const Xform X_up = jointTransformTimes(B, q);                     // X_up = X_J(q) X_T
    b.X_up = X_up;
    withPick(B, [&](auto pick) {
      constexpr int a = decltype(pick)::value;
      const Vec6 vJ = jointMotion<a>(B, v);                           // vJ = S qd
      const Vec6 aJ = jointMotion<a>(B, qdd);                         // S qdd
      Vec6 vel = vJ;                                                  // v_i = X_up v_p + vJ (v_0 = 0)
      if (B.parent > 0) {
        const Vec6 Xv = applyMotion(X_up, p.v);
        for (int r = 0; r < 6; ++r) vel.s[r] = Xv.s[r] + vJ.s[r];
      }
      Vec6 acc = applyMotion(X_up, p.a);                              // a_i = X_up a_p + S qdd + v_i x vJ
      for (int r = 0; r < 6; ++r) acc.s[r] = acc.s[r] + aJ.s[r];
      addCrossJointMotion<a>(vel, vJ, acc);
      const Vec6 Ia = rigidTimes(B, acc), vxIv = crossForce(vel, rigidTimes(B, vel));
      for (int r = 0; r < 6; ++r) b.f.s[r] = Ia.s[r] + vxIv.s[r];  // f_i = I a_i + v_i x* I v_i
      b.v = vel;
      b.a = acc;
    });
  }
  for (int i = n - 1; i >= 1; --i) {
    const PackBody& B = model.bodies[i];
    V armature_product[6];                                            // a (w x v): a floating joint's armature
    floatingArmatureProduct(model, B, options, v, armature_product);
    const bool springs = options.springs && B.stiffness != 0.0;
    V spring[6];                                                      // overcome the springs
    if (springs) {
      for (int k = 0; k < B.nv; ++k) spring[k] = zero();
      addSpringForce(model, B, -1.0, q, spring);
    }
    for (int k = 0; k < B.nv; ++k) {
      const int dof = B.idx_v + k;
      V t = columnDot(B, k, body[i].f);                               // tau_i = S^T f_i
      // Zero coefficients (most joints) add nothing: their terms are skipped (not a floating joint's,
      // whose armature product uses its first linear coordinate's armature).
      if (options.armature && (model.armature[dof] != 0.0 || B.type == JointType::Floating)) {
        t = t + bc(model.armature[dof]) * input(qdd, dof) + armature_product[k];
      }
      if (options.damping && model.damping[dof] != 0.0) {
        t = t + bc(model.damping[dof]) * input(v, dof);
        t = t + bc(options.implicit_damping_step * model.damping[dof]) * input(qdd, dof);
      }
      if (springs) t = t + spring[k];
      output(t, tau, dof);
    }
    if (B.parent > 0) {                                               // f_p += X_up^T f_i
      const Vec6 f = applyInverseForce(body[i].X_up, body[i].f);
      for (int r = 0; r < 6; ++r) body[B.parent].f.s[r] = body[B.parent].f.s[r] + f.s[r];
    }
  }
}

}  // namespace abdyn::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
