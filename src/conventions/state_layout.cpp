#include "abdyn/conventions/state_layout.hpp"

#include <cmath>

#include "abdyn/error.hpp"
#include "abdyn/spatial/quaternion.hpp"

namespace abdyn {

namespace {

// Where one joint's coordinates sit in the other library's vectors.
struct Slot {
  int body;
  int q;   // first q coordinate of the joint's own slot
  int v;   // first v (qdd, tau) coordinate
  int w;   // q index of the quaternion's w when it is stored after all other coordinates, else -1
  bool cos_sin;  // a continuous joint's angle stored as (cos, sin)
};

struct Plan {
  std::vector<Slot> slots;
  int nq = 0;  // length of the other library's q
};

Plan plan(const Model& model, const StateLayout& layout, const JointOrder& order) {
  const int njoints = model.nbodies() - 1;
  std::vector<int> bodies;
  if (order.empty()) {
    for (int i = 1; i <= njoints; ++i) bodies.push_back(i);
  } else {
    if (static_cast<int>(order.size()) != njoints) {
      throw Error(layout.library + " joint order: lists " + std::to_string(order.size()) + " joints, the model '" +
                  model.name() + "' has " + std::to_string(njoints));
    }
    std::vector<bool> seen(model.nbodies(), false);
    for (const std::string& name : order) {
      const int i = model.jointId(name);
      if (seen[i]) throw Error(layout.library + " joint order: joint '" + name + "' is listed twice");
      seen[i] = true;
      bodies.push_back(i);
    }
  }
  Plan p;
  int q = 0, v = 0, nw = 0;
  for (int i : bodies) {
    const Joint& joint = model.joint(i);
    if (joint.type == JointType::Planar) {
      throw Error(layout.library + " state layout: joint '" + joint.name +
                  "' is planar, which has no counterpart there");
    }
    Slot s{i, q, v, -1, joint.continuous && layout.continuous_as_cos_sin};
    if (s.cos_sin) {
      q += 2;
    } else if (joint.hasQuaternion() && layout.quaternion_w_at_end_of_q) {
      // Quaternion joints have nq = nv + 1, every other joint nq = nv: the own slots fill nv coordinates.
      s.w = model.nv() + nw++;
      q += joint.nq - 1;
    } else {
      q += joint.nq;
    }
    v += joint.nv;
    p.slots.push_back(s);
  }
  p.nq = q + nw;
  return p;
}

void checkSize(const Eigen::VectorXd& x, int n, bool optional, const char* name, const std::string& context) {
  if ((optional && x.size() == 0) || x.size() == n) return;
  throw InvalidArgument(context + ": " + name + " has " + std::to_string(x.size()) + " coordinates, expected " +
                        std::to_string(n) + (optional ? " (or none)" : ""));
}

void checkState(const Model& model, const State& s, int nq, const std::string& context) {
  checkSize(s.q, nq, false, "q", context);
  checkSize(s.v, model.nv(), true, "v", context);
  checkSize(s.qdd, model.nv(), true, "qdd", context);
  checkSize(s.tau, model.nv(), true, "tau", context);
  if (s.qdd.size() != 0 && s.v.size() == 0) throw InvalidArgument(context + ": qdd needs v (free joints)");
}

void resizeLike(const State& in, int nq, State& out) {
  out.q.resize(nq);
  out.v.resize(in.v.size());
  out.qdd.resize(in.qdd.size());
  out.tau.resize(in.tau.size());
}

// Writes the abdyn quaternion (w, x, y, z) at q_abdyn into the other layout, slot starting at q_other.
void writeQuaternion(const StateLayout& layout, const double* wxyz, const Slot& s, int q_other, Eigen::VectorXd& out) {
  if (s.w >= 0) {
    out.segment<3>(q_other) << wxyz[1], wxyz[2], wxyz[3];
    out(s.w) = wxyz[0];
  } else if (layout.quaternion_w_last) {
    out.segment<4>(q_other) << wxyz[1], wxyz[2], wxyz[3], wxyz[0];
  } else {
    out.segment<4>(q_other) << wxyz[0], wxyz[1], wxyz[2], wxyz[3];
  }
}

// Reads the other layout's quaternion into abdyn's (w, x, y, z) order.
Vector4 readQuaternion(const StateLayout& layout, const Eigen::VectorXd& in, const Slot& s, int q_other) {
  if (s.w >= 0) return Vector4(in(s.w), in(q_other), in(q_other + 1), in(q_other + 2));
  if (layout.quaternion_w_last) return Vector4(in(q_other + 3), in(q_other), in(q_other + 1), in(q_other + 2));
  return in.segment<4>(q_other);
}

// Copies v, qdd and tau (each that `from` has) over n coordinates, from index i of `from` to index k of
// `to`: they are the same in every layout for all but a free joint.
void copyVelocityParts(const State& from, int i, State& to, int k, int n) {
  if (from.v.size()) to.v.segment(k, n) = from.v.segment(i, n);
  if (from.qdd.size()) to.qdd.segment(k, n) = from.qdd.segment(i, n);
  if (from.tau.size()) to.tau.segment(k, n) = from.tau.segment(i, n);
}

// A free joint's 6 coordinates (v, qdd or tau) from abdyn's [angular; linear] at index i of `from` to the
// other layout's [R linear; angular] at index k of `to`, and back (Rt = R^T).
void freeToOther(const Eigen::VectorXd& from, int i, const Matrix3& R, Eigen::VectorXd& to, int k) {
  to.segment<3>(k) = R * from.segment<3>(i + 3);
  to.segment<3>(k + 3) = from.segment<3>(i);
}
void freeFromOther(const Eigen::VectorXd& from, int k, const Matrix3& Rt, Eigen::VectorXd& to, int i) {
  to.segment<3>(i) = from.segment<3>(k + 3);
  to.segment<3>(i + 3) = Rt * from.segment<3>(k);
}

// Only a free joint's v (S = 1: the body's spatial velocity) differs in frame and order between the
// libraries; every other joint's v, qdd and tau are the same everywhere.
bool sameVelocities(const Joint& joint, const StateLayout& layout) {
  return !joint.identitySubspace() || layout.free_velocity == FreeVelocityLayout::BodyAngularLinear;
}

// The rotation that turns a free joint's linear part from abdyn's layout into `layout`: the orientation
// R_world_body (from abdyn's q) for world-frame linear velocities, else 1.
Matrix3 freeLinearRotation(const StateLayout& layout, const Eigen::VectorXd& q_abdyn, const Joint& joint) {
  if (layout.free_velocity != FreeVelocityLayout::WorldLinearBodyAngular) return Matrix3::Identity();
  const double* c = q_abdyn.data() + joint.quaternionIndex();
  return Quaternion(c[0], c[1], c[2], c[3]).toRotationMatrix();
}

// w x v of a free joint's body velocity [w; v] in abdyn's v: the rate at which the body frame turns the
// linear velocity, which a world-frame linear acceleration includes.
Vector3 frameRate(const Eigen::VectorXd& v_abdyn, const Joint& joint) {
  return Vector3(v_abdyn.segment<3>(joint.idx_v)).cross(Vector3(v_abdyn.segment<3>(joint.idx_v + 3)));
}

}  // namespace

State stateFromAbdyn(const Model& model, const State& a, const StateLayout& layout, const JointOrder& order) {
  const std::string context = "stateFromAbdyn (" + layout.library + ")";
  checkState(model, a, model.nq(), context);
  const Plan p = plan(model, layout, order);
  State o;
  resizeLike(a, p.nq, o);
  for (const Slot& s : p.slots) {
    const Joint& j = model.joint(s.body);
    if (j.hasQuaternion()) {
      // The coordinates before the quaternion (a floating joint's position) keep their order.
      const int before = j.quaternionIndex() - j.idx_q;
      o.q.segment(s.q, before) = a.q.segment(j.idx_q, before);
      writeQuaternion(layout, a.q.data() + j.quaternionIndex(), s, s.q + before, o.q);
    } else if (s.cos_sin) {
      o.q(s.q) = std::cos(a.q(j.idx_q));
      o.q(s.q + 1) = std::sin(a.q(j.idx_q));
    } else {
      o.q.segment(s.q, j.nq) = a.q.segment(j.idx_q, j.nq);
    }
    if (sameVelocities(j, layout)) {
      copyVelocityParts(a, j.idx_v, o, s.v, j.nv);
      continue;
    }
    const Matrix3 R = freeLinearRotation(layout, a.q, j);
    // abdyn [angular; linear] -> other [linear'; angular], linear' = R linear (+ the frame-rate term for qdd).
    if (a.v.size()) freeToOther(a.v, j.idx_v, R, o.v, s.v);
    if (a.qdd.size()) {
      freeToOther(a.qdd, j.idx_v, R, o.qdd, s.v);
      if (layout.free_velocity == FreeVelocityLayout::WorldLinearBodyAngular) o.qdd.segment<3>(s.v) += R * frameRate(a.v, j);
    }
    if (a.tau.size()) freeToOther(a.tau, j.idx_v, R, o.tau, s.v);
  }
  return o;
}

State stateToAbdyn(const Model& model, const State& o, const StateLayout& layout, const JointOrder& order) {
  const std::string context = "stateToAbdyn (" + layout.library + ")";
  const Plan p = plan(model, layout, order);
  checkState(model, o, p.nq, context);
  State a;
  resizeLike(o, model.nq(), a);
  for (const Slot& s : p.slots) {
    const Joint& j = model.joint(s.body);
    if (j.hasQuaternion()) {
      const int before = j.quaternionIndex() - j.idx_q;
      a.q.segment(j.idx_q, before) = o.q.segment(s.q, before);
      a.q.segment<4>(j.quaternionIndex()) = readQuaternion(layout, o.q, s, s.q + before);
    } else if (s.cos_sin) {
      a.q(j.idx_q) = std::atan2(o.q(s.q + 1), o.q(s.q));
    } else {
      a.q.segment(j.idx_q, j.nq) = o.q.segment(s.q, j.nq);
    }
    if (sameVelocities(j, layout)) {
      copyVelocityParts(o, s.v, a, j.idx_v, j.nv);
      continue;
    }
    const Matrix3 Rt = freeLinearRotation(layout, a.q, j).transpose();
    if (o.v.size()) freeFromOther(o.v, s.v, Rt, a.v, j.idx_v);
    if (o.qdd.size()) {
      freeFromOther(o.qdd, s.v, Rt, a.qdd, j.idx_v);
      if (layout.free_velocity == FreeVelocityLayout::WorldLinearBodyAngular) a.qdd.segment<3>(j.idx_v + 3) -= frameRate(a.v, j);
    }
    if (o.tau.size()) freeFromOther(o.tau, s.v, Rt, a.tau, j.idx_v);
  }
  return a;
}

}  // namespace abdyn
