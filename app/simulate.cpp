#include "simulate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "model_lookup.hpp"
#include "stepper.hpp"
#include "page.hpp"

namespace abdyn_app {
namespace {

// More steps than this is a typing error (or days of computing), not a simulation anyone waits for.
constexpr double kMaxSteps = 1e9;

double parsePositive(const std::string& option, const std::string& text) {
  const double x = parseFinite(option, text);
  if (x <= 0.0) throw UsageError(option + " expects a positive number, got '" + text + "'");
  return x;
}

int parseSubsteps(const std::string& option, const std::string& text) {
  const double n = parsePositive(option, text);
  if (n != std::floor(n) || n > 1e6) throw UsageError(option + " expects a positive integer, got '" + text + "'");
  return static_cast<int>(n);
}

std::string parseIntegrator(const std::string& option, const std::string& text) {
  for (const char* name : {"rk4", "explicit-euler", "semi-implicit-euler", "implicit-midpoint", "implicit-damping",
                           "adaptive-rk4"}) {
    if (text == name) return text;
  }
  throw UsageError(option +
                   " expects rk4, explicit-euler, semi-implicit-euler, implicit-midpoint, implicit-damping or adaptive-rk4, "
                   "got '" + text + "'");
}

void progress(double fraction) {
  const int width = 40;
  const int filled = static_cast<int>(fraction * width);
  std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
               static_cast<int>(100 * fraction));
  std::fflush(stderr);
}

// The configuration --q0 changes: --keyframe's, else the one the file draws (MJCF's qpos0; URDF's neutral one).
Eigen::VectorXd baseConfiguration(const abdyn::Model& model, const Arguments& args, bool& places_base) {
  places_base = false;
  if (args.keyframe.empty()) return loadModelReference(args.model_path, model);
  std::string names;
  for (const abdyn::NamedConfiguration& c : model.configurations()) {
    if (c.name == args.keyframe) {
      places_base = floatingRoot(model);
      return c.q;
    }
    names += (names.empty() ? "" : ", ") + c.name;
  }
  throw UsageError("--keyframe " + args.keyframe + ": model '" + model.name() + "' has no such configuration (" +
                   (names.empty() ? std::string("it has none") : "its configurations: " + names) + ")");
}

// The start configuration: the base one, changed by --q0 (all nq values, or named ones).
Eigen::VectorXd startConfiguration(const abdyn::Model& model, const Arguments& args, bool& places_base) {
  Eigen::VectorXd q = baseConfiguration(model, args, places_base);
  const std::string& text = args.q0;
  if (text.empty()) return q;
  std::vector<std::string> items;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) items.push_back(item);
  const bool named = std::any_of(items.begin(), items.end(), [](const std::string& s) { return s.find('=') != std::string::npos; });
  if (!named) {
    if (static_cast<int>(items.size()) != model.nq()) {
      throw UsageError("--q0 has " + std::to_string(items.size()) + " values, the model has nq = " + std::to_string(model.nq()));
    }
    for (int k = 0; k < model.nq(); ++k) q[k] = parseFinite("--q0", items[k]);
    places_base = floatingRoot(model);
  } else {
    const std::vector<std::string> names = labels(model, true);
    for (const std::string& item : items) {
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos) throw UsageError("--q0 mixes named and unnamed values: '" + item + "' has no '='");
      std::string name = item.substr(0, eq);
      const double x = parseFinite("--q0", item.substr(eq + 1));
      // <joint>.x, .y, .z: a floating joint's position coordinates [0], [1], [2].
      for (int axis = 0; axis < 3; ++axis) {
        const std::string suffix = std::string(".") + "xyz"[axis];
        if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
          name = name.substr(0, name.size() - suffix.size()) + "[" + std::to_string(axis) + "]";
        }
      }
      const auto found = std::find(names.begin(), names.end(), name);
      if (found == names.end()) {
        throw UsageError("--q0 names '" + item.substr(0, eq) + "', which is no coordinate of the model (its coordinates: " +
                         [&] {
                           std::string all;
                           for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
                           return all;
                         }() + ")");
      }
      const int k = static_cast<int>(found - names.begin());
      q[k] = x;
      if (floatingRoot(model) && k < model.joint(1).nq) places_base = true;
    }
  }
  abdyn::normalize(model, q);
  return q;
}

