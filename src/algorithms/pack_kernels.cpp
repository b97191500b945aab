// ABA, RNEA and CRBA over packs of W states, one state per SIMD lane (pack_dynamics.hpp), compiled by
// Highway once per instruction set (foreach_target re-includes this file with each target's
// HWY_NAMESPACE and target attributes) and chosen at run time by packKernels(). The code below is written
// once for a lane vector V: every arithmetic operation acts lane by lane, so a state's result depends
// only on its own inputs, never on its lane or on the other states of its pack. The algorithms follow
// the single-state ones line for line (rnea.cpp, aba.cpp, crba.cpp; their glossaries apply).
//
// Spatial vectors are [angular; linear]; E is stored row-major; symmetric 6 x 6 matrices (IA, Ic) by
// their lower triangle (sym()).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "algorithms/pack_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>
#include <new>
#include <type_traits>

#include "algorithms/joint_ops.hpp"
#include "algorithms/pack_dynamics.hpp"

HWY_BEFORE_NAMESPACE();
namespace abdyn::internal::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<double>;
using V = hn::Vec<D>;

constexpr int kLanesMax = kPackLanesMax;
static_assert(HWY_LANES(double) <= kLanesMax, "the workspace and the gathers hold at most kPackLanesMax lanes");

HWY_INLINE V bc(double x) { return hn::Set(D(), x); }  // x in every lane
HWY_INLINE V zero() { return hn::Zero(D()); }

// Index of entry (r, c) of a symmetric 6 x 6 matrix in its lower triangle.
constexpr int sym(int r, int c) { return r >= c ? r * (r + 1) / 2 + c : c * (c + 1) / 2 + r; }

struct Vec6 {  // a spatial vector, [angular; linear]
  V s[6];
};
struct Xform {  // plx(E, r): X_B_A with E rotating A into B and r B's origin in A (plx.hpp)
  V E[9];
  V r[3];
};
struct Sym6 {  // a symmetric 6 x 6 matrix (articulated or composite inertia)
  V m[21];
};

// Per-body and per-DoF scratch of a pack, in `work` (pack_dynamics.hpp).
struct BodyLanes {
  Xform X_up;  // X_i_lambda(i); CRBA: X_i_r, r the top body of i's subtree
  Vec6 v;      // velocity
  Vec6 c;      // ABA: velocity-product acceleration
  Vec6 a;      // acceleration (with -gravity)
  Vec6 f;      // RNEA: joint force; ABA: bias force pA
  Sym6 I;      // ABA: IA; CRBA: Ic in the coordinates of the subtree's top body r
};
struct DofLanes {
  Vec6 U;    // ABA: IA S_k; CRBA: S_k in the coordinates of the subtree's top body
  V Dinv[6];  // ABA: row k of D^-1
  V u;       // ABA: tau - S^T pA
  V x;       // ABA: D^-1 u, then qdd
};

Vec6 zeroVec6() {
  Vec6 out;
  for (V& x : out.s) x = zero();
  return out;
}

// sin and cos lane by lane: Highway's (3 ulp) within its valid range |x| <= 39000, the C library's
// beyond it (and for non-finite x), so that each lane's result depends on its own x only.
HWY_INLINE void sinCos(V x, V& s, V& c) {
  const D d;
  s = hn::Sin(d, x);
  c = hn::Cos(d, x);
  const auto in_range = hn::Abs(x) <= bc(39000.0);
  if (HWY_UNLIKELY(!hn::AllTrue(d, in_range))) {
    HWY_ALIGN double xs[kLanesMax], ss[kLanesMax], cs[kLanesMax];
    hn::Store(x, d, xs);
    for (size_t l = 0; l < hn::Lanes(d); ++l) {
      ss[l] = std::sin(xs[l]);
      cs[l] = std::cos(xs[l]);
    }
    s = hn::IfThenElse(in_range, s, hn::Load(d, ss));
    c = hn::IfThenElse(in_range, c, hn::Load(d, cs));
  }
}

// --- spatial operations (plx.hpp, motion.hpp, rigid_body_inertia.hpp), lane by lane ---

