#define BOOST_TEST_MODULE mesh_contacts
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// Collision meshes: loaded with the URDF (relative names, scale, one hull per file and scale, a missing mesh
// a warning), and collided by the Simulator as convex hulls, on the ground and against other bodies. The
// resting heights are those of the boxes the meshes describe (closed form); the penetration bound is the
// issue's 1 mm at default settings.

using namespace abdyn;

namespace {

// Sends abdyn's log to a string for the lifetime of the object.
struct CapturedLog {
  std::ostringstream text;
  CapturedLog() { setLogger(std::make_shared<spdlog::logger>("captured", std::make_shared<spdlog::sinks::ostream_sink_mt>(text))); }
  ~CapturedLog() { setLogger(nullptr); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
};

// A unit cube centred on the origin, as an OBJ file (six quads).
const char* kCubeObj =
    "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

TriangleMesh cubeMesh(double edge) {
  TriangleMesh m = parseObj(kCubeObj);
  for (Vector3& v : m.vertices) v *= edge;
  return m;
}

// Floating cubes of edge `edge` (1 kg each), collided as meshes (or boxes, with `as_boxes`), one above the other.
Model cubes(int count, double edge, bool as_boxes) {
  ModelBuilder b("cubes");
  const auto shape = makeMeshShape(cubeMesh(edge), Vector3::Ones(), 0, "cube");
  for (int k = 0; k < count; ++k) {
    JointSpec free;
    free.type = JointType::Floating;
    free.name = "free" + std::to_string(k);
    const double I = edge * edge / 6.0;
    const int body = b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * I),
                               "cube" + std::to_string(k));
    Geometry g;
    g.name = "cube" + std::to_string(k);
    g.link = g.name;
    g.body = body;
    g.shape = as_boxes ? ShapeType::Box : ShapeType::Mesh;
    g.size = Vector3::Constant(edge);
    if (!as_boxes) g.mesh = shape;
    b.addGeometry(g);
  }
  return b.build();
}

}  // namespace

BOOST_AUTO_TEST_CASE(urdf_loads_collision_meshes) {
  const std::filesystem::path dir = test::temporaryPath("mesh_robot");
  std::filesystem::create_directories(dir / "meshes");
  std::ofstream(dir / "meshes" / "cube.obj") << kCubeObj;
  const std::string urdf = (dir / "robot.urdf").string();
  std::ofstream(urdf) << R"(<robot name="r">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="meshes/cube.obj"/></geometry></visual>
    <collision name="a"><geometry><mesh filename="meshes/cube.obj" scale="0.1 0.2 0.3"/></geometry></collision>
    <collision name="b"><origin xyz="0 0 1"/><geometry><mesh filename="meshes/cube.obj" scale="0.1 0.2 0.3"/></geometry></collision>
    <collision name="c"><geometry><mesh filename="meshes/missing.stl"/></geometry></collision>
    <collision name="d"><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
</robot>)";
  CapturedLog log;
  UrdfOptions options;
  options.floating_base = true;
  const Model model = loadUrdf(urdf, options);
  const auto shape = [&](const std::string& name, GeometryRole role) -> const Geometry& {
    for (const Geometry& g : model.geometries()) {
      if (g.name == name && g.role == role) return g;
    }
    throw std::runtime_error("no geometry " + name);
  };
  const Geometry& a = shape("a", GeometryRole::Collision);
  BOOST_TEST_REQUIRE(a.mesh != nullptr);
  BOOST_TEST(a.mesh->hull.vertexCount() == 8);
  BOOST_TEST(a.mesh->triangles.triangles.size() == 12u);
  for (const Vector3& v : a.mesh->hull.vertices) BOOST_TEST((v.cwiseAbs() - Vector3(0.05, 0.1, 0.15)).norm() <= 1e-15);
  BOOST_TEST(shape("b", GeometryRole::Collision).mesh == a.mesh);  // one file at one scale: one shape, shared
  BOOST_TEST(shape("c", GeometryRole::Collision).mesh == nullptr);
  BOOST_TEST(!isCollidable(shape("c", GeometryRole::Collision)));
  BOOST_TEST(isCollidable(shape("d", GeometryRole::Collision)));  // the body keeps its other shapes
  BOOST_TEST(shape("base/visual0", GeometryRole::Visual).mesh == nullptr);  // visual meshes are not read
  BOOST_TEST(log.text.str().find("missing.stl") != std::string::npos, log.text.str());
  options.load_collision_meshes = false;
  BOOST_TEST(loadUrdf(urdf, options).geometries()[1].mesh == nullptr);
  options.load_collision_meshes = true;
  options.max_hull_vertices = 2;
  BOOST_CHECK_THROW(loadUrdf(urdf, options), Error);
  std::filesystem::remove_all(dir);
}

