#include "detail.hpp"

#include "abdyn/error.hpp"

namespace abdyn::conventions_detail {

RigidBodyInertia fromFirstMoment(double m, const Vector3& h, const Matrix3& I_origin, const std::string& library) {
  if (m == 0.0) {
    if (!h.isZero(0.0)) throw Error(library + " inertia: zero mass with a nonzero first moment h");
    return RigidBodyInertia(0.0, Vector3::Zero(), I_origin);
  }
  const Vector3 c = h / m;
  const Matrix3 cx = skew(c);
  try {
    return RigidBodyInertia(m, c, I_origin + m * cx * cx);
  } catch (const Error& e) {
    throw Error(library + " inertia: " + e.what());
  }
}

}  // namespace abdyn::conventions_detail