// E x and E^T x for a 3-vector.
HWY_INLINE void rotate(const V* E, const V* x, V* out) {
  for (int k = 0; k < 3; ++k) out[k] = E[3 * k] * x[0] + E[3 * k + 1] * x[1] + E[3 * k + 2] * x[2];
}
HWY_INLINE void rotateBack(const V* E, const V* x, V* out) {
  for (int k = 0; k < 3; ++k) out[k] = E[k] * x[0] + E[3 + k] * x[1] + E[6 + k] * x[2];
}
HWY_INLINE void cross(const V* a, const V* b, V* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// X m = [E w; E (v - r x w)].
HWY_INLINE Vec6 applyMotion(const Xform& X, const Vec6& m) {
  V rxw[3], t[3];
  cross(X.r, m.s, rxw);
  for (int k = 0; k < 3; ++k) t[k] = m.s[3 + k] - rxw[k];
  Vec6 out;
  rotate(X.E, m.s, out.s);
  rotate(X.E, t, out.s + 3);
  return out;
}
// X^T f = [E^T n + r x E^T f; E^T f].
HWY_INLINE Vec6 applyInverseForce(const Xform& X, const Vec6& f) {
  Vec6 out;
  V n[3], rxl[3];
  rotateBack(X.E, f.s + 3, out.s + 3);
  rotateBack(X.E, f.s, n);
  cross(X.r, out.s + 3, rxl);
  for (int k = 0; k < 3; ++k) out.s[k] = n[k] + rxl[k];
  return out;
}
// v x m = [w x mw; w x mv + vl x mw].
HWY_INLINE Vec6 crossMotion(const Vec6& v, const Vec6& m) {
  Vec6 out;
  V t[3];
  cross(v.s, m.s, out.s);
  cross(v.s, m.s + 3, out.s + 3);
  cross(v.s + 3, m.s, t);
  for (int k = 0; k < 3; ++k) out.s[3 + k] = out.s[3 + k] + t[k];
  return out;
}
// v x* f = [w x n + vl x f; w x f].
HWY_INLINE Vec6 crossForce(const Vec6& v, const Vec6& f) {
  Vec6 out;
  V t[3];
  cross(v.s, f.s, out.s);
  cross(v.s + 3, f.s + 3, t);
  for (int k = 0; k < 3; ++k) out.s[k] = out.s[k] + t[k];
  cross(v.s, f.s + 3, out.s + 3);
  return out;
}
// I m for a rigid body: p = mass (v - c x w); [Ic w + c x p; p].
HWY_INLINE Vec6 rigidTimes(const PackBody& B, const Vec6& m) {
  const V c[3] = {bc(B.com[0]), bc(B.com[1]), bc(B.com[2])};
  V cxw[3], cxp[3];
  cross(c, m.s, cxw);
  Vec6 out;
  const V mass = bc(B.mass);
  for (int k = 0; k < 3; ++k) out.s[3 + k] = mass * (m.s[3 + k] - cxw[k]);
  cross(c, out.s + 3, cxp);
  for (int k = 0; k < 3; ++k) {
    out.s[k] = bc(B.Ic[3 * k]) * m.s[0] + bc(B.Ic[3 * k + 1]) * m.s[1] + bc(B.Ic[3 * k + 2]) * m.s[2] + cxp[k];
  }
  return out;
}
// I m for a symmetric 6 x 6 matrix.
HWY_INLINE Vec6 symTimes(const Sym6& I, const Vec6& m) {
  Vec6 out;
  for (int r = 0; r < 6; ++r) {
    V sum = I.m[sym(r, 0)] * m.s[0];
    for (int c = 1; c < 6; ++c) sum = sum + I.m[sym(r, c)] * m.s[c];
    out.s[r] = sum;
  }
  return out;
}
// R^T S R for a symmetric 3 x 3 S (full, row-major) and a rotation R (row-major): one triangle, mirrored.
HWY_INLINE void symmetricCongruence(const V* R, const V* S, V* out) {
  V T[9];  // S R
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) T[3 * r + c] = S[3 * r] * R[c] + S[3 * r + 1] * R[3 + c] + S[3 * r + 2] * R[6 + c];
  }
  for (int c = 0; c < 3; ++c) {
    for (int k = c; k < 3; ++k) {
      out[3 * k + c] = out[3 * c + k] = R[k] * T[c] + R[3 + k] * T[3 + c] + R[6 + k] * T[6 + c];
    }
  }
}
// I += X^T Ia X for symmetric 6 x 6 inertias, in 3 x 3 blocks as Plx::applyInverse(ArticulatedBodyInertia):
//   A' = E^T A E, B' = E^T B E, C' = E^T C E;  A'' = A' - B' rx - (B' rx)^T - rx C' rx, B'' = B' + rx C', C'' = C'.
HWY_INLINE void addApplyInverse(const Xform& X, const Sym6& Ia, Sym6& I) {
  V A0[9], C0[9], B0[9], A[9], C[9], B[9], EB[9];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      A0[3 * r + c] = Ia.m[sym(r, c)];
      C0[3 * r + c] = Ia.m[sym(3 + r, 3 + c)];
      B0[3 * r + c] = Ia.m[sym(r, 3 + c)];
    }
  }
  symmetricCongruence(X.E, A0, A);
  symmetricCongruence(X.E, C0, C);
  for (int r = 0; r < 3; ++r) {  // E^T B
    for (int c = 0; c < 3; ++c) EB[3 * r + c] = X.E[r] * B0[c] + X.E[3 + r] * B0[3 + c] + X.E[6 + r] * B0[6 + c];
  }
  for (int r = 0; r < 3; ++r) {  // (E^T B) E
    for (int c = 0; c < 3; ++c) B[3 * r + c] = EB[3 * r] * X.E[c] + EB[3 * r + 1] * X.E[3 + c] + EB[3 * r + 2] * X.E[6 + c];
  }
  V rxC[9], Brx[9];  // rx C' column by column; B' rx row by row, as b_k^T rx = (b_k x r)^T
  for (int k = 0; k < 3; ++k) {
    const V Ck[3] = {C[k], C[3 + k], C[6 + k]};
    V col[3];
    cross(X.r, Ck, col);
    for (int r = 0; r < 3; ++r) rxC[3 * r + k] = col[r];
    cross(B + 3 * k, X.r, Brx + 3 * k);
  }
  for (int c = 0; c < 3; ++c) {
    V rxCrx_c[3];  // row c of rx C' rx: (row c of rx C') x r
    cross(rxC + 3 * c, X.r, rxCrx_c);
    for (int k = c; k < 3; ++k) {
      V& out = I.m[sym(k, c)];
      out = out + A[3 * k + c] - Brx[3 * k + c] - Brx[3 * c + k] - rxCrx_c[k];
    }
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      V& out = I.m[sym(3 + r, c)];  // B''^T (r, c) = B''(c, r)
      out = out + B[3 * c + r] + rxC[3 * c + r];
    }
    for (int c = 0; c <= r; ++c) {
      V& out = I.m[sym(3 + r, 3 + c)];
      out = out + C[3 * r + c];
    }
  }
}

