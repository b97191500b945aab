// abdyn: the command-line program.
//
//   abdyn info MODEL.urdf [--floating] [--accept-invalid-inertia]
//   abdyn simulate MODEL.urdf [--floating] [--accept-invalid-inertia] [--duration S] [--dt H] [--q0 LIST] [--csv FILE]
//                  [--integrator NAME] [--substeps N] [--ground Z] [--limits] [--html DIR]
//   abdyn view MODEL.urdf ... (app/view.cpp)

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "view.hpp"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  abdyn info MODEL.urdf [--floating] [--accept-invalid-inertia]\n"
    "      print the kinematic tree, degrees of freedom, masses and limits\n"
    "  abdyn simulate MODEL.urdf [--floating] [--accept-invalid-inertia] [--duration S] [--dt H] [--q0 LIST] [--csv FILE]\n"
    "                 [--integrator NAME] [--substeps N] [--ground Z] [--limits]\n"
    "      simulate the model under gravity with zero joint torque from the neutral configuration\n"
    "      (or from --q0, comma-separated q values); print a summary and, with --csv, one row per step\n"
    "      (t, q:<joint>, v:<joint>, kinetic, potential; with constraint rows also iterations, residual,\n"
    "      constraint_error, contacts)\n"
    "  abdyn view MODEL.urdf [--csv FILE] [--floating] [--port P] [--out DIR]\n"
    "      write a browser page of the model (and trajectory) and serve it on 127.0.0.1 (abdyn view --help)\n"
    "options:\n"
    "  --floating     attach the root link to the world by a 6-DoF floating joint\n"
    "  --accept-invalid-inertia\n"
    "                 load links whose inertia is degenerate or breaks the triangle inequality\n"
    "                 (with a warning) instead of rejecting the file\n"
    "  --duration S   simulated time in seconds (default 5)\n"
    "  --dt H         time step in seconds (default 0.001)\n"
    "  --integrator NAME\n"
    "                 rk4 (default), explicit-euler, semi-implicit-euler or implicit-midpoint\n"
    "  --substeps N   split every step into N equal sub-steps (default 1)\n"
    "  --ground Z     contact the model's collision geometry with the horizontal plane z = Z\n"
    "  --limits       enforce the joint position limits\n"
    "                 (--ground and --limits solve constraint rows each step, with semi-implicit Euler)\n"
    "  --html DIR     after simulating, write a browser page replaying the run into DIR (see abdyn view --help)\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Arguments {
  std::string command, model_path, csv_path, q0;
  bool floating = false;
  bool accept_invalid_inertia = false;
  double duration = 5.0;
  double dt = 1e-3;
  std::string integrator;  // empty: rk4, or semi-implicit-euler with constraint rows
  int substeps = 1;
  bool ground = false;
  double ground_height = 0.0;
  bool limits = false;
  std::string html_dir;  // simulate --html: the page's folder
  bool rows() const { return ground || limits; }
};

const std::vector<std::string> kIntegrators = {"rk4", "explicit-euler", "semi-implicit-euler", "implicit-midpoint"};

double parseNumber(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(x)) {
    throw UsageError(option + " expects a finite number, got '" + text + "'");
  }
  return x;
}

double parsePositive(const std::string& option, const std::string& text) {
  const double x = parseNumber(option, text);
  if (x <= 0.0) throw UsageError(option + " expects a positive number, got '" + text + "'");
  return x;
}

