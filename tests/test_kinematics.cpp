#define BOOST_TEST_MODULE kinematics
#include <boost/test/unit_test.hpp>

#include "abdyn/algorithms/center_of_mass.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// Models under test: random trees with every joint type, fixed and floating base, and a chain.
std::vector<Model> testModels() {
  std::mt19937 rng(2024);
  std::vector<Model> models;
  models.push_back(randomTree({12, false, false, true}, rng));
  models.push_back(randomTree({12, false, true, true}, rng));
  models.push_back(randomTree({8, true, false, false}, rng));
  models.push_back(randomTree({6, true, true, true}, rng));
  return models;
}

// Pose of a frame in the world at configuration q (through the library's forward kinematics of
// positions only; velocities below are obtained from it by finite differences).
Eigen::Isometry3d pose(const Model& model, const Eigen::VectorXd& q, int frame) {
  Data data(model);
  forwardKinematics(model, data, q);
  return framePose(model, data, frame);
}

// Velocity of frame F along the path q(t) = integrate(q, v, t), by central differences of its pose
// at t = +-h, in each reference frame, from the definitions:
//   world: [w; pdot - w x p] with wx = Rdot R^T;  local: [R^T w; R^T pdot];  aligned: [w; pdot].
Motion fdVelocity(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, int frame,
                  ReferenceFrame rf, double h = 1e-6) {
  const Eigen::Isometry3d Tp = pose(model, integrate(model, q, v, h), frame);
  const Eigen::Isometry3d Tm = pose(model, integrate(model, q, v, -h), frame);
  const Eigen::Isometry3d T = pose(model, q, frame);
  const Matrix3 Rdot = (Tp.linear() - Tm.linear()) / (2 * h);
  const Vector3 pdot = (Tp.translation() - Tm.translation()) / (2 * h);
  const Vector3 w = unskew(Rdot * T.linear().transpose());
  switch (rf) {
    case ReferenceFrame::World:
      return Motion(w, pdot - w.cross(T.translation()));
    case ReferenceFrame::Local:
      return Motion(T.linear().transpose() * w, T.linear().transpose() * pdot);
    case ReferenceFrame::LocalWorldAligned:
      return Motion(w, pdot);
  }
  return Motion();
}

constexpr ReferenceFrame kFrames[] = {ReferenceFrame::Local, ReferenceFrame::World, ReferenceFrame::LocalWorldAligned};

Eigen::VectorXd randomVelocity(const Model& model, std::mt19937& rng) {
  Eigen::VectorXd v(model.nv());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < model.nv(); ++k) v[k] = u(rng);
  return v;
}

// Calls check(model, data, q, v, rng) on every test model with a random q and v drawn from rng, seeded once.
template <class Check>
void forEachRandomState(unsigned seed, const Check& check) {
  std::mt19937 rng(seed);
  for (const Model& model : testModels()) {
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = randomVelocity(model, rng);
    check(model, data, q, v, rng);
  }
}

}  // namespace

// Every column of J against the finite-difference velocity of the frame when only that coordinate
// moves (on the manifold: q(t) = integrate(q, e_k, t)). Central differences with h = 1e-6 have error
// O(h^2) ~ 1e-12 plus rounding ~1e-16/h ~ 1e-10: tolerance 1e-8 absolute per column (entries are O(1)).
BOOST_AUTO_TEST_CASE(jacobians_match_finite_differences) {
  std::mt19937 rng(1);
  for (const Model& model : testModels()) {
    Data data(model);
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd q = randomConfiguration(model, rng);
      for (int frame = 1; frame < model.nframes(); frame += 3) {
        for (ReferenceFrame rf : kFrames) {
          const Matrix6X J = frameJacobian(model, data, q, frame, rf);
          for (int k = 0; k < model.nv(); ++k) {
            const Motion expected = fdVelocity(model, q, Eigen::VectorXd::Unit(model.nv(), k), frame, rf);
            BOOST_TEST((J.col(k) - expected.vector()).norm() < 1e-8,
                       model.name() << " frame " << frame << " column " << k << ": " << J.col(k).transpose() << " vs "
                                    << expected.vector().transpose());
          }
        }
      }
    }
  }
}

