#include "abdyn/io/mjcf.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>

#include <Eigen/Eigenvalues>
#include <spdlog/fmt/fmt.h>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/mesh.hpp"
#include "abdyn/model/convex_hull.hpp"
#include "abdyn/model/mesh_shape.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/model_builder.hpp"
#include "io/xml_limits.hpp"
#include "io/mjcf_document.hpp"
#include "io/mjcf_mesh_inertia.hpp"

namespace abdyn {
// A named namespace rather than an anonymous one: the unity build merges the files' anonymous namespaces.
namespace mjcf_loader {

using internal::MjcfBody;
using internal::MjcfDocument;
using internal::MjcfEqualityType;
using internal::MjcfGeom;
using internal::MjcfGeomType;
using internal::MjcfJoint;
using internal::MjcfJointType;
using internal::MjcfPose;

// ---------------------------------------------------------------------------------------------------
// From the document (io/mjcf_document.hpp) to abdyn's Model. Frames: a MuJoCo pose (pos, quat) of frame
// C in frame P is the Plx X_C_P = plx(R_P_C^T, pos), mapping P coordinates to C coordinates (plx.hpp).

constexpr double kMinVal = 1e-15;  // MuJoCo's mjMINVAL

Matrix3 rotation(const Vector4& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

Plx plxOf(const MjcfPose& p) { return Plx::fromPose(rotation(p.quat), p.pos); }

// A body's inertia as MuJoCo's compiler holds it: mass, centre of mass, principal moments and axes,
// all in the body frame.
struct BodyInertia {
  double mass = 0.0;
  Vector3 com = Vector3::Zero();
  Matrix3 axes = Matrix3::Identity();  // columns: principal directions
  Vector3 moments = Vector3::Zero();

  Matrix3 tensor() const { return axes * moments.asDiagonal() * axes.transpose(); }
};

BodyInertia principal(double mass, const Vector3& com, const Matrix3& I) {
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig(0.5 * (I + I.transpose()));
  return BodyInertia{mass, com, eig.eigenvectors(), eig.eigenvalues()};
}

// MuJoCo 2.2.2's volume of a primitive geom (mjCGeom::GetVolume), sizes as MuJoCo's half sizes.
double volume(const MjcfGeom& g) {
  const Vector3& s = g.size;
  switch (g.type) {
    case MjcfGeomType::Sphere:
      return 4 * M_PI * s[0] * s[0] * s[0] / 3;
    case MjcfGeomType::Capsule:
      return M_PI * (s[0] * s[0] * 2 * s[1] + 4 * s[0] * s[0] * s[0] / 3);
    case MjcfGeomType::Cylinder:
      return M_PI * s[0] * s[0] * 2 * s[1];
    case MjcfGeomType::Ellipsoid:
      return 4 * M_PI * s[0] * s[1] * s[2] / 3;
    case MjcfGeomType::Box:
      return s[0] * s[1] * s[2] * 8;
    default:
      return 0.0;
  }
}

// MuJoCo 2.2.2's principal moments of a primitive geom of mass m about its centre (mjCGeom::SetInertia).
Vector3 moments(const MjcfGeom& g, double m) {
  const Vector3& s = g.size;
  switch (g.type) {
    case MjcfGeomType::Sphere:
      return Vector3::Constant(2 * m * s[0] * s[0] / 5);
    case MjcfGeomType::Capsule: {
      const double h = 2 * s[1], r = s[0];
      const double sphere_mass = m * 4 * r / (4 * r + 3 * h);  // m * (sphere volume / total volume)
      const double cylinder_mass = m - sphere_mass;
      const double sphere_inertia = 2 * sphere_mass * r * r / 5;
      const double across = cylinder_mass * (3 * r * r + h * h) / 12 + sphere_inertia +
                            sphere_mass * h * (3 * r + 2 * h) / 8;  // the hemispheres moved to the ends
      return Vector3(across, across, cylinder_mass * r * r / 2 + sphere_inertia);
    }
    case MjcfGeomType::Cylinder: {
      const double h = 2 * s[1];
      const double across = m * (3 * s[0] * s[0] + h * h) / 12;
      return Vector3(across, across, m * s[0] * s[0] / 2);
    }
    case MjcfGeomType::Ellipsoid:
      return Vector3(m * (s[1] * s[1] + s[2] * s[2]) / 5, m * (s[0] * s[0] + s[2] * s[2]) / 5,
                     m * (s[0] * s[0] + s[1] * s[1]) / 5);
    case MjcfGeomType::Box:
      return Vector3(m * (s[1] * s[1] + s[2] * s[2]) / 3, m * (s[0] * s[0] + s[2] * s[2]) / 3,
                     m * (s[0] * s[0] + s[1] * s[1]) / 3);
    default:
      return Vector3::Zero();
  }
}

class MjcfLoader {
 public:
  MjcfLoader(const MjcfDocument& doc, std::string source, const MjcfOptions& options)
      : doc_(doc), source_(std::move(source)), options_(options), builder_(doc.model_name, "world") {}

  MjcfModel load() {
    for (const double x : {options_.bound_mass, options_.bound_inertia}) {
      if (!std::isfinite(x) || x < 0.0) fail("MjcfOptions::bound_mass and bound_inertia must be finite and not negative");
    }
    if (options_.max_hull_vertices < 0 || (options_.max_hull_vertices > 0 && options_.max_hull_vertices < 4)) {
      fail(fmt::format("MjcfOptions::max_hull_vertices must be 0 (no bound) or at least 4, not {}", options_.max_hull_vertices));
    }
    for (const std::string& what : doc_.not_modelled) warn(what);
    if (doc_.option.passive_disabled) warn("<flag passive=\"disable\"/>: joint damping and springs are dropped");
    builder_.setGravity(doc_.option.gravity_disabled ? Vector3::Zero() : doc_.option.gravity);
    builder_.setTimestep(doc_.option.timestep);
    const std::size_t n = doc_.bodies.size();
    builder_.reserve(static_cast<int>(n) + 1);
    inertias_.resize(n);
    for (std::size_t b = 1; b < n; ++b) inertias_[b] = bodyInertia(doc_.bodies[b]);
    scaleTotalMass();
    placed_.resize(n);
    for (std::size_t b = 0; b < n; ++b) body_names_.push_back(bodyName(static_cast<int>(b)));
    for (std::size_t b = 1; b < n; ++b) addBody(static_cast<int>(b));
    addGeometryAndSites();
    addActuators();
    addConfigurations();
    MjcfModel out;
    out.model = [&] {
      try {
        return std::move(builder_).build();
      } catch (const Error& e) {
        throw Error(source_ + ": " + e.what());
      }
    }();
    out.constraints = constraints(out.model);
    // An exclude names two MuJoCo bodies, whose geoms only (not those of static bodies fused with them) it keeps apart.
    for (const internal::MjcfExclude& e : doc_.excludes) {
      for (const int a : body_geometries_[static_cast<std::size_t>(bodyIndex(e.body1, e.where))]) {
        for (const int b : body_geometries_[static_cast<std::size_t>(bodyIndex(e.body2, e.where))]) {
          if (a != b) out.excluded_geometry_pairs.emplace_back(std::min(a, b), std::max(a, b));
        }
      }
    }
    out.body_contacts = !doc_.option.contact_disabled && !doc_.option.predefined_only;
    out.filter_parent = !doc_.option.filterparent_disabled;
    if (out.filter_parent) addParentExclusions(out);
    out.not_modelled = doc_.not_modelled;
    return out;
  }

 private:
  // Where a MuJoCo body ended up: the abdyn body it is rigidly attached to, and X from that body's
  // coordinates to the MuJoCo body frame's.
  struct Placement {
    int body = 0;
    Plx X_frame_body;
  };

  [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }
  [[noreturn]] void fail(const internal::MjcfWhere& where, const std::string& what) const {
    throw Error(where.text + ": " + what);
  }
  void warn(const std::string& what) const { logger()->warn("{}: {}", source_, what); }

  std::string bodyName(int b) const {
    const MjcfBody& body = doc_.bodies[static_cast<std::size_t>(b)];
    return body.name.empty() ? "body" + std::to_string(b) : body.name;
  }

  // The inertia MuJoCo's compiler gives a body (mjCBody::Compile, GeomFrame), computed exactly.
  BodyInertia bodyInertia(const MjcfBody& b) {
    const internal::MjcfCompiler& c = doc_.compiler;
    BodyInertia in;
    std::vector<const MjcfGeom*> selected;
    for (const MjcfGeom& g : b.geoms) {
      if (g.group >= c.group_lo && g.group <= c.group_hi) selected.push_back(&g);
    }
    const bool from_geoms = c.inertiafromgeom == internal::MjcfInertiaFromGeom::True ||
                            (c.inertiafromgeom == internal::MjcfInertiaFromGeom::Auto && !b.inertial);
    if (from_geoms && !selected.empty()) {
      std::vector<BodyInertia> parts;
      for (const MjcfGeom* g : selected) parts.push_back(geomInertia(*g));
      if (parts.size() == 1) {
        in = parts[0];
      } else {
        double mass = 0.0;
        Vector3 first = Vector3::Zero();
        for (const BodyInertia& p : parts) {
          mass += p.mass;
          first += p.mass * p.com;
        }
        if (mass < kMinVal) fail(b.where, "the body's geoms have no mass, so they give no centre of mass");
        const Vector3 com = first / mass;
        Matrix3 I = Matrix3::Zero();
        for (const BodyInertia& p : parts) {
          const Vector3 d = p.com - com;
          I += p.tensor() + p.mass * (d.squaredNorm() * Matrix3::Identity() - d * d.transpose());
        }
        in = principal(mass, com, I);
      }
    } else if (b.inertial) {
      const internal::MjcfInertial& i = *b.inertial;
      in.mass = i.mass;
      in.com = i.pose.pos;
      if (i.full) {
        const auto& f = *i.full;
        Matrix3 I;
        I << f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2];
        in = principal(i.mass, i.pose.pos, I);
        if (in.moments.minCoeff() < 1e-14) fail(i.where, "fullinertia must have positive eigenvalues");
      } else {
        in.axes = rotation(i.pose.quat);
        in.moments = i.diag;
      }
    } else {
      // Neither gives an inertial frame: MuJoCo 2.2.2 copies the body's pose in its parent (pos, quat)
      // into it, which matters once boundmass gives the body a mass.
      in.com = b.pose.pos;
      in.axes = rotation(b.pose.quat);
    }
    // MuJoCo's bounds would raise a negative mass or moment to the bound (or to zero) silently.
    if (in.mass < 0 || in.moments.minCoeff() < 0) {
      fail(b.where, fmt::format("mass {} and principal moments ({}, {}, {}) cannot be negative", in.mass,
                                in.moments[0], in.moments[1], in.moments[2]));
    }
    // Bounds, then MuJoCo's checks (mjCBody::Compile).
    const double bound_mass = std::max(c.boundmass, options_.bound_mass);
    const double bound_inertia = std::max(c.boundinertia, options_.bound_inertia);
    in.mass = std::max(in.mass, bound_mass);
    in.moments = in.moments.cwiseMax(bound_inertia);
    if (!std::isfinite(in.mass) || !in.moments.allFinite()) fail(b.where, "the body's mass or inertia is not finite");
    const Vector3& l = in.moments;
    if (l[0] + l[1] < l[2] || l[0] + l[2] < l[1] || l[1] + l[2] < l[0]) {
      if (!c.balanceinertia && !options_.balance_inertia) {
        fail(b.where, fmt::format("the principal moments ({}, {}, {}) break the triangle inequality A + B >= C; "
                                  "<compiler balanceinertia=\"true\"/> or MjcfOptions::balance_inertia repairs them",
                                  l[0], l[1], l[2]));
      }
      in.moments.setConstant(l.sum() / 3);
    }
    return in;
  }

  // A geom's mass, centre of mass and inertia in the body frame, as MuJoCo's compiler gives them: the
  // geom's mass attribute (when its volume is not zero), else density times volume.
  BodyInertia geomInertia(const MjcfGeom& g) {
    if (!g.mesh.empty() && g.type != MjcfGeomType::Mesh) {
      fail(g.where, "a primitive fitted to a mesh (type with mesh) is not computed by abdyn; give the body an "
                    "<inertial>, or set <compiler inertiagrouprange> to leave the geom out");
    }
    if (g.type == MjcfGeomType::Mesh) {
      if (g.shellinertia) {
        fail(g.where, "shellinertia=\"true\" is not computed by abdyn (MuJoCo 2.2.2 places a shell's inertia in the "
                      "frame of the mesh's volume inertia); give the body an <inertial>");
      }
      const internal::MjcfMeshInertia& mi = meshInertia(g);
      const double mass = g.mass && mi.volume > kMinVal ? *g.mass : g.density * mi.volume;
      const Matrix3 R = rotation(g.pose.quat);
      return principal(mass, g.pose.pos + R * mi.com, R * (mass * mi.inertia_per_mass) * R.transpose());
    }
    const double mass = geomMass(g);
    return BodyInertia{mass, g.pose.pos, rotation(g.pose.quat), moments(g, mass)};
  }

  // A mesh asset, looked up by name; "" when the file has none of that name.
  const internal::MjcfMesh* meshAsset(const MjcfGeom& g) const {
    const auto m = std::find_if(doc_.meshes.begin(), doc_.meshes.end(),
                                [&](const internal::MjcfMesh& x) { return x.name == g.mesh; });
    return m == doc_.meshes.end() ? nullptr : &*m;
  }

  // The triangles of a mesh asset: its file (STL, OBJ), or the vertex and face data written in the XML
  // (the faces of the vertices' convex hull when none are given, as MuJoCo makes them).
  TriangleMesh meshTriangles(const internal::MjcfMesh& m, const MjcfGeom& g) const {
    TriangleMesh t;
    if (m.file.empty()) {
      for (std::size_t i = 0; i + 2 < m.vertex.size(); i += 3) t.vertices.emplace_back(m.vertex[i], m.vertex[i + 1], m.vertex[i + 2]);
      if (!m.face.empty()) {
        for (std::size_t i = 0; i + 2 < m.face.size(); i += 3) t.triangles.push_back({m.face[i], m.face[i + 1], m.face[i + 2]});
        return t;
      }
      ConvexHull hull;
      try {
        hull = convexHull(t.vertices, 0, m.where.text);
      } catch (const Error& e) {
        fail(m.where, e.what());
      }
      t.vertices = hull.vertices;
      for (const std::vector<int>& f : hull.faces) {
        for (std::size_t k = 1; k + 1 < f.size(); ++k) t.triangles.push_back({f[0], f[k], f[k + 1]});
      }
      return t;
    }
    if (!std::filesystem::is_regular_file(m.file)) {
      fail(g.where, "mesh file '" + m.file + "' (mesh '" + m.name + "') not found; it is needed for the body's inertia "
                    "(an <inertial> in the body, or <compiler inertiagrouprange> leaving the geom out, would not need it)");
    }
    try {
      return readMesh(m.file);
    } catch (const Error& e) {
      fail(m.where, e.what());
    }
  }

  // The inertia of a mesh geom's mesh (mjcf_mesh_inertia.hpp), computed once per asset.
  const internal::MjcfMeshInertia& meshInertia(const MjcfGeom& g) {
    const internal::MjcfMesh* m = meshAsset(g);
    if (m == nullptr) fail(g.where, "mesh '" + g.mesh + "' is not defined in <asset>");
    const auto found = mesh_inertias_.find(g.mesh);
    if (found != mesh_inertias_.end()) return found->second;
    const TriangleMesh t = meshTriangles(*m, g);
    const std::string ext = std::filesystem::path(m->file).extension().string();
    if (m->file.empty() || ext == ".obj" || ext == ".OBJ") {
      // MuJoCo refuses a surface whose triangles run an edge twice the same way (inconsistent winding).
      std::vector<std::pair<int, int>> edges;
      for (const auto& f : t.triangles) {
        for (int k = 0; k < 3; ++k) edges.emplace_back(f[static_cast<std::size_t>(k)], f[static_cast<std::size_t>((k + 1) % 3)]);
      }
      std::sort(edges.begin(), edges.end());
      if (std::adjacent_find(edges.begin(), edges.end()) != edges.end()) {
        fail(m->where, "the mesh's faces have inconsistent orientation (an edge is run twice the same way)");
      }
    }
    internal::MjcfMeshProcessing how;
    how.scale = m->scale;
    how.refpos = m->refpos;
    how.refquat = m->refquat;
    how.density = m->density;
    how.exact = doc_.compiler.exactmeshinertia;
    return mesh_inertias_.emplace(g.mesh, internal::mjcfMeshInertia(t, how, m->where.text)).first->second;
  }

  // A primitive geom's mass: its mass attribute (when its volume is not zero), else density times volume.
  double geomMass(const MjcfGeom& g) const {
    const bool sized = g.type == MjcfGeomType::Sphere ? g.size[0] > 0
                       : g.type == MjcfGeomType::Capsule || g.type == MjcfGeomType::Cylinder
                           ? g.size[0] > 0 && g.size[1] > 0
                       : g.type == MjcfGeomType::Ellipsoid || g.type == MjcfGeomType::Box ? g.size.minCoeff() > 0
                                                                                          : true;
    if (!sized) fail(g.where, "the geom's size must be positive");
    const double v = volume(g);
    if (g.mass && v > kMinVal) return *g.mass;
    return g.density * v;
  }

  // settotalmass: every body's mass and inertia scaled so that they add up to it (mj_setTotalmass).
  void scaleTotalMass() {
    if (doc_.compiler.settotalmass <= 0.0) return;
    double total = 0.0;
    for (std::size_t b = 1; b < inertias_.size(); ++b) total += inertias_[b].mass;
    if (total < kMinVal) fail("<compiler settotalmass>: the bodies have no mass to scale");
    const double scale = doc_.compiler.settotalmass / total;
    for (std::size_t b = 1; b < inertias_.size(); ++b) {
      inertias_[b].mass *= scale;
      inertias_[b].moments *= scale;
    }
  }

  RigidBodyInertia rigidInertia(int b) const {
    const BodyInertia& in = inertias_[static_cast<std::size_t>(b)];
    return RigidBodyInertia(in.mass, in.com, in.tensor());
  }

  void addBody(int b) {
    const MjcfBody& body = doc_.bodies[static_cast<std::size_t>(b)];
    const Placement& parent = placed_[static_cast<std::size_t>(body.parent)];
    const Plx X_B0_parentbody = plxOf(body.pose) * parent.X_frame_body;  // the body at zero joint motion
    const std::string name = bodyName(b);
    if (body.joints.empty() || body.mocap) {
      if (body.mocap && !body.joints.empty()) fail(body.where, "a mocap body cannot have joints");
      placed_[static_cast<std::size_t>(b)] = {parent.body, X_B0_parentbody};
      if (parent.body != 0) builder_.addInertia(parent.body, X_B0_parentbody.applyInverse(rigidInertia(b)));
      try {
        builder_.addFrame(name, parent.body, X_B0_parentbody, FrameType::Fixed);
      } catch (const Error& e) {
        fail(body.where, e.what());
      }
      return;
    }
    int current = parent.body;
    Plx X_cur_current = X_B0_parentbody;  // current abdyn body -> the MuJoCo body frame before the next joint
    for (std::size_t k = 0; k < body.joints.size(); ++k) {
      const MjcfJoint& j = body.joints[k];
      const int index = joint_count_++;
      const std::string joint_name = j.name.empty() ? "joint" + std::to_string(index) : j.name;
      const bool last = k + 1 == body.joints.size();
      JointSpec spec;
      spec.name = joint_name;
      spec.armature = j.armature;
      spec.friction = j.frictionloss;
      if (!doc_.option.passive_disabled) {
        spec.damping = j.damping;
        spec.stiffness = j.stiffness;
      }
      Plx X_tree;
      switch (j.type) {
        case MjcfJointType::Free: {
          if (body.joints.size() != 1) fail(j.where, "a free joint must be the only joint of its body");
          if (body.parent != 0) fail(j.where, "a free joint can only be used on a top-level body (a child of the world)");
          spec.type = JointType::Floating;
          spec.spring_reference.resize(7);
          spec.spring_reference << body.pose.pos, body.pose.quat;  // qpos0: the drawn pose
          qpos0_.insert(qpos0_.end(), spec.spring_reference.data(), spec.spring_reference.data() + 7);
          X_tree = Plx();
          break;
        }
        case MjcfJointType::Ball:
          spec.type = JointType::Spherical;
          qpos0_.insert(qpos0_.end(), {1.0, 0.0, 0.0, 0.0});
          X_tree = Plx::translation(j.pos) * X_cur_current;
          break;
        case MjcfJointType::Hinge:
        case MjcfJointType::Slide: {
          const bool hinge = j.type == MjcfJointType::Hinge;
          spec.type = hinge ? JointType::Revolute : JointType::Prismatic;
          spec.axis = j.axis;
          spec.spring_reference = Eigen::VectorXd::Constant(1, j.springref);
          qpos0_.push_back(j.ref);
          if (j.range) {
            spec.lower = (*j.range)[0];
            spec.upper = (*j.range)[1];
          }
          // q = ref at the drawn pose: the joint frame is turned (moved) by -ref about (along) the axis.
          const Plx X_ref = hinge ? Plx::rotation(Eigen::AngleAxisd(-j.ref, j.axis).toRotationMatrix().transpose())
                                  : Plx::translation(-j.ref * j.axis);
          X_tree = X_ref * Plx::translation(j.pos) * X_cur_current;
          break;
        }
      }
      const std::string abdyn_name = last ? name : name + "/" + joint_name;
      const Plx X_B_joint = j.type == MjcfJointType::Free ? Plx() : Plx::translation(-j.pos);
      const RigidBodyInertia inertia = last ? X_B_joint.applyInverse(rigidInertia(b)) : RigidBodyInertia();
      try {
        current = builder_.addBody(current, spec, X_tree, inertia, abdyn_name);
      } catch (const Error& e) {
        fail(j.where, e.what());
      }
      joint_body_[joint_name] = current;
      X_cur_current = X_B_joint;
    }
    placed_[static_cast<std::size_t>(b)] = {current, X_cur_current};
  }

  void addGeometryAndSites() {
    body_geometries_.resize(doc_.bodies.size());
    for (std::size_t b = 0; b < doc_.bodies.size(); ++b) {
      const MjcfBody& body = doc_.bodies[b];
      const Placement& p = placed_[b];
      for (std::size_t k = 0; k < body.geoms.size(); ++k) {
        const MjcfGeom& g = body.geoms[k];
        Geometry out;
        out.name = g.name.empty() ? bodyName(static_cast<int>(b)) + "/geom" + std::to_string(k) : g.name;
        out.link = bodyName(static_cast<int>(b));
        out.role = g.contype != 0 || g.conaffinity != 0 ? GeometryRole::Collision : GeometryRole::Visual;
        out.contype = g.contype;
        out.conaffinity = g.conaffinity;
        out.body = p.body;
        out.X_geometry_body = plxOf(g.pose) * p.X_frame_body;
        if (!g.mesh.empty() && g.type != MjcfGeomType::Mesh) {
          warn_once("primitives fitted to meshes (a geom with both type and mesh) are not kept as the model's geometry");
          continue;
        }
        switch (g.type) {
          case MjcfGeomType::Sphere:
            out.shape = ShapeType::Sphere;
            out.size = Vector3(g.size[0], 0.0, 0.0);
            break;
          case MjcfGeomType::Box:
            out.shape = ShapeType::Box;
            out.size = 2 * g.size;
            break;
          case MjcfGeomType::Cylinder:
            out.shape = ShapeType::Cylinder;
            out.size = Vector3(g.size[0], 2 * g.size[1], 0.0);
            break;
          case MjcfGeomType::Capsule:
            out.shape = ShapeType::Capsule;
            out.size = Vector3(g.size[0], 2 * g.size[1], 0.0);
            break;
          case MjcfGeomType::Ellipsoid:
            out.shape = ShapeType::Ellipsoid;
            out.size = g.size;
            break;
          case MjcfGeomType::Plane:
            out.shape = ShapeType::Plane;
            out.size = Vector3(g.size[0], g.size[1], 0.0);  // MuJoCo's half extents; 0: unbounded
            break;
          case MjcfGeomType::Mesh:
            if (!meshGeometry(g, out)) continue;
            break;
          case MjcfGeomType::Hfield:
            warn_once("height fields (hfield geoms) are not kept as the model's geometry");
            continue;
        }
        body_geometries_[b].push_back(geometry_count_++);
        builder_.addGeometry(out);
      }
      for (std::size_t k = 0; k < body.sites.size(); ++k) {
        const internal::MjcfSite& s = body.sites[k];
        const std::string name = s.name.empty() ? bodyName(static_cast<int>(b)) + "/site" + std::to_string(k) : s.name;
        // MuJoCo names sites apart from bodies; abdyn's frames share one namespace with them.
        const bool taken = std::count(body_names_.begin(), body_names_.end(), name) > 0;
        if (taken) logger()->warn("{}: a body has this name too; the site's frame is named 'site/{}'", s.where.text, name);
        try {
          builder_.addFrame(taken ? "site/" + name : name, p.body, plxOf(s.pose) * p.X_frame_body, FrameType::User);
        } catch (const Error& e) {
          fail(s.where, e.what());
        }
      }
    }
  }

  // A mesh geom's shape: the file and its scale in a frame that takes in the mesh's refpos and refquat
  // (MuJoCo moves the file's points by -refpos, turns them by refquat's inverse R^T, then scales them), and for
  // collision geoms the loaded triangles and their hull. False, after a warning, when it cannot be kept.
  bool meshGeometry(const MjcfGeom& g, Geometry& out) {
    const internal::MjcfMesh* m = meshAsset(g);
    if (m == nullptr) fail(g.where, "mesh '" + g.mesh + "' is not defined in <asset>");
    out.shape = ShapeType::Mesh;
    out.mesh_filename = m->file;
    out.mesh_scale = m->scale;
    const bool turned = m->refquat != Vector4(1.0, 0.0, 0.0, 0.0);
    const bool uniform = m->scale.maxCoeff() == m->scale.minCoeff();  // then scaling and turning commute
    if (turned && !uniform) {
      warn_once("mesh geoms with both refquat and an unequal scale are not kept as the model's geometry");
      return false;
    }
    if (!m->refpos.isZero() || turned) {
      // Shape frame S in the geom frame G: x_G = R^T (scale * (x_file - refpos)) = R^T x_S' - R^T scale refpos,
      // so S is turned by R^T and placed at -R^T (scale * refpos).
      const Matrix3 R_G_S = rotation(m->refquat.normalized()).transpose();
      const Vector3 origin = -R_G_S * m->scale.cwiseProduct(m->refpos);
      out.X_geometry_body = Plx::fromPose(R_G_S, origin) * out.X_geometry_body;
    }
    // A mesh given as data in the file has no file to draw it from: its triangles are kept whatever its role.
    if (!m->file.empty() && (out.role != GeometryRole::Collision || !options_.load_collision_meshes)) return true;
    const auto found = mesh_shapes_.find(g.mesh);
    if (found != mesh_shapes_.end()) {
      out.mesh = found->second;
      return true;
    }
    std::shared_ptr<const MeshShape> shape;
    try {
      TriangleMesh t;
      if (m->file.empty()) {
        for (std::size_t i = 0; i + 2 < m->vertex.size(); i += 3) t.vertices.emplace_back(m->vertex[i], m->vertex[i + 1], m->vertex[i + 2]);
        for (std::size_t i = 0; i + 2 < m->face.size(); i += 3) t.triangles.push_back({m->face[i], m->face[i + 1], m->face[i + 2]});
        if (t.triangles.empty()) t = meshTriangles(*m, g);  // the hull's faces
      } else if (!std::filesystem::is_regular_file(m->file)) {
        throw Error("mesh file '" + m->file + "' not found");
      } else {
        t = readMesh(m->file);
      }
      shape = makeMeshShape(std::move(t), m->scale, options_.max_hull_vertices, m->file.empty() ? m->name : m->file);
    } catch (const Error& e) {
      logger()->warn("{}: {}; the shape keeps no mesh (Simulator contacts will not see it)", g.where.text, e.what());
    }
    mesh_shapes_.emplace(g.mesh, shape);
    out.mesh = shape;
    return true;
  }

  void warn_once(const std::string& what) {
    if (std::find(warned_.begin(), warned_.end(), what) != warned_.end()) return;
    warned_.push_back(what);
    warn(what);
  }

  void addActuators() {
    for (std::size_t k = 0; k < doc_.actuators.size(); ++k) {
      const internal::MjcfActuator& a = doc_.actuators[k];
      if (a.joint.empty()) {
        warn_once("actuators whose transmission is not a joint (" + (a.transmission.empty() ? "none" : a.transmission) +
                  ") are not kept");
        continue;
      }
      const auto it = joint_body_.find(a.joint);
      if (it == joint_body_.end()) fail(a.where, "joint '" + a.joint + "' does not exist");
      Actuator out;
      out.name = a.name.empty() ? "actuator" + std::to_string(k) : a.name;
      out.kind = a.kind;
      out.joint = it->second;
      out.gear = a.gear;
      if (a.ctrlrange) {
        out.ctrl_lower = (*a.ctrlrange)[0];
        out.ctrl_upper = (*a.ctrlrange)[1];
        if (!(out.ctrl_lower <= out.ctrl_upper)) fail(a.where, "ctrlrange is empty");
      }
      bool one_coordinate = false;
      for (const MjcfBody& b : doc_.bodies) {
        for (const MjcfJoint& j : b.joints) {
          if (j.name == a.joint) one_coordinate = j.type == MjcfJointType::Hinge || j.type == MjcfJointType::Slide;
        }
      }
      if (!one_coordinate) {
        warn_once("actuators on ball and free joints are not kept");
        continue;
      }
      builder_.addActuator(out);
    }
  }

  // Keyframes: qpos in the model's layout (MuJoCo's), qpos0 when a key gives none.
  void addConfigurations() {
    const Eigen::Map<const Eigen::VectorXd> q0(qpos0_.data(), static_cast<Eigen::Index>(qpos0_.size()));
    for (std::size_t k = 0; k < doc_.keys.size(); ++k) {
      const internal::MjcfKey& key = doc_.keys[k];
      NamedConfiguration c{key.name.empty() ? "key" + std::to_string(k) : key.name, q0};
      if (!key.qpos.empty()) {
        if (key.qpos.size() != qpos0_.size()) {
          fail(key.where, fmt::format("qpos has {} numbers; the model has nq = {}", key.qpos.size(), qpos0_.size()));
        }
        c.q = Eigen::Map<const Eigen::VectorXd>(key.qpos.data(), q0.size());
      }
      builder_.addConfiguration(c);
    }
  }

  // MuJoCo never collides a body with its weld parent (the nearest ancestor with joints, the world
  // aside). abdyn's parent-child rule covers a body with one joint; a body with several is the last of a
  // chain of joint bodies, whose first one's parent is the weld parent's body, so the pair is excluded here.
  void addParentExclusions(MjcfModel& out) const {
    const auto weld = [&](int b) {
      while (b != 0 && doc_.bodies[static_cast<std::size_t>(b)].joints.empty()) b = doc_.bodies[static_cast<std::size_t>(b)].parent;
      return b;
    };
    for (std::size_t b = 1; b < doc_.bodies.size(); ++b) {
      if (doc_.bodies[b].joints.size() < 2) continue;
      const int parent = weld(doc_.bodies[b].parent);
      if (parent == 0) continue;
      const int x = placed_[b].body, y = placed_[static_cast<std::size_t>(parent)].body;
      out.excluded_pairs.emplace_back(std::min(x, y), std::max(x, y));
    }
  }

  // The index of the MuJoCo body of that name ("" or "world": the world).
  int bodyIndex(const std::string& name, const internal::MjcfWhere& where) const {
    if (name.empty() || name == "world") return 0;
    for (std::size_t b = 1; b < doc_.bodies.size(); ++b) {
      if (doc_.bodies[b].name == name) return static_cast<int>(b);
    }
    fail(where, "body '" + name + "' does not exist");
  }

  // Where the MuJoCo body of that name ("" or "world": the world) ended up.
  const Placement& placement(const std::string& name, const internal::MjcfWhere& where) const {
    return placed_[static_cast<std::size_t>(bodyIndex(name, where))];
  }

  ConstraintSet constraints(const Model& model) const {
    ConstraintSet set;
    if (doc_.equalities.empty()) return set;
    Data data(model);
    const Eigen::Map<const Eigen::VectorXd> q0(qpos0_.data(), model.nq());
    forwardKinematics(model, data, q0);
    for (std::size_t k = 0; k < doc_.equalities.size(); ++k) {
      const internal::MjcfEquality& e = doc_.equalities[k];
      const std::string name = e.name.empty() ? "equality" + std::to_string(k) : e.name;
      if (!e.active) {
        logger()->warn("{}: inactive, not returned", e.where.text);
        continue;
      }
      if (e.type == MjcfEqualityType::Joint) {
        const auto f = joint_body_.find(e.joint1);
        if (f == joint_body_.end()) fail(e.where, "joint '" + e.joint1 + "' does not exist");
        const auto& c = e.polycoef;
        if (e.joint2.empty() || c[2] != 0.0 || c[3] != 0.0 || c[4] != 0.0) {
          logger()->warn("{}: a joint equality without joint2 or with a nonlinear polynomial is not modelled",
                         e.where.text);
          continue;
        }
        const auto l = joint_body_.find(e.joint2);
        if (l == joint_body_.end()) fail(e.where, "joint '" + e.joint2 + "' does not exist");
        if (model.joint(f->second).nv != 1 || model.joint(l->second).nv != 1) {
          fail(e.where, "a joint equality needs two hinge or slide joints");
        }
        // q1 - ref1 = c0 + c1 (q2 - ref2)  <=>  q1 = c1 q2 + (ref1 + c0 - c1 ref2).
        const double ref1 = q0[model.joint(f->second).idx_q], ref2 = q0[model.joint(l->second).idx_q];
        set.couplings.push_back(JointCoupling{name, f->second, l->second, c[1], ref1 + c[0] - c[1] * ref2});
        continue;
      }
      const Placement& a = placement(e.body1, e.where);
      const Placement& b = placement(e.body2, e.where);
      if (a.body == b.body) {
        logger()->warn("{}: both bodies are parts of one rigid body; the equality holds trivially", e.where.text);
        continue;
      }
      const Plx& X_a_world = data.X_body_world[static_cast<std::size_t>(a.body)];
      const Plx& X_b_world = data.X_body_world[static_cast<std::size_t>(b.body)];
      if (e.type == MjcfEqualityType::Connect) {
        // The anchor, in body1's frame, and the same point at qpos0 in body2's.
        const Vector3 p_a = a.X_frame_body.applyInverseToPoint(e.anchor);
        const Vector3 p_b = X_b_world.applyToPoint(X_a_world.applyInverseToPoint(p_a));
        set.loops.push_back(LoopClosure::spherical(name, a.body, Plx::translation(p_a), b.body, Plx::translation(p_b)));
      } else {
        // Fb: body2's frame moved to the anchor; Fa: where Fb is at qpos0 (or at relpose from body1).
        const Plx X_Fb_b = Plx::translation(e.anchor) * b.X_frame_body;
        const Plx X_Fa_a = e.relpose ? Plx::translation(e.anchor) * plxOf(*e.relpose) * a.X_frame_body
                                     : X_Fb_b * X_b_world * X_a_world.inverse();
        set.loops.push_back(LoopClosure::fixed(name, a.body, X_Fa_a, b.body, X_Fb_b));
      }
    }
    try {
      set.validate(model);
    } catch (const Error& err) {
      fail(err.what());
    }
    return set;
  }

  const MjcfDocument& doc_;
  std::string source_;
  const MjcfOptions& options_;
  ModelBuilder builder_;
  std::vector<BodyInertia> inertias_;
  std::vector<Placement> placed_;
  std::map<std::string, int> joint_body_;  // joint name -> abdyn body
  int joint_count_ = 0;
  std::vector<double> qpos0_;  // MuJoCo's qpos0: ref, identity quaternions, the free bodies' drawn poses
  std::vector<std::string> warned_;
  std::vector<std::string> body_names_;  // every MuJoCo body's name, by index
  std::vector<std::vector<int>> body_geometries_;  // per MuJoCo body, the indices of its geoms' Geometry
  int geometry_count_ = 0;
  std::map<std::string, internal::MjcfMeshInertia> mesh_inertias_;  // by mesh asset name
  std::map<std::string, std::shared_ptr<const MeshShape>> mesh_shapes_;  // by mesh asset name; null: not loaded
};

MjcfModel loadFromText(const std::string& xml, const std::string& source, const std::string& base_dir,
                       const MjcfOptions& options) {
  const MjcfDocument doc = internal::readMjcfDocument(xml, source, base_dir);
  return MjcfLoader(doc, source, options).load();
}

std::string readFile(const std::string& path) {
  internal::checkXmlFileSize(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the file");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace mjcf_loader

MjcfModel loadMjcfModel(const std::string& path, const MjcfOptions& options) {
  // Absolute, so that the model's mesh file names are found from anywhere.
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) absolute = path;
  const std::string dir = absolute.parent_path().string();
  return mjcf_loader::loadFromText(mjcf_loader::readFile(path), path, dir, options);
}

MjcfModel loadMjcfModelString(const std::string& xml, const MjcfOptions& options, const std::string& base_dir) {
  return mjcf_loader::loadFromText(xml, "<string>", base_dir, options);
}

Model loadMjcf(const std::string& path, const MjcfOptions& options) { return loadMjcfModel(path, options).model; }

Model loadMjcfString(const std::string& xml, const MjcfOptions& options, const std::string& base_dir) {
  return loadMjcfModelString(xml, options, base_dir).model;
}

}  // namespace abdyn
