#include "abdyn/model/model_builder.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "abdyn/error.hpp"
#include "model/digest.hpp"
#include "model/huge_pages.hpp"
#include "model/name_index.hpp"

namespace abdyn {
namespace {

// Revolute and prismatic joints about a positive unit axis get a fast-path type.
JointType specialise(JointType type, const Vector3& axis) {
  const int which = axis == Vector3::UnitX() ? 0 : axis == Vector3::UnitY() ? 1 : axis == Vector3::UnitZ() ? 2 : -1;
  if (which < 0) return type;
  if (type == JointType::Revolute) {
    return which == 0 ? JointType::RevoluteX : which == 1 ? JointType::RevoluteY : JointType::RevoluteZ;
  }
  if (type == JointType::Prismatic) {
    return which == 0 ? JointType::PrismaticX : which == 1 ? JointType::PrismaticY : JointType::PrismaticZ;
  }
  return type;
}

bool isFiniteOrInf(double x) { return !std::isnan(x); }

}  // namespace

ModelBuilder::ModelBuilder(std::string model_name, std::string world_name) {
  model_.name_ = std::move(model_name);
  model_.gravity_ = Motion(Vector3::Zero(), Vector3(0.0, 0.0, -9.81));
  model_.parent_.push_back(-1);
  Joint world_joint;
  world_joint.nq = world_joint.nv = 0;
  model_.joints_.push_back(world_joint);
  model_.X_tree_.emplace_back();
  model_.inertia_.emplace_back();
  model_.body_names_.push_back(world_name);
  specs_.emplace_back();
  addFrame(world_name, 0, Plx(), FrameType::Body);
}

void ModelBuilder::markKinematicsOnly(std::vector<int> bodies) {
  kinematics_only_ = true;
  marked_massless_ = std::move(bodies);
}

void ModelBuilder::setGravity(const Vector3& g) {
  if (!g.allFinite()) throw Error("abdyn::ModelBuilder::setGravity: gravity is not finite");
  model_.gravity_ = Motion(Vector3::Zero(), g);
}

int ModelBuilder::addBody(int parent, const JointSpec& spec, const Plx& X_tree, const RigidBodyInertia& inertia,
                          const std::string& name) {
  // The message prefix is formed only for an error: bodies are added by the million.
  const auto where = [&name] { return "abdyn::ModelBuilder::addBody('" + name + "'): "; };
  if (parent < 0 || parent >= model_.nbodies()) {
    throw Error(where() + "parent index " + std::to_string(parent) + " is not an existing body");
  }
  if (name.empty()) throw Error(where() + "body name is empty");
  // Every body has a frame of its own name, so the frame index alone knows every body name too.
  if (internal::findName(model_.frame_index_, name, internal::namesOf(model_.frames_)) >= 0) {
    throw Error(where() + "a body or frame with this name already exists");
  }
  const std::string joint_name = spec.name.empty() ? name + "_joint" : spec.name;
  if (internal::findName(model_.joint_index_, joint_name, internal::namesOf(model_.joints_)) >= 0) {
    throw Error(where() + "duplicate joint name '" + joint_name + "'");
  }
  if (!X_tree.E().allFinite() || !X_tree.r().allFinite()) throw Error(where() + "X_tree is not finite");

  Joint joint;
  joint.name = joint_name;
  joint.pitch = spec.pitch;
  joint.continuous = spec.continuous;
  const bool has_axis = spec.type != JointType::Spherical && spec.type != JointType::Floating;
  if (has_axis) {
    const double n = spec.axis.norm();
    if (!std::isfinite(n) || n < 1e-12) throw Error(where() + "joint '" + joint_name + "' has a zero or non-finite axis");
    joint.axis = spec.axis / n;
  }
  if (spec.type == JointType::Planar) {
    const Vector3 t1 = spec.axis2 - spec.axis2.dot(joint.axis) * joint.axis;
    if (!t1.allFinite() || t1.norm() < 1e-9) {
      throw Error(where() + "planar joint '" + joint_name + "': in-plane direction is parallel to the normal");
    }
    joint.axis2 = t1.normalized();
  }
  if (!std::isfinite(spec.pitch)) throw Error(where() + "joint '" + joint_name + "' has a non-finite pitch");
  joint.type = specialise(spec.type, joint.axis);
  jointSizes(joint.type, joint.nq, joint.nv);
  joint.setAxisPick();

  const double numbers[] = {spec.lower, spec.upper, spec.velocity_limit, spec.effort_limit,
                            spec.damping, spec.friction, spec.armature, spec.stiffness};
  for (double x : numbers) {
    if (!isFiniteOrInf(x)) throw Error(where() + "joint '" + joint_name + "' has a NaN limit or dynamics value");
  }
  if (spec.lower > spec.upper) {
    throw Error(where() + "joint '" + joint_name + "': lower limit " + std::to_string(spec.lower) +
                " is above upper limit " + std::to_string(spec.upper));
  }
  if (spec.velocity_limit < 0 || spec.effort_limit < 0 || spec.damping < 0 || spec.friction < 0 || spec.armature < 0 ||
      !(spec.stiffness >= 0 && spec.stiffness < std::numeric_limits<double>::infinity())) {
    throw Error(where() + "joint '" + joint_name +
                "': velocity/effort limits, damping, friction and armature must be >= 0, stiffness finite and >= 0");
  }
  if (spec.stiffness > 0.0 && joint.type == JointType::Planar) {
    throw Error(where() + "joint '" + joint_name + "': abdyn has no spring law for planar joints");
  }
  if (spec.spring_reference.size() != 0 &&
      (spec.spring_reference.size() != joint.nq || !spec.spring_reference.allFinite())) {
    throw Error(where() + "joint '" + joint_name + "': the spring reference must hold " + std::to_string(joint.nq) +
                " finite numbers");
  }

  const int id = model_.nbodies();
  model_.parent_.push_back(parent);
  model_.joints_.push_back(joint);
  model_.X_tree_.push_back(X_tree);
  model_.inertia_.push_back(inertia);
  model_.body_names_.push_back(name);
  internal::insertName(model_.joint_index_, id - 1, joint_name, id, internal::namesOf(model_.joints_));  // joints 1 .. id - 1 before it
  specs_.push_back(spec);
  // The body's own frame; its name was checked above.
  internal::insertName(model_.frame_index_, model_.frames_.size(), name, model_.nframes(), internal::namesOf(model_.frames_));
  model_.frames_.push_back(Frame{name, FrameType::Body, id, Plx()});
  return id;
}

void ModelBuilder::addInertia(int body, const RigidBodyInertia& inertia) {
  if (body < 0 || body >= model_.nbodies()) {
    throw Error("abdyn::ModelBuilder::addInertia: body index " + std::to_string(body) + " does not exist");
  }
  model_.inertia_[body] += inertia;
}

int ModelBuilder::addFrame(const std::string& name, int body, const Plx& X_frame_body, FrameType type) {
  const auto where = [&name] { return "abdyn::ModelBuilder::addFrame('" + name + "'): "; };
  if (body < 0 || body >= model_.nbodies()) throw Error(where() + "body index " + std::to_string(body) + " does not exist");
  // Every body has a frame of its own name: one lookup finds both kinds of name.
  const int existing = internal::findName(model_.frame_index_, name, internal::namesOf(model_.frames_));
  if (existing >= 0) {
    const bool of_body = model_.frames_[existing].type == FrameType::Body &&
                         model_.body_names_[model_.frames_[existing].body] == name;
    throw Error(where() + (of_body ? "a body" : "a frame") + " with this name already exists");
  }
  internal::insertName(model_.frame_index_, model_.frames_.size(), name, model_.nframes(), internal::namesOf(model_.frames_));
  model_.frames_.push_back(Frame{name, type, body, X_frame_body});
  return model_.nframes() - 1;
}

void ModelBuilder::addMimic(const std::string& follower_joint, const std::string& leader_joint, double multiplier,
                            double offset) {
  if (!std::isfinite(multiplier) || !std::isfinite(offset)) {
    throw Error("abdyn::ModelBuilder::addMimic: joint '" + follower_joint + "' has a non-finite multiplier or offset");
  }
  mimic_names_.emplace_back(follower_joint, leader_joint);
  mimic_values_.emplace_back(multiplier, offset);
}

void ModelBuilder::addGeometry(const Geometry& geometry) {
  if (geometry.body < 0 || geometry.body >= model_.nbodies()) {
    throw Error("abdyn::ModelBuilder::addGeometry('" + geometry.name + "'): body does not exist");
  }
  model_.geometries_.push_back(geometry);
  Geometry& added = model_.geometries_.back();
  // The world's collision meshes are collided by their triangles (ContactGeometry::StaticMeshes): their
  // hierarchy is built once here.
  if (added.body == 0 && added.role == GeometryRole::Collision && added.shape == ShapeType::Mesh) {
    added.mesh = withTriangleBvh(added.mesh);
  }
}

void ModelBuilder::addConfiguration(const NamedConfiguration& configuration) {
  model_.configurations_.push_back(configuration);
}

void ModelBuilder::addActuator(const Actuator& actuator) {
  if (!std::isfinite(actuator.gear) || std::isnan(actuator.ctrl_lower) || std::isnan(actuator.ctrl_upper) ||
      actuator.ctrl_lower > actuator.ctrl_upper) {
    throw Error("abdyn::ModelBuilder::addActuator('" + actuator.name + "'): non-finite gear or empty control range");
  }
  model_.actuators_.push_back(actuator);
}

void ModelBuilder::setTimestep(double timestep) {
  if (!std::isfinite(timestep) || timestep <= 0.0) {
    throw Error("abdyn::ModelBuilder::setTimestep: the time step must be positive and finite, not " + std::to_string(timestep));
  }
  model_.timestep_ = timestep;
}

void ModelBuilder::reserve(int bodies) {
  if (bodies < 0) throw Error("abdyn::ModelBuilder::reserve: negative body count " + std::to_string(bodies));
  const auto count = static_cast<std::size_t>(bodies);
  model_.parent_.reserve(count);
  model_.joints_.reserve(count);
  model_.X_tree_.reserve(count);
  model_.inertia_.reserve(count);
  model_.body_names_.reserve(count);
  model_.frames_.reserve(count);
  internal::reserveNames(model_.joint_index_, count);
  internal::reserveNames(model_.frame_index_, count);
  specs_.reserve(count);
  internal::adviseHugePages(model_.joints_);
  internal::adviseHugePages(model_.X_tree_);
  internal::adviseHugePages(model_.inertia_);
  internal::adviseHugePages(model_.body_names_);
  internal::adviseHugePages(model_.frames_);
  internal::adviseHugePages(specs_);
}

Model ModelBuilder::build() const& {
  Model m = model_;
  finish(m);
  return m;
}

Model ModelBuilder::build() && {
  Model m = std::move(model_);
  model_ = Model();
  finish(m);
  return m;
}

void ModelBuilder::finish(Model& m) const {
  const int n = m.nbodies();
  m.children_.assign(n, {});
  for (int i = 1; i < n; ++i) m.children_[m.parent_[i]].push_back(i);

  m.nq_ = m.nv_ = 0;
  for (int i = 1; i < n; ++i) {
    m.joints_[i].idx_q = m.nq_;
    m.joints_[i].idx_v = m.nv_;
    m.nq_ += m.joints_[i].nq;
    m.nv_ += m.joints_[i].nv;
  }

  const double inf = std::numeric_limits<double>::infinity();
  m.S_.resize(6, m.nv_);
  internal::adviseHugePages(m.S_.data(), sizeof(double) * m.S_.size());
  m.S_.setZero();
  m.dof_body_.assign(m.nv_, 0);
  m.dof_parent_.assign(m.nv_, -1);
  m.lower_.setConstant(m.nq_, -inf);
  m.upper_.setConstant(m.nq_, inf);
  m.velocity_limit_.setConstant(m.nv_, inf);
  m.effort_limit_.setConstant(m.nv_, inf);
  m.damping_.setZero(m.nv_);
  m.friction_.setZero(m.nv_);
  m.armature_.setZero(m.nv_);
  m.stiffness_.setZero(m.nv_);
  m.spring_reference_.setZero(m.nq_);
  for (int i = 1; i < n; ++i) {
    const Joint& j = m.joints_[i];
    const JointSpec& spec = specs_[i];
    m.S_.middleCols(j.idx_v, j.nv) = j.motionSubspace();
    for (int k = 0; k < j.nv; ++k) {
      const int dof = j.idx_v + k;
      m.dof_body_[dof] = i;
      if (k > 0) {
        m.dof_parent_[dof] = dof - 1;
      } else if (m.parent_[i] > 0) {
        const Joint& pj = m.joints_[m.parent_[i]];
        m.dof_parent_[dof] = pj.idx_v + pj.nv - 1;
      }
    }
    if (j.nq == 1) {
      m.lower_[j.idx_q] = spec.lower;
      m.upper_[j.idx_q] = spec.upper;
    }
    m.velocity_limit_.segment(j.idx_v, j.nv).setConstant(spec.velocity_limit);
    m.effort_limit_.segment(j.idx_v, j.nv).setConstant(spec.effort_limit);
    m.damping_.segment(j.idx_v, j.nv).setConstant(spec.damping);
    m.friction_.segment(j.idx_v, j.nv).setConstant(spec.friction);
    m.armature_.segment(j.idx_v, j.nv).setConstant(spec.armature);
    m.stiffness_.segment(j.idx_v, j.nv).setConstant(spec.stiffness);
    if (spec.spring_reference.size() == j.nq) {
      m.spring_reference_.segment(j.idx_q, j.nq) = spec.spring_reference;
    } else if (j.hasQuaternion()) {
      m.spring_reference_[j.quaternionIndex()] = 1.0;
    }
  }
  m.has_springs_ = m.nv_ > 0 && m.stiffness_.maxCoeff() > 0.0;

  m.inertia_matrix_.reserve(m.inertia_.size());
  internal::adviseHugePages(m.inertia_matrix_);
  m.inertia_matrix_.resize(m.inertia_.size());
  for (std::size_t i = 0; i < m.inertia_.size(); ++i) m.inertia_matrix_[i] = m.inertia_[i].matrix();

  m.dof_run_start_.resize(m.nv_);
  for (int k = 0; k < m.nv_; ++k) m.dof_run_start_[k] = (k > 0 && m.dof_parent_[k] == k - 1) ? m.dof_run_start_[k - 1] : k;
  // Coordinate k's strict ancestors number one more than its dof parent's; their running sum places each
  // packed row. O(nv) here: the pairs themselves are listed only where the factor is needed (Data).
  m.ancestor_offset_.assign(static_cast<std::size_t>(m.nv_) + 1, 0);
  std::vector<std::int64_t> depth(m.nv_, 0);
  for (int k = 0; k < m.nv_; ++k) {
    depth[k] = m.dof_parent_[k] >= 0 ? depth[m.dof_parent_[k]] + 1 : 0;
    m.ancestor_offset_[k + 1] = m.ancestor_offset_[k] + depth[k];
  }

  // The structure that sizes and shapes Data: counts, parents, joint types and layout.
  internal::Fnv1a structure;
  structure.mix(std::int64_t{n});
  structure.mix(std::int64_t{m.nq_});
  structure.mix(std::int64_t{m.nv_});
  for (int i = 1; i < n; ++i) {
    structure.mix(std::int64_t{m.parent_[i]});
    structure.mix(static_cast<std::int64_t>(m.joints_[i].type));
    structure.mix(std::int64_t{m.joints_[i].idx_q});
    structure.mix(std::int64_t{m.joints_[i].idx_v});
  }
  m.structure_key_ = structure.key();

  m.last_subtree_dof_.assign(n, -1);
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = m.joints_[i];
    m.last_subtree_dof_[i] = std::max(m.last_subtree_dof_[i], j.idx_v + j.nv - 1);
    m.last_subtree_dof_[m.parent_[i]] = std::max(m.last_subtree_dof_[m.parent_[i]], m.last_subtree_dof_[i]);
  }

