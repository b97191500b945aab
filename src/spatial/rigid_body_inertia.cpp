#include "abdyn/spatial/rigid_body_inertia.hpp"

#include <cmath>
#include <sstream>

#include <Eigen/Eigenvalues>

#include "abdyn/error.hpp"

namespace abdyn {

std::string describeInertiaViolation(double mass, const Vector3& com, const Matrix3& inertia_about_com,
                                     bool require_positive_definite) {
  std::ostringstream why;
  if (!std::isfinite(mass)) {
    why << "mass is not finite (" << mass << ")";
    return why.str();
  }
  if (!com.allFinite()) {
    why << "centre of mass is not finite";
    return why.str();
  }
  if (!inertia_about_com.allFinite()) {
    why << "rotational inertia has non-finite entries";
    return why.str();
  }
  if (mass < 0.0) {
    why << "mass is negative (" << mass << ")";
    return why.str();
  }
  const Matrix3& I = inertia_about_com;
  const double scale = I.cwiseAbs().maxCoeff();
  const double asymmetry = (I - I.transpose()).cwiseAbs().maxCoeff();
  if (asymmetry > 1e-9 * scale) {
    why << "rotational inertia is not symmetric (largest difference " << asymmetry << ")";
    return why.str();
  }
  const Vector3 moments = Eigen::SelfAdjointEigenSolver<Matrix3>(I, Eigen::EigenvaluesOnly).eigenvalues();
  const double trace = moments.sum();
  if (moments(0) < -1e-12 * std::abs(trace) || (require_positive_definite && moments(0) <= 0.0)) {
    why << "rotational inertia is not positive " << (require_positive_definite ? "definite" : "semi-definite")
        << " (principal moments " << moments(0) << ", " << moments(1) << ", " << moments(2) << ")";
    return why.str();
  }
  // Principal moments are sorted, so the only inequality that can fail is I0 + I1 >= I2.
  const double excess = moments(2) - moments(0) - moments(1);
  if (excess > 1e-6 * trace) {
    why << "principal moments " << moments(0) << ", " << moments(1) << ", " << moments(2)
        << " violate the triangle inequality (I1 + I2 >= I3) by " << 100.0 * excess / moments(2) << "%";
    return why.str();
  }
  return {};
}

RigidBodyInertia::RigidBodyInertia(double mass, const Vector3& com, const Matrix3& inertia_about_com)
    : m_(mass), c_(com), Ic_(inertia_about_com) {
  const std::string why = describeInertiaViolation(mass, com, inertia_about_com);
  if (!why.empty()) throw Error("abdyn::RigidBodyInertia: " + why);
}

RigidBodyInertia RigidBodyInertia::fromMatrix(const Matrix6& I) {
  if (!I.allFinite()) throw Error("abdyn::RigidBodyInertia::fromMatrix: matrix has non-finite entries");
  const double scale = std::max(1.0, I.cwiseAbs().maxCoeff());
  if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) {
    throw Error("abdyn::RigidBodyInertia::fromMatrix: matrix is not symmetric");
  }
  const double m = I(3, 3);
  const Matrix3 lower_right = I.bottomRightCorner<3, 3>();
  if ((lower_right - m * Matrix3::Identity()).cwiseAbs().maxCoeff() > 1e-9 * scale) {
    throw Error("abdyn::RigidBodyInertia::fromMatrix: lower-right block is not m times the identity");
  }
  const Matrix3 mcx = I.topRightCorner<3, 3>();
  if ((mcx + mcx.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) {
    throw Error("abdyn::RigidBodyInertia::fromMatrix: upper-right block is not skew-symmetric");
  }
  const Vector3 com = (m > 0.0) ? Vector3(unskew(mcx) / m) : Vector3::Zero();
  const Matrix3 cx = skew(com);
  const Matrix3 Ic = I.topLeftCorner<3, 3>() + m * cx * cx;
  return RigidBodyInertia(m, com, 0.5 * (Ic + Ic.transpose()));
}

std::ostream& operator<<(std::ostream& os, const RigidBodyInertia& I) {
  return os << "RigidBodyInertia(mass=" << I.mass() << ", com=[" << I.com().transpose() << "], Ic=[["
            << I.inertiaAboutCom().row(0) << "], [" << I.inertiaAboutCom().row(1) << "], ["
            << I.inertiaAboutCom().row(2) << "]])";
}

}  // namespace abdyn