// The lowest point of the model's collision geometry at q (z in world coordinates), exact for spheres,
// boxes, cylinders, capsules and meshes (their hulls' vertices; the kinds the contacts do not collide are
// skipped, as the contacts skip them); without such geometry, the lowest body origin. `what` names the geometry or body.
double lowestPoint(const abdyn::Model& model, abdyn::Data& data, const Eigen::VectorXd& q, std::string& what) {
  abdyn::forwardKinematics(model, data, q);
  double lowest = std::numeric_limits<double>::infinity();
  for (const abdyn::Geometry& g : model.geometries()) {
    if (g.role != abdyn::GeometryRole::Collision || !abdyn::isCollidable(g)) continue;
    const abdyn::Plx X_shape_world = g.X_geometry_body * data.X_body_world[g.body];
    const abdyn::Matrix3& E = X_shape_world.E();  // row k: the shape's axis k in world coordinates
    double z = X_shape_world.r().z();
    if (g.shape == abdyn::ShapeType::Sphere) {
      z -= g.size[0];
    } else if (g.shape == abdyn::ShapeType::Box) {
      for (int k = 0; k < 3; ++k) z -= 0.5 * std::abs(E(k, 2)) * g.size[k];
    } else if (g.shape == abdyn::ShapeType::Cylinder) {  // along its z axis
      const double c = std::abs(E(2, 2));
      z -= g.size[0] * std::sqrt(std::max(0.0, 1.0 - c * c)) + 0.5 * g.size[1] * c;
    } else if (g.shape == abdyn::ShapeType::Capsule) {
      z -= g.size[0] + 0.5 * g.size[1] * std::abs(E(2, 2));
    } else if (g.shape == abdyn::ShapeType::Mesh) {
      double low = std::numeric_limits<double>::infinity();
      for (const abdyn::Vector3& p : g.mesh->hull.vertices) low = std::min(low, E.col(2).dot(p));
      z += low;
    }
    if (z < lowest) {
      lowest = z;
      what = "collision geometry '" + g.name + "'";
    }
  }
  if (std::isinf(lowest)) {
    for (int i = 1; i < model.nbodies(); ++i) {
      const double z = data.X_body_world[i].r().z();
      if (z < lowest) {
        lowest = z;
        what = "body '" + model.bodyName(i) + "' (the model has no collision geometry)";
      }
    }
  }
  return lowest;
}

