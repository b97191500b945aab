#include "abdyn/constraints/convex_distance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Cholesky>

#include "abdyn/error.hpp"
#include "constraints/static_mesh.hpp"

namespace abdyn {
namespace {

constexpr int kMaxGjkIterations = 128;
constexpr int kMaxEpaIterations = 128;
constexpr double kGjkRelativeTolerance = 1e-12;  // on |v|^2 - v . w against |v|^2
constexpr double kEpaTolerance = 1e-10;          // on n . w - t, metres

// Hulls with fewer vertices are searched vertex by vertex: a climb's bookkeeping costs more than it saves.
constexpr int kClimbFromVertices = 24;

// The hull's vertex furthest along l (shape coordinates). Large hulls: climb from `hint` to a neighbor further
// along l while there is one (a vertex with none is the furthest, convex_hull.hpp), and leave the result in hint.
const Vector3& hullSupport(const ConvexHull& hull, const Vector3& l, int& hint) {
  const std::vector<Vector3>& v = hull.vertices;
  if (hull.vertexCount() < kClimbFromVertices || hull.neighbor_offsets.size() != v.size() + 1) {
    int best = 0;
    double best_h = v[0].dot(l);
    for (int k = 1; k < hull.vertexCount(); ++k) {
      const double h = v[static_cast<std::size_t>(k)].dot(l);
      if (h > best_h) {
        best_h = h;
        best = k;
      }
    }
    return v[static_cast<std::size_t>(best)];
  }
  int at = hint >= 0 && hint < hull.vertexCount() ? hint : 0;
  double at_h = v[static_cast<std::size_t>(at)].dot(l);
  for (bool moved = true; moved;) {
    moved = false;
    const int end = hull.neighbor_offsets[static_cast<std::size_t>(at) + 1];
    for (int k = hull.neighbor_offsets[static_cast<std::size_t>(at)]; k < end; ++k) {
      const int n = hull.neighbors[static_cast<std::size_t>(k)];
      const double h = v[static_cast<std::size_t>(n)].dot(l);
      if (h > at_h) {
        at = n;
        at_h = h;
        moved = true;
      }
    }
  }
  hint = at;
  return v[static_cast<std::size_t>(at)];
}

// A shape placed in the world, with its core (sphere: centre, capsule: segment) and the radius around it.
// A triangle (g null) is its three corners, in world coordinates.
struct Placed {
  const Geometry* g;
  Matrix3 R;        // shape axes in world coordinates (columns)
  Vector3 origin;   // world (a triangle: its centroid)
  double radius;    // 0 but for spheres and capsules
  mutable int hint = 0;  // a mesh: the hull vertex the last support search ended on, where the next one starts
  const std::array<Vector3, 3>* triangle = nullptr;
  Vector3 centre() const { return origin; }
  // The core's point furthest along d (world; need not be unit).
  Vector3 support(const Vector3& d) const {
    if (triangle != nullptr) {
      const std::array<Vector3, 3>& t = *triangle;
      const double h0 = t[0].dot(d), h1 = t[1].dot(d), h2 = t[2].dot(d);
      return h0 >= h1 ? (h0 >= h2 ? t[0] : t[2]) : (h1 >= h2 ? t[1] : t[2]);
    }
    const Vector3 l = R.transpose() * d;
    Vector3 s = Vector3::Zero();
    switch (g->shape) {
      case ShapeType::Sphere:
        break;
      case ShapeType::Capsule:
        s.z() = l.z() < 0.0 ? -0.5 * g->size[1] : 0.5 * g->size[1];
        break;
      case ShapeType::Box:
        s = 0.5 * g->size.cwiseProduct(l.unaryExpr([](double c) { return c < 0.0 ? -1.0 : 1.0; }));
        break;
      case ShapeType::Cylinder: {
        const double rho = l.head<2>().norm();
        if (rho > 0.0) s.head<2>() = g->size[0] / rho * l.head<2>();
        s.z() = l.z() < 0.0 ? -0.5 * g->size[1] : 0.5 * g->size[1];
        break;
      }
      case ShapeType::Ellipsoid: {  // x^T A^-2 x = 1 with A = diag(a, b, c): s = A^2 l / |A l|
        const Vector3 Al = g->size.cwiseProduct(l);
        const double n = Al.norm();
        if (n > 0.0) s = g->size.cwiseProduct(Al) / n;
        break;
      }
      case ShapeType::Mesh:
        s = hullSupport(g->mesh->hull, l, hint);
        break;
      case ShapeType::Plane:
        break;  // not reached: planes are handled apart
    }
    return origin + R * s;
  }
  // The whole shape's point furthest along d (the core's, moved out by the radius).
  Vector3 fullSupport(const Vector3& d) const {
    const double n = d.norm();
    return support(d) + (radius > 0.0 && n > 0.0 ? Vector3(radius / n * d) : Vector3::Zero());
  }
};

Placed place(const Geometry& g, const Plx& X_shape_world) {
  Placed p{&g, X_shape_world.E().transpose(), X_shape_world.r(), 0.0};
  if (g.shape == ShapeType::Sphere || g.shape == ShapeType::Capsule) p.radius = g.size[0];
  return p;
}

// A point of the Minkowski difference with the shapes' points that made it.
struct Vertex {
  Vector3 w, a, b;
};

// The point of the simplex s[0..n) nearest the origin, as barycentric coordinates lambda (all > 0 on
// the points kept); reduces the simplex to the points with positive weight. Every non-empty subset's
// affine hull is projected on (the Gram system G lambda = e / (e^T G^-1 e)); the nearest projection
// inside its own subset is the answer.
Vector3 nearestOnSimplex(std::array<Vertex, 4>& s, int& n, std::array<double, 4>& lambda) {
  double best = std::numeric_limits<double>::infinity();
  int best_mask = 0;
  std::array<double, 4> best_lambda{};
  for (int mask = 1; mask < (1 << n); ++mask) {
    int idx[4], m = 0;
    for (int i = 0; i < n; ++i) {
      if (mask & (1 << i)) idx[m++] = i;
    }
    // Minimise |sum l_i w_i|^2 with sum l_i = 1: with w_i = w_0 + e_i, solve for l_1.. l_{m-1}.
    std::array<double, 4> l{};
    if (m == 1) {
      l[0] = 1.0;
    } else {
      Eigen::Matrix3d E;
      for (int k = 1; k < m; ++k) E.col(k - 1) = s[static_cast<std::size_t>(idx[k])].w - s[static_cast<std::size_t>(idx[0])].w;
      using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;  // no heap
      using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 3, 1>;
      const auto Em = E.leftCols(m - 1);
      const Small G = Em.transpose() * Em;
      const SmallVector rhs = -Em.transpose() * s[static_cast<std::size_t>(idx[0])].w;
      Eigen::LDLT<Small> ldlt(G);
      if (ldlt.info() != Eigen::Success || !(std::abs(ldlt.vectorD().minCoeff()) > 1e-14 * std::max(1.0, G.trace()))) continue;
      const SmallVector x = ldlt.solve(rhs);
      l[0] = 1.0 - x.sum();
      for (int k = 1; k < m; ++k) l[static_cast<std::size_t>(k)] = x[k - 1];
    }
    bool inside = true;
    for (int k = 0; k < m; ++k) inside &= l[static_cast<std::size_t>(k)] > 0.0;
    if (!inside) continue;
    Vector3 p = Vector3::Zero();
    for (int k = 0; k < m; ++k) p += l[static_cast<std::size_t>(k)] * s[static_cast<std::size_t>(idx[k])].w;
    const double d = p.squaredNorm();
    if (d < best) {
      best = d;
      best_mask = mask;
      best_lambda = l;
    }
  }
  if (best_mask == 0) {  // rounding left no subset strictly inside: keep the nearest point of the simplex
    int k = 0;
    for (int i = 1; i < n; ++i) {
      if (s[static_cast<std::size_t>(i)].w.squaredNorm() < s[static_cast<std::size_t>(k)].w.squaredNorm()) k = i;
    }
    best_mask = 1 << k;
    best_lambda = {1.0, 0.0, 0.0, 0.0};
  }
  std::array<Vertex, 4> kept;
  int m = 0;
  Vector3 v = Vector3::Zero();
  for (int i = 0; i < n; ++i) {
    if (!(best_mask & (1 << i))) continue;
    lambda[static_cast<std::size_t>(m)] = best_lambda[static_cast<std::size_t>(m)];
    kept[static_cast<std::size_t>(m)] = s[static_cast<std::size_t>(i)];
    v += lambda[static_cast<std::size_t>(m)] * s[static_cast<std::size_t>(i)].w;
    ++m;
  }
  s = kept;
  n = m;
  return v;
}

Vertex supportVertex(const Placed& A, const Placed& B, const Vector3& d, bool full) {
  Vertex x;
  x.a = full ? A.fullSupport(d) : A.support(d);
  x.b = full ? B.fullSupport(-d) : B.support(-d);
  x.w = x.a - x.b;
  return x;
}

struct GjkResult {
  bool overlap = false;
  Vector3 v = Vector3::Zero();  // nearest point of the difference of the cores
  Vector3 a = Vector3::Zero(), b = Vector3::Zero();
  std::array<Vertex, 4> simplex;
  int n = 0;
};

GjkResult gjk(const Placed& A, const Placed& B, bool full) {
  GjkResult r;
  Vector3 v = A.centre() - B.centre();
  if (!(v.squaredNorm() > 0.0)) v = Vector3::UnitX();
  std::array<double, 4> lambda{};
  const double scale = std::max(1.0, v.norm());
  for (int it = 0; it < kMaxGjkIterations; ++it) {
    const Vertex w = supportVertex(A, B, -v, full);
    if (r.n > 0 && v.squaredNorm() - v.dot(w.w) <= kGjkRelativeTolerance * v.squaredNorm()) break;
    bool repeated = false;  // a point already in the simplex: no progress is possible
    for (int i = 0; i < r.n; ++i) repeated |= (r.simplex[static_cast<std::size_t>(i)].w - w.w).squaredNorm() == 0.0;
    if (repeated) break;
    // No progress: the nearest point of the grown simplex is no nearer than v. In exact arithmetic the test
    // above stops first; in rounding, a face parallel to the other shape's face (a box resting on a triangle)
    // offers a support w that the simplex takes and drops again with weight zero, v unchanged, round after round.
    const GjkResult before = r;
    const std::array<double, 4> lambda_before = lambda;
    r.simplex[static_cast<std::size_t>(r.n++)] = w;
    const Vector3 v_before = v;
    v = nearestOnSimplex(r.simplex, r.n, lambda);
    if (before.n > 0 && !(v.squaredNorm() < v_before.squaredNorm())) {
      r = before;
      lambda = lambda_before;
      v = v_before;
      break;
    }
    if (r.n == 4 || v.squaredNorm() <= 1e-24 * scale * scale) {
      r.overlap = true;
      break;
    }
  }
  r.v = v;
  for (int i = 0; i < r.n; ++i) {
    r.a += lambda[static_cast<std::size_t>(i)] * r.simplex[static_cast<std::size_t>(i)].a;
    r.b += lambda[static_cast<std::size_t>(i)] * r.simplex[static_cast<std::size_t>(i)].b;
  }
  return r;
}

// EPA from GJK's simplex (which holds the origin, perhaps on its boundary): the depth t >= 0 and the
// outward normal n of D at its boundary point nearest the origin, with the witness points.
void epa(const Placed& A, const Placed& B, GjkResult g, ConvexDistance& out) {
  std::vector<Vertex> vertices(g.simplex.begin(), g.simplex.begin() + g.n);
  // Grow a degenerate simplex into a tetrahedron: supports perpendicular to what it spans.
  const Vector3 axes[3] = {Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitZ()};
  for (int tries = 0; vertices.size() < 4 && tries < 12; ++tries) {
    Vector3 d;
    if (vertices.size() == 1) {
      d = axes[tries % 3];
    } else if (vertices.size() == 2) {
      const Vector3 e = vertices[1].w - vertices[0].w;
      d = e.cross(axes[tries % 3]);
    } else {
      d = (vertices[1].w - vertices[0].w).cross(vertices[2].w - vertices[0].w);
    }
    if (tries % 2) d = -d;
    if (!(d.squaredNorm() > 0.0)) continue;
    const Vertex w = supportVertex(A, B, d, true);
    bool fresh = true;  // off the affine hull of the points so far
    const double tiny = 1e-12 * std::max(1.0, w.w.norm());
    if (vertices.size() == 1) fresh = (w.w - vertices[0].w).norm() > tiny;
    if (vertices.size() == 2) fresh = (w.w - vertices[0].w).cross(vertices[1].w - vertices[0].w).norm() > tiny * tiny;
    if (vertices.size() == 3) fresh = std::abs(d.normalized().dot(w.w - vertices[0].w)) > tiny;
    if (fresh) vertices.push_back(w);
  }
  if (vertices.size() < 4) {  // the difference is flat: the shapes touch without volume
    out.distance = 0.0;
    out.point_a = g.a;
    out.point_b = g.a;
    return;
  }
  struct Face {
    int i[3];
    Vector3 n;
    double t;
    bool alive;
  };
  std::vector<Face> faces;
  const auto addFace = [&](int a, int b, int c) {
    Face f{{a, b, c}, Vector3::Zero(), std::numeric_limits<double>::infinity(), true};
    const Vector3 n = (vertices[static_cast<std::size_t>(b)].w - vertices[static_cast<std::size_t>(a)].w)
                          .cross(vertices[static_cast<std::size_t>(c)].w - vertices[static_cast<std::size_t>(a)].w);
    const double len = n.norm();
    if (len > 0.0) {
      f.n = n / len;
      f.t = f.n.dot(vertices[static_cast<std::size_t>(a)].w);
    }
    faces.push_back(f);
  };
  // The tetrahedron's faces, wound outward (away from the fourth point).
  const Vector3 centroid = (vertices[0].w + vertices[1].w + vertices[2].w + vertices[3].w) / 4.0;
  const int tet[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
  for (const auto& f : tet) {
    const Vector3 n = (vertices[static_cast<std::size_t>(f[1])].w - vertices[static_cast<std::size_t>(f[0])].w)
                          .cross(vertices[static_cast<std::size_t>(f[2])].w - vertices[static_cast<std::size_t>(f[0])].w);
    if (n.dot(vertices[static_cast<std::size_t>(f[0])].w - centroid) >= 0.0) {
      addFace(f[0], f[1], f[2]);
    } else {
      addFace(f[0], f[2], f[1]);
    }
  }
  std::size_t best = 0;
  for (int it = 0; it < kMaxEpaIterations; ++it) {
    best = faces.size();
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (faces[k].alive && (best == faces.size() || faces[k].t < faces[best].t)) best = k;
    }
    const Face f = faces[best];
    const Vertex w = supportVertex(A, B, f.n, true);
    if (f.n.dot(w.w) - f.t <= kEpaTolerance) break;
    // Remove the faces w sees; the edges they do not share form the horizon.
    std::vector<std::array<int, 2>> horizon;
    for (Face& face : faces) {
      if (!face.alive || face.n.dot(w.w - vertices[static_cast<std::size_t>(face.i[0])].w) <= 0.0) continue;
      face.alive = false;
      for (int e = 0; e < 3; ++e) {
        const std::array<int, 2> edge{face.i[e], face.i[(e + 1) % 3]};
        const auto twin = std::find(horizon.begin(), horizon.end(), std::array<int, 2>{edge[1], edge[0]});
        if (twin != horizon.end()) {
          horizon.erase(twin);
        } else {
          horizon.push_back(edge);
        }
      }
    }
    const int k = static_cast<int>(vertices.size());
    vertices.push_back(w);
    for (const auto& edge : horizon) addFace(edge[0], edge[1], k);
  }
  const Face& f = faces[best];
  // Barycentric coordinates of the nearest boundary point t n in the face's triangle.
  const Vector3 p = f.t * f.n;
  const Vector3& a = vertices[static_cast<std::size_t>(f.i[0])].w;
  const Vector3& b = vertices[static_cast<std::size_t>(f.i[1])].w;
  const Vector3& c = vertices[static_cast<std::size_t>(f.i[2])].w;
  const Vector3 n = (b - a).cross(c - a);
  const double area = n.squaredNorm();
  double l[3] = {1.0, 0.0, 0.0};
  if (area > 0.0) {
    l[1] = (p - a).cross(c - a).dot(n) / area;
    l[2] = (b - a).cross(p - a).dot(n) / area;
    l[0] = 1.0 - l[1] - l[2];
  }
  out.point_a.setZero();
  out.point_b.setZero();
  for (int k = 0; k < 3; ++k) {
    out.point_a += l[k] * vertices[static_cast<std::size_t>(f.i[k])].a;
    out.point_b += l[k] * vertices[static_cast<std::size_t>(f.i[k])].b;
  }
  out.distance = -f.t;
  out.normal = f.n;  // a - b = t n: a lies past b along n, so b lies along n from a
}

// A plane (half space z <= 0 of its frame) against a convex shape.
ConvexDistance planeDistance(const Plx& X_plane_world, const Placed& B) {
  ConvexDistance out;
  out.normal = X_plane_world.E().row(2).transpose();  // the plane's z axis in world coordinates
  out.point_b = B.fullSupport(-out.normal);
  out.distance = out.normal.dot(out.point_b - X_plane_world.r());
  out.point_a = out.point_b - out.distance * out.normal;
  return out;
}

// The signed distance of two placed convex shapes (neither a plane).
ConvexDistance placedDistance(const Placed& A, const Placed& B) {
  ConvexDistance out;
  const double radii = A.radius + B.radius;
  const GjkResult cores = gjk(A, B, false);
  const double core_distance = cores.overlap ? 0.0 : cores.v.norm();
  if (!cores.overlap && core_distance > 1e-9 * std::max(1.0, radii)) {
    // Apart cores: exact for the inflated shapes too (the depth of a core inflated by r is r - the distance).
    out.normal = -cores.v / core_distance;
    out.distance = core_distance - radii;
    out.point_a = cores.a + A.radius * out.normal;
    out.point_b = cores.b - B.radius * out.normal;
    return out;
  }
  if (radii == 0.0) {
    epa(A, B, cores, out);
    return out;
  }
  // The cores overlap: EPA on the whole shapes, starting from a simplex of theirs.
  epa(A, B, gjk(A, B, true), out);
  return out;
}

void checkConvex(const Geometry& g, const char* function) {
  if (!isConvexShape(g)) {
    throw InvalidArgument(std::string("abdyn::") + function + ": geometry '" + g.name +
                          "' is a mesh without a loaded convex hull");
  }
}

}  // namespace

bool isConvexShape(const Geometry& g) {
  return g.shape != ShapeType::Mesh || (g.mesh != nullptr && !g.mesh->hull.vertices.empty());
}

ConvexDistance convexDistance(const Geometry& a, const Plx& X_a_world, const Geometry& b, const Plx& X_b_world) {
  checkConvex(a, "convexDistance");
  checkConvex(b, "convexDistance");
  if (a.shape == ShapeType::Plane && b.shape == ShapeType::Plane) {
    throw InvalidArgument("abdyn::convexDistance: '" + a.name + "' and '" + b.name + "' are both planes");
  }
  if (a.shape == ShapeType::Plane) return planeDistance(X_a_world, place(b, X_b_world));
  if (b.shape == ShapeType::Plane) {
    ConvexDistance r = planeDistance(X_b_world, place(a, X_a_world));
    std::swap(r.point_a, r.point_b);
    r.normal = -r.normal;
    return r;
  }
  return placedDistance(place(a, X_a_world), place(b, X_b_world));
}

namespace internal {

// A separating axis u (unit) bounds the distance from below: every pair of points x in the shape, y in the
// triangle has |x - y| >= u . (x - y) >= min_x u . x - max_y u . y, and likewise with the roles swapped. So
// the shape is at least `margin` from the triangle when along some u its projection and the triangle's are
// that far apart. The axes tried: the triangle's normal (the shape wholly above or below its plane, e.g. a
// table's bottom) and its three edges' outward normals within its plane (the shape beyond an edge, e.g. the
// neighbours of the triangles a body rests on). The shape's extent along u is two support queries.
bool convexTriangleApart(const Geometry& a, const Plx& X_a_world, const std::array<Vector3, 3>& triangle, double margin) {
  const Placed A = place(a, X_a_world);
  const Vector3 n = (triangle[1] - triangle[0]).cross(triangle[2] - triangle[0]);
  if (!(n.squaredNorm() > 0.0)) return false;
  const Vector3 normal = n.normalized();
  const auto apart = [&](const Vector3& u) {
    double lo = u.dot(triangle[0]), hi = lo;
    for (int k = 1; k < 3; ++k) {
      lo = std::min(lo, u.dot(triangle[static_cast<std::size_t>(k)]));
      hi = std::max(hi, u.dot(triangle[static_cast<std::size_t>(k)]));
    }
    return u.dot(A.fullSupport(-u)) - hi >= margin || lo - u.dot(A.fullSupport(u)) >= margin;
  };
  if (apart(normal)) return true;
  for (int k = 0; k < 3; ++k) {
    const Vector3 edge = triangle[static_cast<std::size_t>((k + 1) % 3)] - triangle[static_cast<std::size_t>(k)];
    const Vector3 out = edge.cross(normal);
    if (out.squaredNorm() > 0.0 && apart(out.normalized())) return true;
  }
  return false;
}

}  // namespace internal

ConvexDistance convexTriangleDistance(const Geometry& a, const Plx& X_a_world, const std::array<Vector3, 3>& triangle) {
  checkConvex(a, "convexTriangleDistance");
  if (a.shape == ShapeType::Plane) {
    throw InvalidArgument("abdyn::convexTriangleDistance: geometry '" + a.name + "' is a plane");
  }
  Placed B{nullptr, Matrix3::Identity(), (triangle[0] + triangle[1] + triangle[2]) / 3.0, 0.0};
  B.triangle = &triangle;
  return placedDistance(place(a, X_a_world), B);
}

}  // namespace abdyn
