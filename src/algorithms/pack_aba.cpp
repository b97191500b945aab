// ABA over packs of W states, one state per SIMD lane (pack_dynamics.hpp), compiled by Highway once per
// instruction set: foreach_target re-includes this file with each target's HWY_NAMESPACE and attributes.
// A file of its own so that a parallel build compiles the kernels side by side (pack_lanes-inl.hpp).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "algorithms/pack_aba.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "algorithms/pack_lanes-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace abdyn::internal::HWY_NAMESPACE {

namespace {

// Records the lowest lane of `bad` (if any) in `failure`, unless a lower lane failed already.
void recordFailure(V pivot, hn::Mask<D> bad, int body, PackFailure* failure) {
  const D d;
  if (HWY_LIKELY(hn::AllFalse(d, bad))) return;
  const int lane = static_cast<int>(hn::FindFirstTrue(d, bad));
  if (failure->lane >= 0 && failure->lane <= lane) return;
  HWY_ALIGN double pivots[kLanesMax];
  hn::Store(pivot, d, pivots);
  *failure = PackFailure{lane, body, pivots[lane]};
}

// D^-1 of the symmetric positive definite nv x nv D (lower triangle used) by Cholesky, D = L L^T and
// D^-1 = L^-T L^-1 (ArticulatedStep::factorWith).
void invertSymmetric(int nv, V (*Dm)[6], V (*Dinv)[6], int body, PackFailure* failure) {
  V L[6][6], Linv[6][6];
  for (int c = 0; c < nv; ++c) {
    V pivot = Dm[c][c];
    for (int k = 0; k < c; ++k) pivot = pivot - L[c][k] * L[c][k];
    recordFailure(pivot, hn::Not(pivot > zero()), body, failure);
    L[c][c] = hn::Sqrt(pivot);
    const V inverse = bc(1.0) / L[c][c];
    for (int r = c + 1; r < nv; ++r) {
      V sum = Dm[r][c];
      for (int k = 0; k < c; ++k) sum = sum - L[r][k] * L[c][k];
      L[r][c] = sum * inverse;
    }
    Linv[c][c] = inverse;
  }
  for (int c = 0; c < nv; ++c) {
    for (int r = c + 1; r < nv; ++r) {
      V sum = L[r][c] * Linv[c][c];
      for (int k = c + 1; k < r; ++k) sum = sum + L[r][k] * Linv[k][c];
      Linv[r][c] = (zero() - sum) / L[r][r];
    }
  }
  for (int r = 0; r < nv; ++r) {
    for (int c = 0; c <= r; ++c) {
      V sum = Linv[r][r] * Linv[r][c];
      for (int k = r + 1; k < nv; ++k) sum = sum + Linv[k][r] * Linv[k][c];
      Dinv[r][c] = Dinv[c][r] = sum;
    }
  }
}

}  // namespace

