// The resource resolver (abdyn/io/resource_resolver.hpp) on a fake package tree in a temporary folder:
// every place a package:// name is looked up, the order of those places, file:// and relative paths,
// and names that are not found (explicit in the result, a warning when resolved).
#define BOOST_TEST_MODULE resource_resolver
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>
#include <spdlog/sinks/ostream_sink.h>

#include "abdyn/error.hpp"
#include "abdyn/io/resource_resolver.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/logging.hpp"
#include "test_helpers.hpp"

namespace fs = std::filesystem;
using abdyn::ResourceLookup;
using abdyn::ResourceSearch;
using abdyn::lookUpResource;

namespace {

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "solid x\nendsolid x\n";
}

// A fake tree:
//   root/ws/src/robot_description/{package.xml, urdf/robot.urdf, meshes/base.stl}   a checkout
//   root/ws/src/gripper/meshes/finger.stl                                            beside it
//   root/ros1/arm/meshes/upper.stl                 ROS_PACKAGE_PATH=root/ros1
//   root/ros1_pkg/meshes/self.stl                  ROS_PACKAGE_PATH entry that is the package itself
//   root/ament/share/arm/meshes/upper.stl          AMENT_PREFIX_PATH=root/ament (also has 'arm')
//   root/ament/share/base_only/meshes/b.stl
//   root/user/arm/meshes/upper.stl                 a user-given folder for 'arm'
// The environment variables are set by each test and restored by the fixture. Outside the anonymous
// namespace: the test cases derive from it, and in a unity build (CI's sanitizer builds) a base of
// internal linkage is an error (-Wsubobject-linkage).
}  // namespace

namespace resolver_test {

struct Tree {
  fs::path root = abdyn::test::temporaryPath("resource_tree");
  std::optional<std::string> ros_package_path, ament_prefix_path;

  Tree() {
    fs::remove_all(root);
    touch(root / "ws/src/robot_description/package.xml");
    touch(root / "ws/src/robot_description/urdf/robot.urdf");
    touch(root / "ws/src/robot_description/meshes/base.stl");
    touch(root / "ws/src/gripper/meshes/finger.stl");
    touch(root / "ros1/arm/meshes/upper.stl");
    touch(root / "ros1_pkg/meshes/self.stl");
    touch(root / "ament/share/arm/meshes/upper.stl");
    touch(root / "ament/share/base_only/meshes/b.stl");
    touch(root / "user/arm/meshes/upper.stl");
    fs::create_directories(root / "ros1/arm/meshes/folder.stl");  // a directory is not a resource
    for (auto [name, saved] : {std::pair{"ROS_PACKAGE_PATH", &ros_package_path}, std::pair{"AMENT_PREFIX_PATH", &ament_prefix_path}}) {
      if (const char* v = std::getenv(name)) *saved = v;
      ::unsetenv(name);
    }
  }
  ~Tree() {
    for (auto [name, saved] : {std::pair{"ROS_PACKAGE_PATH", &ros_package_path}, std::pair{"AMENT_PREFIX_PATH", &ament_prefix_path}}) {
      if (saved->has_value()) {
        ::setenv(name, (*saved)->c_str(), 1);
      } else {
        ::unsetenv(name);
      }
    }
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string urdf() const { return (root / "ws/src/robot_description/urdf/robot.urdf").string(); }
  std::string at(const std::string& rel) const { return (root / rel).string(); }
};

// Captures the library's warnings while alive.
struct Warnings {
  std::ostringstream text;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text);
  Warnings() { abdyn::logger()->sinks().push_back(sink); }
  ~Warnings() {
    auto& sinks = abdyn::logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
  }
};

}  // namespace resolver_test

using resolver_test::Warnings;

BOOST_FIXTURE_TEST_SUITE(resolver, resolver_test::Tree)

BOOST_AUTO_TEST_CASE(package_inside_and_beside_a_checkout) {
  const ResourceSearch search = ResourceSearch::forFile(urdf());
  // The URDF's own package: the ancestor named robot_description.
  const ResourceLookup own = lookUpResource("package://robot_description/meshes/base.stl", search);
  BOOST_REQUIRE(own.found());
  BOOST_TEST(fs::equivalent(*own.path, at("ws/src/robot_description/meshes/base.stl")));
  BOOST_TEST(own.problem.empty());
  BOOST_TEST(own.searched.back() == *own.path);
  // A package beside it: an ancestor holding a folder named gripper.
  const ResourceLookup beside = lookUpResource("package://gripper/meshes/finger.stl", search);
  BOOST_REQUIRE(beside.found());
  BOOST_TEST(fs::equivalent(*beside.path, at("ws/src/gripper/meshes/finger.stl")));
}

