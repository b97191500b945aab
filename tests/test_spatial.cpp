#define BOOST_TEST_MODULE spatial
#include <boost/test/unit_test.hpp>

#include <Eigen/LU>

#include "abdyn/error.hpp"
#include "abdyn/spatial/cross.hpp"
#include "abdyn/spatial/plx.hpp"
#include "abdyn/spatial/plxb.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// Dense references, written from Featherstone's definitions (RBDA sec. 2.8 and A.2), independent of
// the classes under test: rot(E) = diag(E, E), xlt(r) = [1 0; -rx 1], plx(E, r) = rot(E) xlt(r).
Matrix6 denseRot(const Matrix3& E) {
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = E;
  X.bottomRightCorner<3, 3>() = E;
  return X;
}
Matrix6 denseXlt(const Vector3& r) {
  Matrix6 X = Matrix6::Identity();
  X.bottomLeftCorner<3, 3>() = -skew(r);
  return X;
}
Matrix6 densePlx(const Matrix3& E, const Vector3& r) { return denseRot(E) * denseXlt(r); }
// The rigid-body inertia of a cloud of point masses, summed point by point (each point at p with mass
// m has I = [-m px px, m px; -m px, m 1]); an independent route to the compact form's matrix.
struct PointCloud {
  std::vector<double> m;
  std::vector<Vector3> p;
};
PointCloud randomCloud(std::mt19937& rng) {
  PointCloud cloud;
  std::uniform_real_distribution<double> mass(0.1, 2.0);
  for (int k = 0; k < 7; ++k) {
    cloud.m.push_back(mass(rng));
    cloud.p.push_back(randomVector3(rng));
  }
  return cloud;
}
Matrix6 denseInertia(const PointCloud& cloud) {
  Matrix6 I = Matrix6::Zero();
  for (size_t k = 0; k < cloud.m.size(); ++k) {
    const Matrix3 px = skew(cloud.p[k]);
    I.topLeftCorner<3, 3>() += -cloud.m[k] * px * px;
    I.topRightCorner<3, 3>() += cloud.m[k] * px;
    I.bottomLeftCorner<3, 3>() += -cloud.m[k] * px;
    I.bottomRightCorner<3, 3>() += cloud.m[k] * Matrix3::Identity();
  }
  return I;
}
RigidBodyInertia compactInertia(const PointCloud& cloud) {
  double m = 0.0;
  Vector3 h = Vector3::Zero();
  for (size_t k = 0; k < cloud.m.size(); ++k) {
    m += cloud.m[k];
    h += cloud.m[k] * cloud.p[k];
  }
  const Vector3 c = h / m;
  Matrix3 Ic = Matrix3::Zero();
  for (size_t k = 0; k < cloud.m.size(); ++k) {
    const Matrix3 dx = skew(cloud.p[k] - c);
    Ic -= cloud.m[k] * dx * dx;
  }
  return RigidBodyInertia(m, c, Ic);
}
Plx randomPlx(std::mt19937& rng) { return Plx(randomRotation(rng), randomVector3(rng, 2.0)); }
RigidBodyInertia randomRigidInertia(std::mt19937& rng) {
  std::uniform_real_distribution<double> mass(0.5, 5.0);
  return RigidBodyInertia(mass(rng), randomVector3(rng, 0.5), randomInertiaAboutCom(rng));
}

constexpr int kTrials = 200;
// Tolerance for compact-versus-dense comparisons: a few dozen roundings of O(1) numbers in float64.
constexpr double kTol = 1e-12;

}  // namespace

BOOST_AUTO_TEST_CASE(vectors_are_angular_first) {
  const Motion m(Vector3(1, 2, 3), Vector3(4, 5, 6));
  const Force f(Vector3(7, 8, 9), Vector3(10, 11, 12));
  BOOST_TEST((m.vector() - (Vector6() << 1, 2, 3, 4, 5, 6).finished()).norm() == 0.0);
  BOOST_TEST((f.vector() - (Vector6() << 7, 8, 9, 10, 11, 12).finished()).norm() == 0.0);
  BOOST_TEST(dot(m, f) == 1 * 7 + 2 * 8 + 3 * 9 + 4 * 10 + 5 * 11 + 6 * 12);
  BOOST_TEST(((m + m * 2.0 - 3.0 * m).vector().norm()) == 0.0);
  BOOST_TEST(((f - (-f) - 2.0 * f).vector().norm()) == 0.0);
}

