#include "abdyn/integrators/simulator_step_derivatives.hpp"

#include <cmath>
#include <string>

#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "constraints/row_derivatives.hpp"
#include "internal/checks.hpp"
#include "internal/dense_solve.hpp"

namespace abdyn {
namespace {

constexpr const char* kStep = "abdyn::SimulatorStepJacobians::step";
// Pivots of the free rows' system below this fraction of the largest count as zero: redundant rows (four
// corners of a flat box) give exact zeros up to rounding, about 1e-16 of the largest.
constexpr double kRankThreshold = 1e-10;

// The index of the row with `key` in rows, trying `hint` first (rows built in the same order); -1 if none.
int findRow(const RowSet& rows, int hint, std::int64_t key) {
  if (hint < rows.size() && rows[hint].key == key) return hint;
  for (int r = 0; r < rows.size(); ++r) {
    if (rows[r].key == key) return r;
  }
  return -1;
}

// d target / d gap of a contact's normal row on the branch the step took (addContactRows): unilateralTarget's
// -1/h (open) or -erp/h (penetrating), 0 at the max_push_velocity cap, and 0 for an open gap approached faster
// than restitution_threshold at the step's start velocity v0, whose target the builder raises to
// -restitution J v0 = 0 (restitution 0, the only value step accepts).
double contactSlope(const ConstraintRow& row, const GroundContactSettings& c, const Eigen::VectorXd& v0, double h) {
  if (unilateralTarget(row.error, c.erp, h) > c.max_push_velocity) return 0.0;
  if (row.error <= 0.0) return -c.erp / h;
  return row.J.dot(v0) < -c.restitution_threshold ? 0.0 : -1.0 / h;
}

}  // namespace

SimulatorStepJacobians::SimulatorStepJacobians(const Simulator& simulator)
    : model_key_(simulator.model().structureKey()),
      data_(simulator.model()),
      rows_plus_(simulator.model()),
      rows_minus_(simulator.model()),
      broad_phase_(simulator.model()),
      W_factor_(simulator.model().nv()),
      pair_(std::make_unique<internal::PairRowDerivative>(simulator.model())) {
  const Model& model = simulator.model();
  const int n = model.nv();
  const std::size_t nb = static_cast<std::size_t>(model.nbodies());
  F_.resize(nb);
  V_.resize(nb);
  M_.resize(nb);
  Q_.resize(nb);
  loaded_.resize(nb);
  A.setZero(2 * n, 2 * n);
  B.setZero(2 * n, n);
  for (Eigen::VectorXd* x : {&v0_, &tau_, &a_, &dq_}) x->setZero(n);
  q0_.setZero(model.nq());
  q_pert_.setZero(model.nq());
  for (Eigen::MatrixXd* m : {&W_, &Jq_, &Jv_, &Gq_}) m->setZero(n, n);
  R_.setZero(n, 3 * n);
  dv_.setZero(n, 3 * n);
}

SimulatorStepJacobians::SimulatorStepJacobians(SimulatorStepJacobians&&) noexcept = default;
SimulatorStepJacobians& SimulatorStepJacobians::operator=(SimulatorStepJacobians&&) noexcept = default;
SimulatorStepJacobians::~SimulatorStepJacobians() = default;

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

// The rows' roles, the impulse directions J^T T of the free unknowns, and the rows' q derivatives Gq
// (J^T lambda at fixed lambda) and Phi_q (J_i v+ - target_i of the free rows at fixed v+), analytic for the
// tree's own rows, ground contacts, joints of rows and body contacts (docs/derivatives.md, section 8), by
// centred differences of the rows rebuilt at q (+) (+-eps e_k) for body contacts at degenerate geometry.
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
  Phi_q_.setZero(e, n);
  Gq_.setZero();
  if (rebuild_all_rows) {
    differentiateRebuiltRows(simulator, h, true);
    return;
  }
  differentiateTreeAndGroundRows(simulator, h);
  if (differentiatePairRows(simulator, h)) {
    differentiateRebuiltRows(simulator, h, false);
  }
}

