#include "constraints/contact_manifold.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "constraints/orthonormal_complement.hpp"
#include "constraints/shape_box.hpp"
#include "constraints/static_mesh.hpp"

namespace abdyn::internal {
namespace {

// Faces within this angle's cosine of the normal take part in a face contact (about 2.6 degrees).
constexpr double kFaceAlignment = 0.999;
// Two candidate points of a static mesh's contact closer than this (relative to 1 + their distance from the
// origin, m) are one.
constexpr double kSamePoint = 1e-9;
// A barycentric weight above this puts its corner in the feature (edge, corner) a triangle's witness point is on.
constexpr double kFeatureWeight = 1e-9;
// Neighbouring triangles folded by less than this angle (rad, about 0.6 degree) make a flat part of the surface.
constexpr double kCreaseAngle = 0.01;
// faceOnTriangle: a clip point within this height (m) of the shape's lowest counts as the lowest (EPA's own
// tolerance, convex_distance.cpp).
constexpr double kLowestTolerance = 1e-10;
// faceOnTriangle, overlapping: how far (rad) the direction of least penetration may lie from the triangle's normal
// for the clip along that normal to stand for EPA's.
constexpr double kFlatTilt = 1e-8;

// Depths within this of the deepest (m) make the touching group of reduceToFour: a body resting on a few
// points has them all at about the same depth, and which of them is deepest by micrometres changes from
// step to step; the group does not (it changes where a point's height crosses this, half the 1 mm of
// penetration a contact may leave).
constexpr double kTouchingDepth = 5e-4;

// Reduces candidates (k of them) to at most four: the touching ones (within kTouchingDepth of the deepest)
// first, then the others. Four roles are filled in turn, each from the touching points left if any, else
// from all left: a and b the two farthest apart (or, with one touching point, it and the farthest from it),
// c the one making the largest triangle with them (from all when the touching ones lie within kTouchingDepth
// of the line ab), d the one adding the most area beyond that triangle's
// far side. No role depends on which touching point is deepest or on the candidates' order, so the choice,
// and with it the contact rows' keys and warm-start impulses, holds while the body rests. Returns the
// indices kept, ascending.
// The candidates are the indices i in [0, k) with valid(i), at(i) their points and depth(i) their depths (a
// hull's vertices within a band: no copy of them is made).
template <class At, class Depth, class Valid>
int reduceToFour(int k, const At& at, const Depth& depth, const Valid& valid, const Vector3& n, int* keep) {
  int count = 0;
  for (int i = 0; i < k; ++i) count += valid(i) ? 1 : 0;
  if (count <= kManifoldPoints) {
    int m = 0;
    for (int i = 0; i < k && m < kManifoldPoints; ++i) {
      if (valid(i)) keep[m++] = i;
    }
    return m;
  }
  std::fill(keep, keep + kManifoldPoints, -1);
  double deepest = HUGE_VAL;
  for (int i = 0; i < k; ++i) {
    if (valid(i)) deepest = std::min(deepest, depth(i));
  }
  const auto touching = [&](int i) { return valid(i) && depth(i) <= deepest + kTouchingDepth; };
  int touching_count = 0;
  for (int i = 0; i < k; ++i) touching_count += touching(i) ? 1 : 0;
  int m = 0;
  // The candidate i (not kept yet, touching while touching ones are left) with the largest score(i) > floor;
  // -1 when none.
  const auto best = [&](auto score, double floor) {
    const bool from_touching = touching_count > m;
    int chosen = -1;
    double top = floor;
    for (int i = 0; i < k; ++i) {
      if (!valid(i) || std::find(keep, keep + m, i) != keep + m || (from_touching && !touching(i))) continue;
      const double s = score(i);
      if (s > top) chosen = i, top = s;
    }
    return chosen;
  };
  const auto planar = [&](int i, int j) { return (at(i) - at(j)).cross(n).squaredNorm(); };
  if (touching_count >= 2) {
    int a = -1, b = -1;
    double widest = -1.0;
    for (int i = 0; i < k; ++i) {
      if (!touching(i)) continue;
      for (int j = i + 1; j < k; ++j) {
        if (touching(j) && planar(i, j) > widest) a = i, b = j, widest = planar(i, j);
      }
    }
    keep[m++] = a;
    keep[m++] = b;
  } else {
    for (int i = 0; i < k && m == 0; ++i) {
      if (touching(i)) keep[m++] = i;
    }
    keep[m++] = best([&](int i) { return planar(i, keep[0]); }, -1.0);
  }
  const int a = keep[0], b = keep[1];
  const auto area = [&](int i, int j, int l) { return n.dot((at(j) - at(i)).cross(at(l) - at(i))); };  // signed, twice
  const auto spread = [&](int i) { return std::abs(area(a, b, i)); };
  int c = best(spread, -1.0);
  if (touching_count > m && spread(c) <= kTouchingDepth * std::sqrt(planar(a, b))) {
    touching_count = m;  // the touching points lie on a line (an edge resting): widen the triangle with the others
    c = best(spread, -1.0);
  }
  keep[m++] = c;
  // How far i lies outside the triangle a, b, c (twice the area it adds beyond the edge it is furthest past).
  const double sign = area(a, b, c) > 0.0 ? 1.0 : -1.0;
  const auto gain = [&](int i) { return std::max({-sign * area(a, b, i), -sign * area(b, c, i), -sign * area(c, a, i)}); };
  int d = best(gain, 0.0);
  if (d < 0 && touching_count > m) {  // no touching point outside the triangle: look among the others
    touching_count = m;
    d = best(gain, 0.0);
  }
  if (d >= 0) keep[m++] = d;
  for (int i = 1; i < m; ++i) {  // ascending (insertion sort of at most four)
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) std::swap(keep[j - 1], keep[j]);
  }
  return m;
}

// reduceToFour over every point of p, with depths `depth`.
int reduceToFour(const std::vector<Vector3>& p, const Vector3& n, const std::vector<double>& depth, int* keep) {
  return reduceToFour(
      static_cast<int>(p.size()), [&](int i) -> const Vector3& { return p[static_cast<std::size_t>(i)]; },
      [&](int i) { return depth[static_cast<std::size_t>(i)]; }, [](int) { return true; }, n, keep);
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

// Clips polygon `subject` (2D, counterclockwise) by the convex polygon `clip` (2D, counterclockwise), in place;
// `next` is scratch.
void clipPolygon(std::vector<Eigen::Vector2d>& subject, const std::vector<Eigen::Vector2d>& clip,
                 std::vector<Eigen::Vector2d>& next) {
  for (std::size_t e = 0; e < clip.size() && !subject.empty(); ++e) {
    const Eigen::Vector2d a = clip[e], b = clip[(e + 1) % clip.size()];
    const auto inside = [&](const Eigen::Vector2d& p) {
      return (b.x() - a.x()) * (p.y() - a.y()) - (b.y() - a.y()) * (p.x() - a.x()) >= 0.0;
    };
    next.clear();
    for (std::size_t k = 0; k < subject.size(); ++k) {
      const Eigen::Vector2d& p = subject[k];
      const Eigen::Vector2d& q = subject[(k + 1) % subject.size()];
      const bool pin = inside(p), qin = inside(q);
      if (pin) next.push_back(p);
      if (pin != qin) {
        const Eigen::Vector2d d = q - p, e2 = b - a;
        const double denom = e2.x() * d.y() - e2.y() * d.x();
        if (denom != 0.0) {
          const double t = ((p.x() - a.x()) * e2.y() - (p.y() - a.y()) * e2.x()) / denom;
          next.push_back(p + t * d);
        }
      }
    }
    subject.swap(next);
  }
}

// The overlap of a's face (corners face_a, outward normal n_a) and b's (face_b, n_b), both counterclockwise about
// their outward normals, when both lie within kFaceAlignment of the contact plane (normal n, from a to b): the
// overlap clipped in that plane (Sutherland-Hodgman), each point on a's face (into w.clipped) with its gap, b's face
// minus a's along n (w.clipped_gaps). False (and nothing written) when the faces are not both aligned or overlap
// in fewer than three points. Uses w.polygon, w.next and w.clip.
bool clipFaces(const std::vector<Vector3>& face_a, const Vector3& n_a, const std::vector<Vector3>& face_b,
               const Vector3& n_b, const Vector3& n, NarrowPhaseWorkspace& w) {
  // Face to face only when both faces lie (nearly) in the contact plane; an edge or a corner touches at the
  // deepest point.
  if (n_a.dot(n) < kFaceAlignment || -n_b.dot(n) < kFaceAlignment) return false;
  Vector3 t1, t2;
  orthonormalComplement(n, t1, t2);
  t2 = n.cross(t1);  // (t1, t2, n) right-handed: counterclockwise about n stays counterclockwise in (t1, t2)
  w.polygon.clear();
  for (const Vector3& p : face_a) w.polygon.emplace_back(t1.dot(p), t2.dot(p));
  w.clip.clear();
  for (auto p = face_b.rbegin(); p != face_b.rend(); ++p) {
    w.clip.emplace_back(t1.dot(*p), t2.dot(*p));  // b's face runs counterclockwise about -n: reversed
  }
  clipPolygon(w.polygon, w.clip, w.next);
  if (w.polygon.size() < 3) return false;
  // Heights along n of each face's plane over a point u of the contact plane: the plane n_f . x = n_f . c_f.
  const auto height = [&](const Vector3& n_f, const Vector3& c_f, const Eigen::Vector2d& u) {
    return (n_f.dot(c_f) - u.x() * n_f.dot(t1) - u.y() * n_f.dot(t2)) / n_f.dot(n);
  };
  w.clipped.clear();
  w.clipped_gaps.clear();
  for (const Eigen::Vector2d& u : w.polygon) {
    const double h_a = height(n_a, face_a[0], u), h_b = height(n_b, face_b[0], u);
    w.clipped.push_back(u.x() * t1 + u.y() * t2 + h_a * n);
    w.clipped_gaps.push_back(h_b - h_a);
  }
  return true;
}

// Whether the point w of triangle t (corners c, world) lies on an edge or corner where the surface folds away from
// the side `face` (the triangle's unit normal on the shape's side): an edge on the mesh's boundary, or one whose
// neighbouring triangle turns below the triangle's plane by more than kCreaseAngle. There a contact may push
// along the edge's or corner's own normal; elsewhere (inside the face, or on an edge between coplanar or hollow
// neighbours) the face's normal holds, so that a shape sliding over a flat surface made of several triangles is
// not caught on the edges between them. A corner is a crease when either of its two edges in t is.
bool onCrease(const MeshShape& m, const std::array<Vector3, 3>& c, int t, const Vector3& face, const Vector3& w) {
  // Barycentric coordinates of w; a corner whose weight is (near) zero is not part of the feature.
  const Vector3 normal = (c[1] - c[0]).cross(c[2] - c[0]);
  const double area = normal.squaredNorm();
  const double l1 = (w - c[0]).cross(c[2] - c[0]).dot(normal) / area;
  const double l2 = (c[1] - c[0]).cross(w - c[0]).dot(normal) / area;
  const double l[3] = {1.0 - l1 - l2, l1, l2};
  bool on[3];
  int corners = 0;
  for (int k = 0; k < 3; ++k) {
    on[k] = l[k] > kFeatureWeight;
    corners += on[k];
  }
  const auto crease = [&](int e) {  // edge e from corner e to corner e + 1
    const int opposite = m.bvh.opposite[static_cast<std::size_t>(t)][static_cast<std::size_t>(e)];
    if (opposite < 0) return true;
    const Vector3 a = m.triangles.vertices[static_cast<std::size_t>(m.triangles.triangles[static_cast<std::size_t>(t)][static_cast<std::size_t>(e)])];
    const Vector3 o = m.triangles.vertices[static_cast<std::size_t>(opposite)];
    // In mesh coordinates: face's direction there is the triangle's normal with the sign face has.
    const Vector3 n_t = m.bvh.normals[static_cast<std::size_t>(t)];
    const double side = normal.dot(face) >= 0.0 ? 1.0 : -1.0;  // the winding's normal against face (world)
    const Vector3 along = (o - a) - (o - a).dot(n_t) * n_t;
    return side * n_t.dot(o - a) < -std::sin(kCreaseAngle) * along.norm();
  };
  if (corners == 2) {  // an edge: the one between the two corners that carry weight
    for (int e = 0; e < 3; ++e) {
      if (on[e] && on[(e + 1) % 3]) return crease(e);
    }
  }
  if (corners == 1) {  // a corner k: edges k and k - 1 meet there
    for (int k = 0; k < 3; ++k) {
      if (on[k]) return crease(k) || crease((k + 2) % 3);
    }
  }
  return false;  // inside the face
}

// Whether point p projects onto the triangle with corners c (within kFeatureWeight of its barycentric bounds).
bool overTriangle(const std::array<Vector3, 3>& c, const Vector3& p) {
  const Vector3 normal = (c[1] - c[0]).cross(c[2] - c[0]);
  const double area = normal.squaredNorm();
  if (!(area > 0.0)) return false;
  const double l1 = (p - c[0]).cross(c[2] - c[0]).dot(normal) / area;
  const double l2 = (c[1] - c[0]).cross(p - c[0]).dot(normal) / area;
  return l1 >= -kFeatureWeight && l2 >= -kFeatureWeight && 1.0 - l1 - l2 >= -kFeatureWeight;
}

// Whether a polytope (hull or box) is at least `margin` from the triangle (corners, world) along one of its own
// faces' normals: the triangle lies that far beyond the face's plane (a separating axis, as convexTriangleApart
// tries the triangle's; together they spare GJK a shape tilted over a triangle it does not reach). False says
// nothing.
bool apartByShapeFaces(const Geometry& shape, const Plx& X_shape_world, const std::array<Vector3, 3>& corner,
                       double margin) {
  const Vector3 c[3] = {X_shape_world.applyToPoint(corner[0]), X_shape_world.applyToPoint(corner[1]),
                        X_shape_world.applyToPoint(corner[2])};  // shape coordinates
  if (shape.shape == ShapeType::Box) {
    const Vector3 far = 0.5 * shape.size + Vector3::Constant(margin);
    const Vector3 lo = c[0].cwiseMin(c[1]).cwiseMin(c[2]), hi = c[0].cwiseMax(c[1]).cwiseMax(c[2]);
    return (lo.array() >= far.array()).any() || (hi.array() <= -far.array()).any();
  }
  if (shape.shape != ShapeType::Mesh || shape.mesh == nullptr) return false;
  const ConvexHull& hull = shape.mesh->hull;
  if (hull.offsets.size() != hull.faces.size() || hull.normals.size() != hull.faces.size()) return false;
  for (std::size_t f = 0; f < hull.faces.size(); ++f) {
    const Vector3& n = hull.normals[f];
    const double plane = hull.offsets[f] + margin;
    if (n.dot(c[0]) >= plane && n.dot(c[1]) >= plane && n.dot(c[2]) >= plane) return true;
  }
  return false;
}

// The least width of the convex polygon p (counterclockwise): the least over its edges of its extent normal to
// the edge (a convex polygon's least width is across one of its edges). 0 for a polygon without area.
double leastWidth(const std::vector<Eigen::Vector2d>& p) {
  double least = HUGE_VAL;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Eigen::Vector2d e = p[(i + 1) % p.size()] - p[i];
    const double length = e.norm();
    if (!(length > 0.0)) continue;
    double extent = 0.0;
    for (const Eigen::Vector2d& q : p) extent = std::max(extent, (e.x() * (q.y() - p[i].y()) - e.y() * (q.x() - p[i].x())) / length);
    least = std::min(least, extent);
  }
  return std::isfinite(least) ? least : 0.0;
}

// What faceOnTriangle found.
enum class FaceOnTriangle {
  Apart,    // the shape lies wholly beyond `margin` on one side of the triangle's plane
  Clipped,  // the shape's face lies on the triangle: its clip is in w.clipped, w.clipped_gaps
  Unknown,  // neither is shown: GJK/EPA decide
};

// The resting case of staticMeshManifold without GJK/EPA: a polytope (hull or box) whose face lies on the
// triangle (corners, world; unit normal n_t). The shape's extent along n_t (its vertices' heights over the plane,
// lo to hi) shows it apart beyond the margin, or which side it is on (wholly above or below the plane: that one;
// across it: its centre's, as staticMeshManifold takes it when the shape overlaps the triangle); `face` is n_t
// turned to that side, `low` the shape's least height along it. Its face facing the triangle is clipped against
// the triangle (clipFaces, contact normal `face`); the clip answers for GJK/EPA when the shape's lowest point lies
// over the triangle (the clip's least height within kLowestTolerance of low):
// - apart (low > 0): the distance to the triangle is then low, along face exactly (a pair of points that far apart
//   lies on one normal), so GJK's normal is face and every clip gap is at least that distance (`least`);
// - overlapping (low <= 0, depth delta = -low): moving the shape by delta along face separates it. Any other
//   direction u = alpha face + beta v (v unit in the plane) needs t(u) >= u . (q_i - p_j) for clip points p_i, p_j
//   on the shape and q_i = p_i - g_i face below them on the triangle (heights g_i), that is
//   t(u) >= -alpha g_j + beta v . (p_i - p_j) >= beta W - G with W the clip's least width and G the largest |g_i|,
//   and with the shape's highest point x_top in place of p_j, t(u) >= -alpha high - beta D with D the largest
//   planar distance from x_top to a clip point. So EPA's least translation is within kFaceAlignment of face when
//   sin(acos kFaceAlignment) W - G > delta and (for u near -face) kFaceAlignment high - sin(acos kFaceAlignment) D
//   > delta; within that cone t(u) >= cos(theta) (delta - s) + sin(theta) W, s the spread of the clip's heights
//   (with their excess over low), puts it within about s / W of face: at most kFlatTilt.
// Where a bound fails the answer is Unknown, and the caller runs GJK/EPA.
FaceOnTriangle faceOnTriangle(const Geometry& shape, const Plx& X_shape_world, const std::array<Vector3, 3>& corner,
                              const Vector3& n_t, const Vector3& centre, double margin, NarrowPhaseWorkspace& w,
                              Vector3& face, double& least) {
  if (shape.shape != ShapeType::Box && (shape.shape != ShapeType::Mesh || shape.mesh == nullptr)) return FaceOnTriangle::Unknown;
  const Matrix3 R = X_shape_world.E().transpose();  // shape axes in world coordinates
  const Vector3 l = X_shape_world.E() * n_t;         // n_t in shape coordinates
  const double offset = n_t.dot(X_shape_world.r() - corner[0]);
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  Vector3 lowest = Vector3::Zero(), highest = Vector3::Zero();  // shape coordinates
  if (shape.shape == ShapeType::Box) {
    const Vector3 far = 0.5 * shape.size.cwiseProduct(l.unaryExpr([](double c) { return c < 0.0 ? -1.0 : 1.0; }));
    hi = offset + l.dot(far);
    lo = offset - l.dot(far);
    highest = far;
    lowest = -far;
  } else {
    for (const Vector3& v : shape.mesh->hull.vertices) {
      const double h = offset + l.dot(v);
      if (h < lo) lo = h, lowest = v;
      if (h > hi) hi = h, highest = v;
    }
  }
  if (lo >= margin || hi <= -margin) return FaceOnTriangle::Apart;
  const double side = lo >= 0.0 ? 1.0 : hi <= 0.0 ? -1.0 : (centre - corner[0]).dot(n_t) >= 0.0 ? 1.0 : -1.0;
  face = side * n_t;
  const double low = side > 0.0 ? lo : -hi, high = side > 0.0 ? hi : -lo;
  const Vector3 top = X_shape_world.r() + R * (side > 0.0 ? highest : lowest);  // world
  Vector3 n_shape;
  if (!facingFace(shape, X_shape_world, -face, w.face_a, n_shape)) return FaceOnTriangle::Unknown;
  w.face_b.assign(corner.begin(), corner.end());
  if (side < 0.0) std::reverse(w.face_b.begin(), w.face_b.end());  // counterclockwise about face
  if (!clipFaces(w.face_a, n_shape, w.face_b, face, -face, w)) return FaceOnTriangle::Unknown;
  double g_min = HUGE_VAL, g_max = -HUGE_VAL, g_abs = 0.0;
  for (const double g : w.clipped_gaps) {
    g_min = std::min(g_min, g);
    g_max = std::max(g_max, g);
    g_abs = std::max(g_abs, std::abs(g));
  }
  if (!(g_min <= low + kLowestTolerance)) return FaceOnTriangle::Unknown;
  if (low > 0.0) {
    least = low;
    return FaceOnTriangle::Clipped;
  }
  const double delta = -low, width = leastWidth(w.polygon);
  const double sine = std::sqrt(1.0 - kFaceAlignment * kFaceAlignment);
  double reach = 0.0;  // D: the clip's largest planar distance from the highest point
  for (const Vector3& p : w.clipped) {
    const Vector3 r = p - top;
    reach = std::max(reach, (r - r.dot(face) * face).norm());
  }
  if (!(g_max - g_min + std::max(g_min - low, 0.0) <= kFlatTilt * width) || !(sine * width - g_abs > delta) ||
      !(kFaceAlignment * high - sine * reach > delta)) {
    return FaceOnTriangle::Unknown;
  }
  least = -HUGE_VAL;
  return FaceOnTriangle::Clipped;
}

}  // namespace

