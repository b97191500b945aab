#define BOOST_TEST_MODULE allocation
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "allocation_counter.hpp"
#include "box_surface.hpp"
#include "closed_loops.hpp"

using abdyn::test::ClosedFile;
using abdyn::test::countAllocations;

namespace {

// A closed model from models/ with its workspaces, built before anything is counted, and q0 projected
// onto the closed set.
struct ClosedWorkspace : ClosedFile {
  abdyn::Data data;
  abdyn::ConstrainedDynamicsData cd;
  Eigen::VectorXd q;

  explicit ClosedWorkspace(const char* name) : ClosedFile(name), data(model), cd(model, loops), q(q0) {
    abdyn::projectPositions(model, data, cd, loops, q);
  }
};

}  // namespace

// After Data is built, the hot paths allocate nothing: kinematics, Jacobians, RNEA, CRBA with its
// factorisation and solves, ABA (with and without external forces), the CRBA path, M^-1, an RK4 step and an error-controlled RK4 step.
BOOST_AUTO_TEST_CASE(hot_paths_do_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) {
    BOOST_TEST_MESSAGE("allocation counting is off under AddressSanitizer; the other builds run it");
    return;
  }
  std::mt19937 rng(1);
  for (const bool floating : {false, true}) {
    const abdyn::Model model = abdyn::randomTree({15, false, floating, true, true}, rng);
    abdyn::Data data(model);
    abdyn::RungeKutta4 rk(model);
    abdyn::AdaptiveRungeKutta4 adaptive(model);
    Eigen::VectorXd q = abdyn::randomConfiguration(model, rng);
    Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
    const Eigen::VectorXd tau = Eigen::VectorXd::Random(model.nv());
    const Eigen::VectorXd qdd = Eigen::VectorXd::Random(model.nv());
    Eigen::VectorXd b = Eigen::VectorXd::Random(model.nv());
    Eigen::VectorXd q_next(model.nq());
    const std::vector<abdyn::Force> f_ext(model.nbodies(), abdyn::Force(abdyn::Vector6::Ones()));
    const int frame = model.nframes() - 1;
    const long n = countAllocations([&] {
      abdyn::forwardKinematics(model, data, q);
      abdyn::forwardKinematics(model, data, q, v);
      abdyn::forwardKinematics(model, data, q, v, qdd);
      for (auto rf : {abdyn::ReferenceFrame::Local, abdyn::ReferenceFrame::World, abdyn::ReferenceFrame::LocalWorldAligned}) {
        abdyn::frameJacobian(model, data, q, frame, rf);
        abdyn::frameJacobianTimeVariation(model, data, q, v, frame, rf);
        abdyn::frameJacobianTimeVariationTimesV(model, data, q, v, frame, rf);
      }
      abdyn::centerOfMassJacobian(model, data, q);
      abdyn::kineticEnergy(model, data, q, v);
      abdyn::mechanicalEnergy(model, data, q, v);
      abdyn::spatialMomentum(model, data, q, v);
      abdyn::inverseDynamics(model, data, q, v, qdd);
      abdyn::inverseDynamics(model, data, q, v, qdd, f_ext);
      abdyn::nonlinearEffects(model, data, q, v);
      abdyn::gravityTorques(model, data, q);
      abdyn::massMatrix(model, data, q);
      abdyn::factorizeMassMatrix(model, data);
      abdyn::solveMassMatrix(model, data, b);
      abdyn::forwardDynamics(model, data, q, v, tau);
      abdyn::forwardDynamics(model, data, q, v, tau, f_ext);
      abdyn::forwardDynamicsCrba(model, data, q, v, tau);
      abdyn::inverseMassMatrix(model, data, q);
      abdyn::integrate(model, q, v, 0.01, q_next);
      rk.step(model, data, q, v, tau, 1e-3);
      adaptive.step(model, data, q, v, tau, 1e-3);
    });
    BOOST_TEST(n == 0, (floating ? "floating" : "fixed") << " base: " << n << " heap allocations");
  }
}

