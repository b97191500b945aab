// A downstream program of the component abdyn::urdfdom (find_package(abdyn COMPONENTS urdfdom)): a
// robot_description parsed by urdfdom, one joint set to fixed, built into abdyn's model, and compared
// with abdyn's own reader on the same description with that joint fixed in the XML.
// Exit status: 0 when they agree, 1 otherwise.

#include <iostream>
#include <string>

#include <urdf_parser/urdf_parser.h>

#include <abdyn/abdyn.hpp>
#include <abdyn/io/urdfdom.hpp>

namespace {

std::string description(const char* elbow_type) {
  return std::string(R"(<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 0.2" rpy="0 1.5708 0"/><mass value="2"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.01"/></inertial></link>
  <link name="fore"><inertial><origin xyz="0 0 0.15"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.005"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="3"/></joint>
  <joint name="elbow" type=")") + elbow_type + R"("><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.4" rpy="0.1 0 0"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="3"/></joint>
</robot>)";
}

}  // namespace

int main() {
  const urdf::ModelInterfaceSharedPtr urdf = urdf::parseURDF(description("revolute"));
  if (!urdf) {
    std::cerr << "MISMATCH: urdfdom did not parse the description\n";
    return 1;
  }
  urdf->joints_.at("elbow")->type = urdf::Joint::FIXED;
  const abdyn::Model built = abdyn::buildModel(*urdf);
  const abdyn::Model loaded = abdyn::loadUrdfString(description("fixed"));
  bool same = built.nv() == 1 && loaded.nv() == 1 && built.nframes() == loaded.nframes();
  for (int i = 0; same && i < built.nbodies(); ++i) {
    same = built.bodyName(i) == loaded.bodyName(i) && built.inertiaMatrix(i) == loaded.inertiaMatrix(i) &&
           built.Xtree(i).E() == loaded.Xtree(i).E() && built.Xtree(i).r() == loaded.Xtree(i).r();
  }
  std::cout << "urdfdom component: " << (same ? "the same model" : "MISMATCH") << "\n";
  return same ? 0 : 1;
}
