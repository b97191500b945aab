#include "abdyn/model/random_model.hpp"

#include <sstream>

#include "abdyn/error.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/spatial/euler.hpp"
#include "abdyn/spatial/quaternion.hpp"

namespace abdyn {
namespace {

struct Sampler {
  std::mt19937& rng;

  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
  int index(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  Vector3 vector(double half) { return Vector3(uniform(-half, half), uniform(-half, half), uniform(-half, half)); }
  Matrix3 rotation() {
    std::normal_distribution<double> n(0.0, 1.0);
    return Quaternion(n(rng), n(rng), n(rng), n(rng)).normalized().toRotationMatrix();
  }
  Vector3 unitAxis() {
    // One axis in three is a coordinate axis so that the fast joint paths are exercised too.
    if (index(3) == 0) return Matrix3::Identity().col(index(3));
    Vector3 a;
    do a = vector(1.0); while (a.norm() < 0.1);
    return a.normalized();
  }
  // Principal moments of a random box-like mass distribution: (b + c, a + c, a + b) times the mass.
  RigidBodyInertia inertia() {
    const double m = uniform(0.5, 5.0);
    const double a = uniform(0.01, 0.1), b = uniform(0.01, 0.1), c = uniform(0.01, 0.1);
    const Matrix3 R = rotation();
    const Matrix3 Ic = m * R * Vector3(b + c, a + c, a + b).asDiagonal() * R.transpose();
    return RigidBodyInertia(m, vector(0.25), 0.5 * (Ic + Ic.transpose()));
  }
};

}  // namespace

Model randomTree(const RandomTreeOptions& options, std::mt19937& rng) {
  if (options.bodies < 1) throw InvalidArgument("abdyn::randomTree: options.bodies must be at least 1");
  Sampler s{rng};
  ModelBuilder builder("random_" + std::string(options.chain ? "chain_" : "tree_") + std::to_string(options.bodies));
  const JointType mixed[] = {JointType::Revolute, JointType::Revolute, JointType::Revolute, JointType::Prismatic,
                             JointType::Helical,  JointType::Spherical, JointType::Planar,  JointType::Floating};
  for (int i = 1; i <= options.bodies; ++i) {
    JointSpec joint;
    joint.name = "joint" + std::to_string(i);
    if (i == 1 && options.floating_base) {
      joint.type = JointType::Floating;
    } else {
      joint.type = options.all_joint_types ? mixed[s.index(8)] : JointType::Revolute;
    }
    joint.axis = s.unitAxis();
    if (joint.type == JointType::Planar) joint.axis2 = joint.axis.unitOrthogonal();
    if (joint.type == JointType::Helical) joint.pitch = s.uniform(-0.1, 0.1);
    if (joint.type == JointType::Revolute) {
      joint.lower = -3.2;
      joint.upper = 3.2;
    }
    if (options.joint_dynamics) {
      joint.damping = s.uniform(0.0, 0.5);
      joint.armature = s.uniform(0.0, 0.1);
    }
    // A floating robot hangs entirely from its floating body.
    const int parent = options.chain ? i - 1 : (options.floating_base && i > 1 ? 1 + s.index(i - 1) : s.index(i));
    builder.addBody(parent, joint, Plx::fromPose(s.rotation(), s.vector(0.25)), s.inertia(), "body" + std::to_string(i));
  }
  return builder.build();
}

std::string randomTreeUrdf(const RandomTreeOptions& options, std::mt19937& rng) {
  if (options.bodies < 1) throw InvalidArgument("abdyn::randomTreeUrdf: options.bodies must be at least 1");
  Sampler s{rng};
  std::ostringstream xml;
  xml.precision(17);
  xml << "<?xml version=\"1.0\"?>\n<robot name=\"random_" << (options.chain ? "chain_" : "tree_") << options.bodies
      << "\">\n";
  const auto link = [&](int i) {
    const RigidBodyInertia I = s.inertia();
    const Matrix3& Ic = I.inertiaAboutCom();
    xml << "  <link name=\"body" << i << "\">\n    <inertial>\n      <origin xyz=\"" << I.com().x() << " " << I.com().y()
        << " " << I.com().z() << "\" rpy=\"0 0 0\"/>\n      <mass value=\"" << I.mass() << "\"/>\n      <inertia ixx=\""
        << Ic(0, 0) << "\" ixy=\"" << Ic(0, 1) << "\" ixz=\"" << Ic(0, 2) << "\" iyy=\"" << Ic(1, 1) << "\" iyz=\""
        << Ic(1, 2) << "\" izz=\"" << Ic(2, 2) << "\"/>\n    </inertial>\n  </link>\n";
  };
  link(0);
  const char* types[] = {"revolute", "revolute", "continuous", "prismatic", "fixed"};
  for (int i = 1; i <= options.bodies; ++i) {
    link(i);
    const std::string type = options.all_joint_types ? types[s.index(5)] : "revolute";
    const Vector3 xyz = s.vector(0.25);
    const Vector3 rpy = matrixToRpy(s.rotation());
    const Vector3 axis = s.unitAxis();
    const int parent = options.chain ? i - 1 : s.index(i);
    xml << "  <joint name=\"joint" << i << "\" type=\"" << type << "\">\n    <parent link=\"body" << parent
        << "\"/>\n    <child link=\"body" << i << "\"/>\n    <origin xyz=\"" << xyz.x() << " " << xyz.y() << " "
        << xyz.z() << "\" rpy=\"" << rpy.x() << " " << rpy.y() << " " << rpy.z() << "\"/>\n";
    if (type != "fixed") xml << "    <axis xyz=\"" << axis.x() << " " << axis.y() << " " << axis.z() << "\"/>\n";
    if (type == "revolute") xml << "    <limit lower=\"-3.2\" upper=\"3.2\" effort=\"100\" velocity=\"10\"/>\n";
    if (type == "prismatic") xml << "    <limit lower=\"-1\" upper=\"1\" effort=\"100\" velocity=\"10\"/>\n";
    xml << "  </joint>\n";
  }
  xml << "</robot>\n";
  return xml.str();
}

}  // namespace abdyn
