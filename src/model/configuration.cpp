#include "abdyn/model/configuration.hpp"

#include <cmath>
#include <string>

#include "abdyn/error.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/se3.hpp"
#include "model/argument_checks.hpp"
#include "model/passes.hpp"
#include "spatial/passes.hpp"

namespace abdyn {
namespace {

void writeQuaternion(const Quaternion& r, double* wxyz) {
  wxyz[0] = r.w(), wxyz[1] = r.x(), wxyz[2] = r.y(), wxyz[3] = r.z();
}

// SE(2) counterpart of V(w) for the planar joint: the in-plane displacement produced by unit body
// velocity (vx, vy) while turning by phi is V2(phi) (vx, vy), V2 = [s/phi, -(1-c)/phi; (1-c)/phi, s/phi].
Eigen::Matrix2d planarV(double phi) {
  double a, b;  // sin(phi)/phi and (1 - cos(phi))/phi
  if (std::abs(phi) < 1e-6) {
    a = 1.0 - phi * phi / 6.0;
    b = phi / 2.0 - phi * phi * phi / 24.0;
  } else {
    a = std::sin(phi) / phi;
    b = (1.0 - std::cos(phi)) / phi;
  }
  Eigen::Matrix2d V;
  V << a, -b, b, a;
  return V;
}

Eigen::Matrix2d planarRotation(double theta) {
  Eigen::Matrix2d R;
  R << std::cos(theta), -std::sin(theta), std::sin(theta), std::cos(theta);
  return R;
}

double wrapAngle(double a) { return std::remainder(a, 2.0 * M_PI); }

// [t, x] / 2 + [t, [t, x]] / 12 with the joint's Lie bracket: what exponentialCoordinateRate adds to x.
template <typename Vec, typename Bracket>
Vec rateCorrection(const Vec& t, const Vec& x, Bracket bracket) {
  const Vec tx = bracket(t, x);
  return 0.5 * tx + bracket(t, tx) / 12.0;
}

// The brackets of so(3) (rotation vectors) and se(3) (twists [angular; linear]).
Vector3 rotationBracket(const Vector3& a, const Vector3& b) { return a.cross(b); }
Vector6 motionBracket(const Vector6& a, const Vector6& b) { return Motion(a).cross(Motion(b)).vector(); }

// The se(2) bracket of (w, x, y) coordinates, from the spatial cross product of the motions
// (w n, x t1 + y t2) written in the plane's own axes.
Vector3 planarBracket(const Vector3& a, const Vector3& b) {
  return Vector3(0.0, -a[0] * b[2] + b[0] * a[2], a[0] * b[1] - b[0] * a[1]);
}

}  // namespace

Eigen::VectorXd neutral(const Model& model) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq());
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (j.hasQuaternion()) q[j.quaternionIndex()] = 1.0;
    if (j.nq == 1) q[j.idx_q] = std::min(std::max(0.0, model.lowerPositionLimit()[j.idx_q]), model.upperPositionLimit()[j.idx_q]);
  }
  return q;
}

void integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt, Eigen::VectorXd& q_out) {
  internal::checkVector(q, model.nq(), "abdyn::integrate", "q");
  internal::checkVector(v, model.nv(), "abdyn::integrate", "v");
  if (q_out.size() != model.nq()) q_out.resize(model.nq());
  internal::integrateUnchecked(model, q, v, dt, q_out);
}

namespace internal {

void integrateUnchecked(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt,
                        Eigen::VectorXd& q_out) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const double* qi = q.data() + j.idx_q;
    double* qo = q_out.data() + j.idx_q;
    const double* vi = v.data() + j.idx_v;
    switch (j.type) {
      case JointType::Planar: {
        const double theta = qi[2];
        const Eigen::Vector2d dp = planarRotation(theta) * planarV(vi[0] * dt) * Eigen::Vector2d(vi[1], vi[2]) * dt;
        qo[0] = qi[0] + dp.x();
        qo[1] = qi[1] + dp.y();
        qo[2] = theta + vi[0] * dt;
        break;
      }
      case JointType::Spherical: {
        const Quaternion r = Quaternion::fromWxyz(qi) * quaternionFromRotationVector(Vector3(vi[0], vi[1], vi[2]) * dt);
        writeQuaternion(r, qo);
        break;
      }
      case JointType::Floating: {
        // The screw motion of the constant body twist [w; v] dt, expSE3's: the orientation composed as
        // quaternions (q_out keeps q's sign convention and precision, and stays a number, NaN for the
        // callers' finiteness checks, rather than throwing when w dt overflows), the position moved by
        // R0 Jl(w dt) v dt, Jl the left Jacobian of SO(3).
        const Quaternion r0 = Quaternion::fromWxyz(q.data() + j.quaternionIndex());
        const Vector3 w_dt = Vector3(vi[0], vi[1], vi[2]) * dt;
        writeQuaternion(r0 * quaternionFromRotationVector(w_dt), q_out.data() + j.quaternionIndex());
        const Vector3 p = Vector3(qi[0], qi[1], qi[2]) + r0.rotate(internal::leftJacobianSO3Times(w_dt, Vector3(vi[3], vi[4], vi[5]) * dt));
        qo[0] = p.x(), qo[1] = p.y(), qo[2] = p.z();
        break;
      }
      default:
        qo[0] = qi[0] + vi[0] * dt;
        break;
    }
  }
}

}  // namespace internal

Eigen::VectorXd integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt) {
  Eigen::VectorXd out(model.nq());
  integrate(model, q, v, dt, out);
  return out;
}