int hullExtremePoints(const ConvexHull& hull, const Plx& X_shape_world, const Vector3& toward, double band,
                      Vector3* points) {
  const Matrix3 R = X_shape_world.E().transpose();
  const Vector3& o = X_shape_world.r();
  const Vector3 l = X_shape_world.E() * toward;
  double extreme = -HUGE_VAL;
  for (const Vector3& v : hull.vertices) extreme = std::max(extreme, v.dot(l));
  const auto height = [&](int i) { return hull.vertices[static_cast<std::size_t>(i)].dot(l); };
  const auto inBand = [&](int i) { return height(i) >= extreme - band; };
  int keep[kManifoldPoints];
  // The vertices in the band, in the hull's order, placed in the world once and kept on the stack when they are
  // few (the usual case); otherwise read in place.
  constexpr int kPlaced = 64;
  Vector3 placed[kPlaced];
  double depth[kPlaced];
  int k = 0;
  for (int i = 0; i < hull.vertexCount() && k <= kPlaced; ++i) {
    if (!inBand(i)) continue;
    if (k < kPlaced) {
      placed[k] = o + R * hull.vertices[static_cast<std::size_t>(i)];
      depth[k] = -height(i);
    }
    ++k;
  }
  if (k <= kPlaced) {
    const int m = reduceToFour(
        k, [&](int i) -> const Vector3& { return placed[i]; }, [&](int i) { return depth[i]; }, [](int) { return true; }, toward,
        keep);
    for (int j = 0; j < m; ++j) points[j] = placed[keep[j]];
    return m;
  }
  const int m = reduceToFour(
      hull.vertexCount(), [&](int i) -> Vector3 { return o + R * hull.vertices[static_cast<std::size_t>(i)]; },
      [&](int i) { return -height(i); }, inBand, toward, keep);
  for (int j = 0; j < m; ++j) points[j] = o + R * hull.vertices[static_cast<std::size_t>(keep[j])];
  return m;
}

