#include "algorithms/joint_ops.hpp"

#include <cmath>

namespace abdyn::internal {
namespace {

// MuJoCo's quaternion difference (mju_subQuat): the rotation vector r of b^-1 a, so that b exp(r) = a,
// with the angle in (-pi, pi]; a and b need not be unit (the angle 2 atan2(|v|, w) ignores the scale).
Vector3 rotationVectorBetween(const double* a, const double* b) {
  const double w = b[0] * a[0] + b[1] * a[1] + b[2] * a[2] + b[3] * a[3];  // conj(b) a, w first
  const Vector3 v(b[0] * a[1] - b[1] * a[0] - b[2] * a[3] + b[3] * a[2],
                  b[0] * a[2] + b[1] * a[3] - b[2] * a[0] - b[3] * a[1],
                  b[0] * a[3] - b[1] * a[2] + b[2] * a[1] - b[3] * a[0]);
  const double s = v.norm();
  if (s == 0.0) return Vector3::Zero();
  double angle = 2.0 * std::atan2(s, w);
  if (angle > M_PI) angle -= 2.0 * M_PI;
  return (angle / s) * v;
}

}  // namespace

void addJointSpringForce(JointType type, int nv, double k, const double* qj, const double* qs, double* tau_joint) {
  if (k == 0.0) return;
  switch (type) {
    case JointType::Spherical: {
      const Vector3 r = rotationVectorBetween(qj, qs);
      for (int c = 0; c < 3; ++c) tau_joint[c] -= k * r[c];
      return;
    }
    case JointType::Floating: {
      // v = [w; v] in the child frame: the moment from the rotation vector (child frame), the force
      // -k (p - p_s) of the parent frame rotated into the child frame.
      const Vector3 r = rotationVectorBetween(qj + 3, qs + 3);
      const Vector3 dp(qj[0] - qs[0], qj[1] - qs[1], qj[2] - qs[2]);
      const Vector3 f = detail::quaternionRotationTransposed(qj + 3) * dp;
      for (int c = 0; c < 3; ++c) {
        tau_joint[c] -= k * r[c];
        tau_joint[3 + c] -= k * f[c];
      }
      return;
    }
    default:
      for (int c = 0; c < nv; ++c) tau_joint[c] -= k * (qj[c] - qs[c]);
      return;
  }
}

void addJointSpringForce(const Model& model, const Joint& j, const Eigen::VectorXd& q, double sign, double* tau_joint) {
  addJointSpringForce(j.type, j.nv, sign * model.stiffness()[j.idx_v], q.data() + j.idx_q,
                      model.springReference().data() + j.idx_q, tau_joint);
}

}  // namespace abdyn::internal