// Section 8's formulas. With s_j = [w_j; v_j] coordinate j's world column, V_b body b's world velocity at v+,
// and a ground contact row f = [p x d; d] (world direction d, point p on body b moving at
// dp_j = v_j + w_j x p + slide w_j along coordinate j):
//   Phi_q(r, j) = dp_j . (d x w_b) + f . (s_j x (V_b - V_lambda(j))) - slope dgap_j      (j on b's path)
//   Gq(k, j)    = (v_j x M_k + Q_k w_j) . w_k + F_k . (s_j x s_k)   (k in j's subtree, j's joint included)
//               = (v_j x M_j + Q_j w_j) . w_k                          (k strictly above j)
// where F, M = sum lambda d and Q = sum (p (lambda d)^T - (p . lambda d) 1 - [lambda d]x slide) are summed over
// the contact rows on the subtree of the coordinate's body. The tree's own rows have constant J: only their
// bias moves, target = slope C with dC/dq = J.
void SimulatorStepJacobians::differentiateTreeAndGroundRows(const Simulator& simulator, double h) {
  const Model& model = simulator.model();
  const RowSet& rows = simulator.rows();
  const SimulatorSettings& settings = simulator.settings();
  const int n = model.nv(), m = rows.size(), nb = model.nbodies();
  const Eigen::VectorXd& v1 = simulator.v;
  forwardKinematics(model, data_, q0_);
  jointJacobians(model, data_);
  const Matrix6X& S = data_.S_world;
  Vector3 tangent[2];
  orthonormalComplement(Vector3::UnitZ(), tangent[0], tangent[1]);
  for (int b = 0; b < nb; ++b) {
    F_[static_cast<std::size_t>(b)].setZero();
    M_[static_cast<std::size_t>(b)].setZero();
    Q_[static_cast<std::size_t>(b)].setZero();
    loaded_[static_cast<std::size_t>(b)] = 0;
  }
  V_[0].setZero();
  for (int i = 1; i < nb; ++i) {
    const Joint& joint = model.joint(i);
    V_[static_cast<std::size_t>(i)] = V_[static_cast<std::size_t>(model.parent(i))];
    for (int k = joint.idx_v; k < joint.idx_v + joint.nv; ++k) V_[static_cast<std::size_t>(i)] += S.col(k) * v1[k];
  }
  GroundContactPoint contact;
  std::int64_t contact_point = -1;
  for (int r = 0; r < m; ++r) {
    const ConstraintRow& row = rows[r];
    const int u = unknown_[static_cast<std::size_t>(r)];
    std::int64_t offset = 0;
    const Simulator::RowSource source = Simulator::rowSource(row.key, offset);
    if (source == Simulator::RowSource::Limit || source == Simulator::RowSource::Mimic) {
      if (u < 0) continue;
      // d target / d C: -erp/h (mimic rows, passed limits), -1/h (a limit still open), 0 at the push-back cap.
      const double erp = settings.erp;
      double slope = -erp / h;
      if (source == Simulator::RowSource::Limit) {
        if (unilateralTarget(row.error, erp, h) > settings.limit_max_push_velocity) {
          slope = 0.0;
        } else if (row.error > 0.0) {
          slope = -1.0 / h;
        }
      }
      Phi_q_.row(u) = -slope * row.J.transpose();
      continue;
    }
    if (source != Simulator::RowSource::GroundContact || (u < 0 && row.impulse == 0.0)) continue;
    if (offset / 3 != contact_point) {
      contact_point = offset / 3;
      contact = groundContactPoint(model, data_, offset);
    }
    const int b = contact.body;
    const Vector3& p = contact.p_world;
    const int kind = static_cast<int>(offset % 3);
    const Vector3 d = kind == 0 ? Vector3::UnitZ() : tangent[kind - 1];
    if (row.impulse != 0.0) {
      const Vector3 force = row.impulse * d;
      F_[static_cast<std::size_t>(b)].head<3>() += p.cross(force);
      F_[static_cast<std::size_t>(b)].tail<3>() += force;
      M_[static_cast<std::size_t>(b)] += force;
      Q_[static_cast<std::size_t>(b)] += p * force.transpose() - p.dot(force) * Matrix3::Identity() - skew(force) * contact.slide;
      loaded_[static_cast<std::size_t>(b)] = 1;
    }
    if (u < 0) continue;
    const double slope = kind == 0 ? contactSlope(row, settings.contact, v0_, h) : 0.0;
    const Vector6& V_b = V_[static_cast<std::size_t>(b)];
    const Vector3 d_x_w = d.cross(V_b.head<3>());
    const Vector3 moment = p.cross(d);
    for (int i = b; i > 0; i = model.parent(i)) {
      const Joint& joint = model.joint(i);
      const Vector6 dV = V_b - V_[static_cast<std::size_t>(model.parent(i))];
      for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
        const Vector3 w_j = S.col(j).head<3>(), v_j = S.col(j).tail<3>();
        const Vector3 dp = v_j + w_j.cross(p) + contact.slide * w_j;
        // f . (s_j x dV), s_j x dV = [w_j x dV_w; w_j x dV_v + v_j x dV_w]
        const double turn = moment.dot(w_j.cross(dV.head<3>())) + d.dot(w_j.cross(dV.tail<3>()) + v_j.cross(dV.head<3>()));
        Phi_q_(u, j) = dp.dot(d_x_w) + turn - slope * d.dot(dp);
      }
    }
  }
  for (int i = nb - 1; i > 0; --i) {
    const std::size_t c = static_cast<std::size_t>(i), parent = static_cast<std::size_t>(model.parent(i));
    if (!loaded_[c]) continue;
    F_[parent] += F_[c];
    M_[parent] += M_[c];
    Q_[parent] += Q_[c];
    loaded_[parent] = 1;
  }
  for (int j = 0; j < n; ++j) {
    const int body = model.dofBody(j);
    if (!loaded_[static_cast<std::size_t>(body)]) continue;
    const Vector3 w_j = S.col(j).head<3>(), v_j = S.col(j).tail<3>();
    const Vector3 above = v_j.cross(M_[static_cast<std::size_t>(body)]) + Q_[static_cast<std::size_t>(body)] * w_j;
    for (int i = model.parent(body); i > 0; i = model.parent(i)) {
      const Joint& joint = model.joint(i);
      for (int k = joint.idx_v; k < joint.idx_v + joint.nv; ++k) Gq_(k, j) += above.dot(S.col(k).head<3>());
    }
    const int first = model.joint(body).idx_v, last = model.lastSubtreeDof(body);
    for (int k = first; k <= last; ++k) {
      const std::size_t bk = static_cast<std::size_t>(model.dofBody(k));
      if (!loaded_[bk]) continue;
      const Vector3 w_k = S.col(k).head<3>(), v_k = S.col(k).tail<3>();
      const Vector3 below = v_j.cross(M_[bk]) + Q_[bk] * w_j;
      // F . (s_j x s_k), s_j x s_k = [w_j x w_k; w_j x v_k + v_j x w_k]
      const double turn = F_[bk].head<3>().dot(w_j.cross(w_k)) + F_[bk].tail<3>().dot(w_j.cross(v_k) + v_j.cross(w_k));
      Gq_(k, j) += below.dot(w_k) + turn;
    }
  }
}

