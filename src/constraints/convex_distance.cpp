#include "abdyn/constraints/convex_distance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

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

// The least and greatest l . x over the hull's vertices x, searched vertex by vertex (one pass for both), or for
// large hulls by two climbs from `hint`.
void hullExtent(const ConvexHull& hull, const Vector3& l, int hint, double& lo, double& hi) {
  const std::vector<Vector3>& v = hull.vertices;
  if (hull.vertexCount() < kClimbFromVertices || hull.neighbor_offsets.size() != v.size() + 1) {
    lo = hi = v[0].dot(l);
    for (int k = 1; k < hull.vertexCount(); ++k) {
      const double h = v[static_cast<std::size_t>(k)].dot(l);
      lo = std::min(lo, h);
      hi = std::max(hi, h);
    }
    return;
  }
  int low_hint = hint;
  hi = hullSupport(hull, l, hint).dot(l);
  lo = hullSupport(hull, -l, low_hint).dot(l);
}

// A shape placed in a frame (the world's, or another shape's: see placedDistance), with its core (sphere: centre,
// capsule: segment) and the radius around it. A triangle (g null) is its three corners, in that frame.
struct Placed {
  const Geometry* g = nullptr;
  Matrix3 R = Matrix3::Identity();  // shape axes in the frame's coordinates (columns)
  Vector3 origin = Vector3::Zero();  // in the frame (a triangle: its centroid)
  double radius = 0.0;               // 0 but for spheres and capsules
  bool own_frame = false;            // the frame is the shape's own (R = 1, origin 0): supports need no rotation
  mutable int hint = 0;  // a mesh: the hull vertex the last support search ended on, where the next one starts
  bool is_triangle = false;
  std::array<Vector3, 3> triangle;
  Vector3 centre() const { return origin; }
  // The core's point furthest along l, in the shape's own coordinates.
  Vector3 coreSupport(const Vector3& l) const {
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
    return s;
  }
  // The core's point furthest along d (the frame's coordinates; d need not be unit).
  Vector3 support(const Vector3& d) const {
    if (is_triangle) {
      const double h0 = triangle[0].dot(d), h1 = triangle[1].dot(d), h2 = triangle[2].dot(d);
      return h0 >= h1 ? (h0 >= h2 ? triangle[0] : triangle[2]) : (h1 >= h2 ? triangle[1] : triangle[2]);
    }
    if (own_frame) return coreSupport(d);
    return origin + R * coreSupport(R.transpose() * d);
  }
  // The whole shape's point furthest along d (the core's, moved out by the radius).
  Vector3 fullSupport(const Vector3& d) const {
    if (radius == 0.0) return support(d);
    const double n = d.norm();
    return support(d) + (n > 0.0 ? Vector3(radius / n * d) : Vector3::Zero());
  }
  // The least and greatest u . x over the whole shape's points x (u unit, the frame's coordinates; not a triangle).
  void extent(const Vector3& u, double& lo, double& hi) const {
    const Vector3 l = own_frame ? u : Vector3(R.transpose() * u);
    if (g->shape == ShapeType::Mesh) {
      hullExtent(g->mesh->hull, l, hint, lo, hi);
    } else {  // the other cores are symmetric about their origin
      hi = l.dot(coreSupport(l));
      lo = -hi;
    }
    const double c = own_frame ? 0.0 : u.dot(origin);
    lo += c - radius;
    hi += c + radius;
  }
};

Placed place(const Geometry& g, const Plx& X_shape_world) {
  Placed p;
  p.g = &g;
  p.R = X_shape_world.E().transpose();
  p.origin = X_shape_world.r();
  if (g.shape == ShapeType::Sphere || g.shape == ShapeType::Capsule) p.radius = g.size[0];
  return p;
}

// A point of the Minkowski difference with the shapes' points that made it.
struct Vertex {
  Vector3 w, a, b;
};