  // A joint whose whole subtree is without mass and inertia makes the mass matrix singular, unless
  // armature alone gives its coordinates inertia.
  std::vector<double> subtree_weight(n, 0.0);
  for (int i = n - 1; i >= 1; --i) {
    subtree_weight[i] += m.inertia_[i].mass() + m.inertia_[i].inertiaAboutCom().cwiseAbs().sum();
    subtree_weight[m.parent_[i]] += subtree_weight[i];
  }
  m.has_dynamics_ = !kinematics_only_;
  m.massless_bodies_ = marked_massless_;
  for (int i = 1; i < n; ++i) {
    const Joint& j = m.joints_[i];
    if (subtree_weight[i] == 0.0 && m.armature_.segment(j.idx_v, j.nv).minCoeff() <= 0.0) {
      if (!accept_kinematics_only_) {
        throw Error("model '" + m.name_ + "': joint '" + j.name + "' moves only massless bodies (body '" +
                    m.body_names_[i] + "' and its subtree have no mass or inertia), so the mass matrix would be singular");
      }
      m.has_dynamics_ = false;
      m.massless_bodies_.push_back(i);
    }
  }
  std::sort(m.massless_bodies_.begin(), m.massless_bodies_.end());
  m.massless_bodies_.erase(std::unique(m.massless_bodies_.begin(), m.massless_bodies_.end()), m.massless_bodies_.end());

