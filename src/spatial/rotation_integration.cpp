#include "abdyn/spatial/rotation_integration.hpp"

#include <cmath>

#include "abdyn/error.hpp"

namespace abdyn {

Vector3 magnusVector(const Vector3& omega0, const Vector3& alpha, double h, MagnusOrder order,
                     AngularVelocityFrame frame) {
  const Vector3 omega1 = h * omega0 + (0.5 * h * h) * alpha;
  if (order == MagnusOrder::First) return omega1;
  // With A(t) = (0, omega(t)) / 2, [A(t1), A(t2)] = (0, omega(t1) x omega(t2) / 2) and
  // omega(t1) x omega(t2) = (t1 - t2) alpha x omega0, so 1/2 of the double integral over t2 < t1 is
  // (0, h^3 / 24 alpha x omega0), i.e. h^3 / 12 alpha x omega0 on Omega. The world frame (left
  // multiplication) takes it with +, the body frame (right multiplication) with -.
  const double c = frame == AngularVelocityFrame::World ? 1.0 : -1.0;
  return omega1 + (c * h * h * h / 12.0) * alpha.cross(omega0);
}

Quaternion truncatedExp3(const Vector3& u) {
  if (!u.allFinite()) throw InvalidArgument("abdyn::truncatedExp3: u has non-finite entries");
  // exp(u) = 1 + u + u^2/2 + u^3/6 + ... with u^2 = -|u|^2 for a pure quaternion.
  const double t2 = u.squaredNorm();
  const Vector3 v = (1.0 - t2 / 6.0) * u;
  return Quaternion(1.0 - 0.5 * t2, v.x(), v.y(), v.z()).normalized();
}

Quaternion integrateRotation(const Quaternion& q0, const Vector3& omega0, const Vector3& alpha, double h,
                             AngularVelocityFrame frame, MagnusOrder order, QuaternionExp exp) {
  const Vector3 half = 0.5 * magnusVector(omega0, alpha, h, order, frame);
  const Quaternion e = exp == QuaternionExp::Exact ? expQuaternion(half) : truncatedExp3(half);
  return frame == AngularVelocityFrame::Body ? q0 * e : e * q0;
}

}  // namespace abdyn