// Velocities from forward kinematics equal J v.
BOOST_AUTO_TEST_CASE(frame_velocity_is_jacobian_times_v) {
  forEachRandomState(2, [](const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             std::mt19937&) {
    for (int frame = 0; frame < model.nframes(); ++frame) {
      for (ReferenceFrame rf : kFrames) {
        const Vector6 Jv = frameJacobian(model, data, q, frame, rf) * v;
        forwardKinematics(model, data, q, v);
        ABDYN_CHECK_NEAR(frameVelocity(model, data, frame, rf).vector(), Jv, 1e-12);
      }
    }
  });
}

// dJ/dt against central differences of J along q(t) = integrate(q, v, t) (error O(h^2) with
// h = 1e-6, entries O(1): tolerance 1e-7), and dJ v against the O(n) frameJacobianTimeVariationTimesV.
BOOST_AUTO_TEST_CASE(jacobian_time_variation_matches_finite_differences) {
  std::mt19937 rng(3);
  const double h = 1e-6;
  for (const Model& model : testModels()) {
    Data data(model);
    for (int trial = 0; trial < 2; ++trial) {
      const Eigen::VectorXd q = randomConfiguration(model, rng);
      const Eigen::VectorXd v = randomVelocity(model, rng);
      for (int frame = 1; frame < model.nframes(); frame += 2) {
        for (ReferenceFrame rf : kFrames) {
          const Matrix6X Jp = frameJacobian(model, data, integrate(model, q, v, h), frame, rf);
          const Matrix6X Jm = frameJacobian(model, data, integrate(model, q, v, -h), frame, rf);
          const Matrix6X fd = (Jp - Jm) / (2 * h);
          const Matrix6X dJ = frameJacobianTimeVariation(model, data, q, v, frame, rf);
          BOOST_TEST((dJ - fd).cwiseAbs().maxCoeff() < 1e-7, model.name() << " frame " << frame << " rf " << int(rf));
          const Vector6 dJv = dJ * v;
          const Motion fast = frameJacobianTimeVariationTimesV(model, data, q, v, frame, rf);
          BOOST_TEST((fast.vector() - dJv).norm() < 1e-12 * (1 + dJv.norm()));
        }
      }
    }
  }
}

// Accelerations from forward kinematics: J qdd + dJ v (spatial, local and world) and, for the
// aligned frame, the classical acceleration of the origin against central differences of its
// finite-difference velocity.
BOOST_AUTO_TEST_CASE(accelerations_and_classical_acceleration) {
  forEachRandomState(4, [](const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             std::mt19937& rng) {
    const Eigen::VectorXd qdd = randomVelocity(model, rng);
    for (int frame = 1; frame < model.nframes(); frame += 2) {
      for (ReferenceFrame rf : kFrames) {
        const Matrix6X dJ = frameJacobianTimeVariation(model, data, q, v, frame, rf);
        const Vector6 expected = data.J * qdd + dJ * v;
        forwardKinematics(model, data, q, v, qdd);
        if (rf != ReferenceFrame::LocalWorldAligned) {
          ABDYN_CHECK_NEAR(frameAcceleration(model, data, frame, rf).vector(), expected, 1e-11);
        } else {
          ABDYN_CHECK_NEAR(frameClassicalAcceleration(model, data, frame), Vector3(expected.tail<3>()), 1e-11);
        }
      }
      // Classical acceleration of the origin: d/dt of the world velocity of the origin along the
      // trajectory with this qdd, by central differences of (q(t), v(t)) = (q + v t + qdd t^2/2, v + qdd t)
      // on the manifold; O(h^2) with h = 1e-4 and second-level differences: tolerance 1e-5 relative.
      const double h = 1e-4;
      const auto originVelocity = [&](double t) {
        const Eigen::VectorXd qt = integrate(model, integrate(model, q, v, t), qdd, 0.5 * t * t);
        const Eigen::VectorXd vt = v + qdd * t;
        forwardKinematics(model, data, qt, vt);
        return frameVelocity(model, data, frame, ReferenceFrame::LocalWorldAligned).linear();
      };
      const Vector3 fd = (originVelocity(h) - originVelocity(-h)) / (2 * h);
      forwardKinematics(model, data, q, v, qdd);
      const Vector3 classical = frameClassicalAcceleration(model, data, frame);
      BOOST_TEST((classical - fd).norm() < 1e-5 * (1 + fd.norm()), model.name() << " frame " << frame);
      const Frame& F = model.frame(frame);
      ABDYN_CHECK_NEAR(pointClassicalAcceleration(data, F.body, F.X_frame_body.inverse().r()), classical, 1e-12);
    }
  });
}

