#define BOOST_TEST_MODULE reference_mujoco_mjcf_contacts
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <utility>

#include <mujoco/mujoco.h>

#include "abdyn/abdyn.hpp"

// The body-contact pairs abdyn builds for an MJCF file (BroadPhase with the loader's filter bits, excludes
// and parent rule) against the pairs MuJoCo 2.2.2 (Debian's libmujoco-dev) collides. MuJoCo's candidates
// are read from its contact list with every geom's margin raised to 100 m: the narrow phase of spheres and
// capsules then reports every pair its filters let through (mj_contactFilter: bits, same weld body, weld
// parent; the exclude list). abdyn's broad phase with a 200 m margin lets every pair of overlapping grown
// boxes through, so what remains are the filters. Pairs with a world geom (MuJoCo's floor) are left out:
// abdyn collides world geometry through the ground plane of GroundContactSettings, not as body contacts.
// Built only when CMake finds MuJoCo (tests/CMakeLists.txt).

using GeomPairs = std::set<std::pair<std::string, std::string>>;

std::pair<std::string, std::string> ordered(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return {a, b};
}

// A MuJoCo geom's name as abdyn names its geometry: the geom's name, else "<body>/geom<k>".
std::string geomName(const mjModel* m, int g) {
  if (const char* name = mj_id2name(m, mjOBJ_GEOM, g)) return name;
  const int b = m->geom_bodyid[g];
  const char* body = mj_id2name(m, mjOBJ_BODY, b);
  return (body != nullptr ? std::string(body) : "body" + std::to_string(b)) + "/geom" + std::to_string(g - m->body_geomadr[b]);
}

std::string describe(const GeomPairs& pairs) {
  std::string s;
  for (const auto& [a, b] : pairs) s += " (" + a + ", " + b + ")";
  return s;
}

void checkSame(const GeomPairs& abdyn, const GeomPairs& mujoco, const std::string& what) {
  GeomPairs only_abdyn, only_mujoco;
  for (const auto& p : abdyn) {
    if (mujoco.count(p) == 0) only_abdyn.insert(p);
  }
  for (const auto& p : mujoco) {
    if (abdyn.count(p) == 0) only_mujoco.insert(p);
  }
  BOOST_TEST(only_abdyn.empty(), what << ": pairs abdyn collides and MuJoCo does not:" << describe(only_abdyn));
  BOOST_TEST(only_mujoco.empty(), what << ": pairs MuJoCo collides and abdyn does not:" << describe(only_mujoco));
  BOOST_TEST_MESSAGE(what << ": " << mujoco.size() << " pairs in MuJoCo, " << abdyn.size() << " in abdyn");
}

GeomPairs mujocoPairs(const std::string& path) {
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  BOOST_TEST_REQUIRE(m != nullptr, path << ": " << error);
  for (int g = 0; g < m->ngeom; ++g) m->geom_margin[g] = 100.0;
  m->nconmax = 10000;
  mjData* d = mj_makeData(m);
  mj_kinematics(m, d);
  mj_collision(m, d);
  GeomPairs pairs;
  for (int c = 0; c < d->ncon; ++c) {
    const int g1 = d->contact[c].geom1, g2 = d->contact[c].geom2;
    if (m->body_weldid[m->geom_bodyid[g1]] == 0 || m->body_weldid[m->geom_bodyid[g2]] == 0) continue;
    pairs.insert(ordered(geomName(m, g1), geomName(m, g2)));
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return pairs;
}

GeomPairs abdynPairs(const std::string& path) {
  const abdyn::MjcfModel loaded = abdyn::loadMjcfModel(path);
  const abdyn::Model& model = loaded.model;
  abdyn::GroundContactSettings settings;
  settings.margin = 200.0;
  settings.excluded_body_pairs = loaded.excluded_pairs;
  settings.excluded_geometry_pairs = loaded.excluded_geometry_pairs;
  settings.exclude_parent_child = loaded.filter_parent;
  abdyn::Data data(model);
  abdyn::forwardKinematics(model, data, abdyn::neutral(model));
  abdyn::BroadPhase broad_phase(model);
  GeomPairs pairs;
  for (const abdyn::GeometryPair& p : broad_phase.pairs(model, data, settings)) {
    pairs.insert(ordered(model.geometries()[static_cast<std::size_t>(p.first)].name,
                         model.geometries()[static_cast<std::size_t>(p.second)].name));
  }
  return pairs;
}

std::string modelPath(const std::string& name) { return std::string(ABDYN_SOURCE_DIR) + "/tests/models/mjcf/" + name; }

BOOST_AUTO_TEST_CASE(pairs_match_mujocos_filter) {
  const GeomPairs mujoco = mujocoPairs(modelPath("contacts_filter.xml"));
  const GeomPairs abdyn = abdynPairs(modelPath("contacts_filter.xml"));
  checkSame(abdyn, mujoco, "contacts_filter.xml");
  // What the file tests, read on MuJoCo's list: each filter removes a pair, and the rest stay.
  BOOST_TEST(mujoco.count(ordered("thigh_geom", "torso_geom")) == 0u);  // weld parent, three joints between
  BOOST_TEST(mujoco.count(ordered("shin_geom", "thigh_geom")) == 0u);   // parent, one joint
  BOOST_TEST(mujoco.count(ordered("foot_geom", "thigh_geom")) == 0u);   // foot is fused into shin
  BOOST_TEST(mujoco.count(ordered("ball_geom", "shin_geom")) == 0u);    // <contact><exclude>
  BOOST_TEST(mujoco.count(ordered("arm_geom", "thigh_geom")) == 0u);    // bits: 2 & 1, 1 & 4
  BOOST_TEST(mujoco.count(ordered("hand_geom", "tail_geom")) == 0u);    // bits: 4 & 0, 1 & 2
  BOOST_TEST(mujoco.count(ordered("foot_geom", "torso_geom")) == 1u);
  BOOST_TEST(mujoco.count(ordered("ball_geom", "hand_geom_b")) == 1u);  // bits: 8 & 8
  BOOST_TEST(mujoco.count(ordered("shin_geom", "tail_geom")) == 1u);    // bits: 1 & 1 one way only
  BOOST_TEST(mujoco.size() >= 9u);  // nine on MuJoCo 2.2.2: a list that is not empty by accident
}

BOOST_AUTO_TEST_CASE(pairs_match_mujoco_without_the_parent_filter) {
  const GeomPairs mujoco = mujocoPairs(modelPath("contacts_filterparent.xml"));
  const GeomPairs abdyn = abdynPairs(modelPath("contacts_filterparent.xml"));
  checkSame(abdyn, mujoco, "contacts_filterparent.xml");
  BOOST_TEST(mujoco.count(ordered("thigh_geom", "torso_geom")) == 1u);
  BOOST_TEST(mujoco.count(ordered("shin_geom", "thigh_geom")) == 1u);
  BOOST_TEST(mujoco.count(ordered("foot_geom", "shin_geom")) == 0u);  // one rigid body
}

// The bundled ant and humanoid (models/*.xml): bodies with one, two and three joints, a floor, the default bits.
BOOST_AUTO_TEST_CASE(bundled_models_pair_as_mujoco_does) {
  for (const char* name : {"humanoid.xml", "ant.xml"}) {
    const std::string path = std::string(ABDYN_SOURCE_DIR) + "/models/" + name;
    checkSame(abdynPairs(path), mujocoPairs(path), name);
  }
}