BOOST_AUTO_TEST_CASE(cross_products_match_their_matrices) {
  std::mt19937 rng(11);
  for (int t = 0; t < kTrials; ++t) {
    const Motion a(randomVector6(rng)), b(randomVector6(rng));
    const Force f(randomVector6(rng));
    ABDYN_CHECK_REL(crm(a, b).vector(), (crm(a) * b.vector()).eval(), kTol);
    ABDYN_CHECK_REL(crf(a, f).vector(), (crf(a) * f.vector()).eval(), kTol);
    ABDYN_CHECK_REL(crf(a), (-crm(a).transpose()).eval(), 0.0);
    BOOST_TEST(crm(a, a).vector().norm() <= 1e-15 * a.vector().squaredNorm());
    // The dual cross product is minus the adjoint: (a x b) . f = -b . (a x* f).
    BOOST_TEST(std::abs(dot(crm(a, b), f) + dot(b, crf(a, f))) <= 1e-13);
  }
}

BOOST_AUTO_TEST_CASE(plx_matches_dense_definition) {
  std::mt19937 rng(12);
  for (int t = 0; t < kTrials; ++t) {
    const Matrix3 E = randomRotation(rng);
    const Vector3 r = randomVector3(rng, 2.0);
    const Plx X(E, r);
    const Matrix6 Xd = densePlx(E, r);
    ABDYN_CHECK_REL(X.matrix(), Xd, kTol);
    ABDYN_CHECK_REL(X.dualMatrix(), Matrix6(Xd.inverse().transpose()), kTol);
    const Motion m(randomVector6(rng));
    const Force f(randomVector6(rng));
    ABDYN_CHECK_REL(X.apply(m).vector(), (Xd * m.vector()).eval(), kTol);
    ABDYN_CHECK_REL((X * m).vector(), X.apply(m).vector(), 0.0);
    ABDYN_CHECK_REL(X.apply(f).vector(), (Xd.inverse().transpose() * f.vector()).eval(), kTol);
    ABDYN_CHECK_REL(X.applyInverse(m).vector(), (Xd.inverse() * m.vector()).eval(), kTol);
    ABDYN_CHECK_REL(X.applyInverse(f).vector(), (Xd.transpose() * f.vector()).eval(), kTol);
    ABDYN_CHECK_REL(X.inverse().matrix(), Matrix6(Xd.inverse()), kTol);
    // Power is invariant: (X m) . (X* f) = m . f.
    BOOST_TEST(std::abs(dot(X.apply(m), X.apply(f)) - dot(m, f)) <= 1e-12 * (1 + std::abs(dot(m, f))));
  }
}

BOOST_AUTO_TEST_CASE(plx_composition_inverse_and_cross_covariance) {
  std::mt19937 rng(13);
  for (int t = 0; t < kTrials; ++t) {
    const Plx X1 = randomPlx(rng), X2 = randomPlx(rng), X3 = randomPlx(rng);
    // plx(E1, r1) plx(E2, r2) = plx(E1 E2, E2^T r1 + r2), and it is the matrix product.
    const Plx X12 = X1 * X2;
    ABDYN_CHECK_REL(X12.E(), (X1.E() * X2.E()).eval(), kTol);
    ABDYN_CHECK_REL(X12.r(), (X2.E().transpose() * X1.r() + X2.r()).eval(), kTol);
    ABDYN_CHECK_REL(X12.matrix(), (X1.matrix() * X2.matrix()).eval(), kTol);
    ABDYN_CHECK_REL(((X1 * X2) * X3).matrix(), (X1 * (X2 * X3)).matrix(), kTol);
    ABDYN_CHECK_REL((X1 * X1.inverse()).matrix(), Matrix6::Identity(), kTol);
    ABDYN_CHECK_REL((X1.inverse() * X1).matrix(), Matrix6::Identity(), kTol);
    // X crm(m) X^-1 = crm(X m) and X* crf(m) X*^-1 = crf(X m).
    const Motion m(randomVector6(rng));
    ABDYN_CHECK_REL(Matrix6(X1.matrix() * crm(m) * X1.matrix().inverse()), crm(X1.apply(m)), kTol);
    ABDYN_CHECK_REL(Matrix6(X1.dualMatrix() * crf(m) * X1.dualMatrix().inverse()), crf(X1.apply(m)), kTol);
    // A pose round trip: fromPose(toPose()) is the same transform.
    ABDYN_CHECK_REL(Plx::fromPose(X1.toPose()).matrix(), X1.matrix(), kTol);
  }
  // rot and xlt are the factors of plx.
  const Matrix3 E = randomRotation(rng);
  const Vector3 r = randomVector3(rng);
  ABDYN_CHECK_REL((Plx::rotation(E) * Plx::translation(r)).matrix(), densePlx(E, r), kTol);
}

