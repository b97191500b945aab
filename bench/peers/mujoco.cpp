// MuJoCo in bench_peers, on the URDF file loaded by mj_loadXML. Timed call chains:
//   ABA   copy qpos, qvel, qfrc_applied in; mj_fwdPosition, mj_fwdVelocity, mj_fwdActuation,
//         mj_fwdAcceleration, mj_fwdConstraint (mj_forward without its sensor and energy stages):
//         qacc by the mass matrix's sparse L^T D L factorisation, not by an articulated-body pass;
//   RNEA  copy qpos, qvel, qacc in; mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc = 1);
//   CRBA  copy qpos in; mj_kinematics, mj_comPos, mj_crb (qM, MuJoCo's sparse storage).
// Everything that is not rigid-body dynamics is off: the constraint solver (contacts, limits,
// equalities, friction loss), passive forces (dof_damping is also set to 0: URDF <dynamics damping>
// becomes MuJoCo damping, which abdyn, Pinocchio and RBDL leave out here), and actuation (the URDF
// has no actuators). The file is given to MuJoCo with a <mujoco><compiler inertiafromgeom="false"/>
// section, so that links without <inertial> stay massless as in the other libraries, and, for a
// floating base, with a "world" link and a floating joint "root_joint" to the root link, which
// MuJoCo's URDF reader turns into a free joint: q = [x y z qw qx qy qz], v = [linear velocity in the
// world; angular velocity in the root-body frame].
// MuJoCo's compiler rejects inertias that violate the triangle inequality and massless moving bodies,
// which the other libraries accept. For such a file the compiler is asked to repair them
// (balanceinertia, boundmass 1e-9, boundinertia 1e-12): the model is timed, and the agreement check
// shows how far the repair moved its results.

#include <mujoco/mujoco.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mujoco_load.hpp"
#include "peer.hpp"

