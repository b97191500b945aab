#include "abdyn/integrators/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/model/configuration.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "model/passes.hpp"

namespace abdyn {
namespace {

// Key ranges of the row sources, far apart so keys never collide.
constexpr std::int64_t kJointKeys = 0;
constexpr std::int64_t kLimitKeys = std::int64_t(1) << 40;
constexpr std::int64_t kMotorKeys = std::int64_t(2) << 40;
constexpr std::int64_t kFrictionKeys = std::int64_t(3) << 40;
constexpr std::int64_t kMimicKeys = std::int64_t(4) << 40;
constexpr std::int64_t kContactKeys = std::int64_t(5) << 40;
constexpr std::int64_t kBodyContactKeys = std::int64_t(6) << 40;

// With n sub-steps each corrects by beta = 1 - (1 - ERP)^(1/n), so that the n of them together remove the
// fraction ERP of an error in one full step, as one step would: (1 - beta)^n = 1 - ERP.
double substepErp(double erp, int substeps) { return 1.0 - std::pow(1.0 - erp, 1.0 / substeps); }

// Throws abdyn::Error when x (q if `configuration`, else v) has a non-finite entry, naming the model, the
// time, the entry's joint and the stage of the sub-step: a diverging simulation stops here, with what
// went wrong, rather than deeper (normalising a quaternion, building rows) with a message about a symptom.
void checkFinite(const Model& model, const Eigen::VectorXd& x, bool configuration, double t, const char* stage) {
  if (x.allFinite()) return;
  Eigen::Index k = 0;
  while (std::isfinite(x[k])) ++k;
  std::string joint = "?";
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const int first = configuration ? j.idx_q : j.idx_v, count = configuration ? j.nq : j.nv;
    if (k >= first && k < first + count) joint = j.name;
  }
  throw Error("abdyn::Simulator::step: model '" + model.name() + "' diverged at t = " + std::to_string(t) + " s: " +
              (configuration ? "q" : "v") + "[" + std::to_string(k) + "] (joint '" + joint + "') is " +
              std::to_string(x[k]) + " " + stage + "; a smaller time step, more sub-steps or more solver sweeps may help");
}

}  // namespace

Simulator::Simulator(Model model, const SimulatorSettings& settings)
    : q(neutral(model)),
      v(Eigen::VectorXd::Zero(model.nv())),
      tau(Eigen::VectorXd::Zero(model.nv())),
      model_(std::move(model)),
      settings_(settings),
      data_(model_),
      rows_(model_),
      broad_phase_(model_),
      response_(model_),
      v_start_(model_.nv()) {
  internal::checkDynamics(model_, "abdyn::Simulator");
  if (settings_.ground || settings_.body_contacts) {
    if (const std::string missed = uncollidedShapes(model_, settings_.contact); !missed.empty()) logger()->warn("abdyn::Simulator: {}", missed);
    excludedBodyPairs(model_, settings_.contact);  // refuses unknown names now rather than at the first step
  }
}

void Simulator::buildRows(double h) {
  statistics_.contacts = appendRows(q, v_start_, h, data_, rows_, broad_phase_);
  statistics_.rows = rows_.size();
}

int Simulator::appendRows(const Eigen::VectorXd& q_rows, const Eigen::VectorXd& v_start, double h, Data& data,
                          RowSet& rows, BroadPhase& broad_phase) const {
  const SimulatorSettings& s = settings_;
  const double erp = substepErp(s.erp, s.substeps);
  GroundContactSettings contact = s.contact;
  contact.erp = substepErp(s.contact.erp, s.substeps);
  jointJacobians(model_, data);  // the world columns every row's J is read from (rows.hpp)
  rows.clear();
  for (std::size_t k = 0; k < joints.size(); ++k) {
    addRowJoint(rows, model_, data, joints[k], erp, s.cfm, h, kJointKeys + kRowJointKeys * std::int64_t(k));
  }
  if (s.joint_limits) addJointLimitRows(rows, model_, q_rows, s.limit_margin, erp, h, kLimitKeys, s.limit_max_push_velocity);
  for (std::size_t k = 0; k < motors.size(); ++k) addJointMotorRow(rows, model_, motors[k], h, kMotorKeys + std::int64_t(k));
  if (s.joint_friction) addJointFrictionRows(rows, model_, h, kFrictionKeys);
  if (s.mimic) addMimicRows(rows, model_, q_rows, erp, h, kMimicKeys);
  int contacts = s.ground ? addGroundContactRows(rows, model_, data, v_start, contact, h, kContactKeys) : 0;
  if (s.body_contacts) contacts += addBodyContactRows(rows, model_, data, v_start, contact, h, kBodyContactKeys, broad_phase);
  return contacts;
}

