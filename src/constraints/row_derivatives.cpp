#include "constraints/row_derivatives.hpp"

#include <cmath>
#include <utility>

#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "constraints/shape_distance.hpp"

// Glossary (docs/derivatives.md, section 8): s_j = [w_j; v_j] coordinate j's world column (about the world
// origin); chi_X(j) = 1 when j is on the path of body X (root to X); a point p fixed on body X moves by
// dp = chi_X(j) (v_j + w_j x p) along q_j and a direction n fixed on X turns by dn = chi_X(j) w_j x n;
// omega_X = chi_X(j) w_j is X's rotation along q_j. A row of joint frames A, B (origins p_A, p_B, axes R_A, R_B
// in world coordinates, z the joint axis) has the wrench f = [p x n; n] (linear, direction n at p) or [a; 0]
// (angular, about a), so df = [dp x n + p x dn; dn] or [da; 0].

namespace abdyn::internal {

PairRowDerivative::PairRowDerivative(const Model& model)
    : df(Matrix6X::Zero(6, model.nv())),
      dC(Eigen::VectorXd::Zero(model.nv())),
      path(static_cast<std::size_t>(model.nv()), 0) {
  coordinates.reserve(static_cast<std::size_t>(model.nv()));
}

namespace {

// Marks the coordinates on the paths of A and B (bit 1, bit 2) and lists them, clearing the last row's marks.
void markPaths(const Model& model, int body_a, int body_b, PairRowDerivative& d) {
  for (const int j : d.coordinates) d.path[static_cast<std::size_t>(j)] = 0;
  d.coordinates.clear();
  d.body_a = body_a;
  d.body_b = body_b;
  for (const auto& [body, bit] : {std::pair<int, unsigned char>{body_a, 1}, std::pair<int, unsigned char>{body_b, 2}}) {
    for (int i = body; i > 0; i = model.parent(i)) {
      const Joint& joint = model.joint(i);
      for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
        unsigned char& mark = d.path[static_cast<std::size_t>(j)];
        if (mark == 0) d.coordinates.push_back(j);
        mark |= bit;
      }
    }
  }
}

Vector3 turn(const Vector3& w, bool on, const Vector3& n) { return on ? Vector3(w.cross(n)) : Vector3::Zero(); }
Vector3 move(const Vector3& w, const Vector3& v, bool on, const Vector3& p) { return on ? Vector3(v + w.cross(p)) : Vector3::Zero(); }

}  // namespace