// Joints of rows and body contacts (section 8): each row is the wrench f between bodies A and B, whose geometry
// (f, C) moves along q_j with both bodies; internal::rowJointDerivative and bodyContactDerivative give df_j and
// dC_j, and the generic pair-row formulas (row_derivatives.cpp) turn them into Gq and Phi_q. Needs data_'s
// kinematics at q and V_ at v+ from differentiateTreeAndGroundRows. A body contact at degenerate geometry
// (bodyContactDerivative false: a cylinder's rim point whose direction toward the other shape lies along its
// axis, a point on a cylinder's axis or tied between its side and cap, any contact of a pair with a mesh or a
// capsule, which GJK/EPA collides and no formula here differentiates) is marked in rebuilt_ instead; returns
// whether any row was.
bool SimulatorStepJacobians::differentiatePairRows(const Simulator& simulator, double h) {
  const Model& model = simulator.model();
  const RowSet& rows = simulator.rows();
  const SimulatorSettings& settings = simulator.settings();
  rebuilt_.assign(static_cast<std::size_t>(rows.size()), 0);
  bool any_rebuilt = false;
  for (int r = 0; r < rows.size(); ++r) {
    const ConstraintRow& row = rows[r];
    const int u = unknown_[static_cast<std::size_t>(r)];
    std::int64_t offset = 0;
    const Simulator::RowSource source = Simulator::rowSource(row.key, offset);
    if ((source != Simulator::RowSource::RowJoint && source != Simulator::RowSource::BodyContact) || (u < 0 && row.impulse == 0.0)) {
      continue;
    }
    double slope = 0.0;  // target = slope C on the branch the step took
    if (source == Simulator::RowSource::RowJoint) {
      const RowJoint& joint = simulator.joints[static_cast<std::size_t>(offset / kRowJointKeys)];
      const int within = static_cast<int>(offset % kRowJointKeys);
      if (!internal::rowJointDerivative(model, data_, joint, within, *pair_)) {
        throw Error(std::string(kStep) + ": row " + std::to_string(r) + " (key " + std::to_string(row.key) +
                    ") of joint of rows " + std::to_string(offset / kRowJointKeys) +
                    " has no derivative at the step's q (a degenerate joint geometry)");
      }
      // -(erp/h) C bilateral; the swing and twist limits as unilateralTarget.
      slope = within < 6 ? -settings.erp / h : row.error > 0.0 ? -1.0 / h : -settings.erp / h;
    } else {
      if (!internal::bodyContactDerivative(model, data_, offset, *pair_)) {
        rebuilt_[static_cast<std::size_t>(r)] = 1;
        any_rebuilt = true;
        continue;
      }
      if (offset % 3 == 0) slope = contactSlope(row, settings.contact, v0_, h);  // a normal row
    }
    if (row.impulse != 0.0) internal::addImpulseDerivative(model, data_, *pair_, row.impulse, Gq_);
    if (u >= 0) internal::velocityErrorDerivative(model, data_, *pair_, V_, slope, Phi_q_.row(u));
  }
  return any_rebuilt;
}