// A run that diverged: where, which coordinate, and what to do about it.
[[noreturn]] void diverged(const abdyn::Model& model, const Arguments& args, bool has_loops, const std::string& overlaps,
                           double t, long step, long steps, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                           const std::string& detail) {
  // The coordinate that grew: a non-finite entry of v (else of q), else v's largest entry.
  const bool in_q = v.allFinite() && !q.allFinite();
  const Eigen::VectorXd& x = in_q ? q : v;
  Eigen::Index k = 0;
  if (!x.allFinite()) {
    while (std::isfinite(x[k])) ++k;
  } else if (x.size() > 0) {
    x.cwiseAbs().maxCoeff(&k);
  }
  std::string joint = "?";
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    const int first = in_q ? j.idx_q : j.idx_v, count = in_q ? j.nq : j.nv;
    if (k >= first && k < first + count) joint = j.name;
  }
  std::ostringstream s;
  s << "the simulation diverged at t = " << t << " s (step " << step << " of " << steps << "): ";
  if (x.size() > 0) {
    s << (in_q ? "q" : "v") << "[" << k << "] (joint '" << joint << "') grew to " << x[k];
  }
  if (!detail.empty()) s << " (" << detail << ")";
  if (step == 1 && !x.allFinite()) s << "; the first step is not finite: check the model's masses and inertias";
  // Advice only where it is known to help: a joint past its range (which --limits stops), and, on a
  // tree without loops, the step's error (which a smaller step reduces). A closed chain that diverges
  // has usually reached a singular configuration, which a smaller step reaches sooner, not later.
  std::string past;
  if (q.allFinite() && !args.limits) {
    for (int i = 1; i < model.nbodies(); ++i) {
      const abdyn::Joint& j = model.joint(i);
      if (j.nq != 1) continue;
      const double lo = model.lowerPositionLimit()[j.idx_q], hi = model.upperPositionLimit()[j.idx_q];
      if (q[j.idx_q] < lo || q[j.idx_q] > hi) {
        std::ostringstream one;
        one << (past.empty() ? "" : ", ") << "'" << j.name << "' at " << q[j.idx_q] << " in [" << lo << ", " << hi << "]";
        past += one.str();
      }
    }
  }
  if (!past.empty()) s << "; joints past their position limits: " << past << " (--limits enforces them)";
  // Shapes overlapping at the start are pushed apart by contacts that their joints may not allow: a smaller step
  // does not help, a start where they are apart does.
  if (!overlaps.empty()) {
    s << "; the " << overlaps << ": start from a --q0 where they are apart"
      << (isMjcfFile(args.model_path) ? ", or leave body contacts out (--no-body-contacts)" : "");
  } else if (!has_loops) {
    s << "; lower --dt (now " << args.dt << ") or add --substeps";
    if (hasDamping(model) && args.integrator != "implicit-damping") {
      s << ", or use --integrator implicit-damping, which is stable for any joint damping";
    }
  }
  throw std::runtime_error(s.str());
}

// adaptive-rk4 stopped inside a step from a state with defined dynamics: the state is finite, so this is
// not a divergence; its own message says why (the sub-step budget, or the smallest sub-step).
[[noreturn]] void adaptiveGaveUp(const abdyn::Model& model, double t, long step, long steps, const std::string& why) {
  std::ostringstream s;
  s << "adaptive-rk4 stopped at t = " << t << " s (step " << step << " of " << steps << "): " << why;
  s << (hasDamping(model) ? "; use --integrator implicit-damping, which is stable for any joint damping"
                          : "; try --integrator implicit-midpoint or a shorter --duration");
  throw std::runtime_error(s.str());
}

// The sub-steps adaptive-rk4 took, for the summary: how often the tolerance shortened the step.
std::string adaptiveText(const Stepper& stepper) {
  std::ostringstream s;
  s << ", " << stepper.adaptiveSubsteps() << " error-controlled sub-steps, the shortest " << stepper.smallestSubstep()
    << " s";
  return s.str();
}

}  // namespace