// The time steppers and the row machinery allocate nothing once built: the Euler and implicit-midpoint
// steps, and a Simulator step of a floating humanoid with limits and ground contacts after a first step
// has sized its rows (the same rows again: ABA, row building, responses, PGS with coordinate groups and
// the bilateral block, integration).
BOOST_AUTO_TEST_CASE(steppers_and_rows_do_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  std::mt19937 rng(2);
  const abdyn::Model model = abdyn::randomTree({10, false, true, true, true}, rng);
  abdyn::Data data(model);
  abdyn::ExplicitEuler explicit_euler(model);
  abdyn::SemiImplicitEuler semi_implicit_euler(model);
  abdyn::ImplicitMidpoint midpoint(model);
  Eigen::VectorXd q = abdyn::randomConfiguration(model, rng);
  Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const abdyn::JointForceFunction spring = [](const Eigen::VectorXd&, const Eigen::VectorXd& v_at, Eigen::VectorXd& out) {
    out = -0.1 * v_at;
  };
  abdyn::UrdfOptions options;
  options.floating_base = true;
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  abdyn::Simulator sim(abdyn::loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options), settings);
  sim.q[2] = -0.3;  // feet and shins below the ground
  // A hinge of rows from the pelvis to the world where the pelvis is now: bilateral rows for the solver's
  // direct block.
  abdyn::Data pose(sim.model());
  abdyn::forwardKinematics(sim.model(), pose, sim.q);
  sim.joints.push_back(abdyn::RowJoint{abdyn::RowJointType::Hinge, 1, 0, abdyn::Plx(), pose.X_body_world[1]});
  sim.step(1e-3);
  const Eigen::VectorXd q_sim = sim.q, v_sim = sim.v;
  sim.step(1e-3);
  const int rows = sim.statistics().rows;
  sim.q = q_sim;
  sim.v = v_sim;
  const long n = countAllocations([&] {
    explicit_euler.step(model, data, q, v, tau, 1e-3);
    semi_implicit_euler.step(model, data, q, v, spring, 1e-3);
    midpoint.step(model, data, q, v, tau, 1e-3);
    midpoint.step(model, data, q, v, spring, 1e-3);
    sim.step(1e-3);
  });
  BOOST_TEST(sim.statistics().rows == rows);
  BOOST_TEST(sim.statistics().contacts > 0);
  int coordinate_groups = 0;  // the solver's grouped path ran too (a limit and friction on one joint)
  for (int r = 0; r < sim.rows().size(); ++r) {
    coordinate_groups += sim.rows().state(r).visit == abdyn::RowSolverState::Visit::CoordinateFirst;
  }
  BOOST_TEST(coordinate_groups > 0);
  int block = 0;  // and the bilateral block (the hinge's five rows)
  for (int r = 0; r < sim.rows().size(); ++r) block += sim.rows().state(r).visit == abdyn::RowSolverState::Visit::Block;
  BOOST_TEST(block == 5);
  BOOST_TEST(n == 0, n << " heap allocations");
}

