#include "abdyn/model/reduced_model.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"

namespace abdyn {
namespace {

// The builder's input for a joint of `model` that stays free: the same joint, limits and dynamics.
JointSpec specOf(const Model& model, const Joint& j) {
  JointSpec spec;
  switch (j.type) {
    case JointType::RevoluteX:
    case JointType::RevoluteY:
    case JointType::RevoluteZ: spec.type = JointType::Revolute; break;  // the builder picks the fast path again
    case JointType::PrismaticX:
    case JointType::PrismaticY:
    case JointType::PrismaticZ: spec.type = JointType::Prismatic; break;
    default: spec.type = j.type;
  }
  spec.name = j.name;
  spec.axis = j.axis;
  spec.axis2 = j.axis2;
  spec.pitch = j.pitch;
  spec.continuous = j.continuous;
  if (j.nq == 1) {
    spec.lower = model.lowerPositionLimit()[j.idx_q];
    spec.upper = model.upperPositionLimit()[j.idx_q];
  }
  if (j.nv > 0) {
    spec.velocity_limit = model.velocityLimit()[j.idx_v];
    spec.effort_limit = model.effortLimit()[j.idx_v];
    spec.damping = model.damping()[j.idx_v];
    spec.friction = model.friction()[j.idx_v];
    spec.armature = model.armature()[j.idx_v];
  }
  return spec;
}

}  // namespace

Model buildReducedModel(const Model& model, const std::vector<std::string>& locked_joints, const Eigen::VectorXd& q_reference) {
  const std::string where = "buildReducedModel(model '" + model.name() + "'): ";
  if (q_reference.size() != model.nq()) {
    throw InvalidArgument(where + "q_reference has " + std::to_string(q_reference.size()) + " entries, but the model has nq = " +
                          std::to_string(model.nq()));
  }
  if (!q_reference.allFinite()) throw InvalidArgument(where + "q_reference has a non-finite entry");
  const int n = model.nbodies();
  std::vector<bool> locked(n, false);
  for (const std::string& name : locked_joints) {
    int joint = -1;
    try {
      joint = model.jointId(name);
    } catch (const Error& e) {
      throw InvalidArgument(where + "locked_joints: " + e.what());
    }
    if (locked[joint]) throw InvalidArgument(where + "locked_joints names joint '" + name + "' twice");
    locked[joint] = true;
  }
  Eigen::VectorXd q = q_reference;
  normalize(model, q);

  // Bodies (and their frames) in the order of the model's frames: each body's own frame comes after its
  // parent's and before the frames on it, which is also the order the URDF loader meets the links in.
  // By body of `model`: the body it belongs to in the reduced model, and X_body_new mapping that body's
  // coordinates into its own.
  ModelBuilder builder(model.name(), model.bodyName(0));
  builder.setGravity(model.gravity().linear());
  builder.reserve(n);
  std::vector<int> new_body(n, 0);
  std::vector<Plx> X_body_new(n);
  for (const Frame& f : model.frames()) {
    const int i = f.body;
    if (f.type != FrameType::Body) {
      builder.addFrame(f.name, new_body[i], f.X_frame_body * X_body_new[i], f.type);
      continue;
    }
    if (i == 0) continue;  // the world, which the builder has
    const int p = model.parent(i);
    const Joint& j = model.joint(i);
    if (locked[i]) {
      new_body[i] = new_body[p];
      X_body_new[i] = jointTransform(j, q.data() + j.idx_q) * model.Xtree(i) * X_body_new[p];
      builder.addFrame(model.bodyName(i), new_body[i], X_body_new[i], FrameType::Fixed);
      // The world does not move: what is welded to it needs no inertia.
      if (new_body[i] != 0) builder.addInertia(new_body[i], X_body_new[i].applyInverse(model.inertia(i)));
    } else {
      new_body[i] = builder.addBody(new_body[p], specOf(model, j), model.Xtree(i) * X_body_new[p], model.inertia(i),
                                    model.bodyName(i));
    }
  }
  for (const Geometry& g : model.geometries()) {
    Geometry moved = g;
    moved.body = new_body[g.body];
    moved.X_geometry_body = g.X_geometry_body * X_body_new[g.body];
    builder.addGeometry(moved);
  }
  for (const MimicCoupling& c : model.mimics()) {
    const Joint& follower = model.joint(c.follower);
    const Joint& leader = model.joint(c.leader);
    if (!locked[c.follower] && !locked[c.leader]) {
      builder.addMimic(follower.name, leader.name, c.multiplier, c.offset);
      continue;
    }
    if (locked[c.follower] != locked[c.leader]) {
      throw Error(where + "joint '" + follower.name + "' mimics joint '" + leader.name + "', and only '" +
                  (locked[c.follower] ? follower.name : leader.name) +
                  "' is locked: the coupling would lose a coordinate; lock both joints or neither");
    }
    const double expected = c.multiplier * q[leader.idx_q] + c.offset;
    if (std::abs(q[follower.idx_q] - expected) > 1e-9 * (1.0 + std::abs(expected))) {
      throw Error(where + "joints '" + follower.name + "' and '" + leader.name + "' are locked where q_reference breaks " +
                  "their mimic coupling (q_follower = " + std::to_string(q[follower.idx_q]) + ", multiplier * q_leader + " +
                  "offset = " + std::to_string(expected) + ")");
    }
  }
  try {
    return std::move(builder).build();
  } catch (const Error& e) {
    throw Error(where + e.what());
  }
}

}  // namespace abdyn