void addSimulateOptions(CLI::App& command, Arguments& args) {
  abdyn_app::addParsed(command, "--duration", "S", args.duration, parsePositive,
                       "simulated time in seconds (default 5); the run ends exactly at S (a last, shorter step when "
                       "--dt does not divide it)");
  command.add_option_function<std::string>("--dt", [&args](const std::string& text) {
    args.dt = parsePositive("--dt", text);
    args.dt_given = true;
  }, "time step in seconds (default: the file's <option timestep> for MJCF files, else 0.001)")->type_name("H");
  command.add_option("--keyframe", args.keyframe,
                     "start from the model's named configuration NAME (an MJCF file's <key>)")
      ->type_name("NAME");
  command.add_option("--q0", args.q0,
                     "the start: all nq values comma-separated, or named values changing the start configuration "
                     "(--keyframe's, else the one the file draws: MJCF's qpos0, URDF's neutral one), "
                     "e.g. --q0 root_joint.z=1.2,knee=0.3 (<joint>=x for one-coordinate joints, <joint>[k]=x for "
                     "coordinate k, <joint>.x/.y/.z for a floating joint's position)")->type_name("LIST");
  abdyn_app::addParsed(command, "--height", "Z", args.height, parseFinite,
                       "with --floating: lift the model so that its lowest collision point starts Z above the ground "
                       "(--ground) or above z = 0", &args.height_given);
  command.add_option("--csv", args.csv_path,
                     "write one row at t = 0 and one per step (t, q:<joint>, v:<joint>, kinetic, potential; with "
                     "constraint rows also iterations, residual, constraint_error, contacts)")->type_name("FILE");
  abdyn_app::addParsed(command, "--integrator", "NAME", args.integrator, parseIntegrator,
                       "rk4, explicit-euler, semi-implicit-euler, implicit-midpoint, implicit-damping (semi-implicit "
                       "Euler with the joint damping taken implicitly: stable for stiff damping) or adaptive-rk4, which "
                       "covers each --dt step with RK4 sub-steps as short as a local error tolerance needs (fast light "
                       "links). Default: implicit-damping when the model has joint damping, else adaptive-rk4 (rk4 with "
                       "loop joints or mimic couplings, semi-implicit-euler with --ground or --limits)");
  abdyn_app::addParsed(command, "--substeps", "N", args.substeps, parseSubsteps,
                       "split every step into N equal sub-steps (default 1)");
  abdyn_app::addParsed(command, "--ground", "Z", args.ground_height, parseFinite,
                       "contact the model's collision geometry with the horizontal plane z = Z; a floating model that "
                       "starts below it is lifted onto it, a fixed one is refused", &args.ground);
  command.add_flag("--limits", args.limits,
                   "enforce the joint position limits (--ground and --limits solve constraint rows each step, with "
                   "semi-implicit-euler or implicit-damping, loop joints among them). Default: on for models with "
                   "loop joints and position limits (a closed chain driven past its joints' ranges meets singular "
                   "configurations), unless --integrator names a method that cannot enforce them");
  command.add_flag("--no-limits", args.no_limits, "do not enforce the joint position limits");
  command.add_option("--srdf", args.srdf_path,
                     "collide the model's bodies with each other too (constraint rows, as --ground), except parents "
                     "with their children and the link pairs FILE's disable_collisions elements name (SRDF)")
      ->type_name("FILE");
  command.add_flag("--no-body-contacts", args.no_body_contacts,
                   "MJCF files: with --ground or --limits the file's geoms collide with each other as MuJoCo pairs "
                   "them (contype/conaffinity, <contact><exclude>, parents with children); this turns that off");
  command.add_flag("--no-world-shapes", args.no_world_shapes,
                   "with contacts (--ground, or an MJCF file's body contacts), the model's bodies collide with the "
                   "world's own collision shapes too (links fixed to the world, MJCF worldbody geoms; world meshes "
                   "by their triangles); this turns that off");
  command.add_option("--html", args.html_dir, "after simulating, write a browser page replaying the run into DIR "
                                               "(see abdyn view --help)")->type_name("DIR");
}

// The time step against the duration (--dt, or the model's own time step).
static void checkStep(const Arguments& args) {
  if (args.dt > args.duration) {
    throw UsageError(args.dt_given ? "--dt must not exceed --duration"
                                   : "the model's time step (" + std::to_string(args.dt) +
                                         " s) exceeds --duration; give a shorter --dt");
  }
  if (args.duration / args.dt > kMaxSteps) {
    std::ostringstream s;
    s << "--duration " << args.duration << " with --dt " << args.dt << " makes " << args.duration / args.dt
      << " steps; at most " << kMaxSteps << " are allowed (shorten --duration or lengthen --dt)";
    throw UsageError(s.str());
  }
}

void checkSimulateArguments(Arguments& args) {
  checkStep(args);
  if (args.limits && args.no_limits) throw UsageError("--limits and --no-limits contradict each other");
  if (args.rows() && !args.integrator.empty() && args.integrator != "semi-implicit-euler" &&
      args.integrator != "implicit-damping") {
    throw UsageError("--ground and --limits step with semi-implicit Euler; --integrator " + args.integrator +
                     " cannot enforce them");
  }
  if (args.height_given && !args.floating) throw UsageError("--height places a floating base: add --floating");
  if (!args.html_dir.empty()) args.csv_path = abdyn_app::prepareHtml(args.html_dir, args.csv_path);
}

