#include "abdyn/constraints/loop_closure.hpp"

#include <cmath>
#include <string>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/error.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "algorithms/passes.hpp"
#include "constraints/orthonormal_complement.hpp"
#include "constraints/passes.hpp"
#include "internal/checks.hpp"

namespace abdyn {
namespace {

using Row6 = Eigen::Matrix<double, 1, 6>;

LoopClosure make(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b) {
  LoopClosure c;
  c.name = std::move(name);
  c.body_a = body_a;
  c.R_a = X_Fa_a.E().transpose();
  c.p_a = X_Fa_a.r();
  c.body_b = body_b;
  c.R_b = X_Fb_b.E().transpose();
  c.p_b = X_Fb_b.r();
  return c;
}

Vector3 unitAxis(const Vector3& axis, const std::string& name) {
  const double norm = axis.norm();
  if (!(norm > 1e-12) || !axis.allFinite()) {
    throw InvalidArgument("abdyn::LoopClosure '" + name + "': axis must be a finite non-zero vector");
  }
  return axis / norm;
}

Row6 angularRow(const Vector3& n) { return (Row6() << n.transpose(), 0, 0, 0).finished(); }
Row6 linearRow(const Vector3& n) { return (Row6() << 0, 0, 0, n.transpose()).finished(); }

// The directions of a closure that leaves one axis free: rotation about it (revolute) or translation
// along it (prismatic). Constrained, in [angular; linear] order: the axis's kind of motion in the two
// directions t1, t2 perpendicular to it, the other kind in all three.
LoopClosure axial(LoopClosure c, const Vector3& axis, bool revolute) {
  Vector3 t1, t2;
  internal::orthonormalComplement(unitAxis(axis, c.name), t1, t2);
  const Vector3 x = Vector3::UnitX(), y = Vector3::UnitY(), z = Vector3::UnitZ();
  c.directions.resize(5, 6);
  if (revolute) {
    c.directions << angularRow(t1), angularRow(t2), linearRow(x), linearRow(y), linearRow(z);
  } else {
    c.directions << angularRow(x), angularRow(y), angularRow(z), linearRow(t1), linearRow(t2);
  }
  return c;
}

// World pose and motion of a point frame fixed on a body (body 0: the world).
struct FrameState {
  Matrix3 R;       // R_0_F
  Vector3 p;       // origin in world coordinates
  Vector3 w;       // body angular velocity, world coordinates
  Vector3 alpha;   // body angular acceleration, world coordinates
  Vector3 pdot;    // velocity of the origin
  Vector3 pddot;   // classical acceleration of the origin
};

// a_bias (if given) holds body accelerations at qdd = 0 on top of the base acceleration a_bias[0] (zero in
// data.a after forwardKinematics, -gravity in data.a_with_gravity after RNEA): the bias of the closures is
// the part without it.
FrameState frameState(const Data& data, int body, const Matrix3& R_body_F, const Vector3& p_body_F,
                      const std::vector<Motion>* a_bias) {
  FrameState s;
  if (body == 0) {
    s.R = R_body_F;
    s.p = p_body_F;
    s.w = s.alpha = s.pdot = s.pddot = Vector3::Zero();
    return s;
  }
  const Plx& X = data.X_body_world[body];
  const Matrix3 R_0_body = X.E().transpose();
  s.R = R_0_body * R_body_F;
  s.p = X.r() + R_0_body * p_body_F;
  if (a_bias) {
    const Motion& v = data.v[body];
    Motion a = (*a_bias)[body];
    if (!(*a_bias)[0].vector().isZero(0.0)) a -= X.apply((*a_bias)[0]);
    s.w = R_0_body * v.angular();
    s.alpha = R_0_body * a.angular();
    const Vector3 v_point = v.linear() + v.angular().cross(p_body_F);
    s.pdot = R_0_body * v_point;
    // The point's classical acceleration: the spatial one at the point plus w x v (RBDA sec. 2.11).
    s.pddot = R_0_body * (a.linear() + a.angular().cross(p_body_F) + v.angular().cross(v_point));
  }
  return s;
}

// Adds sign * d(relative velocity in Fa)/dv for body `body`'s ancestor coordinates into G6 (6 x nv):
// each world joint axis s = (s_w, s_o) (about the world origin) moves the point p_b with s_o + s_w x p_b.
void addBodyColumns(const Model& model, const Matrix6X& S_world, int body, double sign, const Matrix3& R_0_Fa,
                    const Vector3& p_b, Matrix6X& G6) {
  for (int i = body; i > 0; i = model.parent(i)) {
    const Joint& j = model.joint(i);
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
      const Vector3 s_w = S_world.col(k).head<3>();
      const Vector3 s_o = S_world.col(k).tail<3>();
      G6.col(k).head<3>() += sign * (R_0_Fa.transpose() * s_w);
      G6.col(k).tail<3>() += sign * (R_0_Fa.transpose() * (s_o + s_w.cross(p_b)));
    }
  }
}

}  // namespace