BOOST_AUTO_TEST_CASE(plxb_is_right_associative_and_equals_transposed_plx) {
  std::mt19937 rng(14);
  for (int t = 0; t < kTrials; ++t) {
    const Matrix3 R1 = randomRotation(rng), R2 = randomRotation(rng);
    const Vector3 p1 = randomVector3(rng, 2.0), p2 = randomVector3(rng, 2.0);
    const Plxb T1(R1, p1), T2(R2, p2);
    // plxb(R, p) = [R^T 0; -R^T px R^T], written out.
    Matrix6 Yd = Matrix6::Zero();
    Yd.topLeftCorner<3, 3>() = R1.transpose();
    Yd.bottomLeftCorner<3, 3>() = -R1.transpose() * skew(p1);
    Yd.bottomRightCorner<3, 3>() = R1.transpose();
    ABDYN_CHECK_REL(T1.matrix(), Yd, kTol);
    ABDYN_CHECK_REL(T1.matrix(), densePlx(R1.transpose(), p1), kTol);
    // Brax's composition: plxb(R1 R2, p1 + R1 p2); as matrices the left factor acts first.
    const Plxb T12 = T1 * T2;
    ABDYN_CHECK_REL(T12.rotation(), (R1 * R2).eval(), kTol);
    ABDYN_CHECK_REL(T12.position(), (p1 + R1 * p2).eval(), kTol);
    ABDYN_CHECK_REL(T12.matrix(), (T2.matrix() * T1.matrix()).eval(), kTol);
    // Exact conversions both ways (no arithmetic: transposition only).
    ABDYN_CHECK_REL(Plxb::fromPlx(T1.toPlx()).matrix(), T1.matrix(), 0.0);
    ABDYN_CHECK_REL(T1.toPlx().matrix(), T1.matrix(), 0.0);
    // The pose read as a Plx pose: plxb(R, p) maps the same way as Plx::fromPose(R, p).
    ABDYN_CHECK_REL(Plx::fromPose(R1, p1).matrix(), T1.matrix(), 0.0);
    // Motions and forces both go parent-to-child with apply, child-to-parent with applyInverse.
    const Motion m(randomVector6(rng));
    const Force f(randomVector6(rng));
    ABDYN_CHECK_REL(T1.apply(m).vector(), (Yd * m.vector()).eval(), kTol);
    ABDYN_CHECK_REL(T1.apply(f).vector(), (Yd.inverse().transpose() * f.vector()).eval(), kTol);
    ABDYN_CHECK_REL(T1.applyInverse(m).vector(), (Yd.inverse() * m.vector()).eval(), kTol);
    ABDYN_CHECK_REL(T1.applyInverse(f).vector(), (Yd.transpose() * f.vector()).eval(), kTol);
    ABDYN_CHECK_REL((T1 * T1.inverse()).matrix(), Matrix6::Identity(), kTol);
    BOOST_TEST(std::abs(dot(T1.apply(m), T1.apply(f)) - dot(m, f)) <= 1e-12 * (1 + std::abs(dot(m, f))));
  }
}