// Centre of mass, its Jacobian and velocity, energies and momentum, each against sums over bodies
// computed in the test from body poses and finite-difference body velocities.
BOOST_AUTO_TEST_CASE(center_of_mass_energy_and_momentum) {
  forEachRandomState(5, [](const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             std::mt19937&) {
    double m = 0.0, kinetic = 0.0, potential = 0.0;
    Vector3 com = Vector3::Zero(), p = Vector3::Zero(), L = Vector3::Zero();
    for (int i = 1; i < model.nbodies(); ++i) {
      const int frame = model.frameId(model.bodyName(i));
      const Eigen::Isometry3d T = pose(model, q, frame);
      const Motion vel = fdVelocity(model, q, v, frame, ReferenceFrame::LocalWorldAligned);
      const RigidBodyInertia& I = model.inertia(i);
      const Vector3 c = T * I.com();
      const Vector3 vc = vel.linear() + vel.angular().cross(T.linear() * I.com());
      const Matrix3 Iw = T.linear() * I.inertiaAboutCom() * T.linear().transpose();
      m += I.mass();
      com += I.mass() * c;
      kinetic += 0.5 * I.mass() * vc.squaredNorm() + 0.5 * vel.angular().dot(Iw * vel.angular());
      potential -= I.mass() * model.gravity().linear().dot(c);
      p += I.mass() * vc;
      L += Iw * vel.angular() + c.cross(I.mass() * vc);
    }
    com /= m;
    // Sums of exact poses: 1e-12; quantities built from finite-difference velocities: 1e-8.
    ABDYN_CHECK_REL(centerOfMass(model, data, q), com, 1e-12);
    BOOST_TEST(std::abs(potentialEnergy(model, data, q) - potential) < 1e-12 * (1 + std::abs(potential)));
    BOOST_TEST(std::abs(kineticEnergy(model, data, q, v) - kinetic) < 1e-8 * (1 + kinetic));
    const double total = kinetic + potential;
    BOOST_TEST(std::abs(mechanicalEnergy(model, data, q, v) - total) < 1e-8 * (1 + std::abs(kinetic) + std::abs(potential)));
    const Force h = spatialMomentum(model, data, q, v);
    ABDYN_CHECK_REL(h.linear(), p, 1e-8);
    ABDYN_CHECK_REL(h.angular(), L, 1e-8);
    ABDYN_CHECK_REL(centerOfMassVelocity(model, data, q, v), Vector3(p / m), 1e-8);
    const Matrix3X Jc = centerOfMassJacobian(model, data, q);
    ABDYN_CHECK_REL(Vector3(Jc * v), Vector3(p / m), 1e-8);
  });
}