// GJK's distance sub-algorithm: the point p = sum l_i w_i (l_i >= 0, sum 1) of the simplex with corners w_i
// nearest the origin, by signed volumes (Montanari, Petrinic and Barbieri, ACM Trans. Graph. 36(3), 2017), one
// closed form per dimension.
// - Segment a b, e = b - a: |a + t e|^2 is least at t = -a . e / e . e; t <= 0 keeps a alone, t >= 1 b alone.
// - Triangle a b c, n = (b - a) x (c - a): the origin projects onto the plane at o = (n . a / n . n) n, with the
//   barycentric coordinates of o the ratios of signed areas along n: l_b = n . ((o - a) x (c - a)) / n . n,
//   l_c = n . ((b - a) x (o - a)) / n . n, l_a = 1 - l_b - l_c. All positive: p = o (|p|^2 = |o|^2 + |p - o|^2
//   on the plane). Otherwise p lies on a side the origin is beyond, one opposite a corner of weight <= 0: at p the
//   origin's direction is a sum of the outward normals of the sides through p, so it has a positive part along one
//   of them, and that side's nearest point is p. The least over those sides is p.
// - Tetrahedron a b c d, e_1 e_2 e_3 = b c d - a, n_1 = e_2 x e_3, n_2 = e_3 x e_1, n_3 = e_1 x e_2: the signed volume
//   D = e_1 . n_1, and with the origin in place of one corner D_b = -a . n_1, D_c = -a . n_2, D_d = -a . n_3,
//   D_a = D - D_b - D_c - D_d (the four add up to D). The origin's barycentric coordinates are D_i / D: all
//   positive, the origin is inside (p = 0); otherwise p lies on the faces opposite the corners whose D_i lacks D's
//   sign, as for the triangle.
// Flat simplices: a triangle or tetrahedron whose least height h (|n| over the longest side, |D| over the largest
// face) has h^2 <= kFlat times its longest side squared is flat: its coordinates, quotients by nearly nothing, are
// worth nothing, and p is the nearest point of all its sides or faces, as for a simplex of no volume. A segment of
// no length is its corner. Corners keep their order; only those of positive weight are kept.
constexpr double kFlat = 1e-15;

using Corners = std::array<Vector3, 4>;

SimplexNearest oneCorner(const Corners& w, int i) {
  SimplexNearest p;
  p.point = w[static_cast<std::size_t>(i)];
  p.count = 1;
  p.index[0] = i;
  p.weight[0] = 1.0;
  return p;
}

void keepNearer(const SimplexNearest& candidate, SimplexNearest& best) {
  if (best.count == 0 || candidate.point.squaredNorm() < best.point.squaredNorm()) best = candidate;
}

SimplexNearest nearestOnSegment(const Corners& w, int i, int j) {
  const Vector3& a = w[static_cast<std::size_t>(i)];
  const Vector3 e = w[static_cast<std::size_t>(j)] - a;
  const double ee = e.squaredNorm();
  const double t = ee > 0.0 ? -a.dot(e) / ee : 0.0;
  if (!(t > 0.0)) return oneCorner(w, i);
  if (!(t < 1.0)) return oneCorner(w, j);
  SimplexNearest p;
  p.point = a + t * e;
  p.count = 2;
  p.index = {i, j, 0, 0};
  p.weight = {1.0 - t, t, 0.0, 0.0};
  return p;
}

SimplexNearest nearestOnTriangle(const Corners& w, int i, int j, int k) {
  const Vector3& a = w[static_cast<std::size_t>(i)];
  const Vector3 ab = w[static_cast<std::size_t>(j)] - a, ac = w[static_cast<std::size_t>(k)] - a;
  const Vector3 n = ab.cross(ac);
  const double nn = n.squaredNorm();
  const double longest = std::max({ab.squaredNorm(), ac.squaredNorm(), (ac - ab).squaredNorm()});
  bool beyond[3] = {true, true, true};  // the origin beyond the side opposite each corner (flat: every side)
  if (nn > kFlat * longest * longest) {
    const Vector3 o = (n.dot(a) / nn) * n;
    const Vector3 ao = o - a;
    const double lb = n.dot(ao.cross(ac)) / nn, lc = n.dot(ab.cross(ao)) / nn, la = 1.0 - lb - lc;
    if (la > 0.0 && lb > 0.0 && lc > 0.0) {
      SimplexNearest p;
      p.point = o;
      p.count = 3;
      p.index = {i, j, k, 0};
      p.weight = {la, lb, lc, 0.0};
      return p;
    }
    beyond[0] = !(la > 0.0);
    beyond[1] = !(lb > 0.0);
    beyond[2] = !(lc > 0.0);
  }
  SimplexNearest best;
  if (beyond[0]) keepNearer(nearestOnSegment(w, j, k), best);
  if (beyond[1]) keepNearer(nearestOnSegment(w, i, k), best);
  if (beyond[2]) keepNearer(nearestOnSegment(w, i, j), best);
  return best;
}