BOOST_AUTO_TEST_CASE(rigid_body_inertia_matches_point_masses) {
  std::mt19937 rng(15);
  for (int t = 0; t < kTrials; ++t) {
    const PointCloud cloud = randomCloud(rng);
    const RigidBodyInertia I = compactInertia(cloud);
    const Matrix6 Id = denseInertia(cloud);
    ABDYN_CHECK_REL(I.matrix(), Id, kTol);
    const Motion v(randomVector6(rng));
    ABDYN_CHECK_REL((I * v).vector(), (Id * v.vector()).eval(), kTol);
    BOOST_TEST(std::abs(I.kineticEnergy(v) - 0.5 * v.vector().dot(Id * v.vector())) <= 1e-12 * v.vector().squaredNorm() * Id.norm());
    ABDYN_CHECK_REL(RigidBodyInertia::fromMatrix(Id).matrix(), Id, kTol);
    // Joining two bodies adds their matrices.
    const PointCloud other = randomCloud(rng);
    ABDYN_CHECK_REL((I + compactInertia(other)).matrix(), Matrix6(Id + denseInertia(other)), kTol);
  }
}

BOOST_AUTO_TEST_CASE(inertia_transforms_match_congruences) {
  std::mt19937 rng(16);
  for (int t = 0; t < kTrials; ++t) {
    const Plx X = randomPlx(rng);
    const RigidBodyInertia I = randomRigidInertia(rng);
    const Matrix6 Xm = X.matrix();
    // X* I X^-1 takes an inertia from A to B; X^T I X from B back to A.
    ABDYN_CHECK_REL(X.apply(I).matrix(), Matrix6(X.dualMatrix() * I.matrix() * Xm.inverse()), kTol);
    ABDYN_CHECK_REL(X.applyInverse(I).matrix(), Matrix6(Xm.transpose() * I.matrix() * Xm), kTol);
    // The momentum transforms like a force: X* (I m) = (X I) (X m).
    const Motion m(randomVector6(rng));
    ABDYN_CHECK_REL(X.apply(I * m).vector(), (X.apply(I) * X.apply(m)).vector(), kTol);
    // Articulated inertias: an arbitrary symmetric matrix, same congruences.
    Matrix6 S = Matrix6::Random();
    S = (S + S.transpose()).eval();
    const ArticulatedBodyInertia A = ArticulatedBodyInertia::fromMatrix(S);
    ABDYN_CHECK_REL(X.apply(A).matrix(), Matrix6(X.dualMatrix() * S * Xm.inverse()), kTol);
    ABDYN_CHECK_REL(X.applyInverse(A).matrix(), Matrix6(Xm.transpose() * S * Xm), kTol);
    ABDYN_CHECK_REL(X.applyInverse(X.apply(A)).matrix(), S, kTol);
    // Plxb moves inertias like its Plx twin.
    const Plxb T = Plxb::fromPlx(X);
    ABDYN_CHECK_REL(T.apply(I).matrix(), X.apply(I).matrix(), 0.0);
    ABDYN_CHECK_REL(T.applyInverse(I).matrix(), X.applyInverse(I).matrix(), 0.0);
  }
}