bool rowJointDerivative(const Model& model, const Data& data, const RowJoint& joint, int offset, PairRowDerivative& d) {
  markPaths(model, joint.body_a, joint.body_b, d);
  const auto frame = [&](int body, const Plx& X_frame_body) {
    return body == 0 ? X_frame_body : X_frame_body * data.X_body_world[static_cast<std::size_t>(body)];
  };
  const Plx Xa = frame(joint.body_a, joint.X_frame_a), Xb = frame(joint.body_b, joint.X_frame_b);
  const Matrix3 R_a = Xa.E().transpose(), R_b = Xb.E().transpose();
  const Vector3 p_a = Xa.r(), p_b = Xb.r();
  const Vector3 z_a = R_a.col(2), z_b = R_b.col(2);
  const Matrix6X& S = data.S_world;
  // The row's kind: a linear row along n at p_a, or an angular row about a; then per coordinate dn (or da)
  // and dC, from the closures below.
  enum class Kind { WorldLinear, FrameLinear, Distance, HingeAngular, AlignAngular, Swing, TwistLower, TwistUpper };
  Kind kind = Kind::WorldLinear;
  int axis = 0;
  const bool has_limits = std::isfinite(joint.swing_limit) || std::isfinite(joint.twist_lower) || std::isfinite(joint.twist_upper);
  // The joint's first n rows are of kind `first`, the rest of kind `rest`; axis counts within each kind.
  const auto split = [&](int n, Kind first, Kind rest) {
    kind = offset < n ? first : rest;
    axis = offset < n ? offset : offset - n;
  };
  switch (joint.type) {
    case RowJointType::Ball:
      if (offset > 2 && offset < 6) return false;
      kind = Kind::WorldLinear;
      axis = offset;
      break;
    case RowJointType::Hinge:
      split(3, Kind::WorldLinear, Kind::HingeAngular);
      break;
    case RowJointType::Slider:
      split(2, Kind::FrameLinear, Kind::AlignAngular);
      break;
    case RowJointType::Fixed:
      split(3, Kind::WorldLinear, Kind::AlignAngular);
      break;
    case RowJointType::Distance:
      if (offset != 0 && offset < 6) return false;
      kind = Kind::Distance;
      break;
  }
  if (offset >= 6) {
    if (!has_limits) return false;
    kind = offset == 6 ? Kind::Swing : offset == 7 ? Kind::TwistLower : Kind::TwistUpper;
  }
  // Quantities of the rotational rows.
  const Vector3 normal = z_b.cross(z_a);
  const double normal_norm = normal.norm();
  const Vector3 mean = z_a + z_b;
  const double mean_norm = mean.norm();
  Vector3 n_hat = Vector3::Zero(), a_hat = Vector3::Zero(), phi = Vector3::Zero();
  Matrix3 Jl_inv = Matrix3::Identity(), R = Matrix3::Identity();
  Quaternion q_rel;
  if (kind == Kind::Swing) {
    if (!(normal_norm > 1e-12)) return false;
    n_hat = normal / normal_norm;
  } else if (kind == Kind::TwistLower || kind == Kind::TwistUpper) {
    if (!(mean_norm >= 1e-9)) return false;
    a_hat = mean / mean_norm;
    q_rel = Quaternion::fromRotationMatrix(R_a.transpose() * R_b);
  } else if (kind == Kind::AlignAngular) {
    R = R_a * R_b.transpose();
    phi = logSO3(R);
    Jl_inv = rightJacobianInverseSO3(-phi);  // Jl(phi)^-1: d log(exp(delta) R) = Jl^-1(phi) delta
  }
  const Vector3 gap = p_a - p_b;
  const double distance = gap.norm();
  if (kind == Kind::Distance && !(distance > 1e-12)) return false;
  const Vector3 u = kind == Kind::Distance ? Vector3(gap / distance) : Vector3::Zero();
  // The row's direction (linear) or axis (angular), as row_joints.cpp builds it.
  Vector3 n = Vector3::Zero();
  bool linear = true;
  switch (kind) {
    case Kind::WorldLinear: n = Vector3::Unit(axis); break;
    case Kind::FrameLinear: n = R_a.col(axis); break;
    case Kind::Distance: n = u; break;
    case Kind::HingeAngular: n = R_a.col(axis); linear = false; break;
    case Kind::AlignAngular: n = Vector3::Unit(axis); linear = false; break;
    case Kind::Swing: n = -n_hat; linear = false; break;
    case Kind::TwistLower: n = -a_hat; linear = false; break;
    case Kind::TwistUpper: n = a_hat; linear = false; break;
  }
  if (linear) d.f << p_a.cross(n), n;
  else d.f << n, Vector3::Zero();
  for (const int j : d.coordinates) {
    const unsigned char mark = d.path[static_cast<std::size_t>(j)];
    const bool on_a = (mark & 1) != 0, on_b = (mark & 2) != 0;
    const Vector3 w = S.col(j).head<3>(), v = S.col(j).tail<3>();
    const Vector3 dp_a = move(w, v, on_a, p_a), dp_b = move(w, v, on_b, p_b);
    const Vector3 omega_a = on_a ? w : Vector3::Zero(), omega_b = on_b ? w : Vector3::Zero();
    Vector3 dn = Vector3::Zero();
    double dC = 0.0;
    switch (kind) {
      case Kind::WorldLinear:  // C = n . (p_A - p_B)
        dC = n.dot(dp_a - dp_b);
        break;
      case Kind::FrameLinear:  // n on A
        dn = turn(w, on_a, n);
        dC = dn.dot(gap) + n.dot(dp_a - dp_b);
        break;
      case Kind::Distance: {  // u = (p_A - p_B) / |p_A - p_B|, C = |p_A - p_B| - length
        const Vector3 dgap = dp_a - dp_b;
        dn = (dgap - u * u.dot(dgap)) / distance;
        dC = u.dot(dgap);
        break;
      }
      case Kind::HingeAngular:  // C = t . (z_B x z_A), t on A
        dn = turn(w, on_a, n);
        dC = dn.dot(normal) + n.dot(turn(w, on_b, z_b).cross(z_a) + z_b.cross(turn(w, on_a, z_a)));
        break;
      case Kind::AlignAngular:  // C = e . log(R_A R_B^T), R_A R_B^T moved by exp(omega_A - R omega_B) on the left
        dC = n.dot(Jl_inv * (omega_a - R * omega_b));
        break;
      case Kind::Swing: {  // C = swing_limit - theta, dtheta = n_hat . (omega_A - omega_B); axis -n_hat
        const Vector3 dnormal = turn(w, on_b, z_b).cross(z_a) + z_b.cross(turn(w, on_a, z_a));
        dn = -(dnormal - n_hat * n_hat.dot(dnormal)) / normal_norm;
        dC = -n_hat.dot(omega_a - omega_b);
        break;
      }
      case Kind::TwistLower:
      case Kind::TwistUpper: {
        // psi = 2 atan2(q_z, q_w) of R_A^T R_B, moved on the left by exp(R_A^T (omega_B - omega_A)):
        // dq = [0; o / 2] q, so dq_w = -o . q_v / 2 and dq_v = (q_w o + o x q_v) / 2.
        const Vector3 o = R_a.transpose() * (omega_b - omega_a);
        const double dqw = -0.5 * o.dot(q_rel.vec());
        const double dqz = 0.5 * (q_rel.w() * o.z() + o.cross(q_rel.vec()).z());
        const double dpsi = 2.0 * (q_rel.w() * dqz - q_rel.z() * dqw) / (q_rel.w() * q_rel.w() + q_rel.z() * q_rel.z());
        const Vector3 dmean = turn(w, on_a, z_a) + turn(w, on_b, z_b);
        const Vector3 da = (dmean - a_hat * a_hat.dot(dmean)) / mean_norm;
        dn = kind == Kind::TwistUpper ? da : Vector3(-da);
        dC = kind == Kind::TwistUpper ? -dpsi : dpsi;  // C = upper - psi, or psi - lower
        break;
      }
    }
    if (linear) d.df.col(j) << dp_a.cross(n) + p_a.cross(dn), dn;
    else d.df.col(j) << dn, Vector3::Zero();
    d.dC[j] = dC;
  }
  return true;
}