Simulator::RowSource Simulator::rowSource(std::int64_t key, std::int64_t& offset) {
  constexpr std::int64_t kRange = std::int64_t(1) << 40;
  constexpr RowSource kSources[] = {RowSource::RowJoint, RowSource::Limit,         RowSource::Motor,      RowSource::JointFriction,
                                    RowSource::Mimic,    RowSource::GroundContact, RowSource::BodyContact};
  static_assert(kLimitKeys == kRange && kBodyContactKeys == 6 * kRange, "one range of 2^40 keys per source, in this order");
  const std::int64_t source = std::min<std::int64_t>(std::max<std::int64_t>(key, 0) / kRange, 6);
  offset = key - source * kRange;
  return kSources[source];
}

int Simulator::buildRowsAt(const Eigen::VectorXd& q_rows, const Eigen::VectorXd& v_start, double h, Data& data,
                           RowSet& rows) const {
  BroadPhase broad_phase(model_);
  return buildRowsAt(q_rows, v_start, h, data, rows, broad_phase);
}

int Simulator::buildRowsAt(const Eigen::VectorXd& q_rows, const Eigen::VectorXd& v_start, double h, Data& data,
                           RowSet& rows,
                           BroadPhase& broad_phase) const {
  internal::checkConfiguration(model_, q_rows, "abdyn::Simulator::buildRowsAt");
  internal::checkVector(v_start, model_.nv(), "abdyn::Simulator::buildRowsAt", "v_start");
  internal::checkTimeStep(h, "abdyn::Simulator::buildRowsAt");
  internal::checkData(model_, data, "abdyn::Simulator::buildRowsAt");
  forwardKinematics(model_, data, q_rows);
  return appendRows(q_rows, v_start, h, data, rows, broad_phase);
}

void Simulator::substep(double h, double t_end) {
  v_start_ = v;
  // Free velocity, leaving what the responses need: the articulated inertias (ABA) or the factor of M (CRBA).
  const ResponseMethod method = response_.choose(settings_.response);
  DynamicsOptions options = settings_.dynamics;
  if (settings_.implicit_damping) options.implicit_damping_step = h;  // M + h D here and in the responses
  // Behind step's door (q, v, tau and the settings checked once per step): the unchecked passes.
  if (method == ResponseMethod::Factorized) {
    v += h * internal::forwardDynamicsCrbaUnchecked(model_, data_, q, v, tau, nullptr, options);
  } else {
    v += h * internal::forwardDynamicsUnchecked(model_, data_, q, v, tau, options, "abdyn::Simulator::step");
  }
  checkFinite(model_, v, false, t_end, "after the free motion");  // before the rows are built from it
  internal::worldTransformsAtTransforms(model_, data_);  // the dynamics left the joint transforms at q
  buildRows(h);
  double worst = 0.0;
  for (int r = 0; r < rows_.size(); ++r) {
    const ConstraintRow& row = rows_[r];
    worst = std::max(worst, row.unilateral ? -row.error : std::abs(row.error));
  }
  rows_.warmStart();
  statistics_.constraint_error = worst;
  PgsReport report;
  if (method == ResponseMethod::Factorized) {
    report = solveRowsPgs(model_, data_, rows_, v, settings_.solver);  // in the coordinates of the factor of M
  } else {
    response_.articulated(model_, data_, rows_);
    report = solveRowsPgs(rows_, v, settings_.solver);
  }
  statistics_.iterations += report.iterations;
  statistics_.residual = std::max(statistics_.residual, report.residual);
  rows_.keepImpulses();
  checkFinite(model_, v, false, t_end, "after the free motion and the row solve");
  internal::integrateUnchecked(model_, q, v, h, q);
  checkFinite(model_, q, true, t_end, "after integrating v");
  internal::normalizeUnchecked(model_, q, "abdyn::Simulator::step");
}

