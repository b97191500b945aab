#include "abdyn/constraints/constrained_dynamics.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn {
namespace {

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

void checkSettings(const ConstrainedDynamicsSettings& s) {
  const auto finiteNonNegative = [](double x) { return std::isfinite(x) && x >= 0.0; };
  if (!finiteNonNegative(s.baumgarte_alpha) || !finiteNonNegative(s.baumgarte_beta) || !finiteNonNegative(s.cfm) ||
      !finiteNonNegative(s.rank_tolerance) || !finiteNonNegative(s.consistency_tolerance)) {
    throw InvalidArgument(
        "abdyn::forwardDynamicsConstrained: settings baumgarte_alpha, baumgarte_beta, cfm, rank_tolerance and "
        "consistency_tolerance must be finite and non-negative");
  }
}

void checkSizes(const ConstrainedDynamicsData& cd, const Model& model, const ConstraintSet& constraints, const char* fn) {
  if (cd.lambda.size() != constraints.rows() || cd.qdd.size() != model.nv()) {
    throw InvalidArgument(std::string(fn) + ": 'cd' was built for other constraints or another model");
  }
}

// Wrench on body b at each closure, from the multipliers of its rows.
void closureWrenches(const ConstraintSet& constraints, ConstrainedDynamicsData& cd) {
  int row = 0;
  for (std::size_t k = 0; k < constraints.loops.size(); ++k) {
    const LoopClosure& c = constraints.loops[k];
    cd.closure_wrench[k] = c.directions.transpose() * cd.lambda.segment(row, c.rows());
    row += c.rows();
  }
}

void throwInconsistent(const Model& model, double residual) {
  throw Error("abdyn::forwardDynamicsConstrained: the constraints of model '" + model.name() +
              "' cannot all hold (relative residual " + number(residual) +
              " of the multiplier system): they contradict each other at this state");
}

}  // namespace

ConstrainedDynamicsData::ConstrainedDynamicsData(const Model& model, const ConstraintSet& constraints)
    : kinematics(model, constraints),
      qdd(Eigen::VectorXd::Zero(model.nv())),
      lambda(Eigen::VectorXd::Zero(constraints.rows())),
      closure_wrench(constraints.loops.size(), Vector6::Zero()),
      qdd0(model.nv()),
      rhs(constraints.rows()),
      eta(constraints.rows()),
      row(model.nv()),
      column(model.nv()),
      Minv_Gt(model.nv(), constraints.rows()),
      Gamma(constraints.rows(), constraints.rows()),
      kkt(model.nv() + constraints.rows(), model.nv() + constraints.rows()),
      kkt_rhs(model.nv() + constraints.rows()),
      kkt_solution(model.nv() + constraints.rows()),
      gamma_solver(constraints.rows(), constraints.rows()),
      kkt_solver(model.nv() + constraints.rows(), model.nv() + constraints.rows()),
      jacobian_solver(constraints.rows(), model.nv()),
      response(model) {}