  m.mimics_.clear();
  for (size_t k = 0; k < mimic_names_.size(); ++k) {
    const std::string& follower = mimic_names_[k].first;
    const std::string& leader = mimic_names_[k].second;
    const int f = internal::findName(m.joint_index_, follower, internal::namesOf(m.joints_));
    const int l = internal::findName(m.joint_index_, leader, internal::namesOf(m.joints_));
    if (f < 0) throw Error("model '" + m.name_ + "': mimic joint '" + follower + "' does not exist");
    if (l < 0) throw Error("model '" + m.name_ + "': joint '" + follower + "' mimics '" + leader + "', which does not exist");
    if (f == l) throw Error("model '" + m.name_ + "': joint '" + follower + "' mimics itself");
    if (m.joints_[f].nv != 1 || m.joints_[l].nv != 1) {
      throw Error("model '" + m.name_ + "': mimic coupling '" + follower + "' -> '" + leader + "' needs two one-DoF joints");
    }
    m.mimics_.push_back(MimicCoupling{f, l, mimic_values_[k].first, mimic_values_[k].second});
  }

  for (const NamedConfiguration& c : m.configurations_) {
    if (c.q.size() != m.nq_ || !c.q.allFinite()) {
      throw Error("model '" + m.name_ + "': configuration '" + c.name + "' has " + std::to_string(c.q.size()) +
                  " coordinates (or a non-finite one); the model has nq = " + std::to_string(m.nq_));
    }
  }
  for (const Actuator& a : m.actuators_) {
    if (a.joint < 1 || a.joint >= n || m.joints_[a.joint].nv != 1) {
      throw Error("model '" + m.name_ + "': actuator '" + a.name + "' needs a joint with one velocity coordinate");
    }
  }
  m.computeParameterKey();
}

}  // namespace abdyn
