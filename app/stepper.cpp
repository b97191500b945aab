#include "stepper.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "model_lookup.hpp"

namespace abdyn_app {

Stepper::Stepper(const abdyn::Model& model, const Arguments& args, const abdyn::ConstraintSet& set)
    : model_(model), data_(model), args_(args), rk_(model), explicit_(model), semi_implicit_(model), midpoint_(model),
      implicit_damping_(model), adaptive_(model), constrained_rk_(model), constrained_damping_(model), set_(set) {
  if (!set.loops.empty() || (!set.couplings.empty() && !args.rows())) {
    // Contacts against loops welded to the world, or closed by Baumgarte rows alone, can feed the chain
    // energy (a welded humanoid's feet on the ground gained 20 times its energy in 0.05 s).
    if (!set.loops.empty() && args.ground) {
      throw UsageError("--ground is not available for models with loop joints");
    }
    if (!args.rows() && args.integrator != "rk4" && args.integrator != "implicit-damping") {
      throw UsageError("models with loop joints or mimic couplings step with rk4 or implicit-damping and "
                       "post-stabilisation (or, with --limits, semi-implicit-euler)");
    }
    constrained_ = std::make_unique<abdyn::ConstrainedDynamicsData>(model, set);
  }
  if (args.rows()) {
    abdyn::SimulatorSettings settings;
    settings.substeps = args.substeps;
    settings.joint_limits = args.limits;
    settings.ground = args.ground;
    settings.contact.height = args.ground_height;
    // An MJCF file's geoms collide with each other as MuJoCo pairs them (filter bits, excludes, parents).
    const ModelContacts contacts = loadModelContacts(args.model_path);
    settings.body_contacts = contacts.body_contacts && !args.no_body_contacts;
    settings.contact.excluded_body_pairs = contacts.excluded_pairs;
    settings.contact.excluded_geometry_pairs = contacts.excluded_geometry_pairs;
    settings.contact.exclude_parent_child = contacts.filter_parent;
    if (!args.srdf_path.empty()) {
      settings.body_contacts = true;
      settings.contact.excluded_pairs = abdyn::readSrdfDisabledCollisions(args.srdf_path);
    }
    useWorldShapes(settings);
    settings.implicit_damping = args.integrator == "implicit-damping";
    simulator_ = std::make_unique<abdyn::Simulator>(model, settings);
    // The loops become the Simulator's row joints, solved with the limit rows.
    for (const abdyn::LoopClosure& loop : set.loops) simulator_->joints.push_back(abdyn::rowJointOf(loop));
  }
}

// The world's collidable shapes (links fixed to the world, MJCF worldbody geoms) meet the bodies whenever
// contacts are made; a file whose bodies do not collide with each other (a URDF without --srdf) gets body
// contacts with every pair of moving bodies excluded, so only the world's shapes are added.
void Stepper::useWorldShapes(abdyn::SimulatorSettings& settings) {
  std::vector<std::string> names;
  for (const abdyn::Geometry& g : model_.geometries()) {
    if (g.body == 0 && g.role == abdyn::GeometryRole::Collision && abdyn::isCollidable(g)) {
      names.push_back(g.name.empty() ? "an unnamed shape" : "'" + g.name + "'");
    }
  }
  if (names.empty() || !(settings.ground || settings.body_contacts)) return;
  std::string list;
  for (std::size_t k = 0; k < names.size() && k < 8; ++k) list += (k ? ", " : "") + names[k];
  if (names.size() > 8) list += ", ...";
  const std::string count = std::to_string(names.size()) + " collision shape" + (names.size() > 1 ? "s" : "");
  if (args_.no_world_shapes) {
    world_text_ = "off (--no-world-shapes): the world's " + count + " (" + list + ") do not collide";
    return;
  }
  settings.contact.world_shapes = true;
  if (!settings.body_contacts) {
    settings.body_contacts = true;
    for (int a = 1; a < model_.nbodies(); ++a) {
      for (int b = a + 1; b < model_.nbodies(); ++b) settings.contact.excluded_body_pairs.emplace_back(a, b);
    }
  }
  world_text_ = count + " on the world (" + list + ") collide with the bodies (--no-world-shapes turns them off)";
}

// A URDF file says nothing about which links may touch the world's: a fixed base's root link overlaps the links
// near it (their meshes meet at the joints), which contacts would push apart. So the bodies whose shapes overlap a
// world shape at the start (by convex hulls, conservatively for world meshes) do not collide with the world's
// shapes; a body resting on a world shape (touching, not overlapping) does. MJCF files keep MuJoCo's rules.
void Stepper::leaveOutWorldTouches(const Eigen::VectorXd& q) {
  if (!simulator_ || !simulator_->settings().contact.world_shapes || isMjcfFile(args_.model_path)) return;
  abdyn::GroundContactSettings& contact = simulator_->settings().contact;
  abdyn::forwardKinematics(model_, data_, q);
  const auto placed = [&](const abdyn::Geometry& g) { return g.X_geometry_body * data_.X_body_world[g.body]; };
  std::vector<int> touching;
  for (const abdyn::Geometry& w : model_.geometries()) {
    if (w.body != 0 || !abdyn::isContactShape(w, contact) || !abdyn::isConvexShape(w)) continue;
    for (const abdyn::Geometry& g : model_.geometries()) {
      if (g.body == 0 || !abdyn::isContactShape(g, contact) || !abdyn::isConvexShape(g)) continue;
      if (std::find(touching.begin(), touching.end(), g.body) != touching.end()) continue;
      if (abdyn::convexDistance(w, placed(w), g, placed(g)).distance < 0.0) touching.push_back(g.body);
    }
  }
  if (touching.empty()) return;
  std::string names;
  for (std::size_t k = 0; k < touching.size(); ++k) {
    contact.excluded_body_pairs.emplace_back(0, touching[k]);
    if (k < 8) names += (k ? ", '" : "'") + model_.bodyName(touching[k]) + "'";
  }
  if (touching.size() > 8) names += ", ...";
  world_text_ += "; bodies overlapping them at the start do not: " + names;
}

std::string Stepper::startOverlaps(const Eigen::VectorXd& q) {
  if (!simulator_ || !simulator_->settings().body_contacts) return "";
  constexpr double kDeep = 1e-3;  // m: deeper than any resting contact leaves
  const abdyn::GroundContactSettings& contact = simulator_->settings().contact;
  abdyn::forwardKinematics(model_, data_, q);
  const auto placed = [&](const abdyn::Geometry& g) { return g.X_geometry_body * data_.X_body_world[g.body]; };
  abdyn::BroadPhase broad_phase(model_);
  int count = 0;
  double deepest = 0.0;
  std::string pair;
  for (const abdyn::GeometryPair& p : broad_phase.pairs(model_, data_, contact)) {
    const abdyn::Geometry& a = model_.geometries()[static_cast<std::size_t>(p.first)];
    const abdyn::Geometry& b = model_.geometries()[static_cast<std::size_t>(p.second)];
    double depth = 0.0;
    if (abdyn::isStaticMeshShape(a, contact) || abdyn::isStaticMeshShape(b, contact)) {
      const abdyn::Geometry& mesh = abdyn::isStaticMeshShape(a, contact) ? a : b;
      const abdyn::Geometry& shape = &mesh == &a ? b : a;
      if (!abdyn::isConvexShape(shape) || shape.shape == abdyn::ShapeType::Plane) continue;
      depth = -abdyn::staticMeshDistance(shape, placed(shape), mesh, placed(mesh), 0.0).distance;
    } else if (abdyn::isConvexShape(a) && abdyn::isConvexShape(b) &&
               !(a.shape == abdyn::ShapeType::Plane && b.shape == abdyn::ShapeType::Plane)) {
      depth = -abdyn::convexDistance(a, placed(a), b, placed(b)).distance;
    }
    if (!(depth > kDeep)) continue;
    ++count;
    if (depth > deepest) {
      deepest = depth;
      pair = "'" + (a.name.empty() ? model_.bodyName(a.body) : a.name) + "' and '" +
             (b.name.empty() ? model_.bodyName(b.body) : b.name) + "'";
    }
  }
  if (count == 0) return "";
  std::ostringstream s;
  s << "collision shapes overlap at the start: " << pair << " " << deepest * 1e3 << " mm deep";
  if (count > 1) s << " (and " << count - 1 << " more pair" << (count > 2 ? "s" : "") << " deeper than 1 mm)";
  return s.str();
}

void Stepper::assemble(Eigen::VectorXd& q, Eigen::VectorXd& v) {
  if (!constrained_) return;
  try {
    abdyn::projectPositions(model_, data_, *constrained_, set_, q, 1e-12, 100);
  } catch (const abdyn::Error& e) {
    throw std::runtime_error(std::string(e.what()) + "; give a configuration near a closed one with --q0");
  }
  abdyn::projectVelocities(model_, data_, *constrained_, set_, q, v);
}

double Stepper::closureError(const Eigen::VectorXd& q) {
  abdyn::constraintJacobian(model_, data_, set_, constrained_->kinematics, q);
  const Eigen::VectorXd& C = constrained_->kinematics.C;
  return C.size() ? C.cwiseAbs().maxCoeff() : 0.0;
}

bool Stepper::dynamicsDefined(const Eigen::VectorXd& q, const Eigen::VectorXd& tau) {
  if (!q.allFinite()) return false;
  try {
    abdyn::forwardDynamics(model_, data_, q, Eigen::VectorXd::Zero(model_.nv()), tau);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void Stepper::step(Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h) {
  if (constrained_ && !simulator_) {
    loopStep(q, v, tau, h);
    return;
  }
  if (simulator_) {
    simulator_->q = q;
    simulator_->v = v;
    simulator_->tau = tau;
    try {
      simulator_->step(h);
    } catch (const std::exception&) {
      q = simulator_->q;
      v = simulator_->v;
      throw;
    }
    q = simulator_->q;
    v = simulator_->v;
    return;
  }
  const abdyn::DynamicsOptions options;
  const std::string& name = args_.integrator;
  if (name == "explicit-euler") {
    abdyn::stepWithSubsteps(explicit_, model_, data_, q, v, tau, h, args_.substeps, options);
  } else if (name == "semi-implicit-euler") {
    abdyn::stepWithSubsteps(semi_implicit_, model_, data_, q, v, tau, h, args_.substeps, options);
  } else if (name == "implicit-midpoint") {
    abdyn::stepWithSubsteps(midpoint_, model_, data_, q, v, tau, h, args_.substeps, options);
  } else if (name == "implicit-damping") {
    abdyn::stepWithSubsteps(implicit_damping_, model_, data_, q, v, tau, h, args_.substeps, options);
  } else if (name == "adaptive-rk4") {
    const double sub = h / args_.substeps;
    for (int s = 0; s < args_.substeps; ++s) {
      adaptive_.step(model_, data_, q, v, tau, sub, options);
      adaptive_substeps_ += adaptive_.lastAccepted();
      smallest_substep_ = std::min(smallest_substep_, adaptive_.lastSmallestStep());
    }
  } else {
    abdyn::stepWithSubsteps(rk_, model_, data_, q, v, tau, h, args_.substeps, options);
  }
}

// The constrained accelerations integrated by RK4 (constrained_runge_kutta4.hpp, with its
// post-stabilisation) or by the implicit-damping step (implicit_damping_euler.hpp, with M + h D in the
// constrained system) followed by the same post-stabilisation: q projected onto C(q) = 0 and v onto G v = 0.
void Stepper::loopStep(Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double step) {
  const double h = step / args_.substeps;
  for (int s = 0; s < args_.substeps; ++s) {
    if (args_.integrator == "implicit-damping") {
      constrained_damping_.step(model_, data_, *constrained_, set_, q, v, tau, h);
    } else {
      constrained_rk_.step(model_, data_, *constrained_, set_, q, v, tau, h);
    }
    if (!q.allFinite() || !v.allFinite()) return;
  }
}

}  // namespace abdyn_app
