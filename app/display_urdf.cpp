#include "display_urdf.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <vector>

#include "abdyn/io/urdf_export.hpp"
#include "abdyn/spatial/euler.hpp"

namespace abdyn_app {
namespace {

std::string numbers(const abdyn::Vector3& x) {
  std::ostringstream s;
  s << std::setprecision(17) << x[0] << " " << x[1] << " " << x[2];
  return s.str();
}

// <origin> of the frame B whose X_B_A is given, in A.
std::string origin(const abdyn::Plx& X_B_A) {
  const Eigen::Isometry3d T = X_B_A.toPose();
  return "<origin xyz=\"" + numbers(T.translation()) + "\" rpy=\"" + numbers(abdyn::matrixToRpy(T.linear())) + "\"/>";
}

// Binary STL of `mesh`'s triangles.
std::string stl(const abdyn::TriangleMesh& mesh) {
  std::string out(80, ' ');
  const auto put = [&](const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); };
  const std::uint32_t count = static_cast<std::uint32_t>(mesh.triangles.size());
  put(&count, 4);
  for (const auto& t : mesh.triangles) {
    const abdyn::Vector3& a = mesh.vertices[static_cast<std::size_t>(t[0])];
    const abdyn::Vector3 n = (mesh.vertices[static_cast<std::size_t>(t[1])] - a)
                                 .cross(mesh.vertices[static_cast<std::size_t>(t[2])] - a)
                                 .normalized();  // three.js shades with the file's normals
    const float normal[3] = {static_cast<float>(n[0]), static_cast<float>(n[1]), static_cast<float>(n[2])};
    put(normal, sizeof(normal));
    for (const int i : t) {
      const abdyn::Vector3& v = mesh.vertices[static_cast<std::size_t>(i)];
      const float corner[3] = {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
      put(corner, sizeof(corner));
    }
    out.append(2, '\0');
  }
  return out;
}

// A unit sphere of 16 x 32 quadrilaterals (split in two), counterclockwise from outside.
abdyn::TriangleMesh unitSphere() {
  abdyn::TriangleMesh m;
  const int rings = 16, segments = 32;
  for (int r = 0; r <= rings; ++r) {
    const double theta = M_PI * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double phi = 2 * M_PI * s / segments;
      m.vertices.emplace_back(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta));
    }
  }
  for (int r = 0; r < rings; ++r) {
    for (int s = 0; s < segments; ++s) {
      const int a = r * segments + s, b = r * segments + (s + 1) % segments;
      const int c = a + segments, d = b + segments;
      m.triangles.push_back({a, c, d});
      m.triangles.push_back({a, d, b});
    }
  }
  return m;
}

}  // namespace

std::string displayUrdf(const abdyn::Model& model, std::map<std::string, std::string>& generated) {
  const auto link = [&](int body) { return body == 0 ? std::string("world") : model.bodyName(body); };
  std::ostringstream u;
  u << "<?xml version=\"1.0\"?>\n<robot name=\"" << abdyn::xmlEscaped(model.name()) << "\">\n";
  std::vector<std::ostringstream> visuals(static_cast<std::size_t>(model.nbodies()));
  const auto visual = [&](int body, const abdyn::Plx& X_shape_body, const std::string& geometry) {
    visuals[static_cast<std::size_t>(body)] << "    <visual>" << origin(X_shape_body) << "<geometry>" << geometry
                                            << "</geometry></visual>\n";
  };
  const std::string sphere_name = "abdyn-shapes/unit_sphere.stl";
  for (const abdyn::Geometry& g : model.geometries()) {
    const abdyn::Vector3& s = g.size;
    std::ostringstream shape;
    shape << std::setprecision(17);
    switch (g.shape) {
      case abdyn::ShapeType::Box:
        visual(g.body, g.X_geometry_body, "<box size=\"" + numbers(s) + "\"/>");
        break;
      case abdyn::ShapeType::Sphere:
        shape << "<sphere radius=\"" << s[0] << "\"/>";
        visual(g.body, g.X_geometry_body, shape.str());
        break;
      case abdyn::ShapeType::Cylinder:
      case abdyn::ShapeType::Capsule: {
        shape << "<cylinder radius=\"" << s[0] << "\" length=\"" << s[1] << "\"/>";
        visual(g.body, g.X_geometry_body, shape.str());
        if (g.shape == abdyn::ShapeType::Capsule) {
          std::ostringstream ball;
          ball << std::setprecision(17) << "<sphere radius=\"" << s[0] << "\"/>";
          for (const double end : {-0.5, 0.5}) {
            visual(g.body, abdyn::Plx::translation(abdyn::Vector3(0.0, 0.0, end * s[1])) * g.X_geometry_body, ball.str());
          }
        }
        break;
      }
      case abdyn::ShapeType::Ellipsoid:
        if (generated.count(sphere_name) == 0) generated[sphere_name] = stl(unitSphere());
        visual(g.body, g.X_geometry_body, "<mesh filename=\"" + sphere_name + "\" scale=\"" + numbers(s) + "\"/>");
        break;
      case abdyn::ShapeType::Plane:  // MJCF planes lie on the world: the page's own ground stands for them
        break;
      case abdyn::ShapeType::Mesh:
        if (!g.mesh_filename.empty()) {
          visual(g.body, g.X_geometry_body,
                 "<mesh filename=\"" + abdyn::xmlEscaped(g.mesh_filename) + "\" scale=\"" + numbers(g.mesh_scale) + "\"/>");
        } else if (g.mesh != nullptr) {  // data in the file, already scaled
          const std::string name = "abdyn-shapes/" + g.name + ".stl";
          generated[name] = stl(g.mesh->triangles);
          visual(g.body, g.X_geometry_body, "<mesh filename=\"" + abdyn::xmlEscaped(name) + "\"/>");
        }
        break;
    }
  }
  for (int b = 0; b < model.nbodies(); ++b) {
    u << "  <link name=\"" << abdyn::xmlEscaped(link(b)) << "\">\n" << visuals[static_cast<std::size_t>(b)].str() << "  </link>\n";
  }
  for (int b = 1; b < model.nbodies(); ++b) {
    const abdyn::Joint& j = model.joint(b);
    u << "  <joint name=\"" << abdyn::xmlEscaped(j.name) << "\" type=\""
      << (j.type == abdyn::JointType::Floating ? "floating" : "fixed") << "\">" << origin(model.Xtree(b))
      << "<parent link=\"" << abdyn::xmlEscaped(link(model.parent(b))) << "\"/><child link=\"" << abdyn::xmlEscaped(link(b)) << "\"/></joint>\n";
  }
  u << "</robot>\n";
  return u.str();
}

}  // namespace abdyn_app