Eigen::VectorXd difference(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1) {
  internal::checkVector(q0, model.nq(), "abdyn::difference", "q0");
  internal::checkVector(q1, model.nq(), "abdyn::difference", "q1");
  Eigen::VectorXd v(model.nv());
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const double* a = q0.data() + j.idx_q;
    const double* b = q1.data() + j.idx_q;
    double* vo = v.data() + j.idx_v;
    switch (j.type) {
      case JointType::Spherical: {
        const Vector3 w = rotationVector(Quaternion::fromWxyz(a).inverse() * Quaternion::fromWxyz(b));
        vo[0] = w.x(), vo[1] = w.y(), vo[2] = w.z();
        break;
      }
      case JointType::Floating: {
        const Quaternion r0 = Quaternion::fromWxyz(q0.data() + j.quaternionIndex());
        const Quaternion r1 = Quaternion::fromWxyz(q1.data() + j.quaternionIndex());
        const Matrix3 R0 = r0.toRotationMatrix();
        Eigen::Isometry3d rel = Eigen::Isometry3d::Identity();
        rel.linear() = (r0.inverse() * r1).toRotationMatrix();
        rel.translation() = R0.transpose() * (Vector3(b[0], b[1], b[2]) - Vector3(a[0], a[1], a[2]));
        const Motion xi = logSE3(rel);
        v.segment<6>(j.idx_v) = xi.vector();
        break;
      }
      case JointType::Planar: {
        const double phi = wrapAngle(b[2] - a[2]);
        const Eigen::Vector2d dp(b[0] - a[0], b[1] - a[1]);
        const Eigen::Vector2d lin = planarV(phi).inverse() * planarRotation(a[2]).transpose() * dp;
        vo[0] = phi, vo[1] = lin.x(), vo[2] = lin.y();
        break;
      }
      default:
        vo[0] = b[0] - a[0];
        break;
    }
  }
  return v;
}

void exponentialCoordinateRate(const Model& model, const Eigen::VectorXd& theta, const Eigen::VectorXd& v,
                               Eigen::VectorXd& out) {
  internal::checkVector(theta, model.nv(), "abdyn::exponentialCoordinateRate", "theta");
  internal::checkVector(v, model.nv(), "abdyn::exponentialCoordinateRate", "v");
  out = v;
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const int k = j.idx_v;
    switch (j.type) {
      case JointType::Spherical:
        out.segment<3>(k) += rateCorrection<Vector3>(theta.segment<3>(k), v.segment<3>(k), rotationBracket);
        break;
      case JointType::Floating:
        out.segment<6>(k) += rateCorrection<Vector6>(theta.segment<6>(k), v.segment<6>(k), motionBracket);
        break;
      case JointType::Planar:
        out.segment<3>(k) += rateCorrection<Vector3>(theta.segment<3>(k), v.segment<3>(k), planarBracket);
        break;
      default:
        break;
    }
  }
}

Eigen::VectorXd randomConfiguration(const Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  std::normal_distribution<double> gauss(0.0, 1.0);
  const auto randomQuaternion = [&](double* wxyz) {
    Quaternion r;
    do {
      r = Quaternion(gauss(rng), gauss(rng), gauss(rng), gauss(rng));
    } while (r.norm() < 1e-6);
    writeQuaternion(r.normalized(), wxyz);
  };
  Eigen::VectorXd q(model.nq());
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    double* qi = q.data() + j.idx_q;
    switch (j.type) {
      case JointType::Spherical:
        randomQuaternion(qi);
        break;
      case JointType::Floating:
        qi[0] = unit(rng), qi[1] = unit(rng), qi[2] = unit(rng);
        randomQuaternion(q.data() + j.quaternionIndex());
        break;
      case JointType::Planar:
        qi[0] = unit(rng), qi[1] = unit(rng), qi[2] = angle(rng);
        break;
      default: {
        const double lo = model.lowerPositionLimit()[j.idx_q], hi = model.upperPositionLimit()[j.idx_q];
        const bool angular = j.type != JointType::PrismaticX && j.type != JointType::PrismaticY &&
                             j.type != JointType::PrismaticZ && j.type != JointType::Prismatic;
        const double span = angular ? M_PI : 1.0;
        // Files write "unbounded" as a huge number (999999, 1e16): such a limit bounds nothing.
        const bool has_lo = std::abs(lo) < kUnboundedLimit, has_hi = std::abs(hi) < kUnboundedLimit;
        const double a = has_lo ? lo : (has_hi ? std::min(-span, hi - 2 * span) : -span);
        const double b = has_hi ? hi : (has_lo ? std::max(span, lo + 2 * span) : span);
        qi[0] = std::uniform_real_distribution<double>(a, b)(rng);
        break;
      }
    }
  }
  return q;
}

void normalize(const Model& model, Eigen::VectorXd& q) {
  internal::checkVector(q, model.nq(), "abdyn::normalize", "q");
  internal::normalizeUnchecked(model, q, "abdyn::normalize");
}

namespace internal {

void normalizeUnchecked(const Model& model, Eigen::VectorXd& q, const char* caller) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (!j.hasQuaternion()) continue;
    double* r = q.data() + j.quaternionIndex();
    const double n = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (!(n > 0.0) || !std::isfinite(n)) {
      throw InvalidArgument(std::string(caller) + ": the quaternion of joint '" + j.name + "' is zero or not finite");
    }
    for (int k = 0; k < 4; ++k) r[k] /= n;
  }
}

}  // namespace internal

}  // namespace abdyn
