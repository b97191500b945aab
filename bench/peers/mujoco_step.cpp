// MuJoCo in bench_step_peers: the scene's URDF compiled by MuJoCo (as in bench_peers), saved as MJCF,
// given a ground plane and compiled again; then stepped by mj_step (semi-implicit Euler, joint damping
// implicit). Two variants: "mujoco" with MuJoCo's default solver (Newton, up to 100 iterations, soft
// contacts with its default solref/solimp) and "mujoco_pgs" with its PGS solver at the scene's
// iteration count. The joint limits, damping and Coulomb friction (frictionloss) and the friction
// coefficient are set from the scene, not left to MuJoCo's URDF reader; shapes touch only the ground
// (contype 1 / conaffinity 0 on the robot, the reverse on the plane), as in abdyn's scene.
//
// A hinge between bodies (StepHinge) becomes two `connect` equality constraints at two points of its
// axis. MuJoCo's equality constraints are soft; they get the stiffest setting MuJoCo allows at this
// step: solref = (2 h, 1) (time constant of two steps, the least MuJoCo's refsafe accepts; critically
// damped) and solimp = (0.99, 0.999, 0.001) (impedance near 1: 99.9% of the constraint force at 1 mm).

#include <mujoco/mujoco.h>

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mujoco_load.hpp"
#include "step_scene.hpp"

