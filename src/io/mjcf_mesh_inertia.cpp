#include "io/mjcf_mesh_inertia.hpp"

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>
#include <spdlog/fmt/fmt.h>

#include "abdyn/error.hpp"

// The volume integrals of a closed triangle surface (derived here; MuJoCo 2.2.2's compiler uses the same
// decomposition, which is what the single-precision steps below follow).
//
// Cut the solid into pyramids, one per triangle (D, E, F), all with their apex at one point A. With the
// triangle's area a, unit normal n = (E - D) x (F - D) / |...| and centroid c = (D + E + F) / 3, the pyramid
// has height (c - A) . n, hence volume V = a (c - A) . n / 3, positive when the triangle faces away from A.
// The signed volumes add up to the solid's volume for any A (divergence theorem), and the pyramid's centre
// of mass is (A + D + E + F) / 4 = 3c/4 + A/4, so the solid's centre of mass is
//     com = sum V (3c/4 + A/4) / sum V.
// Second moments about the apex, with A at the origin: map the unit simplex S = {u, v, w >= 0,
// u + v + w <= 1} onto the pyramid by x = u D + v E + w F (Jacobian 6V). Over S, the integral of u^2 is
// 1/60 and that of u v is 1/120, so
//     P_ij = integral of x_i x_j dV = 6V (sum_P P_i P_j / 60 + sum_{P != Q} P_i Q_j / 120)
//          = V / 20 (2 (D_i D_j + E_i E_j + F_i F_j) + D_i E_j + D_j E_i + D_i F_j + D_j F_i + E_i F_j + E_j F_i),
// and the inertia tensor about the origin is I = trace(P) 1 - P: I_xx = P_yy + P_zz, I_xy = -P_xy, ...
//
// MuJoCo 2.2.2 uses the area-weighted centroid of the triangles as the apex for the volume and the centre
// of mass, then moves the vertices so that the centre of mass is the origin and sums P with the apex there.
// By default (exactmeshinertia false) it counts every pyramid's volume as positive (|V|), which is exact
// for a surface star-shaped about the apex and overestimates other solids; the volume a geom's density
// then multiplies is that of the box with the mesh's principal moments per unit mass, 8 b0 b1 b2 with
// b_k = sqrt(6 (l_i + l_j - l_k) / M) / 2 (M = density times the summed volume, l the principal moments).
// It keeps the vertices in single precision: each step that stores a vertex rounds it to float, and the
// centroid and the bracket of P are evaluated in float; the steps below do the same, so that the result
// agrees with MuJoCo's to double round-off. (The principal moments are computed exactly here; MuJoCo's
// iterative diagonalisation stops at an absolute threshold, a difference below 1e-12 relative on the
// moments of the meshes tested.)