// A body contact (row_contacts.hpp, addBodyContactRows): candidate point x of shape A (a sphere's centre,
// inflation r_A its radius; a box corner; a cylinder's rim point) against shape B's signed distance at x, in B's
// coordinates l = R_B^T (x - o_B), which moves by delta = R_B^T (dx - chi_B (v_j + w_j x x)) (x against B's
// material). For every shape B and branch, dist moves by ddist = n_l . delta and n_l by dn_l = N delta, with N:
//   sphere B           n_l = l / |l|, dist = |l| - r:                N = (1 - n_l n_l^T) / |l|
//   box B, outside     n_l = s o / |o|, o = max(|l| - e, 0) (e the half extents, s the signs of l), m the axes
//                      with o > 0 (one: a face; two: an edge; three: a corner):  N = (1 - n_l n_l^T) m / |o|
//   box B, inside      n_l = s_f e_f of the nearest face f:          N = 0
//   cylinder B (radius R_c, half length H_c, axis z): rho = |l_xy|, radial r = (l_x, l_y, 0) / rho, azimuthal
//   phi = z x r, axial z_s = sign(l_z) z; q_r = rho - R_c, q_z = |l_z| - H_c. r turns with the point's motion
//   around the axis: dr = phi (phi . delta) / rho.
//     outside          a = max(q_r, 0), b = max(q_z, 0), dist = |(a, b)|, n_l = (a r + b z_s) / dist: the side
//                      (b = 0), the cap (a = 0) or the rim edge (both > 0, n_l from the nearest rim point).
//                      d(a r + b z_s) = da r + db z_s + a dr, da = r . delta if a > 0, db = z_s . delta if b > 0:
//                      N = (1 - n_l n_l^T)(m_r r r^T + m_z z z^T) / dist + (a / (dist rho)) phi phi^T
//     inside           the nearer of side and cap: n_l = r, dist = q_r: N = phi phi^T / rho (the side's normal
//                      turns, unlike a box face's); n_l = z_s, dist = q_z: N = 0.
// A's point x moves by dx = chi_A (v_j + w_j x x) when fixed on A (sphere, box). A cylinder A's rim point
// x = e + R_c u (e its cap's centre o_A +- H_c a, a its axis, u = +-out or +-side) is built from toward
// g = unit(o_B - o_A), which moves with both bodies, as the ground's rim points are from -z (row_contacts.cpp):
//   dg = (1 - g g^T)(do_B - do_A) / |o_B - o_A|,  do_X = chi_X (v_j + w_j x o_X),  da = chi_A w_j x a,
//   y = g - (g . a) a,  dy = dg - (dg . a + g . da) a - (g . a) da,  out = y / |y|,  d out = (1 - out out^T) dy / |y|,
//   side = a x out,  d side = da x out + a x d out,  dx = chi_A (v_j + w_j x e) + R_c du.
// Then n = R_B n_l turns by dn = chi_B w_j x n + R_B dn_l, C = dist - r_A, the row's point p = x - r_A n moves
// by dx - r_A dn, and the friction directions t1 = n x e_s / |n x e_s| (e_s the axis n is least aligned with,
// as orthonormalComplement picks it), t2 = n x t1 turn with n.
namespace {

// Candidate point `point` of shape A (row_contacts.cpp's candidatePoints) with what its motion depends on.
struct ContactPoint {
  Vector3 x = Vector3::Zero();  // world coordinates
  double inflation = 0.0;       // a sphere's radius
  // A cylinder's rim point x = e + radius u, u = out, side, -out, -side (k = 0..3); else x is a point of A.
  bool rim = false;
  int k = 0;
  double radius = 0.0, between = 0.0, y_norm = 0.0;  // |o_B - o_A|, |g - (g . a) a|
  Vector3 e = Vector3::Zero(), axis = Vector3::Zero(), toward = Vector3::Zero(), out = Vector3::Zero();
};

// False for a rim point whose direction toward B is undefined or along the axis (candidatePoints then falls
// back to fixed directions, and the point jumps as the bodies move off that line).
bool contactPoint(const Geometry& shape, const Plx& X_shape_world, const Vector3& o_b, int point, ContactPoint& c) {
  const Matrix3 R = X_shape_world.E().transpose();
  const Vector3& o_a = X_shape_world.r();
  switch (shape.shape) {
    case ShapeType::Sphere:
      c.x = o_a;
      c.inflation = shape.size[0];
      return true;
    case ShapeType::Box: {
      const Vector3 corner(point & 1 ? 0.5 : -0.5, point & 2 ? 0.5 : -0.5, point & 4 ? 0.5 : -0.5);
      c.x = o_a + R * corner.cwiseProduct(shape.size);
      return true;
    }
    case ShapeType::Cylinder: {
      c.rim = true;
      c.k = point % 4;
      c.radius = shape.size[0];
      c.axis = R.col(2);
      c.e = o_a + (point < 4 ? -0.5 : 0.5) * shape.size[1] * c.axis;
      c.between = (o_b - o_a).norm();
      if (!(c.between > 1e-12)) return false;
      c.toward = (o_b - o_a) / c.between;
      const Vector3 y = c.toward - c.toward.dot(c.axis) * c.axis;
      c.y_norm = y.norm();
      if (!(c.y_norm > 1e-9)) return false;
      c.out = y / c.y_norm;
      const Vector3 side = c.axis.cross(c.out);
      const Vector3 u = c.k == 0 ? c.out : c.k == 1 ? side : c.k == 2 ? Vector3(-c.out) : Vector3(-side);
      c.x = c.e + c.radius * u;
      return true;
    }
    case ShapeType::Mesh:  // not collided (isCollidable, row_contacts.hpp)
    case ShapeType::Capsule:
    case ShapeType::Ellipsoid:
    case ShapeType::Plane:
      return false;
  }
  return false;
}

// dx of the candidate point along q_j (w, v: s_j's parts; on_a, on_b: chi_A(j), chi_B(j); o_a, o_b the shapes'
// origins).
Vector3 pointMotion(const ContactPoint& c, const Vector3& o_a, const Vector3& o_b, const Vector3& w, const Vector3& v,
                    bool on_a, bool on_b) {
  if (!c.rim) return move(w, v, on_a, c.x);
  const Vector3 dbetween = move(w, v, on_b, o_b) - move(w, v, on_a, o_a);
  const Vector3& g = c.toward;
  const Vector3& a = c.axis;
  const Vector3 dg = (dbetween - g * g.dot(dbetween)) / c.between;
  const Vector3 da = turn(w, on_a, a);
  const Vector3 dy = dg - (dg.dot(a) + g.dot(da)) * a - g.dot(a) * da;
  const Vector3 dout = (dy - c.out * c.out.dot(dy)) / c.y_norm;
  const Vector3 dside = da.cross(c.out) + a.cross(dout);
  const Vector3 du = c.k == 0 ? dout : c.k == 1 ? dside : c.k == 2 ? Vector3(-dout) : Vector3(-dside);
  return move(w, v, on_a, c.e) + c.radius * du;
}

}  // namespace

