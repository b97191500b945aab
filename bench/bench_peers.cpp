// abdyn against Pinocchio, RBDL and MuJoCo: ABA (forward dynamics), RNEA (inverse dynamics) and CRBA
// (mass matrix) timed side by side in one Google Benchmark executable, on the same URDF files and the
// same states. Built with -DABDYN_BENCH_PEERS=ON (see docs/performance.md for the commands and
// results); tools/perf_table.py turns its JSON output into a table.
//
// Benchmark names are <ABA|RNEA|CRBA|dRNEA|dABA>/<model>/<library>; dRNEA and dABA are the first-order
// derivatives (abdyn's inverseDynamicsDerivatives and forwardDynamicsDerivatives, Pinocchio's
// computeRNEADerivatives and computeABADerivatives). ABA/<model>/abdyn_batch and RNEA/<model>/abdyn_batch
// time abdyn's batched calls on all the states at once (one thread; the per_state counter is per state). Each model has 64 random valid states drawn
// before timing, the same numbers for every library (converted to each one's coordinates by the
// adapters in bench/peers/), and every timed loop cycles through them, so no call sees the same input
// twice in a row. All libraries compute the same physics: gravity (0, 0, -9.81), no joint damping
// (abdyn: DynamicsOptions{armature = true, damping = false}; the URDFs have no armature), no contacts,
// limits or friction. Before timing, each peer's results on state 0 are compared with abdyn's; the
// check is printed and stored in the JSON context ("agreement <model> <library>").
//
//   ./build-bench/bench/bench_peers --benchmark_filter=ABA/kuka_iiwa [--source DIR] [--models a,b,...]
// --models sets up only the named models (setup of every library on the 1000-body models is slow).
//
// Constrained/<scene>/<library>: forward dynamics with loop closures (Lagrange multipliers, no
// stabilisation) on states that satisfy the closures (assembled by abdyn::projectPositions and
// projectVelocities from random perturbations). abdyn's factorized solver ("abdyn"), its articulated
// solver ("abdyn_articulated") and its KKT solver ("abdyn_direct") against Pinocchio's constraintDynamics and constrainedABA and RBDL's
// ForwardDynamicsConstraintsDirect. Scenes: the humanoid standing on both feet welded to the ground, and
// the delta robot (fixed base, platform on its own floating joint) closed by its three revolute loop
// joints (5 rows each), which Pinocchio 3 cannot express (its rigid constraints are 3-D or 6-D).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"
#include "peers/peer.hpp"