// A Simulator step of a mesh scene allocates nothing once warmed up: a bar's hull resting on a table that is a
// static triangle mesh (its face clipped against the triangles under it), a cube's hull resting on the bar (two
// hulls by GJK/EPA, their faces clipped) and a cube's hull on the ground plane, with body contacts and the world's
// shapes on. The first steps grow the narrow phase's buffers and the rows; then 100 steps allocate nothing.
BOOST_AUTO_TEST_CASE(mesh_scene_step_does_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  abdyn::ModelBuilder b("mesh_scene");
  abdyn::Geometry table;
  table.name = "table";
  table.link = "world";
  table.shape = abdyn::ShapeType::Mesh;
  // Its upper face, 1 x 1 m at z = 0.5, in 4 x 4 squares of two triangles.
  table.mesh = abdyn::makeMeshShape(abdyn_test::boxSurface(abdyn::Vector3(1.0, 1.0, 0.05), abdyn::Vector3(0, 0, 0.475), 4),
                                    abdyn::Vector3::Ones(), 0, "table");
  b.addGeometry(table);
  const abdyn::Vector3 bar(0.3, 0.1, 0.05), cube(0.06, 0.06, 0.06);
  const abdyn::Vector3 start[3] = {{0.1, 0.05, 0.5 + 0.5 * bar.z()}, {0.1, 0.05, 0.5 + bar.z() + 0.5 * cube.z()}, {2.0, 0.0, 0.5 * cube.z()}};
  for (int k = 0; k < 3; ++k) {
    const abdyn::Vector3 size = k == 0 ? bar : cube;
    abdyn::JointSpec free;
    free.type = abdyn::JointType::Floating;
    free.name = "free" + std::to_string(k);
    const std::string name = "body" + std::to_string(k);
    const int body = b.addBody(0, free, abdyn::Plx(), abdyn::RigidBodyInertia(0.5, abdyn::Vector3::Zero(), 1e-3 * abdyn::Matrix3::Identity()), name);
    abdyn::Geometry g;
    g.name = g.link = name;
    g.body = body;
    g.shape = abdyn::ShapeType::Mesh;
    g.mesh = abdyn::makeMeshShape(abdyn_test::boxSurface(size, abdyn::Vector3::Zero(), 1), abdyn::Vector3::Ones(), 0, name);
    b.addGeometry(g);
  }
  abdyn::SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  settings.contact.world_shapes = true;
  abdyn::Simulator sim(b.build(), settings);
  for (int k = 0; k < 3; ++k) sim.q.segment<3>(7 * k) = start[k];
  for (int s = 0; s < 100; ++s) sim.step(1e-3);
  const long n = countAllocations([&] {
    for (int s = 0; s < 100; ++s) sim.step(1e-3);
  });
  // Each kind of contact is there: rows on the ground, and body contact rows of the pairs table-bar (geometries 0
  // and 1) and bar-cube (1 and 2); row_contacts.hpp numbers a pair's keys from 6 kContactPointsPerGeometry
  // (ngeometries i + j).
  const std::int64_t ngeometries = static_cast<std::int64_t>(sim.model().geometries().size());
  bool ground = false, table_bar = false, bar_cube = false;
  for (int r = 0; r < sim.rows().size(); ++r) {
    std::int64_t offset = 0;
    const abdyn::Simulator::RowSource source = abdyn::Simulator::rowSource(sim.rows()[r].key, offset);
    ground |= source == abdyn::Simulator::RowSource::GroundContact;
    if (source != abdyn::Simulator::RowSource::BodyContact) continue;
    const std::int64_t pair = offset / (6 * abdyn::kContactPointsPerGeometry);
    table_bar |= pair == 0 * ngeometries + 1;
    bar_cube |= pair == 1 * ngeometries + 2;
  }
  BOOST_TEST(ground);
  BOOST_TEST(table_bar);
  BOOST_TEST(bar_cube);
  BOOST_TEST(n == 0, n << " heap allocations in 100 steps");
}

// The constrained solvers allocate nothing once ConstrainedDynamicsData is built: forward dynamics by both
// solvers (with each stabilisation), impacts by both, and the velocity projection, on the delta robot
// (three loops, full-rank Gamma) and the four-bar (a rank-deficient Gamma: the rank-revealing path).
BOOST_AUTO_TEST_CASE(constrained_dynamics_does_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  for (const char* name : {"delta_robot.urdf", "four_bar.urdf"}) {
    ClosedWorkspace c(name);
    Eigen::VectorXd v = Eigen::VectorXd::Ones(c.model.nv());
    const Eigen::VectorXd v_minus = v;
    const Eigen::VectorXd tau = Eigen::VectorXd::Zero(c.model.nv());
    std::vector<abdyn::ConstrainedDynamicsSettings> settings(5);
    settings[4].solver = abdyn::ConstrainedSolver::Factorized;
    settings[1].solver = abdyn::ConstrainedSolver::Direct;
    settings[2].stabilisation = abdyn::Stabilisation::ErrorReduction;
    settings[2].time_step = 1e-3;
    settings[3].stabilisation = abdyn::Stabilisation::PredictedError;
    settings[3].time_step = 1e-3;
    settings[3].solver = abdyn::ConstrainedSolver::Direct;
    for (const auto& s : settings) {
      const long n = countAllocations([&] { abdyn::forwardDynamicsConstrained(c.model, c.data, c.cd, c.loops, c.q, v, tau, s); });
      BOOST_TEST(n == 0, name << ": forwardDynamicsConstrained: " << n << " heap allocations");
    }
    for (const auto& s : {settings[0], settings[1], settings[4]}) {
      const long n = countAllocations([&] { abdyn::constrainedImpact(c.model, c.data, c.cd, c.loops, c.q, v_minus, 0.5, s); });
      BOOST_TEST(n == 0, name << ": constrainedImpact: " << n << " heap allocations");
    }
    const long n = countAllocations([&] { abdyn::projectVelocities(c.model, c.data, c.cd, c.loops, c.q, v); });
    BOOST_TEST(n == 0, name << ": projectVelocities: " << n << " heap allocations");
  }
}

