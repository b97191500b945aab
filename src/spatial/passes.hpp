#pragma once
// The spatial layer's private helpers for the layers above and its own files. Each names the file
// (src/spatial/) that defines it.

#include "abdyn/spatial/types.hpp"

namespace abdyn::internal {

// rotation.cpp

/// |axis| of an axis-angle rotation that `function` builds; throws abdyn::InvalidArgument for a non-finite
/// axis or angle and abdyn::Error for an axis shorter than 1e-12 (no direction).
double axisNorm(const Vector3& axis, double angle, const char* function);

/// The left Jacobian of SO(3) applied to x, without forming the matrix: Jl(phi) x = Jr(-phi) x =
/// x + (1 - cos t)/t^2 phi x x + (t - sin t)/t^3 phi x (phi x x), t = |phi|; small-angle safe. It is the
/// translation of expSE3([phi; x]), and what integrating a floating joint moves its position by.
Vector3 leftJacobianSO3Times(const Vector3& phi, const Vector3& x);

}  // namespace abdyn::internal
