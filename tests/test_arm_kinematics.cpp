#define BOOST_TEST_MODULE arm_kinematics
#include <boost/test/unit_test.hpp>

#include <map>
#include <sstream>

#include <tinyxml2.h>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// Forward kinematics of the bundled 7-DoF arm against a closed form computed here: the product of
// homogeneous 4x4 matrices T = prod_k Trans(xyz_k) Rz(yaw_k) Ry(pitch_k) Rx(roll_k) Rot(axis_k, q_k),
// with every number read from the URDF by tinyxml2 and every rotation written out with cos and sin, so
// nothing of the library's loader, transforms or rotation code is involved.

namespace {

using Matrix4 = Eigen::Matrix4d;

Eigen::Vector3d triple(const char* text) {
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  if (text) {
    std::istringstream in(text);
    in >> v.x() >> v.y() >> v.z();
  }
  return v;
}

Matrix4 rotation(const Eigen::Vector3d& axis, double angle) {
  // Rodrigues written out: cos 1 + sin [a]x + (1 - cos) a a^T.
  const Eigen::Vector3d a = axis.normalized();
  const double c = std::cos(angle), s = std::sin(angle);
  Eigen::Matrix3d K;
  K << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  Matrix4 T = Matrix4::Identity();
  T.topLeftCorner<3, 3>() = c * Eigen::Matrix3d::Identity() + s * K + (1 - c) * a * a.transpose();
  return T;
}

Matrix4 origin(const tinyxml2::XMLElement* joint) {
  const tinyxml2::XMLElement* o = joint->FirstChildElement("origin");
  const Eigen::Vector3d xyz = triple(o ? o->Attribute("xyz") : nullptr);
  const Eigen::Vector3d rpy = triple(o ? o->Attribute("rpy") : nullptr);
  Matrix4 T = rotation(Eigen::Vector3d::UnitZ(), rpy.z()) * rotation(Eigen::Vector3d::UnitY(), rpy.y()) *
              rotation(Eigen::Vector3d::UnitX(), rpy.x());
  T.topRightCorner<3, 1>() = xyz;
  return T;
}

}  // namespace

BOOST_AUTO_TEST_CASE(arm_forward_kinematics_closed_form) {
  const std::string path = std::string(ABDYN_SOURCE_DIR) + "/models/iiwa7.urdf";
  tinyxml2::XMLDocument doc;
  BOOST_REQUIRE(doc.LoadFile(path.c_str()) == tinyxml2::XML_SUCCESS);
  std::map<std::string, const tinyxml2::XMLElement*> joint_of_child;
  for (auto* j = doc.RootElement()->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    joint_of_child[j->FirstChildElement("child")->Attribute("link")] = j;
  }
  const abdyn::Model model = abdyn::loadUrdf(path);
  BOOST_REQUIRE(model.nv() == 7);
  abdyn::Data data(model);
  std::mt19937 rng(11);
  int checked = 0;
  for (int t = 0; t < 20; ++t) {
    const Eigen::VectorXd q = abdyn::randomConfiguration(model, rng);
    abdyn::forwardKinematics(model, data, q);
    for (int f = 0; f < model.nframes(); ++f) {
      // Walk from the frame's link to the root, multiplying on the left.
      Matrix4 T = Matrix4::Identity();
      for (std::string link = model.frame(f).name; joint_of_child.count(link);) {
        const tinyxml2::XMLElement* j = joint_of_child[link];
        Matrix4 step = origin(j);
        if (std::string(j->Attribute("type")) != "fixed") {
          const tinyxml2::XMLElement* axis = j->FirstChildElement("axis");
          step = step * rotation(triple(axis ? axis->Attribute("xyz") : "1 0 0"), q[model.joint(j->Attribute("name")).idx_q]);
        }
        T = step * T;
        link = j->FirstChildElement("parent")->Attribute("link");
      }
      const Eigen::Isometry3d pose = abdyn::framePose(model, data, f);
      // Products of ~10 rotations of O(1) entries: 1e-14 absolute on positions of ~1 m.
      BOOST_TEST((pose.matrix() - T).cwiseAbs().maxCoeff() < 1e-14, "frame " << model.frame(f).name);
      ++checked;
    }
  }
  BOOST_TEST(checked >= 20 * 10);
}