// A rollout allocates nothing per step and nothing per run once its workers are built (their Simulators
// copied and their rows sized by reserveRows): the humanoid ragdoll with limits and ground contacts, the
// runs falling onto the ground, on one thread, allocates nothing at all, whatever N and T; on three
// threads only the launches of the two extra threads allocate, so the count is the same for 3 runs of 5
// steps as for 6 runs of 150. (The process's first thread launches allocate more: glibc sizes thread
// storage and caches it; an uncounted call comes first.)
BOOST_AUTO_TEST_CASE(rollout_does_not_allocate_per_step) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(abdyn::test::modelPath("humanoid.urdf"), options);
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.contact.height = -0.95;  // 2 cm below the feet
  long counts[2][2] = {};
  for (const int threads : {1, 3}) {
    abdyn::RolloutWorkers workers(model, settings, threads);
    for (const int size : {0, 0, 1}) {
      const int N = size ? 6 : 3, T = size ? 150 : 5;
      abdyn::RowMatrixXd q0(N, model.nq()), v0 = abdyn::RowMatrixXd::Zero(N, model.nv());
      for (int n = 0; n < N; ++n) q0.row(n) = abdyn::neutral(model).transpose();
      v0.col(5).setConstant(-1.0);  // falling onto the ground (body z is world z at the neutral pose)
      const abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Zero(N, T * model.nv());
      abdyn::RowMatrixXd Q(N, (T + 1) * model.nq()), V(N, (T + 1) * model.nv());
      std::vector<abdyn::StepStatistics> statistics(static_cast<std::size_t>(N * T));
      counts[threads == 3][size] =
          countAllocations([&] { abdyn::rollout(workers, q0, v0, tau, T, 1e-3, Q, V, statistics.data()); });
      if (size) BOOST_TEST(statistics.back().contacts > 0);
    }
  }
  BOOST_TEST(counts[0][0] == 0);
  BOOST_TEST(counts[0][1] == 0, counts[0][1] << " heap allocations on one thread");
  BOOST_TEST(counts[1][0] == counts[1][1], counts[1][0] << " against " << counts[1][1] << " allocations on three threads");
  BOOST_TEST(counts[1][1] <= 2 * 2, counts[1][1] << " allocations for launching two threads");
}

// The batched kernels with a workspace built once: ABA, RNEA and CRBA over packs (a tail included, 13 states)
// allocate nothing, on every instruction set the machine has, on the calling thread alone and on the
// workspace's kept threads (three: blocks of 5, 4 and 4 states).
BOOST_AUTO_TEST_CASE(batched_kernels_do_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  std::mt19937 rng(3);
  const abdyn::Model model = abdyn::randomTree({10, false, true, true, true}, rng);
  const Eigen::Index n = 13;
  abdyn::RowMatrixXd Q(n, model.nq()), V = abdyn::RowMatrixXd::Random(n, model.nv()), W = abdyn::RowMatrixXd::Random(n, model.nv());
  for (Eigen::Index k = 0; k < n; ++k) Q.row(k) = abdyn::randomConfiguration(model, rng).transpose();
  abdyn::RowMatrixXd out(n, model.nv()), M(n, model.nv() * model.nv());
  for (const abdyn::BatchSimd simd : {abdyn::BatchSimd::Widest, abdyn::BatchSimd::Avx2, abdyn::BatchSimd::Portable}) {
    abdyn::setBatchSimd(simd);
    for (const int threads : {1, 3}) {
      abdyn::BatchWorkspace workspace(model, threads);
      const long count = countAllocations([&] {
        for (int call = 0; call < 3; ++call) {
          abdyn::forwardDynamicsBatch(model, workspace, Q, V, W, out);
          abdyn::inverseDynamicsBatch(model, workspace, Q, V, W, out);
          abdyn::massMatrixBatch(model, workspace, Q, M);
        }
      });
      BOOST_TEST(count == 0, count << " heap allocations with " << abdyn::batchSimdName() << " on " << threads << " threads");
    }
  }
  abdyn::setBatchSimd(abdyn::BatchSimd::Widest);
}