const Eigen::VectorXd& forwardDynamicsConstrained(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                  const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                  const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::forwardDynamicsConstrained";
  checkSizes(cd, model, constraints, fn);
  checkSettings(settings);
  internal::checkVector(tau, model.nv(), fn, "tau");
  constraintKinematics(model, data, constraints, cd.kinematics, q, v);
  const ConstraintKinematics& k = cd.kinematics;
  const int nv = model.nv(), m = constraints.rows();
  cd.rhs = k.gamma - (2.0 * settings.baumgarte_alpha) * (k.G * v) -
           (settings.baumgarte_beta * settings.baumgarte_beta) * k.C;

  if (settings.solver == ConstrainedSolver::Articulated) {
    cd.qdd0 = forwardDynamics(model, data, q, v, tau, settings.dynamics);
    for (int r = 0; r < m; ++r) {
      cd.row = k.G.row(r).transpose();
      cd.response.applyInverseMass(model, data, cd.row, cd.column);
      cd.Minv_Gt.col(r) = cd.column;
    }
    cd.Gamma.noalias() = k.G * cd.Minv_Gt;
    cd.Gamma.diagonal().array() += settings.cfm;
    cd.eta = cd.rhs;
    cd.eta.noalias() -= k.G * cd.qdd0;
    cd.gamma_solver.setThreshold(settings.rank_tolerance);
    cd.gamma_solver.compute(cd.Gamma);
    cd.lambda = cd.gamma_solver.solve(cd.eta);
    cd.rank = static_cast<int>(cd.gamma_solver.rank());
    const double residual = (cd.Gamma * cd.lambda - cd.eta).norm() / (1.0 + cd.eta.norm());
    if (residual > settings.consistency_tolerance) throwInconsistent(model, residual);
    cd.qdd = cd.qdd0;
    cd.qdd.noalias() += cd.Minv_Gt * cd.lambda;
  } else {
    // [M  -G^T] [qdd   ]   [tau - h]
    // [G  cfm 1] [lambda] = [rhs    ]
    cd.kkt.topLeftCorner(nv, nv) = massMatrix(model, data, q, settings.dynamics);
    cd.kkt.topRightCorner(nv, m) = -k.G.transpose();
    cd.kkt.bottomLeftCorner(m, nv) = k.G;
    cd.kkt.bottomRightCorner(m, m).setIdentity();
    cd.kkt.bottomRightCorner(m, m) *= settings.cfm;
    cd.kkt_rhs.head(nv) = tau - nonlinearEffects(model, data, q, v, settings.dynamics);
    cd.kkt_rhs.tail(m) = cd.rhs;
    cd.kkt_solver.setThreshold(settings.rank_tolerance);
    cd.kkt_solver.compute(cd.kkt);
    cd.kkt_solution = cd.kkt_solver.solve(cd.kkt_rhs);
    cd.rank = static_cast<int>(cd.kkt_solver.rank()) - nv;
    const double residual = (cd.kkt * cd.kkt_solution - cd.kkt_rhs).norm() / (1.0 + cd.kkt_rhs.norm());
    if (residual > settings.consistency_tolerance) throwInconsistent(model, residual);
    cd.qdd = cd.kkt_solution.head(nv);
    cd.lambda = cd.kkt_solution.tail(m);
  }
  closureWrenches(constraints, cd);
  return cd.qdd;
}

int projectPositions(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                     Eigen::VectorXd& q, double tolerance, int max_iterations) {
  const char* fn = "abdyn::projectPositions";
  checkSizes(cd, model, constraints, fn);
  if (!(tolerance > 0.0) || max_iterations < 1) {
    throw InvalidArgument(std::string(fn) + ": need tolerance > 0 and max_iterations >= 1");
  }
  ConstraintKinematics& k = cd.kinematics;
  for (int it = 0; it <= max_iterations; ++it) {
    constraintJacobian(model, data, constraints, k, q);
    const double error = k.C.size() ? k.C.cwiseAbs().maxCoeff() : 0.0;
    if (error <= tolerance) return it;
    if (it == max_iterations) {
      throw Error(std::string(fn) + ": no configuration of model '" + model.name() + "' closing its loops within " +
                  number(tolerance) + " was found near the guess (largest error " + number(error) +
                  " after " + std::to_string(max_iterations) + " Gauss-Newton steps)");
    }
    // Minimum-norm Gauss-Newton step dq = -J^+ C, decomposing J itself (J^T J would square its conditioning).
    cd.jacobian_solver.compute(k.G_exact);
    cd.row = -cd.jacobian_solver.solve(k.C);
    integrate(model, q, cd.row, 1.0, q);
  }
  return max_iterations;
}

void projectVelocities(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, Eigen::VectorXd& v, const DynamicsOptions& options) {
  const char* fn = "abdyn::projectVelocities";
  checkSizes(cd, model, constraints, fn);
  internal::checkVector(v, model.nv(), fn, "v");
  constraintJacobian(model, data, constraints, cd.kinematics, q);
  const Eigen::MatrixXd& G = cd.kinematics.G;
  massMatrix(model, data, q, options);
  factorizeMassMatrix(model, data);
  for (int r = 0; r < G.rows(); ++r) {
    cd.column = G.row(r).transpose();
    solveMassMatrix(model, data, cd.column);
    cd.Minv_Gt.col(r) = cd.column;
  }
  cd.Gamma.noalias() = G * cd.Minv_Gt;
  cd.gamma_solver.setThreshold(ConstrainedDynamicsSettings{}.rank_tolerance);
  cd.gamma_solver.compute(cd.Gamma);
  cd.eta.noalias() = G * v;
  cd.rhs = cd.gamma_solver.solve(cd.eta);
  v.noalias() -= cd.Minv_Gt * cd.rhs;
}

}  // namespace abdyn