namespace internal {

void markPathCoordinates(const Model& model, int body, std::vector<bool>& mask) {
  for (int i = body; i > 0; i = model.parent(i)) {
    for (int k = model.joint(i).idx_v; k < model.joint(i).idx_v + model.joint(i).nv; ++k) mask[k] = true;
  }
}

void evaluateConstraints(const Model& model, const Data& data, const ConstraintSet& constraints,
                         ConstraintKinematics& ck, const Eigen::VectorXd& q, const std::vector<Motion>* a_bias,
                         bool exact_jacobian) {
  const bool with_bias = a_bias != nullptr;
  for (const int k : ck.moved_coordinates) ck.S_world.col(k) = worldMotionColumn(model, data, k).vector();
  int row = 0;
  Matrix6X& G6 = ck.G6;
  for (const LoopClosure& c : constraints.loops) {
    const FrameState a = frameState(data, c.body_a, c.R_a, c.p_a, a_bias);
    const FrameState b = frameState(data, c.body_b, c.R_b, c.p_b, a_bias);
    const Matrix3 R_rel = a.R.transpose() * b.R;
    const Vector3 d = b.p - a.p;
    const Vector3 phi = logSO3(R_rel);
    Vector6 error;
    error << phi, a.R.transpose() * d;
    for (const int k : ck.moved_coordinates) G6.col(k).setZero();
    addBodyColumns(model, ck.S_world, c.body_b, 1.0, a.R, b.p, G6);
    addBodyColumns(model, ck.S_world, c.body_a, -1.0, a.R, b.p, G6);
    const int m = c.rows();
    // noalias and the column loops: no products into heap temporaries (this runs every step), and only
    // the columns that can be nonzero (G's others stay zero from construction).
    ck.C.segment(row, m).noalias() = c.directions * error;
    for (const int k : ck.moved_coordinates) ck.G.col(k).segment(row, m).noalias() = c.directions * G6.col(k);
    if (exact_jacobian) {
      // Exact derivative of the log: dphi/dt = Jl^-1(phi) w_rel, with Jl^-1(phi) = Jr^-1(-phi).
      const Matrix3 Jl_inv = rightJacobianInverseSO3(-phi);
      for (const int k : ck.moved_coordinates) {
        G6.col(k).head<3>() = (Jl_inv * G6.col(k).head<3>()).eval();
        ck.G_exact.col(k).segment(row, m).noalias() = c.directions * G6.col(k);
      }
    }
    if (with_bias) {
      // Relative acceleration in Fa at qdd = 0 (data holds accelerations with qdd = 0):
      //   d/dt R_Fa^T (w_b - w_a)              = R_Fa^T (dalpha - w_a x dw)
      //   d/dt R_Fa^T (v_b(p_b) - v_a(p_b))    = R_Fa^T (du - w_a x u),
      //   u = pdot_b - pdot_a - w_a x d,  du = pddot_b - pddot_a - alpha_a x d - w_a x (pdot_b - pdot_a).
      const Vector3 dw = b.w - a.w;
      const Vector3 u = b.pdot - a.pdot - a.w.cross(d);
      const Vector3 du = b.pddot - a.pddot - a.alpha.cross(d) - a.w.cross(b.pdot - a.pdot);
      Vector6 bias;
      bias << a.R.transpose() * (b.alpha - a.alpha - a.w.cross(dw)), a.R.transpose() * (du - a.w.cross(u));
      ck.gamma.segment(row, m).noalias() = -c.directions * bias;
    }
    row += m;
  }
  for (const JointCoupling& c : constraints.couplings) {
    const int f = model.joint(c.follower).idx_q, l = model.joint(c.leader).idx_q;
    const int fv = model.joint(c.follower).idx_v, lv = model.joint(c.leader).idx_v;
    ck.C[row] = q[f] - (c.multiplier * q[l] + c.offset);
    ck.G.row(row).setZero();
    ck.G(row, fv) = 1.0;
    ck.G(row, lv) -= c.multiplier;
    if (exact_jacobian) ck.G_exact.row(row) = ck.G.row(row);
    if (with_bias) ck.gamma[row] = 0.0;
    ++row;
  }
}

}  // namespace internal