// The counter works: a deliberate allocation is seen.
BOOST_AUTO_TEST_CASE(counter_sees_allocations) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  const long n = countAllocations([] {
    Eigen::VectorXd x(100);
    x.setZero();
  });
  BOOST_TEST(n >= 1);
}

// The derivative calls allocate nothing after Data (and StepJacobians, and the caller's Jacobian matrices
// once sized): inverse and forward dynamics derivatives with and without external forces, the Lie-group
// Jacobians and the three step Jacobians.
BOOST_AUTO_TEST_CASE(derivatives_do_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  std::mt19937 rng(3);
  for (const bool floating : {false, true}) {
    const abdyn::Model model = abdyn::randomTree({15, false, floating, true, true}, rng);
    abdyn::Data data(model);
    abdyn::StepJacobians step(model);
    const Eigen::VectorXd q = abdyn::randomConfiguration(model, rng);
    const Eigen::VectorXd q1 = abdyn::randomConfiguration(model, rng);
    const Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
    const Eigen::VectorXd x = Eigen::VectorXd::Random(model.nv());
    const std::vector<abdyn::Force> f_ext(model.nbodies(), abdyn::Force(abdyn::Vector6::Ones()));
    Eigen::MatrixXd a(model.nv(), model.nv()), b(model.nv(), model.nv());
    const long n = countAllocations([&] {
      abdyn::inverseDynamicsDerivatives(model, data, q, v, x);
      abdyn::inverseDynamicsDerivatives(model, data, q, v, x, f_ext);
      abdyn::forwardDynamicsDerivatives(model, data, q, v, x);
      abdyn::forwardDynamicsDerivatives(model, data, q, v, x, f_ext);
      abdyn::integrateJacobians(model, q, v, 0.01, a, b);
      abdyn::differenceJacobians(model, q, q1, a, b);
      abdyn::exponentialCoordinateRateJacobians(model, x, v, a, b);
      step.explicitEuler(model, data, q, v, x, 1e-3);
      step.semiImplicitEuler(model, data, q, v, x, 1e-3);
      step.rungeKutta4(model, data, q, v, x, 1e-3);
    });
    BOOST_TEST(n == 0, (floating ? "floating" : "fixed") << " base: " << n << " heap allocations");
  }
}

// The constrained derivatives allocate nothing after their workspace is built: on the four-bar (redundant
// closure: Gamma singular, the minimum-norm branch) and the delta robot (regular Gamma), without
// stabilisation, with Baumgarte gains and with predicted error and cfm.
BOOST_AUTO_TEST_CASE(constrained_derivatives_do_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  for (const char* name : {"four_bar.urdf", "delta_robot.urdf"}) {
    ClosedWorkspace c(name);
    abdyn::ConstrainedDerivatives out(c.model, c.loops);
    const Eigen::VectorXd v = Eigen::VectorXd::Ones(c.model.nv());
    const Eigen::VectorXd tau = Eigen::VectorXd::Ones(c.model.nv());
    std::vector<abdyn::ConstrainedDynamicsSettings> settings(3);
    settings[1].baumgarte_alpha = settings[1].baumgarte_beta = 5.0;
    settings[2].stabilisation = abdyn::Stabilisation::PredictedError;
    settings[2].time_step = 1e-3;
    settings[2].cfm = 1e-6;
    for (const auto& s : settings) {
      const long n = countAllocations(
          [&] { abdyn::forwardDynamicsConstrainedDerivatives(c.model, c.data, c.cd, out, c.loops, c.q, v, tau, s); });
      BOOST_TEST(n == 0, name << ": forwardDynamicsConstrainedDerivatives: " << n << " heap allocations");
    }
  }
}

