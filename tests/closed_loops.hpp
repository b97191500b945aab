#pragma once
// Closed-loop models shared by the tests: the planar four-bar built in C++ with its reduced-coordinate
// solution, and the closed models bundled in models/ (the tree and its loops loaded from one file, and a
// configuration at or near its closed set).

#include <cmath>
#include <string>

#include <Eigen/Core>
#include <Eigen/LU>

#include "abdyn/abdyn.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "test_helpers.hpp"

namespace abdyn::test {

/// Planar four-bar in the x-z plane, every joint about y: crank (a) from the origin, coupler (b) on the
/// crank's tip, rocker (c) from the ground pivot (d, 0, 0); the coupler's tip is pinned to the rocker's
/// tip by a revolute closure about y. Rotating body x by theta about y points it along
/// u(theta) = (cos theta, 0, -sin theta).
struct FourBar {
  double a = 1.0, b = 2.0, c = 1.5, d = 2.0;  ///< crank, coupler, rocker and ground lengths (m)
  Model model;                                ///< the tree
  ConstraintSet constraints;                  ///< the pin

  FourBar() {
    ModelBuilder builder("four_bar");
    JointSpec hinge;
    hinge.axis = Vector3::UnitY();
    const auto rod = [](double m, double L) {
      return RigidBodyInertia(m, Vector3(L / 2, 0, 0), Vector3(1e-3, m * L * L / 12, m * L * L / 12).asDiagonal());
    };
    hinge.name = "crank";
    const int crank = builder.addBody(0, hinge, Plx(), rod(1.0, a), "crank");
    hinge.name = "coupler";
    const int coupler = builder.addBody(crank, hinge, Plx::translation(Vector3(a, 0, 0)), rod(2.0, b), "coupler");
    hinge.name = "rocker";
    const int rocker = builder.addBody(0, hinge, Plx::translation(Vector3(d, 0, 0)), rod(1.5, c), "rocker");
    model = builder.build();
    constraints.loops.push_back(LoopClosure::revolute("pin", coupler, Plx::translation(Vector3(b, 0, 0)), rocker,
                                                      Plx::translation(Vector3(c, 0, 0)), Vector3::UnitY()));
  }

  static Eigen::Vector2d u(double t) { return {std::cos(t), -std::sin(t)}; }
  static Eigen::Vector2d du(double t) { return {-std::sin(t), -std::cos(t)}; }

  // The closed configuration for crank angle q1 (elbow-up branch), by intersecting two circles.
  Eigen::VectorXd close(double q1) const {
    const Eigen::Vector2d P = a * u(q1), D(d, 0.0);
    const double L = (D - P).norm();
    const double x = (b * b - c * c + L * L) / (2 * L), h = std::sqrt(b * b - x * x);
    const Eigen::Vector2d e = (D - P) / L, n(-e.y(), e.x());
    const Eigen::Vector2d E = P + x * e - h * n;
    const double t2 = std::atan2(-(E - P).y(), (E - P).x()), t3 = std::atan2(-(E - D).y(), (E - D).x());
    Eigen::VectorXd q(3);
    q << q1, t2 - q1, t3;
    return q;
  }

  // Reduced coordinates: the closure f(q) = a u(q1) + b u(q1 + q2) - c u(q3) - (d, 0) = 0 has Jacobian K
  // (2 x 3); v = n(q) q1dot spans its null space, and qdd = n s + p with K p = -Kdot v, p1 = 0.
  Eigen::VectorXd reducedAcceleration(Data& data, const Eigen::VectorXd& q, double q1dot, const Eigen::VectorXd& tau,
                                      Eigen::VectorXd& v) const {
    const double t1 = q[0], t2 = q[0] + q[1], t3 = q[2];
    Eigen::Matrix<double, 2, 3> K;
    K << a * du(t1) + b * du(t2), b * du(t2), -c * du(t3);
    const Eigen::Vector3d n(1.0, 0.0, 0.0);
    Eigen::Vector3d null = n;
    null.tail<2>() = K.rightCols<2>().partialPivLu().solve(-K.col(0));
    v = null * q1dot;
    const double w1 = v[0], w2 = v[0] + v[1], w3 = v[2];
    const Eigen::Vector2d Kdot_v = -(a * u(t1) * w1 * w1 + b * u(t2) * w2 * w2 - c * u(t3) * w3 * w3);
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    p.tail<2>() = K.rightCols<2>().partialPivLu().solve(-Kdot_v);
    const Eigen::MatrixXd M = massMatrix(model, data, q);
    const Eigen::VectorXd h = nonlinearEffects(model, data, q, v);
    const double s = null.dot(tau - h - M * p) / null.dot(M * null);
    return null * s + p;
  }
};

// A random tree (every joint type) with a fixed and a spherical closure between bodies of different
// branches, each built so that the random configuration q0 closes it.

/// The largest |x_k| (0 for an empty x): a constraint error's size.
inline double maxAbs(const Eigen::VectorXd& x) { return x.size() ? x.cwiseAbs().maxCoeff() : 0.0; }

/// A closed model from models/: its tree, its loops, and q0, the configuration its file states as closed
/// (or close enough for Gauss-Newton): zero, except for the four-bar and the slider-crank, which are open
/// there and start from the program's starting points.
struct ClosedFile {
  Model model;          ///< the tree
  ConstraintSet loops;  ///< its loop closures
  Eigen::VectorXd q0;   ///< at or near the closed set

  /// Loads models/`name` (a file name such as "four_bar.urdf").
  explicit ClosedFile(const std::string& name)
      : model(loadUrdf(modelPath(name))), loops(loadUrdfLoops(modelPath(name), model)), q0(neutral(model)) {
    if (name == "four_bar.urdf") q0 << 0.7, -0.3, 1.1;
    if (name == "slider_crank.urdf") q0 << 1.0, 0.0, 1.0;
  }
};

/// Every closed model in models/.
inline const char* const kClosedFiles[] = {"four_bar.urdf", "slider_crank.urdf", "five_bar.urdf", "delta_robot.urdf",
                                           "humanoid_welded.urdf"};

}  // namespace abdyn::test
