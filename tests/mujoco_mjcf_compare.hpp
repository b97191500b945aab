#pragma once
// abdyn's model of an MJCF file against MuJoCo's (Debian's libmujoco, 2.2.2) at random states: the mass
// matrix (mj_fullM), the bias forces (qfrc_bias) and the smooth acceleration (qacc_smooth, with random
// qfrc_applied and MuJoCo's passive forces), MuJoCo's actuation and constraints disabled. Shared by
// tests/test_reference_mujoco_mjcf.cpp and the comparison tool tests/mjcf_compare.cpp.
//
// The layouts: q is MuJoCo's qpos and joints are in MuJoCo's order; only free joints differ in v. For a
// free joint with orientation R (body in world), MuJoCo's qvel = T v with T = [0 R; 1 0] (world linear
// velocity first, then the body-frame angular velocity) for abdyn's v = [w; v_o] (body coordinates). So
//   M_abdyn = T^T M_mujoco T,   tau_abdyn = T^T qfrc,   qacc = T qdd + dT/dt v,
// with dT/dt v = (R (w x v_o), 0) on the free joint's coordinates.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include <Eigen/Eigenvalues>
#include <mujoco/mujoco.h>

#include "abdyn/abdyn.hpp"

namespace abdyn::test {

struct MujocoComparison {
  bool loaded_abdyn = false, loaded_mujoco = false;
  std::string error;        // why one of them did not load, or the layouts differ
  double mass_matrix = 0.0;   // worst max |dM| / max |M|
  double bias = 0.0;          // worst max |db| / max(1, max |b|)
  double acceleration = 0.0;  // worst max |dqdd| / max(1, max |qdd|)
  double principal_axes = 0.0;  // with exact_axes: the largest change of MuJoCo's body inertia tensors
};

namespace detail {

// T (nv x nv): abdyn's v to MuJoCo's qvel at q.
inline Eigen::MatrixXd velocityMap(const Model& model, const Eigen::VectorXd& q) {
  Eigen::MatrixXd T = Eigen::MatrixXd::Identity(model.nv(), model.nv());
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (j.type != JointType::Floating) continue;
    const double* w = q.data() + j.idx_q + 3;
    const Matrix3 R = Eigen::Quaterniond(w[0], w[1], w[2], w[3]).normalized().toRotationMatrix();
    auto block = T.block(j.idx_v, j.idx_v, 6, 6);
    block.setZero();
    block.topRightCorner<3, 3>() = R;                        // qvel linear (world) = R v_o
    block.bottomLeftCorner<3, 3>() = Matrix3::Identity();   // qvel angular = w
  }
  return T;
}

// dT/dt v on the free joints' coordinates.
inline Eigen::VectorXd velocityMapRate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Eigen::VectorXd r = Eigen::VectorXd::Zero(model.nv());
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (j.type != JointType::Floating) continue;
    const double* w = q.data() + j.idx_q + 3;
    const Matrix3 R = Eigen::Quaterniond(w[0], w[1], w[2], w[3]).normalized().toRotationMatrix();
    const Vector3 omega = v.segment<3>(j.idx_v), vo = v.segment<3>(j.idx_v + 3);
    r.segment<3>(j.idx_v) = R * omega.cross(vo);
  }
  return r;
}

inline double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double floor) {
  if (a.size() == 0) return 0.0;
  return (a - b).cwiseAbs().maxCoeff() / std::max(floor, b.cwiseAbs().maxCoeff());
}

}  // namespace detail

/// MuJoCo 2.2.2 diagonalises fullinertia and multi-geom body inertias by a Jacobi iteration that stops at
/// 1e-12 (absolute) off-diagonal entries; abdyn keeps the exact tensor. This replaces MuJoCo's principal
/// moments and axes (body_inertia, body_iquat) by the exact ones of abdyn's tensor, on every body that
/// is one abdyn body (same name, mass within 1e-9 relative), so that what remains is the rest of the model.
/// A mesh geom's mass also depends on that diagonalisation by default (MuJoCo 2.2.2 weighs it by the volume
/// of the box with the mesh's principal moments): the mass is replaced by abdyn's too. Returns the largest
/// change of a tensor entry (kg m^2).
inline double useExactPrincipalAxes(const Model& model, mjModel* m) {
  double change = 0.0;
  for (int b = 1; b < m->nbody; ++b) {
    const char* name = mj_id2name(m, mjOBJ_BODY, b);
    if (name == nullptr || m->body_jntnum[b] == 0) continue;
    int i = -1;
    for (int k = 1; k < model.nbodies(); ++k) {
      if (model.bodyName(k) == name) i = k;
    }
    if (i < 0 || std::abs(model.inertia(i).mass() - m->body_mass[b]) > 1e-9 * m->body_mass[b]) continue;
    m->body_mass[b] = model.inertia(i).mass();
    // The abdyn body's axes are the MuJoCo body's (its frame is only moved to the last joint's anchor).
    const Matrix3 I = model.inertia(i).inertiaAboutCom();
    const double* q = m->body_iquat + 4 * b;
    const Matrix3 R_mj = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
    const Matrix3 I_mj = R_mj * Eigen::Map<const Vector3>(m->body_inertia + 3 * b).asDiagonal() * R_mj.transpose();
    change = std::max(change, (I - I_mj).cwiseAbs().maxCoeff());
    const Eigen::SelfAdjointEigenSolver<Matrix3> eig(I);
    Matrix3 axes = eig.eigenvectors();
    if (axes.determinant() < 0) axes.col(2) = -axes.col(2);
    const Eigen::Quaterniond exact(axes);
    m->body_iquat[4 * b] = exact.w();
    m->body_iquat[4 * b + 1] = exact.x();
    m->body_iquat[4 * b + 2] = exact.y();
    m->body_iquat[4 * b + 3] = exact.z();
    Eigen::Map<Vector3>(m->body_inertia + 3 * b) = eig.eigenvalues();
  }
  return change;
}

