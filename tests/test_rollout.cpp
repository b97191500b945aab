#define BOOST_TEST_MODULE rollout
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/integrators/rollout.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"

using abdyn::RowMatrixXd;

namespace {

std::string modelPath(const char* name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name; }

abdyn::Model humanoid() {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  return abdyn::loadUrdf(modelPath("humanoid.urdf"), options);
}

// The ragdoll scene of bench_step_peers: limits, joint friction and ground contacts below the feet.
abdyn::SimulatorSettings ragdollSettings() {
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.contact.height = -0.95;
  return settings;
}

// A batch: N runs of T steps from the neutral pose with every one-DoF joint turned by up to 0.3 rad,
// velocities up to 0.5 and joint forces up to tau_scale (none on a floating base), from a fixed seed.
struct Batch {
  RowMatrixXd q0, v0, tau;
  int steps;
};

Batch randomBatch(const abdyn::Model& model, int runs, int steps, double tau_scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const int nv = model.nv();
  Batch b{RowMatrixXd(runs, model.nq()), RowMatrixXd(runs, nv), RowMatrixXd::Zero(runs, steps * nv), steps};
  for (int n = 0; n < runs; ++n) {
    b.q0.row(n) = abdyn::neutral(model).transpose();
    for (int k = 0; k < nv; ++k) b.v0(n, k) = 0.5 * unit(rng);
    for (int i = 1; i < model.nbodies(); ++i) {
      const abdyn::Joint& j = model.joint(i);
      if (j.nq != 1) continue;
      b.q0(n, j.idx_q) += 0.3 * unit(rng);
      for (int t = 0; t < steps; ++t) b.tau(n, t * nv + j.idx_v) = tau_scale * unit(rng);
    }
  }
  return b;
}

// The same batch as rollout's layouts hold it, computed by one Simulator per run, built afresh and
// stepped in a plain loop: the reference every threaded result must equal bit for bit.
struct Serial {
  RowMatrixXd Q, V;
  std::vector<abdyn::StepStatistics> statistics;
};

Serial serialRuns(const abdyn::Simulator& prototype, const Batch& b, double h) {
  const int N = static_cast<int>(b.q0.rows()), nq = prototype.model().nq(), nv = prototype.model().nv();
  Serial s{RowMatrixXd(N, (b.steps + 1) * nq), RowMatrixXd(N, (b.steps + 1) * nv), {}};
  for (int n = 0; n < N; ++n) {
    abdyn::Simulator sim = prototype;
    sim.q = b.q0.row(n).transpose();
    sim.v = b.v0.row(n).transpose();
    s.Q.row(n).head(nq) = sim.q.transpose();
    s.V.row(n).head(nv) = sim.v.transpose();
    for (int t = 0; t < b.steps; ++t) {
      sim.tau = b.tau.row(n).segment(t * nv, nv).transpose();
      s.statistics.push_back(sim.step(h));
      s.Q.row(n).segment((t + 1) * nq, nq) = sim.q.transpose();
      s.V.row(n).segment((t + 1) * nv, nv) = sim.v.transpose();
    }
  }
  return s;
}

bool sameStatistics(const abdyn::StepStatistics& a, const abdyn::StepStatistics& b) {
  return a.iterations == b.iterations && a.residual == b.residual && a.constraint_error == b.constraint_error &&
         a.rows == b.rows && a.contacts == b.contacts && a.energy == b.energy;
}

// Checks exact equality of a rollout's outputs with the serial reference.
void checkExact(const Serial& expected, const RowMatrixXd& Q, const RowMatrixXd& V,
                const std::vector<abdyn::StepStatistics>& statistics, const std::string& label) {
  BOOST_TEST((Q.array() == expected.Q.array()).all(), label << ": Q differs from the serial runs");
  BOOST_TEST((V.array() == expected.V.array()).all(), label << ": V differs from the serial runs");
  bool same = statistics.size() == expected.statistics.size();
  for (std::size_t k = 0; same && k < statistics.size(); ++k) same = sameStatistics(statistics[k], expected.statistics[k]);
  BOOST_TEST(same, label << ": step statistics differ from the serial runs");
}

}  // namespace