// The double pendulum in closed form: links of length l1, l2 hanging along -z, joints about +y.
BOOST_AUTO_TEST_CASE(double_pendulum_closed_form) {
  const double l1 = 1.0, l2 = 0.7;
  ModelBuilder b("double_pendulum");
  JointSpec j1;
  j1.axis = Vector3::UnitY();
  const RigidBodyInertia rod(1.0, Vector3(0, 0, -0.5), Vector3(0.08, 0.08, 0.001).asDiagonal());
  const int b1 = b.addBody(0, j1, Plx(), rod, "link1");
  j1.name = "joint2";
  const int b2 = b.addBody(b1, j1, Plx::translation(Vector3(0, 0, -l1)), rod, "link2");
  b.addFrame("tip", b2, Plx::translation(Vector3(0, 0, -l2)), FrameType::User);
  const Model model = b.build();
  BOOST_TEST(model.joint(1).type == JointType::RevoluteY);
  Data data(model);
  std::mt19937 rng(6);
  for (int t = 0; t < 20; ++t) {
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = randomVelocity(model, rng);
    const double a = q[0], s = q[0] + q[1];
    // A rotation by theta about +y takes (0, 0, -l) to (-l sin theta, 0, -l cos theta).
    const Vector3 tip(-l1 * std::sin(a) - l2 * std::sin(s), 0.0, -l1 * std::cos(a) - l2 * std::cos(s));
    const Vector3 tip_velocity(-l1 * std::cos(a) * v[0] - l2 * std::cos(s) * (v[0] + v[1]), 0.0,
                               l1 * std::sin(a) * v[0] + l2 * std::sin(s) * (v[0] + v[1]));
    forwardKinematics(model, data, q, v);
    const int tip_frame = model.frameId("tip");
    ABDYN_CHECK_REL(framePose(model, data, tip_frame).translation(), tip, 1e-14);
    ABDYN_CHECK_REL(frameVelocity(model, data, tip_frame, ReferenceFrame::LocalWorldAligned).linear(), tip_velocity, 1e-14);
    ABDYN_CHECK_REL(framePose(model, data, tip_frame).linear(), rotY(s), 1e-14);
  }
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_named) {
  std::mt19937 rng(7);
  const Model model = randomTree({4, true, true, false}, rng);
  Data data(model);
  const Eigen::VectorXd q = neutral(model);
  BOOST_CHECK_EXCEPTION(forwardKinematics(model, data, Eigen::VectorXd::Zero(3)), InvalidArgument,
                        [](const InvalidArgument& e) { return std::string(e.what()).find("'q' has size 3, expected 10") != std::string::npos; });
  BOOST_CHECK_EXCEPTION(forwardKinematics(model, data, q, Eigen::VectorXd::Zero(2)), InvalidArgument,
                        [](const InvalidArgument& e) { return std::string(e.what()).find("'v'") != std::string::npos; });
  BOOST_CHECK_THROW(frameJacobian(model, data, q, model.nframes(), ReferenceFrame::World), InvalidArgument);
  BOOST_CHECK_THROW(model.frameId("no_such_frame"), Error);
  BOOST_CHECK_THROW(model.bodyId("no_such_body"), Error);
  BOOST_CHECK_THROW(model.joint("no_such_joint"), Error);
  // Checked mode rejects NaN and non-unit quaternions.
  const bool saved = checkedMode();
  setCheckedMode(true);
  Eigen::VectorXd bad = q;
  bad[3] = 2.0;  // the floating base's qw
  BOOST_CHECK_EXCEPTION(forwardKinematics(model, data, bad), InvalidArgument,
                        [](const InvalidArgument& e) { return std::string(e.what()).find("quaternion") != std::string::npos; });
  bad = q;
  bad[8] = std::nan("");
  BOOST_CHECK_EXCEPTION(forwardKinematics(model, data, bad), InvalidArgument,
                        [](const InvalidArgument& e) { return std::string(e.what()).find("non-finite entry at index 8") != std::string::npos; });
  setCheckedMode(saved);
}