// ABA (aba.cpp, its glossary; the per-joint steps of articulated_step.hpp).
bool abaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
             const double* tau, double* qdd, PackFailure* failure) {
  BodyLanes* body = bodyLanes(work);
  DofLanes* dof = dofLanes(model, work);
  const int n = static_cast<int>(model.bodies.size());
  *failure = PackFailure{};

  // Pass 1, root to leaves.
  body[0].v = zeroVec6();
  for (int i = 1; i < n; ++i) {
    const PackBody& B = model.bodies[i];
    BodyLanes& b = body[i];
    const Xform X_up = jointTransformTimes(B, q);                     // X_up = X_J(q) X_T
    b.X_up = X_up;
    withPick(B, [&](auto pick) {
      constexpr int a = decltype(pick)::value;
      const Vec6 vJ = jointMotion<a>(B, v);                           // vJ = S qd
      Vec6 vel = vJ;                                                  // v_i = X_up v_p + vJ (v_0 = 0)
      if (B.parent > 0) {
        const Vec6 Xv = applyMotion(X_up, body[B.parent].v);
        for (int r = 0; r < 6; ++r) vel.s[r] = Xv.s[r] + vJ.s[r];
      }
      Vec6 c = zeroVec6();                                            // c_i = v_i x vJ
      addCrossJointMotion<a>(vel, vJ, c);
      b.c = c;
      b.f = crossForce(vel, rigidTimes(B, vel));                      // pA_i = v_i x* I_i v_i
      b.v = vel;
    });
    for (int k = 0; k < 21; ++k) b.I.m[k] = bc(B.I[k]);               // IA_i = I_i
  }

  // Pass 2, leaves to root.
  for (int i = n - 1; i >= 1; --i) {
    const PackBody& B = model.bodies[i];
    BodyLanes& b = body[i];
    DofLanes* J = dof + B.idx_v;
    V Dm[6][6], Dinv[6][6];
    for (int k = 0; k < B.nv; ++k) {                                  // U = IA S
      const int a = B.pick[k];
      for (int r = 0; r < 6; ++r) {
        if (a >= 0) {
          J[k].U.s[r] = B.pick_sign[k] > 0.0 ? b.I.m[sym(r, a)] : zero() - b.I.m[sym(r, a)];
        } else {
          V sum = b.I.m[sym(r, 0)] * bc(B.S[6 * k]);
          for (int c = 1; c < 6; ++c) sum = sum + b.I.m[sym(r, c)] * bc(B.S[6 * k + c]);
          J[k].U.s[r] = sum;
        }
      }
    }
    for (int r = 0; r < B.nv; ++r) {                                  // D = S^T U (+ armature, + h damping)
      for (int c = 0; c <= r; ++c) Dm[r][c] = Dm[c][r] = columnPick(B, r, J[c].U);
      double diagonal = 0.0;
      if (options.armature) diagonal += model.armature[B.idx_v + r];
      if (options.damping) diagonal += options.implicit_damping_step * model.damping[B.idx_v + r];
      Dm[r][r] = Dm[r][r] + bc(diagonal);
    }
    if (B.nv == 1) {
      recordFailure(Dm[0][0], hn::Not(Dm[0][0] > zero()), i, failure);
      Dinv[0][0] = bc(1.0) / Dm[0][0];
    } else {
      invertSymmetric(B.nv, Dm, Dinv, i, failure);
    }
    V armature_product[6];                                            // a (w x v): a floating joint's armature
    floatingArmatureProduct(model, B, options, v, armature_product);
    const bool springs = options.springs && B.stiffness != 0.0;
    V spring[6];
    if (springs) {
      for (int k = 0; k < B.nv; ++k) spring[k] = zero();
      addSpringForce(model, B, 1.0, q, spring);
    }
    for (int k = 0; k < B.nv; ++k) {                                  // u = tau - S^T pA (- damping qd + springs)
      const int d = B.idx_v + k;
      V u = input(tau, d) - columnDot(B, k, b.f) - armature_product[k];
      if (options.damping) u = u - bc(model.damping[d]) * input(v, d);
      if (springs) u = u + spring[k];
      J[k].u = u;
      for (int c = 0; c < B.nv; ++c) J[k].Dinv[c] = Dinv[k][c];
    }
    for (int k = 0; k < B.nv; ++k) {                                  // x = D^-1 u
      V x = Dinv[k][0] * J[0].u;
      for (int c = 1; c < B.nv; ++c) x = x + Dinv[k][c] * J[c].u;
      J[k].x = x;
    }
    if (B.parent == 0) continue;
    V UDinv[6][6];                                                    // Ia = IA - U D^-1 U^T
    for (int r = 0; r < 6; ++r) {
      for (int k = 0; k < B.nv; ++k) {
        V sum = J[0].U.s[r] * Dinv[0][k];
        for (int l = 1; l < B.nv; ++l) sum = sum + J[l].U.s[r] * Dinv[l][k];
        UDinv[r][k] = sum;
      }
    }
    Sym6 Ia;
    for (int r = 0; r < 6; ++r) {
      for (int c = 0; c <= r; ++c) {
        V sum = b.I.m[sym(r, c)];
        for (int k = 0; k < B.nv; ++k) sum = sum - UDinv[r][k] * J[k].U.s[c];
        Ia.m[sym(r, c)] = sum;
      }
    }
    Vec6 pa = symTimes(Ia, b.c);                                      // pa = pA + Ia c + U D^-1 u
    for (int r = 0; r < 6; ++r) {
      V sum = pa.s[r] + b.f.s[r];
      for (int k = 0; k < B.nv; ++k) sum = sum + J[k].U.s[r] * J[k].x;
      pa.s[r] = sum;
    }
    BodyLanes& p = body[B.parent];
    addApplyInverse(b.X_up, Ia, p.I);                                 // IA_p += X_up^T Ia X_up
    const Vec6 pa_p = applyInverseForce(b.X_up, pa);                  // pA_p += X_up^T pa
    for (int r = 0; r < 6; ++r) p.f.s[r] = p.f.s[r] + pa_p.s[r];
  }

  // Pass 3, root to leaves.
  for (int r = 0; r < 6; ++r) body[0].a.s[r] = bc(model.minus_gravity[r]);
  for (int i = 1; i < n; ++i) {
    const PackBody& B = model.bodies[i];
    BodyLanes& b = body[i];
    DofLanes* J = dof + B.idx_v;
    withPick(B, [&](auto pick) {
      constexpr int pa = decltype(pick)::value;
      Vec6 a = applyMotion(b.X_up, body[B.parent].a);                 // a' = X_up a_p + c
      for (int r = 0; r < 6; ++r) a.s[r] = a.s[r] + b.c.s[r];
      V Uta[6];
      for (int k = 0; k < B.nv; ++k) {
        V sum = J[k].U.s[0] * a.s[0];
        for (int r = 1; r < 6; ++r) sum = sum + J[k].U.s[r] * a.s[r];
        Uta[k] = sum;
      }
      for (int k = 0; k < B.nv; ++k) {                                // qdd = D^-1 (u - U^T a')
        V x = J[k].x;
        for (int c = 0; c < B.nv; ++c) x = x - J[k].Dinv[c] * Uta[c];
        output(x, qdd, B.idx_v + k);
        if constexpr (pa >= 0) {                                      // a_i = a' + S qdd
          a.s[pa] = hn::MulAdd(bc(B.pick_sign[0]), x, a.s[pa]);
        } else {
          addColumn(B, k, x, a);
        }
      }
      b.a = a;
    });
  }
  return failure->lane < 0;
}

// CRBA in one frame per subtree, as massMatrixAtTransforms (crba.cpp): with every joint axis S_k and every

}  // namespace abdyn::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
