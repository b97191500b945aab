#pragma once
// Helpers shared by the convention adapters.

#include <string>

#include "abdyn/spatial/rigid_body_inertia.hpp"

namespace abdyn::conventions_detail {

/// The rigid body with mass m, first moment h = m c and rotational inertia I_origin about the frame
/// origin (RBDL's, TDS's and Brax's spatial form): c = h / m, Ic = I_origin + m cx cx. Throws
/// abdyn::Error naming `library` for m = 0 with h != 0, or for an invalid body.
RigidBodyInertia fromFirstMoment(double m, const Vector3& h, const Matrix3& I_origin, const std::string& library);

}  // namespace abdyn::conventions_detail
