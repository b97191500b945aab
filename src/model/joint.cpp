#include "abdyn/model/joint.hpp"

#include "abdyn/spatial/quaternion.hpp"

namespace abdyn {

const char* jointTypeName(JointType type) {
  switch (type) {
    case JointType::RevoluteX:
    case JointType::RevoluteY:
    case JointType::RevoluteZ:
    case JointType::Revolute:
      return "revolute";
    case JointType::PrismaticX:
    case JointType::PrismaticY:
    case JointType::PrismaticZ:
    case JointType::Prismatic:
      return "prismatic";
    case JointType::Helical:
      return "helical";
    case JointType::Spherical:
      return "spherical";
    case JointType::Planar:
      return "planar";
    case JointType::Floating:
      return "floating";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, JointType type) {
  os << jointTypeName(type);
  switch (type) {
    case JointType::RevoluteX:
    case JointType::PrismaticX:
      return os << "_x";
    case JointType::RevoluteY:
    case JointType::PrismaticY:
      return os << "_y";
    case JointType::RevoluteZ:
    case JointType::PrismaticZ:
      return os << "_z";
    default:
      return os;
  }
}

void jointSizes(JointType type, int& nq, int& nv) {
  nq = jointLayout(type).nq;
  nv = jointLayout(type).nv;
}

Eigen::Matrix<double, 6, Eigen::Dynamic> Joint::motionSubspace() const {
  Eigen::Matrix<double, 6, Eigen::Dynamic> S = Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, nv);
  switch (type) {
    case JointType::RevoluteX:
    case JointType::RevoluteY:
    case JointType::RevoluteZ:
    case JointType::Revolute:
      S.col(0).head<3>() = axis;
      break;
    case JointType::PrismaticX:
    case JointType::PrismaticY:
    case JointType::PrismaticZ:
    case JointType::Prismatic:
      S.col(0).tail<3>() = axis;
      break;
    case JointType::Helical:
      S.col(0) << axis, pitch * axis;
      break;
    case JointType::Spherical:
      S.topRows<3>().setIdentity();
      break;
    case JointType::Planar:
      S.col(0).head<3>() = axis;
      S.col(1).tail<3>() = axis2;
      S.col(2).tail<3>() = axis.cross(axis2);
      break;
    case JointType::Floating:
      S.setIdentity();
      break;
  }
  return S;
}

void Joint::setAxisPick() {
  axis_column = jointLayout(type).axis_column;
  axis_sign = 1.0;
  if (axis_column >= 0 || (type != JointType::Revolute && type != JointType::Prismatic)) return;
  for (int k = 0; k < 3; ++k) {
    if (axis == -Vector3::Unit(k)) {
      axis_column = type == JointType::Revolute ? k : k + 3;
      axis_sign = -1.0;
    }
  }
}

namespace detail {
Matrix3 quaternionRotationTransposed(const double* wxyz) {
  return Quaternion(wxyz[0], wxyz[1], wxyz[2], wxyz[3]).toRotationMatrix().transpose();
}
}  // namespace detail

}  // namespace abdyn