namespace abdyn::internal {
namespace mjcf_mesh_inertia {

using Vertex = std::array<float, 3>;

// A triangle's area, unit normal and centroid (float centroid, as the vertices are).
struct Face {
  double area = 0.0;
  Vector3 normal = Vector3::Zero();
  Vector3 centroid = Vector3::Zero();
};

Face face(const Vertex& v1, const Vertex& v2, const Vertex& v3) {
  Face f;
  for (int i = 0; i < 3; ++i) {
    const float sum = v1[static_cast<std::size_t>(i)] + v2[static_cast<std::size_t>(i)] + v3[static_cast<std::size_t>(i)];
    f.centroid[i] = static_cast<double>(sum / 3);
  }
  const Vector3 b(static_cast<double>(v2[0] - v1[0]), static_cast<double>(v2[1] - v1[1]), static_cast<double>(v2[2] - v1[2]));
  const Vector3 c(static_cast<double>(v3[0] - v1[0]), static_cast<double>(v3[1] - v1[1]), static_cast<double>(v3[2] - v1[2]));
  const Vector3 n(b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]);
  const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (len < 1e-15) return f;  // a degenerate triangle counts for nothing
  f.normal = Vector3(n[0] / len, n[1] / len, n[2] / len);
  f.area = len / 2;
  return f;
}

double dot(const Vector3& a, const Vector3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The bracket of P_ij for the pyramid (0, D, E, F), in float as MuJoCo evaluates it.
float bracket(const Vertex& D, const Vertex& E, const Vertex& F, std::size_t i, std::size_t j) {
  return 2 * (D[i] * D[j] + E[i] * E[j] + F[i] * F[j]) + D[i] * E[j] + D[j] * E[i] + D[i] * F[j] + D[j] * F[i] +
         E[i] * F[j] + E[j] * F[i];
}

}  // namespace mjcf_mesh_inertia

MjcfMeshInertia mjcfMeshInertia(const TriangleMesh& mesh, const MjcfMeshProcessing& how, const std::string& where) {
  using namespace mjcf_mesh_inertia;
  const auto fail = [&](const std::string& what) -> void { throw Error(where + ": " + what); };
  std::vector<Vertex> v(mesh.vertices.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    for (int k = 0; k < 3; ++k) v[i][static_cast<std::size_t>(k)] = static_cast<float>(mesh.vertices[i][k]);
  }
  // A mirroring scale reverses the winding, as the files' readers in MuJoCo do.
  std::vector<std::array<int, 3>> faces = mesh.triangles;
  if (how.scale.prod() < 0) {
    for (auto& t : faces) std::swap(t[1], t[2]);
  }
  for (const auto& t : faces) {
    for (const int i : t) {
      if (i < 0 || static_cast<std::size_t>(i) >= v.size()) fail(fmt::format("vertex index {} out of range", i));
    }
  }
  // The mesh frame: move by -refpos, turn by refquat's inverse, scale.
  if (!how.refpos.isZero()) {
    const float rp[3] = {static_cast<float>(how.refpos[0]), static_cast<float>(how.refpos[1]),
                         static_cast<float>(how.refpos[2])};
    for (Vertex& p : v) {
      for (std::size_t k = 0; k < 3; ++k) p[k] -= rp[k];
    }
  }
  if (how.refquat != Vector4(1.0, 0.0, 0.0, 0.0)) {
    Vector4 q = how.refquat;
    const double norm = q.norm();
    q = norm < 1e-15 ? Vector4(1.0, 0.0, 0.0, 0.0) : Vector4(q / norm);
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    Matrix3 R;  // rotation of the quaternion, as w^2 + x^2 - y^2 - z^2 ... (no reliance on unit norm)
    R << w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),  //
        2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),  //
        2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z;
    for (Vertex& p : v) {
      const Vector3 p0(p[0], p[1], p[2]);
      for (int k = 0; k < 3; ++k) {
        p[static_cast<std::size_t>(k)] = static_cast<float>(R(0, k) * p0[0] + R(1, k) * p0[1] + R(2, k) * p0[2]);
      }
    }
  }
  if (how.scale != Vector3::Ones()) {
    for (Vertex& p : v) {
      for (std::size_t k = 0; k < 3; ++k) p[k] = static_cast<float>(p[k] * how.scale[static_cast<Eigen::Index>(k)]);
    }
  }
  // The area-weighted centroid of the triangles: the apex for the volume and the centre of mass.
  Vector3 apex = Vector3::Zero();
  double area = 0.0;
  for (const auto& t : faces) {
    const Face f = face(v[static_cast<std::size_t>(t[0])], v[static_cast<std::size_t>(t[1])], v[static_cast<std::size_t>(t[2])]);
    for (int j = 0; j < 3; ++j) apex[j] += f.area * f.centroid[j];
    area += f.area;
  }
  if (area < 1e-15) fail("the mesh's surface area is too small (below 1e-15)");
  apex /= area;
  double volume = 0.0;
  Vector3 com = Vector3::Zero();
  for (const auto& t : faces) {
    const Face f = face(v[static_cast<std::size_t>(t[0])], v[static_cast<std::size_t>(t[1])], v[static_cast<std::size_t>(t[2])]);
    double vol = dot(f.centroid - apex, f.normal) * f.area / 3;
    if (!how.exact) vol = std::fabs(vol);
    volume += vol;
    for (int j = 0; j < 3; ++j) com[j] += vol * (f.centroid[j] * 3.0 / 4.0 + apex[j] / 4.0);
  }
  if (volume < 1e-15) fail("the mesh's volume is too small (below 1e-15)");
  com /= volume;
  for (Vertex& p : v) {
    for (std::size_t k = 0; k < 3; ++k) p[k] = static_cast<float>(p[k] - com[static_cast<Eigen::Index>(k)]);
  }
  // Second moments about the centre of mass, pyramids with their apex there; the volume summed again.
  constexpr std::size_t pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  double P[6] = {0, 0, 0, 0, 0, 0};
  volume = 0.0;
  for (const auto& t : faces) {
    const Vertex& D = v[static_cast<std::size_t>(t[0])];
    const Vertex& E = v[static_cast<std::size_t>(t[1])];
    const Vertex& F = v[static_cast<std::size_t>(t[2])];
    const Face f = face(D, E, F);
    double vol = dot(f.centroid, f.normal) * f.area / 3;
    if (!how.exact) vol = std::fabs(vol);
    volume += vol;
    for (int j = 0; j < 6; ++j) {
      P[j] += how.density * vol / 20 * static_cast<double>(bracket(D, E, F, pairs[j][0], pairs[j][1]));
    }
  }
  Matrix3 I;
  I << P[1] + P[2], -P[3], -P[4],  //
      -P[3], P[0] + P[2], -P[5],   //
      -P[4], -P[5], P[0] + P[1];
  const Vector3 l = Eigen::SelfAdjointEigenSolver<Matrix3>(I, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(l.minCoeff() > 0)) fail("a principal moment of the mesh's inertia is not positive");
  if (l[0] + l[1] < l[2] || l[0] + l[2] < l[1] || l[1] + l[2] < l[0]) {
    fail("the mesh's principal moments break the triangle inequality A + B >= C");
  }
  const double mass = volume * how.density;
  MjcfMeshInertia out;
  out.com = com;
  out.inertia_per_mass = I / mass;
  if (how.exact) {
    out.volume = volume;
  } else {
    out.volume = 8.0;
    for (int k = 0; k < 3; ++k) out.volume *= std::sqrt(6 * (l.sum() - 2 * l[k]) / mass) / 2;
  }
  if (!std::isfinite(out.volume) || !out.com.allFinite() || !out.inertia_per_mass.allFinite()) {
    fail("the mesh's inertia overflows");
  }
  return out;
}

}  // namespace abdyn::internal