// The humanoid ragdoll (floating base, limits, friction, ground contacts) over 7 runs: 1, 2, 3 and 7
// threads, and more threads than runs, give the serial loop's states and statistics bit for bit. The
// runs touch the ground (contacts > 0), so the contact rows and the warm start are exercised; a second
// call on the same workers with the runs in reverse order gives the same per-run results, so a worker's
// Simulator keeps nothing from its previous run.
BOOST_AUTO_TEST_CASE(ragdoll_bit_identical_for_any_thread_count) {
  const abdyn::Model model = humanoid();
  const abdyn::SimulatorSettings settings = ragdollSettings();
  const abdyn::Simulator prototype(model, settings);
  const double h = 2e-3;
  const Batch b = randomBatch(model, 7, 60, 2.0, 11);  // the feet start 2 cm above the ground
  const Serial expected = serialRuns(prototype, b, h);
  int contacts = 0;
  for (const auto& s : expected.statistics) contacts += s.contacts;
  BOOST_TEST(contacts > 0);
  const int N = static_cast<int>(b.q0.rows());
  for (const int threads : {1, 2, 3, 7, 9}) {
    RowMatrixXd Q(N, (b.steps + 1) * model.nq()), V(N, (b.steps + 1) * model.nv());
    std::vector<abdyn::StepStatistics> statistics(static_cast<std::size_t>(N * b.steps));
    abdyn::rollout(model, settings, b.q0, b.v0, b.tau, b.steps, h, threads, Q, V, statistics.data());
    checkExact(expected, Q, V, statistics, std::to_string(threads) + " threads");
  }
  // Reversed runs on workers that already ran the batch once.
  abdyn::RolloutWorkers workers(prototype, 3);
  RowMatrixXd Q(N, (b.steps + 1) * model.nq()), V(N, (b.steps + 1) * model.nv());
  abdyn::rollout(workers, b.q0, b.v0, b.tau, b.steps, h, Q, V);
  const RowMatrixXd q0r = b.q0.colwise().reverse(), v0r = b.v0.colwise().reverse(), taur = b.tau.colwise().reverse();
  RowMatrixXd Qr(N, Q.cols()), Vr(N, V.cols());
  abdyn::rollout(workers, q0r, v0r, taur, b.steps, h, Qr, Vr);
  BOOST_TEST((Qr.colwise().reverse().array() == expected.Q.array()).all());
  BOOST_TEST((Vr.colwise().reverse().array() == expected.V.array()).all());
}

// The prototype's row joints and motors reach every worker: the iiwa arm with its tool flange held to
// the world by a ball joint of rows (a loop closure), a velocity motor on joint 1 and the position limits,
// bit-identical to the serial loop on 1 and 3 threads.
BOOST_AUTO_TEST_CASE(row_joints_and_motors_reach_the_workers) {
  const abdyn::Model model = abdyn::loadUrdf(modelPath("iiwa7.urdf"));
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  abdyn::Simulator prototype(model, settings);
  abdyn::Data data(model);
  const Eigen::VectorXd q_hold = abdyn::neutral(model);
  abdyn::forwardKinematics(model, data, q_hold);
  const int tip = model.nbodies() - 1;
  prototype.joints.push_back(abdyn::RowJoint{abdyn::RowJointType::Ball, tip, 0, abdyn::Plx(), data.X_body_world[tip]});
  prototype.motors.push_back(abdyn::JointMotor{0, 0.5, 20.0});
  Batch b = randomBatch(model, 5, 40, 5.0, 12);
  for (int n = 0; n < b.q0.rows(); ++n) b.q0.row(n) = q_hold.transpose();  // start on the closure
  const double h = 1e-3;
  const Serial expected = serialRuns(prototype, b, h);
  for (const int threads : {1, 3}) {
    abdyn::RolloutWorkers workers(prototype, threads);
    RowMatrixXd Q(b.q0.rows(), (b.steps + 1) * model.nq()), V(b.q0.rows(), (b.steps + 1) * model.nv());
    std::vector<abdyn::StepStatistics> statistics(static_cast<std::size_t>(b.q0.rows() * b.steps));
    abdyn::rollout(workers, b.q0, b.v0, b.tau, b.steps, h, Q, V, statistics.data());
    checkExact(expected, Q, V, statistics, "iiwa, " + std::to_string(threads) + " threads");
    BOOST_TEST(statistics.back().rows >= 4);  // 3 ball rows and the motor
  }
}

// A rollout skips the step's energy unless it returns statistics, without touching the workers' settings:
// they read back as the prototype's after calls without and with statistics, and the energies of the
// statistics are finite exactly when settings.energy asks for them (changed between calls by the caller).
BOOST_AUTO_TEST_CASE(rollout_leaves_the_settings_unchanged) {
  const abdyn::Model model = abdyn::loadUrdf(modelPath("iiwa7.urdf"));
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  const Batch b = randomBatch(model, 3, 5, 5.0, 21);
  abdyn::RolloutWorkers workers(abdyn::Simulator(model, settings), 2);
  RowMatrixXd Q(b.q0.rows(), (b.steps + 1) * model.nq()), V(b.q0.rows(), (b.steps + 1) * model.nv());
  std::vector<abdyn::StepStatistics> statistics(static_cast<std::size_t>(b.q0.rows() * b.steps));
  for (const bool energy : {true, false}) {
    for (int k = 0; k < workers.threads(); ++k) workers.simulator(k).settings().energy = energy;
    abdyn::rollout(workers, b.q0, b.v0, b.tau, b.steps, 1e-3, Q, V);
    for (int k = 0; k < workers.threads(); ++k) BOOST_TEST(workers.simulator(k).settings().energy == energy);
    abdyn::rollout(workers, b.q0, b.v0, b.tau, b.steps, 1e-3, Q, V, statistics.data());
    for (int k = 0; k < workers.threads(); ++k) {
      BOOST_TEST(workers.simulator(k).settings().energy == energy);
      BOOST_TEST(workers.simulator(k).settings().joint_limits);
    }
    for (const abdyn::StepStatistics& s : statistics) BOOST_TEST(std::isfinite(s.energy) == energy);
  }
}