namespace {

void checkBody(const Model& model, int body, const std::string& what) {
  if (body < 0 || body >= model.nbodies()) {
    throw InvalidArgument("abdyn::ConstraintSet: " + what + " names body " + std::to_string(body) + ", the model has bodies 0.." +
                          std::to_string(model.nbodies() - 1));
  }
}

}  // namespace

LoopClosure LoopClosure::fixed(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b) {
  LoopClosure c = make(std::move(name), body_a, X_Fa_a, body_b, X_Fb_b);
  c.directions = Eigen::Matrix<double, 6, 6>::Identity();
  return c;
}

LoopClosure LoopClosure::spherical(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b) {
  LoopClosure c = make(std::move(name), body_a, X_Fa_a, body_b, X_Fb_b);
  c.directions.resize(3, 6);
  c.directions << linearRow(Vector3::UnitX()), linearRow(Vector3::UnitY()), linearRow(Vector3::UnitZ());
  return c;
}

LoopClosure LoopClosure::revolute(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b,
                                  const Vector3& axis) {
  return axial(make(std::move(name), body_a, X_Fa_a, body_b, X_Fb_b), axis, true);
}

LoopClosure LoopClosure::prismatic(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b,
                                   const Vector3& axis) {
  return axial(make(std::move(name), body_a, X_Fa_a, body_b, X_Fb_b), axis, false);
}

int ConstraintSet::rows() const {
  int m = static_cast<int>(couplings.size());
  for (const LoopClosure& c : loops) m += c.rows();
  return m;
}

