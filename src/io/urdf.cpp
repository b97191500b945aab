#include "abdyn/io/urdf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>
#include <spdlog/fmt/fmt.h>

#include "abdyn/algorithms/crba.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/mesh.hpp"
#include "abdyn/io/resource_resolver.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/spatial/euler.hpp"
#include "io/mass_matrix_diagnosis.hpp"
#include "io/urdf_document.hpp"
#include "io/urdf_loader.hpp"
#include "io/urdf_tree.hpp"
#include "io/xml_limits.hpp"

namespace abdyn {
namespace {

using internal::UrdfDocument;
using internal::UrdfJoint;
using internal::UrdfJointType;
using internal::UrdfLink;
using internal::UrdfPose;
using internal::UrdfShape;
using internal::UrdfTree;

// ---------------------------------------------------------------------------------------------------
// From the document (io/urdf_document.hpp: the XML read into plain structs) and its tree
// (io/urdf_tree.hpp) to abdyn's Model. Frames: a joint's <origin> places the joint frame in the parent
// link's frame, and the child link's frame is the joint frame at q = 0; Plx X_A_B maps B coordinates to
// A coordinates (plx.hpp), so X_joint_body = X_joint_parentlink * X_parentlink_body.

std::string quoted(const std::string& kind, const std::string& name) { return kind + " '" + name + "'"; }

// The coordinate axis least aligned with n (the first on ties), made orthogonal to the unit vector n.
Vector3 inPlaneDirection(const Vector3& n) {
  int k = 0;
  for (int i = 1; i < 3; ++i) {
    if (std::abs(n[i]) < std::abs(n[k])) k = i;
  }
  const Vector3 e = Vector3::Unit(k);
  return (e - e.dot(n) * n).normalized();
}

// Advice in the messages of files whose mass matrix is singular.
constexpr const char* kBoundAdvice =
    "UrdfOptions::bound_mass and bound_inertia (abdyn --bound-mass M --bound-inertia I) give every moving body "
    "a minimum mass and principal inertia, and load it";

// Principal moments l1 <= l2 <= l3 and axes of a symmetric 3x3 inertia.
struct PrincipalInertia {
  Vector3 moments;
  Matrix3 axes;  // columns: the principal directions
};

PrincipalInertia principal(const Matrix3& I) {
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig(0.5 * (I + I.transpose()));
  return PrincipalInertia{eig.eigenvalues(), eig.eigenvectors()};
}

std::string listNames(const std::vector<std::string>& names, std::size_t shown = 6) {
  std::string out;
  for (std::size_t k = 0; k < names.size() && k < shown; ++k) out += (k ? ", '" : "'") + names[k] + "'";
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

class UrdfLoader {
 public:
  UrdfLoader(const UrdfDocument& doc, const UrdfTree& tree, std::string source, const UrdfOptions& options,
             ResourceSearch search)
      : doc_(doc), tree_(tree), source_(std::move(source)), options_(options), search_(std::move(search)),
        builder_(doc.name, "world"),
        body_link_{-1}, last_link_{-1} {}

  Model load() {
    if (!options_.gravity.allFinite()) fail("UrdfOptions::gravity is not finite");
    if (!std::isfinite(options_.bound_mass) || options_.bound_mass < 0.0) {
      fail(fmt::format("UrdfOptions::bound_mass must be finite and not negative, not {}", options_.bound_mass));
    }
    if (!std::isfinite(options_.bound_inertia) || options_.bound_inertia < 0.0) {
      fail(fmt::format("UrdfOptions::bound_inertia must be finite and not negative, not {}", options_.bound_inertia));
    }
    if (options_.max_hull_vertices < 0 || (options_.max_hull_vertices > 0 && options_.max_hull_vertices < 4)) {
      fail(fmt::format("UrdfOptions::max_hull_vertices must be 0 (no bound) or at least 4, not {}", options_.max_hull_vertices));
    }
    builder_.setGravity(options_.gravity);
    // At most one body per link, and the world.
    builder_.reserve(static_cast<int>(doc_.links.size()) + 1);
    for (std::vector<int>* v : {&body_link_, &last_link_}) v->reserve(doc_.links.size() + 1);
    next_link_.assign(doc_.links.size(), -1);
    for (const std::string& what : doc_.doubts) doubt(what);
    for (const std::string& what : doc_.warnings) warn(what);
    checkTopology();
    largest_trace_ = largestTrace();
    walkTree();
    checkBodyInertias();
    builder_.acceptKinematicsOnly();
    // M is checked below (up to internal::kDiagnosisDofs coordinates): the builder is kept for a rebuild then.
    const bool keep_builder = builder_.nbodies() <= internal::kDiagnosisDofs + 1;
    const auto build = [&](bool keep) {
      try {
        return keep ? builder_.build() : std::move(builder_).build();
      } catch (const Error& e) {
        throw Error(source_ + ": " + e.what());
      }
    };
    Model model = build(keep_builder);
    if (!model.hasDynamics()) {
      kinematicsOnly(model, model.masslessBodies(), "");
    } else if (const std::vector<int> light = checkMassMatrix(model); !light.empty() || !model_singular_.empty()) {
      builder_.markKinematicsOnly(light);
      model = build(false);
      kinematicsOnly(model, light, model_singular_);
    }
    return model;
  }

  int warnings() const { return warnings_; }

 private:
  // A link still to be added: the child of `joint`, whose parent link lies in `parent_body` with
  // placement X_parentlink_body (body coordinates to parent-link coordinates).
  struct Pending {
    int joint;  // index in the document
    int parent_body;
    Plx X_parentlink_body;
  };

  [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

  void warn(const std::string& what) {
    logger()->warn("{}: {}", source_, what);
    ++warnings_;
  }

  // Something doubtful that the loader can get past: a warning, or an error under UrdfOptions::strict.
  void doubt(const std::string& what) {
    if (options_.strict) fail(what + " (refused by UrdfOptions::strict)");
    warn(what);
  }

  // The inertia tolerance (urdf.hpp): rounding relative to the inertia itself, and zero at the
  // precision of the whole file.
  double tolerance(double trace) const { return 1e-9 * std::abs(trace) + 1e-15 * largest_trace_; }

  double largestTrace() const {
    double largest = 0.0;
    for (const UrdfLink& link : doc_.links) {
      if (!link.inertial) continue;
      const double trace = link.inertial->ixx + link.inertial->iyy + link.inertial->izz;  // invariant under rotation
      if (std::isfinite(trace)) largest = std::max(largest, trace);
    }
    return largest;
  }

  // The root link 'world' set free: its only child joint, which must be fixed (urdf.hpp).
  const UrdfJoint& worldWeld() const {
    const UrdfTree::Joints children = tree_.childJoints(tree_.root);
    if (children.size() != 1) {
      fail(fmt::format("UrdfOptions::floating_base is set, but the root link 'world' has {} child joints: only a "
                       "single link welded to 'world' can be set free",
                       children.size()));
    }
    const UrdfJoint& joint = doc_.joints[*children.begin()];
    if (joint.type != UrdfJointType::Fixed) {
      fail(fmt::format("UrdfOptions::floating_base is set, but the root link 'world' holds link '{}' by the moving "
                       "joint '{}': load the file without floating_base",
                       joint.child, joint.name));
    }
    return joint;
  }

  // The tree itself is checked by buildUrdfTree; here, the names abdyn gives a meaning.
  void checkTopology() const {
    const std::string& root = doc_.links[tree_.root].name;
    if (root != "world" && tree_.link("world") >= 0) {
      fail("link 'world' is not the root link (the root is '" + root +
           "'), but 'world' names the fixed world body");
    }
    if (options_.floating_base) {
      // The weld from 'world' disappears when its child floats, so it may bear the name.
      const bool weld_is_root_joint = root == "world" && worldWeld().name == "root_joint";
      if (tree_.joint("root_joint") >= 0 && !weld_is_root_joint) {
        fail("joint 'root_joint' is defined in the file, but UrdfOptions::floating_base needs that name "
             "for the joint of the root link");
      }
    }
  }

  // Depth-first preorder with an explicit stack, so that chains of any length fit on the call stack.
  void walkTree() {
    reached_.assign(doc_.links.size(), false);
    int root = tree_.root;
    if (options_.floating_base && doc_.links[root].name == "world") {
      // 'world' is body 0 and keeps its geometry; the link welded to it becomes the floating root.
      linkInertia(doc_.links[root], true);
      addGeometries(doc_.links[root], 0, Plx());
      reached_[root] = true;
      root = tree_.link(worldWeld().child);
    }
    const UrdfLink& root_link = doc_.links[root];
    const RigidBodyInertia root_inertia = linkInertia(root_link, !options_.floating_base);
    int root_body = 0;
    if (options_.floating_base) {
      JointSpec spec;
      spec.type = JointType::Floating;
      spec.name = "root_joint";
      root_body = addBody("link", root_link.name, 0, spec, Plx(), root_inertia, root);
    } else if (root_link.name != "world") {
      builderCall("link", root_link.name, [&] { return builder_.addFrame(root_link.name, 0, Plx(), FrameType::Fixed); });
    }
    addGeometries(root_link, root_body, Plx());
    reached_[root] = true;
    std::size_t reached = options_.floating_base && root != tree_.root ? 2 : 1;

    std::vector<Pending> stack;
    pushChildren(root, root_body, Plx(), stack);
    while (!stack.empty()) {
      const Pending item = stack.back();
      stack.pop_back();
      const UrdfJoint& joint = doc_.joints[item.joint];
      const int child_index = tree_.joint_child[item.joint];
      const UrdfLink& child = doc_.links[child_index];
      // X_joint_parentlink (the joint frame's <origin> in the parent link), composed with the parent
      // link's place in its body: X_joint_body.
      const Plx X_joint_body = placement(joint.origin) * item.X_parentlink_body;
      if (!X_joint_body.E().allFinite() || !X_joint_body.r().allFinite()) {
        fail(quoted("joint", joint.name) + ": the placement of its frame in body '" + bodyName(item.parent_body) +
             "' overflows");
      }
      const bool fixed = joint.type == UrdfJointType::Fixed;
      // The world does not move: what is welded to it needs no inertia.
      const RigidBodyInertia inertia = linkInertia(child, fixed && item.parent_body == 0);

      int body = item.parent_body;
      Plx X_link_body;
      if (fixed) {
        if (joint.mimic) doubt(quoted("joint", joint.name) + " is fixed but has a <mimic> element, which is ignored");
        X_link_body = X_joint_body;
        builderCall("link", child.name, [&] { return builder_.addFrame(child.name, body, X_link_body, FrameType::Fixed); });
        if (body != 0) {
          builder_.addInertia(body, X_link_body.applyInverse(inertia));
          next_link_[last_link_[body]] = child_index;
          last_link_[body] = child_index;
        }
      } else {
        const JointSpec spec = jointSpec(joint);
        body = addBody("joint", joint.name, item.parent_body, spec, X_joint_body, inertia, child_index);
        if (joint.mimic) addMimic(joint);
      }
      addGeometries(child, body, X_link_body);
      reached_[child_index] = true;
      ++reached;
      pushChildren(child_index, body, X_link_body, stack);
    }

    // Every link but the root has exactly one parent joint (buildUrdfTree), so the links the walk
    // missed hang from each other in a cycle.
    if (reached != doc_.links.size()) {
      std::vector<std::string> missed;
      for (std::size_t l = 0; l < doc_.links.size(); ++l) {
        if (!reached_[l]) missed.push_back(doc_.links[l].name);
      }
      std::sort(missed.begin(), missed.end());
      std::string names;
      for (const std::string& name : missed) names += (names.empty() ? "'" : ", '") + name + "'";
      const bool one = missed.size() == 1;
      fail(fmt::format("{} {} {} not connected to the root link '{}': {} parent joints form a cycle", one ? "link" : "links",
                       names, one ? "is" : "are", root_link.name, one ? "its" : "their"));
    }
  }

  // A coupling whose leader is missing or fixed has nothing to follow: it is dropped, so that no
  // algorithm ever sees it.
  void addMimic(const UrdfJoint& joint) {
    const std::string where = quoted("joint", joint.name);
    const internal::UrdfMimic& mimic = *joint.mimic;
    const int leader = tree_.joint(mimic.joint);
    if (leader < 0) {
      doubt(fmt::format("{}: <mimic> names joint '{}', which does not exist; the coupling is dropped", where,
                        mimic.joint));
    } else if (doc_.joints[leader].type == UrdfJointType::Fixed) {
      doubt(fmt::format("{}: <mimic> names joint '{}', which is fixed; the coupling is dropped", where, mimic.joint));
    } else {
      builder_.addMimic(joint.name, mimic.joint, mimic.multiplier, mimic.offset);
    }
  }

  // Children in reverse, so that the stack pops them in the tree's (joint name) order.
  void pushChildren(int link, int body, const Plx& X_link_body, std::vector<Pending>& stack) const {
    const UrdfTree::Joints children = tree_.childJoints(link);
    for (const int* j = children.last; j != children.first; --j) stack.push_back(Pending{j[-1], body, X_link_body});
  }

  // Adds the body of document link `link`; `kind` and `name` say which element an error is about.
  int addBody(const char* kind, const std::string& name, int parent, const JointSpec& spec, const Plx& X_tree,
              const RigidBodyInertia& inertia, int link) {
    const int body = builderCall(kind, name, [&] { return builder_.addBody(parent, spec, X_tree, inertia, doc_.links[link].name); });
    body_link_.push_back(link);
    last_link_.push_back(link);
    return body;
  }

  const std::string& bodyName(int body) const { return body == 0 ? kWorld : doc_.links[body_link_[body]].name; }
  // The names of the links merged into a body (its own first), in the order the walk met them.
  std::vector<std::string> bodyLinks(int body) const {
    std::vector<std::string> links;
    for (int l = body == 0 ? -1 : body_link_[body]; l >= 0; l = next_link_[l]) links.push_back(doc_.links[l].name);
    return links;
  }

  JointSpec jointSpec(const UrdfJoint& joint) {
    const std::string where = quoted("joint", joint.name);
    JointSpec spec;
    spec.name = joint.name;
    bool has_axis = true;
    bool has_position_limits = false;
    switch (joint.type) {
      case UrdfJointType::Revolute:
        spec.type = JointType::Revolute;
        has_position_limits = true;
        break;
      case UrdfJointType::Continuous:
        spec.type = JointType::Revolute;
        spec.continuous = true;
        break;
      case UrdfJointType::Prismatic:
        spec.type = JointType::Prismatic;
        has_position_limits = true;
        break;
      case UrdfJointType::Planar:
        spec.type = JointType::Planar;
        break;
      case UrdfJointType::Floating:
        spec.type = JointType::Floating;
        has_axis = false;
        break;
      case UrdfJointType::Spherical:
        spec.type = JointType::Spherical;
        has_axis = false;
        break;
      case UrdfJointType::Fixed:
        fail(where + " has no moving joint type");
    }

    if (has_axis) {
      const Vector3 axis = joint.axis;
      if (!axis.allFinite()) fail(where + ": <axis> has a non-finite number");
      // stableNorm: an axis of huge components is still a direction.
      const double norm = axis.stableNorm();
      if (norm == 0.0) fail(where + " has a zero-length axis");
      if (std::abs(norm - 1.0) > 1e-9) {
        warn(fmt::format("joint '{}': axis ({}, {}, {}) has length {}; normalised", joint.name, axis.x(), axis.y(),
                         axis.z(), norm));
      }
      spec.axis = axis / norm;
      if (spec.type == JointType::Planar) spec.axis2 = inPlaneDirection(spec.axis);
    }

    if (joint.limit) {
      const internal::UrdfLimit& l = *joint.limit;
      // Absent effort or velocity (the reader has warned): no limit.
      const double effort = l.effort.value_or(spec.effort_limit), velocity = l.velocity.value_or(spec.velocity_limit);
      if (!std::isfinite(l.lower) || !std::isfinite(l.upper) || std::isnan(effort) || std::isnan(velocity)) {
        fail(where + ": <limit> has a non-finite number");
      }
      // Some files write -1 for "not given": nothing is limited then.
      if (effort < 0.0) {
        doubt(fmt::format("{}: negative effort limit {} taken as no limit", where, effort));
      } else {
        spec.effort_limit = effort;
      }
      if (velocity < 0.0) {
        doubt(fmt::format("{}: negative velocity limit {} taken as no limit", where, velocity));
      } else {
        spec.velocity_limit = velocity;
      }
      if (has_position_limits) {
        // Contradictory limits cannot be obeyed; like a negative effort they say nothing usable.
        if (l.lower > l.upper) {
          doubt(fmt::format("{}: lower limit {} is above upper limit {}: position limits ignored", where, l.lower, l.upper));
        } else {
          spec.lower = l.lower;
          spec.upper = l.upper;
        }
      }
    }

    if (joint.dynamics) {
      const internal::UrdfDynamics& d = *joint.dynamics;
      if (!std::isfinite(d.damping) || !std::isfinite(d.friction)) fail(where + ": <dynamics> has a non-finite number");
      if (d.damping < 0.0) fail(fmt::format("{}: negative damping {}", where, d.damping));
      if (d.friction < 0.0) fail(fmt::format("{}: negative friction {}", where, d.friction));
      spec.damping = d.damping;
      spec.friction = d.friction;
    }
    return spec;
  }


  // The link's inertia in link coordinates, judged by the rules of urdf.hpp. <inertial> gives the mass,
  // the pose of the inertial frame in the link frame (its origin is the centre of mass) and the
  // rotational inertia about the centre of mass in inertial-frame axes: in link axes it is R I R^T.
  // `welded_to_world`: the inertia is dropped, so only its numbers are checked.
  RigidBodyInertia linkInertia(const UrdfLink& link, bool welded_to_world) {
    if (!link.inertial) return RigidBodyInertia();
    const internal::UrdfInertial& in = *link.inertial;
    const std::string where = quoted("link", link.name);
    const double m = in.mass;
    Matrix3 I;
    I << in.ixx, in.ixy, in.ixz,
         in.ixy, in.iyy, in.iyz,
         in.ixz, in.iyz, in.izz;
    if (!std::isfinite(m) || !I.allFinite()) fail(where + ": <inertial> has a non-finite number");
    if (m < 0.0) fail(fmt::format("{}: negative mass {}", where, m));
    const Plx X_inertial_link = placement(in.origin);
    if (welded_to_world) return RigidBodyInertia();

    const PrincipalInertia p = principal(I);
    const Vector3& l = p.moments;
    const double tol = tolerance(l.sum());
    if (m == 0.0 && l.cwiseAbs().maxCoeff() <= tol) return RigidBodyInertia();  // numerically zero
    if (l(0) < -tol) {
      indefinite_links_.insert(link.name);
      const std::string what =
          fmt::format("{}: rotational inertia is not positive semi-definite (principal moments {:.6g}, {:.6g}, {:.6g}; tolerance {:.3g})",
                      where, l(0), l(1), l(2), tol);
      if (options_.accept_invalid_inertia) {
        warn(what + "; accepted (accept_invalid_inertia)");
      } else {
        doubt(what + "; kept as written, the body it belongs to is checked");
      }
    } else if (l(2) - l(0) - l(1) > 1e-6 * l.sum() + tol) {
      const std::string what =
          fmt::format("{}: principal moments {:.6g}, {:.6g}, {:.6g} violate the triangle inequality (I1 + I2 >= I3) by {:.3g}%",
                      where, l(0), l(1), l(2), 100.0 * (l(2) - l(0) - l(1)) / l(2));
      if (options_.balance_inertia) {
        I = Matrix3::Identity() * (l.sum() / 3.0);
        warn(fmt::format("{}; rebalanced to {:.6g} each (balance_inertia)", what, l.sum() / 3.0));
      } else if (options_.accept_invalid_inertia) {
        warn(what + "; accepted (accept_invalid_inertia)");
      } else {
        doubt(what + "; kept as written (UrdfOptions::balance_inertia rebalances it)");
      }
    }
    const Matrix3 R = X_inertial_link.E().transpose();
    const Matrix3 Ic = R * I * R.transpose();
    return RigidBodyInertia::unchecked(m, X_inertial_link.r(), 0.5 * (Ic + Ic.transpose()));
  }
  // Visuals first, then collisions, each in file order (the order of models loaded through urdfdom).
  void addGeometries(const UrdfLink& link, int body, const Plx& X_link_body) {
    for (const GeometryRole role : {GeometryRole::Visual, GeometryRole::Collision}) {
      for (const UrdfShape& shape : link.shapes) {
        if (shape.role == role) addGeometry(link, shape, body, X_link_body);
      }
    }
  }

  void addGeometry(const UrdfLink& link, const UrdfShape& shape, int body, const Plx& X_link_body) {
    const std::string where = quoted("link", link.name) +
                              (shape.role == GeometryRole::Visual ? ": visual '" : ": collision '") + shape.name + "'";
    // A shape cannot change the model: a bad one is dropped with a warning (refused under strict).
    const auto drop = [&](const std::string& why) {
      doubt(where + ": " + why + "; the shape is dropped" +
            (shape.role == GeometryRole::Collision ? " (Simulator contacts will not see it)" : ""));
    };
    if (!shape.problem.empty()) return drop(shape.problem);
    Geometry g;
    g.name = shape.name;
    g.link = link.name;
    g.role = shape.role;
    g.body = body;
    g.X_geometry_body = placement(shape.origin) * X_link_body;
    if (!g.X_geometry_body.E().allFinite() || !g.X_geometry_body.r().allFinite()) {
      return drop("its placement in body '" + bodyName(body) + "' overflows");
    }
    g.shape = shape.shape;
    g.size = shape.size;
    g.mesh_filename = shape.mesh_filename;
    g.mesh_scale = shape.mesh_scale;  // a negative scale mirrors a mesh, which some files rely on
    if ((g.size.array() < 0.0).any()) return drop("shape size is negative");
    if (g.shape == ShapeType::Mesh && g.role == GeometryRole::Collision && options_.load_collision_meshes) {
      g.mesh = collisionMesh(where, g);
    }
    builder_.addGeometry(g);
  }

  // The mesh file of a collision shape, read and hulled once per file and scale; null after a warning when it
  // cannot be found or read.
  std::shared_ptr<const MeshShape> collisionMesh(const std::string& where, const Geometry& g) {
    const std::optional<std::string> file = resolveResource(g.mesh_filename, search_, source_ + ": " + where);
    if (!file) return nullptr;  // resolveResource warned, naming every place it searched
    const auto key = std::make_pair(*file, std::array<double, 3>{g.mesh_scale.x(), g.mesh_scale.y(), g.mesh_scale.z()});
    const auto found = meshes_.find(key);
    if (found != meshes_.end()) return found->second;
    std::shared_ptr<const MeshShape> shape;
    try {
      shape = makeMeshShape(readMesh(*file), g.mesh_scale, options_.max_hull_vertices, *file);
    } catch (const Error& e) {
      warn(where + ": " + e.what() + "; the shape keeps no mesh (Simulator contacts will not see it)");
    }
    meshes_.emplace(key, shape);
    return shape;
  }

  // X_frame_parent from an <origin>: the pose (xyz, rpy) of the frame in its parent's frame, whose
  // rotation R = Rz(yaw) Ry(pitch) Rx(roll) (or that of the quaternion, when the document has one) maps
  // frame coordinates to parent coordinates (urdf_document.hpp). The reader has checked that the numbers
  // are finite.
  static Plx placement(const UrdfPose& pose) {
    return Plx::fromPose(pose.rotation ? pose.rotation->toRotationMatrix() : rpyToMatrix(pose.rpy), pose.xyz);
  }

  // The composite inertia of each moving body (its links merged) must be positive semi-definite within
  // the tolerance; then the bounds of UrdfOptions apply to it.
  void checkBodyInertias() {
    for (int i = 1; i < builder_.nbodies(); ++i) {
      const RigidBodyInertia I = builder_.inertia(i);
      if (!std::isfinite(I.mass()) || !I.com().allFinite() || !I.inertiaAboutCom().allFinite()) {
        fail("body '" + bodyName(i) + "': the inertia assembled from its links is invalid: it overflows");
      }
      const PrincipalInertia p = principal(I.inertiaAboutCom());
      const Vector3& l = p.moments;
      if (l(0) < -tolerance(l.sum())) {
        std::vector<std::string> culprits;
        for (const std::string& link : bodyLinks(i)) {
          if (indefinite_links_.count(link)) culprits.push_back(link);
        }
        const std::string what = fmt::format(
            "body '{}' has an invalid inertia: the rotational inertia assembled from its links is not positive "
            "semi-definite (principal moments {:.6g}, {:.6g}, {:.6g}){}",
            bodyName(i), l(0), l(1), l(2),
            culprits.empty() ? std::string() : ", because of link " + listNames(culprits));
        if (!options_.accept_invalid_inertia) fail(what + " (UrdfOptions::accept_invalid_inertia loads it anyway)");
        warn(what + "; accepted (accept_invalid_inertia)");
      }
      applyBounds(i, I, p);
    }
  }

  // MuJoCo's boundmass and boundinertia: the mass raised at the centre of mass, the principal moments
  // raised about their own axes. Adding (dm, c, dI) at the body's own centre of mass c adds no
  // parallel-axis term.
  void applyBounds(int body, const RigidBodyInertia& I, const PrincipalInertia& p) {
    if (options_.bound_mass <= 0.0 && options_.bound_inertia <= 0.0) return;
    const double dm = std::max(0.0, options_.bound_mass - I.mass());
    const Vector3 dl = options_.bound_inertia > 0.0
                           ? Vector3((p.moments.array().max(options_.bound_inertia) - p.moments.array()).matrix())
                           : Vector3::Zero();
    if (dm == 0.0 && dl.isZero(0.0)) return;
    builder_.addInertia(body, RigidBodyInertia::unchecked(dm, I.com(), p.axes * dl.asDiagonal() * p.axes.transpose()));
    const RigidBodyInertia& J = builder_.inertia(body);
    logger()->info("{}: body '{}': mass {} -> {}, principal moments {}, {}, {} raised to at least {} (bound_mass, "
                   "bound_inertia)",
                   source_, bodyName(body), I.mass(), J.mass(), p.moments(0), p.moments(1), p.moments(2),
                   options_.bound_inertia);
  }

  // A model whose mass matrix is singular loads as a kinematic description (Model::hasDynamics false),
  // with one warning naming its massless bodies and the options that give them dynamics; `why` is the
  // singular joint when the factorisation found it, empty when joints move only massless bodies.
  void kinematicsOnly(const Model& model, const std::vector<int>& bodies, const std::string& why) {
    const bool no_inertial = std::none_of(doc_.links.begin(), doc_.links.end(), [](const UrdfLink& l) { return l.inertial.has_value(); });
    std::vector<std::string> names;
    for (const int body : bodies) names.push_back(model.bodyName(body));
    std::string what = no_inertial ? "no link has an <inertial>, so the mass matrix is singular"
                                   : "the mass matrix is singular" + why;
    if (!names.empty()) {
      what += fmt::format("; {} of the {} moving bodies have no mass or inertia: {}", names.size(), model.nbodies() - 1,
                          listNames(names));
    }
    doubt(what + ". Loaded as a kinematic model: kinematics, Jacobians and frames work, dynamics calls (and abdyn "
                 "simulate) refuse it; " + kBoundAdvice + ", which gives it dynamics");
  }

  // M(q) must be positive definite (io/mass_matrix_diagnosis.hpp): a singular pivot at a generic
  // configuration refuses the file, one at the neutral configuration only is a warning. Models beyond
  // kDiagnosisDofs coordinates skip the factorisation; their joints are still checked to move some mass.
  // Returns the bodies with degenerate inertia beyond a joint whose pivot vanishes (model_singular_ says
  // which joint), empty if M is regular.
  std::vector<int> checkMassMatrix(const Model& model) {
    if (model.nv() == 0 || model.nv() > internal::kDiagnosisDofs) return {};
    Data data(model);
    const int k = internal::singularCoordinate(model, data, internal::genericConfiguration(model));
    std::vector<int> light;
    if (k >= 0) {
      model_singular_ = fmt::format(" at joint '{}'{}", model.joint(model.dofBody(k)).name, singularity(model, k, light));
      return light;
    }
    const int k0 = internal::singularCoordinate(model, data, neutral(model));
    if (k0 >= 0) {
      warn(fmt::format("joint '{}': the mass matrix is singular at the neutral configuration (but not in general){}; "
                       "start simulations elsewhere",
                       model.joint(model.dofBody(k0)).name, singularity(model, k0, light)));
    }
    return {};
  }

  // Which coordinate of the joint, and the links beyond it without mass or with a degenerate inertia.
  // `light_bodies` receives those bodies.
  std::string singularity(const Model& model, int k, std::vector<int>& light_bodies) const {
    const int body = model.dofBody(k);
    std::vector<std::string> light;
    light_bodies.clear();
    for (int j = body; j < model.nbodies(); ++j) {
      int a = j;
      while (a > body) a = model.parent(a);
      if (a != body) continue;
      const RigidBodyInertia& I = model.inertia(j);
      if (I.mass() == 0.0 || principal(I.inertiaAboutCom()).moments(0) <= tolerance(I.inertiaAboutCom().trace())) {
        const std::vector<std::string> own = bodyLinks(j);
        light.insert(light.end(), own.begin(), own.end());
        light_bodies.push_back(j);
      }
    }
    return fmt::format(" (its coordinate {} has no inertia of its own: the bodies it carries follow its motion at no "
                       "cost{})",
                       k - model.joint(body).idx_v,
                       light.empty() ? std::string() : "; massless or point-like links: " + listNames(light));
  }

  // Runs a builder call, naming the URDF element (kind 'name') in its error message.
  template <class Call>
  auto builderCall(const char* kind, const std::string& name, Call&& call) const -> decltype(call()) {
    try {
      return call();
    } catch (const Error& e) {
      throw Error(source_ + ": " + quoted(kind, name) + ": " + e.what());
    }
  }

  const UrdfDocument& doc_;
  const UrdfTree& tree_;
  std::string source_;
  const UrdfOptions& options_;
  ResourceSearch search_;  // where mesh files are found
  std::map<std::pair<std::string, std::array<double, 3>>, std::shared_ptr<const MeshShape>> meshes_;  // by file and scale
  ModelBuilder builder_;
  // By body: its own link (document index; -1 for the world) and the last link merged into it; by link, the next link merged
  // into the same body (-1 after the last): each body's links as one list through next_link_, no
  // vector per body.
  static inline const std::string kWorld = "world";
  std::vector<int> body_link_;
  std::vector<int> last_link_;
  std::vector<int> next_link_;
  std::vector<bool> reached_;  // by link: added, as a body or a frame
  std::unordered_set<std::string> indefinite_links_;
  std::string model_singular_;  // where the factorisation of M found it singular ("" if it did not)
  double largest_trace_ = 0.0;
  int warnings_ = 0;
};

Model loadFromXml(const std::string& xml, const std::string& source, const UrdfOptions& options,
                  ResourceSearch search) {
  internal::XmlOutline outline;
  internal::checkXmlLimits(xml, source, {}, &outline);  // before the XML parser sees the text
  // A xacro source fails somewhere (a ${...} where a number belongs, a link its macro would define): the
  // message says what the file is.
  try {
    return internal::loadUrdfDocument(internal::readUrdfDocument(xml, source, outline), source, options, std::move(search));
  } catch (const Error& e) {
    if (!internal::looksLikeXacro(xml)) throw;
    throw Error(std::string(e.what()) + "; the file holds xacro markup (<xacro:...>, ${...}): it is a xacro source, "
                "not a URDF; expand it first: " + internal::kXacroAdvice);
  }
}

}  // namespace

Model internal::loadUrdfDocument(const UrdfDocument& doc, const std::string& source, const UrdfOptions& options,
                                 ResourceSearch search) {
  const UrdfTree tree = internal::buildUrdfTree(doc, source);
  UrdfLoader loader(doc, tree, source, options, std::move(search));
  Model model = loader.load();
  logger()->debug("{}: loaded model '{}': {} bodies, {} frames, nq = {}, nv = {}, {} warnings", source, model.name(),
                  model.nbodies(), model.nframes(), model.nq(), model.nv(), loader.warnings());
  return model;
}

Model loadUrdf(const std::string& path, const UrdfOptions& options) {
  const std::string text = internal::readXmlFile(path, "URDF");
  return loadFromXml(text, path, options, ResourceSearch::forFile(path, options.package_dirs));
}

Model loadUrdfString(const std::string& xml, const UrdfOptions& options) {
  return loadFromXml(xml, "<string>", options, ResourceSearch::forFile("", options.package_dirs));  // from the current directory
}

}  // namespace abdyn