// --- the joint (joint.hpp's jcalc), lane by lane ---

// The rotation E = c 1 + s ax + (1 - c) a a^T about a constant unit axis a (rotationAboutUnitAxis).
HWY_INLINE void rotationAboutAxis(const double* a, V c, V s, V* E) {
  const V one_minus_c = bc(1.0) - c;
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) E[3 * r + k] = one_minus_c * bc(a[r] * a[k]);
    E[4 * r] = E[4 * r] + c;
  }
  E[1] = E[1] - s * bc(a[2]);
  E[2] = E[2] + s * bc(a[1]);
  E[3] = E[3] + s * bc(a[2]);
  E[5] = E[5] - s * bc(a[0]);
  E[6] = E[6] - s * bc(a[1]);
  E[7] = E[7] + s * bc(a[0]);
}

// E = R^T for the unit quaternion (w, x, y, z) (Eigen's toRotationMatrix, transposed).
HWY_INLINE void quaternionRotationTransposed(V w, V x, V y, V z, V* E) {
  const V tx = x + x, ty = y + y, tz = z + z;
  const V twx = tx * w, twy = ty * w, twz = tz * w;
  const V txx = tx * x, txy = ty * x, txz = tz * x;
  const V tyy = ty * y, tyz = tz * y, tzz = tz * z;
  const V one = bc(1.0);
  E[0] = one - (tyy + tzz);
  E[3] = txy - twz;
  E[6] = txz + twy;
  E[1] = txy + twz;
  E[4] = one - (txx + tzz);
  E[7] = tyz - twx;
  E[2] = txz - twy;
  E[5] = tyz + twx;
  E[8] = one - (txx + tyy);
}

HWY_INLINE V input(const double* x, int j) { return hn::Load(D(), x + static_cast<size_t>(j) * hn::Lanes(D())); }

