#define BOOST_TEST_MODULE conventions
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/conventions/brax.hpp"
#include "abdyn/conventions/mujoco.hpp"
#include "abdyn/conventions/pinocchio.hpp"
#include "abdyn/conventions/rbdl.hpp"
#include "abdyn/conventions/tds.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// Round trips repeat the same numbers or undo one rounding: 1e-15 relative (a few units in the last place).
constexpr double kRoundTrip = 1e-15;
// Against a definition written out below: a handful of roundings of O(1) numbers.
constexpr double kTol = 1e-14;
constexpr int kTrials = 100;

// P swaps the 3-vector halves: angular-first <-> linear-first. P = P^T = P^-1.
Matrix6 swapHalves() {
  Matrix6 P = Matrix6::Zero();
  P.topRightCorner<3, 3>() = Matrix3::Identity();
  P.bottomLeftCorner<3, 3>() = Matrix3::Identity();
  return P;
}

// The rotation matrix of the unit quaternion (w, x, y, z), written out (Hamilton, active).
Matrix3 quatMatrix(const Vector4& q) {
  const double w = q(0), x = q(1), y = q(2), z = q(3);
  Matrix3 R;
  R << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
       2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
       2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return R;
}

Vector4 randomUnitQuaternion(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vector4 q(n(rng), n(rng), n(rng), n(rng));
  return q / q.norm();
}

RigidBodyInertia randomInertia(std::mt19937& rng) {
  std::uniform_real_distribution<double> mass(0.5, 5.0);
  return RigidBodyInertia(mass(rng), randomVector3(rng, 0.5), randomInertiaAboutCom(rng));
}

Plx randomPlx(std::mt19937& rng) { return Plx(randomRotation(rng), randomVector3(rng, 2.0)); }

// Joint axes of every kind the adapters convert: floating base, revolute, prismatic, helical, two
// spherical joints (so RBDL stores three w's at the end of q), a continuous joint last (Pinocchio's
// (cos, sin)), each with mass.
Model testModel() {
  ModelBuilder b("conventions");
  std::mt19937 rng(7);
  auto add = [&](int parent, JointType type, const std::string& joint, const std::string& body,
                 const Vector3& axis) {
    // The free joint's q is the base's pose in its parent frame: the world, when placed at its origin.
    const Plx X_tree = type == JointType::Floating ? Plx() : randomPlx(rng);
    JointSpec spec;
    spec.type = type;
    spec.name = joint;
    spec.axis = axis;
    if (type == JointType::Helical) spec.pitch = 0.1;
    spec.continuous = joint == "wheel";
    return b.addBody(parent, spec, X_tree, randomInertia(rng), body);
  };
  const int base = add(0, JointType::Floating, "root_joint", "base", Vector3::UnitZ());
  const int arm = add(base, JointType::Revolute, "shoulder", "arm", Vector3(1, 2, 2) / 3.0);
  add(arm, JointType::Spherical, "wrist", "hand", Vector3::UnitZ());
  add(base, JointType::Prismatic, "slider", "carriage", Vector3::UnitY());
  const int neck = add(base, JointType::Spherical, "neck", "head", Vector3::UnitZ());
  const int jaw = add(neck, JointType::Helical, "screw", "jaw", Vector3(0, 0.6, 0.8));
  add(jaw, JointType::Revolute, "wheel", "tyre", Vector3(0, 0, 1));
  return b.build();
}

Eigen::VectorXd randomVectorX(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd x(n);
  for (int k = 0; k < n; ++k) x(k) = u(rng);
  return x;
}

State randomState(const Model& model, std::mt19937& rng) {
  State s;
  s.q = randomConfiguration(model, rng);
  s.v = randomVectorX(rng, model.nv());
  s.qdd = randomVectorX(rng, model.nv());
  s.tau = randomVectorX(rng, model.nv());
  return s;
}

void checkRoundTrip(const State& a, const State& back) {
  ABDYN_CHECK_REL(back.q, a.q, kRoundTrip);
  ABDYN_CHECK_REL(back.v, a.v, kRoundTrip);
  ABDYN_CHECK_REL(back.qdd, a.qdd, kRoundTrip);
  ABDYN_CHECK_REL(back.tau, a.tau, kRoundTrip);
}