bool bodyContactDerivative(const Model& model, const Data& data, std::int64_t offset, PairRowDerivative& d) {
  const auto& geometries = model.geometries();
  const std::int64_t ng = static_cast<std::int64_t>(geometries.size());
  constexpr std::int64_t K = kContactPointsPerGeometry;
  const std::int64_t pair = offset / (6 * K), rest = offset % (6 * K);
  const std::int64_t first = pair / ng, second = pair % ng;
  if (offset < 0 || first >= ng) return false;
  const bool reverse = rest >= 3 * K;
  const int point = static_cast<int>((rest % (3 * K)) / 3), kind = static_cast<int>(rest % 3);
  const Geometry* from = &geometries[static_cast<std::size_t>(first)];
  const Geometry* to = &geometries[static_cast<std::size_t>(second)];
  if (from->shape != ShapeType::Sphere && (to->shape == ShapeType::Sphere || reverse)) std::swap(from, to);
  const Plx X_from = from->X_geometry_body * data.X_body_world[static_cast<std::size_t>(from->body)];
  const Plx X_to = to->X_geometry_body * data.X_body_world[static_cast<std::size_t>(to->body)];
  const Vector3& o_a = X_from.r();
  const Vector3& o_b = X_to.r();
  ContactPoint c;
  if (!contactPoint(*from, X_from, o_b, point, c)) return false;
  double distance = 0.0;
  Vector3 n_local;
  Matrix3 N;  // d n_local / d (the point in B's coordinates): the table above
  if (!internal::localSignedDistance(*to, X_to.applyToPoint(c.x), distance, n_local, &N)) return false;
  markPaths(model, from->body, to->body, d);
  const Matrix3 R_to = X_to.E().transpose();
  const Vector3 n = R_to * n_local;
  const Vector3 p = c.x - c.inflation * n;
  Eigen::Index least = 0;
  n.cwiseAbs().minCoeff(&least);
  const Vector3 e_s = Vector3::Unit(least);
  const Vector3 n_x_e = n.cross(e_s);
  const Vector3 t1 = n_x_e.normalized(), t2 = n.cross(t1);
  const Vector3 direction = kind == 0 ? n : kind == 1 ? t1 : t2;
  d.f << p.cross(direction), direction;
  const Matrix6X& S = data.S_world;
  for (const int j : d.coordinates) {
    const unsigned char mark = d.path[static_cast<std::size_t>(j)];
    const bool on_a = (mark & 1) != 0, on_b = (mark & 2) != 0;
    const Vector3 w = S.col(j).head<3>(), v = S.col(j).tail<3>();
    const Vector3 dx = pointMotion(c, o_a, o_b, w, v, on_a, on_b);
    const Vector3 delta = R_to.transpose() * (dx - move(w, v, on_b, c.x));
    const Vector3 dn = turn(w, on_b, n) + R_to * (N * delta);
    const Vector3 dp = dx - c.inflation * dn;
    const Vector3 dt1 = (dn.cross(e_s) - t1 * t1.dot(dn.cross(e_s))) / n_x_e.norm();
    const Vector3 dt2 = dn.cross(t1) + n.cross(dt1);
    const Vector3 ddirection = kind == 0 ? dn : kind == 1 ? dt1 : dt2;
    d.df.col(j) << dp.cross(direction) + p.cross(ddirection), ddirection;
    d.dC[j] = kind == 0 ? n_local.dot(delta) : 0.0;
  }
  return true;
}