// The callback form: a PD policy towards a per-run target equals a serial loop that evaluates the same
// policy itself, on 1, 2 and 3 threads; the policy sees the state before each step and its run index.
BOOST_AUTO_TEST_CASE(policy_form_matches_a_serial_loop) {
  const abdyn::Model model = abdyn::loadUrdf(modelPath("iiwa7.urdf"));
  const abdyn::SimulatorSettings settings;
  const int N = 5, T = 50, nv = model.nv();
  const double h = 1e-3;
  Batch b = randomBatch(model, N, 0, 0.0, 13);
  const auto policy = [&](int run, int, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::Ref<Eigen::VectorXd> tau) {
    tau = -2.0 * (q.array() - 0.1 * run).matrix() - 0.02 * v;  // gentle enough for the light wrist links
  };
  // The serial reference: the policy's forces written out step by step.
  RowMatrixXd tau(N, T * nv);
  RowMatrixXd Q_ref(N, (T + 1) * model.nq()), V_ref(N, (T + 1) * nv);
  for (int n = 0; n < N; ++n) {
    abdyn::Simulator sim(model, settings);
    sim.q = b.q0.row(n).transpose();
    sim.v = b.v0.row(n).transpose();
    Q_ref.row(n).head(model.nq()) = sim.q.transpose();
    V_ref.row(n).head(nv) = sim.v.transpose();
    for (int t = 0; t < T; ++t) {
      Eigen::VectorXd f = Eigen::VectorXd::Zero(nv);
      policy(n, t, sim.q, sim.v, f);
      sim.tau = f;
      sim.step(h);
      Q_ref.row(n).segment((t + 1) * model.nq(), model.nq()) = sim.q.transpose();
      V_ref.row(n).segment((t + 1) * nv, nv) = sim.v.transpose();
    }
  }
  for (const int threads : {1, 2, 3}) {
    RowMatrixXd Q(N, (T + 1) * model.nq()), V(N, (T + 1) * nv);
    abdyn::rollout(model, settings, b.q0, b.v0, abdyn::RolloutPolicy(policy), T, h, threads, Q, V);
    BOOST_TEST((Q.array() == Q_ref.array()).all(), threads << " threads");
    BOOST_TEST((V.array() == V_ref.array()).all(), threads << " threads");
  }
}

// Zero steps: the outputs are the initial states.
BOOST_AUTO_TEST_CASE(zero_steps_give_the_initial_states) {
  const abdyn::Model model = abdyn::loadUrdf(modelPath("iiwa7.urdf"));
  const Batch b = randomBatch(model, 3, 0, 0.0, 14);
  RowMatrixXd Q(3, model.nq()), V(3, model.nv());
  abdyn::rollout(model, {}, b.q0, b.v0, b.tau, 0, 1e-3, 2, Q, V);
  BOOST_TEST((Q.array() == b.q0.array()).all());
  BOOST_TEST((V.array() == b.v0.array()).all());
}

namespace {

// Expects abdyn::InvalidArgument whose message names `argument` (as 'argument').
template <class F>
void expectArgumentError(F&& f, const std::string& argument) {
  try {
    f();
    BOOST_ERROR("no exception for a bad '" << argument << "'");
  } catch (const abdyn::InvalidArgument& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("abdyn::rollout") != std::string::npos, what);
    BOOST_TEST(what.find("'" + argument + "'") != std::string::npos, what);
  }
}

}  // namespace