// The velocity product of a floating joint's armature a, [0; a (w x v)] over its six coordinates (v = [w; v]
// in the child frame; joint_ops.hpp derives it), into out[0 .. B.nv - 1]; zeros for other joints.
HWY_INLINE void floatingArmatureProduct(const PackModel& model, const PackBody& B, const DynamicsOptions& options,
                                        const double* v, V* out) {
  for (int k = 0; k < B.nv; ++k) out[k] = zero();
  if (!options.armature || B.type != JointType::Floating || model.armature[B.idx_v + 3] == 0.0) return;
  const V w[3] = {input(v, B.idx_v), input(v, B.idx_v + 1), input(v, B.idx_v + 2)};
  const V l[3] = {input(v, B.idx_v + 3), input(v, B.idx_v + 4), input(v, B.idx_v + 5)};
  V wxl[3];
  cross(w, l, wxl);
  for (int c = 0; c < 3; ++c) out[3 + c] = bc(model.armature[B.idx_v + 3]) * wxl[c];
}
// Adds sign times the joint spring's force (the law of addJointSpringForce, joint_ops.hpp) to out[0 .. B.nv - 1].
// One-coordinate and planar joints lane by lane in the vectors; a quaternion's rotation vector (atan2 of
// a norm) by the scalar law on each lane's own coordinates, which keeps lanes independent.
void addSpringForce(const PackModel& model, const PackBody& B, double sign, const double* q, V* out) {
  const D d;
  const double k = sign * B.stiffness;
  const double* qs = model.spring_reference.data() + B.idx_q;
  if (B.type != JointType::Spherical && B.type != JointType::Floating) {
    for (int c = 0; c < B.nv; ++c) out[c] = out[c] - bc(k) * (input(q, B.idx_q + c) - bc(qs[c]));
    return;
  }
  const int nq = B.type == JointType::Floating ? 7 : 4;
  HWY_ALIGN double coordinates[7][kLanesMax], force[6][kLanesMax];
  for (int c = 0; c < nq; ++c) hn::Store(input(q, B.idx_q + c), d, coordinates[c]);
  for (int c = 0; c < B.nv; ++c) hn::Store(out[c], d, force[c]);
  for (size_t l = 0; l < hn::Lanes(d); ++l) {
    double qj[7], tau[6];
    for (int c = 0; c < nq; ++c) qj[c] = coordinates[c][l];
    for (int c = 0; c < B.nv; ++c) tau[c] = force[c][l];
    addJointSpringForce(B.type, B.nv, k, qj, qs, tau);
    for (int c = 0; c < B.nv; ++c) force[c][l] = tau[c];
  }
  for (int c = 0; c < B.nv; ++c) out[c] = hn::Load(d, force[c]);
}
HWY_INLINE void output(V value, double* x, int j) { hn::Store(value, D(), x + static_cast<size_t>(j) * hn::Lanes(D())); }

