// The lane operations shared by the pack kernels (pack_aba.cpp, pack_rnea.cpp, pack_crba.cpp): spatial
// algebra and the joint's transform on a lane vector V, one state per SIMD lane. A Highway "-inl" header:
// each kernel file includes it once per instruction set (foreach_target), inside that target's
// HWY_NAMESPACE and target attributes, so the guard below toggles instead of guarding once. Every
// operation acts lane by lane, so a state's result depends only on its own inputs, never on its lane or
// on the other states of its pack. The algorithms follow the single-state ones line for line (rnea.cpp,
// aba.cpp, crba.cpp; their glossaries apply).
//
// Spatial vectors are [angular; linear]; E is stored row-major; symmetric 6 x 6 matrices (IA, Ic) by
// their lower triangle (sym()).

#include <cmath>
#include <new>
#include <type_traits>

#include "algorithms/joint_ops.hpp"
#include "algorithms/pack_dynamics.hpp"

#if defined(ABDYN_PACK_LANES_INL_HPP) == defined(HWY_TARGET_TOGGLE)
#ifdef ABDYN_PACK_LANES_INL_HPP
#undef ABDYN_PACK_LANES_INL_HPP
#else
#define ABDYN_PACK_LANES_INL_HPP
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace abdyn::internal::HWY_NAMESPACE {

// The kernels of this target, one file each (pack_aba.cpp, pack_rnea.cpp, pack_crba.cpp); PackKernels
// documents them.
bool abaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
             const double* tau, double* qdd, PackFailure* failure);
void rneaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
              const double* qdd, double* tau);
void crbaPack(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, double* M);

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

inline Vec6 zeroVec6() {
  Vec6 out;
  for (V& x : out.s) x = zero();
  return out;
}

