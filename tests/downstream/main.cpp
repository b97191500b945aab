// A downstream program built against an installed abdyn, the way a user's project would use it.
//
// tests/downstream/run.cmake builds it with and without -march=native against libraries built with and
// without ABDYN_NATIVE (see docs/abi.md). Every check hands Eigen objects to non-inline library code or
// receives them from it, and compares the outcome with a computation done here:
//   - fixed-size objects (Matrix6, Vector4, Isometry3d, classes holding them) passed by reference and
//     returned by value, placed at the least-aligned address this program's ABI allows, so that a
//     library assuming wider alignment faults deterministically rather than by luck of the stack;
//   - dynamic-size objects (VectorXd, MatrixXd) and containers allocated in the library and freed or
//     resized here, and the other way round, which needs both sides to use the same Eigen allocator.
// Exit status: 0 when everything matches, 1 on a mismatch (a crash is the other way to fail).

#include <link.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <spdlog/sinks/ostream_sink.h>

#include <abdyn/abdyn.hpp>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::cerr << "MISMATCH: " << what << "\n";
  }
}

template <class A, class B>
void checkNear(const A& a, const B& b, double tol, const std::string& what) {
  const double scale = std::max(1.0, static_cast<double>(b.norm()));
  const double err = (a - b).norm() / scale;
  if (!(err <= tol)) {
    ++failures;
    std::cerr << "MISMATCH: " << what << ": relative error " << err << " > " << tol << "\n"
              << "  got:\n" << a << "\n  expected:\n" << b << "\n";
  }
}

void checkNear(double a, double b, double tol, const std::string& what) {
  if (!(std::abs(a - b) <= tol * std::max(1.0, std::abs(b)))) {
    ++failures;
    std::cerr << "MISMATCH: " << what << ": " << a << " vs " << b << "\n";
  }
}

// Storage for one T at an address aligned to alignof(T) and to nothing larger: the weakest alignment
// this program's ABI promises for a T. Construction from a callable initialises the object in place
// from the callable's result (guaranteed copy elision), so a library function returning T by value
// writes straight into this address.
template <class T>
class Slot {
 public:
  template <class... Args>
  explicit Slot(Args&&... args) : p_(new (raw_ + alignof(T)) T(std::forward<Args>(args)...)) {}
  template <class F>
  static Slot from(F&& make) {
    return Slot(Tag{}, std::forward<F>(make));
  }
  // Not copyable or movable: p_ points into raw_. Slot::from relies on guaranteed copy elision.
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() { p_->~T(); }

  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_; }
  const T* operator->() const { return p_; }
  bool leastAligned() const {
    const auto a = reinterpret_cast<std::uintptr_t>(p_);
    return a % alignof(T) == 0 && (alignof(T) >= 128 || a % (2 * alignof(T)) != 0);
  }

 private:
  struct Tag {};
  template <class F>
  Slot(Tag, F&& make) : p_(new (raw_ + alignof(T)) T(make())) {}

  alignas(256) unsigned char raw_[sizeof(T) + 256];
  T* p_;
};

abdyn::Matrix3 crossMatrix(const abdyn::Vector3& a) {
  abdyn::Matrix3 s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

// Featherstone's 6x6 rigid-body inertia (angular first), written out here independently of abdyn.
abdyn::Matrix6 rigidInertiaMatrix(double m, const abdyn::Vector3& c, const abdyn::Matrix3& Ic) {
  const abdyn::Matrix3 cx = crossMatrix(c);
  abdyn::Matrix6 I;
  I.topLeftCorner<3, 3>() = Ic - m * cx * cx;
  I.topRightCorner<3, 3>() = m * cx;
  I.bottomLeftCorner<3, 3>() = -m * cx;
  I.bottomRightCorner<3, 3>() = m * abdyn::Matrix3::Identity();
  return I;
}

// plx(E, r) on motions and on forces, written out here.
abdyn::Matrix6 motionTransform(const abdyn::Matrix3& E, const abdyn::Vector3& r) {
  abdyn::Matrix6 X = abdyn::Matrix6::Zero();
  X.topLeftCorner<3, 3>() = E;
  X.bottomLeftCorner<3, 3>() = -E * crossMatrix(r);
  X.bottomRightCorner<3, 3>() = E;
  return X;
}
abdyn::Matrix6 forceTransform(const abdyn::Matrix3& E, const abdyn::Vector3& r) {
  return motionTransform(E, r).inverse().transpose();  // X* = X^-T
}

// The file the dynamic linker loaded libabdyn from (run.cmake checks it is the prefix under test).
std::string loadedAbdynLibrary() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libabdyn") != std::string::npos) {
          *static_cast<std::string*>(out) = name;
          return 1;
        }
        return 0;
      },
      &found);
  return found;
}