SimplexNearest nearestOnTetrahedron(const Corners& w) {
  const Vector3& a = w[0];
  const Vector3 e1 = w[1] - a, e2 = w[2] - a, e3 = w[3] - a;
  const Vector3 n1 = e2.cross(e3), n2 = e3.cross(e1), n3 = e1.cross(e2);
  const double D = e1.dot(n1);
  const double largest_face = std::max({n1.squaredNorm(), n2.squaredNorm(), n3.squaredNorm(), (n1 + n2 + n3).squaredNorm()});
  const double longest = std::max({e1.squaredNorm(), e2.squaredNorm(), e3.squaredNorm(), (e2 - e1).squaredNorm(),
                                   (e3 - e1).squaredNorm(), (e3 - e2).squaredNorm()});
  bool beyond[4] = {true, true, true, true};  // the origin beyond the face opposite each corner (flat: every face)
  if (D * D > kFlat * longest * largest_face) {
    const double Db = -a.dot(n1), Dc = -a.dot(n2), Dd = -a.dot(n3), Da = D - Db - Dc - Dd;
    const double signed_volumes[4] = {Da, Db, Dc, Dd};
    bool inside = true;
    for (int c = 0; c < 4; ++c) {
      beyond[c] = !(signed_volumes[c] * D > 0.0);
      inside &= !beyond[c];
    }
    if (inside) {
      SimplexNearest p;
      p.count = 4;
      p.index = {0, 1, 2, 3};
      p.weight = {Da / D, Db / D, Dc / D, Dd / D};
      return p;
    }
  }
  SimplexNearest best;
  if (beyond[0]) keepNearer(nearestOnTriangle(w, 1, 2, 3), best);
  if (beyond[1]) keepNearer(nearestOnTriangle(w, 0, 2, 3), best);
  if (beyond[2]) keepNearer(nearestOnTriangle(w, 0, 1, 3), best);
  if (beyond[3]) keepNearer(nearestOnTriangle(w, 0, 1, 2), best);
  return best;
}

