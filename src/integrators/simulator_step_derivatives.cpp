#include "abdyn/integrators/simulator_step_derivatives.hpp"

#include <cmath>
#include <string>

#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "internal/checks.hpp"
#include "internal/dense_solve.hpp"

namespace abdyn {
namespace {

constexpr const char* kStep = "abdyn::SimulatorStepJacobians::step";

// The index of the row with `key` in rows, trying `hint` first (rows built in the same order); -1 if none.
int findRow(const RowSet& rows, int hint, std::int64_t key) {
  if (hint < rows.size() && rows[hint].key == key) return hint;
  for (int r = 0; r < rows.size(); ++r) {
    if (rows[r].key == key) return r;
  }
  return -1;
}

}  // namespace

SimulatorStepJacobians::SimulatorStepJacobians(const Simulator& simulator)
    : model_key_(simulator.model().structureKey()),
      data_(simulator.model()),
      rows_plus_(simulator.model()),
      rows_minus_(simulator.model()),
      W_factor_(simulator.model().nv()) {
  const Model& model = simulator.model();
  const int n = model.nv();
  A.setZero(2 * n, 2 * n);
  B.setZero(2 * n, n);
  for (Eigen::VectorXd* x : {&v0_, &tau_, &a_, &dq_}) x->setZero(n);
  q0_.setZero(model.nq());
  q_pert_.setZero(model.nq());
  for (Eigen::MatrixXd* m : {&W_, &Jq_, &Jv_, &Gq_}) m->setZero(n, n);
  R_.setZero(n, 3 * n);
  dv_.setZero(n, 3 * n);
}

RowActivity SimulatorStepJacobians::activity(const RowSet& rows, int r, double tolerance) {
  const ConstraintRow& row = rows[r];
  double lo = row.lo, hi = row.hi;
  if (row.tie >= 0) {
    hi = row.mu * rows[row.tie].impulse;
    lo = -hi;
  }
  if (std::isfinite(lo) && row.impulse <= lo + tolerance * (1.0 + std::abs(lo))) return RowActivity::AtLower;
  if (std::isfinite(hi) && row.impulse >= hi - tolerance * (1.0 + std::abs(hi))) return RowActivity::AtUpper;
  return RowActivity::Free;
}

// The rows' roles, the impulse directions J^T T of the free unknowns, and the centred differences along
// each tangent coordinate k of the rows rebuilt at q (+) (+-eps e_k): Gq (J^T lambda at fixed lambda) and
// Phi_q (J_i v+ - target_i of the free rows at fixed v+).
void SimulatorStepJacobians::differentiateRows(const Simulator& simulator, double h) {
  const Model& model = simulator.model();
  const RowSet& rows = simulator.rows();
  const int n = model.nv(), m = rows.size();
  activity_.resize(static_cast<std::size_t>(m));
  unknown_.resize(static_cast<std::size_t>(m));
  free_.clear();
  for (int r = 0; r < m; ++r) {
    activity_[static_cast<std::size_t>(r)] = activity(rows, r, clamp_tolerance);
    const bool free = activity_[static_cast<std::size_t>(r)] == RowActivity::Free;
    unknown_[static_cast<std::size_t>(r)] = free ? static_cast<int>(free_.size()) : -1;
    if (free) free_.push_back(r);
  }
  const int e = static_cast<int>(free_.size());
  Jt_T_.resize(n, e);
  Jt_T_.setZero();
  for (int r = 0; r < m; ++r) {
    const ConstraintRow& row = rows[r];
    const int u = unknown_[static_cast<std::size_t>(r)];
    if (u >= 0) {
      Jt_T_.col(u) += row.J;
    } else if (row.tie >= 0 && unknown_[static_cast<std::size_t>(row.tie)] >= 0) {
      // lambda = +-mu lambda_n: its impulse moves with its normal row's unknown.
      const double sign = activity_[static_cast<std::size_t>(r)] == RowActivity::AtUpper ? 1.0 : -1.0;
      Jt_T_.col(unknown_[static_cast<std::size_t>(row.tie)]) += (sign * row.mu) * row.J;
    }
  }
  Phi_q_.resize(e, n);
  Gq_.setZero();
  const double eps = configuration_step;
  const Eigen::VectorXd& v1 = simulator.v;
  for (int k = 0; k < n; ++k) {
    dq_.setZero();
    dq_[k] = eps;
    integrate(model, q0_, dq_, 1.0, q_pert_);
    simulator.buildRowsAt(q_pert_, v0_, h, data_, rows_plus_);
    dq_[k] = -eps;
    integrate(model, q0_, dq_, 1.0, q_pert_);
    simulator.buildRowsAt(q_pert_, v0_, h, data_, rows_minus_);
    for (int r = 0; r < m; ++r) {
      const ConstraintRow& row = rows[r];
      const int u = unknown_[static_cast<std::size_t>(r)];
      if (u < 0 && row.impulse == 0.0) continue;  // neither its J nor its target enters
      const int p = findRow(rows_plus_, r, row.key), s = findRow(rows_minus_, r, row.key);
      if (p < 0 || s < 0) {
        throw Error(std::string(kStep) + ": row " + std::to_string(r) + " (key " + std::to_string(row.key) +
                    ") of the active set is not built at q moved by " + std::to_string(eps) + " along coordinate " +
                    std::to_string(k) + ": the step sits on a row's margin (a switch), where it is not differentiable");
      }
      const ConstraintRow& plus = rows_plus_[p];
      const ConstraintRow& minus = rows_minus_[s];
      if (row.impulse != 0.0) Gq_.col(k) += (row.impulse / (2.0 * eps)) * (plus.J - minus.J);
      if (u >= 0) {
        Phi_q_(u, k) = ((plus.J.dot(v1) - plus.target) - (minus.J.dot(v1) - minus.target)) / (2.0 * eps);
      }
    }
  }
}

// With Z = W^-1 R in R_ and Y = W^-1 J^T T: dv+ = Z + Y dlambda_E, and the free rows'
// J_E dv+ + cfm_E dlambda_E = -Phi_q dq give (J_E Y + cfm_E) dlambda_E = [-Phi_q 0 0] - J_E Z.
void SimulatorStepJacobians::solveHeldSystem(const RowSet& rows) {
  const int n = static_cast<int>(R_.rows()), e = static_cast<int>(free_.size());
  dv_ = R_;
  if (e == 0) return;
  W_factor_.solveInPlace(Jt_T_);  // now Y
  S_.resize(e, e);
  rhs_.resize(e, 3 * n);
  for (int i = 0; i < e; ++i) {
    const ConstraintRow& row = rows[free_[static_cast<std::size_t>(i)]];
    S_.row(i).noalias() = row.J.transpose() * Jt_T_;
    S_(i, i) += row.cfm;
    rhs_.row(i).noalias() = -row.J.transpose() * R_;
    rhs_.row(i).head(n) -= Phi_q_.row(i);
  }
  // Redundant free rows (four coplanar contacts of a box) make S singular but the held-fixed system
  // consistent: every solution then gives the same v+, and any one does. An inconsistent one is an error.
  if (const int dependent = internal::completePivotingSolve(S_, rhs_, perm_, dlambda_)) {
    throw Error(std::string(kStep) + ": the held-fixed row system is inconsistent (" + std::to_string(dependent) +
                " of its " + std::to_string(e) + " free rows are dependent on the others with a different bias): the "
                "step is not differentiable with this active set");
  }
  dv_.noalias() += Jt_T_ * dlambda_;
}

const StepStatistics& SimulatorStepJacobians::step(Simulator& simulator, double h) {
  const Model& model = simulator.model();
  if (model.structureKey() != model_key_) {
    throw InvalidArgument(std::string(kStep) + ": the simulator's model '" + model.name() +
                          "' is not the model this SimulatorStepJacobians was built for");
  }
  internal::checkTimeStep(h, kStep);
  const SimulatorSettings& settings = simulator.settings();
  if (settings.substeps != 1) {
    throw InvalidArgument(std::string(kStep) + ": settings 'substeps' must be 1 (the Jacobians are those of one "
                          "sub-step's rows), got " + std::to_string(settings.substeps));
  }
  if ((settings.ground || settings.body_contacts) && settings.contact.restitution > 0.0) {
    throw InvalidArgument(std::string(kStep) + ": settings 'contact.restitution' must be 0 (its target switches on "
                          "the approach speed and is not differentiated), got " +
                          std::to_string(settings.contact.restitution));
  }
  internal::checkConfiguration(model, simulator.q, kStep);
  internal::checkVector(simulator.v, model.nv(), kStep, "v");
  internal::checkVector(simulator.tau, model.nv(), kStep, "tau");
  const int n = model.nv();
  q0_ = simulator.q;
  v0_ = simulator.v;
  tau_ = simulator.tau;
  const StepStatistics& statistics = simulator.step(h);

  // The step is h ID(q, v, a) - h tau - J^T lambda = 0 at a = (v+ - v) / h, with ID the options' inverse
  // dynamics (h D a included with implicit damping) and d ID / d a = W. Differentiated:
  //   W dv+ - J^T dlambda = R = [-h dID/dq + Gq,  W - h dID/dv,  h 1] (dq, dv, dtau).
  DynamicsOptions options = settings.dynamics;
  if (settings.implicit_damping) options.implicit_damping_step = h;
  a_ = (simulator.v - v0_) / h;
  inverseDynamicsDerivatives(model, data_, q0_, v0_, a_, options);
  W_ = data_.M;
  W_factor_.compute(W_);
  R_.leftCols(n) = -h * data_.dtau_dq;
  R_.middleCols(n, n) = W_ - h * data_.dtau_dv;
  R_.rightCols(n).setZero();
  R_.rightCols(n).diagonal().setConstant(h);
  differentiateRows(simulator, h);
  R_.leftCols(n) += Gq_;
  W_factor_.solveInPlace(R_);
  solveHeldSystem(simulator.rows());

  // q1 = q (+) h v+: dq1 = Jq dq + Jv dv+.
  integrateJacobians(model, q0_, simulator.v, h, Jq_, Jv_);
  A.bottomRows(n) = dv_.leftCols(2 * n);
  A.topRows(n).noalias() = Jv_ * dv_.leftCols(2 * n);
  A.topLeftCorner(n, n) += Jq_;
  B.bottomRows(n) = dv_.rightCols(n);
  B.topRows(n).noalias() = Jv_ * dv_.rightCols(n);
  return statistics;
}

}  // namespace abdyn