// 10. A model built by the library and the dynamics of a planar two-link arm (gravity along -y, both
// joints about z) against the textbook closed form. Model and Data hold Eigen::VectorXd / MatrixXd /
// std::vector<Eigen-holding classes> allocated inside the library and freed here (their destructors are
// implicit, so they run in this program), and some dynamic-size results cross the boundary the other way.
void checkModelAndDynamics() {
  using abdyn::Matrix3;
  using abdyn::Vector3;
  using Eigen::MatrixXd;
  using Eigen::VectorXd;
  const double g = 9.81, l1 = 0.7;
  const double m1 = 1.3, lc1 = 0.35, I1 = 0.06;
  const double m2 = 0.9, lc2 = 0.25, I2 = 0.03;
  const Matrix3 Ic1 = Vector3(0.002, I1, I1).asDiagonal();
  const Matrix3 Ic2 = Vector3(0.001, I2, I2).asDiagonal();

  abdyn::ModelBuilder builder("arm");
  builder.setGravity(Vector3(0.0, -g, 0.0));
  abdyn::JointSpec shoulder;
  shoulder.name = "shoulder";
  shoulder.axis = Vector3::UnitZ();
  abdyn::JointSpec elbow = shoulder;
  elbow.name = "elbow";
  const int upper = builder.addBody(0, shoulder, abdyn::Plx(), abdyn::RigidBodyInertia(m1, Vector3(lc1, 0, 0), Ic1),
                                    "upper_arm");
  builder.addBody(upper, elbow, abdyn::Plx::translation(Vector3(l1, 0, 0)),
                  abdyn::RigidBodyInertia(m2, Vector3(lc2, 0, 0), Ic2), "forearm");
  const abdyn::Model model = builder.build();
  check(model.nbodies() == 3 && model.nq() == 2 && model.nv() == 2, "ModelBuilder: wrong model size");
  check(model.lowerPositionLimit().size() == 2 && std::isinf(model.lowerPositionLimit()(0)),
        "Model::lowerPositionLimit()");
  checkNear(model.totalMass(), m1 + m2, 1e-15, "Model::totalMass");

  std::cout << "  model built\n";
  // Library-allocated VectorXd returned by value, freed here.
  const VectorXd q0 = abdyn::neutral(model);
  check(q0.size() == 2 && q0.isZero(0.0), "neutral()");

  VectorXd q(2), v(2), qdd(2);
  q << 0.4, -0.9;
  v << 0.7, 1.3;
  qdd << -0.5, 2.0;
  const double c2 = std::cos(q(1)), s2 = std::sin(q(1));
  MatrixXd M_ref(2, 2);
  M_ref(0, 0) = I1 + I2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2.0 * l1 * lc2 * c2);
  M_ref(0, 1) = M_ref(1, 0) = I2 + m2 * (lc2 * lc2 + l1 * lc2 * c2);
  M_ref(1, 1) = I2 + m2 * lc2 * lc2;
  const double h = m2 * l1 * lc2 * s2;
  VectorXd Cv(2), G(2);
  Cv << -h * (2.0 * v(0) * v(1) + v(1) * v(1)), h * v(0) * v(0);
  G << g * ((m1 * lc1 + m2 * l1) * std::cos(q(0)) + m2 * lc2 * std::cos(q(0) + q(1))),
      g * m2 * lc2 * std::cos(q(0) + q(1));
  const VectorXd tau_ref = M_ref * qdd + Cv + G;

  {
    abdyn::Data data(model);
    const MatrixXd& M = abdyn::massMatrix(model, data, q);
    checkNear(M, M_ref, 1e-13, "massMatrix vs closed form");
    const VectorXd& tau = abdyn::inverseDynamics(model, data, q, v, qdd);
    checkNear(tau, tau_ref, 1e-13, "inverseDynamics vs closed form");
    const VectorXd tau_copy = tau;
    const VectorXd& qdd_aba = abdyn::forwardDynamics(model, data, q, v, tau_copy);
    checkNear(qdd_aba, qdd, 1e-12, "forwardDynamics (ABA) vs closed form");
    // The leaf's articulated-body inertia is its own rigid-body inertia (library-owned std::vector,
    // copied here).
    const std::vector<abdyn::ArticulatedBodyInertia> IA = data.aba.IA;
    checkNear(IA.at(2).matrix(), rigidInertiaMatrix(m2, Vector3(lc2, 0, 0), Ic2), 1e-14, "Data::aba.IA of the leaf");
    const VectorXd& g_lib = abdyn::gravityTorques(model, data, q);
    checkNear(g_lib, G, 1e-13, "gravityTorques vs closed form");
    // Library-allocated buffers replaced here.
    data.zero_qdd.resize(1000);
    data.zero_qdd.setZero();
    data.M = MatrixXd::Identity(40, 40);
  }  // ~Data runs here, freeing buffers allocated by the library and by this program
  std::cout << "  two-link arm dynamics done\n";

  // Our VectorXd of the wrong size, resized (freed and reallocated) inside the library.
  VectorXd q_out = VectorXd::Constant(7, 1.0);
  abdyn::integrate(model, q, v, 0.1, q_out);
  checkNear(q_out, VectorXd(q + 0.1 * v), 1e-15, "integrate(..., q_out)");
  VectorXd q1 = abdyn::integrate(model, q, v, 0.1);
  const VectorXd dq = abdyn::difference(model, q, q1);
  checkNear(dq, VectorXd(0.1 * v), 1e-14, "difference(q, integrate(q, v, 0.1))");
  q1.resize(64);  // frees the library's allocation here
  q1.setZero();

  std::cout << "  integrate / difference done\n";
  // Model returned by value from the library and destroyed here.
  {
    const abdyn::Model moon = model.withGravity(Vector3(0.0, -1.62, 0.0));
    abdyn::Data data(moon);
    checkNear(abdyn::gravityTorques(moon, data, q), VectorXd(G * (1.62 / g)), 1e-13, "withGravity");
  }

  // A random floating-base tree with every joint type: M qdd + h == tau computed here.
  std::mt19937 rng(20240611);
  abdyn::RandomTreeOptions options;
  options.bodies = 12;
  options.floating_base = true;
  options.all_joint_types = true;
  const abdyn::Model tree = abdyn::randomTree(options, rng);
  abdyn::Data data(tree);
  const VectorXd qt = abdyn::randomConfiguration(tree, rng);
  const VectorXd vt = VectorXd::LinSpaced(tree.nv(), -1.0, 1.0);
  const VectorXd taut = VectorXd::LinSpaced(tree.nv(), 2.0, -3.0);
  const VectorXd qdd_t = abdyn::forwardDynamics(tree, data, qt, vt, taut);
  const MatrixXd Mt = abdyn::massMatrix(tree, data, qt);
  const VectorXd ht = abdyn::nonlinearEffects(tree, data, qt, vt);
  checkNear(VectorXd(Mt * qdd_t + ht), taut, 1e-10, "random tree: M qdd + h vs tau");
  checkNear(abdyn::forwardDynamicsCrba(tree, data, qt, vt, taut), qdd_t, 1e-9, "random tree: CRBA vs ABA");
}

