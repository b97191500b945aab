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

}  // namespace abdyn::internal
