// CRBA over packs of W states, one state per SIMD lane (pack_dynamics.hpp), compiled by Highway once per
// instruction set: foreach_target re-includes this file with each target's HWY_NAMESPACE and attributes.
// A file of its own so that a parallel build compiles the kernels side by side (pack_lanes-inl.hpp).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "algorithms/pack_crba.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "algorithms/pack_lanes-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace abdyn::internal::HWY_NAMESPACE {

// M(l, k) for an ancestor coordinate l of k is the dot product S_l . (Ic_i S_k), without a transform per
// ancestor. Ic is kept as a symmetric 6 x 6 matrix, so that composites add entry by entry.
void crbaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, double* M) {
  BodyLanes* body = bodyLanes(work);
  DofLanes* dof = dofLanes(model, work);
  const int n = static_cast<int>(model.bodies.size()), nv = model.nv;
  for (int e = 0; e < nv * nv; ++e) output(zero(), M, e);  // entries of non-ancestor pairs are zero
  for (int i = 1; i < n; ++i) {
    const PackBody& B = model.bodies[i];
    BodyLanes& b = body[i];
    const Xform X_up = jointTransformTimes(B, q);
    Sym6 I;
    for (int k = 0; k < 21; ++k) I.m[k] = bc(B.I[k]);
    if (B.parent == 0 || model.bodies[B.parent].parent == 0) {
      b.X_up = X_up;  // X_i_r: for a child of r, X_up; r itself keeps its own frame
    } else {          // X_i_r = X_up X_p_r = plx(E_up E_p, E_p^T r_up + r_p)
      const Xform& X_p = body[B.parent].X_up;
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) b.X_up.E[3 * r + c] = X_up.E[3 * r] * X_p.E[c] + X_up.E[3 * r + 1] * X_p.E[3 + c] + X_up.E[3 * r + 2] * X_p.E[6 + c];
      }
      rotateBack(X_p.E, X_up.r, b.X_up.r);
      for (int k = 0; k < 3; ++k) b.X_up.r[k] = b.X_up.r[k] + X_p.r[k];
    }
    for (int k = 0; k < B.nv; ++k) {  // S_k in r's coordinates: X_i_r^-1 S_k = [E^T w; E^T v + r x E^T w]
      Vec6 S = zeroVec6();
      addColumn(B, k, bc(1.0), S);
      if (B.parent > 0) {
        Vec6 S_r;
        V rxw[3];
        rotateBack(b.X_up.E, S.s, S_r.s);
        rotateBack(b.X_up.E, S.s + 3, S_r.s + 3);
        cross(b.X_up.r, S_r.s, rxw);
        for (int r = 0; r < 3; ++r) S_r.s[3 + r] = S_r.s[3 + r] + rxw[r];
        S = S_r;
      }
      dof[B.idx_v + k].U = S;
    }
    if (B.parent > 0) {  // Ic_i = X_i_r^T I_i X_i_r
      for (V& x : b.I.m) x = zero();
      addApplyInverse(b.X_up, I, b.I);
    } else {
      b.I = I;
    }
  }
  for (int i = n - 1; i >= 1; --i) {
    const PackBody& B = model.bodies[i];
    for (int k = B.idx_v; k < B.idx_v + B.nv; ++k) {
      const Vec6 F = symTimes(body[i].I, dof[k].U);                   // F = Ic_i S_k
      for (int j = i; j > 0; j = model.bodies[j].parent) {            // M(l, k) = S_l . F, l an ancestor coordinate of k
        const PackBody& A = model.bodies[j];
        for (int l = A.idx_v; l < A.idx_v + A.nv && l <= k; ++l) {
          V m = dof[l].U.s[0] * F.s[0];
          for (int r = 1; r < 6; ++r) m = m + dof[l].U.s[r] * F.s[r];
          output(m, M, l * nv + k);
          output(m, M, k * nv + l);
        }
      }
    }
    if (B.parent > 0) {  // Ic_p += Ic_i, both in r's coordinates
      for (int e = 0; e < 21; ++e) body[B.parent].I.m[e] = body[B.parent].I.m[e] + body[i].I.m[e];
    }
  }
  for (int k = 0; k < nv; ++k) {
    double diagonal = 0.0;
    if (options.armature) diagonal += model.armature[k];
    if (options.damping) diagonal += options.implicit_damping_step * model.damping[k];
    const int e = k * nv + k;
    output(input(M, e) + bc(diagonal), M, e);
  }
}

}  // namespace abdyn::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