// 11. Quaternions and SE(3): Vector4 and Matrix<4, 3> (32-byte aligned with AVX) and Isometry3d (64 with
// AVX-512) returned by and passed to the library, against formulas written out here.
void checkRotations() {
  using abdyn::Matrix3;
  using abdyn::Vector3;
  using abdyn::Vector4;
  const Vector3 axis = Vector3(0.3, -0.5, 0.8).normalized();
  const double angle = 1.1;
  const abdyn::Quaternion q = abdyn::Quaternion::fromAxisAngle(axis, angle);
  const Matrix3 R_ref = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  checkNear(q.toRotationMatrix(), R_ref, 1e-15, "Quaternion::toRotationMatrix");
  checkNear(abdyn::expSO3(angle * axis), R_ref, 1e-15, "expSO3");

  Eigen::Matrix<double, 4, 3> B_ref;
  B_ref.row(0) = -q.vec().transpose();
  B_ref.bottomRows<3>() = q.w() * Matrix3::Identity() + crossMatrix(q.vec());
  const auto B = Slot<Eigen::Matrix<double, 4, 3>>::from([&] { return abdyn::rateMatrixBody(q); });
  checkNear(*B, B_ref, 1e-15, "rateMatrixBody");
  const Vector3 w_body(0.2, -1.4, 0.6);
  const Slot<Vector4> qdot(0.5 * B_ref * w_body);
  checkNear(abdyn::angularVelocityBodyFromRate(q, *qdot), w_body, 1e-14, "angularVelocityBodyFromRate");

  const Vector3 w = 0.9 * axis, lin(0.5, 0.1, -0.7);
  const double t = w.norm();
  const Matrix3 W = crossMatrix(w);
  const Matrix3 V = Matrix3::Identity() + (1.0 - std::cos(t)) / (t * t) * W + (t - std::sin(t)) / (t * t * t) * W * W;
  const Slot<abdyn::Motion> twist(w, lin);
  const auto T = Slot<Eigen::Isometry3d>::from([&] { return abdyn::expSE3(*twist); });
  checkNear(T->linear(), Matrix3(Eigen::AngleAxisd(t, axis).toRotationMatrix()), 1e-14, "expSE3 rotation");
  checkNear(T->translation(), Vector3(V * lin), 1e-14, "expSE3 translation");
  const abdyn::Motion back = abdyn::logSE3(*T);
  checkNear(back.vector(), twist->vector(), 1e-13, "logSE3(expSE3(xi))");
  check(T.leastAligned() && qdot.leastAligned() && B.leastAligned(), "Slot placement (test harness bug)");
}