Arguments parse(int argc, char** argv) {
  if (argc < 2) throw UsageError("missing command");
  Arguments args;
  args.command = argv[1];
  if (args.command == "--help" || args.command == "-h" || args.command == "help") return args;
  if (args.command != "info" && args.command != "simulate") throw UsageError("unknown command '" + args.command + "'");
  for (int k = 2; k < argc; ++k) {
    const std::string a = argv[k];
    const auto value = [&]() -> std::string {
      if (k + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++k];
    };
    if (a == "--floating") {
      args.floating = true;
    } else if (a == "--accept-invalid-inertia") {
      args.accept_invalid_inertia = true;
    } else if (a == "--duration" && args.command == "simulate") {
      args.duration = parsePositive(a, value());
    } else if (a == "--dt" && args.command == "simulate") {
      args.dt = parsePositive(a, value());
    } else if (a == "--csv" && args.command == "simulate") {
      args.csv_path = value();
    } else if (a == "--q0" && args.command == "simulate") {
      args.q0 = value();
    } else if (a == "--integrator" && args.command == "simulate") {
      args.integrator = value();
      if (std::find(kIntegrators.begin(), kIntegrators.end(), args.integrator) == kIntegrators.end()) {
        throw UsageError("--integrator expects rk4, explicit-euler, semi-implicit-euler or implicit-midpoint, got '" +
                         args.integrator + "'");
      }
    } else if (a == "--substeps" && args.command == "simulate") {
      const std::string text = value();
      const double n = parsePositive(a, text);
      if (n != std::floor(n) || n > 1e6) throw UsageError("--substeps expects a positive integer, got '" + text + "'");
      args.substeps = static_cast<int>(n);
    } else if (a == "--ground" && args.command == "simulate") {
      args.ground = true;
      args.ground_height = parseNumber(a, value());
    } else if (a == "--limits" && args.command == "simulate") {
      args.limits = true;
    } else if (a == "--html" && args.command == "simulate") {
      args.html_dir = value();
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "' for '" + args.command + "'");
    } else if (args.model_path.empty()) {
      args.model_path = a;
    } else {
      throw UsageError("unexpected argument '" + a + "'");
    }
  }
  if (args.model_path.empty()) throw UsageError("missing MODEL.urdf");
  if (args.dt > args.duration) throw UsageError("--dt must not exceed --duration");
  if (args.rows() && !args.integrator.empty() && args.integrator != "semi-implicit-euler") {
    throw UsageError("--ground and --limits step with semi-implicit Euler; --integrator " + args.integrator +
                     " cannot enforce them");
  }
  if (args.integrator.empty()) args.integrator = args.rows() ? "semi-implicit-euler" : "rk4";
  if (!args.html_dir.empty()) args.csv_path = abdyn_app::prepareHtml(args.html_dir, args.csv_path);
  return args;
}

// Coordinate labels: <joint> for one-coordinate joints, <joint>[k] otherwise.
std::vector<std::string> labels(const abdyn::Model& model, bool positions) {
  std::vector<std::string> out;
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    const int n = positions ? j.nq : j.nv;
    for (int k = 0; k < n; ++k) out.push_back(n == 1 ? j.name : j.name + "[" + std::to_string(k) + "]");
  }
  return out;
}

std::string formatLimit(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s << x;
  return s.str();
}

abdyn::Model load(const Arguments& args) {
  abdyn::UrdfOptions options;
  options.floating_base = args.floating;
  options.accept_invalid_inertia = args.accept_invalid_inertia;
  return abdyn::loadUrdf(args.model_path, options);
}

int info(const Arguments& args) {
  const abdyn::Model model = load(args);
  std::cout << "model " << model.name() << ": " << model.nbodies() - 1 << " bodies, nq = " << model.nq()
            << ", nv = " << model.nv() << ", mass " << model.totalMass() << " kg\n";
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    int depth = 0;
    for (int p = model.parent(i); p > 0; p = model.parent(p)) ++depth;
    std::cout << std::string(2 * depth + 2, ' ') << model.bodyName(i) << "  (joint " << j.name << ", " << j.type
              << ", parent " << model.bodyName(model.parent(i)) << ", mass " << model.inertia(i).mass() << " kg";
    if (j.nq == 1) {
      std::cout << ", range [" << formatLimit(model.lowerPositionLimit()[j.idx_q]) << ", "
                << formatLimit(model.upperPositionLimit()[j.idx_q]) << "]";
    }
    std::cout << ", velocity " << formatLimit(model.velocityLimit()[j.idx_v]) << ", effort "
              << formatLimit(model.effortLimit()[j.idx_v]) << ")\n";
  }
  std::cout << "frames: " << model.nframes() << ", geometries: " << model.geometries().size() << "\n";
  return 0;
}

void progress(double fraction) {
  const int width = 40;
  const int filled = static_cast<int>(fraction * width);
  std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
               static_cast<int>(100 * fraction));
  std::fflush(stderr);
}

// One step of the chosen method: an unconstrained integrator, or the Simulator's constraint-row step.
class Stepper {
 public:
  Stepper(const abdyn::Model& model, const Arguments& args, const abdyn::ConstraintSet& loops)
      : model_(model), data_(model), args_(args), rk_(model), explicit_(model), semi_implicit_(model), midpoint_(model),
        loops_(loops) {
    if (!loops.loops.empty()) {
      if (args.rows()) throw UsageError("--ground and --limits are not available for models with loop joints");
      if (args.integrator != "rk4") throw UsageError("models with loop joints step with rk4 and post-stabilisation");
      constrained_ = std::make_unique<abdyn::ConstrainedDynamicsData>(model, loops);
    }
    if (args.rows()) {
      abdyn::SimulatorSettings settings;
      settings.substeps = args.substeps;
      settings.joint_limits = args.limits;
      settings.ground = args.ground;
      settings.contact.height = args.ground_height;
      simulator_ = std::make_unique<abdyn::Simulator>(model, settings);
    }
  }

