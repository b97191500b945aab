#include "constraints/contact_manifold.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "constraints/orthonormal_complement.hpp"

namespace abdyn::internal {
namespace {

// Faces within this angle's cosine of the normal take part in a face contact (about 2.6 degrees).
constexpr double kFaceAlignment = 0.999;

// Reduces candidates (k of them) to at most four in place: the first (deepest) point, the one farthest from
// it, the one making the largest triangle with those two, and the one adding the most area beyond their
// triangle's far side. Returns the indices kept.
int reduceToFour(const std::vector<Vector3>& p, const Vector3& n, const std::vector<double>& depth, int* keep) {
  const int k = static_cast<int>(p.size());
  if (k <= kManifoldPoints) {
    for (int i = 0; i < k; ++i) keep[i] = i;
    return k;
  }
  int a = 0;
  for (int i = 1; i < k; ++i) {
    if (depth[static_cast<std::size_t>(i)] < depth[static_cast<std::size_t>(a)]) a = i;
  }
  const auto at = [&](int i) -> const Vector3& { return p[static_cast<std::size_t>(i)]; };
  int b = a == 0 ? 1 : 0;
  for (int i = 0; i < k; ++i) {
    if ((at(i) - at(a)).cross(n).squaredNorm() > (at(b) - at(a)).cross(n).squaredNorm()) b = i;
  }
  const auto area = [&](int i, int j, int l) { return n.dot((at(j) - at(i)).cross(at(l) - at(i))); };  // signed, twice
  int c = -1, d = -1;
  for (int i = 0; i < k; ++i) {
    if (i == a || i == b) continue;
    if (c < 0 || std::abs(area(a, b, i)) > std::abs(area(a, b, c))) c = i;
  }
  // How far i lies outside the triangle a, b, c (twice the area it adds beyond the edge it is furthest past).
  const double sign = area(a, b, c) > 0.0 ? 1.0 : -1.0;
  const auto gain = [&](int i) { return -sign * std::min({area(a, b, i), area(b, c, i), area(c, a, i)}); };
  for (int i = 0; i < k; ++i) {
    if (i == a || i == b || i == c) continue;
    if (gain(i) > 0.0 && (d < 0 || gain(i) > gain(d))) d = i;
  }
  int m = 0;
  for (int i : {a, b, c, d}) {
    if (i >= 0) keep[m++] = i;
  }
  std::sort(keep, keep + m);
  return m;
}

// The face of a polytope (a mesh's hull or a box) whose outward normal is nearest `direction` (world):
// its corners in world coordinates, counterclockwise about its normal, and that normal. False for the
// other kinds.
bool facingFace(const Geometry& g, const Plx& X_shape_world, const Vector3& direction, std::vector<Vector3>& corners,
                Vector3& normal) {
  const Matrix3 R = X_shape_world.E().transpose();  // shape axes in world coordinates
  const Vector3& o = X_shape_world.r();
  const Vector3 l = X_shape_world.E() * direction;
  corners.clear();
  if (g.shape == ShapeType::Box) {
    Eigen::Index axis = 0;
    l.cwiseAbs().maxCoeff(&axis);
    const double s = l[axis] < 0.0 ? -1.0 : 1.0;
    const int u = static_cast<int>((axis + 1) % 3), v = static_cast<int>((axis + 2) % 3);
    const Vector3 h = 0.5 * g.size;
    const double du[4] = {1, -1, -1, 1}, dv[4] = {1, 1, -1, -1};
    for (int k = 0; k < 4; ++k) {
      Vector3 c = Vector3::Zero();
      c[axis] = s * h[axis];
      c[u] = du[k] * h[u];
      c[v] = s * dv[k] * h[v];  // counterclockwise about s e_axis
      corners.push_back(o + R * c);
    }
    normal = s * R.col(axis);
    return true;
  }
  if (g.shape != ShapeType::Mesh || g.mesh == nullptr) return false;
  const ConvexHull& hull = g.mesh->hull;
  std::size_t best = 0;
  for (std::size_t f = 1; f < hull.normals.size(); ++f) {
    if (hull.normals[f].dot(l) > hull.normals[best].dot(l)) best = f;
  }
  for (int i : hull.faces[best]) corners.push_back(o + R * hull.vertices[static_cast<std::size_t>(i)]);
  normal = R * hull.normals[best];
  return true;
}

// Clips polygon `subject` (2D, counterclockwise) by the convex polygon `clip` (2D, counterclockwise).
std::vector<Eigen::Vector2d> clipPolygon(std::vector<Eigen::Vector2d> subject, const std::vector<Eigen::Vector2d>& clip) {
  for (std::size_t e = 0; e < clip.size() && !subject.empty(); ++e) {
    const Eigen::Vector2d a = clip[e], b = clip[(e + 1) % clip.size()];
    const auto inside = [&](const Eigen::Vector2d& p) {
      return (b.x() - a.x()) * (p.y() - a.y()) - (b.y() - a.y()) * (p.x() - a.x()) >= 0.0;
    };
    std::vector<Eigen::Vector2d> out;
    for (std::size_t k = 0; k < subject.size(); ++k) {
      const Eigen::Vector2d& p = subject[k];
      const Eigen::Vector2d& q = subject[(k + 1) % subject.size()];
      const bool pin = inside(p), qin = inside(q);
      if (pin) out.push_back(p);
      if (pin != qin) {
        const Eigen::Vector2d d = q - p, e2 = b - a;
        const double denom = e2.x() * d.y() - e2.y() * d.x();
        if (denom != 0.0) {
          const double t = ((p.x() - a.x()) * e2.y() - (p.y() - a.y()) * e2.x()) / denom;
          out.push_back(p + t * d);
        }
      }
    }
    subject = std::move(out);
  }
  return subject;
}

}  // namespace

int hullExtremePoints(const ConvexHull& hull, const Plx& X_shape_world, const Vector3& toward, double band,
                      Vector3* points) {
  const Matrix3 R = X_shape_world.E().transpose();
  const Vector3& o = X_shape_world.r();
  const Vector3 l = X_shape_world.E() * toward;
  double extreme = -HUGE_VAL;
  for (const Vector3& v : hull.vertices) extreme = std::max(extreme, v.dot(l));
  std::vector<Vector3> near;
  std::vector<double> depth;
  for (const Vector3& v : hull.vertices) {
    const double h = v.dot(l);
    if (h < extreme - band) continue;
    near.push_back(o + R * v);
    depth.push_back(-h);
  }
  int keep[kManifoldPoints];
  const int m = reduceToFour(near, toward, depth, keep);
  for (int k = 0; k < m; ++k) points[k] = near[static_cast<std::size_t>(keep[k])];
  return m;
}

int contactManifold(const Geometry& a, const Plx& X_a_world, const Geometry& b, const Plx& X_b_world,
                    const ConvexDistance& d, ManifoldPoint* points) {
  const Vector3& n = d.normal;  // from a to b
  points[0] = {d.point_a, d.distance};
  std::vector<Vector3> face_a, face_b;
  Vector3 n_a, n_b;
  if (!facingFace(a, X_a_world, n, face_a, n_a) || !facingFace(b, X_b_world, -n, face_b, n_b)) return 1;
  // Face to face only when both faces lie (nearly) in the contact plane; an edge or a corner touches at the
  // deepest point.
  if (n_a.dot(n) < kFaceAlignment || -n_b.dot(n) < kFaceAlignment) return 1;
  Vector3 t1, t2;
  orthonormalComplement(n, t1, t2);
  t2 = n.cross(t1);  // (t1, t2, n) right-handed: counterclockwise about n stays counterclockwise in (t1, t2)
  const auto flat = [&](const std::vector<Vector3>& face, bool reverse) {
    std::vector<Eigen::Vector2d> out;
    for (const Vector3& p : face) out.emplace_back(t1.dot(p), t2.dot(p));
    if (reverse) std::reverse(out.begin(), out.end());  // b's face runs counterclockwise about -n
    return out;
  };
  const std::vector<Eigen::Vector2d> overlap = clipPolygon(flat(face_a, false), flat(face_b, true));
  if (overlap.size() < 3) return 1;
  // Heights along n of each face's plane over a point u of the contact plane: the plane n_f . x = n_f . c_f.
  const auto height = [&](const Vector3& n_f, const Vector3& c_f, const Eigen::Vector2d& u) {
    return (n_f.dot(c_f) - u.x() * n_f.dot(t1) - u.y() * n_f.dot(t2)) / n_f.dot(n);
  };
  std::vector<Vector3> candidates;
  std::vector<double> gaps;
  for (const Eigen::Vector2d& u : overlap) {
    const double h_a = height(n_a, face_a[0], u), h_b = height(n_b, face_b[0], u);
    candidates.push_back(u.x() * t1 + u.y() * t2 + h_a * n);
    gaps.push_back(h_b - h_a);
  }
  int keep[kManifoldPoints];
  const int m = reduceToFour(candidates, n, gaps, keep);
  for (int k = 0; k < m; ++k) points[k] = {candidates[static_cast<std::size_t>(keep[k])], gaps[static_cast<std::size_t>(keep[k])]};
  return m;
}

}  // namespace abdyn::internal