namespace {

using abdyn_bench::kStates;
using abdyn_bench::randomVector;

const abdyn::DynamicsOptions kOptions{true, false};
constexpr double kTolerance = 1e-6;
constexpr int kMaxDerivativeDofs = 400;  // dRNEA and dABA are registered up to this nv

struct ModelFile {
  const char* label;
  const char* path;  // relative to the source directory
  bool floating_base;
  bool accept_invalid_inertia;
};

const ModelFile kModels[] = {
    {"kuka_iiwa", "bench/models/kuka_iiwa.urdf", false, false},
    {"panda", "bench/models/panda.urdf", false, false},
    {"talos_reduced_floating", "bench/models/talos_reduced.urdf", true, true},
    {"quadruped_floating", "models/quadruped.urdf", true, false},
    {"humanoid_floating", "models/humanoid.urdf", true, false},
    {"chain_30", "bench/models/chain_30.urdf", false, false},
    {"tree_30", "bench/models/tree_30.urdf", false, false},
    {"chain_100", "bench/models/chain_100.urdf", false, false},
    {"tree_100", "bench/models/tree_100.urdf", false, false},
    {"chain_1000", "bench/models/chain_1000.urdf", false, false},
    {"tree_1000", "bench/models/tree_1000.urdf", false, false},
};

struct AbdynCase {
  abdyn::Model model;
  std::vector<Eigen::VectorXd> q, v, tau, qdd;
  abdyn::ConstraintSet constraints;  // constrained scenes only
};

// A constrained scene: a model file and the closures on its model at its reference configuration.
struct ConstrainedScene {
  const char* label;
  const char* path;  // relative to the source directory
  bool floating_base;
  /// The reference configuration q (closed) and the closures on it; `path` is the model file.
  void (*close)(const abdyn::Model& model, abdyn::Data& data, const std::string& path, Eigen::VectorXd& q,
                abdyn::ConstraintSet& constraints);
};

// The humanoid with its pelvis 1 m up and both feet welded to the world where they are.
void weldFeet(const abdyn::Model& model, abdyn::Data& data, const std::string&, Eigen::VectorXd& q,
              abdyn::ConstraintSet& constraints) {
  q = abdyn::neutral(model);
  q[2] = 1.0;
  abdyn::forwardKinematics(model, data, q);
  for (const char* foot : {"left_foot", "right_foot"}) {
    const int body = model.bodyId(foot);
    constraints.loops.push_back(abdyn::LoopClosure::fixed(foot, 0, data.X_body_world[body], body, abdyn::Plx()));
  }
}

// The delta robot's three revolute loop joints as the file declares them; its zero configuration is closed.
void deltaLoops(const abdyn::Model& model, abdyn::Data&, const std::string& path, Eigen::VectorXd& q,
                abdyn::ConstraintSet& constraints) {
  q = abdyn::neutral(model);
  constraints = abdyn::loadUrdfLoops(path, model);
}

const ConstrainedScene kConstrainedScenes[] = {
    {"humanoid_welded", "models/humanoid.urdf", true, weldFeet},
    {"delta_robot", "models/delta_robot.urdf", false, deltaLoops},
};

// abdyn's closure in the peers' plain description: the bodies by their link names, the same frames and rows.
abdyn_bench::Closure describeClosure(const abdyn::Model& model, const abdyn::LoopClosure& loop) {
  const auto link = [&](int body) { return body == 0 ? std::string() : model.bodyName(body); };
  const auto rowMajor = [](const abdyn::Matrix3& R) {
    return std::array<double, 9>{R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)};
  };
  abdyn_bench::Closure closure;
  closure.link_a = link(loop.body_a);
  closure.link_b = link(loop.body_b);
  closure.R_a = rowMajor(loop.R_a);
  closure.R_b = rowMajor(loop.R_b);
  closure.p_a = {loop.p_a.x(), loop.p_a.y(), loop.p_a.z()};
  closure.p_b = {loop.p_b.x(), loop.p_b.y(), loop.p_b.z()};
  for (int k = 0; k < loop.rows(); ++k) {
    const Eigen::Matrix<double, 1, 6> n = loop.directions.row(k);
    closure.directions.push_back({n[0], n[1], n[2], n[3], n[4], n[5]});
  }
  return closure;
}

std::vector<double> toStd(const Eigen::VectorXd& x) { return {x.data(), x.data() + x.size()}; }

// The model loaded into abdyn and the Problem's description of it (no states yet).
abdyn_bench::Problem loadProblem(const char* label, const std::string& path, bool floating_base,
                                 bool accept_invalid_inertia, AbdynCase& c) {
  abdyn::UrdfOptions options;
  options.floating_base = floating_base;
  options.accept_invalid_inertia = accept_invalid_inertia;
  abdyn_bench::Problem p;
  p.label = label;
  p.urdf = path;
  p.floating_base = floating_base;
  p.gravity = {options.gravity.x(), options.gravity.y(), options.gravity.z()};
  c.model = abdyn::loadUrdf(p.urdf, options);
  p.nq = c.model.nq();
  p.nv = c.model.nv();
  for (int i = 1; i < c.model.nbodies(); ++i) {
    const abdyn::Joint& joint = c.model.joint(i);
    p.joints.push_back({joint.name, c.model.bodyName(i), joint.idx_q, joint.idx_v, joint.nq, joint.nv,
                        joint.type == abdyn::JointType::Floating});
  }
  return p;
}

