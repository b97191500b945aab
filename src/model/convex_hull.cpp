#include "abdyn/model/convex_hull.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

#include "abdyn/error.hpp"

namespace abdyn {
namespace {

// Qhull's messages go to a FILE*: a memory stream keeps them out of the process's output and puts them in
// the exception instead.
class MessageStream {
 public:
  MessageStream() : file_(open_memstream(&buffer_, &size_)) {}
  ~MessageStream() {
    if (file_ != nullptr) std::fclose(file_);
    std::free(buffer_);
  }
  MessageStream(const MessageStream&) = delete;
  MessageStream& operator=(const MessageStream&) = delete;
  FILE* file() const { return file_; }
  std::string text() {
    if (file_ != nullptr) std::fflush(file_);
    std::string s = buffer_ != nullptr ? std::string(buffer_, size_) : std::string();
    const std::size_t first = s.find('\n');
    return first == std::string::npos ? s : s.substr(0, first);  // Qhull's first line names the problem
  }

 private:
  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  FILE* file_ = nullptr;
};

// Qhull's state, freed however the hull ends.
class Qhull {
 public:
  explicit Qhull(FILE* errors) { qh_zero(&qh_, errors); }
  ~Qhull() {
    qh_freeqhull(&qh_, !qh_ALL);
    int long_blocks = 0, long_bytes = 0;
    qh_memfreeshort(&qh_, &long_blocks, &long_bytes);
  }
  Qhull(const Qhull&) = delete;
  Qhull& operator=(const Qhull&) = delete;
  qhT* get() { return &qh_; }

 private:
  qhT qh_;
};

}  // namespace

ConvexHull convexHull(const std::vector<Vector3>& points, int max_vertices, const std::string& what) {
  const std::string where = "abdyn::convexHull(" + what + "): ";
  if (max_vertices < 0 || (max_vertices > 0 && max_vertices < 4)) {
    throw InvalidArgument(where + "max_vertices must be 0 (no bound) or at least 4, got " + std::to_string(max_vertices));
  }
  if (points.size() < 4) {
    throw InvalidArgument(where + std::to_string(points.size()) + " points span no volume (a hull needs four or more)");
  }
  std::vector<coordT> coordinates;
  coordinates.reserve(3 * points.size());
  for (const Vector3& p : points) {
    if (!p.allFinite()) throw InvalidArgument(where + "a point has a non-finite coordinate");
    coordinates.insert(coordinates.end(), {p.x(), p.y(), p.z()});
  }
  // Default options merge coplanar facets (C-0); TA<n> stops after n points added to the initial simplex.
  std::string options = "qhull";
  if (max_vertices > 0) options += " TA" + std::to_string(max_vertices - 4);
  MessageStream messages;
  Qhull qhull(messages.file());
  qhT* qh = qhull.get();
  const int status = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coordinates.data(), False,
                                  const_cast<char*>(options.c_str()), nullptr, messages.file());
  if (status != 0) {
    throw InvalidArgument(where + "the points span no volume (Qhull: " + messages.text() + ")");
  }
  ConvexHull hull;
  // Hull vertices numbered in the order of the input points, so that the result does not depend on Qhull's order.
  std::vector<int> index(points.size(), -1);
  {
    vertexT* vertex;
    FORALLvertices { index[static_cast<std::size_t>(qh_pointid(qh, vertex->point))] = 0; }
  }
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (index[k] < 0) continue;
    index[k] = hull.vertexCount();
    hull.vertices.push_back(points[k]);
  }
  facetT* facet;
  FORALLfacets {
    const Vector3 n(facet->normal[0], facet->normal[1], facet->normal[2]);  // outward, unit; n . x + offset = 0
    std::vector<int> face;
    vertexT* vertex;
    vertexT** vertexp;
    FOREACHvertex_(facet->vertices) { face.push_back(index[static_cast<std::size_t>(qh_pointid(qh, vertex->point))]); }
    // Counterclockwise about n: by angle around the face's centroid in the face's plane.
    Vector3 centre = Vector3::Zero();
    for (int i : face) centre += hull.vertices[static_cast<std::size_t>(i)];
    centre /= static_cast<double>(face.size());
    const Vector3 u = (hull.vertices[static_cast<std::size_t>(face[0])] - centre).normalized();
    const Vector3 w = n.cross(u);
    const auto angle = [&](int i) {
      const Vector3 d = hull.vertices[static_cast<std::size_t>(i)] - centre;
      return std::atan2(d.dot(w), d.dot(u));
    };
    std::sort(face.begin(), face.end(), [&](int a, int b) { return angle(a) < angle(b); });
    hull.faces.push_back(std::move(face));
    hull.normals.push_back(n);
    hull.offsets.push_back(-facet->offset);
  }
  // Every pair of vertices of a face: a superset of the hull's edges, whatever vertices Qhull left inside a
  // merged face's polygon.
  std::vector<std::vector<int>> adjacent(hull.vertices.size());
  for (const std::vector<int>& face : hull.faces) {
    for (int a : face) {
      for (int b : face) {
        if (a != b) adjacent[static_cast<std::size_t>(a)].push_back(b);
      }
    }
  }
  hull.neighbor_offsets.push_back(0);
  for (std::vector<int>& list : adjacent) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    hull.neighbors.insert(hull.neighbors.end(), list.begin(), list.end());
    hull.neighbor_offsets.push_back(static_cast<int>(hull.neighbors.size()));
  }
  return hull;
}

}  // namespace abdyn