// The constrained RK4 step (four constrained solves, then both projections) and its step Jacobians allocate
// nothing once ConstrainedRungeKutta4, ConstrainedStepJacobians and ConstrainedDynamicsData are built, on the
// four-bar (rank-deficient Gamma) and the delta robot (a floating platform: the rate correction of the stages).
BOOST_AUTO_TEST_CASE(constrained_step_does_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  for (const char* name : {"four_bar.urdf", "delta_robot.urdf"}) {
    ClosedWorkspace c(name);
    abdyn::ConstrainedRungeKutta4 rk(c.model);
    abdyn::ConstrainedStepJacobians jacobians(c.model, c.loops);
    Eigen::VectorXd v = Eigen::VectorXd::Ones(c.model.nv());
    abdyn::projectVelocities(c.model, c.data, c.cd, c.loops, c.q, v);
    const Eigen::VectorXd tau = Eigen::VectorXd::Ones(c.model.nv());
    long n = countAllocations([&] { rk.step(c.model, c.data, c.cd, c.loops, c.q, v, tau, 1e-3); });
    BOOST_TEST(n == 0, name << ": ConstrainedRungeKutta4::step: " << n << " heap allocations");
    n = countAllocations([&] { jacobians.rungeKutta4(c.model, c.data, c.cd, c.loops, c.q, v, tau, 1e-3); });
    BOOST_TEST(n == 0, name << ": ConstrainedStepJacobians::rungeKutta4: " << n << " heap allocations");
  }
}

// SimulatorStepJacobians::step (a Simulator step, then its Jacobians with the active set held) allocates
// nothing once it has differentiated a step with as many rows and free rows: a ball on the ground (a
// normal row and two friction rows) tied by a distance joint of rows to a point 1 m beside it.
BOOST_AUTO_TEST_CASE(simulator_step_jacobians_do_not_allocate) {
  if (!ABDYN_COUNTS_ALLOCATIONS) return;
  abdyn::ModelBuilder b("ball");
  abdyn::JointSpec free;
  free.type = abdyn::JointType::Floating;
  free.name = "free";
  const int body = b.addBody(0, free, abdyn::Plx(),
                             abdyn::RigidBodyInertia(1.0, abdyn::Vector3(0, 0, -0.05), abdyn::Matrix3::Identity() * 4e-3), "ball");
  abdyn::Geometry g;
  g.name = "ball_collision";
  g.link = "ball";
  g.body = body;
  g.shape = abdyn::ShapeType::Sphere;
  g.size = abdyn::Vector3(0.1, 0, 0);
  b.addGeometry(g);
  abdyn::SimulatorSettings settings;
  settings.ground = true;
  settings.contact.mu = 0.2;
  abdyn::Simulator sim(b.build(), settings);
  sim.joints.push_back(abdyn::RowJoint{abdyn::RowJointType::Distance, 0, 1, abdyn::Plx::translation(abdyn::Vector3(1.0, 0, 0.098)),
                                       abdyn::Plx(), 1.0});
  sim.reserveRows();
  sim.q[2] = 0.098;
  sim.v[3] = 0.3;
  const Eigen::VectorXd q = sim.q, v = sim.v;
  abdyn::SimulatorStepJacobians jacobians(sim);
  jacobians.step(sim, 1e-3);
  const std::vector<abdyn::RowActivity> activity = jacobians.activity();
  sim.q = q;
  sim.v = v;
  const long n = countAllocations([&] { jacobians.step(sim, 1e-3); });
  BOOST_TEST((jacobians.activity() == activity));
  BOOST_TEST(n == 0, "SimulatorStepJacobians::step: " << n << " heap allocations");
}
