// Timing of the constraint-row step (Google Benchmark): the humanoid as a ragdoll (floating base, URDF
// limits as rows, ground contacts), fallen and lying on the ground, so that its contacts, limits and
// joint-friction rows are all active. The argument `groups` is PgsSettings::coordinate_groups (1: a
// joint's limit and friction rows solved together; 0: row by row).
//   RagdollStep    one Simulator::step (ABA, rows, responses, PGS with 20 sweeps, integration)
//   RagdollPgs     the projected Gauss-Seidel sweeps alone on that step's rows, from zero impulses;
//                  the counter time_per_row_iteration is the time per row per sweep (s, SI-prefixed),
//                  residual the residual after the 20 sweeps (m/s). Argument `factor`: 0 in velocities
//                  with the rows' M^-1 J^T (articulated, before the timing); 1 in the coordinates of the
//                  factor of M (row_pgs.hpp; the Simulator's path for this model), its time including
//                  each row's L^-T J^T, which replaces the responses there
//   RagdollRun     the whole drop of bench_step_peers (1000 steps of 2 ms from the neutral pose with a
//                  push) with at most `sweeps` sweeps per step, tolerance 1e-6 m/s; counters: per_step,
//                  sweeps (mean per step), residual (geometric mean of the steps' final residuals, m/s)
//                  and kinetic (the kinetic energy at the end, J; at rest: 0)
//   RagdollResponses  M^-1 J^T of every row by articulated-body propagation
//   RagdollResponsesFactorized  the same by CRBA, the L^T D L factor and one sparse solve per row (the
//                  path the Simulator picks for this model); time_per_row includes CRBA and the factor
//   HingeChainPgs  the sweeps alone on the rows of a chain of `rods` free rods joined by hinge RowJoints
//                  (5 bilateral rows each; tests/test_simulator.cpp's RodChain), one step from rest under
//                  gravity, 20 sweeps from zero impulses, with PgsSettings::bilateral_block off (row by
//                  row) or on (one direct block: its factor is built in every solve, so it is in the
//                  time); counters as RagdollPgs, and sweeps: the block solves the rows in its first
//                  sweep, so with it the solve stops early, at a residual of 0 (3 sweeps, not 20)

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "abdyn/abdyn.hpp"

namespace {

constexpr int kSweeps = 20;
constexpr double kStep = 2e-3;

abdyn::SimulatorSettings ragdollSettings() {
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.solver.max_iterations = kSweeps;
  settings.solver.tolerance = 0.0;  // always kSweeps sweeps, so times compare across runs
  return settings;
}

// The humanoid dropped tipping over from just above the ground at z = -0.95 (its feet reach 0.93 m below
// the pelvis in the neutral pose), after 1.5 s: lying on the ground.
abdyn::Simulator& fallenRagdoll() {
  static abdyn::Simulator* sim = [] {
    abdyn::UrdfOptions options;
    options.floating_base = true;
    abdyn::SimulatorSettings settings = ragdollSettings();
    settings.contact.height = -0.95;
    auto* s = new abdyn::Simulator(abdyn::loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options), settings);
    s->v.head<3>() << 0.8, 0.5, 0.2;
    for (int k = 0; k < 750; ++k) s->step(kStep);
    return s;
  }();
  return *sim;
}

void RagdollStep(benchmark::State& state) {
  abdyn::Simulator& sim = fallenRagdoll();
  const Eigen::VectorXd q0 = sim.q, v0 = sim.v;
  const bool groups = sim.settings().solver.coordinate_groups;
  sim.settings().solver.coordinate_groups = state.range(0) != 0;
  for (auto _ : state) {
    sim.q = q0;
    sim.v = v0;
    benchmark::DoNotOptimize(sim.step(kStep));
  }
  state.counters["rows"] = sim.statistics().rows;
  state.counters["contacts"] = sim.statistics().contacts;
  sim.q = q0;
  sim.v = v0;
  sim.settings().solver.coordinate_groups = groups;
}