/// Loads `path` with both libraries and compares them at `states` random states drawn from `rng`; with
/// `exact_axes`, after useExactPrincipalAxes (the change it made in MujocoComparison::principal_axes).
inline MujocoComparison compareMjcfWithMujoco(const std::string& path, int states, std::mt19937& rng,
                                              bool exact_axes = false) {
  MujocoComparison out;
  Model model;
  try {
    model = loadMjcf(path);
    out.loaded_abdyn = true;
  } catch (const std::exception& e) {
    out.error = std::string("abdyn: ") + e.what();
  }
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  out.loaded_mujoco = m != nullptr;
  if (m == nullptr) {
    out.error = std::string("MuJoCo: ") + error;
    return out;
  }
  if (!out.loaded_abdyn) {
    mj_deleteModel(m);
    return out;
  }
  if (m->nq != model.nq() || m->nv != model.nv() || m->njnt != model.nbodies() - 1) {
    out.error = "layouts differ: MuJoCo nq " + std::to_string(m->nq) + " nv " + std::to_string(m->nv) + ", abdyn nq " +
                std::to_string(model.nq()) + " nv " + std::to_string(model.nv());
    mj_deleteModel(m);
    return out;
  }
  for (int j = 0; j < m->njnt; ++j) {
    const Joint& aj = model.joint(j + 1);
    const char* name = mj_id2name(m, mjOBJ_JOINT, j);
    if (m->jnt_qposadr[j] != aj.idx_q || m->jnt_dofadr[j] != aj.idx_v || (name != nullptr && aj.name != name)) {
      out.error = "joint " + std::to_string(j) + " ('" + aj.name + "') is not at MuJoCo's place";
      mj_deleteModel(m);
      return out;
    }
  }
  if (exact_axes) out.principal_axes = useExactPrincipalAxes(model, m);
  m->opt.disableflags |= mjDSBL_ACTUATION | mjDSBL_CONSTRAINT;
  mjData* d = mj_makeData(m);
  Data data(model);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto uniform = [&](int n) {
    Eigen::VectorXd x(n);
    for (int k = 0; k < n; ++k) x(k) = u(rng);
    return x;
  };
  DynamicsOptions no_passive;
  no_passive.damping = false;
  no_passive.springs = false;
  const int nv = model.nv();
  Eigen::MatrixXd M_mujoco(nv, nv);
  for (int s = 0; s < states; ++s) {
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = uniform(nv);
    const Eigen::VectorXd qfrc = uniform(nv);
    const Eigen::MatrixXd T = detail::velocityMap(model, q);
    Eigen::Map<Eigen::VectorXd>(d->qpos, m->nq) = q;
    Eigen::Map<Eigen::VectorXd>(d->qvel, nv) = T * v;
    Eigen::Map<Eigen::VectorXd>(d->qfrc_applied, nv) = qfrc;
    mj_forward(m, d);
    if (nv > 0) mj_fullM(m, M_mujoco.data(), d->qM);  // row-major, symmetric
    const Eigen::MatrixXd M_expected = T.transpose() * M_mujoco * T;
    const Eigen::VectorXd Tdot_v = detail::velocityMapRate(model, q, v);
    const Eigen::VectorXd bias_expected =
        T.transpose() * (Eigen::Map<const Eigen::VectorXd>(d->qfrc_bias, nv) + M_mujoco * Tdot_v);
    const Eigen::VectorXd qacc = Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, nv);
    // qdd = T^-1 (qacc - dT/dt v).
    const Eigen::VectorXd qdd_expected = T.partialPivLu().solve(qacc - Tdot_v);
    const Eigen::MatrixXd& M = massMatrix(model, data, q);
    out.mass_matrix = std::max(out.mass_matrix, detail::relative(M, M_expected, 0.0));
    const Eigen::VectorXd b = nonlinearEffects(model, data, q, v, no_passive);
    out.bias = std::max(out.bias, detail::relative(b, bias_expected, 1.0));
    const Eigen::VectorXd qdd = forwardDynamics(model, data, q, v, T.transpose() * qfrc);
    out.acceleration = std::max(out.acceleration, detail::relative(qdd, qdd_expected, 1.0));
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return out;
}

}  // namespace abdyn::test
