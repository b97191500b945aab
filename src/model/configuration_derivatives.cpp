#include "abdyn/model/configuration_derivatives.hpp"

#include <cmath>
#include <type_traits>

#include "abdyn/spatial/cross.hpp"
#include "abdyn/spatial/plx.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/se3.hpp"
#include "model/argument_checks.hpp"

namespace abdyn {
namespace {

template <int N>
using SquareMatrix = Eigen::Matrix<double, N, N>;

// sum_{n >= 0} X^n / (n + shift)!: exp(X) for shift 0, Jl for shift 1. Used for angles below 1, where 20
// terms leave less than 1 / 21! and the closed forms below lose digits to cancellation.
template <int N>
SquareMatrix<N> powerSeries(const SquareMatrix<N>& X, int shift) {
  SquareMatrix<N> term = SquareMatrix<N>::Identity();
  for (int n = 2; n <= shift; ++n) term /= n;
  SquareMatrix<N> sum = term;
  for (int n = 1; n <= 20; ++n) {
    term = (term * X) / static_cast<double>(n + shift);
    sum += term;
  }
  return sum;
}

// so(3) and se(2): ad^3 = -t^2 ad (eigenvalues 0, +-i t), so every power series in ad is a quadratic in it.
Matrix3 exp3(const Matrix3& X, double t) {
  if (t < 1.0) return powerSeries<3>(X, 0);
  return Matrix3::Identity() + (std::sin(t) / t) * X + ((1.0 - std::cos(t)) / (t * t)) * X * X;
}
Matrix3 leftJacobian3(const Matrix3& X, double t) {
  if (t < 1.0) return powerSeries<3>(X, 1);
  return Matrix3::Identity() + ((1.0 - std::cos(t)) / (t * t)) * X + ((t - std::sin(t)) / (t * t * t)) * X * X;
}

// se(3): ad^5 = -2 t^2 ad^3 - t^4 ad with t = |w|; the four coefficients are those of the series reduced by it.
Matrix6 leftJacobian6(const Matrix6& X, double t) {
  if (t < 1.0) return powerSeries<6>(X, 1);
  const double s = std::sin(t), c = std::cos(t), t2 = t * t;
  const Matrix6 X2 = X * X;
  return Matrix6::Identity() + ((4.0 - t * s - 4.0 * c) / (2.0 * t2)) * X +
         ((4.0 * t - 5.0 * s + t * c) / (2.0 * t2 * t)) * X2 + ((2.0 - t * s - 2.0 * c) / (2.0 * t2 * t2)) * X2 * X +
         ((2.0 * t - 3.0 * s + t * c) / (2.0 * t2 * t2 * t)) * X2 * X2;
}
// The inverse of a block lower-triangular [A 0; C A] (every polynomial in crm(xi) has that shape).
Matrix6 inverseLowerBlock(const Matrix6& J) {
  const Matrix3 Ai = J.topLeftCorner<3, 3>().inverse();
  Matrix6 out = Matrix6::Zero();
  out.topLeftCorner<3, 3>() = Ai;
  out.bottomRightCorner<3, 3>() = Ai;
  out.bottomLeftCorner<3, 3>() = -Ai * J.bottomLeftCorner<3, 3>() * Ai;
  return out;
}

// The se(2) bracket [a, .] in (w, x, y) coordinates: [a, b] = (0, a2 b0 - a0 b2, a0 b1 - a1 b0), the spatial
// cross product of the motions (w n, x t1 + y t2) in the plane's own axes.
Matrix3 adPlanar(const Vector3& a) {
  Matrix3 X;
  X << 0, 0, 0, a[2], 0, -a[0], -a[1], a[0], 0;
  return X;
}

void prepare(const Model& model, Eigen::MatrixXd& a, Eigen::MatrixXd& b) {
  a.setZero(model.nv(), model.nv());
  b.setZero(model.nv(), model.nv());
}

}  // namespace

void integrateJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt,
                        Eigen::MatrixXd& d_dq, Eigen::MatrixXd& d_dv) {
  internal::checkConfiguration(model, q, "abdyn::integrateJacobians");
  internal::checkVector(v, model.nv(), "abdyn::integrateJacobians", "v");
  prepare(model, d_dq, d_dv);
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const int k = j.idx_v;
    switch (j.type) {
      case JointType::Spherical: {
        const Vector3 xi = v.segment<3>(k) * dt;
        d_dq.block<3, 3>(k, k) = exp3(-skew(xi), xi.norm());
        d_dv.block<3, 3>(k, k) = leftJacobian3(-skew(xi), xi.norm()) * dt;
        break;
      }
      case JointType::Planar: {
        const Vector3 xi = v.segment<3>(k) * dt;
        d_dq.block<3, 3>(k, k) = exp3(-adPlanar(xi), std::abs(xi[0]));
        d_dv.block<3, 3>(k, k) = leftJacobian3(-adPlanar(xi), std::abs(xi[0])) * dt;
        break;
      }
      case JointType::Floating: {
        const Motion xi(Vector6(v.segment<6>(k) * dt));
        // exp(-ad_xi) is the motion transform from the old child frame to the moved one.
        d_dq.block<6, 6>(k, k) = Plx::fromPose(expSE3(xi)).matrix();
        d_dv.block<6, 6>(k, k) = leftJacobian6(-crm(xi), xi.angular().norm()) * dt;
        break;
      }
      default:
        d_dq(k, k) = 1.0;
        d_dv(k, k) = dt;
        break;
    }
  }
}

