#include "constraints/constrained_solvers.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "abdyn/error.hpp"
#include "algorithms/passes.hpp"
#include "constraints/passes.hpp"
#include "internal/dense_solve.hpp"
#include "internal/flatten.hpp"

namespace abdyn::internal {
namespace {

// Group g's six (padded) rows of internal::work(cd).Yt at coordinate j.
Eigen::Map<Vector6> groupColumn(Eigen::MatrixXd& Yt, int g, int j) { return Eigen::Map<Vector6>(Yt.col(j).data() + 6 * g); }
Eigen::Map<const Vector6> groupColumn(const Eigen::MatrixXd& Yt, int g, int j) {
  return Eigen::Map<const Vector6>(Yt.col(j).data() + 6 * g);
}

void throwInconsistent(const Model& model, double residual) {
  throw Error("abdyn::forwardDynamicsConstrained: the constraints of model '" + model.name() +
              "' cannot all hold (relative residual " + numberText(residual) +
              " of the multiplier system): they contradict each other at this state");
}

}  // namespace

std::string numberText(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
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


// lambda from Gamma lambda = eta, with internal::work(cd).Gamma (cfm included) already filled: Cholesky when Gamma is
// regular, else the minimum-norm solution through the rank-revealing factorisation, with its rank and
// the consistency check.
void solveMultipliers(const Model& model, ConstrainedDynamicsData& cd, const ConstrainedDynamicsSettings& settings) {
  const Eigen::Index m = cd.lambda.size();
  if (internal::choleskyFactor(internal::work(cd).Gamma, settings.rank_tolerance, internal::work(cd).Gamma_factor)) {
    cd.lambda = internal::work(cd).eta;
    internal::choleskySolve(internal::work(cd).Gamma_factor, cd.lambda);
    cd.rank = static_cast<int>(m);
    return;
  }
  internal::work(cd).gamma_solver.setThreshold(settings.rank_tolerance);
  internal::work(cd).gamma_solver.compute(internal::work(cd).Gamma);
  internal::minimumNormSolve(internal::work(cd).gamma_solver, internal::work(cd).eta, internal::work(cd).solve_work.head(m), internal::work(cd).solve_y.head(m), cd.lambda);
  cd.rank = static_cast<int>(internal::work(cd).gamma_solver.rank());
  internal::work(cd).residual = internal::work(cd).eta;
  internal::work(cd).residual.noalias() -= internal::work(cd).Gamma * cd.lambda;
  const double residual = internal::work(cd).residual.norm() / (1.0 + internal::work(cd).eta.norm());
  if (residual > settings.consistency_tolerance) throwInconsistent(model, residual);
}

// The KKT system in internal::work(cd).kkt / internal::work(cd).kkt_rhs: solution, rank of the constraint part, consistency check.
void solveKkt(const Model& model, ConstrainedDynamicsData& cd, const ConstrainedDynamicsSettings& settings) {
  const int nv = model.nv();
  internal::work(cd).kkt_solver.setThreshold(settings.rank_tolerance);
  internal::work(cd).kkt_solver.compute(internal::work(cd).kkt);
  const Eigen::Index n = internal::work(cd).kkt_rhs.size();
  internal::minimumNormSolve(internal::work(cd).kkt_solver, internal::work(cd).kkt_rhs, internal::work(cd).solve_work.head(n), internal::work(cd).solve_y.head(n), internal::work(cd).kkt_solution);
  cd.rank = static_cast<int>(internal::work(cd).kkt_solver.rank()) - nv;
  internal::work(cd).kkt_residual = internal::work(cd).kkt_rhs;
  internal::work(cd).kkt_residual.noalias() -= internal::work(cd).kkt * internal::work(cd).kkt_solution;
  const double residual = internal::work(cd).kkt_residual.norm() / (1.0 + internal::work(cd).kkt_rhs.norm());
  if (residual > settings.consistency_tolerance) throwInconsistent(model, residual);
}

// The KKT matrix [M -G^T; G cfm 1] at the joint transforms data.X_up of the kinematics pass that gave G.
void assembleKkt(const Model& model, Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G,
                 const ConstrainedDynamicsSettings& settings) {
  const int nv = model.nv(), m = static_cast<int>(G.rows());
  internal::work(cd).kkt.topLeftCorner(nv, nv) = internal::massMatrixAtTransforms(model, data, settings.dynamics);
  internal::work(cd).kkt.topRightCorner(nv, m) = -G.transpose();
  internal::work(cd).kkt.bottomLeftCorner(m, nv) = G;
  internal::work(cd).kkt.bottomRightCorner(m, m).setIdentity();
  internal::work(cd).kkt.bottomRightCorner(m, m) *= settings.cfm;
}

// internal::work(cd).Minv_Gt = M^-1 G^T by articulated-body propagation; ABA (forwardDynamics) must have run at q.
void articulatedResponse(const Model& model, const Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G) {
  for (int r = 0; r < G.rows(); ++r) {
    internal::work(cd).row = G.row(r).transpose();
    internal::work(cd).response.applyInverseMass(model, data, internal::work(cd).row, internal::work(cd).column);
    internal::work(cd).Minv_Gt.col(r) = internal::work(cd).column;
  }
}

ConstrainedSolver chooseSolver(const ConstrainedDynamicsData& cd, ConstrainedSolver requested) {
  if (requested != ConstrainedSolver::Automatic) return requested;
  return internal::work(cd).response.choose(ResponseMethod::Automatic) == ResponseMethod::Factorized ? ConstrainedSolver::Factorized
                                                                                      : ConstrainedSolver::Articulated;
}

// internal::work(cd).Gamma = G M^-1 G^T + cfm 1 from internal::work(cd).Minv_Gt.
void articulatedGamma(ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G, double cfm) {
  internal::work(cd).Gamma.noalias() = G * internal::work(cd).Minv_Gt;
  internal::work(cd).Gamma.diagonal().array() += cfm;
}

// data.a = the body accelerations at qdd = 0 without gravity (a_0 = 0) from ABA's pass 1, which left the
// joint transforms and the velocity products c_i = v_i x S qd: a_i = X_up a_p + c_i.
void biasAccelerationsFromAba(const Model& model, Data& data) {
  data.a[0] = Motion::Zero();
  for (int i = 1; i < model.nbodies(); ++i) data.a[i] = data.X_up[i].apply(data.a[model.parent(i)]) + data.aba.c[i];
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

// With the factor M = L^T D L in data.factor_L, data.factor_D: Y = L^-T G^T (stored transposed in internal::work(cd).Yt) and
// internal::work(cd).Gamma = G M^-1 G^T + cfm 1 = Y^T D^-1 Y + cfm 1, each only over the coordinates that move the rows'
// bodies (their supports; entries off them stay zero from construction). The rows of one group (a closure)
// share their support and are solved together, as six rows (padded with zeros): every step below is a
// fixed-size 6-vector operation.
ABDYN_FLATTEN void factorizedSchur(const Model& model, const Data& data, ConstrainedDynamicsData& cd, const Eigen::MatrixXd& G,
                                   double cfm) {
  const int groups = static_cast<int>(internal::work(cd).group_first_row.size()) - 1;
  for (int g = 0; g < groups; ++g) {
    const int r0 = internal::work(cd).group_first_row[g], n = internal::work(cd).group_first_row[g + 1] - r0;
    const int* first = internal::work(cd).group_coordinates.data() + internal::work(cd).group_coordinate_offset[g];
    const int* last = internal::work(cd).group_coordinates.data() + internal::work(cd).group_coordinate_offset[g + 1];
    for (const int* k = first; k != last; ++k) groupColumn(internal::work(cd).Yt, g, *k).head(n) = G.col(*k).segment(r0, n);
    for (const int* k = last; k != first;) {  // Y = L^-T Y: each coordinate feeds its ancestors, deepest first
      --k;
      const Vector6 yk = groupColumn(internal::work(cd).Yt, g, *k);
      const std::int64_t begin = model.ancestorOffset(*k), end = model.ancestorOffset(*k + 1);
      for (std::int64_t t = begin; t < end; ++t) groupColumn(internal::work(cd).Yt, g, data.factor_ancestors[t]) -= data.factor_L[t] * yk;
    }
  }
  for (int a = 0; a < groups; ++a) {
    const int a0 = internal::work(cd).group_first_row[a], na = internal::work(cd).group_first_row[a + 1] - a0;
    for (int b = 0; b <= a; ++b) {
      const int b0 = internal::work(cd).group_first_row[b], nb = internal::work(cd).group_first_row[b + 1] - b0;
      Matrix6 block = Matrix6::Zero();
      const int pair = a * groups + b;
      for (int run = internal::work(cd).shared_run_offset[pair]; run < internal::work(cd).shared_run_offset[pair + 1]; ++run) {
        for (int j = internal::work(cd).shared_runs[run].first; j <= internal::work(cd).shared_runs[run].last; ++j) {
          block.noalias() += (groupColumn(internal::work(cd).Yt, a, j) / data.factor_D[j]) * groupColumn(internal::work(cd).Yt, b, j).transpose();
        }
      }
      internal::work(cd).Gamma.block(a0, b0, na, nb) = block.topLeftCorner(na, nb);
      if (b < a) internal::work(cd).Gamma.block(b0, a0, nb, na) = block.topLeftCorner(na, nb).transpose();
    }
  }
  internal::work(cd).Gamma.diagonal().array() += cfm;
}

// eta -= G L^-1 D^-1 x = Y^T D^-1 x, over the rows' supports.
void subtractGTimesSolve(const Data& data, const ConstrainedDynamicsData& cd, const Eigen::VectorXd& x, Eigen::VectorXd& eta) {
  const int groups = static_cast<int>(internal::work(cd).group_first_row.size()) - 1;
  for (int g = 0; g < groups; ++g) {
    const int r0 = internal::work(cd).group_first_row[g], n = internal::work(cd).group_first_row[g + 1] - r0;
    Vector6 sum = Vector6::Zero();
    for (int i = internal::work(cd).group_coordinate_offset[g]; i < internal::work(cd).group_coordinate_offset[g + 1]; ++i) {
      const int j = internal::work(cd).group_coordinates[i];
      sum += (x[j] / data.factor_D[j]) * groupColumn(internal::work(cd).Yt, g, j);
    }
    eta.segment(r0, n) -= sum.head(n);
  }
}

// x += Y lambda, over the rows' supports.
void addYTimesLambda(const ConstrainedDynamicsData& cd, Eigen::VectorXd& x) {
  const int groups = static_cast<int>(internal::work(cd).group_first_row.size()) - 1;
  for (int g = 0; g < groups; ++g) {
    const int r0 = internal::work(cd).group_first_row[g], n = internal::work(cd).group_first_row[g + 1] - r0;
    Vector6 lambda = Vector6::Zero();
    lambda.head(n) = cd.lambda.segment(r0, n);
    for (int i = internal::work(cd).group_coordinate_offset[g]; i < internal::work(cd).group_coordinate_offset[g + 1]; ++i) {
      const int j = internal::work(cd).group_coordinates[i];
      x[j] += groupColumn(internal::work(cd).Yt, g, j).dot(lambda);
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
    internal::work(cd).group_first_row.push_back(row);
    row += rows;
    moved.push_back(std::move(mask));
  };
  for (const LoopClosure& c : constraints.loops) addGroup({c.body_a, c.body_b}, c.rows());
  for (const JointCoupling& c : constraints.couplings) addGroup({c.follower, c.leader}, 1);
  internal::work(cd).group_first_row.push_back(row);
  for (const std::vector<bool>& mask : moved) {
    internal::work(cd).group_coordinate_offset.push_back(static_cast<int>(internal::work(cd).group_coordinates.size()));
    for (int k = 0; k < model.nv(); ++k) {
      if (mask[k]) internal::work(cd).group_coordinates.push_back(k);
    }
  }
  internal::work(cd).group_coordinate_offset.push_back(static_cast<int>(internal::work(cd).group_coordinates.size()));
  for (const std::vector<bool>& a : moved) {
    for (const std::vector<bool>& b : moved) {
      internal::work(cd).shared_run_offset.push_back(static_cast<int>(internal::work(cd).shared_runs.size()));
      for (int k = 0; k < model.nv(); ++k) {
        if (!(a[k] && b[k])) continue;
        if (k > 0 && a[k - 1] && b[k - 1]) {
          internal::work(cd).shared_runs.back().last = k;
        } else {
          internal::work(cd).shared_runs.push_back({k, k});
        }
      }
    }
  }
  internal::work(cd).shared_run_offset.push_back(static_cast<int>(internal::work(cd).shared_runs.size()));
}

}  // namespace abdyn::internal
