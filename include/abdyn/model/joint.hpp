#pragma once
/// @file
/// Joint types and the joint calculation (Featherstone's jcalc): the one place where abdyn switches on
/// the joint type. Every joint's motion subspace S is constant in its successor (child) frame, because
/// every multi-DoF joint's velocity is expressed in that frame; algorithms therefore take S from the
/// model and need only the joint transform X_J(q) per call.
///
/// Coordinates of q and v per joint (angular before linear, quaternions w first):
///   revolute   q = angle,  v = angular rate about the axis                       S = [a; 0]
///   prismatic  q = offset, v = rate along the axis                               S = [0; a]
///   helical    q = angle,  v = rate; translation pitch * angle along the axis    S = [a; pitch a]
///   spherical  q = (qw, qx, qy, qz), v = angular velocity in the child frame     S = [1; 0]
///   planar     q = (x, y, theta) in the plane spanned by t1, t2 = n x t1, rotation theta about n;
///              v = (w, vx, vy): angular rate about n and origin velocity along t1, t2, child frame
///              S = [n 0 0; 0 t1 t2]
///   floating   q = (x, y, z, qw, qx, qy, qz): position and orientation of the child in the parent;
///              v = (w, v) the child's spatial velocity in child coordinates            S = 1 (6x6)
/// Fixed joints never reach a Model: their child links are merged into the parent body and kept as frames.

#include <cmath>
#include <ostream>
#include <string>

#include <Eigen/Core>

#include "abdyn/spatial/plx.hpp"

namespace abdyn {

/// The joint types, with the sizes of their q and v and their motion subspace S (the table above).
enum class JointType {
  RevoluteX,   ///< revolute about the joint frame's x axis (fast path)
  RevoluteY,   ///< ... y axis
  RevoluteZ,   ///< ... z axis
  Revolute,    ///< revolute about any unit axis
  PrismaticX,  ///< prismatic along x (fast path)
  PrismaticY,
  PrismaticZ,
  Prismatic,   ///< prismatic along any unit axis
  Helical,     ///< screw about a unit axis with a pitch (metres per radian)
  Spherical,
  Planar,
  Floating,
};

/// The table above as data: the facts algorithms ask of a joint instead of testing its type.
struct JointLayout {
  int nq;  ///<number of configuration coordinates
  int nv;  ///<number of velocity coordinates
  int quaternion;          ///< offset in the joint's q of its unit quaternion (w, x, y, z); -1 without one
  bool identity_subspace;  ///< S is the 6 x 6 identity: v is the child's spatial velocity [angular; linear]
  int axis_column;         ///< one-DoF joints whose S is a unit vector e_k: k (0..5); -1 otherwise
};

/// The row of the table for a joint type.
constexpr JointLayout jointLayout(JointType type) {
  switch (type) {
    case JointType::RevoluteX:
      return {1, 1, -1, false, 0};  // S = [e_x; 0]
    case JointType::RevoluteY:
      return {1, 1, -1, false, 1};
    case JointType::RevoluteZ:
      return {1, 1, -1, false, 2};
    case JointType::PrismaticX:
      return {1, 1, -1, false, 3};  // S = [0; e_x]
    case JointType::PrismaticY:
      return {1, 1, -1, false, 4};
    case JointType::PrismaticZ:
      return {1, 1, -1, false, 5};
    case JointType::Spherical:
      return {4, 3, 0, false, -1};
    case JointType::Planar:
      return {3, 3, -1, false, -1};
    case JointType::Floating:
      return {7, 6, 3, true, -1};  // q = (position, quaternion)
    default:
      return {1, 1, -1, false, -1};
  }
}

/// A short lower-case name ("revolute", "prismatic", ...), the same for all axis variants.
const char* jointTypeName(JointType type);

/// A joint of the tree: joint i moves body i relative to its parent, with coordinates
/// q[idx_q .. idx_q + nq) and v[idx_v .. idx_v + nv).
struct Joint {
  JointType type = JointType::Revolute;  ///<the type (the table above)
  std::string name;  ///<unique in the model
  int idx_q = 0;  ///< first coordinate of this joint in q
  int idx_v = 0;  ///< first coordinate of this joint in v (and in qdd, tau)
  int nq = 1;  ///<number of its q coordinates
  int nv = 1;  ///<number of its v coordinates
  Vector3 axis = Vector3::UnitZ();  ///< revolute, prismatic, helical: the axis; planar: the normal n
  Vector3 axis2 = Vector3::UnitX(); ///< planar: the first in-plane direction t1
  double pitch = 0.0;               ///< helical only
  bool continuous = false;          ///< a revolute joint without position limits (URDF "continuous")
  int axis_column = -1;             ///< k when S = axis_sign e_k (S's products are picks); -1 otherwise
  double axis_sign = 1.0;           ///< +1 or -1; both set by setAxisPick