SimplexNearest simplexNearest(const Corners& w, int n) {
  switch (n) {
    case 1:
      return oneCorner(w, 0);
    case 2:
      return nearestOnSegment(w, 0, 1);
    case 3:
      return nearestOnTriangle(w, 0, 1, 2);
    default:
      return nearestOnTetrahedron(w);
  }
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
  Corners corners;  // the simplex's points w
  const double scale = std::max(1.0, v.norm());
  for (int it = 0; it < kMaxGjkIterations; ++it) {
    const Vertex w = supportVertex(A, B, -v, full);
    if (r.n > 0 && v.squaredNorm() - v.dot(w.w) <= kGjkRelativeTolerance * v.squaredNorm()) break;
    bool repeated = false;  // a point already in the simplex: no progress is possible
    for (int i = 0; i < r.n; ++i) repeated |= (corners[static_cast<std::size_t>(i)] - w.w).squaredNorm() == 0.0;
    if (repeated) break;
    // No progress: the nearest point of the grown simplex is no nearer than v. In exact arithmetic the test
    // above stops first; in rounding, a face parallel to the other shape's face (a box resting on a triangle)
    // offers a support w that the simplex takes and drops again with weight zero, v unchanged, round after round.
    // The simplex and v then stay as they were.
    corners[static_cast<std::size_t>(r.n)] = w.w;
    const SimplexNearest p = simplexNearest(corners, r.n + 1);
    if (r.n > 0 && !(p.point.squaredNorm() < v.squaredNorm())) break;
    std::array<Vertex, 4> kept;
    for (int k = 0; k < p.count; ++k) {
      const int i = p.index[static_cast<std::size_t>(k)];
      kept[static_cast<std::size_t>(k)] = i == r.n ? w : r.simplex[static_cast<std::size_t>(i)];
      corners[static_cast<std::size_t>(k)] = kept[static_cast<std::size_t>(k)].w;
      lambda[static_cast<std::size_t>(k)] = p.weight[static_cast<std::size_t>(k)];
    }
    r.simplex = kept;
    r.n = p.count;
    v = p.point;
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

// EPA's polytope, a closed surface of triangles around the origin, in fixed arrays so that EPA allocates nothing:
// each iteration adds one corner, and replaces the faces seen from it (a disk of r faces on a convex polytope) by
// the fan of r + 2 faces from it over the disk's rim; V corners make 2V - 4 faces.
constexpr int kMaxEpaCorners = 4 + kMaxEpaIterations;
constexpr int kMaxEpaFaces = 2 * kMaxEpaCorners;

struct EpaFace {
  std::array<int, 3> i;     // corners, counterclockwise seen from outside
  std::array<int, 3> adj;   // the face across edge i[e] i[e + 1]
  std::array<int, 3> twin;  // that edge's place in the face across
  Vector3 n;                // outward unit normal
  double t;                 // distance of its plane from the origin (infinite for a face of no area: never chosen)
  bool alive;
};

struct EpaPolytope {
  std::array<Vertex, kMaxEpaCorners> vertices;
  int nv = 0;
  std::array<EpaFace, kMaxEpaFaces> faces;
  int nf = 0;  // face slots used, alive or not
  std::array<int, kMaxEpaFaces> free_slots;
  int nfree = 0;
  std::array<std::array<int, 2>, 3 * kMaxEpaFaces> rim;  // (face kept, its edge) along the seen faces' rim
  int nrim = 0;
  std::array<int, 3 * kMaxEpaFaces> fan;  // the faces from the new corner over the rim

  const Vector3& corner(int k) const { return vertices[static_cast<std::size_t>(k)].w; }
  EpaFace& face(int f) { return faces[static_cast<std::size_t>(f)]; }

  int addFace(int a, int b, int c) {
    const int f = nfree > 0 ? free_slots[static_cast<std::size_t>(--nfree)] : nf++;
    EpaFace& x = face(f);
    x.i = {a, b, c};
    x.alive = true;
    x.t = std::numeric_limits<double>::infinity();
    x.n.setZero();
    const Vector3 n = (corner(b) - corner(a)).cross(corner(c) - corner(a));
    const double len = n.norm();
    if (len > 0.0) {
      x.n = n / len;
      x.t = x.n.dot(corner(a));
    }
    return f;
  }
  void link(int f, int e, int g, int h) {
    face(f).adj[static_cast<std::size_t>(e)] = g;
    face(f).twin[static_cast<std::size_t>(e)] = h;
    face(g).adj[static_cast<std::size_t>(h)] = f;
    face(g).twin[static_cast<std::size_t>(h)] = e;
  }
  // Face f, reached across its edge e from a face seen from w: if w sees it too, it goes and the walk goes on across
  // its other two edges; if not, edge e is on the rim. Walking only across edges keeps the faces removed one
  // connected patch around the first, whatever rounding says of faces elsewhere nearly edge-on to w.
  void walk(int f, int e, const Vector3& w) {
    EpaFace& x = face(f);
    if (!x.alive) return;
    if (!(x.n.dot(w - corner(x.i[0])) > 0.0)) {
      rim[static_cast<std::size_t>(nrim++)] = {f, e};
      return;
    }
    x.alive = false;
    free_slots[static_cast<std::size_t>(nfree++)] = f;
    for (const int k : {(e + 1) % 3, (e + 2) % 3}) walk(x.adj[static_cast<std::size_t>(k)], x.twin[static_cast<std::size_t>(k)], w);
  }
};

// EPA from GJK's simplex (which holds the origin, perhaps on its boundary): the depth t >= 0 and the
// outward normal n of D at its boundary point nearest the origin, with the witness points.
void epa(const Placed& A, const Placed& B, const GjkResult& g, ConvexDistance& out) {
  EpaPolytope P;
  std::copy(g.simplex.begin(), g.simplex.begin() + g.n, P.vertices.begin());
  P.nv = g.n;
  // Grow a degenerate simplex into a tetrahedron: supports perpendicular to what it spans.
  const Vector3 axes[3] = {Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitZ()};
  for (int tries = 0; P.nv < 4 && tries < 12; ++tries) {
    Vector3 d;
    if (P.nv == 1) {
      d = axes[tries % 3];
    } else if (P.nv == 2) {
      d = (P.corner(1) - P.corner(0)).cross(axes[tries % 3]);
    } else {
      d = (P.corner(1) - P.corner(0)).cross(P.corner(2) - P.corner(0));
    }
    if (tries % 2) d = -d;
    if (!(d.squaredNorm() > 0.0)) continue;
    const Vertex w = supportVertex(A, B, d, true);
    bool fresh = true;  // off the affine hull of the points so far
    const double tiny = 1e-12 * std::max(1.0, w.w.norm());
    if (P.nv == 1) fresh = (w.w - P.corner(0)).norm() > tiny;
    if (P.nv == 2) fresh = (w.w - P.corner(0)).cross(P.corner(1) - P.corner(0)).norm() > tiny * tiny;
    if (P.nv == 3) fresh = std::abs(d.normalized().dot(w.w - P.corner(0))) > tiny;
    if (fresh) P.vertices[static_cast<std::size_t>(P.nv++)] = w;
  }
  if (P.nv < 4) {  // the difference is flat: the shapes touch without volume
    out.distance = 0.0;
    out.point_a = g.a;
    out.point_b = g.a;
    return;
  }
  // The tetrahedron's faces, wound outward (away from the fourth point), and the faces across their edges.
  const Vector3 centroid = (P.corner(0) + P.corner(1) + P.corner(2) + P.corner(3)) / 4.0;
  const int tet[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
  for (const auto& f : tet) {
    const Vector3 n = (P.corner(f[1]) - P.corner(f[0])).cross(P.corner(f[2]) - P.corner(f[0]));
    if (n.dot(P.corner(f[0]) - centroid) >= 0.0) {
      P.addFace(f[0], f[1], f[2]);
    } else {
      P.addFace(f[0], f[2], f[1]);
    }
  }
  for (int f = 0; f < 4; ++f) {
    for (int h = f + 1; h < 4; ++h) {
      for (int e = 0; e < 3; ++e) {
        for (int k = 0; k < 3; ++k) {
          const std::array<int, 3>& x = P.face(f).i;
          const std::array<int, 3>& y = P.face(h).i;
          if (x[static_cast<std::size_t>(e)] == y[static_cast<std::size_t>((k + 1) % 3)] &&
              x[static_cast<std::size_t>((e + 1) % 3)] == y[static_cast<std::size_t>(k)]) {
            P.link(f, e, h, k);
          }
        }
      }
    }
  }
  int best = 0;
  for (int it = 0;; ++it) {
    best = -1;
    for (int k = 0; k < P.nf; ++k) {
      if (P.face(k).alive && (best < 0 || P.face(k).t < P.face(best).t)) best = k;
    }
    if (it == kMaxEpaIterations || P.nv == kMaxEpaCorners) break;
    EpaFace& f = P.face(best);
    const Vertex w = supportVertex(A, B, f.n, true);
    if (f.n.dot(w.w) - f.t <= kEpaTolerance) break;
    // Remove the faces w sees, from the nearest face on; the fan from w over their rim replaces them.
    P.nrim = 0;
    f.alive = false;
    P.free_slots[static_cast<std::size_t>(P.nfree++)] = best;
    for (int e = 0; e < 3; ++e) P.walk(f.adj[static_cast<std::size_t>(e)], f.twin[static_cast<std::size_t>(e)], w.w);
    // A rim of fewer than three edges (w seeing every face) or no room: not reached on a convex polytope. The
    // nearest face, removed but not yet overwritten, is the answer.
    if (P.nrim < 3 || P.nrim > P.nfree + kMaxEpaFaces - P.nf) break;
    const int k = P.nv;
    P.vertices[static_cast<std::size_t>(P.nv++)] = w;
    for (int r = 0; r < P.nrim; ++r) {
      const auto [kept, e] = P.rim[static_cast<std::size_t>(r)];
      const std::array<int, 3>& c = P.face(kept).i;
      const int fan = P.addFace(c[static_cast<std::size_t>((e + 1) % 3)], c[static_cast<std::size_t>(e)], k);
      P.fan[static_cast<std::size_t>(r)] = fan;
      P.link(fan, 0, kept, e);
    }
    // Fan faces r and s meet on the edge from w to the corner where r's rim edge ends and s's begins.
    for (int r = 0; r < P.nrim; ++r) {
      const int fan_r = P.fan[static_cast<std::size_t>(r)];
      for (int s = 0; s < P.nrim; ++s) {
        const int fan_s = P.fan[static_cast<std::size_t>(s)];
        if (P.face(fan_r).i[1] == P.face(fan_s).i[0]) P.link(fan_r, 1, fan_s, 2);
      }
    }
  }
  const EpaFace& f = P.face(best);
  // Barycentric coordinates of the nearest boundary point t n in the face's triangle.
  const Vector3 p = f.t * f.n;
  const Vector3& a = P.corner(f.i[0]);
  const Vector3& b = P.corner(f.i[1]);
  const Vector3& c = P.corner(f.i[2]);
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
    out.point_a += l[k] * P.vertices[static_cast<std::size_t>(f.i[static_cast<std::size_t>(k)])].a;
    out.point_b += l[k] * P.vertices[static_cast<std::size_t>(f.i[static_cast<std::size_t>(k)])].b;
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

// The signed distance of two convex shapes placed in one frame (neither a plane).
ConvexDistance distanceInFrame(const Placed& A, const Placed& B) {
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

// The signed distance of shape A and shape or triangle B placed in the world (neither a plane), computed in A's
// frame, where A's supports need no rotation, and returned in world coordinates.
ConvexDistance placedDistance(const Placed& A_world, const Placed& B_world) {
  Placed A = A_world;
  A.R.setIdentity();
  A.origin.setZero();
  A.own_frame = true;
  Placed B = B_world;
  const Matrix3 R_t = A_world.R.transpose();  // world coordinates into A's
  B.origin = R_t * (B_world.origin - A_world.origin);
  if (B.is_triangle) {
    for (Vector3& c : B.triangle) c = R_t * (c - A_world.origin);
  } else {
    B.R = R_t * B_world.R;
  }
  ConvexDistance out = distanceInFrame(A, B);
  out.normal = A_world.R * out.normal;
  out.point_a = A_world.origin + A_world.R * out.point_a;
  out.point_b = A_world.origin + A_world.R * out.point_b;
  return out;
}

void checkConvex(const Geometry& g, const char* function) {
  if (!isConvexShape(g)) {
    throw InvalidArgument(std::string("abdyn::") + function + ": geometry '" + g.name +
                          "' is a mesh without a loaded convex hull");
  }
}

}  // namespace

SimplexNearest nearestOnSimplex(const std::array<Vector3, 4>& corners, int count) {
  if (count < 1 || count > 4) {
    throw InvalidArgument("abdyn::nearestOnSimplex: count is " + std::to_string(count) + ", not 1 to 4");
  }
  for (int i = 0; i < count; ++i) {
    if (!corners[static_cast<std::size_t>(i)].allFinite()) {
      throw InvalidArgument("abdyn::nearestOnSimplex: corner " + std::to_string(i) + " is not finite");
    }
  }
  return simplexNearest(corners, count);
}

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
// neighbours of the triangles a body rests on). The shape's extent along u is one pass over a small hull's vertices.
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
    double shape_lo, shape_hi;
    A.extent(u, shape_lo, shape_hi);
    return shape_lo - hi >= margin || lo - shape_hi >= margin;
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
  Placed B;
  B.origin = (triangle[0] + triangle[1] + triangle[2]) / 3.0;
  B.is_triangle = true;
  B.triangle = triangle;
  return placedDistance(place(a, X_a_world), B);
}

}  // namespace abdyn
