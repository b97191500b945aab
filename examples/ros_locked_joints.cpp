// ros_locked_joints: the ROS pattern with urdfdom's model. A controller moves some joints of a robot and
// holds the others: parse the robot_description with urdfdom, set the held joints to fixed, build abdyn's
// model from urdfdom's (abdyn/io/urdfdom.hpp, component abdyn::urdfdom), and compute the gravity torques
// of the joints that move. Mesh names (package://...) are looked up the way ROS does.
//
//   example_ros_locked_joints MODEL.urdf JOINT [JOINT...]
//
// The file stands for the robot_description parameter; each JOINT named is locked at zero.

#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>

#include <urdf_parser/urdf_parser.h>

#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/io/resource_resolver.hpp"
#include "abdyn/io/urdfdom.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.urdf JOINT [JOINT...]\n", argv[0]);
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    const std::string robot_description((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const urdf::ModelInterfaceSharedPtr urdf = urdf::parseURDF(robot_description);
    if (!urdf) {
      std::fprintf(stderr, "urdfdom cannot parse %s\n", argv[1]);
      return 1;
    }
    for (int k = 2; k < argc; ++k) {
      const auto joint = urdf->joints_.find(argv[k]);
      if (joint == urdf->joints_.end()) {
        std::fprintf(stderr, "no joint '%s' in %s\n", argv[k], argv[1]);
        return 1;
      }
      joint->second->type = urdf::Joint::FIXED;
    }
    const abdyn::Model model = abdyn::buildModel(*urdf);
    std::printf("model '%s': %d joints locked, nv = %d\n", model.name().c_str(), argc - 2, model.nv());

    abdyn::Data data(model);
    const Eigen::VectorXd tau = abdyn::gravityTorques(model, data, abdyn::neutral(model));
    for (int i = 1; i < model.nbodies(); ++i) {
      const abdyn::Joint& joint = model.joint(i);
      for (int k = 0; k < joint.nv; ++k) std::printf("  %-24s %12.6f\n", joint.name.c_str(), tau[joint.idx_v + k]);
    }

    // Meshes: ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the file's folder and its parents; a mesh that is
    // not found is a warning naming the places searched.
    const abdyn::ResourceSearch search = abdyn::ResourceSearch::forFile(argv[1]);
    int found = 0, meshes = 0;
    for (const abdyn::Geometry& g : model.geometries()) {
      if (g.shape != abdyn::ShapeType::Mesh) continue;
      ++meshes;
      if (abdyn::resolveResource(g.mesh_filename, search, argv[1])) ++found;
    }
    std::printf("%d of %d mesh files found\n", found, meshes);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