  /// Motion subspace S (6 x nv) in the child frame: the joint velocity is S v_joint.
  Eigen::Matrix<double, 6, Eigen::Dynamic> motionSubspace() const;
  /// Whether its q holds a unit quaternion (spherical and floating joints).
  bool hasQuaternion() const { return jointLayout(type).quaternion >= 0; }
  /// Index in q of the quaternion's w (joints with hasQuaternion() only).
  int quaternionIndex() const { return idx_q + jointLayout(type).quaternion; }
  /// Whether S is the identity, so that S's columns are the unit vectors in the child frame.
  bool identitySubspace() const { return jointLayout(type).identity_subspace; }
  /// Sets axis_column and axis_sign from the type and axis: the type's column for the fast-path types
  /// (S = +e_k), and k with sign -1 for a revolute or prismatic joint about -e_k (which keeps the general
  /// joint transform). ModelBuilder calls it once the type is fixed; a default Joint has no pick.
  void setAxisPick();
};

/// Prints the type name, with the axis for fast-path variants ("revolute_z").
std::ostream& operator<<(std::ostream& os, JointType type);

/// Sizes (nq, nv) of a joint type.
void jointSizes(JointType type, int& nq, int& nv);

/// The joint transform X_J = X_child_predecessor(q) from the joint's predecessor frame to the child
/// frame, for the joint's coordinates q_joint (a pointer to its nq numbers). Quaternions are used as
/// given (normalise q first if it may have drifted).
inline Plx jointTransform(const Joint& joint, const double* q_joint);

/// X_J(q) * X_tree, the transform from the parent body to the child, with the product specialised for
/// axis-aligned one-DoF joints (a revolute joint mixes two rows of X_tree's rotation; a prismatic one
/// only shifts its origin).
ABDYN_ALWAYS_INLINE Plx jointTransformTimes(const Joint& joint, const double* q_joint, const Plx& X_tree);

namespace detail {
/// The rotation by angle (cosine c, sine s) about a unit axis a: c 1 + s ax + (1 - c) a a^T.
inline Matrix3 rotationAboutUnitAxis(const Vector3& a, double c, double s) {
  Matrix3 R = (1.0 - c) * a * a.transpose();
  R.diagonal().array() += c;
  R += s * skew(a);
  return R;
}
/// The transpose of the rotation matrix of the unit quaternion (w, x, y, z).
Matrix3 quaternionRotationTransposed(const double* wxyz);
}  // namespace detail

inline Plx jointTransform(const Joint& joint, const double* q) {
  // Each case builds plx(E, r) with E = R_P_C^T, the child's rotation relative to the predecessor frame
  // transposed, and r the child's origin in the predecessor frame.
  switch (joint.type) {
    case JointType::RevoluteX: {
      const double c = std::cos(q[0]), s = std::sin(q[0]);
      Matrix3 E;
      E << 1, 0, 0, 0, c, s, 0, -s, c;
      return Plx(E, Vector3::Zero());
    }
    case JointType::RevoluteY: {
      const double c = std::cos(q[0]), s = std::sin(q[0]);
      Matrix3 E;
      E << c, 0, -s, 0, 1, 0, s, 0, c;
      return Plx(E, Vector3::Zero());
    }
    case JointType::RevoluteZ: {
      const double c = std::cos(q[0]), s = std::sin(q[0]);
      Matrix3 E;
      E << c, s, 0, -s, c, 0, 0, 0, 1;
      return Plx(E, Vector3::Zero());
    }
    case JointType::Revolute:
      return Plx(detail::rotationAboutUnitAxis(joint.axis, std::cos(q[0]), -std::sin(q[0])), Vector3::Zero());
    case JointType::PrismaticX:
      return Plx(Matrix3::Identity(), Vector3(q[0], 0, 0));
    case JointType::PrismaticY:
      return Plx(Matrix3::Identity(), Vector3(0, q[0], 0));
    case JointType::PrismaticZ:
      return Plx(Matrix3::Identity(), Vector3(0, 0, q[0]));
    case JointType::Prismatic:
      return Plx(Matrix3::Identity(), q[0] * joint.axis);
    case JointType::Helical:
      return Plx(detail::rotationAboutUnitAxis(joint.axis, std::cos(q[0]), -std::sin(q[0])),
                 joint.pitch * q[0] * joint.axis);
    case JointType::Spherical:
      return Plx(detail::quaternionRotationTransposed(q), Vector3::Zero());
    case JointType::Planar: {
      const Vector3 t2 = joint.axis.cross(joint.axis2);
      return Plx(detail::rotationAboutUnitAxis(joint.axis, std::cos(q[2]), -std::sin(q[2])),
                 q[0] * joint.axis2 + q[1] * t2);
    }
    case JointType::Floating:
      return Plx(detail::quaternionRotationTransposed(q + 3), Vector3(q[0], q[1], q[2]));
  }
  return Plx();
}

ABDYN_ALWAYS_INLINE Plx jointTransformTimes(const Joint& joint, const double* q, const Plx& X_tree) {
  const Matrix3& ET = X_tree.E();
  switch (joint.type) {
    case JointType::RevoluteX:
    case JointType::RevoluteY:
    case JointType::RevoluteZ: {
      // Rotating by -theta about axis a mixes rows b and c of E_tree: (b, c) -> (c b + s c, -s b + c c).
      const int a = joint.type == JointType::RevoluteX ? 0 : joint.type == JointType::RevoluteY ? 1 : 2;
      const int b = (a + 1) % 3, c3 = (a + 2) % 3;
      const double c = std::cos(q[0]), s = std::sin(q[0]);
      Matrix3 E;
      E.row(a) = ET.row(a);
      E.row(b) = c * ET.row(b) + s * ET.row(c3);
      E.row(c3) = -s * ET.row(b) + c * ET.row(c3);
      return Plx(E, X_tree.r());
    }
    case JointType::PrismaticX:
    case JointType::PrismaticY:
    case JointType::PrismaticZ: {
      const int a = joint.type == JointType::PrismaticX ? 0 : joint.type == JointType::PrismaticY ? 1 : 2;
      return Plx(ET, X_tree.r() + q[0] * ET.row(a).transpose());
    }
    default:
      return jointTransform(joint, q) * X_tree;
  }
}

}  // namespace abdyn