// J[k] = sign_k f . s_k (sign +1 on A's path, -1 on B's; the common part cancels) and ds_k/dq_j = s_j x s_k when
// j's joint is k's or an ancestor of it: d(J^T lambda)[k]/dq_j = lambda sign_k (df_j . s_k + f . (s_j x s_k)).
void addImpulseDerivative(const Model& model, const Data& data, const PairRowDerivative& d, double impulse, Eigen::MatrixXd& Gq) {
  const Matrix6X& S = data.S_world;
  for (const int k : d.coordinates) {
    const unsigned char mark_k = d.path[static_cast<std::size_t>(k)];
    if (mark_k == 3) continue;  // above the common ancestor: A and B move alike
    const double sign = mark_k == 1 ? impulse : -impulse;
    const Vector6 s_k = S.col(k);
    const int body_k = model.dofBody(k);
    for (const int j : d.coordinates) {
      double value = d.df.col(j).dot(s_k);
      // j's joint is k's or an ancestor of it: j on k's path (the same chain), its body no deeper than k's.
      if ((d.path[static_cast<std::size_t>(j)] & mark_k) != 0 && model.dofBody(j) <= body_k) {
        const Vector3 w_j = S.col(j).head<3>(), v_j = S.col(j).tail<3>();
        // f . (s_j x s_k), s_j x s_k = [w_j x w_k; w_j x v_k + v_j x w_k]
        value += d.f.head<3>().dot(w_j.cross(s_k.head<3>())) + d.f.tail<3>().dot(w_j.cross(s_k.tail<3>()) + v_j.cross(s_k.head<3>()));
      }
      Gq(k, j) += sign * value;
    }
  }
}

