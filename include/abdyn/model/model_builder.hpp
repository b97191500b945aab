#pragma once
/// @file
/// ModelBuilder: assembles a Model body by body (parents before children) and checks it on build().

#include <limits>
#include <string>
#include <vector>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// What a joint is, as a builder input. Revolute and prismatic joints about +x, +y or +z get the
/// fast-path types automatically.
struct JointSpec {
  JointType type = JointType::Revolute;  ///<the joint's type (axis-aligned fast paths are chosen by addBody)
  std::string name;  ///<the joint's name, unique in the model
  Vector3 axis = Vector3::UnitZ();   ///< unit axis (revolute, prismatic, helical) or plane normal (planar)
  Vector3 axis2 = Vector3::UnitX();  ///< planar: first in-plane direction, orthogonal to axis
  double pitch = 0.0;                ///< helical: metres per radian
  bool continuous = false;  ///<revolute without position limits (lower and upper ignored)
  /// Limits and joint dynamics apply to each coordinate of the joint (position limits only to
  /// one-DoF joints).
  double lower = -std::numeric_limits<double>::infinity();  ///<position limit, rad or m (one-DoF joints)
  double upper = std::numeric_limits<double>::infinity();  ///<position limit, rad or m (one-DoF joints)
  double velocity_limit = std::numeric_limits<double>::infinity();  ///<rad/s or m/s
  double effort_limit = std::numeric_limits<double>::infinity();  ///<N m or N
  double damping = 0.0;  ///<viscous damping, N m s / rad or N s / m
  double friction = 0.0;  ///<Coulomb friction, N m or N
  double armature = 0.0;  ///<rotor inertia reflected to the joint, kg m^2 or kg
  double stiffness = 0.0;  ///< spring stiffness of every coordinate (Model::stiffness), toward spring_reference
  /// The joint's nq coordinates the spring pulls toward; empty: the neutral configuration (zero, identity
  /// quaternion).
  Eigen::VectorXd spring_reference;
};

/// Assembles a Model body by body, parents before children; build() checks it and returns the Model.
class ModelBuilder {
 public:
  /// An empty model named model_name whose body 0 (the world) is named world_name.
  explicit ModelBuilder(std::string model_name = "model", std::string world_name = "world");

  /// Gravity in world coordinates (default (0, 0, -9.81)).
  void setGravity(const Vector3& g);
  /// Adds body `name` moved by `joint` relative to `parent`; X_tree maps parent-body coordinates into
  /// the joint's predecessor frame. Returns the new body's index. Throws abdyn::Error on a bad parent,
  /// a duplicate name, a non-unit or zero axis, or lower > upper.
  int addBody(int parent, const JointSpec& joint, const Plx& X_tree, const RigidBodyInertia& inertia,
              const std::string& name);
  /// Adds `inertia` (in body coordinates) to an existing body, e.g. a link merged through a fixed joint.
  void addInertia(int body, const RigidBodyInertia& inertia);
  /// Adds a named frame on `body` with placement X_frame_body. Returns its index.
  int addFrame(const std::string& name, int body, const Plx& X_frame_body, FrameType type = FrameType::User);
  /// Declares q_follower = multiplier * q_leader + offset between two existing one-DoF joints.
  void addMimic(const std::string& follower_joint, const std::string& leader_joint, double multiplier,
                double offset);
  /// Adds a visual or collision shape on geometry.body; a collision mesh on the world (body 0) gets its
  /// triangles' hierarchy (withTriangleBvh), which the contacts with exact static meshes use.
  void addGeometry(const Geometry& geometry);
  /// Adds a named configuration (nq numbers, checked by build()).
  void addConfiguration(const NamedConfiguration& configuration);
  /// Adds a joint actuator (its joint must have one velocity coordinate; checked by build()).
  void addActuator(const Actuator& actuator);
  /// The time step the description asks for (s, > 0 and finite).
  void setTimestep(double timestep);
  /// Makes room for `bodies` bodies (the world included) and as many frames, so that adding them
  /// reallocates nothing (loaders that know the count call it first).
  void reserve(int bodies);
  /// Number of bodies so far, the world included.
  int nbodies() const { return model_.nbodies(); }
  /// The inertia accumulated on `body` so far, in body coordinates.
  const RigidBodyInertia& inertia(int body) const { return model_.inertia_[body]; }

  /// Lets build() return a kinematic description instead of refusing it: a model in which a moving joint
  /// moves only bodies without mass or inertia gets Model::hasDynamics() false, with those bodies in
  /// Model::masslessBodies(), rather than an abdyn::Error.
  void acceptKinematicsOnly() { accept_kinematics_only_ = true; }
  /// Marks the model to build as a kinematic description (Model::hasDynamics() false) whose mass matrix
  /// is singular because of `bodies` (body indices): for loaders whose own test of M finds it singular.
  void markKinematicsOnly(std::vector<int> bodies);
  /// Checks the whole model (every moving joint must move some mass or inertia, unless
  /// acceptKinematicsOnly) and returns it.
  Model build() const&;
  /// The same without copying the bodies: they move into the model (std::move(builder).build()), and the
  /// builder holds none afterwards.
  Model build() &&;

 private:
  /// Computes the model's derived structure from the bodies and checks it: the body of both build()s.
  void finish(Model& m) const;

  Model model_;
  std::vector<JointSpec> specs_;
  std::vector<std::pair<std::string, std::string>> mimic_names_;
  std::vector<std::pair<double, double>> mimic_values_;
  bool accept_kinematics_only_ = false;
  bool kinematics_only_ = false;
  std::vector<int> marked_massless_;
};

}  // namespace abdyn