// A mesh cube dropped onto the ground comes to rest on its face, at half its edge, within 1 mm, as the
// box primitive does; with ContactGeometry::Primitives it falls through.
BOOST_AUTO_TEST_CASE(mesh_cube_rests_on_the_ground) {
  for (bool as_boxes : {false, true}) {
    SimulatorSettings settings;
    settings.ground = true;
    Simulator sim(cubes(1, 0.1, as_boxes), settings);
    sim.q[2] = 0.2;
    sim.q.segment<4>(3) = Eigen::Vector4d(0.1, 0.2, 0.0, 1.0).normalized();  // tilted: lands on a corner
    double deepest = 0.0;
    for (int k = 0; k < 2000; ++k) {
      sim.step(1e-3);
      deepest = std::max(deepest, sim.statistics().constraint_error);
    }
    BOOST_TEST(std::abs(sim.q[2] - 0.05) <= 1e-3, (as_boxes ? "box" : "mesh") << " rests at z = " << sim.q[2]);
    BOOST_TEST(sim.v.norm() <= 1e-3);
    BOOST_TEST(sim.statistics().contacts == (as_boxes ? 4 : 4));
    BOOST_TEST(deepest <= 2e-3, "deepest penetration " << deepest);  // the landing's impact
  }
  SimulatorSettings settings;
  settings.ground = true;
  settings.contact.geometry = ContactGeometry::Primitives;
  Simulator sim(cubes(1, 0.1, false), settings);
  sim.q[2] = 0.2;
  for (int k = 0; k < 500; ++k) sim.step(1e-3);
  BOOST_TEST(sim.q[2] < -0.5);
}

// Three mesh cubes stacked: body contacts between hulls hold them, each a cube's edge above the one below.
BOOST_AUTO_TEST_CASE(mesh_cubes_stack) {
  SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  Simulator sim(cubes(3, 0.1, false), settings);
  for (int k = 0; k < 3; ++k) {
    sim.q[7 * k + 2] = 0.05 + 0.1 * k + 0.002 * (k + 1);
    sim.q[7 * k + 0] = 0.01 * k;  // offset: the faces overlap partly, so the manifold is clipped
  }
  for (int k = 0; k < 3000; ++k) sim.step(1e-3);
  for (int k = 0; k < 3; ++k) {
    BOOST_TEST(std::abs(sim.q[7 * k + 2] - (0.05 + 0.1 * k)) <= 1e-3 * (k + 1), "cube " << k << " at z = " << sim.q[7 * k + 2]);
  }
  BOOST_TEST(sim.v.norm() <= 1e-2);
  BOOST_TEST(sim.statistics().contacts == 12);  // four points per touching pair, three pairs
}

