// print_tree: loads a URDF and prints its kinematic tree, then the world pose of one frame at the
// neutral configuration.
//
//   example_print_tree MODEL.urdf [FRAME]
//
// FRAME defaults to the model's last frame (for a robot arm, usually its tool frame).

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/spatial/euler.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s MODEL.urdf [FRAME]\n", argv[0]);
    return 2;
  }
  try {
    const abdyn::Model model = abdyn::loadUrdf(argv[1]);
    // Looked up first, so that an unknown frame name fails before anything is printed.
    const int frame = argc == 3 ? model.frameId(argv[2]) : model.nframes() - 1;
    std::printf("model '%s': %d bodies (with the world), nq = %d, nv = %d\n\n", model.name().c_str(), model.nbodies(),
                model.nq(), model.nv());

    // Bodies come parents first, in depth-first order, so printing them in index order with one indent
    // per level of depth draws the tree.
    std::vector<int> depth(model.nbodies(), 0);
    std::printf("%s\n", model.bodyName(0).c_str());
    for (int i = 1; i < model.nbodies(); ++i) {
      depth[i] = depth[model.parent(i)] + 1;
      const abdyn::Joint& joint = model.joint(i);
      std::printf("%*s%s  (parent %s; joint '%s', %s, %d DoF; %.4g kg)\n", 2 * depth[i], "", model.bodyName(i).c_str(),
                  model.bodyName(model.parent(i)).c_str(), joint.name.c_str(), abdyn::jointTypeName(joint.type),
                  joint.nv, model.inertia(i).mass());
    }
    std::printf("\ntotal: %d DoF, %.6g kg\n", model.nv(), model.totalMass());

    // Forward kinematics at the neutral configuration (zero angles, identity quaternions), then the
    // requested frame's pose in the world.
    const Eigen::VectorXd q = abdyn::neutral(model);
    abdyn::Data data(model);
    abdyn::forwardKinematics(model, data, q);
    const Eigen::Isometry3d pose = abdyn::framePose(model, data, frame);
    const abdyn::Vector3 p = pose.translation();
    const abdyn::Vector3 rpy = abdyn::matrixToRpy(pose.linear());
    std::printf("\nframe '%s' (on body '%s') at the neutral configuration:\n", model.frame(frame).name.c_str(),
                model.bodyName(model.frame(frame).body).c_str());
    std::printf("  position  %.6f %.6f %.6f m\n", p.x(), p.y(), p.z());
    std::printf("  rpy       %.6f %.6f %.6f rad\n", rpy.x(), rpy.y(), rpy.z());
  } catch (const std::exception& e) {
    // abdyn::Error messages name the file and the element at fault.
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