// X_up = X_J(q) X_tree (jointTransformTimes): axis-aligned revolute joints mix two rows of E_tree, axis-aligned
// prismatic ones shift r_tree; every other joint builds X_J and multiplies, plx(E1, r1) plx(E2, r2) = plx(E1 E2, E2^T r1 + r2).
Xform jointTransformTimes(const PackBody& B, const double* q) {
  const double* ET = B.E_tree;
  Xform X;
  switch (B.type) {
    case JointType::RevoluteX:
    case JointType::RevoluteY:
    case JointType::RevoluteZ: {
      const int a = B.type == JointType::RevoluteX ? 0 : B.type == JointType::RevoluteY ? 1 : 2;
      const int b = (a + 1) % 3, c3 = (a + 2) % 3;
      V c, s;
      sinCos(input(q, B.idx_q), s, c);
      for (int k = 0; k < 3; ++k) {
        X.E[3 * a + k] = bc(ET[3 * a + k]);
        X.E[3 * b + k] = c * bc(ET[3 * b + k]) + s * bc(ET[3 * c3 + k]);
        X.E[3 * c3 + k] = c * bc(ET[3 * c3 + k]) - s * bc(ET[3 * b + k]);
        X.r[k] = bc(B.r_tree[k]);
      }
      return X;
    }
    case JointType::PrismaticX:
    case JointType::PrismaticY:
    case JointType::PrismaticZ: {
      const int a = B.type == JointType::PrismaticX ? 0 : B.type == JointType::PrismaticY ? 1 : 2;
      const V x = input(q, B.idx_q);
      for (int k = 0; k < 9; ++k) X.E[k] = bc(ET[k]);
      for (int k = 0; k < 3; ++k) X.r[k] = bc(B.r_tree[k]) + x * bc(ET[3 * a + k]);
      return X;
    }
    default:
      break;
  }
  V EJ[9], rJ[3];
  switch (B.type) {
    case JointType::Revolute:
    case JointType::Helical: {
      V c, s;
      const V angle = input(q, B.idx_q);
      sinCos(angle, s, c);
      rotationAboutAxis(B.axis, c, zero() - s, EJ);
      const V shift = angle * bc(B.type == JointType::Helical ? B.pitch : 0.0);
      for (int k = 0; k < 3; ++k) rJ[k] = shift * bc(B.axis[k]);
      break;
    }
    case JointType::Prismatic: {
      const V x = input(q, B.idx_q);
      for (int k = 0; k < 9; ++k) EJ[k] = bc(k % 4 == 0 ? 1.0 : 0.0);
      for (int k = 0; k < 3; ++k) rJ[k] = x * bc(B.axis[k]);
      break;
    }
    case JointType::Spherical:
      quaternionRotationTransposed(input(q, B.idx_q), input(q, B.idx_q + 1), input(q, B.idx_q + 2),
                                   input(q, B.idx_q + 3), EJ);
      for (V& x : rJ) x = zero();
      break;
    case JointType::Planar: {
      V c, s;
      sinCos(input(q, B.idx_q + 2), s, c);
      rotationAboutAxis(B.axis, c, zero() - s, EJ);
      const V x = input(q, B.idx_q), y = input(q, B.idx_q + 1);
      for (int k = 0; k < 3; ++k) rJ[k] = x * bc(B.axis2[k]) + y * bc(B.axis3[k]);
      break;
    }
    default:  // floating: q = (position, quaternion)
      quaternionRotationTransposed(input(q, B.idx_q + 3), input(q, B.idx_q + 4), input(q, B.idx_q + 5),
                                   input(q, B.idx_q + 6), EJ);
      for (int k = 0; k < 3; ++k) rJ[k] = input(q, B.idx_q + k);
      break;
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      X.E[3 * r + c] = EJ[3 * r] * bc(ET[c]) + EJ[3 * r + 1] * bc(ET[3 + c]) + EJ[3 * r + 2] * bc(ET[6 + c]);
    }
    X.r[r] = bc(ET[r]) * rJ[0] + bc(ET[3 + r]) * rJ[1] + bc(ET[6 + r]) * rJ[2] + bc(B.r_tree[r]);
  }
  return X;
}

// m += S_k x: a pick where S_k = +-e_a.
HWY_INLINE void addColumn(const PackBody& B, int k, V x, Vec6& m) {
  const int a = B.pick[k];
  if (a >= 0) {
    m.s[a] = B.pick_sign[k] > 0.0 ? m.s[a] + x : m.s[a] - x;
  } else {
    for (int r = 0; r < 6; ++r) m.s[r] = m.s[r] + bc(B.S[6 * k + r]) * x;
  }
}
// Calls f(std::integral_constant<int, a>) with a the index of a one-DoF joint's unit column S = +-e_a, or
// a = -1 for other joints, so that the steps below index their vectors at compile time and keep them in
// registers (a run-time index sends a vector to the stack and back).
template <class F>
HWY_INLINE void withPick(const PackBody& B, const F& f) {
  switch (B.nv == 1 ? B.pick[0] : -1) {
    case 0: return f(std::integral_constant<int, 0>());
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 3: return f(std::integral_constant<int, 3>());
    case 4: return f(std::integral_constant<int, 4>());
    case 5: return f(std::integral_constant<int, 5>());
    default: return f(std::integral_constant<int, -1>());
  }
}

// vJ = S x: for a pick (a >= 0), x e_a with S's sign; else the product.
template <int a>
HWY_INLINE Vec6 jointMotion(const PackBody& B, const double* x) {
  Vec6 m = zeroVec6();
  if constexpr (a >= 0) {
    m.s[a] = bc(B.pick_sign[0]) * input(x, B.idx_v);
  } else {
    for (int k = 0; k < B.nv; ++k) addColumn(B, k, input(x, B.idx_v + k), m);
  }
  return m;
}

