#include "abdyn/constraints/constrained_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "abdyn/error.hpp"
#include "algorithms/passes.hpp"
#include "constraints/constrained_solvers.hpp"
#include "constraints/passes.hpp"
#include "internal/checks.hpp"

namespace abdyn {

namespace internal {

// (a, b) of rhs = gamma - a G v - b C for the chosen stabilisation (formulas in the header).
std::pair<double, double> feedbackGains(const ConstrainedDynamicsSettings& s) {
  const double h = s.time_step;
  switch (s.stabilisation) {
    case Stabilisation::ErrorReduction: {
      const double beta = 1.0 - std::pow(1.0 - s.erp, h);  // (1 - ERP)^(1/n) with n = 1/h
      return {1.0 / h, beta / (h * h)};
    }
    case Stabilisation::PredictedError:
      return {1.0 / h, 0.5 / (h * h)};
    case Stabilisation::Baumgarte:
      break;
  }
  return {2.0 * s.baumgarte_alpha, s.baumgarte_beta * s.baumgarte_beta};
}

void checkConstrainedSettings(const ConstrainedDynamicsSettings& s, const char* fn) {
  const auto fail = [fn](const char* name, double value, const char* what) {
    throw InvalidArgument(std::string(fn) + ": settings." + name + " = " + numberText(value) + " " + what);
  };
  const std::pair<const char*, double> non_negative[] = {{"baumgarte_alpha", s.baumgarte_alpha},
                                                          {"baumgarte_beta", s.baumgarte_beta},
                                                          {"cfm", s.cfm},
                                                          {"rank_tolerance", s.rank_tolerance},
                                                          {"consistency_tolerance", s.consistency_tolerance}};
  for (const auto& [name, value] : non_negative) {
    if (!(std::isfinite(value) && value >= 0.0)) fail(name, value, "must be finite and non-negative");
  }
  if (!(s.erp >= 0.0 && s.erp <= 1.0)) fail("erp", s.erp, "must lie in [0, 1]");
  if (!(std::isfinite(s.time_step) && s.time_step >= 0.0)) fail("time_step", s.time_step, "must be finite and non-negative");
  internal::checkDynamicsOptions(s.dynamics, fn);
  if (s.stabilisation != Stabilisation::Baumgarte && !(s.time_step > 0.0)) {
    fail("time_step", s.time_step, "must be positive: ErrorReduction and PredictedError need the integrator's step");
  }
}

void checkConstrainedCall(const Model& model, const Data& data, const ConstrainedDynamicsData& cd,
                          const ConstraintSet& constraints, const Eigen::VectorXd& q,
                          const ConstrainedDynamicsSettings* settings, const char* fn) {
  checkData(model, data, fn);
  checkConstrainedWorkspace(cd, model, constraints, fn);
  if (settings) {  // a dynamics call (the projections take no settings: they need kinematics only)
    checkDynamics(model, fn);
    checkConstrainedSettings(*settings, fn);
  }
  checkConfiguration(model, q, fn);
}

void checkConstrainedWorkspace(const ConstrainedDynamicsData& cd, const Model& model,
                               const ConstraintSet& constraints, const char* fn) {
  if (cd.lambda.size() != constraints.rows() || cd.qdd.size() != model.nv()) {
    throw InvalidArgument(std::string(fn) + ": 'cd' was built for other constraints or another model");
  }
}

}  // namespace internal


ConstrainedDynamicsData::ConstrainedDynamicsData(const Model& model, const ConstraintSet& constraints)
    : kinematics(model, constraints),
      qdd(Eigen::VectorXd::Zero(model.nv())),
      v_plus(Eigen::VectorXd::Zero(model.nv())),
      lambda(Eigen::VectorXd::Zero(constraints.rows())),
      closure_wrench(constraints.loops.size(), Vector6::Zero()),
      work_(model, constraints) {
  internal::buildSupports(model, constraints, *this);
}

ConstrainedDynamicsData::Workspace::Workspace(const Model& model, const ConstraintSet& constraints)
    : qdd0(model.nv()),
      rhs(constraints.rows()),
      eta(constraints.rows()),
      row(model.nv()),
      column(model.nv()),
      Minv_Gt(model.nv(), constraints.rows()),
      Gamma(constraints.rows(), constraints.rows()),
      Gamma_factor(constraints.rows(), constraints.rows()),
      kkt(model.nv() + constraints.rows(), model.nv() + constraints.rows()),
      Yt(Eigen::MatrixXd::Zero(6 * static_cast<Eigen::Index>(constraints.loops.size() + constraints.couplings.size()),
                               model.nv())),
      kkt_rhs(model.nv() + constraints.rows()),
      kkt_solution(model.nv() + constraints.rows()),
      kkt_residual(model.nv() + constraints.rows()),
      residual(constraints.rows()),
      solve_work(std::max(model.nv(), constraints.rows()) + constraints.rows()),
      solve_y(std::max(model.nv(), constraints.rows()) + constraints.rows()),
      gamma_solver(constraints.rows(), constraints.rows()),
      kkt_solver(model.nv() + constraints.rows(), model.nv() + constraints.rows()),
      jacobian_solver(constraints.rows(), model.nv()),
      response(model) {}

const Eigen::VectorXd& forwardDynamicsConstrained(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                  const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                  const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::forwardDynamicsConstrained";
  internal::checkConstrainedCall(model, data, cd, constraints, q, &settings, fn);
  internal::checkVector(v, model.nv(), fn, "v");
  internal::checkVector(tau, model.nv(), fn, "tau");
  return internal::forwardDynamicsConstrainedUnchecked(model, data, cd, constraints, q, v, tau, settings);
}

namespace internal {

const Eigen::VectorXd& forwardDynamicsConstrainedUnchecked(const Model& model, Data& data,
                                                           ConstrainedDynamicsData& cd,
                                                           const ConstraintSet& constraints,
                                                           const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                                           const Eigen::VectorXd& tau,
                                                           const ConstrainedDynamicsSettings& settings) {
  const ConstraintKinematics& k = cd.kinematics;
  const int nv = model.nv();
  const ConstrainedSolver solver = internal::chooseSolver(cd, settings.solver);
  const bool factorized = solver == ConstrainedSolver::Factorized;
  if (solver != ConstrainedSolver::Articulated) {
    // One RNEA pass gives h (in data.tau) and the transforms, velocities and bias accelerations that
    // the closures and CRBA reuse.
    internal::nonlinearEffectsUnchecked(model, data, q, v, settings.dynamics);
    internal::worldTransformsAtTransforms(model, data);
    internal::evaluateConstraints(model, data, constraints, cd.kinematics, q, &data.a_with_gravity, false);
  } else {
    // ABA's pass 1 gives the transforms and velocities the closures read (its c, the bias accelerations).
    internal::work(cd).qdd0 = internal::forwardDynamicsUnchecked(model, data, q, v, tau, settings.dynamics,
                                                 "abdyn::forwardDynamicsConstrained");
    internal::worldTransformsAtTransforms(model, data);
    internal::biasAccelerationsFromAba(model, data);
    internal::evaluateConstraints(model, data, constraints, cd.kinematics, q, &data.a, true);
  }
  const auto [a, b] = internal::feedbackGains(settings);
  internal::work(cd).eta.noalias() = k.G * v;
  internal::work(cd).rhs = k.gamma - a * internal::work(cd).eta - b * k.C;

  if (factorized) {
    internal::massMatrixAtTransforms(model, data, settings.dynamics);
    internal::factorizeAtMassMatrix(model, data);
    internal::factorizedSchur(model, data, cd, k.G, settings.cfm);
    internal::work(cd).column = tau - data.tau;
    internal::solveLTransposed(model, data, internal::work(cd).column);  // b~ = L^-T (tau - h), so that qdd0 = L^-1 D^-1 b~
    internal::work(cd).eta = internal::work(cd).rhs;
    internal::subtractGTimesSolve(data, cd, internal::work(cd).column, internal::work(cd).eta);  // eta = rhs - G qdd0
    internal::solveMultipliers(model, cd, settings);
    cd.qdd = internal::work(cd).column;
    internal::addYTimesLambda(cd, cd.qdd);
    internal::finishSolve(model, data, cd.qdd);
  } else if (solver == ConstrainedSolver::Articulated) {
    internal::articulatedResponse(model, data, cd, k.G);
    internal::work(cd).eta = internal::work(cd).rhs;
    internal::work(cd).eta.noalias() -= k.G * internal::work(cd).qdd0;
    internal::articulatedGamma(cd, k.G, settings.cfm);
    internal::solveMultipliers(model, cd, settings);
    cd.qdd = internal::work(cd).qdd0;
    cd.qdd.noalias() += internal::work(cd).Minv_Gt * cd.lambda;
  } else {
    // [M  -G^T] [qdd   ]   [tau - h]
    // [G  cfm 1] [lambda] = [rhs    ]
    internal::assembleKkt(model, data, cd, k.G, settings);
    internal::work(cd).kkt_rhs.head(nv) = tau - data.tau;
    internal::work(cd).kkt_rhs.tail(k.G.rows()) = internal::work(cd).rhs;
    internal::solveKkt(model, cd, settings);
    cd.qdd = internal::work(cd).kkt_solution.head(nv);
    cd.lambda = internal::work(cd).kkt_solution.tail(k.G.rows());
  }
  internal::closureWrenches(constraints, cd);
  return cd.qdd;
}

}  // namespace internal

}  // namespace abdyn
