#include "abdyn/integrators/rollout_batch.hpp"

#include <memory>
#include <string>
#include <vector>

#include "abdyn/checked_mode.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/model/configuration.hpp"
#include "algorithms/batch_blocks.hpp"
#include "integrators/runge_kutta4_stages.hpp"
#include "internal/checks.hpp"

namespace abdyn {
namespace {

constexpr const char* kRolloutBatch = "abdyn::rolloutBatch";

void checkRolloutShape(const char* argument, Eigen::Index rows, Eigen::Index cols, Eigen::Index expected_rows,
                Eigen::Index expected_cols) {
  if (rows != expected_rows || cols != expected_cols) {
    throw InvalidArgument(std::string(kRolloutBatch) + ": '" + argument + "' must be " + std::to_string(expected_rows) +
                          " x " + std::to_string(expected_cols) + ", got " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  }
}

/// Lane l's (q, v) into the pack's inputs, j * W + l.
void laneToPack(const Eigen::VectorXd& q, const Eigen::VectorXd& v, int l, internal::PackWorkspace& pack) {
  const int W = pack.lanes();
  for (Eigen::Index j = 0; j < q.size(); ++j) pack.q()[j * W + l] = q[j];
  for (Eigen::Index j = 0; j < v.size(); ++j) pack.v()[j * W + l] = v[j];
}

/// The pack's accelerations, lanes at once; throws for a singular lane.
void packAccelerations(const Model& model, internal::PackWorkspace& pack, const DynamicsOptions& options, Eigen::Index k,
                   Eigen::Index& row) {
  internal::PackFailure failure;
  if (!pack.kernels().aba(pack.model(), options, pack.work(), pack.q(), pack.v(), pack.x(), pack.y(), &failure)) {
    row = k + failure.lane;
    internal::throwSingularPack(model, failure, "abdyn::forwardDynamics");
  }
}

void checkRollout(const Model& model, BatchIntegrator integrator, const Eigen::Ref<const RowMatrixXd>& q0,
                  const Eigen::Ref<const RowMatrixXd>& v0, const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h,
                  const Eigen::Ref<RowMatrixXd>& Q, const Eigen::Ref<RowMatrixXd>& V, const DynamicsOptions& options) {
  const Eigen::Index n = q0.rows(), nq = model.nq(), nv = model.nv();
  if (steps < 0) throw InvalidArgument(std::string(kRolloutBatch) + ": 'steps' must be >= 0, got " + std::to_string(steps));
  if (integrator != BatchIntegrator::SemiImplicitEuler && integrator != BatchIntegrator::RungeKutta4) {
    throw InvalidArgument(std::string(kRolloutBatch) + ": 'integrator' is not a BatchIntegrator value");
  }
  internal::checkTimeStep(h, kRolloutBatch);
  internal::checkDynamicsOptions(options, kRolloutBatch);
  checkRolloutShape("q0", q0.rows(), q0.cols(), n, nq);
  checkRolloutShape("v0", v0.rows(), v0.cols(), n, nv);
  checkRolloutShape("tau", tau.rows(), tau.cols(), n, steps * nv);
  checkRolloutShape("Q", Q.rows(), Q.cols(), n, (steps + 1) * nq);
  checkRolloutShape("V", V.rows(), V.cols(), n, (steps + 1) * nv);
}

/// The rollouts on at most `threads` of the workspace's threads, W runs per pack.
void runRollouts(const Model& model, BatchWorkspace& workspace, int threads, BatchIntegrator integrator,
                 const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
                 const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h, Eigen::Ref<RowMatrixXd>& Q,
                 Eigen::Ref<RowMatrixXd>& V, const DynamicsOptions& options) {
  const Eigen::Index n = q0.rows(), nq = model.nq(), nv = model.nv();
  internal::runWorkspace(workspace, n, threads, "rolloutBatch", [&](internal::BatchThreadWorkspace& work, Eigen::Index k,
                                                                     int count, Eigen::Index& row) {
    internal::PackWorkspace& pack = work.pack;
    const int W = pack.lanes();
    if (!work.rollout) work.rollout = std::make_unique<internal::RolloutLanes>(model, W);
    internal::RolloutLanes& lanes = *work.rollout;
    for (int l = 0; l < W; ++l) {  // lanes from count on repeat the last run
      row = k + std::min(l, count - 1);
      lanes.q[static_cast<std::size_t>(l)] = q0.row(row).transpose();
      lanes.v[static_cast<std::size_t>(l)] = v0.row(row).transpose();
      if (checkedMode()) {
        internal::checkConfiguration(model, lanes.q[static_cast<std::size_t>(l)], kRolloutBatch);
        internal::checkVector(v0.row(row), nv, kRolloutBatch, "v0");
        internal::checkVector(tau.row(row), steps * nv, kRolloutBatch, "tau");
      }
    }
    row = k;
    auto store = [&](int t) {  // the lanes' states after t steps into Q and V
      for (int l = 0; l < count; ++l) {
        Q.row(k + l).segment(t * nq, nq) = lanes.q[static_cast<std::size_t>(l)].transpose();
        V.row(k + l).segment(t * nv, nv) = lanes.v[static_cast<std::size_t>(l)].transpose();
      }
    };
    store(0);
    for (int t = 0; t < steps; ++t) {
      for (Eigen::Index j = 0; j < nv; ++j) {
        for (int l = 0; l < W; ++l) pack.x()[j * W + l] = tau(k + std::min(l, count - 1), t * nv + j);
      }
      if (integrator == BatchIntegrator::SemiImplicitEuler) {
        for (int l = 0; l < W; ++l) laneToPack(lanes.q[static_cast<std::size_t>(l)], lanes.v[static_cast<std::size_t>(l)], l, pack);
        packAccelerations(model, pack, options, k, row);
        for (int l = 0; l < W; ++l) {  // v1 = v + h a, q1 = q (+) h v1
          Eigen::VectorXd& q = lanes.q[static_cast<std::size_t>(l)];
          Eigen::VectorXd& v = lanes.v[static_cast<std::size_t>(l)];
          for (Eigen::Index j = 0; j < nv; ++j) v[j] += h * pack.y()[j * W + l];
          integrate(model, q, v, h, q);
        }
      } else {
        for (detail::RungeKutta4Stages& w : lanes.stages) {
          w.k_sum.setZero();
          w.a_sum.setZero();
          w.k.setZero();
          w.a.setZero();
        }
        for (int s = 0; s < 4; ++s) {  // theta_s = c_s h k_{s-1}, v_s = v + c_s h a_{s-1}, q_s = q (+) theta_s
          for (int l = 0; l < W; ++l) {
            detail::RungeKutta4Stages& w = lanes.stages[static_cast<std::size_t>(l)];
            w.theta = (internal::kRungeKutta4C[s] * h) * w.k;
            w.v_stage = lanes.v[static_cast<std::size_t>(l)] + (internal::kRungeKutta4C[s] * h) * w.a;
            integrate(model, lanes.q[static_cast<std::size_t>(l)], w.theta, 1.0, w.q_stage);
            laneToPack(w.q_stage, w.v_stage, l, pack);
          }
          packAccelerations(model, pack, options, k, row);  // a_s = qdd(q_s, v_s)
          for (int l = 0; l < W; ++l) {                   // k_s = rate(theta_s, v_s)
            detail::RungeKutta4Stages& w = lanes.stages[static_cast<std::size_t>(l)];
            for (Eigen::Index j = 0; j < nv; ++j) w.a[j] = pack.y()[j * W + l];
            exponentialCoordinateRate(model, w.theta, w.v_stage, w.k);
            w.k_sum += internal::kRungeKutta4B[s] * w.k;
            w.a_sum += internal::kRungeKutta4B[s] * w.a;
          }
        }
        for (int l = 0; l < W; ++l) {  // q1 = q (+) (h/6) sum b_s k_s, v1 = v + (h/6) sum b_s a_s
          detail::RungeKutta4Stages& w = lanes.stages[static_cast<std::size_t>(l)];
          integrate(model, lanes.q[static_cast<std::size_t>(l)], w.k_sum, h / 6.0, lanes.q[static_cast<std::size_t>(l)]);
          lanes.v[static_cast<std::size_t>(l)] += (h / 6.0) * w.a_sum;
        }
      }
      store(t + 1);
    }
  });
}

}  // namespace

void rolloutBatch(const Model& model, BatchIntegrator integrator, const Eigen::Ref<const RowMatrixXd>& q0,
                  const Eigen::Ref<const RowMatrixXd>& v0, const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h,
                  Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V, int threads, const DynamicsOptions& options) {
  checkRollout(model, integrator, q0, v0, tau, steps, h, Q, V, options);
  internal::SharedWorkspaceLease lease(model, threads);
  runRollouts(model, lease.workspace(), batchThreads(threads, q0.rows()), integrator, q0, v0, tau, steps, h, Q, V, options);
}

void rolloutBatch(const Model& model, BatchWorkspace& workspace, BatchIntegrator integrator,
                  const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
                  const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h, Eigen::Ref<RowMatrixXd> Q,
                  Eigen::Ref<RowMatrixXd> V, const DynamicsOptions& options) {
  checkRollout(model, integrator, q0, v0, tau, steps, h, Q, V, options);
  internal::checkWorkspace(model, workspace, "rolloutBatch");
  runRollouts(model, workspace, workspace.threads(), integrator, q0, v0, tau, steps, h, Q, V, options);
}

}  // namespace abdyn