// Loads the model into abdyn and draws the states every library is timed on.
abdyn_bench::Problem makeProblem(const ModelFile& file, const std::string& dir, AbdynCase& c) {
  abdyn_bench::Problem p = loadProblem(file.label, dir + "/" + file.path, file.floating_base, file.accept_invalid_inertia, c);
  abdyn_bench::drawStates(c.model, kStates, 1234, c.q, c.v, c.tau, c.qdd);
  for (int s = 0; s < kStates; ++s) {
    p.q.push_back(toStd(c.q[s]));
    p.v.push_back(toStd(c.v[s]));
    p.tau.push_back(toStd(c.tau[s]));
    p.qdd.push_back(toStd(c.qdd[s]));
  }
  return p;
}

// The constrained scene's model, closures and states: random perturbations of the closed reference
// configuration and random velocities, projected back onto the closures.
abdyn_bench::Problem makeConstrainedProblem(const ConstrainedScene& scene, const std::string& dir, AbdynCase& c) {
  abdyn_bench::Problem p = loadProblem(scene.label, dir + "/" + scene.path, scene.floating_base, false, c);
  abdyn::Data data(c.model);
  Eigen::VectorXd reference;
  scene.close(c.model, data, p.urdf, reference, c.constraints);
  for (const abdyn::LoopClosure& loop : c.constraints.loops) p.closures.push_back(describeClosure(c.model, loop));
  abdyn::ConstrainedDynamicsData cd(c.model, c.constraints);
  std::mt19937 rng(4321);
  for (int s = 0; s < kStates; ++s) {
    Eigen::VectorXd q = abdyn::integrate(c.model, reference, randomVector(rng, p.nv), 0.1);
    abdyn::projectPositions(c.model, data, cd, c.constraints, q);
    Eigen::VectorXd v = randomVector(rng, p.nv);
    abdyn::projectVelocities(c.model, data, cd, c.constraints, q, v, kOptions);
    c.q.push_back(q);
    c.v.push_back(v);
    c.tau.push_back(randomVector(rng, p.nv));
    c.qdd.push_back(Eigen::VectorXd::Zero(p.nv));
    p.q.push_back(toStd(c.q.back()));
    p.v.push_back(toStd(c.v.back()));
    p.tau.push_back(toStd(c.tau.back()));
    p.qdd.push_back(toStd(c.qdd.back()));
  }
  return p;
}

abdyn::ConstrainedDynamicsSettings constrainedSettings(abdyn::ConstrainedSolver solver) {
  abdyn::ConstrainedDynamicsSettings settings;
  settings.solver = solver;
  settings.dynamics = kOptions;
  return settings;
}

// Registers Constrained/<label>/abdyn (factorized solver), abdyn_articulated and abdyn_direct; returns
// abdyn's qdd on state 0 (articulated solver: the peers are checked against the other method).
abdyn_bench::Outputs registerAbdynConstrained(const std::string& label, const std::shared_ptr<AbdynCase>& c) {
  for (const auto& [library, solver] : {std::pair{"abdyn", abdyn::ConstrainedSolver::Factorized},
                                        std::pair{"abdyn_articulated", abdyn::ConstrainedSolver::Articulated},
                                        std::pair{"abdyn_direct", abdyn::ConstrainedSolver::Direct}}) {
    const abdyn::ConstrainedDynamicsSettings settings = constrainedSettings(solver);
    benchmark::RegisterBenchmark(("Constrained/" + label + "/" + library).c_str(), [c, settings](benchmark::State& state) {
      abdyn::Data data(c->model);
      abdyn::ConstrainedDynamicsData cd(c->model, c->constraints);
      int s = 0;
      for (auto _ : state) {
        benchmark::DoNotOptimize(abdyn::forwardDynamicsConstrained(c->model, data, cd, c->constraints, c->q[s], c->v[s], c->tau[s], settings).data());
        benchmark::ClobberMemory();
        s = (s + 1) % kStates;
      }
    });
  }
  abdyn::Data data(c->model);
  abdyn::ConstrainedDynamicsData cd(c->model, c->constraints);
  abdyn_bench::Outputs out;
  out.qdd = toStd(abdyn::forwardDynamicsConstrained(c->model, data, cd, c->constraints, c->q[0], c->v[0], c->tau[0],
                                                    constrainedSettings(abdyn::ConstrainedSolver::Articulated)));
  return out;
}

