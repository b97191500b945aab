#include "abdyn/constraints/constrained_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "algorithms/passes.hpp"
#include "constraints/passes.hpp"
#include "internal/checks.hpp"
#include "internal/dense_solve.hpp"
#include "internal/flatten.hpp"

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

}  // namespace internal

namespace {

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

namespace internal {

void checkConstrainedSettings(const ConstrainedDynamicsSettings& s, const char* fn) {
  const auto fail = [fn](const char* name, double value, const char* what) {
    throw InvalidArgument(std::string(fn) + ": settings." + name + " = " + number(value) + " " + what);
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

void checkConstrainedWorkspace(const ConstrainedDynamicsData& cd, const Model& model,
                               const ConstraintSet& constraints, const char* fn) {
  if (cd.lambda.size() != constraints.rows() || cd.qdd.size() != model.nv()) {
    throw InvalidArgument(std::string(fn) + ": 'cd' was built for other constraints or another model");
  }
}

}  // namespace internal

namespace {

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

// lambda from Gamma lambda = eta, with cd.Gamma (cfm included) already filled: Cholesky when Gamma is
// regular, else the minimum-norm solution through the rank-revealing factorisation, with its rank and
// the consistency check.
void solveMultipliers(const Model& model, ConstrainedDynamicsData& cd, const ConstrainedDynamicsSettings& settings) {
  const Eigen::Index m = cd.lambda.size();
  if (internal::choleskyFactor(cd.Gamma, settings.rank_tolerance, cd.Gamma_factor)) {
    cd.lambda = cd.eta;
    internal::choleskySolve(cd.Gamma_factor, cd.lambda);
    cd.rank = static_cast<int>(m);
    return;
  }
  cd.gamma_solver.setThreshold(settings.rank_tolerance);
  cd.gamma_solver.compute(cd.Gamma);
  internal::minimumNormSolve(cd.gamma_solver, cd.eta, cd.solve_work.head(m), cd.solve_y.head(m), cd.lambda);
  cd.rank = static_cast<int>(cd.gamma_solver.rank());
  cd.residual = cd.eta;
  cd.residual.noalias() -= cd.Gamma * cd.lambda;
  const double residual = cd.residual.norm() / (1.0 + cd.eta.norm());
  if (residual > settings.consistency_tolerance) throwInconsistent(model, residual);
}

// The KKT system in cd.kkt / cd.kkt_rhs: solution, rank of the constraint part, consistency check.
void solveKkt(const Model& model, ConstrainedDynamicsData& cd, const ConstrainedDynamicsSettings& settings) {
  const int nv = model.nv();
  cd.kkt_solver.setThreshold(settings.rank_tolerance);
  cd.kkt_solver.compute(cd.kkt);
  const Eigen::Index n = cd.kkt_rhs.size();
  internal::minimumNormSolve(cd.kkt_solver, cd.kkt_rhs, cd.solve_work.head(n), cd.solve_y.head(n), cd.kkt_solution);
  cd.rank = static_cast<int>(cd.kkt_solver.rank()) - nv;
  cd.kkt_residual = cd.kkt_rhs;
  cd.kkt_residual.noalias() -= cd.kkt * cd.kkt_solution;
  const double residual = cd.kkt_residual.norm() / (1.0 + cd.kkt_rhs.norm());
  if (residual > settings.consistency_tolerance) throwInconsistent(model, residual);
}

// The KKT matrix [M -G^T; G cfm 1] at the joint transforms data.X_up of the kinematics pass that gave G.
void assembleKkt(const Model& model, Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G,
                 const ConstrainedDynamicsSettings& settings) {
  const int nv = model.nv(), m = static_cast<int>(G.rows());
  cd.kkt.topLeftCorner(nv, nv) = internal::massMatrixAtTransforms(model, data, settings.dynamics);
  cd.kkt.topRightCorner(nv, m) = -G.transpose();
  cd.kkt.bottomLeftCorner(m, nv) = G;
  cd.kkt.bottomRightCorner(m, m).setIdentity();
  cd.kkt.bottomRightCorner(m, m) *= settings.cfm;
}

// cd.Minv_Gt = M^-1 G^T by articulated-body propagation; ABA (forwardDynamics) must have run at q.
void articulatedResponse(const Model& model, const Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G) {
  for (int r = 0; r < G.rows(); ++r) {
    cd.row = G.row(r).transpose();
    cd.response.applyInverseMass(model, data, cd.row, cd.column);
    cd.Minv_Gt.col(r) = cd.column;
  }
}

ConstrainedSolver chooseSolver(const ConstrainedDynamicsData& cd, ConstrainedSolver requested) {
  if (requested != ConstrainedSolver::Automatic) return requested;
  return cd.response.choose(ResponseMethod::Automatic) == ResponseMethod::Factorized ? ConstrainedSolver::Factorized
                                                                                      : ConstrainedSolver::Articulated;
}

// cd.Gamma = G M^-1 G^T + cfm 1 from cd.Minv_Gt.
void articulatedGamma(ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G, double cfm) {
  cd.Gamma.noalias() = G * cd.Minv_Gt;
  cd.Gamma.diagonal().array() += cfm;
}

// C and G at q (G_exact too with exact_jacobian) from one kinematics pass, whose joint transforms the
// mass matrix can then reuse.
void constraintsAt(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                   const Eigen::VectorXd& q, bool exact_jacobian) {
  internal::forwardKinematicsUnchecked(model, data, q);
  internal::evaluateConstraints(model, data, constraints, cd.kinematics, q, nullptr, exact_jacobian);
}

// C and G at q, M at q and its factor in data.factor_L, data.factor_D, from one pass of joint transforms.
void jacobianAndFactor(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, const DynamicsOptions& options) {
  constraintsAt(model, data, cd, constraints, q, false);
  internal::massMatrixAtTransforms(model, data, options);
  internal::factorizeAtMassMatrix(model, data);
}

// Group g's six (padded) rows of cd.Yt at coordinate j.
Eigen::Map<Vector6> groupColumn(Eigen::MatrixXd& Yt, int g, int j) { return Eigen::Map<Vector6>(Yt.col(j).data() + 6 * g); }
Eigen::Map<const Vector6> groupColumn(const Eigen::MatrixXd& Yt, int g, int j) {
  return Eigen::Map<const Vector6>(Yt.col(j).data() + 6 * g);
}

// With the factor M = L^T D L in data.factor_L, data.factor_D: Y = L^-T G^T (stored transposed in cd.Yt) and
// cd.Gamma = G M^-1 G^T + cfm 1 = Y^T D^-1 Y + cfm 1, each only over the coordinates that move the rows'
// bodies (their supports; entries off them stay zero from construction). The rows of one group (a closure)
// share their support and are solved together, as six rows (padded with zeros): every step below is a
// fixed-size 6-vector operation.
ABDYN_FLATTEN void factorizedSchur(const Model& model, const Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G,
                                   double cfm) {
  const int groups = static_cast<int>(cd.group_first_row.size()) - 1;
  for (int g = 0; g < groups; ++g) {
    const int r0 = cd.group_first_row[g], n = cd.group_first_row[g + 1] - r0;
    const int* first = cd.group_coordinates.data() + cd.group_coordinate_offset[g];
    const int* last = cd.group_coordinates.data() + cd.group_coordinate_offset[g + 1];
    for (const int* k = first; k != last; ++k) groupColumn(cd.Yt, g, *k).head(n) = G.col(*k).segment(r0, n);
    for (const int* k = last; k != first;) {  // Y = L^-T Y: each coordinate feeds its ancestors, deepest first
      --k;
      const Vector6 yk = groupColumn(cd.Yt, g, *k);
      const std::int64_t begin = model.ancestorOffset(*k), end = model.ancestorOffset(*k + 1);
      for (std::int64_t t = begin; t < end; ++t) groupColumn(cd.Yt, g, data.factor_ancestors[t]) -= data.factor_L[t] * yk;
    }
  }
  for (int a = 0; a < groups; ++a) {
    const int a0 = cd.group_first_row[a], na = cd.group_first_row[a + 1] - a0;
    for (int b = 0; b <= a; ++b) {
      const int b0 = cd.group_first_row[b], nb = cd.group_first_row[b + 1] - b0;
      Matrix6 block = Matrix6::Zero();
      const int pair = a * groups + b;
      for (int run = cd.shared_run_offset[pair]; run < cd.shared_run_offset[pair + 1]; ++run) {
        for (int j = cd.shared_runs[run].first; j <= cd.shared_runs[run].last; ++j) {
          block.noalias() += (groupColumn(cd.Yt, a, j) / data.factor_D[j]) * groupColumn(cd.Yt, b, j).transpose();
        }
      }
      cd.Gamma.block(a0, b0, na, nb) = block.topLeftCorner(na, nb);
      if (b < a) cd.Gamma.block(b0, a0, nb, na) = block.topLeftCorner(na, nb).transpose();
    }
  }
  cd.Gamma.diagonal().array() += cfm;
}

// eta -= G L^-1 D^-1 x = Y^T D^-1 x, over the rows' supports.
void subtractGTimesSolve(const Data& data, const ConstrainedDynamicsData& cd, const Eigen::VectorXd& x, Eigen::VectorXd& eta) {
  const int groups = static_cast<int>(cd.group_first_row.size()) - 1;
  for (int g = 0; g < groups; ++g) {
    const int r0 = cd.group_first_row[g], n = cd.group_first_row[g + 1] - r0;
    Vector6 sum = Vector6::Zero();
    for (int i = cd.group_coordinate_offset[g]; i < cd.group_coordinate_offset[g + 1]; ++i) {
      const int j = cd.group_coordinates[i];
      sum += (x[j] / data.factor_D[j]) * groupColumn(cd.Yt, g, j);
    }
    eta.segment(r0, n) -= sum.head(n);
  }
}

// x += Y lambda, over the rows' supports.
void addYTimesLambda(const ConstrainedDynamicsData& cd, Eigen::VectorXd& x) {
  const int groups = static_cast<int>(cd.group_first_row.size()) - 1;
  for (int g = 0; g < groups; ++g) {
    const int r0 = cd.group_first_row[g], n = cd.group_first_row[g + 1] - r0;
    Vector6 lambda = Vector6::Zero();
    lambda.head(n) = cd.lambda.segment(r0, n);
    for (int i = cd.group_coordinate_offset[g]; i < cd.group_coordinate_offset[g + 1]; ++i) {
      const int j = cd.group_coordinates[i];
      x[j] += groupColumn(cd.Yt, g, j).dot(lambda);
    }
  }
}

// x = L^-1 D^-1 x: the second half of a solve with M.
void finishSolve(const Model& model, const Data& data, Eigen::VectorXd& x) {
  x.array() /= data.factor_D.array();
  internal::solveL(model, data, x);
}

// The row groups of the Factorized solver and their supports (ConstrainedDynamicsData's fields).
void buildSupports(const Model& model, const ConstraintSet& constraints, ConstrainedDynamicsData& cd) {
  std::vector<std::vector<bool>> moved;  // per group
  int row = 0;
  const auto addGroup = [&](std::initializer_list<int> bodies, int rows) {
    std::vector<bool> mask(model.nv(), false);
    for (const int body : bodies) internal::markPathCoordinates(model, body, mask);
    cd.group_first_row.push_back(row);
    row += rows;
    moved.push_back(std::move(mask));
  };
  for (const LoopClosure& c : constraints.loops) addGroup({c.body_a, c.body_b}, c.rows());
  for (const JointCoupling& c : constraints.couplings) addGroup({c.follower, c.leader}, 1);
  cd.group_first_row.push_back(row);
  for (const std::vector<bool>& mask : moved) {
    cd.group_coordinate_offset.push_back(static_cast<int>(cd.group_coordinates.size()));
    for (int k = 0; k < model.nv(); ++k) {
      if (mask[k]) cd.group_coordinates.push_back(k);
    }
  }
  cd.group_coordinate_offset.push_back(static_cast<int>(cd.group_coordinates.size()));
  for (const std::vector<bool>& a : moved) {
    for (const std::vector<bool>& b : moved) {
      cd.shared_run_offset.push_back(static_cast<int>(cd.shared_runs.size()));
      for (int k = 0; k < model.nv(); ++k) {
        if (!(a[k] && b[k])) continue;
        if (k > 0 && a[k - 1] && b[k - 1]) {
          cd.shared_runs.back().last = k;
        } else {
          cd.shared_runs.push_back({k, k});
        }
      }
    }
  }
  cd.shared_run_offset.push_back(static_cast<int>(cd.shared_runs.size()));
}

}  // namespace

ConstrainedDynamicsData::ConstrainedDynamicsData(const Model& model, const ConstraintSet& constraints)
    : kinematics(model, constraints),
      qdd(Eigen::VectorXd::Zero(model.nv())),
      v_plus(Eigen::VectorXd::Zero(model.nv())),
      lambda(Eigen::VectorXd::Zero(constraints.rows())),
      closure_wrench(constraints.loops.size(), Vector6::Zero()),
      qdd0(model.nv()),
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
      response(model) {
  buildSupports(model, constraints, *this);
}

const Eigen::VectorXd& forwardDynamicsConstrained(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                  const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                  const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::forwardDynamicsConstrained";
  internal::checkData(model, data, fn);
  internal::checkConstrainedWorkspace(cd, model, constraints, fn);
  internal::checkConstrainedSettings(settings, fn);
  internal::checkConfiguration(model, q, fn);
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
  const ConstrainedSolver solver = chooseSolver(cd, settings.solver);
  const bool factorized = solver == ConstrainedSolver::Factorized;
  if (solver != ConstrainedSolver::Articulated) {
    // One RNEA pass gives h (in data.tau) and the transforms, velocities and bias accelerations that
    // the closures and CRBA reuse.
    internal::nonlinearEffectsUnchecked(model, data, q, v, settings.dynamics);
    internal::worldTransformsAtTransforms(model, data);
    internal::evaluateConstraints(model, data, constraints, cd.kinematics, q, &data.a_with_gravity, false);
  } else {
    internal::forwardKinematicsUnchecked(model, data, q, v, cd.kinematics.zero_nv);
    internal::evaluateConstraints(model, data, constraints, cd.kinematics, q, &data.a, true);
  }
  const auto [a, b] = internal::feedbackGains(settings);
  cd.eta.noalias() = k.G * v;
  cd.rhs = k.gamma - a * cd.eta - b * k.C;

  if (factorized) {
    internal::massMatrixAtTransforms(model, data, settings.dynamics);
    internal::factorizeAtMassMatrix(model, data);
    factorizedSchur(model, data, cd, k.G, settings.cfm);
    cd.column = tau - data.tau;
    internal::solveLTransposed(model, data, cd.column);  // b~ = L^-T (tau - h), so that qdd0 = L^-1 D^-1 b~
    cd.eta = cd.rhs;
    subtractGTimesSolve(data, cd, cd.column, cd.eta);  // eta = rhs - G qdd0
    solveMultipliers(model, cd, settings);
    cd.qdd = cd.column;
    addYTimesLambda(cd, cd.qdd);
    finishSolve(model, data, cd.qdd);
  } else if (solver == ConstrainedSolver::Articulated) {
    cd.qdd0 = internal::forwardDynamicsUnchecked(model, data, q, v, tau, settings.dynamics,
                                                 "abdyn::forwardDynamicsConstrained");
    articulatedResponse(model, data, cd, k.G);
    cd.eta = cd.rhs;
    cd.eta.noalias() -= k.G * cd.qdd0;
    articulatedGamma(cd, k.G, settings.cfm);
    solveMultipliers(model, cd, settings);
    cd.qdd = cd.qdd0;
    cd.qdd.noalias() += cd.Minv_Gt * cd.lambda;
  } else {
    // [M  -G^T] [qdd   ]   [tau - h]
    // [G  cfm 1] [lambda] = [rhs    ]
    assembleKkt(model, data, cd, k.G, settings);
    cd.kkt_rhs.head(nv) = tau - data.tau;
    cd.kkt_rhs.tail(k.G.rows()) = cd.rhs;
    solveKkt(model, cd, settings);
    cd.qdd = cd.kkt_solution.head(nv);
    cd.lambda = cd.kkt_solution.tail(k.G.rows());
  }
  closureWrenches(constraints, cd);
  return cd.qdd;
}

}  // namespace internal

const Eigen::VectorXd& constrainedImpact(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                         const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v_minus, double restitution,
                                         const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::constrainedImpact";
  internal::checkData(model, data, fn);
  internal::checkConstrainedWorkspace(cd, model, constraints, fn);
  internal::checkConstrainedSettings(settings, fn);
  internal::checkConfiguration(model, q, fn);
  internal::checkVector(v_minus, model.nv(), fn, "v_minus");
  if (!(restitution >= 0.0 && restitution <= 1.0)) {
    throw InvalidArgument(std::string(fn) + ": restitution = " + number(restitution) + " must lie in [0, 1]");
  }
  const Eigen::MatrixXd& G = cd.kinematics.G;
  const int nv = model.nv();
  const ConstrainedSolver solver = chooseSolver(cd, settings.solver);
  if (solver == ConstrainedSolver::Factorized) {
    jacobianAndFactor(model, data, cd, constraints, q, settings.dynamics);
    factorizedSchur(model, data, cd, G, settings.cfm);
    cd.eta.noalias() = G * v_minus;
    cd.eta *= -(1.0 + restitution);
    solveMultipliers(model, cd, settings);
    cd.column.setZero();
    addYTimesLambda(cd, cd.column);
    finishSolve(model, data, cd.column);
    cd.v_plus = v_minus + cd.column;
  } else if (solver == ConstrainedSolver::Articulated) {
    constraintsAt(model, data, cd, constraints, q, true);
    // ABA at zero velocity and torque only for its articulated-body inertias at q.
    internal::forwardDynamicsUnchecked(model, data, q, cd.kinematics.zero_nv, cd.kinematics.zero_nv, settings.dynamics,
                                       "abdyn::constrainedImpact");
    articulatedResponse(model, data, cd, G);
    cd.eta.noalias() = G * v_minus;
    cd.eta *= -(1.0 + restitution);
    articulatedGamma(cd, G, settings.cfm);
    solveMultipliers(model, cd, settings);
    cd.v_plus = v_minus;
    cd.v_plus.noalias() += cd.Minv_Gt * cd.lambda;
  } else {
    // [M  -G^T] [v+    ]   [M v-    ]
    // [G  cfm 1] [lambda] = [-e G v-]
    constraintsAt(model, data, cd, constraints, q, true);
    assembleKkt(model, data, cd, G, settings);
    cd.kkt_rhs.head(nv).noalias() = cd.kkt.topLeftCorner(nv, nv) * v_minus;
    cd.kkt_rhs.tail(G.rows()).noalias() = G * v_minus;
    cd.kkt_rhs.tail(G.rows()) *= -restitution;
    solveKkt(model, cd, settings);
    cd.v_plus = cd.kkt_solution.head(nv);
    cd.lambda = cd.kkt_solution.tail(G.rows());
  }
  closureWrenches(constraints, cd);
  return cd.v_plus;
}

int projectPositions(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                     Eigen::VectorXd& q, double tolerance, int max_iterations) {
  const char* fn = "abdyn::projectPositions";
  internal::checkData(model, data, fn);
  internal::checkConstrainedWorkspace(cd, model, constraints, fn);
  internal::checkConfiguration(model, q, fn);
  if (!(tolerance > 0.0) || max_iterations < 1) {
    throw InvalidArgument(std::string(fn) + ": need tolerance > 0 and max_iterations >= 1");
  }
  ConstraintKinematics& k = cd.kinematics;
  for (int it = 0; it <= max_iterations; ++it) {
    constraintsAt(model, data, cd, constraints, q, true);
    const double error = k.C.size() ? k.C.cwiseAbs().maxCoeff() : 0.0;
    if (error <= tolerance) return it;
    if (it == max_iterations) {
      throw Error(std::string(fn) + ": no configuration of model '" + model.name() + "' closing its loops within " +
                  number(tolerance) + " was found near the guess (largest error " + number(error) +
                  " after " + std::to_string(max_iterations) + " Gauss-Newton steps)");
    }
    // Minimum-norm Gauss-Newton step dq = -J^+ C, decomposing J itself (J^T J would square its conditioning).
    cd.jacobian_solver.compute(k.G_exact);
    internal::minimumNormSolve(cd.jacobian_solver, k.C, cd.solve_work.head(k.C.size()), cd.solve_y.head(model.nv()), cd.row);
    cd.row = -cd.row;
    integrate(model, q, cd.row, 1.0, q);
  }
  return max_iterations;
}

void projectVelocities(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, Eigen::VectorXd& v, const DynamicsOptions& options) {
  const char* fn = "abdyn::projectVelocities";
  internal::checkData(model, data, fn);
  internal::checkConstrainedWorkspace(cd, model, constraints, fn);
  internal::checkConfiguration(model, q, fn);
  internal::checkVector(v, model.nv(), fn, "v");
  jacobianAndFactor(model, data, cd, constraints, q, options);
  factorizedSchur(model, data, cd, cd.kinematics.G, 0.0);
  cd.eta.noalias() = cd.kinematics.G * v;
  solveMultipliers(model, cd, ConstrainedDynamicsSettings{});  // G v lies in Gamma's range: consistent
  cd.column.setZero();
  addYTimesLambda(cd, cd.column);
  finishSolve(model, data, cd.column);
  v -= cd.column;
}

}  // namespace abdyn