// 12. The definitions abdyn::abdyn exports govern this program's own Eigen code too: a dense product
// large enough for Eigen's blocked GEMM, whose packing buffers come from Eigen's heap allocator and are
// accessed with full-width aligned SIMD loads and stores, must work under every -march.
void checkOwnEigenCode() {
  const int n = 256;
  const Eigen::MatrixXd A = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd B = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd C = A * B;
  Eigen::MatrixXd C_ref(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      double sum = 0.0;
      for (int k = 0; k < n; ++k) sum += A(i, k) * B(k, j);
      C_ref(i, j) = sum;
    }
  }
  checkNear(C, C_ref, 1e-13, "256x256 MatrixXd product");
}

}  // namespace

int main() {
  using abdyn::ArticulatedBodyInertia;
  using abdyn::Matrix3;
  using abdyn::Matrix6;
  using abdyn::Plx;
  using abdyn::RigidBodyInertia;
  using abdyn::Vector3;
  using abdyn::Vector6;

  std::cout << std::unitbuf;  // unbuffered: the progress lines must survive a crash
  std::cout << "abdyn library: " << loadedAbdynLibrary() << "\n"
#ifdef __AVX512F__
            << "consumer SIMD: AVX-512\n"
#elif defined(__AVX__)
            << "consumer SIMD: AVX\n"
#else
            << "consumer SIMD: SSE2\n"
#endif
            << "EIGEN_MAX_ALIGN_BYTES=" << EIGEN_MAX_ALIGN_BYTES
            << " EIGEN_MAX_STATIC_ALIGN_BYTES=" << EIGEN_MAX_STATIC_ALIGN_BYTES
            << " alignof(Matrix6)=" << alignof(Matrix6)
            << " alignof(ArticulatedBodyInertia)=" << alignof(ArticulatedBodyInertia)
            << " alignof(Isometry3d)=" << alignof(Eigen::Isometry3d) << "\n";

  // Reference data, built here.
  const double m = 2.5;
  const Vector3 c(0.1, -0.2, 0.3);
  Matrix3 Ic;
  Ic << 0.30, 0.01, -0.02,
        0.01, 0.40, 0.03,
        -0.02, 0.03, 0.50;
  const Matrix6 I6 = rigidInertiaMatrix(m, c, Ic);
  const Matrix3 E = Eigen::AngleAxisd(0.7, Vector3(1.0, 2.0, -0.5).normalized()).toRotationMatrix();
  const Vector3 r(0.4, -1.1, 0.25);
  const Matrix6 X = motionTransform(E, r);
  const Matrix6 Xstar = forceTransform(E, r);
  const Matrix6 Xinv = X.inverse();

  // 1. Library constructor writing a RigidBodyInertia into our storage, from our Vector3 / Matrix3.
  const Slot<Vector3> c_slot(c);
  const Slot<Matrix3> Ic_slot(Ic);
  const Slot<RigidBodyInertia> body(m, *c_slot, *Ic_slot);
  check(body->mass() == m && body->com() == c && body->inertiaAboutCom() == Ic,
        "RigidBodyInertia(mass, com, Ic) does not hold the values it was given");
  checkNear(body->matrix(), I6, 1e-14, "RigidBodyInertia::matrix()");

  // 2. A Matrix6 of ours read by the library, a RigidBodyInertia returned by value into our storage.
  const Slot<Matrix6> I6_slot(I6);
  const auto from_matrix = Slot<RigidBodyInertia>::from([&] { return RigidBodyInertia::fromMatrix(*I6_slot); });
  checkNear(from_matrix->mass(), m, 1e-13, "RigidBodyInertia::fromMatrix mass");
  checkNear(from_matrix->com(), c, 1e-13, "RigidBodyInertia::fromMatrix com");
  checkNear(from_matrix->inertiaAboutCom(), Ic, 1e-13, "RigidBodyInertia::fromMatrix Ic");

  // 3. ArticulatedBodyInertia (a Matrix6 inside) returned by value; the library symmetrises its input.
  Matrix6 A = I6 + 0.25 * Matrix6::Identity();
  A(0, 5) += 0.125;
  A(5, 0) += 0.125 + 1e-13;  // slightly asymmetric, within fromMatrix's tolerance
  const Slot<Matrix6> A_slot(A);
  const auto abi = Slot<ArticulatedBodyInertia>::from([&] { return ArticulatedBodyInertia::fromMatrix(*A_slot); });
  const Matrix6 A_sym = 0.5 * (A + A.transpose());
  checkNear(abi->matrix(), A_sym, 1e-15, "ArticulatedBodyInertia::fromMatrix");

  // 4. The same through the heap: containers of fixed-size Eigen objects allocated here.
  std::vector<Matrix6> matrices;
  std::vector<ArticulatedBodyInertia> inertias;
  for (int k = 0; k < 9; ++k) {
    matrices.push_back(A_sym + k * I6);
    inertias.push_back(ArticulatedBodyInertia::fromMatrix(matrices.back()));
  }
  for (int k = 0; k < 9; ++k) {
    checkNear(inertias[k].matrix(), Matrix6(A_sym + k * I6), 1e-14, "fromMatrix on a std::vector element");
    auto* on_heap = new ArticulatedBodyInertia(ArticulatedBodyInertia::fromMatrix(matrices[k]));
    checkNear(on_heap->matrix(), inertias[k].matrix(), 0.0, "fromMatrix into a new-allocated object");
    delete on_heap;
  }

  // 5. Plx transforms (inline) against the matrix forms computed here, fed back through the library.
  const Slot<Plx> Xp(E, r);
  checkNear(Xp->matrix(), X, 1e-15, "Plx::matrix");
  const auto moved_body = Slot<RigidBodyInertia>::from([&] { return Xp->apply(*body); });
  const Slot<Matrix6> moved_I6(Xstar * I6 * Xinv);
  const auto moved_body_lib = Slot<RigidBodyInertia>::from([&] { return RigidBodyInertia::fromMatrix(*moved_I6); });
  checkNear(moved_body->matrix(), *moved_I6, 1e-13, "Plx::apply(RigidBodyInertia) vs X* I X^-1");
  checkNear(moved_body_lib->com(), moved_body->com(), 1e-13, "fromMatrix(X* I X^-1) com");
  checkNear(moved_body_lib->inertiaAboutCom(), moved_body->inertiaAboutCom(), 1e-13, "fromMatrix(X* I X^-1) Ic");

  const auto moved_abi = Slot<ArticulatedBodyInertia>::from([&] { return Xp->apply(*abi); });
  const Slot<Matrix6> moved_A(Xstar * A_sym * Xinv);
  const auto moved_abi_lib =
      Slot<ArticulatedBodyInertia>::from([&] { return ArticulatedBodyInertia::fromMatrix(*moved_A); });
  checkNear(moved_abi->matrix(), *moved_A, 1e-13, "Plx::apply(ArticulatedBodyInertia) vs X* A X^-1");
  checkNear(moved_abi_lib->matrix(), moved_abi->matrix(), 1e-13, "fromMatrix(X* A X^-1)");
  const auto back_abi = Slot<ArticulatedBodyInertia>::from([&] { return Xp->applyInverse(*moved_abi_lib); });
  checkNear(back_abi->matrix(), A_sym, 1e-13, "Plx::applyInverse(ArticulatedBodyInertia)");

  // 6. Isometry3d (128 bytes, the most alignment-sensitive type here) from Plx::toPose, into the library.
  const auto pose = Slot<Eigen::Isometry3d>::from([&] { return Xp->toPose(); });
  check(pose->linear() == E.transpose() && pose->translation() == r, "Plx::toPose");
  check(Plx::fromPose(*pose).isApprox(*Xp), "Plx::fromPose(toPose())");
  const abdyn::Motion xi = abdyn::logSE3(*pose);
  const auto pose_again = Slot<Eigen::Isometry3d>::from([&] { return abdyn::expSE3(xi); });
  checkNear(pose_again->matrix(), pose->matrix(), 1e-13, "expSE3(logSE3(Plx::toPose()))");
  const Matrix3 R = pose->linear();
  const Slot<RigidBodyInertia> placed(m, pose->translation(), R * Ic * R.transpose());
  checkNear(placed->inertiaAboutCom(), Matrix3(R * Ic * R.transpose()), 1e-15, "RigidBodyInertia from a pose");

  // 7. Vector6 products against the library-built inertias.
  const Vector6 v6 = (Vector6() << 0.3, -0.1, 0.2, 1.0, -2.0, 0.5).finished();
  const Slot<Vector6> v6_slot(v6);
  const abdyn::Motion v(*v6_slot);
  checkNear((*from_matrix * v).vector(), Vector6(I6 * v6), 1e-13, "momentum of a fromMatrix inertia");
  checkNear((*abi * v).vector(), Vector6(A_sym * v6), 1e-13, "ArticulatedBodyInertia * Motion");
  const Vector6 U = A_sym * v6;
  const double d = v6.dot(U);
  ArticulatedBodyInertia reduced = *abi;
  reduced.subtractRankOne(U, 1.0 / d);
  const Slot<Matrix6> reduced_ref(A_sym - U * U.transpose() / d);
  const auto reduced_lib =
      Slot<ArticulatedBodyInertia>::from([&] { return ArticulatedBodyInertia::fromMatrix(*reduced_ref); });
  checkNear(reduced.matrix(), reduced_lib->matrix(), 1e-13, "subtractRankOne");

  // 8. Validation messages and exceptions thrown across the boundary.
  check(abdyn::describeInertiaViolation(m, *c_slot, *Ic_slot).empty(), "valid inertia reported invalid");
  const Slot<Matrix3> bad(Vector3(1.0, 1.0, 3.0).asDiagonal());
  check(abdyn::describeInertiaViolation(1.0, *c_slot, *bad).find("triangle inequality") != std::string::npos,
        "triangle-inequality violation not reported");
  bool threw = false;
  try {
    Matrix6 asym = *I6_slot;
    asym(0, 1) += 1.0;
    ArticulatedBodyInertia::fromMatrix(asym);
  } catch (const abdyn::Error& e) {
    threw = std::string(e.what()).find("not symmetric") != std::string::npos;
  }
  check(threw, "ArticulatedBodyInertia::fromMatrix accepted an asymmetric matrix");
  threw = false;
  try {
    RigidBodyInertia(-1.0, *c_slot, *Ic_slot);
  } catch (const abdyn::Error& e) {
    threw = std::string(e.what()).find("mass is negative") != std::string::npos;
  }
  check(threw, "RigidBodyInertia accepted a negative mass");
  std::ostringstream printed;
  printed << *body;
  check(printed.str().find("mass=2.5") != std::string::npos, "operator<<(RigidBodyInertia): " + printed.str());

  // 9. The library logger: replaced by one of ours, used, and restored.
  check(abdyn::logger() != nullptr && abdyn::logger()->name() == "abdyn", "abdyn::logger()");
  std::ostringstream log_text;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(log_text);
  abdyn::setLogger(std::make_shared<spdlog::logger>("downstream", sink));
  abdyn::logger()->warn("mass {}", m);
  check(log_text.str().find("mass 2.5") != std::string::npos, "setLogger: message not routed to our sink");
  abdyn::setLogger(nullptr);
  check(abdyn::logger()->name() == "abdyn", "setLogger(nullptr) did not restore the default logger");

  std::cout << "spatial algebra and logger checks done\n";
  checkModelAndDynamics();
  std::cout << "model and dynamics checks done\n";
  checkRotations();
  std::cout << "rotation checks done\n";
  checkOwnEigenCode();
  std::cout << "own Eigen code checks done\n";

  check(c_slot.leastAligned() && I6_slot.leastAligned() && abi.leastAligned() && pose.leastAligned() &&
            v6_slot.leastAligned(),
        "Slot placement is not least-aligned (test harness bug)");

  if (failures != 0) {
    std::cerr << failures << " mismatch(es)\n";
    return EXIT_FAILURE;
  }
  std::cout << "downstream: all checks passed\n";
  return EXIT_SUCCESS;
}
