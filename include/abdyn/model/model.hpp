#pragma once
/// @file
/// Model: the immutable description of a kinematic tree (Featherstone's model structure).
///
/// Bodies are numbered in topological order: 0 is the world (fixed base), and every body i >= 1 hangs
/// from its parent lambda(i) < i through joint i. Per body i the model holds
///   X_tree(i)   plx from parent-body coordinates to joint i's predecessor frame (constant),
///   joint(i)    the joint type, its axis and its slice of q and v,
///   inertia(i)  the spatial inertia in body-i coordinates (fixed-joint children merged in).
/// Build one with ModelBuilder or loadUrdf; per-call workspace lives in Data.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "abdyn/model/frame.hpp"
#include "abdyn/model/geometry.hpp"
#include "abdyn/model/joint.hpp"
#include "abdyn/spatial/rigid_body_inertia.hpp"

namespace abdyn {

/// Consecutive velocity coordinates first..last (inclusive) on one path to the root.
struct DofRun {
  int first;  ///<first coordinate of the run
  int last;  ///<last coordinate of the run (inclusive)
};

/// A declared coupling q_follower = multiplier * q_leader + offset between two one-DoF joints (URDF
/// mimic). Kept as data: the constraint solvers enforce it.
struct MimicCoupling {
  int follower = 0;  ///< joint (= body) index
  int leader = 0;  ///<joint (= body) index of the one-DoF joint followed
  double multiplier = 1.0;  ///<q_follower = multiplier * q_leader + offset
  double offset = 0.0;  ///<rad or m
};

/// A named configuration of the model (an MJCF `<key>`): q in the model's layout (nq numbers).
struct NamedConfiguration {
  std::string name;   ///< the key's name
  Eigen::VectorXd q;  ///< nq coordinates
};

/// A force source on one joint with one velocity coordinate (an MJCF `<motor>`, `<general>`, `<position>`, ...
/// whose transmission is a joint). A motor applies tau = gear * ctrl to the joint's coordinate; the other
/// kinds add gains and biases that abdyn does not model (`kind` names the element).
struct Actuator {
  std::string name;  ///< the actuator's name ("actuator<k>" when unnamed)
  std::string kind;  ///< the element that declared it: "motor", "general", "position", "velocity", ...
  int joint = 0;     ///< joint (= body) index
  double gear = 1.0;  ///< joint force per unit of control (motor)
  double ctrl_lower = -std::numeric_limits<double>::infinity();  ///< control range, lower end (-inf: none)
  double ctrl_upper = std::numeric_limits<double>::infinity();   ///< control range, upper end (+inf: none)
};

/// The immutable description of a kinematic tree: bodies, joints, inertias, frames, limits and
/// geometry (see the file comment). Built by ModelBuilder or the loaders; shared read-only by any number
/// of Data and threads.
class Model {
 public:
  /// The model's name (the URDF robot name).
  const std::string& name() const { return name_; }
  /// Number of bodies including the world (body 0).
  int nbodies() const { return static_cast<int>(parent_.size()); }
  /// Size of the configuration vector q (a floating joint has 7 coordinates).
  int nq() const { return nq_; }
  /// Size of the velocity vector v (and of tau, qdd; a floating joint has 6).
  int nv() const { return nv_; }

  // Every index accessor checks its index (one compare; a bad index throws abdyn::InvalidArgument naming
  // the accessor, the index and the valid range) so that no call through the public API reads out of bounds.

  /// Parent lambda(i) of body i (-1 for the world).
  int parent(int i) const { return parent_[checked(i, parent_.size(), "parent")]; }
  /// Every body's parent, indexed by body (entry 0, the world, is -1).
  const std::vector<int>& parents() const { return parent_; }
  /// Joint i connects parent(i) to body i (i >= 1).
  const Joint& joint(int i) const { return joints_[checked(i, joints_.size(), "joint")]; }
  /// The joint with this name; throws abdyn::Error naming it if there is none.
  const Joint& joint(const std::string& name) const { return joints_[jointId(name)]; }
  /// The body index of the joint with this name (joint i moves body i); throws if unknown.
  int jointId(const std::string& name) const;
  /// X_tree(i): parent-body coordinates to joint i's predecessor frame (constant).
  const Plx& Xtree(int i) const { return X_tree_[checked(i, X_tree_.size(), "Xtree")]; }
  /// Body i's spatial inertia in body-i coordinates (fixed-joint children merged in).
  const RigidBodyInertia& inertia(int i) const { return inertia_[checked(i, inertia_.size(), "inertia")]; }
  /// inertia(i) as its 6x6 matrix (angular first), formed once when the model is built.
  const Matrix6& inertiaMatrix(int i) const { return inertia_matrix_[checked(i, inertia_matrix_.size(), "inertiaMatrix")]; }
  /// Body i's name (its URDF link; "world" for body 0).
  const std::string& bodyName(int i) const { return body_names_[checked(i, body_names_.size(), "bodyName")]; }
  /// The body with this name; throws abdyn::Error if there is none (naming the body a merged link
  /// belongs to when the name is a frame).
  int bodyId(const std::string& name) const;
  /// Children of body i, in increasing order.
  const std::vector<int>& children(int i) const { return children_[checked(i, children_.size(), "children")]; }

