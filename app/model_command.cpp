#include "model_command.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

#include "check.hpp"
#include "model_lookup.hpp"

namespace abdyn_app {

CLI::App* addModelCommand(CLI::App& app, const std::string& name, const std::string& description, Arguments& args) {
  CLI::App* command = app.add_subcommand(name, description)->allow_extras();
  command->add_option("MODEL.urdf", args.model_path, "a URDF or MJCF (.xml) file, or the name of a bundled model")->required();
  command->add_flag("--floating", args.floating, "attach the root link to the world by a 6-DoF floating joint");
  abdyn_app::addUrdfOptions(*command, args.urdf);
  return command;
}

abdyn::Model load(const Arguments& args) {
  abdyn::UrdfOptions options = args.urdf;
  options.floating_base = args.floating;
  return loadModelFile(args.model_path, options);
}

abdyn::ConstraintSet constraints(const Arguments& args, const abdyn::Model& model) {
  return loadModelConstraints(args.model_path, model);  // a URDF's loop joints and mimics, an MJCF file's equalities
}

namespace {

// The joint whose position limit q passes farthest, and by how much (0 within every limit).
double limitViolation(const abdyn::Model& model, const Eigen::VectorXd& q, std::string& joint) {
  const Eigen::VectorXd over = (q - model.upperPositionLimit()).cwiseMax(model.lowerPositionLimit() - q);
  double worst = 0.0;
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    for (int k = 0; k < j.nq; ++k) {
      if (over[j.idx_q + k] > worst) {
        worst = over[j.idx_q + k];
        joint = j.name;
      }
    }
  }
  return worst;
}

// Gauss-Newton towards C(q) = 0 that stays within the position limits: q starts clamped into them, a
// one-coordinate joint at a bound that the step would push out is held there (its column of dC/dq
// dropped), each step is shortened to move no coordinate more than 0.2 rad or m (so that q stays near the
// guess rather than jumping to another branch of the loops), and q is clamped after it. True when the
// loops close within 1e-12.
bool closeWithinLimits(const abdyn::Model& model, abdyn::Data& data, const abdyn::ConstraintSet& set,
                       abdyn::ConstraintKinematics& ck, Eigen::VectorXd& q) {
  const Eigen::VectorXd& lower = model.lowerPositionLimit();
  const Eigen::VectorXd& upper = model.upperPositionLimit();
  q = q.cwiseMax(lower).cwiseMin(upper);
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver;
  for (int it = 0; it < 200; ++it) {
    abdyn::constraintJacobian(model, data, set, ck, q);
    if (ck.C.size() == 0 || ck.C.cwiseAbs().maxCoeff() <= 1e-12) return true;
    Eigen::MatrixXd J = ck.G_exact;
    Eigen::VectorXd step;
    for (bool held = true; held;) {
      solver.compute(J);
      step = -solver.solve(ck.C);
      held = false;
      for (int i = 1; i < model.nbodies(); ++i) {
        const abdyn::Joint& j = model.joint(i);
        if (j.nq != 1 || j.nv != 1 || J.col(j.idx_v).isZero(0.0)) continue;
        if ((q[j.idx_q] <= lower[j.idx_q] && step[j.idx_v] < 0.0) || (q[j.idx_q] >= upper[j.idx_q] && step[j.idx_v] > 0.0)) {
          J.col(j.idx_v).setZero();
          held = true;
        }
      }
    }
    const double largest = step.cwiseAbs().maxCoeff();
    if (!(largest > 0.0) || !std::isfinite(largest)) return false;
    abdyn::integrate(model, q, step, std::min(1.0, 0.2 / largest), q);
    q = q.cwiseMax(lower).cwiseMin(upper);
  }
  return false;
}

}  // namespace

Eigen::VectorXd closedConfiguration(const abdyn::Model& model, const abdyn::ConstraintSet& set, std::string& how) {
  abdyn::Data data(model);
  abdyn::ConstrainedDynamicsData cd(model, set);
  const Eigen::VectorXd q_neutral = abdyn::neutral(model);
  // A closed configuration outside the joints' ranges is kept only when no guess gives one inside them: the
  // limit rows of a simulation would drive it back at the stabilisation's speed, through the loops.
  Eigen::VectorXd outside;
  std::string outside_how;
  const auto accept = [&](const Eigen::VectorXd& q, const std::string& found) {
    std::string joint;
    const double violation = limitViolation(model, q, joint);
    if (violation <= 1e-9) {
      how = found;
      return true;
    }
    if (outside.size() == 0) {
      outside = q;
      std::ostringstream s;
      s << found << ", outside the position limits (joint '" << joint << "' by " << violation << ")";
      outside_how = s.str();
    }
    return false;
  };
  Eigen::VectorXd q = q_neutral;
  std::string neutral = "the neutral configuration does not close them";
  try {
    abdyn::projectPositions(model, data, cd, set, q, 1e-12, 100);
    if (accept(q, kNeutralCloses)) return q;
    neutral = "the neutral configuration closes them only outside the joints' position limits";
  } catch (const abdyn::Error&) {
  }
  abdyn::ConstraintKinematics ck(model, set);
  q = q_neutral;
  if (closeWithinLimits(model, data, set, ck, q) && accept(q, kNeutralCloses + std::string(" (held within the limits)"))) {
    return q;
  }
  std::mt19937 rng(2024);
  const int attempts = 60;
  for (int a = 1; a <= attempts; ++a) {
    const Eigen::VectorXd towards = abdyn::difference(model, q_neutral, abdyn::randomConfiguration(model, rng));
    abdyn::integrate(model, q_neutral, towards, std::min(1.0, 0.1 * ((a + 5) / 6)), q);
    const Eigen::VectorXd guess = q;
    const std::string found = neutral + "; found from a guess near it (seed 2024, guess " + std::to_string(a) + ")";
    try {
      abdyn::projectPositions(model, data, cd, set, q, 1e-12, 100);
      if (accept(q, found)) return q;
    } catch (const abdyn::Error&) {
    }
    q = guess;
    if (closeWithinLimits(model, data, set, ck, q) && accept(q, found)) return q;
  }
  if (outside.size() > 0) {
    how = outside_how + "; no guess near it closes them within the limits";
    return outside;
  }
  throw std::runtime_error("model '" + model.name() + "': no configuration closing its loops was found from the " +
                           "neutral one or " + std::to_string(attempts) + " guesses near it; give one with --q0");
}

std::vector<std::string> labels(const abdyn::Model& model, bool positions) {
  std::vector<std::string> out;
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    const int n = positions ? j.nq : j.nv;
    for (int k = 0; k < n; ++k) out.push_back(n == 1 ? j.name : j.name + "[" + std::to_string(k) + "]");
  }
  return out;
}

std::string namedValues(const std::vector<std::string>& names, const Eigen::VectorXd& x) {
  std::ostringstream s;
  for (Eigen::Index k = 0; k < x.size(); ++k) s << (k ? ", " : "") << names[static_cast<std::size_t>(k)] << "=" << x[k];
  return s.str();
}

std::string formatVector(const Eigen::VectorXd& x) {
  std::ostringstream s;
  for (Eigen::Index k = 0; k < x.size(); ++k) s << (k ? "," : "") << x[k];
  return s.str();
}

bool hasDamping(const abdyn::Model& model) { return model.damping().size() > 0 && model.damping().maxCoeff() > 0.0; }

bool floatingRoot(const abdyn::Model& model) {
  return model.nbodies() > 1 && model.parent(1) == 0 && model.joint(1).identitySubspace();
}

}  // namespace abdyn_app