void Simulator::reset(const Eigen::Ref<const Eigen::VectorXd>& q_start, const Eigen::Ref<const Eigen::VectorXd>& v_start) {
  internal::checkVector(q_start, model_.nq(), "abdyn::Simulator::reset", "q");
  internal::checkVector(v_start, model_.nv(), "abdyn::Simulator::reset", "v");
  q = q_start;
  v = v_start;
  rows_.forgetImpulses();
  statistics_ = StepStatistics();
  time_ = 0.0;
}

void Simulator::reserveRows() {
  const SimulatorSettings& s = settings_;
  const auto& geometries = model_.geometries();
  const auto collides = [&](const Geometry& g) { return isContactShape(g, s.contact); };
  long bound = kRowJointKeys * static_cast<long>(joints.size()) + static_cast<long>(motors.size());
  if (s.joint_limits) bound += 2 * model_.nv();  // both bounds of a coordinate when its range is under 2 margins
  if (s.joint_friction) bound += model_.nv();
  if (s.mimic) bound += static_cast<long>(model_.mimics().size());
  const long rows_per_shape = 3 * kContactPointsPerGeometry;  // a normal and two friction rows per point
  for (std::size_t i = 0; i < geometries.size(); ++i) {
    if (!collides(geometries[i])) continue;
    if (s.ground && geometries[i].body != 0) bound += rows_per_shape;
    if (!s.body_contacts) continue;
    for (std::size_t j = i + 1; j < geometries.size(); ++j) {
      if (collides(geometries[j]) && geometries[j].body != geometries[i].body) bound += 2 * rows_per_shape;  // both ways
    }
  }
  // The bilateral block holds the joints' and the mimic couplings' rows at most (row_pgs.hpp).
  const long bilateral = kRowJointKeys * static_cast<long>(joints.size()) + (s.mimic ? static_cast<long>(model_.mimics().size()) : 0);
  rows_.reserve(static_cast<int>(bound));
  BilateralBlock& block = rows_.bilateralBlock();
  block.rows.reserve(static_cast<std::size_t>(bilateral));
  block.factor.reserve(static_cast<std::size_t>(bilateral * bilateral));
  block.residual.reserve(static_cast<std::size_t>(bilateral));
}

const StepStatistics& Simulator::step(double h) { return advance(h, settings_.energy); }

const StepStatistics& Simulator::advance(double h, bool energy) {
  internal::checkTimeStep(h, "abdyn::Simulator::step");
  internal::checkConfiguration(model_, q, "abdyn::Simulator::step");
  internal::checkVector(v, model_.nv(), "abdyn::Simulator::step", "v");
  internal::checkVector(tau, model_.nv(), "abdyn::Simulator::step", "tau");
  internal::checkDynamicsOptions(settings_.dynamics, "abdyn::Simulator::step");
  if (settings_.substeps < 1) {
    throw InvalidArgument("abdyn::Simulator::step: settings 'substeps' must be at least 1, got " +
                          std::to_string(settings_.substeps));
  }
  for (double erp : {settings_.erp, settings_.contact.erp}) {
    if (!(erp >= 0.0 && erp <= 1.0)) {
      throw InvalidArgument("abdyn::Simulator::step: settings 'erp' and 'contact.erp' must lie in [0, 1], got " +
                            std::to_string(erp));
    }
  }
  for (double cap : {settings_.limit_max_push_velocity, settings_.contact.max_push_velocity}) {
    if (!(cap > 0.0)) {
      throw InvalidArgument("abdyn::Simulator::step: settings 'limit_max_push_velocity' and "
                            "'contact.max_push_velocity' must be positive, got " + std::to_string(cap));
    }
  }
  if (!(settings_.contact.speculative_gap >= 0.0) || !(settings_.contact.speculative_steps >= 0.0)) {
    throw InvalidArgument("abdyn::Simulator::step: settings 'contact.speculative_gap' and 'contact.speculative_steps' "
                          "must be non-negative, got " + std::to_string(settings_.contact.speculative_gap) + " and " +
                          std::to_string(settings_.contact.speculative_steps));
  }
  statistics_.iterations = 0;
  statistics_.residual = 0.0;
  const double dt = h / settings_.substeps;
  for (int s = 0; s < settings_.substeps; ++s) substep(dt, time_ + (s + 1) * dt);
  time_ += h;
  statistics_.energy =
      energy ? internal::mechanicalEnergyUnchecked(model_, data_, q, v) : std::numeric_limits<double>::quiet_NaN();
  return statistics_;
}

}  // namespace abdyn