// The broad phase keeps every pair the narrow phase would find within the margin: 12 shapes of every collided
// kind on floating bodies at random poses (fixed seed) in a 0.3 m cube, 200 draws, against convexDistance on
// every pair of different bodies. The pairs come out sorted, and some pairs are left out (the boxes prune).
BOOST_AUTO_TEST_CASE(broad_phase_keeps_every_pair_within_the_margin) {
  ModelBuilder b("shapes");
  const auto hull = makeMeshShape(cubeMesh(0.08), Vector3(1.0, 0.5, 1.5), 0, "cube");
  const ShapeType kinds[] = {ShapeType::Sphere, ShapeType::Box, ShapeType::Cylinder, ShapeType::Capsule, ShapeType::Mesh};
  for (int k = 0; k < 12; ++k) {
    JointSpec free;
    free.type = JointType::Floating;
    free.name = "free" + std::to_string(k);
    const int body = b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 0.01),
                               "body" + std::to_string(k));
    Geometry g;
    g.name = "shape" + std::to_string(k);
    g.link = g.name;
    g.body = body;
    g.shape = kinds[k % 5];
    g.size = Vector3(0.03, 0.06, 0.04);
    g.X_geometry_body = Plx(rotX(0.3 * k), Vector3(0.01 * k, 0.0, -0.02));
    if (g.shape == ShapeType::Mesh) g.mesh = hull;
    b.addGeometry(g);
  }
  const Model model = b.build();
  Data data(model);
  GroundContactSettings settings;
  BroadPhase broad_phase(model);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coordinate(-0.15, 0.15);
  int kept = 0, all = 0;
  for (int draw = 0; draw < 200; ++draw) {
    Eigen::VectorXd q = neutral(model);
    for (int k = 0; k < 12; ++k) {
      q.segment<3>(7 * k) = Vector3(coordinate(rng), coordinate(rng), coordinate(rng));
      q.segment<4>(7 * k + 3) = Eigen::Vector4d(coordinate(rng), coordinate(rng), coordinate(rng), coordinate(rng)).normalized();
    }
    forwardKinematics(model, data, q);
    const std::vector<GeometryPair>& pairs = broad_phase.pairs(model, data, settings);
    for (std::size_t p = 1; p < pairs.size(); ++p) {
      BOOST_TEST((pairs[p - 1].first < pairs[p].first ||
                  (pairs[p - 1].first == pairs[p].first && pairs[p - 1].second < pairs[p].second)));
    }
    kept += static_cast<int>(pairs.size());
    const auto& gs = model.geometries();
    for (int i = 0; i < 12; ++i) {
      for (int j = i + 1; j < 12; ++j) {
        ++all;
        const Plx X_i = gs[i].X_geometry_body * data.X_body_world[gs[i].body];
        const Plx X_j = gs[j].X_geometry_body * data.X_body_world[gs[j].body];
        if (convexDistance(gs[i], X_i, gs[j], X_j).distance >= settings.margin) continue;
        const bool found = std::any_of(pairs.begin(), pairs.end(), [&](const GeometryPair& p) { return p.first == i && p.second == j; });
        BOOST_TEST(found, "draw " << draw << ": shapes " << i << " and " << j << " are within the margin but not paired");
      }
    }
  }
  BOOST_TEST(kept < all / 2, kept << " of " << all << " pairs kept");
}