// <ALG>/<model>/abdyn_batch: the kStates states in one batched call on the calling thread (BatchWorkspace,
// the widest instruction set), one iteration per batch; the counter per_state is the CPU time per state.
void registerAbdynBatch(const std::string& label, const std::shared_ptr<AbdynCase>& c) {
  const auto rows = [](const std::vector<Eigen::VectorXd>& x) {
    abdyn::RowMatrixXd out(static_cast<Eigen::Index>(x.size()), x.front().size());
    for (std::size_t k = 0; k < x.size(); ++k) out.row(static_cast<Eigen::Index>(k)) = x[k].transpose();
    return out;
  };
  auto in = std::make_shared<std::array<abdyn::RowMatrixXd, 4>>(
      std::array<abdyn::RowMatrixXd, 4>{rows(c->q), rows(c->v), rows(c->tau), rows(c->qdd)});
  const auto add = [&](const std::string& algorithm, auto call) {
    benchmark::RegisterBenchmark((algorithm + "/" + label + "/abdyn_batch").c_str(), [c, in, call](benchmark::State& state) {
      abdyn::BatchWorkspace workspace(c->model);
      abdyn::RowMatrixXd out(kStates, c->model.nv());
      state.SetLabel(abdyn::batchSimdName());
      for (auto _ : state) {
        call(*c, workspace, *in, out);
        benchmark::ClobberMemory();
      }
      state.SetItemsProcessed(state.iterations() * kStates);
      state.counters["per_state"] =
          benchmark::Counter(kStates, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    });
  };
  using Rows = std::array<abdyn::RowMatrixXd, 4>;
  add("ABA", [](const AbdynCase& m, abdyn::BatchWorkspace& w, const Rows& x, abdyn::RowMatrixXd& out) {
    abdyn::forwardDynamicsBatch(m.model, w, x[0], x[1], x[2], out, kOptions);
  });
  add("RNEA", [](const AbdynCase& m, abdyn::BatchWorkspace& w, const Rows& x, abdyn::RowMatrixXd& out) {
    abdyn::inverseDynamicsBatch(m.model, w, x[0], x[1], x[3], out, kOptions);
  });
}

void registerAbdyn(const std::string& label, const std::shared_ptr<AbdynCase>& c) {
  const auto add = [&](const std::string& algorithm, auto call) {
    benchmark::RegisterBenchmark((algorithm + "/" + label + "/abdyn").c_str(), [c, call](benchmark::State& state) {
      abdyn::Data data(c->model);
      abdyn_bench::cycleStates(state, kStates, [&](int s) { call(*c, data, s); });
    });
  };
  add("ABA", [](const AbdynCase& m, abdyn::Data& d, int s) {
    benchmark::DoNotOptimize(abdyn::forwardDynamics(m.model, d, m.q[s], m.v[s], m.tau[s], kOptions));
  });
  add("RNEA", [](const AbdynCase& m, abdyn::Data& d, int s) {
    benchmark::DoNotOptimize(abdyn::inverseDynamics(m.model, d, m.q[s], m.v[s], m.qdd[s], kOptions));
  });
  add("CRBA", [](const AbdynCase& m, abdyn::Data& d, int s) {
    benchmark::DoNotOptimize(abdyn::massMatrix(m.model, d, m.q[s], kOptions));
  });
  registerAbdynBatch(label, c);
  // The derivatives are dense nv x nv (O(nv^3) for d ABA): timed up to the 100-body models, as Pinocchio's.
  if (c->model.nv() > kMaxDerivativeDofs) return;
  add("dRNEA", [](const AbdynCase& m, abdyn::Data& d, int s) {
    abdyn::inverseDynamicsDerivatives(m.model, d, m.q[s], m.v[s], m.qdd[s], kOptions);
    benchmark::DoNotOptimize(d.dtau_dq.data());
  });
  add("dABA", [](const AbdynCase& m, abdyn::Data& d, int s) {
    abdyn::forwardDynamicsDerivatives(m.model, d, m.q[s], m.v[s], m.tau[s], kOptions);
    benchmark::DoNotOptimize(d.dqdd_dq.data());
  });
}

abdyn_bench::Outputs abdynOutputs(const AbdynCase& c) {
  abdyn::Data data(c.model);
  abdyn_bench::Outputs out;
  out.qdd = toStd(abdyn::forwardDynamics(c.model, data, c.q[0], c.v[0], c.tau[0], kOptions));
  out.tau = toStd(abdyn::inverseDynamics(c.model, data, c.q[0], c.v[0], c.qdd[0], kOptions));
  const Eigen::MatrixXd& M = abdyn::massMatrix(c.model, data, c.q[0], kOptions);
  out.mass_matrix.assign(M.data(), M.data() + M.size());
  if (c.model.nv() > kMaxDerivativeDofs) return out;
  const auto flat = [](const Eigen::MatrixXd& D) { return std::vector<double>(D.data(), D.data() + D.size()); };
  abdyn::inverseDynamicsDerivatives(c.model, data, c.q[0], c.v[0], c.qdd[0], kOptions);
  out.dtau_dq = flat(data.dtau_dq);
  out.dtau_dv = flat(data.dtau_dv);
  abdyn::forwardDynamicsDerivatives(c.model, data, c.q[0], c.v[0], c.tau[0], kOptions);
  out.dqdd_dq = flat(data.dqdd_dq);
  out.dqdd_dv = flat(data.dqdd_dv);
  return out;
}

// Prints one row of the agreement check and stores it in the JSON context.
void checkAgreement(const std::string& label, const abdyn_bench::PeerReport& report, const abdyn_bench::Outputs& reference) {
  char row[200];
  std::string context;
  if (!report.error.empty()) {
    context = "not run: " + report.error;
    std::snprintf(row, sizeof row, "%-24s %-16s %s", label.c_str(), report.library.c_str(), context.c_str());
  } else {
    // Constrained cases compare qdd only (their tau and M are empty on both sides: error 0).
    const double aba = abdyn_bench::relativeError(report.outputs.qdd, reference.qdd);
    const double rnea = abdyn_bench::relativeError(report.outputs.tau, reference.tau);
    const double crba = abdyn_bench::relativeError(report.outputs.mass_matrix, reference.mass_matrix);
    const bool ok = aba <= kTolerance && rnea <= kTolerance && crba <= kTolerance;
    char values[120];
    std::snprintf(values, sizeof values, "ABA %.1e RNEA %.1e CRBA %.1e%s", aba, rnea, crba, ok ? "" : " WARNING");
    context = values;
    std::snprintf(row, sizeof row, "%-24s %-16s %9.1e %9.1e %9.1e  %s", label.c_str(), report.library.c_str(), aba, rnea,
                  crba, ok ? "ok" : "WARNING: disagrees with abdyn");
  }
  std::cout << row << "\n";
  if (report.error.empty() && !report.outputs.dtau_dq.empty()) {
    // The derivatives, where the peer has them: the same measure and tolerance.
    double worst = 0.0;
    char values[160];
    std::snprintf(values, sizeof values, "dtau_dq %.1e dtau_dv %.1e dqdd_dq %.1e dqdd_dv %.1e",
                  abdyn_bench::relativeError(report.outputs.dtau_dq, reference.dtau_dq),
                  abdyn_bench::relativeError(report.outputs.dtau_dv, reference.dtau_dv),
                  abdyn_bench::relativeError(report.outputs.dqdd_dq, reference.dqdd_dq),
                  abdyn_bench::relativeError(report.outputs.dqdd_dv, reference.dqdd_dv));
    for (const auto& [mine, theirs] : {std::pair{&report.outputs.dtau_dq, &reference.dtau_dq},
                                       std::pair{&report.outputs.dtau_dv, &reference.dtau_dv},
                                       std::pair{&report.outputs.dqdd_dq, &reference.dqdd_dq},
                                       std::pair{&report.outputs.dqdd_dv, &reference.dqdd_dv}})
      worst = std::max(worst, abdyn_bench::relativeError(*mine, *theirs));
    std::cout << "    derivatives: " << values << (worst <= kTolerance ? "" : "  WARNING: disagrees with abdyn") << "\n";
    context += std::string("; ") + values;
  }
  if (!report.note.empty()) {
    std::cout << "    " << report.library << ": " << report.note << "\n";
    context += " (" + report.note + ")";
  }
  benchmark::AddCustomContext("agreement " + label + " " + report.library, context);
}

// Sets up every peer compiled in on the problem (registering its benchmarks) and prints its agreement.
void addPeers(const abdyn_bench::Problem& problem, const abdyn_bench::Outputs& reference) {
  std::vector<abdyn_bench::PeerReport> reports;
#ifdef ABDYN_BENCH_WITH_PINOCCHIO
  for (auto& r : abdyn_bench::addPinocchio(problem)) reports.push_back(std::move(r));
#endif
#ifdef ABDYN_BENCH_WITH_RBDL
  for (auto& r : abdyn_bench::addRbdl(problem)) reports.push_back(std::move(r));
#endif
#ifdef ABDYN_BENCH_WITH_MUJOCO
  for (auto& r : abdyn_bench::addMujoco(problem)) reports.push_back(std::move(r));
#endif
  for (const auto& report : reports) checkAgreement(problem.label, report, reference);
  std::cout << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::string models;
  std::vector<char*> rest;
  for (int k = 0; k < argc; ++k) {
    if (std::string(argv[k]) == "--source" && k + 1 < argc) {
      dir = argv[++k];
    } else if (std::string(argv[k]) == "--models" && k + 1 < argc) {
      models = "," + std::string(argv[++k]) + ",";
    } else {
      rest.push_back(argv[k]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  abdyn::logger()->set_level(spdlog::level::err);

  std::cout << "Agreement with abdyn on state 0: max |peer - abdyn| / max |abdyn| (warning above " << kTolerance << ")\n";
  char header[120];
  std::snprintf(header, sizeof header, "%-24s %-16s %9s %9s %9s", "model", "library", "ABA qdd", "RNEA tau", "CRBA M");
  std::cout << header << "\n";
  for (const ModelFile& file : kModels) {
    if (!models.empty() && models.find("," + std::string(file.label) + ",") == std::string::npos) continue;
    auto c = std::make_shared<AbdynCase>();
    const abdyn_bench::Problem problem = makeProblem(file, dir, *c);
    registerAbdyn(problem.label, c);
    const abdyn_bench::Outputs reference = abdynOutputs(*c);
    addPeers(problem, reference);
  }
  for (const ConstrainedScene& scene : kConstrainedScenes) {
    if (!models.empty() && models.find("," + std::string(scene.label) + ",") == std::string::npos) continue;
    auto c = std::make_shared<AbdynCase>();
    const abdyn_bench::Problem problem = makeConstrainedProblem(scene, dir, *c);
    const abdyn_bench::Outputs reference = registerAbdynConstrained(problem.label, c);
    addPeers(problem, reference);
  }
  std::cout << std::endl;

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