namespace abdyn_bench {

namespace {

struct MujocoCase {
  MujocoModel model{nullptr, mj_deleteModel};
  std::vector<std::vector<mjtNum>> q, v, tau, qdd;
};

MujocoModel loadModel(const Problem& problem, bool repair, std::string& error) {
  const std::string xml = mujocoUrdf(problem, repair, error);
  if (!error.empty()) return {nullptr, mj_deleteModel};
  return loadMujocoText(xml, "model.urdf", error);
}

using Data = std::unique_ptr<mjData, decltype(&mj_deleteData)>;

// State s's positions and velocities into d.
void setState(const mjModel* m, mjData* d, const MujocoCase& c, int s) {
  mju_copy(d->qpos, c.q[s].data(), m->nq);
  mju_copy(d->qvel, c.v[s].data(), m->nv);
}

void forward(const mjModel* m, mjData* d, const MujocoCase& c, int s) {
  setState(m, d, c, s);
  mju_copy(d->qfrc_applied, c.tau[s].data(), m->nv);
  mj_fwdPosition(m, d);
  mj_fwdVelocity(m, d);
  mj_fwdActuation(m, d);
  mj_fwdAcceleration(m, d);
  mj_fwdConstraint(m, d);
}

void inverse(const mjModel* m, mjData* d, const MujocoCase& c, int s, mjtNum* tau) {
  setState(m, d, c, s);
  mju_copy(d->qacc, c.qdd[s].data(), m->nv);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_comVel(m, d);
  mj_rne(m, d, 1, tau);
}

void massMatrix(const mjModel* m, mjData* d, const MujocoCase& c, int s) {
  mju_copy(d->qpos, c.q[s].data(), m->nq);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_crb(m, d);
}

}  // namespace

std::vector<PeerReport> addMujoco(const Problem& problem) {
  if (!problem.closures.empty()) {
    return {{"mujoco", "not timed: MuJoCo's equality constraints are soft (solref, solimp), another problem", {}, {}}};
  }
  auto c = std::make_shared<MujocoCase>();
  std::string error, note;
  c->model = loadModel(problem, false, error);
  if (!c->model) {
    note = "compiler repairs on (" + error + ")";
    error.clear();
    c->model = loadModel(problem, true, error);
  }
  if (!c->model) return {{"mujoco", error, {}, {}}};
  mjModel* m = c->model.get();
  m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_EQUALITY | mjDSBL_FRICTIONLOSS | mjDSBL_LIMIT | mjDSBL_CONTACT |
                         mjDSBL_PASSIVE | mjDSBL_ACTUATION;
  for (int k = 0; k < m->nv; ++k) m->dof_damping[k] = 0;
  for (int k = 0; k < 3; ++k) m->opt.gravity[k] = problem.gravity[k];

  Layout layout(problem);
  if (m->nq != problem.nq || m->nv != problem.nv) error = "the model's nq, nv differ from abdyn's";
  for (const JointSlice& joint : problem.joints) {
    if (!error.empty()) break;
    const int id = mj_name2id(m, mjOBJ_JOINT, joint.name.c_str());
    if (id < 0) {
      error = "no joint " + joint.name;
      break;
    }
    const int iq = m->jnt_qposadr[id], iv = m->jnt_dofadr[id];
    if (joint.floating) {
      if (m->jnt_type[id] != mjJNT_FREE) {
        error = joint.name + " is not a free joint";
        break;
      }
      layout.mapFloating(joint, {iq, iq + 1, iq + 2, iq + 3, iq + 4, iq + 5, iq + 6}, {iv, iv + 1, iv + 2},
                         {iv + 3, iv + 4, iv + 5}, true);
    } else if (m->jnt_type[id] != mjJNT_HINGE && m->jnt_type[id] != mjJNT_SLIDE) {
      error = "joint " + joint.name + " is not one-DoF in MuJoCo";
    } else {
      layout.mapJoint(joint, iq, iv);
    }
  }
  if (error.empty()) error = layout.check();
  if (!error.empty()) return {{"mujoco", error, {}, {}}};

  for (int s = 0; s < kStates; ++s) {
    c->q.push_back(layout.configuration(problem.q[s]));
    c->v.push_back(layout.velocity(problem.q[s], problem.v[s]));
    c->tau.push_back(layout.force(problem.q[s], problem.tau[s]));
    c->qdd.push_back(layout.acceleration(problem.q[s], problem.v[s], problem.qdd[s]));
  }

  PeerReport report{"mujoco", {}, note, {}};
  {
    Data d(mj_makeData(m), mj_deleteData);
    forward(m, d.get(), *c, 0);
    report.outputs.qdd = layout.accelerationFromPeer(problem.q[0], problem.v[0], {d->qacc, d->qacc + m->nv});
    std::vector<mjtNum> tau(m->nv);
    inverse(m, d.get(), *c, 0, tau.data());
    report.outputs.tau = layout.forceFromPeer(problem.q[0], tau);
    massMatrix(m, d.get(), *c, 0);
    std::vector<mjtNum> M(static_cast<std::size_t>(m->nv) * m->nv);
    mj_fullM(m, M.data(), d->qM);  // row-major; M is symmetric
    report.outputs.mass_matrix = layout.massMatrixFromPeer(problem.q[0], M);
  }

  const auto add = [&](const std::string& algorithm, auto call) {
    benchmark::RegisterBenchmark((algorithm + "/" + problem.label + "/mujoco").c_str(), [c, call](benchmark::State& state) {
      const mjModel* model = c->model.get();
      Data d(mj_makeData(model), mj_deleteData);
      std::vector<mjtNum> out(model->nv);
      int s = 0;
      for (auto _ : state) {
        call(model, d.get(), *c, s, out.data());
        benchmark::ClobberMemory();
        s = (s + 1) % kStates;
      }
    });
  };
  add("ABA", [](const mjModel* model, mjData* d, const MujocoCase& p, int s, mjtNum*) {
    forward(model, d, p, s);
    benchmark::DoNotOptimize(d->qacc);
  });
  add("RNEA", [](const mjModel* model, mjData* d, const MujocoCase& p, int s, mjtNum* out) {
    inverse(model, d, p, s, out);
    benchmark::DoNotOptimize(out);
  });
  add("CRBA", [](const mjModel* model, mjData* d, const MujocoCase& p, int s, mjtNum*) {
    massMatrix(model, d, p, s);
    benchmark::DoNotOptimize(d->qM);
  });
  return {report};
}

}  // namespace abdyn_bench