// J v+ = f . (V_A - V_B), and along q_j at fixed v+ the velocity of body X moves by chi_X(j) s_j x (V_X - V_parent),
// parent the parent of j's body (its coordinates and those below it turn with s_j):
//   d(J v+)/dq_j = df_j . (V_A - V_B) + f . (chi_A s_j x (V_A - V_parent) - chi_B s_j x (V_B - V_parent)).
void velocityErrorDerivative(const Model& model, const Data& data, const PairRowDerivative& d, const std::vector<Vector6>& V,
                             double slope, Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> phi_q) {
  const Matrix6X& S = data.S_world;
  const Vector6& V_a = V[static_cast<std::size_t>(d.body_a)];
  const Vector6& V_b = V[static_cast<std::size_t>(d.body_b)];
  const Vector6 V_rel = V_a - V_b;
  for (const int j : d.coordinates) {
    const unsigned char mark = d.path[static_cast<std::size_t>(j)];
    const Vector6& V_parent = V[static_cast<std::size_t>(model.parent(model.dofBody(j)))];
    Vector6 dV = Vector6::Zero();
    if (mark & 1) dV += V_a - V_parent;
    if (mark & 2) dV -= V_b - V_parent;
    const Vector3 w_j = S.col(j).head<3>(), v_j = S.col(j).tail<3>();
    // f . (s_j x dV), s_j x dV = [w_j x dV_w; w_j x dV_v + v_j x dV_w]
    const double turn = d.f.head<3>().dot(w_j.cross(dV.head<3>())) + d.f.tail<3>().dot(w_j.cross(dV.tail<3>()) + v_j.cross(dV.head<3>()));
    phi_q[j] = d.df.col(j).dot(V_rel) + turn - slope * d.dC[j];
  }
}

}  // namespace abdyn::internal