// The rows of one step at the fallen state, built as Simulator::step builds them.
struct RowProblem {
  explicit RowProblem(const abdyn::Simulator& sim)
      : model(sim.model()), data(model), rows(model), response(model), v_free(sim.v) {
    const abdyn::SimulatorSettings settings = ragdollSettings();
    v_free += kStep * abdyn::forwardDynamics(model, data, sim.q, sim.v, sim.tau);
    abdyn::forwardKinematics(model, data, sim.q);
    abdyn::jointJacobians(model, data);
    abdyn::addJointLimitRows(rows, model, sim.q, settings.limit_margin, settings.erp, kStep, 0);
    abdyn::addJointFrictionRows(rows, model, kStep, 1000);
    abdyn::GroundContactSettings contact = settings.contact;
    contact.height = -0.95;
    abdyn::addGroundContactRows(rows, model, data, sim.v, contact, kStep, 2000);
  }
  const abdyn::Model& model;
  abdyn::Data data;
  abdyn::RowSet rows;
  abdyn::RowResponse response;
  Eigen::VectorXd v_free;
};

// The counters "rows" and `name`: the time per row and per pass over the rows, `passes` passes per iteration.
void countPerRow(benchmark::State& state, const char* name, int rows, double passes) {
  state.counters["rows"] = rows;
  state.counters[name] = benchmark::Counter(static_cast<double>(rows) * passes * state.iterations(),
                                            benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// M^-1 J^T of every row: by articulated-body propagation, or (`factorized`) by the mass matrix's factor.
void timeResponses(benchmark::State& state, bool factorized) {
  RowProblem p(fallenRagdoll());
  const Eigen::VectorXd q = fallenRagdoll().q;
  for (auto _ : state) {
    if (factorized) {
      p.response.dense(p.model, p.data, q, p.rows);
    } else {
      p.response.articulated(p.model, p.data, p.rows);
    }
    benchmark::ClobberMemory();
  }
  countPerRow(state, "time_per_row", p.rows.size(), 1.0);
}

void RagdollResponses(benchmark::State& state) { timeResponses(state, false); }

void RagdollResponsesFactorized(benchmark::State& state) { timeResponses(state, true); }

// The timed loop of the row solver: solve(v) from v = v_free every iteration; the last solve's report.
template <class Solve>
abdyn::PgsReport timeSweeps(benchmark::State& state, const Eigen::VectorXd& v_free, const Solve& solve) {
  Eigen::VectorXd v(v_free.size());
  abdyn::PgsReport report;
  for (auto _ : state) {
    v = v_free;
    report = solve(v);
    benchmark::DoNotOptimize(v.data());
  }
  return report;
}

void RagdollPgs(benchmark::State& state) {
  RowProblem p(fallenRagdoll());
  const bool factor = state.range(1) != 0;
  if (factor) {
    abdyn::massMatrix(p.model, p.data, fallenRagdoll().q);
    abdyn::factorizeMassMatrix(p.model, p.data);
  } else {
    p.response.articulated(p.model, p.data, p.rows);
  }
  abdyn::PgsSettings settings = ragdollSettings().solver;
  settings.warm_start = false;
  settings.coordinate_groups = state.range(0) != 0;
  const abdyn::PgsReport report = timeSweeps(state, p.v_free, [&](Eigen::VectorXd& v) {
    return factor ? abdyn::solveRowsPgs(p.model, p.data, p.rows, v, settings) : abdyn::solveRowsPgs(p.rows, v, settings);
  });
  state.counters["residual"] = report.residual;
  countPerRow(state, "time_per_row_iteration", p.rows.size(), report.iterations);
}

// The rows of one step of `rods` free rods hanging in a line along -z, each hinged (axis x) at its top
// to the end of the previous rod, the first to the world, at rest: bilateral rows only.
struct HingeChainProblem {
  explicit HingeChainProblem(int rods) : model(build(rods)), data(model), rows(model), response(model) {
    const Eigen::VectorXd q = abdyn::neutral(model), zero = Eigen::VectorXd::Zero(model.nv());
    v_free = kStep * abdyn::forwardDynamics(model, data, q, zero, zero);
    abdyn::forwardKinematics(model, data, q);
    abdyn::jointJacobians(model, data);
    const abdyn::SimulatorSettings settings;
    const abdyn::Matrix3 x_as_z = (abdyn::Matrix3() << 0, 0, -1, 0, 1, 0, 1, 0, 0).finished();  // E^T e_z = e_x
    for (int i = 1; i <= rods; ++i) {
      // The hinge on rod i at its origin, on rod i - 1 at its end (the world's origin for the first).
      const abdyn::RowJoint hinge{abdyn::RowJointType::Hinge, i, i - 1, abdyn::Plx::rotation(x_as_z),
                                  abdyn::Plx(x_as_z, i == 1 ? abdyn::Vector3::Zero() : abdyn::Vector3(0, 0, -kLength))};
      abdyn::addRowJoint(rows, model, data, hinge, settings.erp, settings.cfm, kStep, abdyn::kRowJointKeys * i);
    }
    response.articulated(model, data, rows);
  }

  static abdyn::Model build(int rods) {
    abdyn::ModelBuilder b("rod_chain");
    abdyn::JointSpec free;
    free.type = abdyn::JointType::Floating;
    for (int i = 0; i < rods; ++i) {
      free.name = "free" + std::to_string(i);
      b.addBody(0, free, abdyn::Plx::translation(abdyn::Vector3(0, 0, -i * kLength)),
                abdyn::RigidBodyInertia(1.0, abdyn::Vector3(0, 0, -0.5 * kLength),
                                        abdyn::Vector3(1e-3, 1e-3, 1e-4).asDiagonal()),
                "rod" + std::to_string(i));
    }
    return b.build();
  }

  static constexpr double kLength = 0.2;
  abdyn::Model model;
  abdyn::Data data;
  abdyn::RowSet rows;
  abdyn::RowResponse response;
  Eigen::VectorXd v_free;
};

void HingeChainPgs(benchmark::State& state) {
  HingeChainProblem p(static_cast<int>(state.range(0)));
  abdyn::PgsSettings settings;
  settings.max_iterations = kSweeps;
  settings.tolerance = 0.0;
  settings.warm_start = false;
  settings.bilateral_block = state.range(1) != 0;
  const abdyn::PgsReport report =
      timeSweeps(state, p.v_free, [&](Eigen::VectorXd& v) { return abdyn::solveRowsPgs(p.rows, v, settings); });
  state.counters["residual"] = report.residual;
  state.counters["sweeps"] = report.iterations;
  countPerRow(state, "time_per_row_iteration", p.rows.size(), report.iterations);
}

void RagdollRun(benchmark::State& state) {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options);
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.contact.height = -0.95;
  settings.solver.max_iterations = static_cast<int>(state.range(0));
  settings.solver.coordinate_groups = state.range(1) != 0;
  constexpr int kSteps = 1000;
  long sweeps = 0;
  double log_residual = 0.0, kinetic = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    abdyn::Simulator sim(model, settings);
    sim.v.segment<3>(3) << 0.8, 0.5, 0.2;
    state.ResumeTiming();
    for (int k = 0; k < kSteps; ++k) {
      const abdyn::StepStatistics& stats = sim.step(kStep);
      sweeps += stats.iterations;
      log_residual += std::log10(std::max(stats.residual, 1e-300));
    }
    state.PauseTiming();
    abdyn::Data data(model);
    kinetic = abdyn::kineticEnergy(model, data, sim.q, sim.v);
    state.ResumeTiming();
  }
  const double steps = static_cast<double>(kSteps) * state.iterations();
  state.counters["per_step"] = benchmark::Counter(steps, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["sweeps"] = static_cast<double>(sweeps) / steps;
  state.counters["residual"] = std::pow(10.0, log_residual / steps);
  state.counters["kinetic"] = kinetic;
}

}  // namespace

BENCHMARK(RagdollStep)->ArgName("groups")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(RagdollResponses)->Unit(benchmark::kMicrosecond);
BENCHMARK(RagdollResponsesFactorized)->Unit(benchmark::kMicrosecond);
BENCHMARK(RagdollPgs)->ArgNames({"groups", "factor"})->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(HingeChainPgs)->ArgNames({"rods", "block"})->ArgsProduct({{10, 50}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(RagdollRun)->ArgNames({"sweeps", "groups"})->ArgsProduct({{10, 12, 20}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