  /// Every named frame, indexed by frame id.
  const std::vector<Frame>& frames() const { return frames_; }
  /// Frame f (see frameId).
  const Frame& frame(int f) const { return frames_[checked(f, frames_.size(), "frame")]; }
  /// Number of named frames.
  int nframes() const { return static_cast<int>(frames_.size()); }
  /// The frame with this name (every body has a frame of its own name); throws if unknown.
  int frameId(const std::string& name) const;

  /// Spatial acceleration of gravity in world coordinates, [0; g].
  const Motion& gravity() const { return gravity_; }
  /// The same model under another gravity vector (world coordinates).
  Model withGravity(const Vector3& g) const;

  /// A 64-bit digest of the tree's structure (parents, joint types, q and v layout), equal for copies and
  /// for models built alike (withGravity keeps it). Data remembers the key of the model it was built for,
  /// and every algorithm compares the two in O(1) to reject a Data that belongs to another model.
  std::uint64_t structureKey() const { return structure_key_; }
  /// A 64-bit digest of the dynamic parameters (gravity, tree transforms, joint axes, inertias, damping,
  /// armature, springs): equal for copies, different for models that differ only in those (withGravity
  /// gives another). Workspaces that copy parameters (BatchWorkspace) compare it to refuse another model.
  std::uint64_t parameterKey() const { return parameter_key_; }

  /// S: the 6 x nv motion subspace; columns idx_v .. idx_v + nv - 1 belong to joint i, in body-i coordinates.
  const Eigen::Matrix<double, 6, Eigen::Dynamic>& motionSubspace() const { return S_; }
  /// The body that velocity coordinate k moves.
  int dofBody(int k) const { return dof_body_[checked(k, dof_body_.size(), "dofBody")]; }
  /// The nearest velocity coordinate on the path from coordinate k to the root (-1 if none): the
  /// parent array of the mass matrix's sparsity pattern (Featherstone's lambda for LTDL).
  int dofParent(int k) const { return dof_parent_[checked(k, dof_parent_.size(), "dofParent")]; }

  /// The first coordinate of the run of consecutive coordinates ending at k along the path to the
  /// root: the smallest s <= k with dofParent(m) == m - 1 for every m in (s, k].
  int dofRunStart(int k) const { return dof_run_start_[checked(k, dof_run_start_.size(), "dofRunStart")]; }
  /// Where coordinate k's entries start in an array with one entry per strict ancestor pair, row by row
  /// (k = 0 .. nv; ancestorOffset(nv) == ancestorPairs()): the packed rows of the L^T D L factor
  /// (Data::factor_L) and of its pattern (Data::factor_ancestors). Coordinate k has
  /// ancestorOffset(k + 1) - ancestorOffset(k) strict ancestors. 64-bit: on deep chains the number of
  /// pairs, n (n - 1) / 2, passes 2^31 at n = 65,536.
  std::int64_t ancestorOffset(int k) const {
    return ancestor_offset_[checked(k, ancestor_offset_.size(), "ancestorOffset")];
  }
  /// The number of strict ancestor pairs (k, j): the nonzeros strictly below the diagonal of L. The pairs
  /// themselves (O(nv * depth)) are listed only by the algorithms that need them, in Data.
  std::int64_t ancestorPairs() const { return ancestor_offset_.back(); }
  /// The largest velocity coordinate in body i's subtree (its own last one for a leaf).
  int lastSubtreeDof(int i) const { return last_subtree_dof_[checked(i, last_subtree_dof_.size(), "lastSubtreeDof")]; }