// out += v x vJ (crossMotion). For a pick, vJ = x e_a has one entry, and v x (x e_a) four nonzero ones:
// (u x e_k)[k + 1] = u[k + 2], (u x e_k)[k + 2] = -u[k + 1] (indices mod 3), k = a mod 3.
template <int a>
HWY_INLINE void addCrossJointMotion(const Vec6& v, const Vec6& vJ, Vec6& out) {
  if constexpr (a >= 0) {
    constexpr int k = a % 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    const V x = vJ.s[a];
    const int o = a < 3 ? 0 : 3;  // w x e_k x lands in the angular rows for an angular pick, else the linear ones
    out.s[o + k1] = hn::MulAdd(v.s[k2], x, out.s[o + k1]);
    out.s[o + k2] = hn::NegMulAdd(v.s[k1], x, out.s[o + k2]);
    if constexpr (a < 3) {  // + [0; vl x e_k x]
      out.s[3 + k1] = hn::MulAdd(v.s[3 + k2], x, out.s[3 + k1]);
      out.s[3 + k2] = hn::NegMulAdd(v.s[3 + k1], x, out.s[3 + k2]);
    }
  } else {
    const Vec6 c = crossMotion(v, vJ);
    for (int r = 0; r < 6; ++r) out.s[r] = out.s[r] + c.s[r];
  }
}

// S_k^T f: a product even where S_k is a pick, as projectForce (joint_ops.hpp) and ArticulatedStep::bias.
HWY_INLINE V columnDot(const PackBody& B, int k, const Vec6& f) {
  V sum = bc(B.S[6 * k]) * f.s[0];
  for (int r = 1; r < 6; ++r) sum = sum + bc(B.S[6 * k + r]) * f.s[r];
  return sum;
}
// S_k^T F as a pick where S_k = +-e_a (the mass matrix's and D's entries).
HWY_INLINE V columnPick(const PackBody& B, int k, const Vec6& F) {
  const int a = B.pick[k];
  if (a < 0) return columnDot(B, k, F);
  return B.pick_sign[k] > 0.0 ? F.s[a] : zero() - F.s[a];
}

// packWorkDoublesPerLane counts these sizes in doubles per lane.
static_assert(sizeof(BodyLanes) == 57 * sizeof(V) && sizeof(DofLanes) == 14 * sizeof(V), "packWorkDoublesPerLane");

BodyLanes* bodyLanes(double* work) { return std::launder(reinterpret_cast<BodyLanes*>(work)); }
DofLanes* dofLanes(const PackModel& model, double* work) {
  return std::launder(reinterpret_cast<DofLanes*>(work + model.bodies.size() * sizeof(BodyLanes) / sizeof(double)));
}

// --- the algorithms ---

// RNEA (rnea.cpp): v_i, a_i (from a_0 = -gravity), f_i in body-i coordinates.
void rneaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
              const double* qdd, double* tau) {
  BodyLanes* body = bodyLanes(work);
  const int n = static_cast<int>(model.bodies.size());
  body[0].v = zeroVec6();
  for (int r = 0; r < 6; ++r) body[0].a.s[r] = bc(model.minus_gravity[r]);
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
      if (options.armature) t = t + bc(model.armature[dof]) * input(qdd, dof) + armature_product[k];
      if (options.damping) {
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
// composite inertia Ic_i moved once into the coordinates of r, the body at the top of i's subtree, entry
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

}  // namespace

const PackKernels* Kernels() {
  static const PackKernels kernels{hwy::TargetName(HWY_TARGET), static_cast<int>(hn::Lanes(D())), &abaPack, &rneaPack,
                                   &crbaPack};
  return &kernels;
}

}  // namespace abdyn::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace abdyn::internal {

HWY_EXPORT(Kernels);

const PackKernels& packKernels() { return *HWY_DYNAMIC_DISPATCH(Kernels)(); }

std::size_t packWorkDoublesPerLane(const PackModel& model) {
  // BodyLanes and DofLanes in doubles per lane (their sizes over W).
  constexpr std::size_t kBody = 12 + 4 * 6 + 21, kDof = 6 + 6 + 2;
  return model.bodies.size() * kBody + static_cast<std::size_t>(model.nv) * kDof;
}

}  // namespace abdyn::internal
#endif