namespace abdyn_bench {

namespace {

using Data = std::unique_ptr<mjData, decltype(&mj_deleteData)>;

std::string toString(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// Two connect constraints per hinge, at its origin -+ hinge_half_span along its axis; MuJoCo's anchor is
// in body1's frame (the URDF link frame, as abdyn's body frame) and its body2 point is where the anchor
// lies at qpos0, the scene's closed zero configuration.
std::string hingeConnects(const StepScene& scene) {
  std::ostringstream out;
  out.precision(17);
  out << "<equality>";
  for (const StepHinge& hinge : scene.hinges) {
    for (const double side : {-scene.hinge_half_span, scene.hinge_half_span}) {
      out << "<connect body1=\"" << scene.bodies[static_cast<std::size_t>(hinge.body_a)].name << "\" body2=\""
          << scene.bodies[static_cast<std::size_t>(hinge.body_b)].name << "\" anchor=\"";
      for (int k = 0; k < 3; ++k) out << (k ? " " : "") << hinge.p_a[k] + side * hinge.axis_a[k];
      out << "\" solref=\"" << 2 * scene.h << " 1\" solimp=\"0.99 0.999 0.001\"/>";
    }
  }
  out << "</equality>";
  return out.str();
}

// The scene as MJCF: MuJoCo's own translation of the URDF plus a ground plane named "abdyn_ground" and,
// with `motors`, one motor per revolute joint (gear 1, no control limits), so that ctrl is the joint force.
MujocoModel loadScene(const StepScene& scene, std::string& error, std::string& note, bool motors = false) {
  MujocoModel none(nullptr, mj_deleteModel);
  std::string urdf = mujocoUrdf(scene.problem, false, error);
  if (!error.empty()) return none;
  MujocoModel tree = loadMujocoText(urdf, "model.urdf", error);
  if (!tree) {
    // Massless moving bodies (a universal joint's cross) need the compiler's repair, as in bench_peers.
    note = "compiler repairs on (" + error + ")";
    error.clear();
    urdf = mujocoUrdf(scene.problem, true, error);
    if (error.empty()) tree = loadMujocoText(urdf, "model.urdf", error);
  }
  if (!tree) return none;
  char path[] = "/tmp/abdyn_bench_step_XXXXXX.xml";
  const int fd = mkstemps(path, 4);
  if (fd < 0) {
    error = "cannot create a temporary file";
    return none;
  }
  close(fd);
  char message[1000] = "";
  const int saved = mj_saveLastXML(path, tree.get(), message, sizeof message);
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::remove(path);
  if (!saved) {
    error = std::string("mj_saveLastXML: ") + message;
    return none;
  }
  std::string mjcf = text.str();
  const auto world = mjcf.find("<worldbody>");
  if (world == std::string::npos) {
    error = "no <worldbody> in MuJoCo's MJCF";
    return none;
  }
  if (scene.ground) {
    std::ostringstream ground;
    ground.precision(17);
    ground << "<geom name=\"abdyn_ground\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 " << scene.ground_height << "\"/>";
    mjcf.insert(world + std::string("<worldbody>").size(), ground.str());
  }
  if (!scene.hinges.empty()) mjcf.insert(mjcf.rfind("</mujoco>"), hingeConnects(scene));
  if (motors) {
    std::string actuators = "<actuator>";
    for (const StepBody& b : scene.bodies) {
      if (!b.joint.floating) actuators += "<motor joint=\"" + b.joint.name + "\" ctrllimited=\"false\"/>";
    }
    mjcf.insert(mjcf.rfind("</mujoco>"), actuators + "</actuator>");
  }
  if (!note.empty()) {
    // The saved MJCF holds the URDF's inertias, not the repaired ones: repair again.
    const auto root = mjcf.find('>', mjcf.find("<mujoco"));
    mjcf.insert(root + 1, "<compiler balanceinertia=\"true\" boundmass=\"1e-9\" boundinertia=\"1e-12\"/>");
  }
  return loadMujocoText(mjcf, "scene.xml", error);
}

struct MujocoScene {
  MujocoModel model{nullptr, mj_deleteModel};
  Layout layout;
  std::vector<mjtNum> q0, v0, tau;  // tau: the scene's constant joint forces (qfrc_applied), may be empty
};

void setState(const mjModel* m, mjData* d, const MujocoScene& s) {
  mj_resetData(m, d);
  mju_copy(d->qpos, s.q0.data(), m->nq);
  mju_copy(d->qvel, s.v0.data(), m->nv);
  if (!s.tau.empty()) mju_copy(d->qfrc_applied, s.tau.data(), m->nv);
}

// The scene's options on MuJoCo's model (gravity, step, contact pairs, friction, the joints' damping,
// frictionloss and limits) and the layout between abdyn's coordinates and MuJoCo's; returns an error or "".
std::string configureScene(const StepScene& scene, mjModel* m, Layout& layout) {
  for (int k = 0; k < 3; ++k) m->opt.gravity[k] = scene.problem.gravity[k];
  m->opt.timestep = scene.h;
  const int ground = mj_name2id(m, mjOBJ_GEOM, "abdyn_ground");
  for (int g = 0; g < m->ngeom; ++g) {
    m->geom_contype[g] = g == ground ? 0 : 1;
    m->geom_conaffinity[g] = g == ground ? 1 : 0;
    m->geom_friction[3 * g] = scene.mu;  // MuJoCo takes the larger of the two
  }
  for (const StepBody& b : scene.bodies) {
    const int id = mj_name2id(m, mjOBJ_JOINT, b.joint.name.c_str());
    if (id < 0) return "no joint " + b.joint.name;
    const int iq = m->jnt_qposadr[id], iv = m->jnt_dofadr[id];
    if (b.joint.floating) {
      layout.mapFloating(b.joint, {iq, iq + 1, iq + 2, iq + 3, iq + 4, iq + 5, iq + 6}, {iv, iv + 1, iv + 2},
                         {iv + 3, iv + 4, iv + 5}, true);
      continue;
    }
    layout.mapJoint(b.joint, iq, iv);
    m->dof_damping[iv] = b.damping;
    m->dof_frictionloss[iv] = b.friction;
    m->jnt_limited[id] = b.lower < b.upper;
    m->jnt_range[2 * id] = b.lower;
    m->jnt_range[2 * id + 1] = b.upper;
  }
  return layout.check();
}

// RolloutRun/<scene>/<library>/threads:k: the rollout batch (step_scene.hpp) driven from C as abdyn::rollout
// runs it: the runs split into contiguous blocks, one std::thread per block beyond the caller's, each with
// its own mjData made once outside the timing and reset per run (mj_resetData). Real time and process CPU time.
void registerRollout(const std::shared_ptr<MujocoScene>& s, const StepScene& scene, const std::string& library) {
  benchmark::RegisterBenchmark(("RolloutRun/" + scene.label + "/" + library).c_str(), [s, &scene](benchmark::State& state) {
    const mjModel* model = s->model.get();
    const int threads = static_cast<int>(state.range(0)), N = kRolloutRuns, T = scene.steps;
    std::vector<Data> data;
    for (int k = 0; k < threads; ++k) data.emplace_back(mj_makeData(model), mj_deleteData);
    std::vector<std::vector<mjtNum>> q_end(N, std::vector<mjtNum>(static_cast<std::size_t>(model->nq)));
    const auto block = [&](int k) {
      mjData* d = data[static_cast<std::size_t>(k)].get();
      for (int n = k * N / threads; n < (k + 1) * N / threads; ++n) {
        setState(model, d, *s);
        mju_scl(d->qvel, d->qvel, rolloutScale(n), model->nv);
        mju_scl(d->qfrc_applied, d->qfrc_applied, rolloutScale(n), model->nv);
        for (int t = 0; t < T; ++t) mj_step(model, d);
        mju_copy(q_end[static_cast<std::size_t>(n)].data(), d->qpos, model->nq);
      }
    };
    for (auto _ : state) {
      std::vector<std::thread> others;
      for (int k = 1; k < threads; ++k) others.emplace_back(block, k);
      block(0);
      for (std::thread& t : others) t.join();
      benchmark::DoNotOptimize(q_end.data());
    }
    state.counters["steps_per_second"] =
        benchmark::Counter(static_cast<double>(N) * T * state.iterations(), benchmark::Counter::kIsRate);
  })->Arg(1)->Arg(2)->ArgName("threads")->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

std::vector<StepReport> addMujocoStep(const StepScene& scene) {
  StepReport fail;
  fail.library = "mujoco";
  std::string repair;
  auto base = std::make_shared<MujocoScene>(MujocoScene{loadScene(scene, fail.error, repair), Layout(scene.problem), {}, {}, {}});
  if (!base->model) return {fail};
  mjModel* m = base->model.get();
  fail.error = configureScene(scene, m, base->layout);
  if (!fail.error.empty()) return {fail};
  base->q0 = base->layout.configuration(scene.q0);
  base->v0 = base->layout.velocity(scene.q0, scene.v0);
  if (!scene.tau.empty()) base->tau = base->layout.force(scene.q0, scene.tau);

  // The model check: accelerations at (q_check, v_check) with the constraint solver and passive forces off.
  std::vector<double> free_qdd;
  {
    const int flags = m->opt.disableflags;
    m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE;
    Data d(mj_makeData(m), mj_deleteData);
    mj_resetData(m, d.get());
    const std::vector<double> q = base->layout.configuration(scene.q_check);
    const std::vector<double> v = base->layout.velocity(scene.q_check, scene.v_check);
    mju_copy(d->qpos, q.data(), m->nq);
    mju_copy(d->qvel, v.data(), m->nv);
    mj_forward(m, d.get());
    free_qdd = base->layout.accelerationFromPeer(scene.q_check, scene.v_check, {d->qacc, d->qacc + m->nv});
    zeroFloating(scene, free_qdd);
    m->opt.disableflags = flags;
  }

  std::vector<StepReport> reports;
  for (const bool pgs : {false, true}) {
    auto s = std::make_shared<MujocoScene>(MujocoScene{MujocoModel(mj_copyModel(nullptr, m), mj_deleteModel), base->layout,
                                                       base->q0, base->v0, base->tau});
    mjModel* model = s->model.get();
    StepReport report;
    report.library = pgs ? "mujoco_pgs" : "mujoco";
    if (pgs) {
      model->opt.solver = mjSOL_PGS;
      model->opt.iterations = scene.iterations;
    }
    report.note = std::string(pgs ? "PGS" : "Newton") + " solver, " + std::to_string(model->opt.iterations) +
                  " iterations at most, tolerance " + toString(model->opt.tolerance) + ", MuJoCo " + mj_versionString() +
                  (repair.empty() ? "" : "; " + repair);
    report.free_qdd = free_qdd;
    {
      Data d(mj_makeData(model), mj_deleteData);
      setState(model, d.get(), *s);
      long contacts = 0;
      for (int k = 0; k < scene.steps; ++k) {
        mj_step(model, d.get());
        contacts += d->ncon;
      }
      report.q_end = s->layout.configurationFromPeer({d->qpos, d->qpos + model->nq});
      report.v_end = s->layout.velocityFromPeer(report.q_end, {d->qvel, d->qvel + model->nv});
      report.mean_contacts = static_cast<double>(contacts) / scene.steps;
    }
    benchmark::RegisterBenchmark(("StepRun/" + scene.label + "/" + report.library).c_str(), [s, &scene](benchmark::State& state) {
      const mjModel* model = s->model.get();
      Data d(mj_makeData(model), mj_deleteData);
      for (auto _ : state) {
        state.PauseTiming();
        setState(model, d.get(), *s);
        state.ResumeTiming();
        for (int k = 0; k < scene.steps; ++k) mj_step(model, d.get());
        benchmark::DoNotOptimize(d->qpos);
      }
      state.counters["per_step"] = benchmark::Counter(static_cast<double>(scene.steps) * state.iterations(),
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    });
    registerRollout(s, scene, report.library);
    reports.push_back(std::move(report));
  }
  return reports;
}

TransitionCheck addMujocoTransition(const StepScene& scene, const std::string& label, const std::vector<double>& q,
                                    const std::vector<double>& v) {
  TransitionCheck check;
  check.library = "mujoco";
  std::string repair;
  auto s = std::make_shared<MujocoScene>(MujocoScene{loadScene(scene, check.error, repair, true), Layout(scene.problem), {}, {}, {}});
  if (!s->model) return check;
  mjModel* m = s->model.get();
  check.error = configureScene(scene, m, s->layout);
  if (!check.error.empty()) return check;
  s->q0 = s->layout.configuration(q);
  s->v0 = s->layout.velocity(q, v);
  if (!scene.tau.empty()) s->tau = s->layout.force(q, scene.tau);
  const int n = 2 * m->nv + m->na, nu = m->nu;
  // A and B at eps and at 10 eps: their difference estimates the error of the centred differences.
  std::vector<mjtNum> A[2], B[2];
  for (int k = 0; k < 2; ++k) {
    Data d(mj_makeData(m), mj_deleteData);
    setState(m, d.get(), *s);
    mj_forward(m, d.get());
    A[k].resize(static_cast<std::size_t>(n) * n);
    B[k].resize(static_cast<std::size_t>(n) * nu);
    mjd_transitionFD(m, d.get(), k == 0 ? kTransitionEps : 10 * kTransitionEps, 1, A[k].data(), B[k].data(), nullptr, nullptr);
  }
  check.difference = transitionDifference(A[0], B[0], A[1], B[1], n);
  check.note = "mjd_transitionFD, centred, eps " + toString(kTransitionEps) + ", " + std::to_string(nu) +
               " motors; the difference is to eps " + toString(10 * kTransitionEps) + (repair.empty() ? "" : "; " + repair);
  benchmark::RegisterBenchmark(("TransitionJacobians/" + label + "/mujoco").c_str(), [s, n, nu](benchmark::State& state) {
    const mjModel* m = s->model.get();
    Data d(mj_makeData(m), mj_deleteData);
    setState(m, d.get(), *s);
    mj_forward(m, d.get());
    std::vector<mjtNum> A(static_cast<std::size_t>(n) * n), B(static_cast<std::size_t>(n) * nu);
    for (auto _ : state) {
      mjd_transitionFD(m, d.get(), kTransitionEps, 1, A.data(), B.data(), nullptr, nullptr);
      benchmark::DoNotOptimize(A.data());
    }
  })->Unit(benchmark::kMicrosecond);
  return check;
}

}  // namespace abdyn_bench