void differenceJacobians(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                         Eigen::MatrixXd& d_dq0, Eigen::MatrixXd& d_dq1) {
  internal::checkConfiguration(model, q0, "abdyn::differenceJacobians");
  internal::checkConfiguration(model, q1, "abdyn::differenceJacobians");
  prepare(model, d_dq0, d_dq1);
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const int k = j.idx_v;
    const double* a = q0.data() + j.idx_q;
    const double* b = q1.data() + j.idx_q;
    switch (j.type) {
      case JointType::Spherical: {
        const Vector3 xi = rotationVector(Quaternion::fromWxyz(a).inverse() * Quaternion::fromWxyz(b));
        d_dq0.block<3, 3>(k, k) = -leftJacobian3(skew(xi), xi.norm()).inverse();
        d_dq1.block<3, 3>(k, k) = leftJacobian3(-skew(xi), xi.norm()).inverse();
        break;
      }
      case JointType::Planar: {
        // The planar log: the angle wrapped like difference() does, then the in-plane part through V2^-1,
        // which is the lower-right block of Jl(xi)'s counterpart: solved here as Jl(xi) (0, x, y) = (0, dp).
        const double phi = std::remainder(b[2] - a[2], 2.0 * M_PI);
        const double c = std::cos(a[2]), s = std::sin(a[2]);
        const Eigen::Vector2d dp(c * (b[0] - a[0]) + s * (b[1] - a[1]), -s * (b[0] - a[0]) + c * (b[1] - a[1]));
        // Jl's lower-right block maps (x, y) to the displacement, and it does not depend on (x, y).
        const Matrix3 J0 = leftJacobian3(adPlanar(Vector3(phi, 0.0, 0.0)), std::abs(phi));
        const Eigen::Vector2d lin = J0.bottomRightCorner<2, 2>().inverse() * dp;
        const Vector3 xi(phi, lin.x(), lin.y());
        d_dq0.block<3, 3>(k, k) = -leftJacobian3(adPlanar(xi), std::abs(phi)).inverse();
        d_dq1.block<3, 3>(k, k) = leftJacobian3(-adPlanar(xi), std::abs(phi)).inverse();
        break;
      }
      case JointType::Floating: {
        const Quaternion r0 = Quaternion::fromWxyz(q0.data() + j.quaternionIndex());
        Eigen::Isometry3d rel = Eigen::Isometry3d::Identity();
        rel.linear() = (r0.inverse() * Quaternion::fromWxyz(q1.data() + j.quaternionIndex())).toRotationMatrix();
        rel.translation() = r0.toRotationMatrix().transpose() * (Vector3(b[0], b[1], b[2]) - Vector3(a[0], a[1], a[2]));
        const Motion xi = logSE3(rel);
        const double t = xi.angular().norm();
        d_dq0.block<6, 6>(k, k) = -inverseLowerBlock(leftJacobian6(crm(xi), t));
        d_dq1.block<6, 6>(k, k) = inverseLowerBlock(leftJacobian6(-crm(xi), t));
        break;
      }
      default:
        d_dq0(k, k) = -1.0;
        d_dq1(k, k) = 1.0;
        break;
    }
  }
}

void exponentialCoordinateRateJacobians(const Model& model, const Eigen::VectorXd& theta, const Eigen::VectorXd& v,
                                        Eigen::MatrixXd& d_dtheta, Eigen::MatrixXd& d_dv) {
  internal::checkVector(theta, model.nv(), "abdyn::exponentialCoordinateRateJacobians", "theta");
  internal::checkVector(v, model.nv(), "abdyn::exponentialCoordinateRateJacobians", "v");
  prepare(model, d_dtheta, d_dv);
  const auto fill = [&](int k, const auto& ad_t, const auto& ad_v, const auto& ad_tv) {
    constexpr int N = std::decay_t<decltype(ad_t)>::RowsAtCompileTime;
    d_dv.block<N, N>(k, k) = SquareMatrix<N>::Identity() + 0.5 * ad_t + (ad_t * ad_t) / 12.0;
    d_dtheta.block<N, N>(k, k) = -0.5 * ad_v - (ad_tv + ad_t * ad_v) / 12.0;
  };
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const int k = j.idx_v;
    switch (j.type) {
      case JointType::Spherical: {
        const Vector3 t = theta.segment<3>(k), x = v.segment<3>(k);
        fill(k, skew(t), skew(x), skew(t.cross(x)));
        break;
      }
      case JointType::Planar: {
        const Vector3 t = theta.segment<3>(k), x = v.segment<3>(k);
        fill(k, adPlanar(t), adPlanar(x), adPlanar(adPlanar(t) * x));
        break;
      }
      case JointType::Floating: {
        const Motion t(Vector6(theta.segment<6>(k))), x(Vector6(v.segment<6>(k)));
        fill(k, crm(t), crm(x), crm(t.cross(x)));
        break;
      }
      default:
        d_dv(k, k) = 1.0;
        break;
    }
  }
}

}  // namespace abdyn