// Excluded pairs: the upper of two stacked cubes passes through the lower one when their pair is excluded, by
// body name, by the name of a frame on the body, or by index; unknown names and bad indices are refused.
BOOST_AUTO_TEST_CASE(excluded_pairs_do_not_collide) {
  ModelBuilder b("two");
  for (int k = 0; k < 2; ++k) {
    JointSpec free;
    free.type = JointType::Floating;
    free.name = "free" + std::to_string(k);
    const int body = b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() / 600.0),
                               "cube" + std::to_string(k));
    Geometry g;
    g.name = "cube" + std::to_string(k);
    g.link = g.name;
    g.body = body;
    g.shape = ShapeType::Mesh;
    g.mesh = makeMeshShape(cubeMesh(0.1), Vector3::Ones(), 0, "cube");
    b.addGeometry(g);
  }
  b.addFrame("lid", 2, Plx(Matrix3::Identity(), Vector3(0.0, 0.0, 0.05)), FrameType::Fixed);
  const Model model = b.build();
  const auto upperHeight = [&](const GroundContactSettings& contact) {
    SimulatorSettings settings;
    settings.ground = true;
    settings.body_contacts = true;
    settings.contact = contact;
    Simulator sim(model, settings);
    sim.q[2] = 0.05;
    sim.q[7 + 2] = 0.151;
    for (int k = 0; k < 500; ++k) sim.step(1e-3);
    return sim.q[7 + 2];
  };
  BOOST_TEST(std::abs(upperHeight({}) - 0.15) <= 1e-3);  // resting on the lower cube
  GroundContactSettings by_name;
  by_name.excluded_pairs = {{"cube0", "lid"}};
  BOOST_TEST(std::abs(upperHeight(by_name) - 0.05) <= 1e-3);  // through it, onto the ground
  GroundContactSettings by_index;
  by_index.excluded_body_pairs = {{2, 1}};
  BOOST_TEST(std::abs(upperHeight(by_index) - 0.05) <= 1e-3);
  BOOST_TEST((excludedBodyPairs(model, by_name) == std::vector<std::pair<int, int>>{{1, 2}}));

  SimulatorSettings settings;
  settings.body_contacts = true;
  settings.contact.excluded_pairs = {{"cube0", "nothing"}};
  BOOST_CHECK_EXCEPTION(Simulator(model, settings), Error, [](const Error& e) {
    return std::string(e.what()).find("'nothing'") != std::string::npos;
  });
  settings.contact.excluded_pairs.clear();
  settings.contact.excluded_body_pairs = {{1, 3}};
  BOOST_CHECK_THROW(Simulator(model, settings), InvalidArgument);
  settings.contact.excluded_body_pairs = {{-1, 1}};
  BOOST_CHECK_THROW(Simulator(model, settings), InvalidArgument);
}

// SRDF's disable_collisions list, read into excluded_pairs; malformed and hostile files are refused naming
// the source and what is wrong.
BOOST_AUTO_TEST_CASE(srdf_disabled_collisions) {
  const std::string srdf =
      "<?xml version=\"1.0\"?>\n<robot name=\"two\">\n  <group name=\"all\"><chain base_link=\"cube0\" tip_link=\"cube1\"/></group>\n"
      "  <disable_collisions link1=\"cube0\" link2=\"cube1\" reason=\"Never\"/>\n"
      "  <disable_collisions link1=\"a\" link2=\"b\"/>\n</robot>\n";
  const auto pairs = parseSrdfDisabledCollisions(srdf);
  BOOST_TEST((pairs == std::vector<std::pair<std::string, std::string>>{{"cube0", "cube1"}, {"a", "b"}}));
  const std::filesystem::path dir = test::temporaryPath("srdf");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "two.srdf") << srdf;
  BOOST_TEST((readSrdfDisabledCollisions((dir / "two.srdf").string()) == pairs));

  const auto refused = [](const std::string& xml, const std::string& expected) {
    try {
      parseSrdfDisabledCollisions(xml, "bad.srdf");
    } catch (const Error& e) {
      const std::string what = e.what();
      BOOST_TEST((what.find("bad.srdf") != std::string::npos && what.find(expected) != std::string::npos), what);
      return;
    }
    BOOST_ERROR("accepted: " << xml.substr(0, 80));
  };
  refused("<robot><disable_collisions link1=\"a\" link2=\"b\"></robot>", "malformed XML");
  refused("", "malformed XML");
  refused("<mujoco/>", "root element is 'mujoco'");
  refused("<robot>\n<disable_collisions link1=\"a\"/></robot>", ":2: disable_collisions has no link2");
  refused("<robot><disable_collisions link1=\"\" link2=\"b\"/></robot>", "no link1");
  std::string deep;
  for (int k = 0; k < 100000; ++k) deep += "<a>";
  refused("<robot>" + deep, "refused before parsing");
  std::string attributes = "<robot><disable_collisions";
  for (int k = 0; k < 1000; ++k) attributes += " x" + std::to_string(k) + "=\"1\"";
  refused(attributes + "/></robot>", "refused before parsing");
  BOOST_CHECK_THROW(readSrdfDisabledCollisions((dir / "missing.srdf").string()), Error);
  BOOST_CHECK_THROW(readSrdfDisabledCollisions(dir.string()), Error);
  std::filesystem::remove_all(dir);
}
