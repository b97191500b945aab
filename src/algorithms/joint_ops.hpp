#pragma once
// Per-joint products shared by the algorithms, with the one-DoF case on fixed-size vectors (a
// dynamic-size 6 x nv product costs more than the arithmetic it does).

#include "abdyn/model/model.hpp"

namespace abdyn::internal {

/// S_i x_i: the motion of joint i's coordinates x (a v-sized vector: velocity or acceleration). A product
/// even where S = +-e_k: a pick (one entry of a zeroed 6-vector, at a run-time index) measured RNEA 1.27-1.44
/// times slower in an interleaved run; not understood.
inline Motion jointMotion(const Model& model, const Joint& j, const Eigen::VectorXd& x) {
  if (j.nv == 1) return Motion(Vector6(model.motionSubspace().col(j.idx_v) * x[j.idx_v]));
  return Motion(Vector6(model.motionSubspace().middleCols(j.idx_v, j.nv) * x.segment(j.idx_v, j.nv)));
}

/// tau_i = S_i^T f. A product even where S = +-e_k, as ArticulatedStep::bias: when velocity products
/// overflow, f's other components are infinite, and 0 * inf = NaN is what lets the simulator report the
/// divergence (test_simulator's divergence_is_a_clear_error, factorised response); a pick carries on.
inline void projectForce(const Model& model, const Joint& j, const Force& f, Eigen::VectorXd& tau) {
  if (j.nv == 1) {
    tau[j.idx_v] = model.motionSubspace().col(j.idx_v).dot(f.vector());
  } else {
    tau.segment(j.idx_v, j.nv).noalias() = model.motionSubspace().middleCols(j.idx_v, j.nv).transpose() * f.vector();
  }
}

/// Adds sign times the velocity product of a floating joint's armature, a (w x v) on its linear rows, to
/// tau_joint (the joint's nv entries); nothing for other joints. Armature a on all six coordinates of a
/// floating joint is the spatial inertia a 1 carried by the child at its origin (kinetic energy
/// a (|w|^2 + |v|^2) / 2, whatever frame v is expressed in), whose bias force v x* (a 1 v) is
/// [0; a w x v]: MuJoCo's free-joint armature, which acts on the world-frame velocity of the origin.
inline void addFloatingArmatureProduct(const Model& model, const Joint& j, const Eigen::VectorXd& v, double sign,
                                       double* tau_joint) {
  if (j.type != JointType::Floating) return;
  const double a = sign * model.armature()[j.idx_v + 3];
  if (a == 0.0) return;
  const Vector3 w = v.segment<3>(j.idx_v), vl = v.segment<3>(j.idx_v + 3);
  const Vector3 f = a * w.cross(vl);
  for (int c = 0; c < 3; ++c) tau_joint[3 + c] += f[c];
}

/// Adds sign times joint j's spring force (Model::stiffness toward Model::springReference, the law in
/// model.hpp) to tau_joint, the joint's nv entries of a force vector. Allocates nothing.
void addJointSpringForce(const Model& model, const Joint& j, const Eigen::VectorXd& q, double sign, double* tau_joint);

/// The same law for one joint of type `type` with nv coordinates given by pointers: subtracts k times the
/// spring's displacement of qj (the joint's nq coordinates) from qs (their reference) from tau_joint. For
/// callers that hold a state's coordinates outside an Eigen vector (the batched kernels, lane by lane).
void addJointSpringForce(JointType type, int nv, double k, const double* qj, const double* qs, double* tau_joint);

}  // namespace abdyn::internal
