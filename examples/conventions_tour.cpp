// conventions_tour: one transform, one motion and one force, printed in the form each library uses.
//
//   example_conventions_tour
//
// Frame B sits at p = (1, 2, 0) in frame A, turned 90 degrees about z. The body's velocity and a force
// on it are given in B coordinates; every library below describes the same physical quantities.

#include <cmath>
#include <cstdio>

#include "abdyn/conventions/brax.hpp"
#include "abdyn/conventions/pinocchio.hpp"
#include "abdyn/conventions/rbdl.hpp"
#include "abdyn/spatial/quaternion.hpp"

namespace {

void print3(const char* label, const abdyn::Vector3& x) {
  std::printf("  %-26s [% .4f % .4f % .4f]\n", label, x(0), x(1), x(2));
}
void print4(const char* label, const abdyn::Vector4& x) {
  std::printf("  %-26s [% .4f % .4f % .4f % .4f]\n", label, x(0), x(1), x(2), x(3));
}
void print6(const char* label, const abdyn::Vector6& x) {
  std::printf("  %-26s [% .4f % .4f % .4f | % .4f % .4f % .4f]\n", label, x(0), x(1), x(2), x(3), x(4), x(5));
}
void printRows(const char* label, const abdyn::Matrix3& M) {
  for (int i = 0; i < 3; ++i) print3(i == 0 ? label : "", M.row(i).transpose());
}

}  // namespace

int main() {
  using namespace abdyn;
  const Matrix3 R_A_B = Quaternion::fromAxisAngle(Vector3::UnitZ(), M_PI / 2).toRotationMatrix();
  const Vector3 p_A_B(1.0, 2.0, 0.0);
  const Motion v_B(Vector3(0.0, 0.0, 1.0), Vector3(0.5, 0.0, 0.0));  // [w; v] in B
  const Force f_B(Vector3(0.0, 0.1, 0.0), Vector3(0.0, 0.0, -9.81));  // [n; f] in B, about B's origin

  const Plx X_B_A = Plx::fromPose(R_A_B, p_A_B);  // maps A-coordinates to B
  const Plxb T_A_B(R_A_B, p_A_B);                 // the pose of B in A, the same map
  const Motion v_A = X_B_A.applyInverse(v_B);
  const Force f_A = X_B_A.applyInverse(f_B);

  std::printf("abdyn Plx X_B_A = plx(E, r): maps A to B, left-associative, vectors angular first\n");
  printRows("E = R_A_B^T", X_B_A.E());
  print3("r = B's origin in A", X_B_A.r());
  print6("velocity in B [w; v]", v_B.vector());
  print6("velocity in A = X^-1 v_B", v_A.vector());
  print6("force in B [n; f]", f_B.vector());
  print6("force in A = X^T f_B", f_A.vector());

  std::printf("\nabdyn Plxb T_A_B: the pose of B in A, right-associative; apply maps A to B\n");
  printRows("R = R_A_B", T_A_B.rotation());
  print3("p = p_A_B", T_A_B.position());
  print6("T.apply(v_A) = v_B", T_A_B.apply(v_A).vector());
  print6("T.apply(f_A) = f_B", T_A_B.apply(f_A).vector());

  const rbdl::SpatialTransform X_rbdl = rbdl::fromAbdyn(X_B_A);
  std::printf("\nRBDL SpatialTransform(E, r): the same numbers as Plx; SpatialVector angular first\n");
  printRows("E", X_rbdl.E);
  print3("r", X_rbdl.r);
  print6("SpatialVector v_A", rbdl::fromAbdyn(v_A));
  print6("SpatialVector f_A", rbdl::fromAbdyn(f_A));

  const brax::Transform T_brax = brax::fromAbdyn(T_A_B);
  const brax::Motion v_brax = brax::do_(T_brax, brax::fromAbdyn(v_A));  // do: motion A to B
  const brax::Force f_brax = brax::do_(T_brax, brax::fromAbdyn(f_B));   // do: force B to A (!)
  std::printf("\nBrax Transform(pos, rot): a pose, quaternion w first; Motion/Force(ang, vel)\n");
  print3("pos", T_brax.pos);
  print4("rot (w, x, y, z)", T_brax.rot);
  print3("T.do(v_A).ang = w_B", v_brax.ang);
  print3("T.do(v_A).vel = v_B", v_brax.vel);
  print3("T.do(f_B).ang = n_A", f_brax.ang);
  print3("T.do(f_B).vel = f_A", f_brax.vel);

  const pinocchio::SE3 M_A_B = pinocchio::fromAbdyn(X_B_A);
  std::printf("\nPinocchio SE3(R, p) = aMb, act maps B to A; Motion/Force linear first\n");
  printRows("rotation", M_A_B.rotation);
  print3("translation", M_A_B.translation);
  print6("v_A [v; w]", pinocchio::fromAbdyn(v_A).toVector());
  print6("f_A [f; n]", pinocchio::fromAbdyn(f_A).toVector());
  return 0;
}