// Plx::applyInverse and Plx::apply on an articulated inertia compute one triangle of each symmetric block
// and mirror it: the results must be exactly symmetric and equal the dense congruences X^T I X and
// X* I X^-1. Inertias as ABA
// makes them (a rigid inertia minus a rank-one joint projection, plus another body), transforms with
// offsets up to 2 m. Tolerance 1e-12 relative: both sides are a few dozen roundings of O(|r|^2 |I|) terms.
BOOST_AUTO_TEST_CASE(articulated_inertia_transforms_are_symmetric_and_match_dense) {
  std::mt19937 rng(18);
  for (int t = 0; t < kTrials; ++t) {
    const Plx X = randomPlx(rng);
    ArticulatedBodyInertia A(randomRigidInertia(rng));
    const Vector6 S = randomVector6(rng);  // a joint's motion subspace: U = I S, D = S^T I S
    const Vector6 U = A.matrix() * S;
    A.subtractRankOne(U, 1.0 / S.dot(U));
    A += randomRigidInertia(rng);
    const Matrix6 Xm = X.matrix();
    const Matrix6 moved = X.applyInverse(A).matrix();
    BOOST_TEST((moved.transpose().array() == moved.array()).all(), "X^T I X not exactly symmetric, trial " << t);
    ABDYN_CHECK_REL(moved, Matrix6(Xm.transpose() * A.matrix() * Xm), kTol);
    const Matrix6 forward = X.apply(A).matrix();
    BOOST_TEST((forward.transpose().array() == forward.array()).all(), "X* I X^-1 not exactly symmetric, trial " << t);
    ABDYN_CHECK_REL(forward, Matrix6(X.dualMatrix() * A.matrix() * Xm.inverse()), kTol);
  }
}
BOOST_AUTO_TEST_CASE(articulated_inertia_operations) {
  std::mt19937 rng(17);
  const RigidBodyInertia I = randomRigidInertia(rng);
  ArticulatedBodyInertia A(I);
  ABDYN_CHECK_REL(A.matrix(), I.matrix(), 0.0);
  A += I;
  ABDYN_CHECK_REL(A.matrix(), Matrix6(2.0 * I.matrix()), kTol);
  const Vector6 U = randomVector6(rng);
  const double d = 3.0;
  Matrix6 expected = A.matrix() - U * U.transpose() / d;
  A.subtractRankOne(U, 1.0 / d);
  ABDYN_CHECK_REL(A.matrix(), expected, kTol);
  const Motion a(randomVector6(rng));
  ABDYN_CHECK_REL((A * a).vector(), (expected * a.vector()).eval(), kTol);
  Matrix6 asym = Matrix6::Identity();
  asym(0, 1) = 1.0;
  BOOST_CHECK_THROW(ArticulatedBodyInertia::fromMatrix(asym), Error);
}

namespace {
bool mentions(const Error& e, const std::string& what) {
  return std::string(e.what()).find(what) != std::string::npos;
}
}  // namespace

BOOST_AUTO_TEST_CASE(invalid_rigid_inertias_are_rejected) {
  const Vector3 c = Vector3::Zero();
  const Matrix3 ok = Vector3(1.0, 1.0, 1.5).asDiagonal();
  BOOST_CHECK_NO_THROW(RigidBodyInertia(1.0, c, ok));
  BOOST_CHECK_NO_THROW(RigidBodyInertia(0.0, c, Matrix3::Zero()));  // a massless body
  BOOST_CHECK_NO_THROW(RigidBodyInertia(1.0, c, Matrix3::Zero()));  // a point mass
  BOOST_CHECK_EXCEPTION(RigidBodyInertia(-1.0, c, ok), Error, [](const Error& e) { return mentions(e, "mass is negative"); });
  BOOST_CHECK_EXCEPTION(RigidBodyInertia(std::nan(""), c, ok), Error, [](const Error& e) { return mentions(e, "not finite"); });
  BOOST_CHECK_EXCEPTION(RigidBodyInertia(1.0, Vector3(0, std::numeric_limits<double>::infinity(), 0), ok), Error,
                        [](const Error& e) { return mentions(e, "centre of mass"); });
  Matrix3 asym = ok;
  asym(0, 1) = 0.1;
  BOOST_CHECK_EXCEPTION(RigidBodyInertia(1.0, c, asym), Error, [](const Error& e) { return mentions(e, "not symmetric"); });
  const Matrix3 indefinite = Vector3(1.0, 1.0, -0.5).asDiagonal();
  BOOST_CHECK_EXCEPTION(RigidBodyInertia(1.0, c, indefinite), Error,
                        [](const Error& e) { return mentions(e, "not positive semi-definite"); });
  const Matrix3 triangle = Vector3(1.0, 1.0, 2.1).asDiagonal();
  BOOST_CHECK_EXCEPTION(RigidBodyInertia(1.0, c, triangle), Error, [](const Error& e) { return mentions(e, "triangle inequality"); });
  // The triangle inequality is a property of principal moments: the same violation in rotated axes.
  std::mt19937 rng(18);
  const Matrix3 R = randomRotation(rng);
  BOOST_CHECK_THROW(RigidBodyInertia(1.0, c, R * triangle * R.transpose()), Error);
  BOOST_TEST(describeInertiaViolation(1.0, c, Matrix3::Zero(), true).find("not positive definite") != std::string::npos);
}
