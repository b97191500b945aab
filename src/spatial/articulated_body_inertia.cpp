#include "abdyn/spatial/articulated_body_inertia.hpp"

#include <algorithm>

#include "abdyn/error.hpp"

namespace abdyn {

ArticulatedBodyInertia ArticulatedBodyInertia::fromMatrix(const Matrix6& I) {
  if (!I.allFinite()) throw Error("abdyn::ArticulatedBodyInertia::fromMatrix: matrix has non-finite entries");
  const double scale = std::max(1.0, I.cwiseAbs().maxCoeff());
  if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) {
    throw Error("abdyn::ArticulatedBodyInertia::fromMatrix: matrix is not symmetric");
  }
  ArticulatedBodyInertia A;
  A.I_ = 0.5 * (I + I.transpose());
  return A;
}

}  // namespace abdyn