  /// Closes the loops at q (Gauss-Newton from q) and makes v admissible; no-op without loop joints.
  void assemble(Eigen::VectorXd& q, Eigen::VectorXd& v) {
    if (!constrained_) return;
    try {
      abdyn::projectPositions(model_, data_, *constrained_, loops_, q, 1e-12, 100);
    } catch (const abdyn::Error& e) {
      throw std::runtime_error(std::string(e.what()) + "; give a configuration near a closed one with --q0");
    }
    abdyn::projectVelocities(model_, data_, *constrained_, loops_, q, v);
  }

  /// The largest closure error at q (loop-joint models only).
  double closureError(const Eigen::VectorXd& q) {
    abdyn::constraintJacobian(model_, data_, loops_, constrained_->kinematics, q);
    const Eigen::VectorXd& C = constrained_->kinematics.C;
    return C.size() ? C.cwiseAbs().maxCoeff() : 0.0;
  }
  bool hasLoops() const { return constrained_ != nullptr; }

  void step(Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
    if (constrained_) {
      loopStep(q, v, tau);
      return;
    }
    if (simulator_) {
      simulator_->q = q;
      simulator_->v = v;
      simulator_->tau = tau;
      simulator_->step(args_.dt);
      q = simulator_->q;
      v = simulator_->v;
      return;
    }
    const abdyn::DynamicsOptions options;
    const std::string& name = args_.integrator;
    if (name == "explicit-euler") {
      abdyn::stepWithSubsteps(explicit_, model_, data_, q, v, tau, args_.dt, args_.substeps, options);
    } else if (name == "semi-implicit-euler") {
      abdyn::stepWithSubsteps(semi_implicit_, model_, data_, q, v, tau, args_.dt, args_.substeps, options);
    } else if (name == "implicit-midpoint") {
      abdyn::stepWithSubsteps(midpoint_, model_, data_, q, v, tau, args_.dt, args_.substeps, options);
    } else {
      abdyn::stepWithSubsteps(rk_, model_, data_, q, v, tau, args_.dt, args_.substeps, options);
    }
  }

  // RK4 on the constrained accelerations (stages moved on the manifold), then post-stabilisation: q
  // projected onto C(q) = 0 and v onto G v = 0.
  void loopStep(Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
    const double h = args_.dt;
    const auto accel = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) -> Eigen::VectorXd {
      return abdyn::forwardDynamicsConstrained(model_, data_, *constrained_, loops_, qq, vv, tau);
    };
    Eigen::VectorXd qs(q.size());
    const Eigen::VectorXd a1 = accel(q, v);
    const Eigen::VectorXd v2 = v + 0.5 * h * a1;
    abdyn::integrate(model_, q, v, 0.5 * h, qs);
    const Eigen::VectorXd a2 = accel(qs, v2);
    const Eigen::VectorXd v3 = v + 0.5 * h * a2;
    abdyn::integrate(model_, q, v2, 0.5 * h, qs);
    const Eigen::VectorXd a3 = accel(qs, v3);
    const Eigen::VectorXd v4 = v + h * a3;
    abdyn::integrate(model_, q, v3, h, qs);
    const Eigen::VectorXd a4 = accel(qs, v4);
    abdyn::integrate(model_, q, ((v + 2.0 * v2 + 2.0 * v3 + v4) / 6.0).eval(), h, q);
    v += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    assemble(q, v);
  }

  /// The constraint rows' statistics of the last step (constrained runs only).
  const abdyn::StepStatistics* statistics() const { return simulator_ ? &simulator_->statistics() : nullptr; }

 private:
  const abdyn::Model& model_;
  abdyn::Data data_;
  const Arguments& args_;
  abdyn::RungeKutta4 rk_;
  abdyn::ExplicitEuler explicit_;
  abdyn::SemiImplicitEuler semi_implicit_;
  abdyn::ImplicitMidpoint midpoint_;
  std::unique_ptr<abdyn::Simulator> simulator_;
  const abdyn::ConstraintSet& loops_;
  std::unique_ptr<abdyn::ConstrainedDynamicsData> constrained_;
};