void ConstraintSet::validate(const Model& model) const {
  for (const LoopClosure& c : loops) {
    const std::string what = "loop closure '" + c.name + "'";
    checkBody(model, c.body_a, what);
    checkBody(model, c.body_b, what);
    if (c.body_a == c.body_b) throw InvalidArgument("abdyn::ConstraintSet: " + what + " joins body " + std::to_string(c.body_a) + " to itself");
    if (!c.R_a.allFinite() || !c.R_b.allFinite() || !c.p_a.allFinite() || !c.p_b.allFinite() || !c.directions.allFinite()) {
      throw InvalidArgument("abdyn::ConstraintSet: " + what + " has non-finite frames or directions");
    }
    if (!isRotation(c.R_a) || !isRotation(c.R_b)) {
      throw InvalidArgument("abdyn::ConstraintSet: " + what + ": a frame orientation is not a rotation matrix");
    }
    if (c.rows() < 1 || c.rows() > 6) {
      throw InvalidArgument("abdyn::ConstraintSet: " + what + " has " + std::to_string(c.rows()) +
                            " directions; a closure constrains one to six");
    }
    for (int r = 0; r < c.rows(); ++r) {
      const double ang = c.directions.row(r).head<3>().norm(), lin = c.directions.row(r).tail<3>().norm();
      if (!((std::abs(ang - 1.0) < 1e-9 && lin == 0.0) || (std::abs(lin - 1.0) < 1e-9 && ang == 0.0))) {
        throw InvalidArgument("abdyn::ConstraintSet: " + what + ": direction " + std::to_string(r) +
                              " is not a unit angular or unit linear row");
      }
    }
  }
  for (const JointCoupling& c : couplings) {
    const std::string what = "coupling '" + c.name + "'";
    checkBody(model, c.follower, what);
    checkBody(model, c.leader, what);
    if (c.follower == 0 || c.leader == 0 || model.joint(c.follower).nv != 1 || model.joint(c.leader).nv != 1 ||
        model.joint(c.follower).nq != 1 || model.joint(c.leader).nq != 1) {
      throw InvalidArgument("abdyn::ConstraintSet: " + what + " must join two one-coordinate joints");
    }
    if (c.follower == c.leader) throw InvalidArgument("abdyn::ConstraintSet: " + what + " couples a joint to itself");
    if (!std::isfinite(c.multiplier) || !std::isfinite(c.offset)) {
      throw InvalidArgument("abdyn::ConstraintSet: " + what + " has a non-finite multiplier or offset");
    }
  }
}

ConstraintSet ConstraintSet::fromMimics(const Model& model) {
  ConstraintSet set;
  for (const MimicCoupling& m : model.mimics()) {
    set.couplings.push_back({model.joint(m.follower).name, m.follower, m.leader, m.multiplier, m.offset});
  }
  return set;
}

ConstraintKinematics::ConstraintKinematics(const Model& model, const ConstraintSet& constraints)
    : C(Eigen::VectorXd::Zero(constraints.rows())),
      G(Eigen::MatrixXd::Zero(constraints.rows(), model.nv())),
      G_exact(Eigen::MatrixXd::Zero(constraints.rows(), model.nv())),
      gamma(Eigen::VectorXd::Zero(constraints.rows())),
      S_world(6, model.nv()),
      G6(6, model.nv()),
      zero_nv(Eigen::VectorXd::Zero(model.nv())) {
  constraints.validate(model);
  std::vector<bool> moved(model.nv(), false);
  for (const LoopClosure& c : constraints.loops) {
    internal::markPathCoordinates(model, c.body_a, moved);
    internal::markPathCoordinates(model, c.body_b, moved);
  }
  for (int k = 0; k < model.nv(); ++k) {
    if (moved[k]) moved_coordinates.push_back(k);
  }
}

namespace {

// The door of constraintJacobian and constraintKinematics: data and ck belong to the model and constraints,
// q has the model's size.
void checkKinematicsCall(const Model& model, const Data& data, const ConstraintSet& constraints,
                         const ConstraintKinematics& ck, const Eigen::VectorXd& q, const char* fn) {
  internal::checkData(model, data, fn);
  internal::checkConfiguration(model, q, fn);
  if (ck.C.size() != constraints.rows() || ck.G.cols() != model.nv()) {
    throw InvalidArgument(std::string(fn) + ": 'ck' was built for other constraints or another model");
  }
}

}  // namespace

void constraintJacobian(const Model& model, Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                        const Eigen::VectorXd& q) {
  checkKinematicsCall(model, data, constraints, ck, q, "abdyn::constraintJacobian");
  internal::forwardKinematicsUnchecked(model, data, q);
  internal::evaluateConstraints(model, data, constraints, ck, q, nullptr, true);
}

void constraintKinematics(const Model& model, Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  checkKinematicsCall(model, data, constraints, ck, q, "abdyn::constraintKinematics");
  internal::checkVector(v, model.nv(), "abdyn::constraintKinematics", "v");
  internal::forwardKinematicsUnchecked(model, data, q, v, ck.zero_nv);
  internal::evaluateConstraints(model, data, constraints, ck, q, &data.a, true);
}

}  // namespace abdyn