// Body contacts at degenerate geometry (every row with `all`): centred differences of their rows rebuilt along
// each tangent coordinate (rows matched by key), added to Gq and Phi_q.
void SimulatorStepJacobians::differentiateRebuiltRows(const Simulator& simulator, double h, bool all) {
  const Model& model = simulator.model();
  const RowSet& rows = simulator.rows();
  const int n = model.nv(), m = rows.size();
  const double eps = configuration_step;
  const Eigen::VectorXd& v1 = simulator.v;
  for (int k = 0; k < n; ++k) {
    dq_.setZero();
    dq_[k] = eps;
    integrate(model, q0_, dq_, 1.0, q_pert_);
    simulator.buildRowsAt(q_pert_, v0_, h, data_, rows_plus_, broad_phase_);
    dq_[k] = -eps;
    integrate(model, q0_, dq_, 1.0, q_pert_);
    simulator.buildRowsAt(q_pert_, v0_, h, data_, rows_minus_, broad_phase_);
    for (int r = 0; r < m; ++r) {
      const ConstraintRow& row = rows[r];
      const int u = unknown_[static_cast<std::size_t>(r)];
      if (!all && !rebuilt_[static_cast<std::size_t>(r)]) continue;
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
// J_E dv+ + cfm_E dlambda_E = -Phi_q dq give (J_E Y + cfm_E) dlambda_E = [-Phi_q 0 0] - J_E Z, solved in the
// least-squares sense with the least dlambda_E (section 8: exact when the free rows are independent or
// consistently redundant, the limit of softened rows when they over-determine v+).
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
  S_factor_.setThreshold(kRankThreshold);
  S_factor_.compute(S_);
  dlambda_.resize(e, 3 * n);
  internal::minimumNormSolve(S_factor_, rhs_, rhs_, rhs_, dlambda_);  // S is square: rhs_ is the workspace
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