int contactManifold(const Geometry& a, const Plx& X_a_world, const Geometry& b, const Plx& X_b_world,
                    const ConvexDistance& d, ManifoldPoint* points, NarrowPhaseWorkspace& w) {
  const Vector3& n = d.normal;  // from a to b
  points[0] = {d.point_a, d.distance};
  Vector3 n_a, n_b;
  if (!facingFace(a, X_a_world, n, w.face_a, n_a) || !facingFace(b, X_b_world, -n, w.face_b, n_b)) return 1;
  if (!clipFaces(w.face_a, n_a, w.face_b, n_b, n, w)) return 1;
  int keep[kManifoldPoints];
  const int m = reduceToFour(w.clipped, n, w.clipped_gaps, keep);
  for (int k = 0; k < m; ++k) {
    const auto i = static_cast<std::size_t>(keep[k]);
    points[k] = {w.clipped[i], w.clipped_gaps[i]};
  }
  return m;
}

int staticMeshManifold(const Geometry& shape, const Plx& X_shape_world, const Geometry& mesh, const Plx& X_mesh_world,
                       double margin, MeshContactPoint* points, NarrowPhaseWorkspace& w) {
  const MeshShape& m = *mesh.mesh;
  const Matrix3 R_mesh = X_mesh_world.E().transpose();  // mesh axes in world coordinates
  trianglesNear(shape, X_shape_world, mesh, X_mesh_world, std::max(margin, 0.0), w.triangles);
  // The shape's centre (a mesh's: its hull's box's) tells the side of a triangle the shape is on.
  Vector3 centre = X_shape_world.r();
  if (shape.shape == ShapeType::Mesh) {
    Vector3 centre_local, half;
    hullBox(shape.mesh->hull, centre_local, half);
    centre = X_shape_world.applyInverseToPoint(centre_local);
  }
  std::vector<Vector3>& candidates = w.candidates;
  std::vector<Vector3>& normals = w.normals;
  std::vector<double>& gaps = w.gaps;
  candidates.clear();
  normals.clear();
  gaps.clear();
  // Adds a candidate, or deepens the one already at that point with that normal (two triangles clipping one
  // face meet on their shared edge).
  const auto add = [&](const Vector3& p, const Vector3& n, double gap) {
    if (!(gap < margin)) return;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if ((candidates[k] - p).norm() <= kSamePoint * (1.0 + p.norm()) && normals[k].dot(n) >= kFaceAlignment) {
        gaps[k] = std::min(gaps[k], gap);
        return;
      }
    }
    candidates.push_back(p);
    normals.push_back(n);
    gaps.push_back(gap);
  };
  for (const int t : w.triangles) {
    const std::array<Vector3, 3> corner = triangleCorners(m, X_mesh_world, t);
    const Vector3 n_t = R_mesh * m.bvh.normals[static_cast<std::size_t>(t)];
    Vector3 on;      // faceOnTriangle's normal
    double at_least;  // and its least gap
    const FaceOnTriangle resting = faceOnTriangle(shape, X_shape_world, corner, n_t, centre, margin, w, on, at_least);
    if (resting == FaceOnTriangle::Apart) continue;
    if (resting == FaceOnTriangle::Clipped) {
      for (std::size_t k = 0; k < w.clipped.size(); ++k) add(w.clipped[k], on, std::max(w.clipped_gaps[k], at_least));
      continue;
    }
    if (apartByShapeFaces(shape, X_shape_world, corner, margin) || convexTriangleApart(shape, X_shape_world, corner, margin)) {
      continue;
    }
    const ConvexDistance d = convexTriangleDistance(shape, X_shape_world, corner);
    if (!(d.distance < margin)) continue;
    Vector3 n = -d.normal;  // from the triangle toward the shape: the shape leaves along it
    Vector3 point = d.point_a;
    double gap = d.distance;
    // The side the shape is on: apart, the one its nearest point lies on (a long shape's centre may lie across
    // the plane from it); overlapping, its centre's.
    const double side = d.distance > 0.0 && n.dot(n_t) != 0.0 ? n.dot(n_t) : (centre - corner[0]).dot(n_t);
    const Vector3 face = side >= 0.0 ? n_t : Vector3(-n_t);
    // Apart, no gap of this triangle is below the shape's distance to it: a gap is the separation of a point of
    // the shape from the triangle along a unit normal, never less than their distance. A smaller one (a point
    // clipped on the far side of the plane) would be a false overlap.
    const double least = d.distance > 0.0 ? d.distance : -HUGE_VAL;
    if (n.dot(face) < kFaceAlignment && !onCrease(m, corner, t, face, d.point_b)) {
      // An edge or corner inside a flat or hollow part of the surface: the face's own normal. The gap along it is
      // the shape's least height face . (x - corner) over its points x that lie over the triangle (project inside
      // it). The plane's gap, the least height over the whole shape, is that only when the shape's deepest point
      // lies over the triangle: a shape beside the triangle (past a corner whose other triangles fold away, past
      // a thin coplanar neighbour to the boundary) reaches below the plane far from the mesh, and that depth is
      // no overlap. Both the plane's gap and the distance d to the triangle bound the height over it from below
      // (apart, a point x over the triangle is |x - its projection| >= d above it; overlapping, |d|, the least
      // translation that separates, is at most the depth along face), so apart the larger is taken;
      // overlapping, the plane's when the deepest point lies over the triangle, else d (the part of the shape
      // over a neighbour is that neighbour's contact).
      n = face;
      Geometry plane;
      plane.shape = ShapeType::Plane;
      Vector3 t1, t2;
      orthonormalComplement(face, t1, t2);
      Matrix3 R_plane;
      R_plane << t1, t2, face;
      const ConvexDistance below = convexDistance(plane, Plx::fromPose(R_plane, corner[0]), shape, X_shape_world);
      if (d.distance >= 0.0 ? below.distance > d.distance : overTriangle(corner, below.point_b)) {
        point = below.point_b;
        gap = below.distance;
      }
      if (!(gap < margin)) continue;
    }
    Vector3 n_shape;
    if (n.dot(face) >= kFaceAlignment && facingFace(shape, X_shape_world, -n, w.face_a, n_shape)) {
      w.face_b.assign(corner.begin(), corner.end());
      if (n_t.dot(face) < 0.0) std::reverse(w.face_b.begin(), w.face_b.end());  // counterclockwise about face
      if (clipFaces(w.face_a, n_shape, w.face_b, face, -n, w)) {
        for (std::size_t k = 0; k < w.clipped.size(); ++k) add(w.clipped[k], n, std::max(w.clipped_gaps[k], least));
        continue;
      }
    }
    add(point, n, std::max(gap, least));
  }
  if (candidates.empty()) return 0;
  std::size_t deepest = 0;
  for (std::size_t k = 1; k < gaps.size(); ++k) {
    if (gaps[k] < gaps[deepest]) deepest = k;
  }
  int keep[kManifoldPoints];
  const int count = reduceToFour(candidates, normals[deepest], gaps, keep);
  for (int k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(keep[k]);
    points[k] = {candidates[i], normals[i], gaps[i]};
  }
  return count;
}

}  // namespace abdyn::internal