  ///@{
  /// Lower and upper position limits per q coordinate (-inf / +inf where unbounded).
  const Eigen::VectorXd& lowerPositionLimit() const { return lower_; }
  const Eigen::VectorXd& upperPositionLimit() const { return upper_; }
  ///@}
  /// Velocity limit per v coordinate (rad/s or m/s; +inf where none).
  const Eigen::VectorXd& velocityLimit() const { return velocity_limit_; }
  /// Effort limit per v coordinate (N m or N; +inf where none).
  const Eigen::VectorXd& effortLimit() const { return effort_limit_; }
  /// Viscous damping per v coordinate (N m s / rad or N s / m).
  const Eigen::VectorXd& damping() const { return damping_; }
  /// Coulomb friction per v coordinate (N m or N).
  const Eigen::VectorXd& friction() const { return friction_; }
  /// Armature per v coordinate: rotor inertia reflected to the joint (kg m^2 or kg). On a floating joint
  /// it is the spatial inertia armature * 1 at the child's origin, with its velocity product (MuJoCo's
  /// free-joint armature; DynamicsOptions::armature).
  const Eigen::VectorXd& armature() const { return armature_; }
  /// Per v coordinate: joint spring stiffness (N m / rad or N / m; 0 where none). The spring force pulls
  /// each joint toward springReference(), as MuJoCo's qfrc_passive does: -stiffness (q - q_spring) for
  /// one-coordinate joints; for spherical and floating joints -stiffness times the rotation vector of
  /// q_spring^-1 q (in the child frame) and, for a floating joint's position, -stiffness (p - p_spring)
  /// in the parent frame, rotated into the child frame (abdyn's force coordinates).
  const Eigen::VectorXd& stiffness() const { return stiffness_; }
  /// Per q coordinate: the configuration the springs pull toward (MJCF springref; qpos0 for quaternion joints).
  const Eigen::VectorXd& springReference() const { return spring_reference_; }
  /// Whether some stiffness is nonzero (the dynamics skip the springs otherwise).
  bool hasSprings() const { return has_springs_; }

  /// Named configurations (MJCF keyframes), in file order.
  const std::vector<NamedConfiguration>& configurations() const { return configurations_; }
  /// Joint actuators (MJCF `<actuator>`), in file order.
  const std::vector<Actuator>& actuators() const { return actuators_; }
  /// The time step the description asks for (MJCF `<option timestep>`), in seconds; 0 when it gives none.
  double timestep() const { return timestep_; }

  /// The declared mimic couplings (enforced by the constraint solvers, not by the tree algorithms).
  const std::vector<MimicCoupling>& mimics() const { return mimics_; }
  /// Visual and collision shapes, each on its body.
  const std::vector<Geometry>& geometries() const { return geometries_; }

  /// Total mass of all bodies.
  double totalMass() const;
  /// True if some joint is floating (nq != nv).
  bool hasQuaternions() const { return nq_ != nv_; }

  /// Whether the model's dynamics are defined: false for a kinematic description whose mass matrix is
  /// singular (bodies without mass or inertia, e.g. a URDF file without `<inertial>`; see
  /// ModelBuilder::acceptKinematicsOnly). Kinematics, Jacobians and frames work on such a model; every call
  /// that needs its inertias (dynamics, mass matrix, energies, derivatives, constrained calls, integrators,
  /// Simulator, batch calls) throws abdyn::Error naming masslessBodies().
  bool hasDynamics() const { return has_dynamics_; }
  /// The bodies whose lack of mass or inertia leaves the mass matrix singular (empty when hasDynamics()).
  const std::vector<int>& masslessBodies() const { return massless_bodies_; }

 private:
  friend class ModelBuilder;

  [[noreturn]] void throwIndexError(const char* accessor, int index, std::size_t count) const;
  int checked(int index, std::size_t count, const char* accessor) const {
    if (static_cast<std::size_t>(static_cast<unsigned>(index)) >= count) throwIndexError(accessor, index, count);
    return index;
  }

  std::string name_;
  std::uint64_t structure_key_ = 0;
  std::uint64_t parameter_key_ = 0;
  void computeParameterKey();
  int nq_ = 0;
  int nv_ = 0;
  std::vector<int> parent_;
  std::vector<Joint> joints_;
  std::vector<Plx> X_tree_;
  std::vector<RigidBodyInertia> inertia_;
  std::vector<Matrix6> inertia_matrix_;
  std::vector<std::string> body_names_;
  std::vector<std::vector<int>> children_;
  std::vector<Frame> frames_;
  Motion gravity_;
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_;
  std::vector<int> dof_body_;
  std::vector<int> dof_parent_;
  std::vector<int> dof_run_start_;
  std::vector<std::int64_t> ancestor_offset_{0};
  std::vector<int> last_subtree_dof_;
  Eigen::VectorXd lower_, upper_;
  Eigen::VectorXd velocity_limit_, effort_limit_, damping_, friction_, armature_, stiffness_;
  Eigen::VectorXd spring_reference_;
  bool has_springs_ = false;
  std::vector<NamedConfiguration> configurations_;
  std::vector<Actuator> actuators_;
  double timestep_ = 0.0;
  std::vector<MimicCoupling> mimics_;
  std::vector<Geometry> geometries_;
  bool has_dynamics_ = true;
  std::vector<int> massless_bodies_;
  /// Names -> indices. Every body has a frame of its own name, so the frame index finds the bodies too;
  /// the joint index holds the named joints (1 .. nbodies - 1). Open-addressing tables of (hash, index)
  /// slots over the names frames_ and joints_ hold already: no node and no
  /// copy of a name per entry.
  std::vector<std::uint64_t> frame_index_, joint_index_;
};

}  // namespace abdyn