// The other library's q offset of each joint when its joints come in abdyn's order (one slot per joint).
int slotOf(const Model& model, const std::string& joint, bool w_at_end) {
  int q = 0;
  for (int i = 1; i < model.jointId(joint); ++i) q += model.joint(i).nq - (w_at_end && model.joint(i).hasQuaternion());
  return q;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// RBDL

BOOST_AUTO_TEST_CASE(rbdl_transform_is_plx) {
  // RBDL include/rbdl/SpatialAlgebraOperators.h, SpatialTransform::toMatrix: [E 0; -E rx E].
  std::mt19937 rng(1);
  for (int t = 0; t < kTrials; ++t) {
    const Plx X = randomPlx(rng);
    const rbdl::SpatialTransform S = rbdl::fromAbdyn(X);
    Matrix6 rbdl_matrix = Matrix6::Zero();
    rbdl_matrix.topLeftCorner<3, 3>() = S.E;
    rbdl_matrix.bottomLeftCorner<3, 3>() = -S.E * skew(S.r);
    rbdl_matrix.bottomRightCorner<3, 3>() = S.E;
    ABDYN_CHECK_REL(X.matrix(), rbdl_matrix, kTol);
    BOOST_TEST((rbdl::toAbdyn(S).matrix() == X.matrix()));  // exact: the same two fields
    // SpatialVector: the same six numbers, angular first.
    const Motion m(randomVector6(rng));
    const Force f(randomVector6(rng));
    BOOST_TEST((rbdl::fromAbdyn(m) == m.vector()));
    BOOST_TEST((rbdl::toAbdynForce(rbdl::fromAbdyn(f)).vector() == f.vector()));
    ABDYN_CHECK_REL(X.apply(m).vector(), rbdl_matrix * rbdl::fromAbdyn(m), kTol);
  }
}

BOOST_AUTO_TEST_CASE(rbdl_and_tds_inertias_hold_first_moment_pinocchio_holds_com) {
  // RBDL SpatialAlgebraOperators.h, SpatialRigidBodyInertia::toMatrix: [I, hx; -hx, m 1], I about the origin.
  // Pinocchio include/pinocchio/spatial/inertia.hpp, InertiaTpl::matrix_impl (linear first):
  //   [m 1, -m cx; m cx, Ic - m cx cx] with c = lever, Ic = inertia about c.
  std::mt19937 rng(2);
  const Matrix6 P = swapHalves();
  for (int t = 0; t < kTrials; ++t) {
    const RigidBodyInertia I = randomInertia(rng);
    const rbdl::SpatialRigidBodyInertia R = rbdl::fromAbdyn(I);
    Matrix6 rbdl_matrix;
    rbdl_matrix << R.I, skew(R.h), -skew(R.h), R.m * Matrix3::Identity();
    ABDYN_CHECK_REL(I.matrix(), rbdl_matrix, kTol);
    ABDYN_CHECK_REL(R.h, Vector3(I.mass() * I.com()), kRoundTrip);  // h = m c, not c
    ABDYN_CHECK_REL(rbdl::toAbdyn(R).matrix(), I.matrix(), kRoundTrip);

    const tds::RigidBodyInertia D = tds::fromAbdyn(I);  // the same numbers as RBDL's
    BOOST_TEST((D.com == R.h));
    ABDYN_CHECK_REL(tds::toAbdyn(D).matrix(), I.matrix(), kRoundTrip);

    const pinocchio::Inertia N = pinocchio::fromAbdyn(I);
    BOOST_TEST((N.lever == I.com()));  // c, not m c
    const Matrix3 cx = skew(N.lever);
    Matrix6 pin_matrix;
    pin_matrix << N.mass * Matrix3::Identity(), -N.mass * cx, N.mass * cx, N.inertia - N.mass * cx * cx;
    ABDYN_CHECK_REL(P * I.matrix() * P, pin_matrix, kTol);
    BOOST_TEST((pinocchio::toAbdyn(N).matrix() == I.matrix()));
  }
  // Reading RBDL's h as Pinocchio's c is the bug this trap guards: it differs as soon as m != 1.
  const RigidBodyInertia I(2.0, Vector3(0.1, 0.2, 0.3), Matrix3::Identity());
  BOOST_TEST((rbdl::fromAbdyn(I).h - pinocchio::fromAbdyn(I).lever).norm() > 0.1);
}

BOOST_AUTO_TEST_CASE(first_moment_inertia_errors) {
  rbdl::SpatialRigidBodyInertia bad;
  bad.h = Vector3(1, 0, 0);  // massless with a first moment
  BOOST_CHECK_THROW(rbdl::toAbdyn(bad), Error);
  tds::RigidBodyInertia bad_tds;
  bad_tds.mass = 1.0;
  bad_tds.inertia = -Matrix3::Identity();  // not positive semi-definite
  BOOST_CHECK_THROW(tds::toAbdyn(bad_tds), Error);
  brax::Inertia bad_brax;
  bad_brax.mass = -1.0;
  BOOST_CHECK_THROW(brax::linkInertiaToAbdyn(bad_brax), Error);
  BOOST_CHECK_THROW(brax::spatialInertiaToAbdyn(bad_brax), Error);
  // A massless body without first moment is valid.
  BOOST_TEST((rbdl::toAbdyn(rbdl::SpatialRigidBodyInertia{}).mass() == 0.0));
}

BOOST_AUTO_TEST_CASE(rbdl_floating_base_stores_w_at_end_of_q) {
  // RBDL src/Model.cc, Model::AddBody: multdof3_w_index[i] = dof_count + (number of earlier spherical
  // joints); include/rbdl/Model.h, GetQuaternion: (q[q_index], q[q_index+1], q[q_index+2], q[w_index]).
  // addons/urdfreader: the floating base is TranslationXYZ then Spherical.
  const Model model = testModel();
  std::mt19937 rng(3);
  const State a = randomState(model, rng);
  const State r = rbdl::stateFromAbdyn(model, a);
  BOOST_TEST(r.q.size() == model.nq());
  int k = 0;  // quaternion joints so far
  for (const std::string name : {"root_joint", "wrist", "neck"}) {
    const Joint& j = model.joint(name);
    const int slot = slotOf(model, name, true) + (j.type == JointType::Floating ? 3 : 0);
    const int quat = j.idx_q + (j.type == JointType::Floating ? 3 : 0);
    BOOST_TEST(r.q(model.nv() + k) == a.q(quat));  // w after all nv other coordinates
    BOOST_TEST((r.q.segment<3>(slot) == a.q.segment<3>(quat + 1)));
    ++k;
  }
  checkRoundTrip(a, rbdl::stateToAbdyn(model, r));
}

// ---------------------------------------------------------------------------------------------------
// Pinocchio

BOOST_AUTO_TEST_CASE(pinocchio_se3_acts_child_to_parent_linear_first) {
  // Pinocchio include/pinocchio/spatial/se3-tpl.hpp, toActionMatrix_impl: linear first,
  // [R, px R; 0, R]; toDualActionMatrix_impl: [R, 0; px R, R]. M = oMi maps B-coordinates to A.
  std::mt19937 rng(4);
  const Matrix6 P = swapHalves();
  for (int t = 0; t < kTrials; ++t) {
    const Plx X_B_A = randomPlx(rng);
    const pinocchio::SE3 M = pinocchio::fromAbdyn(X_B_A);
    const Matrix3& R = M.rotation;
    const Matrix3 pxR = skew(M.translation) * R;
    Matrix6 action, dual_action;
    action << R, pxR, Matrix3::Zero(), R;
    dual_action << R, Matrix3::Zero(), pxR, R;
    ABDYN_CHECK_REL(P * action * P, X_B_A.inverse().matrix(), kTol);
    ABDYN_CHECK_REL(P * dual_action * P, X_B_A.inverse().dualMatrix(), kTol);
    BOOST_TEST((pinocchio::toAbdyn(M).matrix() == X_B_A.matrix()));
    // The pose reading: M is the pose Plxb(R, p) and moves points from B to A.
    BOOST_TEST((pinocchio::toAbdynPlxb(M).toPlx().matrix() == X_B_A.matrix()));
    const Vector3 x = randomVector3(rng);
    ABDYN_CHECK_REL(Vector3(R * x + M.translation), X_B_A.applyInverseToPoint(x), kTol);
  }
}

BOOST_AUTO_TEST_CASE(pinocchio_vectors_are_linear_first) {
  // Pinocchio include/pinocchio/spatial/motion-dense.hpp and force-dense.hpp: toVector() = [linear; angular].
  std::mt19937 rng(5);
  const Matrix6 P = swapHalves();
  const Motion m(randomVector6(rng));
  const Force f(randomVector6(rng));
  BOOST_TEST((pinocchio::fromAbdyn(m).toVector() == P * m.vector()));
  BOOST_TEST((pinocchio::fromAbdyn(f).toVector() == P * f.vector()));
  BOOST_TEST((pinocchio::toAbdyn(pinocchio::fromAbdyn(m)).vector() == m.vector()));
  BOOST_TEST((pinocchio::toAbdyn(pinocchio::fromAbdyn(f)).vector() == f.vector()));
}

BOOST_AUTO_TEST_CASE(pinocchio_free_flyer_is_xyzw_and_body_frame_linear_first) {
  // Pinocchio include/pinocchio/multibody/joint/joint-free-flyer.hpp: q = (p, quaternion x, y, z, w),
  // v = body spatial velocity, linear first; joint-spherical.hpp: (x, y, z, w), body angular velocity.
  const Model model = testModel();
  Data data(model);
  std::mt19937 rng(6);
  const int frame = model.frameId("base");
  for (int t = 0; t < 20; ++t) {
    const State a = randomState(model, rng);
    const State p = pinocchio::stateFromAbdyn(model, a);
    BOOST_TEST((p.q.segment<3>(0) == a.q.segment<3>(0)));
    BOOST_TEST((p.q.segment<4>(3) == Vector4(a.q(4), a.q(5), a.q(6), a.q(3))));
    // A continuous joint is (cos, sin) in Pinocchio's q, one coordinate more.
    BOOST_TEST(p.q.size() == model.nq() + 1);
    const double wheel = a.q(model.joint("wheel").idx_q);
    BOOST_TEST((p.q.segment<2>(slotOf(model, "wheel", false)) == Eigen::Vector2d(std::cos(wheel), std::sin(wheel))));
    const int wrist_q = model.joint("wrist").idx_q;
    BOOST_TEST((p.q.segment<4>(slotOf(model, "wrist", false)) ==
               Vector4(a.q(wrist_q + 1), a.q(wrist_q + 2), a.q(wrist_q + 3), a.q(wrist_q))));
    // Physically: the base's velocity in its own frame is Pinocchio's v, linear first.
    forwardKinematics(model, data, a.q, a.v);
    const Motion v_local = frameVelocity(model, data, frame, ReferenceFrame::Local);
    ABDYN_CHECK_REL(Vector3(p.v.segment<3>(0)), v_local.linear(), kTol);
    ABDYN_CHECK_REL(Vector3(p.v.segment<3>(3)), v_local.angular(), kTol);
    checkRoundTrip(a, pinocchio::stateToAbdyn(model, p));
  }
}

// ---------------------------------------------------------------------------------------------------
// MuJoCo and Brax

BOOST_AUTO_TEST_CASE(mujoco_and_brax_free_joint_velocity_is_linear_in_world_angular_in_body) {
  // MuJoCo include/mujoco/mjmodel.h (mjJNT_FREE) and src/engine/engine_core_smooth.c (mj_comVel):
  // qpos = (pos, quat w first); qvel = (linear velocity in the world, angular velocity in the body).
  // Brax brax/base.py (Q_WIDTHS 'f': 7, QD_WIDTHS 'f': 6) builds its System from MuJoCo's model.
  const Model model = testModel();
  Data data(model);
  std::mt19937 rng(8);
  const int frame = model.frameId("base");
  for (int t = 0; t < 20; ++t) {
    const State a = randomState(model, rng);
    for (const State& o : {mujoco::stateFromAbdyn(model, a), brax::stateFromAbdyn(model, a)}) {
      BOOST_TEST((o.q.segment<7>(0) == a.q.segment<7>(0)));
      const Matrix3 R = quatMatrix(o.q.segment<4>(3));
      // World velocity of the base's origin and its angular velocity, from abdyn's kinematics ...
      forwardKinematics(model, data, a.q, a.v, a.qdd);
      const Motion v_lwa = frameVelocity(model, data, frame, ReferenceFrame::LocalWorldAligned);
      // ... and from the other library's definition of qvel and qacc.
      ABDYN_CHECK_REL(Vector3(o.v.segment<3>(0)), v_lwa.linear(), kTol);
      ABDYN_CHECK_REL(Vector3(R * o.v.segment<3>(3)), v_lwa.angular(), kTol);
      ABDYN_CHECK_REL(Vector3(o.qdd.segment<3>(0)), frameClassicalAcceleration(model, data, frame), kTol);
      // Generalized forces are dual to velocities: the power is layout-independent.
      BOOST_TEST(std::abs(o.tau.dot(o.v) - a.tau.dot(a.v)) <= kTol * (1.0 + std::abs(a.tau.dot(a.v))));
      checkRoundTrip(a, mujoco::stateToAbdyn(model, o));
    }
  }
}

BOOST_AUTO_TEST_CASE(rbdl_floating_base_velocity_and_acceleration_physics) {
  // RBDL's TranslationXYZ joint moves the base in the world, its Spherical joint rotates in the body:
  // v = (pdot, w_b), qdd = (pddot, wdot_b).
  const Model model = testModel();
  Data data(model);
  std::mt19937 rng(9);
  const int frame = model.frameId("base");
  const State a = randomState(model, rng);
  const State r = rbdl::stateFromAbdyn(model, a);
  forwardKinematics(model, data, a.q, a.v, a.qdd);
  const Motion v_local = frameVelocity(model, data, frame, ReferenceFrame::Local);
  const Motion v_lwa = frameVelocity(model, data, frame, ReferenceFrame::LocalWorldAligned);
  ABDYN_CHECK_REL(Vector3(r.v.segment<3>(0)), v_lwa.linear(), kTol);
  ABDYN_CHECK_REL(Vector3(r.v.segment<3>(3)), v_local.angular(), kTol);
  ABDYN_CHECK_REL(Vector3(r.qdd.segment<3>(0)), frameClassicalAcceleration(model, data, frame), kTol);
  BOOST_TEST(std::abs(r.tau.dot(r.v) - a.tau.dot(a.v)) <= kTol * (1.0 + std::abs(a.tau.dot(a.v))));
}

BOOST_AUTO_TEST_CASE(brax_do_maps_motion_parent_to_child_but_force_child_to_parent) {
  // Brax brax/base.py, _transform_do(Motion): ang = R^T w, vel = R^T (v - p x w);
  // _transform_inv_do(Motion): ang = R w, vel = R v + p x ang;
  // _transform_do(Force): vel = R f, ang = R n + p x vel. Written out here with R from the quaternion.
  std::mt19937 rng(10);
  for (int t = 0; t < kTrials; ++t) {
    const brax::Transform T{randomVector3(rng, 2.0), randomUnitQuaternion(rng)};
    const Matrix3 R = quatMatrix(T.rot);
    const Vector3& p = T.pos;
    const brax::Motion m{randomVector3(rng), randomVector3(rng)};
    const brax::Force f{randomVector3(rng), randomVector3(rng)};

    const brax::Motion m_C = brax::do_(T, m);
    ABDYN_CHECK_REL(m_C.ang, Vector3(R.transpose() * m.ang), kTol);
    ABDYN_CHECK_REL(m_C.vel, Vector3(R.transpose() * (m.vel - p.cross(m.ang))), kTol);
    const brax::Motion m_P = brax::invDo(T, m);
    ABDYN_CHECK_REL(m_P.ang, Vector3(R * m.ang), kTol);
    ABDYN_CHECK_REL(m_P.vel, Vector3(R * m.vel + p.cross(R * m.ang)), kTol);
    const brax::Force f_P = brax::do_(T, f);
    ABDYN_CHECK_REL(f_P.vel, Vector3(R * f.vel), kTol);
    ABDYN_CHECK_REL(f_P.ang, Vector3(R * f.ang + p.cross(R * f.vel)), kTol);

    // The directions in abdyn's terms: a motion goes P -> C like Plxb::apply, a force C -> P like
    // Plxb::applyInverse, so that power is preserved between do(m) in C and f in C.
    const Plxb T_P_C = brax::toAbdyn(T);
    ABDYN_CHECK_REL(brax::toAbdyn(m_C).vector(), T_P_C.apply(brax::toAbdyn(m)).vector(), kTol);
    ABDYN_CHECK_REL(brax::toAbdyn(f_P).vector(), T_P_C.applyInverse(brax::toAbdyn(f)).vector(), kTol);
    const double power_C = m_C.ang.dot(f.ang) + m_C.vel.dot(f.vel);
    const double power_P = m.ang.dot(f_P.ang) + m.vel.dot(f_P.vel);
    BOOST_TEST(std::abs(power_C - power_P) <= kTol * (1.0 + std::abs(power_P)));
    // Reading do() as abdyn's apply for forces is wrong: the P -> C force differs.
    BOOST_TEST((brax::toAbdyn(f_P).vector() - T_P_C.apply(brax::toAbdyn(f)).vector()).norm() > 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(brax_transform_composition_and_to_local) {
  // Brax brax/base.py, _transform_do(Transform): pos = p + R t.pos, rot = rot * t.rot (quat_mul);
  // Transform.to_local(t): pos = R_t^T (pos - t.pos), rot = t.rot^-1 * rot.
  std::mt19937 rng(11);
  for (int t = 0; t < kTrials; ++t) {
    const brax::Transform A{randomVector3(rng, 2.0), randomUnitQuaternion(rng)};
    const brax::Transform B{randomVector3(rng, 2.0), randomUnitQuaternion(rng)};
    const Matrix3 RA = quatMatrix(A.rot), RB = quatMatrix(B.rot);
    const brax::Transform AB = brax::do_(A, B);
    ABDYN_CHECK_REL(AB.pos, Vector3(A.pos + RA * B.pos), kTol);
    ABDYN_CHECK_REL(quatMatrix(AB.rot), Matrix3(RA * RB), kTol);
    const brax::Transform L = brax::toLocal(A, B);
    ABDYN_CHECK_REL(L.pos, Vector3(RB.transpose() * (A.pos - B.pos)), kTol);
    ABDYN_CHECK_REL(quatMatrix(L.rot), Matrix3(RB.transpose() * RA), kTol);
    // Round trips: a transform through Plxb and back, a pose through a Brax transform and back.
    const brax::Transform A2 = brax::fromAbdyn(brax::toAbdyn(A));
    ABDYN_CHECK_REL(A2.pos, A.pos, kRoundTrip);
    ABDYN_CHECK_REL(quatMatrix(A2.rot), RA, kRoundTrip * 4);
    const Plxb T(randomRotation(rng), randomVector3(rng));
    ABDYN_CHECK_REL(brax::toAbdyn(brax::fromAbdyn(T)).matrix(), T.matrix(), kRoundTrip * 4);
    ABDYN_CHECK_REL(mujoco::toAbdyn(mujoco::fromAbdyn(T)).matrix(), T.matrix(), kRoundTrip * 4);
    BOOST_TEST(mujoco::fromAbdyn(T).quat(0) >= 0.0);  // w first, non-negative
    // Composition agrees with Plxb's (right-associative) product.
    ABDYN_CHECK_REL(brax::toAbdyn(AB).matrix(), (brax::toAbdyn(A) * brax::toAbdyn(B)).matrix(), kTol);
  }
}

BOOST_AUTO_TEST_CASE(brax_inertia_do_and_mul) {
  // Brax brax/base.py, _transform_do(Inertia): h = cross(pos, -eye(3)), i' = R i R^T + h h^T m,
  // transform' = (pos * m, rot); Inertia.mul(m): ang = i w + pos x v, vel = mass v - pos x w.
  std::mt19937 rng(12);
  for (int t = 0; t < kTrials; ++t) {
    const RigidBodyInertia I_C = randomInertia(rng);
    const brax::Transform T{randomVector3(rng, 2.0), randomUnitQuaternion(rng)};
    const Matrix3 R = quatMatrix(T.rot);
    // A link inertia whose inertial frame sits at T: Brax's do() reads only i and mass.
    const brax::Inertia link{brax::Transform{}, I_C.inertiaAboutCom(), I_C.mass()};
    const brax::Inertia spatial = brax::do_(T, link);
    Matrix3 h;
    for (int k = 0; k < 3; ++k) h.row(k) = T.pos.cross(-Vector3::Unit(k)).transpose();
    ABDYN_CHECK_REL(spatial.i, Matrix3(R * link.i * R.transpose() + h * h.transpose() * link.mass), kTol);
    ABDYN_CHECK_REL(spatial.transform.pos, Vector3(T.pos * link.mass), kTol);
    // The spatial form means: the body with centre of mass at T.pos, in P, as abdyn moves it.
    const RigidBodyInertia I_P = brax::toAbdyn(T).applyInverse(RigidBodyInertia(I_C.mass(), Vector3::Zero(), I_C.inertiaAboutCom()));
    ABDYN_CHECK_REL(brax::spatialInertiaToAbdyn(spatial).matrix(), I_P.matrix(), kTol);
    // mul() is that inertia's 6x6 matrix, column by column.
    Matrix6 mul_matrix;
    for (int k = 0; k < 6; ++k) {
      const Vector6 e = Vector6::Unit(k);
      const brax::Force col = brax::mul(spatial, brax::Motion{e.head<3>(), e.tail<3>()});
      mul_matrix.col(k) << col.ang, col.vel;
    }
    ABDYN_CHECK_REL(mul_matrix, I_P.matrix(), kTol);
    // Round trips of both forms.
    ABDYN_CHECK_REL(brax::linkInertiaToAbdyn(brax::linkInertiaFromAbdyn(I_C)).matrix(), I_C.matrix(), kRoundTrip);
    ABDYN_CHECK_REL(brax::spatialInertiaToAbdyn(brax::spatialInertiaFromAbdyn(I_C)).matrix(), I_C.matrix(), kRoundTrip);
    // A link inertia with a rotated inertial frame: Ic = R i R^T about c = transform.pos.
    const brax::Inertia rotated{T, I_C.inertiaAboutCom(), I_C.mass()};
    const RigidBodyInertia I_rot = brax::linkInertiaToAbdyn(rotated);
    ABDYN_CHECK_REL(I_rot.com(), T.pos, kRoundTrip);
    ABDYN_CHECK_REL(I_rot.inertiaAboutCom(), Matrix3(R * I_C.inertiaAboutCom() * R.transpose()), kTol);
  }
}

// ---------------------------------------------------------------------------------------------------
// Tiny Differentiable Simulator

BOOST_AUTO_TEST_CASE(tds_transform_is_right_associative_plxb) {
  // TDS src/math/transform.hpp (RIGHT_ASSOCIATIVE_TRANSFORMS): matrix() = [E 0; -E rx E] with
  // E = rotation^T; operator*: (t1 + R1 t2, R1 R2); apply(RigidBodyInertia) = X* I X^-1 as
  // inertia' = E (I + rx hx + (h - m r)x rx) E^T, h' = E (h - m r) (h = the field `com`).
  std::mt19937 rng(13);
  for (int t = 0; t < kTrials; ++t) {
    const Plxb T1(randomRotation(rng), randomVector3(rng, 2.0));
    const Plxb T2(randomRotation(rng), randomVector3(rng, 2.0));
    const tds::Transform A = tds::fromAbdyn(T1), B = tds::fromAbdyn(T2);
    const Matrix3 E = A.rotation.transpose();
    Matrix6 tds_matrix = Matrix6::Zero();
    tds_matrix.topLeftCorner<3, 3>() = E;
    tds_matrix.bottomLeftCorner<3, 3>() = -E * skew(A.translation);
    tds_matrix.bottomRightCorner<3, 3>() = E;
    ABDYN_CHECK_REL(T1.matrix(), tds_matrix, kTol);
    const tds::Transform AB{A.translation + A.rotation * B.translation, A.rotation * B.rotation};
    ABDYN_CHECK_REL(tds::toAbdyn(AB).matrix(), (T1 * T2).matrix(), kTol);
    BOOST_TEST((tds::toAbdyn(A).matrix() == T1.matrix()));

    const RigidBodyInertia I = randomInertia(rng);
    const tds::RigidBodyInertia D = tds::fromAbdyn(I);
    const Matrix3 rx = skew(A.translation);
    const Vector3 h_mr = D.com - D.mass * A.translation;
    const tds::RigidBodyInertia moved{D.mass, E * h_mr,
                                      E * (D.inertia + rx * skew(D.com) + skew(h_mr) * rx) * E.transpose()};
    ABDYN_CHECK_REL(tds::toAbdyn(moved).matrix(), T1.apply(I).matrix(), kTol);
  }
}

// ---------------------------------------------------------------------------------------------------
// External forces

BOOST_AUTO_TEST_CASE(external_forces_rbdl_in_world_mujoco_at_com) {
  // RBDL include/rbdl/Dynamics.h, ForwardDynamics: f_ext "acting on the body in base coordinates".
  // MuJoCo include/mujoco/mjdata.h, xfrc_applied: Cartesian force and torque per body, the torque
  // about the body's centre of mass (mj_xfrcAccumulate applies it at xipos), world axes.
  std::mt19937 rng(18);
  for (int t = 0; t < kTrials; ++t) {
    const Plx X_body_world = randomPlx(rng);
    const Force f_body(randomVector6(rng));
    const Vector3 com_body = randomVector3(rng, 0.5);
    // RBDL: X^T maps a force from body to world coordinates (X* = X^-T maps world to body).
    const Vector6 f_world = X_body_world.matrix().transpose() * f_body.vector();
    ABDYN_CHECK_REL(rbdl::externalForceFromAbdyn(X_body_world, f_body), f_world, kTol);
    ABDYN_CHECK_REL(rbdl::externalForceToAbdyn(X_body_world, f_world).vector(), f_body.vector(), kTol);
    // MuJoCo: force R f_b, torque about the centre of mass R (n_b - c_b x f_b), R = body to world.
    const Matrix3 R = X_body_world.E().transpose();
    Vector6 xfrc;
    xfrc << R * f_body.linear(), R * (f_body.angular() - com_body.cross(f_body.linear()));
    ABDYN_CHECK_REL(mujoco::xfrcAppliedFromAbdyn(X_body_world, com_body, f_body), xfrc, kTol);
    ABDYN_CHECK_REL(mujoco::xfrcAppliedToAbdyn(X_body_world, com_body, xfrc).vector(), f_body.vector(), kTol);
  }
}

// ---------------------------------------------------------------------------------------------------
// States: joint order, round trips, errors

BOOST_AUTO_TEST_CASE(state_joint_order_by_name) {
  const Model model = testModel();
  std::mt19937 rng(14);
  const State a = randomState(model, rng);
  // The other library numbers the joints differently: here reversed.
  JointOrder order;
  for (int i = model.nbodies() - 1; i >= 1; --i) order.push_back(model.joint(i).name);
  const State m = mujoco::stateFromAbdyn(model, a, order);
  // "wheel" is the last body, so it comes first, then "screw"; then "neck" (a ball, w first).
  BOOST_TEST(m.q(0) == a.q(model.joint("wheel").idx_q));
  BOOST_TEST(m.q(1) == a.q(model.joint("screw").idx_q));
  BOOST_TEST(m.v(1) == a.v(model.joint("screw").idx_v));
  BOOST_TEST((m.q.segment<4>(2) == a.q.segment<4>(model.joint("neck").idx_q)));
  BOOST_TEST((m.tau.segment<3>(2) == a.tau.segment<3>(model.joint("neck").idx_v)));
  checkRoundTrip(a, mujoco::stateToAbdyn(model, m, order));
  const State r = rbdl::stateFromAbdyn(model, a, order);
  // RBDL's w's follow in RBDL's joint order: neck, wrist, root_joint.
  BOOST_TEST(r.q(model.nv()) == a.q(model.joint("neck").idx_q));
  BOOST_TEST(r.q(model.nv() + 2) == a.q(model.joint("root_joint").idx_q + 3));
  checkRoundTrip(a, rbdl::stateToAbdyn(model, r, order));
  checkRoundTrip(a, pinocchio::stateToAbdyn(model, pinocchio::stateFromAbdyn(model, a, order), order));
  checkRoundTrip(a, brax::stateToAbdyn(model, brax::stateFromAbdyn(model, a, order), order));
}

BOOST_AUTO_TEST_CASE(state_partial_vectors) {
  const Model model = testModel();
  std::mt19937 rng(15);
  State a = randomState(model, rng);
  a.qdd.resize(0);
  a.tau.resize(0);
  const State p = pinocchio::stateFromAbdyn(model, a);
  BOOST_TEST(p.qdd.size() == 0);
  BOOST_TEST(p.tau.size() == 0);
  checkRoundTrip(a, pinocchio::stateToAbdyn(model, p));
}

BOOST_AUTO_TEST_CASE(state_conversion_errors) {
  const Model model = testModel();
  std::mt19937 rng(16);
  const State good = randomState(model, rng);
  State s = good;
  s.q.resize(3);
  BOOST_CHECK_THROW(rbdl::stateFromAbdyn(model, s), InvalidArgument);
  s = good;
  s.v.resize(2);
  BOOST_CHECK_THROW(pinocchio::stateToAbdyn(model, s), InvalidArgument);
  s = pinocchio::stateFromAbdyn(model, good);
  s.q.conservativeResize(model.nq());  // Pinocchio's q has one more coordinate (the continuous joint)
  BOOST_CHECK_THROW(pinocchio::stateToAbdyn(model, s), InvalidArgument);
  s = good;
  s.tau.resize(model.nv() + 1);
  BOOST_CHECK_THROW(mujoco::stateFromAbdyn(model, s), InvalidArgument);
  s = good;
  s.v.resize(0);  // qdd of a free joint needs v
  BOOST_CHECK_THROW(brax::stateFromAbdyn(model, s), InvalidArgument);
  try {
    s = good;
    s.qdd.resize(1);
    mujoco::stateFromAbdyn(model, s);
    BOOST_FAIL("expected InvalidArgument");
  } catch (const InvalidArgument& e) {
    BOOST_TEST(std::string(e.what()).find("MuJoCo") != std::string::npos);
    BOOST_TEST(std::string(e.what()).find("qdd") != std::string::npos);
  }
  JointOrder order;
  for (int i = 1; i < model.nbodies(); ++i) order.push_back(model.joint(i).name);
  JointOrder missing(order.begin(), order.end() - 1);
  BOOST_CHECK_THROW(mujoco::stateFromAbdyn(model, good, missing), Error);
  JointOrder twice = order;
  twice.back() = twice.front();
  BOOST_CHECK_THROW(rbdl::stateFromAbdyn(model, good, twice), Error);
  JointOrder unknown = order;
  unknown.back() = "no_such_joint";
  BOOST_CHECK_THROW(pinocchio::stateFromAbdyn(model, good, unknown), Error);

  ModelBuilder b("planar");
  JointSpec planar;
  planar.type = JointType::Planar;
  planar.name = "plane";
  b.addBody(0, planar, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity()), "puck");
  const Model pm = b.build();
  State ps;
  ps.q = neutral(pm);
  try {
    rbdl::stateFromAbdyn(pm, ps);
    BOOST_FAIL("expected Error");
  } catch (const Error& e) {
    BOOST_TEST(std::string(e.what()).find("'plane' is planar") != std::string::npos);
  }
}