// Every bad argument throws abdyn::InvalidArgument naming it: N = 0, wrong shapes of q0, v0, tau, Q, V,
// negative steps, h not positive and finite, threads < 1, non-finite entries, a non-unit quaternion in
// q0, an empty policy.
BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
  const abdyn::Model model = humanoid();
  const abdyn::SimulatorSettings settings;
  const int N = 2, T = 3, nq = model.nq(), nv = model.nv();
  const Batch b = randomBatch(model, N, T, 1.0, 15);
  RowMatrixXd Q(N, (T + 1) * nq), V(N, (T + 1) * nv);
  const auto run = [&](const RowMatrixXd& q0, const RowMatrixXd& v0, const RowMatrixXd& tau, int steps, double h,
                       int threads, RowMatrixXd& Qo, RowMatrixXd& Vo) {
    abdyn::rollout(model, settings, q0, v0, tau, steps, h, threads, Qo, Vo);
  };
  expectArgumentError([&] { run(RowMatrixXd(0, nq), RowMatrixXd(0, nv), RowMatrixXd(0, T * nv), T, 1e-3, 1, Q, V); }, "q0");
  expectArgumentError([&] { run(RowMatrixXd::Zero(N, nq - 1), b.v0, b.tau, T, 1e-3, 1, Q, V); }, "q0");
  expectArgumentError([&] { run(b.q0, RowMatrixXd::Zero(N + 1, nv), b.tau, T, 1e-3, 1, Q, V); }, "v0");
  expectArgumentError([&] { run(b.q0, b.v0, RowMatrixXd::Zero(N, T * nv - 1), T, 1e-3, 1, Q, V); }, "tau");
  RowMatrixXd Q_short(N, T * nq), V_short(N, T * nv);
  expectArgumentError([&] { run(b.q0, b.v0, b.tau, T, 1e-3, 1, Q_short, V); }, "Q");
  expectArgumentError([&] { run(b.q0, b.v0, b.tau, T, 1e-3, 1, Q, V_short); }, "V");
  expectArgumentError([&] { run(b.q0, b.v0, b.tau, -1, 1e-3, 1, Q, V); }, "steps");
  for (const double h : {0.0, -1e-3, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    expectArgumentError([&] { run(b.q0, b.v0, b.tau, T, h, 1, Q, V); }, "h");
  }
  expectArgumentError([&] { run(b.q0, b.v0, b.tau, T, 1e-3, 0, Q, V); }, "threads");
  expectArgumentError([&] { abdyn::RolloutWorkers(model, settings, -2); }, "threads");
  RowMatrixXd bad = b.q0;
  bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
  expectArgumentError([&] { run(bad, b.v0, b.tau, T, 1e-3, 1, Q, V); }, "q0");
  bad = b.q0;
  bad(1, 3) = 2.0;  // the floating base's quaternion w: norm > 1
  expectArgumentError([&] { run(bad, b.v0, b.tau, T, 1e-3, 1, Q, V); }, "q0");
  bad = b.v0;
  bad(0, 2) = std::numeric_limits<double>::infinity();
  expectArgumentError([&] { run(b.q0, bad, b.tau, T, 1e-3, 1, Q, V); }, "v0");
  bad = b.tau;
  bad(1, T * nv - 1) = -std::numeric_limits<double>::infinity();
  expectArgumentError([&] { run(b.q0, b.v0, bad, T, 1e-3, 1, Q, V); }, "tau");
  expectArgumentError([&] { abdyn::rollout(model, settings, b.q0, b.v0, abdyn::RolloutPolicy(), T, 1e-3, 1, Q, V); },
                      "policy");
}

// Diverging runs throw the Simulator's abdyn::Error, and the error reported is that of the lowest failing
// run whatever the threads: runs 2 and 4 of 6 get forces that blow up, run 4 at an earlier step than run 2;
// on 3 threads run 4's block fails first in time, yet run 2's error (as a serial loop meets it) is thrown.
BOOST_AUTO_TEST_CASE(divergence_reports_the_lowest_failing_run) {
  const abdyn::Model model = abdyn::loadUrdf(modelPath("iiwa7.urdf"));
  const int N = 6, T = 12, nv = model.nv();
  const double h = 1e-3;
  Batch b = randomBatch(model, N, T, 1.0, 16);
  b.tau(2, 6 * nv) = 1e300;
  b.tau(4, 0) = 1e300;
  std::string expected;
  for (int n = 0; n < N && expected.empty(); ++n) {
    abdyn::Simulator sim(model);
    sim.q = b.q0.row(n).transpose();
    sim.v = b.v0.row(n).transpose();
    try {
      for (int t = 0; t < T; ++t) {
        sim.tau = b.tau.row(n).segment(t * nv, nv).transpose();
        sim.step(h);
      }
    } catch (const abdyn::Error& e) {
      BOOST_TEST(n == 2);
      expected = e.what();
    }
  }
  BOOST_TEST(!expected.empty());
  for (const int threads : {1, 3}) {
    RowMatrixXd Q(N, (T + 1) * model.nq()), V(N, (T + 1) * nv);
    try {
      abdyn::rollout(model, {}, b.q0, b.v0, b.tau, T, h, threads, Q, V);
      BOOST_ERROR("no divergence error");
    } catch (const abdyn::Error& e) {
      BOOST_TEST(e.what() == expected, threads << " threads");
    }
  }
}