// sin and cos lane by lane, sharing one range reduction: x = q pi/2 + r with q the integer nearest to
// x 2/pi and |r| <= pi/4, r by Cody and Waite's four-part pi/2 (Highway's constants, exact for |x| <= 39000);
// sin r and cos r by their Taylor series to r^17 and r^16 (the first terms left out are below 0.05 ulp
// on |r| <= pi/4), then swapped and negated by q mod 4. The C library's beyond |x| = 39000 (and for non-finite
// x), so that each lane's result depends on its own x only.
HWY_INLINE void sinCos(V x, V& s, V& c) {
  const D d;
  const hn::RebindToSigned<D> di;
  // x 2/pi + 1.5 2^52 rounds to an integer whose low bits hold q mod 4 (an exact integer for |x| < 2^50).
  const V shifter = bc(6755399441055744.0);
  const V t = hn::MulAdd(x, bc(0.63661977236758134308), shifter);
  const V q = t - shifter;
  V r = hn::MulAdd(q, bc(-0.5 * 3.1415926218032836914), x);
  r = hn::MulAdd(q, bc(-0.5 * 3.1786509424591713469e-8), r);
  r = hn::MulAdd(q, bc(-0.5 * 1.2246467864107188502e-16), r);
  r = hn::MulAdd(q, bc(-0.5 * 1.2736634327021899816e-24), r);
  const V r2 = r * r;
  // Horner in r^2: sin r = r (1 - r^2/3! (1 - r^2/(4 5) (...))) and cos r = 1 - r^2/2! (1 - ...), as
  // coefficients 1/n! with alternating signs.
  constexpr double kInverseFactorial[18] = {1.0,
                                            1.0,
                                            1.0 / 2,
                                            1.0 / 6,
                                            1.0 / 24,
                                            1.0 / 120,
                                            1.0 / 720,
                                            1.0 / 5040,
                                            1.0 / 40320,
                                            1.0 / 362880,
                                            1.0 / 3628800,
                                            1.0 / 39916800,
                                            1.0 / 479001600,
                                            1.0 / 6227020800.0,
                                            1.0 / 87178291200.0,
                                            1.0 / 1307674368000.0,
                                            1.0 / 20922789888000.0,
                                            1.0 / 355687428096000.0};
  V ps = bc(kInverseFactorial[17]), pc = bc(kInverseFactorial[16]);
  for (int n = 15; n >= 3; n -= 2) ps = hn::MulAdd(ps, r2, bc((n / 2) % 2 ? -kInverseFactorial[n] : kInverseFactorial[n]));
  for (int n = 14; n >= 4; n -= 2) pc = hn::MulAdd(pc, r2, bc((n / 2) % 2 ? -kInverseFactorial[n] : kInverseFactorial[n]));
  const V sr = hn::MulAdd(r * r2, ps, r);
  // cos r = w + ((1 - w) - r^2/2 + r^4 pc) with w = 1 - r^2/2 rounded: the rounding error of w recovered
  // exactly (fdlibm's kernel_cos does the same), so cos r is nearly correctly rounded.
  const V half_r2 = bc(0.5) * r2, w = bc(1.0) - half_r2;
  const V cr = w + hn::MulAdd(r2 * r2, pc, (bc(1.0) - w) - half_r2);
  const auto bits = hn::BitCast(di, t);
  const auto odd = hn::RebindMask(d, hn::And(bits, hn::Set(di, 1)) != hn::Zero(di));
  const auto sign = hn::Set(di, static_cast<int64_t>(uint64_t{1} << 63));
  // sin x = (sin r, cos r, -sin r, -cos r) and cos x = (cos r, -sin r, -cos r, sin r) for q mod 4 = 0 .. 3.
  const V sin_sign = hn::BitCast(d, hn::And(hn::ShiftLeft<62>(bits), sign));
  const V cos_sign = hn::BitCast(d, hn::And(hn::ShiftLeft<62>(hn::Add(bits, hn::Set(di, 1))), sign));
  s = hn::Xor(hn::IfThenElse(odd, cr, sr), sin_sign);
  c = hn::Xor(hn::IfThenElse(odd, sr, cr), cos_sign);
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
// I m for a rigid body, by the blocks of its 6 x 6 matrix about the body origin (B.I):
// [I_o w + h x v; mass v - h x w] with h = mass c, each component a chain of fused multiply-adds.
HWY_INLINE Vec6 rigidTimes(const PackBody& B, const Vec6& m) {
  const V h[3] = {bc(B.mass * B.com[0]), bc(B.mass * B.com[1]), bc(B.mass * B.com[2])};
  const V* w = m.s;
  const V* v = m.s + 3;
  Vec6 out;
  for (int k = 0; k < 3; ++k) {
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    V n = bc(B.I[sym(k, 0)]) * w[0];
    n = hn::MulAdd(bc(B.I[sym(k, 1)]), w[1], n);
    n = hn::MulAdd(bc(B.I[sym(k, 2)]), w[2], n);
    n = hn::MulAdd(h[k1], v[k2], n);
    out.s[k] = hn::NegMulAdd(h[k2], v[k1], n);
    const V p = hn::MulAdd(bc(B.mass), v[k], h[k2] * w[k1]);
    out.s[3 + k] = hn::NegMulAdd(h[k1], w[k2], p);
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
inline void addSpringForce(const PackModel& model, const PackBody& B, double sign, const double* q, V* out) {
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
inline Xform jointTransformTimes(const PackBody& B, const double* q) {
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
// S_k^T f for column k of a joint that withPick gave a: a pick (a >= 0, a one-DoF joint), else the product.
template <int a>
HWY_INLINE V jointForce(const PackBody& B, int k, const Vec6& f) {
  if constexpr (a >= 0) {
    return B.pick_sign[0] > 0.0 ? f.s[a] : zero() - f.s[a];
  } else {
    return columnDot(B, k, f);
  }
}
// S_k^T F as a pick where S_k = +-e_a (the mass matrix's and D's entries).
HWY_INLINE V columnPick(const PackBody& B, int k, const Vec6& F) {
  const int a = B.pick[k];
  if (a < 0) return columnDot(B, k, F);
  return B.pick_sign[k] > 0.0 ? F.s[a] : zero() - F.s[a];
}

// packWorkDoublesPerLane counts these sizes in doubles per lane.
static_assert(sizeof(BodyLanes) == 57 * sizeof(V) && sizeof(DofLanes) == 14 * sizeof(V), "packWorkDoublesPerLane");

inline BodyLanes* bodyLanes(double* work) { return std::launder(reinterpret_cast<BodyLanes*>(work)); }
inline DofLanes* dofLanes(const PackModel& model, double* work) {
  return std::launder(reinterpret_cast<DofLanes*>(work + model.bodies.size() * sizeof(BodyLanes) / sizeof(double)));
}

}  // namespace
}  // namespace abdyn::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ABDYN_PACK_LANES_INL_HPP