int simulate(const Arguments& args) {
  const abdyn::Model model = load(args);
  abdyn::Data data(model);
  const abdyn::ConstraintSet loops = abdyn::loadUrdfLoops(args.model_path, model);
  Stepper stepper(model, args, loops);

  Eigen::VectorXd q = abdyn::neutral(model);
  if (!args.q0.empty()) {
    std::vector<double> values;
    std::stringstream list(args.q0);
    for (std::string item; std::getline(list, item, ',');) values.push_back(parseNumber("--q0", item));
    if (static_cast<int>(values.size()) != model.nq()) {
      throw UsageError("--q0 has " + std::to_string(values.size()) + " values, the model has nq = " + std::to_string(model.nq()));
    }
    q = Eigen::Map<Eigen::VectorXd>(values.data(), model.nq());
    abdyn::normalize(model, q);
  }
  Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  stepper.assemble(q, v);
  double worst_closure = 0.0;

  std::ofstream csv;
  if (!args.csv_path.empty()) {
    csv.open(args.csv_path);
    if (!csv) throw std::runtime_error("cannot write CSV file '" + args.csv_path + "'");
    csv << "t";
    for (const std::string& name : labels(model, true)) csv << ",q:" << name;
    for (const std::string& name : labels(model, false)) csv << ",v:" << name;
    csv << ",kinetic,potential" << (args.rows() ? ",iterations,residual,constraint_error,contacts" : "")
        << (stepper.hasLoops() ? ",constraint_error" : "") << "\n";
    csv << std::setprecision(12);
  }
  const auto energies = [&](double& kinetic, double& potential) {
    kinetic = abdyn::kineticEnergy(model, data, q, v);
    potential = abdyn::potentialEnergy(model, data, q);
  };
  double kinetic = 0.0, potential = 0.0;
  energies(kinetic, potential);
  const double E0 = kinetic + potential;

  const long steps = std::lround(args.duration / args.dt);
  const bool terminal = isatty(fileno(stderr));
  bool shown = false;
  const auto start = std::chrono::steady_clock::now();
  double t = 0.0;
  for (long k = 1; k <= steps; ++k) {
    stepper.step(q, v, tau);
    t = k * args.dt;
    const double closure = stepper.hasLoops() ? stepper.closureError(q) : 0.0;
    worst_closure = std::max(worst_closure, closure);
    if (csv.is_open()) {
      energies(kinetic, potential);
      csv << t;
      for (Eigen::Index c = 0; c < q.size(); ++c) csv << ',' << q[c];
      for (Eigen::Index c = 0; c < v.size(); ++c) csv << ',' << v[c];
      csv << ',' << kinetic << ',' << potential;
      if (const abdyn::StepStatistics* stats = stepper.statistics()) {
        csv << ',' << stats->iterations << ',' << stats->residual << ',' << stats->constraint_error << ',' << stats->contacts;
      }
      if (stepper.hasLoops()) csv << ',' << closure;
      csv << '\n';
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
  energies(kinetic, potential);
  const double E1 = kinetic + potential;

  const bool damped = model.damping().size() > 0 && model.damping().maxCoeff() > 0.0;
  std::cout << "model:          " << model.name() << " (" << args.model_path << (args.floating ? ", floating base" : "")
            << ")\n"
            << "dof:            nq = " << model.nq() << ", nv = " << model.nv() << "\n"
            << "simulated:      " << t << " s in " << steps << " steps of " << args.dt
            << " s (" << args.integrator << (args.substeps > 1 ? ", " + std::to_string(args.substeps) + " sub-steps" : "")
            << (args.limits ? ", joint limits" : "")
            << (args.ground ? ", ground at z = " + std::to_string(args.ground_height) : "")
            << ", zero torque, gravity " << model.gravity().linear().transpose() << ")\n"
            << "wall time:      " << std::setprecision(4) << wall << " s (" << std::setprecision(6)
            << (wall > 0 ? steps / wall : 0.0) << " steps/s)\n"
            << "final q:        " << q.transpose() << "\n"
            << "final v:        " << v.transpose() << "\n"
            << "energy:         " << E0 << " J -> " << E1 << " J, drift " << (E1 - E0) << " J ("
            << (E0 != 0.0 ? 100.0 * (E1 - E0) / std::abs(E0) : 0.0) << "%)"
            << (damped ? "; the model has joint damping, so energy is dissipated" : "") << "\n";
  if (stepper.hasLoops()) {
    std::cout << "loop closure:   " << loops.loops.size() << " loop joint(s), largest closure error " << worst_closure
              << " (post-stabilised every step)\n";
  }
  if (!args.html_dir.empty()) {
    csv.close();
    abdyn_app::writePage({args.model_path, args.floating, args.accept_invalid_inertia, args.csv_path,
                          args.ground ? std::optional<double>(args.ground_height) : std::nullopt}, args.html_dir);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "view") return abdyn_app::view(argc, argv);
  try {
    const Arguments args = parse(argc, argv);
    if (args.command == "info") return info(args);
    if (args.command == "simulate") return simulate(args);
    std::cout << kUsage;
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "abdyn: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "abdyn: " << e.what() << "\n";
    return 1;
  }
}