BOOST_AUTO_TEST_CASE(environment_and_user_map_in_order) {
  ::setenv("ROS_PACKAGE_PATH", (at("nowhere") + "::" + at("ros1") + ":" + at("ros1_pkg")).c_str(), 1);
  ::setenv("AMENT_PREFIX_PATH", at("ament").c_str(), 1);
  ResourceSearch search = ResourceSearch::forFile(urdf());
  // ROS_PACKAGE_PATH comes before AMENT_PREFIX_PATH; empty entries are skipped.
  ResourceLookup arm = lookUpResource("package://arm/meshes/upper.stl", search);
  BOOST_REQUIRE(arm.found());
  BOOST_TEST(*arm.path == at("ros1/arm/meshes/upper.stl"));
  BOOST_TEST(arm.searched.front() == at("nowhere/arm/meshes/upper.stl"));
  // An entry of ROS_PACKAGE_PATH that is the package folder itself.
  const ResourceLookup self = lookUpResource("package://ros1_pkg/meshes/self.stl", search);
  BOOST_REQUIRE(self.found());
  BOOST_TEST(*self.path == at("ros1_pkg/meshes/self.stl"));
  // AMENT_PREFIX_PATH: share/NAME.
  const ResourceLookup ament = lookUpResource("package://base_only/meshes/b.stl", search);
  BOOST_REQUIRE(ament.found());
  BOOST_TEST(*ament.path == at("ament/share/base_only/meshes/b.stl"));
  // The user's map first of all.
  abdyn::addPackageDir(search.packages, "arm=" + at("user/arm"));
  arm = lookUpResource("package://arm/meshes/upper.stl", search);
  BOOST_REQUIRE(arm.found());
  BOOST_TEST(*arm.path == at("user/arm/meshes/upper.stl"));
  BOOST_TEST(arm.searched.size() == 1u);
  // Without the environment, the ROS 1 and ROS 2 folders are not searched.
  search.packages.clear();
  search.use_environment = false;
  arm = lookUpResource("package://arm/meshes/upper.stl", search);
  BOOST_TEST(!arm.found());
  for (const std::string& p : arm.searched) {
    BOOST_TEST(p.find("ros1") == std::string::npos);
    BOOST_TEST(p.find("ament") == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(file_uris_and_paths) {
  const ResourceSearch search = ResourceSearch::forFile(urdf());
  const std::string base = at("ws/src/robot_description/meshes/base.stl");
  for (const std::string& name : {"file://" + base, base, std::string("../meshes/base.stl"), std::string("file://../meshes/base.stl")}) {
    const ResourceLookup r = lookUpResource(name, search);
    BOOST_REQUIRE_MESSAGE(r.found(), name);
    BOOST_TEST(fs::equivalent(*r.path, base), name);
  }
  // A directory is not a resource.
  BOOST_TEST(!lookUpResource(at("ros1/arm/meshes/folder.stl"), search).found());
}

BOOST_AUTO_TEST_CASE(not_found_is_explicit_and_warned) {
  const ResourceSearch search = ResourceSearch::forFile(urdf());
  const ResourceLookup missing = lookUpResource("package://no_such_package/meshes/hand.dae", search);
  BOOST_TEST(!missing.found());
  BOOST_TEST(missing.problem.empty());
  // The URDF's folder and every ancestor was tried, up to the root.
  for (const char* dir : {"ws/src/robot_description/urdf", "ws/src/robot_description", "ws/src", "ws", ""}) {
    const std::string candidate = (fs::path(at(dir)) / "no_such_package/meshes/hand.dae").lexically_normal().string();
    BOOST_TEST((std::find(missing.searched.begin(), missing.searched.end(), candidate) != missing.searched.end()), candidate);
  }
  BOOST_TEST(missing.searched.back() == "/no_such_package/meshes/hand.dae");
  const std::string message = missing.notFoundMessage();
  BOOST_TEST(message.find("package://no_such_package/meshes/hand.dae") != std::string::npos);
  BOOST_TEST(message.find(at("ws/src/robot_description/urdf/no_such_package/meshes/hand.dae")) != std::string::npos);

  Warnings warnings;
  BOOST_TEST(!abdyn::resolveResource("package://no_such_package/meshes/hand.dae", search, "robot.urdf"));
  BOOST_TEST(warnings.text.str().find("robot.urdf: resource 'package://no_such_package/meshes/hand.dae' not found (searched: ") !=
             std::string::npos);
  // A found resource warns nothing.
  warnings.text.str("");
  BOOST_TEST(abdyn::resolveResource("../meshes/base.stl", search, "robot.urdf").has_value());
  BOOST_TEST(warnings.text.str().empty());
}

BOOST_AUTO_TEST_CASE(names_that_name_no_file) {
  const ResourceSearch search = ResourceSearch::forFile(urdf());
  for (const std::string name : {"package://", "package://arm", "package:///meshes/x.stl", "package://arm/", "file://",
                                 "http://example.com/x.stl", "model://arm/x.stl", ""}) {
    const ResourceLookup r = lookUpResource(name, search);
    BOOST_TEST(!r.found(), name);
    BOOST_TEST(!r.problem.empty(), name);
    BOOST_TEST(r.searched.empty(), name);
    BOOST_TEST(r.notFoundMessage().find("cannot be found: " + r.problem) != std::string::npos, name);
  }
}

BOOST_AUTO_TEST_CASE(package_arguments) {
  std::map<std::string, std::string> packages;
  abdyn::addPackageDir(packages, "arm=/opt/arm=1");  // the first '=' splits: folders may hold '='
  BOOST_TEST(packages.at("arm") == "/opt/arm=1");
  for (const char* bad : {"arm", "=dir", "arm=", ""}) {
    BOOST_CHECK_EXCEPTION(abdyn::addPackageDir(packages, bad), abdyn::InvalidArgument, [&](const abdyn::InvalidArgument& e) {
      return std::string(e.what()).find("'" + std::string(bad) + "'") != std::string::npos &&
             std::string(e.what()).find("NAME=DIR") != std::string::npos;
    });
  }
  // UrdfOptions carries the same map for whoever reads a URDF's meshes.
  abdyn::UrdfOptions options;
  abdyn::addPackageDir(options.package_dirs, "arm=" + at("user/arm"));
  BOOST_TEST(lookUpResource("package://arm/meshes/upper.stl", ResourceSearch::forFile(urdf(), options.package_dirs)).found());
}

BOOST_AUTO_TEST_SUITE_END()