int simulate(Arguments args) {
  const abdyn::Model model = load(args);
  if (!args.dt_given && model.timestep() > 0.0) {
    args.dt = model.timestep();  // the file's own step (MJCF's <option timestep>)
    checkStep(args);
  }
  // A floating root whose link has no mass leaves its six coordinates without inertia of their own.
  if (args.floating && floatingRoot(model) && !model.hasDynamics() && model.inertia(1).mass() <= 0.0) {
    throw UsageError("--floating: the root link '" + model.bodyName(1) + "' of model '" + model.name() +
                     "' is massless, so the floating joint's six coordinates and the joints below it move the same "
                     "bodies and the mass matrix is singular; simulate it with its base fixed (without --floating)");
  }
  if (!model.hasDynamics()) {
    std::string bodies;
    for (const int b : model.masslessBodies()) bodies += (bodies.empty() ? "'" : ", '") + model.bodyName(b) + "'";
    throw std::runtime_error("model '" + model.name() + "' is a kinematic model without dynamics: its mass matrix is "
                             "singular (massless bodies: " + bodies + "); simulate it with --bound-mass M "
                             "--bound-inertia I, which give every moving body a mass and inertia");
  }
  abdyn::Data data(model);
  const abdyn::ConstraintSet set = constraints(args, model);
  const bool rows_integrator =
      args.integrator.empty() || args.integrator == "semi-implicit-euler" || args.integrator == "implicit-damping";
  const bool has_limits =
      model.lowerPositionLimit().array().isFinite().any() || model.upperPositionLimit().array().isFinite().any();
  if (!args.limits && !args.no_limits && !set.loops.empty() && rows_integrator && has_limits) {
    args.limits = true;  // loop models keep to their joints' ranges by default (see --limits)
  }
  // Options that would do nothing on this model say so.
  const bool has_collision = std::any_of(model.geometries().begin(), model.geometries().end(), [](const abdyn::Geometry& g) {
    return g.role == abdyn::GeometryRole::Collision && g.body != 0;
  });
  if (args.ground && !has_collision) {
    std::cerr << "abdyn: warning: --ground: model '" << model.name()
              << "' has no collision shape on a moving body, so nothing touches the ground\n";
  }
  if (args.limits && !has_limits) {
    std::cerr << "abdyn: warning: --limits: model '" << model.name() << "' has no position limits to enforce\n";
  }
  if (args.integrator.empty()) {
    // Loop joints and mimic couplings are stepped by the constrained RK4 with post-stabilisation.
    const bool constrained = !set.loops.empty() || !set.couplings.empty();
    args.integrator = hasDamping(model)  ? "implicit-damping"
                      : args.rows()      ? "semi-implicit-euler"
                      : constrained      ? "rk4"
                                         : "adaptive-rk4";
  }
  Stepper stepper(model, args, set);
  if (args.no_world_shapes && stepper.worldShapesText().empty()) {
    std::cerr << "abdyn: warning: --no-world-shapes: model '" << model.name()
              << "' has no collision shape on the world that its contacts would collide with\n";
  }

  bool places_base = false;
  Eigen::VectorXd q = abdyn::neutral(model);
  std::string start_note;
  if (!set.loops.empty() && args.q0.empty() && args.keyframe.empty()) {
    std::string how;
    q = closedConfiguration(model, set, how);
    if (how != kNeutralCloses) start_note = "closed loops: " + how + ", q0 = " + formatVector(q);
  } else {
    q = startConfiguration(model, args, places_base);
  }
  Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());


  // Placement: --height, and a start below the ground (lifted when floating and not placed, else refused).
  const double floor_z = args.ground ? args.ground_height : 0.0;
  std::string lowest_what;
  if (args.height_given) {
    if (!floatingRoot(model)) throw UsageError("--height needs a floating root joint");
    q[model.joint(1).idx_q + 2] += floor_z + args.height - lowestPoint(model, data, q, lowest_what);
    places_base = true;
  }
  if (args.ground) {
    const double depth = floor_z - lowestPoint(model, data, q, lowest_what);
    if (depth > 1e-6) {
      std::ostringstream s;
      s << "the model starts " << depth << " m below the ground at z = " << floor_z << " (its " << lowest_what << ")";
      if (!floatingRoot(model)) {
        s << " and its base is fixed, so no contact can push it out; lower the ground (--ground "
          << floor_z - depth - 0.01 << ") or start from a --q0 that clears it";
        throw UsageError(s.str());
      }
      if (places_base) {
        s << "; start it higher (--height 0 puts its lowest point on the ground)";
        throw UsageError(s.str());
      }
      q[model.joint(1).idx_q + 2] += depth;
      std::ostringstream note;
      note << "lifted " << depth << " m so that its lowest point (" << lowest_what << ") is on the ground; --height sets the clearance";
      start_note = note.str();
    }
  }
  stepper.assemble(q, v);
  stepper.leaveOutWorldTouches(q);
  const std::string overlaps = stepper.startOverlaps(q);
  if (!overlaps.empty()) start_note += (start_note.empty() ? "" : "; ") + overlaps;
  // A model whose dynamics are undefined at the start has an error of its own, not a divergence.
  if (!stepper.dynamicsDefined(q, tau)) abdyn::forwardDynamics(model, data, q, v, tau);
  double worst_closure = stepper.hasLoops() ? stepper.closureError(q) : 0.0;

  std::ofstream csv;
  const auto checkCsv = [&] {
    if (!csv) {
      throw std::runtime_error("cannot write CSV file '" + args.csv_path + "'" +
                               (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    }
  };
  double kinetic = 0.0, potential = 0.0;
  const auto energies = [&] {
    kinetic = abdyn::kineticEnergy(model, data, q, v);
    potential = abdyn::potentialEnergy(model, data, q);
  };
  const auto writeRow = [&](double t, double closure) {
    energies();
    csv << t;
    for (Eigen::Index c = 0; c < q.size(); ++c) csv << ',' << q[c];
    for (Eigen::Index c = 0; c < v.size(); ++c) csv << ',' << v[c];
    csv << ',' << kinetic << ',' << potential;
    if (args.rows()) {
      const abdyn::StepStatistics* stats = stepper.statistics();
      csv << ',' << stats->iterations << ',' << stats->residual << ',' << stats->constraint_error << ',' << stats->contacts;
    }
    if (stepper.hasLoops()) csv << ',' << closure;
    csv << '\n';
    checkCsv();
  };
  if (!args.csv_path.empty()) {
    errno = 0;
    csv.open(args.csv_path);
    checkCsv();
    csv << "t";
    for (const std::string& name : labels(model, true)) csv << ",q:" << name;
    for (const std::string& name : labels(model, false)) csv << ",v:" << name;
    csv << ",kinetic,potential" << (args.rows() ? ",iterations,residual,constraint_error,contacts" : "")
        << (stepper.hasLoops() ? (args.rows() ? ",closure_error" : ",constraint_error") : "") << "\n";
    csv << std::setprecision(12);
    writeRow(0.0, worst_closure);
  }
  energies();
  const double E0 = kinetic + potential;
  const Eigen::VectorXd q_start = q;
  double peak_kinetic = kinetic;

  // Whole steps of --dt, then a last, shorter one to end exactly at --duration (unless the remainder is
  // rounding: below 1e-9 of a step).
  const double ratio = args.duration / args.dt;
  long whole = static_cast<long>(std::floor(ratio * (1.0 + 1e-12)));
  const double remainder = args.duration - static_cast<double>(whole) * args.dt;
  const bool last_shorter = remainder > 1e-9 * args.dt;
  const long steps = whole + (last_shorter ? 1 : 0);
  const bool terminal = isatty(fileno(stderr));
  bool shown = false;
  const auto start = std::chrono::steady_clock::now();
  double t = 0.0;
  Eigen::VectorXd q_before(q.size());
  // The work of the joint damping (trapezoidal in the velocities at the steps' ends), so that the
  // energy statement can tell it from the rest.
  const Eigen::VectorXd& damping = model.damping();
  double damping_loss = 0.0;
  for (long k = 1; k <= steps; ++k) {
    const double h = k <= whole ? args.dt : remainder;
    const double t_next = k <= whole ? static_cast<double>(k) * args.dt : args.duration;
    q_before = q;
    const double damping_power_before = v.dot(damping.cwiseProduct(v));
    try {
      stepper.step(q, v, tau, h);
    } catch (const std::exception& e) {  // abdyn::Error, or abdyn::InvalidArgument from checked mode
      // A step from a state where the dynamics are defined failed inside: its stages left them.
      // Its message is about the symptom (a singular matrix at a wild stage state), not the cause.
      if (!stepper.dynamicsDefined(q_before, tau)) throw;
      if (args.integrator == "adaptive-rk4" && q.allFinite() && v.allFinite()) adaptiveGaveUp(model, t, k, steps, e.what());
      diverged(model, args, stepper.hasLoops(), overlaps, t_next, k, steps, q, v, "within the step, the dynamics became undefined");
    }
    t = t_next;
    if (!q.allFinite() || !v.allFinite()) diverged(model, args, stepper.hasLoops(), overlaps, t, k, steps, q, v, "");
    damping_loss += 0.5 * h * (damping_power_before + v.dot(damping.cwiseProduct(v)));
    const double closure = stepper.hasLoops() ? stepper.closureError(q) : 0.0;
    worst_closure = std::max(worst_closure, closure);
    if (csv.is_open()) {
      writeRow(t, closure);
    } else if (k % 16 == 0 || k == steps) {
      energies();
    }
    if (csv.is_open() || k % 16 == 0 || k == steps) {
      peak_kinetic = std::max(peak_kinetic, kinetic);
      // Nothing in the model supplies energy: a thousandfold gain is the step's error growing.
      if (kinetic + potential - E0 > 1e3 * std::max(1.0, std::abs(E0))) {
        std::ostringstream s;
        s << "the energy grew from " << E0 << " J to " << kinetic + potential << " J, which nothing in the model supplies";
        diverged(model, args, stepper.hasLoops(), overlaps, t, k, steps, q, v, s.str());
      }
    }
    if (terminal && (k % 256 == 0 || k == steps)) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed > 1.0 || shown) {
        progress(static_cast<double>(k) / steps);
        shown = true;
      }
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (shown) std::fprintf(stderr, "\n");
  if (csv.is_open()) {
    csv.close();
    checkCsv();
  }
  energies();
  const double E1 = kinetic + potential;

  // The energy statement says what happened, and names what can remove energy when it fell.
  const double change = E1 - E0;
  // The energy's scale: the largest of the energies seen and the work of lifting the whole model by its
  // own size (the farthest body origin from the root at the start), so that a model at rest at zero
  // potential energy still has a scale to judge a change by.
  double size = 0.0;
  {
    abdyn::Data scratch(model);
    abdyn::forwardKinematics(model, scratch, q_start);
    for (int i = 1; i < model.nbodies(); ++i) {
      size = std::max(size, (scratch.X_body_world[i].r() - scratch.X_body_world[1].r()).norm());
    }
  }
  const double scale = std::max({std::abs(E0), std::abs(E1), peak_kinetic,
                                 model.totalMass() * model.gravity().linear().norm() * size, 1e-9});
  const double tolerance = 1e-6 * scale;
  std::ostringstream conserved;
  conserved << "conserved (the change is within 1e-6 of the energy scale " << scale << " J)";
  // What the change comes from, where abdyn knows: the damping's work is measured; contacts, limits and
  // friction rows are not separated from the step's error; without them, the rest is the error of the
  // time step (and of the post-stabilisation that corrects its drift), which a smaller --dt reduces.
  std::vector<std::string> unmeasured;
  if (args.ground) unmeasured.push_back("contacts");
  if (args.limits) unmeasured.push_back("joint limits");
  if (stepper.statistics() && model.friction().size() > 0 && model.friction().maxCoeff() > 0.0) {
    unmeasured.push_back("joint friction");
  }
  const auto joined = [](const std::vector<std::string>& items) {
    std::string list;
    for (std::size_t k = 0; k < items.size(); ++k) list += (k ? (k + 1 == items.size() ? " and " : ", ") : "") + items[k];
    return list;
  };
  const double rest = change + damping_loss;  // the change that the damping does not account for
  std::ostringstream why;
  if (std::abs(change) <= tolerance) {
    why << conserved.str();
  } else if (!unmeasured.empty()) {
    std::vector<std::string> causes = unmeasured;
    if (hasDamping(model)) causes.insert(causes.begin(), "joint damping");
    causes.push_back("the error of the time step");
    why << (change < 0.0 ? "dissipated" : "changed") << " by " << joined(causes) << " together (not separated)";
  } else if (std::abs(rest) <= tolerance) {
    why << "dissipated by joint damping";
  } else {
    if (hasDamping(model)) why << "joint damping took " << damping_loss << " J; the other " << rest << " J are ";
    else why << (change < 0.0 ? "lost: " : "gained: ");
    why << "the error of the time step (" << args.integrator << " at --dt " << args.dt << ")"
        << (stepper.hasLoops() ? " and of the post-stabilisation that corrects its drift" : "")
        << ", which a smaller --dt reduces";
  }
  const std::string statement = why.str();

  std::ostringstream step_text;
  step_text << steps << " steps of " << args.dt << " s";
  if (last_shorter) step_text << " (the last " << remainder << " s)";
  std::cout << "model:          " << model.name() << " (" << args.model_path << (args.floating ? ", floating base" : "")
            << ")\n"
            << "dof:            nq = " << model.nq() << ", nv = " << model.nv() << "\n";
  if (!start_note.empty()) std::cout << "start:          " << start_note << "\n";
  std::cout << "simulated:      " << t << " s in " << step_text.str() << " (" << args.integrator
            << (args.substeps > 1 ? ", " + std::to_string(args.substeps) + " sub-steps" : "")
            << (args.integrator == "adaptive-rk4" ? adaptiveText(stepper) : std::string())
            << (args.limits ? ", joint limits" : "")
            << (args.ground ? ", ground at z = " + std::to_string(args.ground_height) : "")
            << ", zero torque, gravity " << model.gravity().linear().transpose() << ")\n"
            << "wall time:      " << std::setprecision(4) << wall << " s (" << std::setprecision(6)
            << (wall > 0 ? steps / wall : 0.0) << " steps/s)\n"
            << "final q:        " << namedValues(labels(model, true), q) << "\n"
            << "final v:        " << namedValues(labels(model, false), v) << "\n"
            << "energy:         " << E0 << " J -> " << E1 << " J, change " << change << " J ("
            << (E0 != 0.0 ? 100.0 * change / std::abs(E0) : 0.0) << "%): " << statement << "\n";
  if (const std::string world = stepper.worldShapesText(); !world.empty()) std::cout << "world shapes:   " << world << "\n";
  if (args.ground) {
    const std::string missed = has_collision ? abdyn::uncollidedShapes(model) : "no collision shape on a moving body";
    if (!missed.empty()) std::cout << "contacts:       " << missed << "\n";
    // Where the model ended against the ground: a negative height is a penetration (or a fall through it).
    std::string what;
    const double low = lowestPoint(model, data, q, what) - args.ground_height;
    std::cout << "lowest point:   " << low << " m above the ground at the end (" << what << ")\n";
  }
  if (stepper.hasLoops()) {
    std::cout << "loop closure:   " << set.loops.size() << " loop joint(s), " << set.couplings.size()
              << " mimic coupling(s), largest closure error " << worst_closure
              << (args.rows() ? " (constraint rows with the limits)" : " (post-stabilised every step)") << "\n";
  }
  if (!args.html_dir.empty()) {
    csv.close();
    abdyn_app::writePage({args.model_path, args.floating, args.urdf, args.csv_path,
                          args.ground ? std::optional<double>(args.ground_height) : std::nullopt}, args.html_dir);
  }
  return 0;
}

}  // namespace abdyn_app
