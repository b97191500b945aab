#pragma once
/// @file
/// Euler angles: URDF roll-pitch-yaw and the XYZ / ZYX sequences about fixed or moving axes.
///
/// All matrices are active rotations (see rotation.hpp). Angles are applied in the order the sequence
/// names them: for XYZ, angles[0] about X, then angles[1] about Y, then angles[2] about Z.
///   Fixed (extrinsic) axes: each rotation is about the parent's axes, so a later one multiplies on the
///   left:   Fixed XYZ (a, b, c) = Rz(c) Ry(b) Rx(a),   Fixed ZYX (a, b, c) = Rx(c) Ry(b) Rz(a).
///   Moving (intrinsic) axes: each rotation is about the body's axes as rotated so far, so a later one
///   multiplies on the right:
///           Moving XYZ (a, b, c) = Rx(a) Ry(b) Rz(c),  Moving ZYX (a, b, c) = Rz(a) Ry(b) Rx(c).
/// Hence Fixed XYZ (a, b, c) == Moving ZYX (c, b, a) == URDF rpy (a, b, c) = Rz(yaw) Ry(pitch) Rx(roll).
///
/// Extraction returns the middle angle in [-pi/2, pi/2] and the others in [-pi, pi]. At gimbal lock
/// (middle angle +-pi/2, where only the sum or difference of the outer angles is defined: cos(middle)
/// below 1e-15) the angle about X is set to 0 and the whole rotation about the outer axes goes into the
/// angle about Z: roll = 0 for rpy. The returned angles reproduce the matrix to a few 1e-15, at and near
/// gimbal lock too.

#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// The order of the three elementary rotations: X, Y, Z or Z, Y, X.
enum class EulerSequence { XYZ, ZYX };
/// Fixed (extrinsic, the parent's axes) or moving (intrinsic, the rotated body's axes).
enum class EulerAxes { Fixed, Moving };

/// URDF's rpy = (roll, pitch, yaw): R = Rz(yaw) Ry(pitch) Rx(roll), i.e. roll about the fixed X, then
/// pitch about the fixed Y, then yaw about the fixed Z. Throws abdyn::InvalidArgument for non-finite angles.
Matrix3 rpyToMatrix(const Vector3& rpy);
/// The rpy angles of R: pitch in [-pi/2, pi/2], roll and yaw in [-pi, pi]; roll = 0 at gimbal lock.
/// R must be a rotation (not checked); throws abdyn::InvalidArgument for non-finite entries.
Vector3 matrixToRpy(const Matrix3& R);

/// The rotation of the given angles (see the conventions above). Throws abdyn::InvalidArgument for
/// non-finite angles.
Matrix3 eulerToMatrix(const Vector3& angles, EulerSequence sequence, EulerAxes axes);
/// Angles with eulerToMatrix(angles, sequence, axes) == R, in the ranges and with the gimbal-lock choice
/// described above. R must be a rotation (not checked); throws abdyn::InvalidArgument for non-finite entries.
Vector3 matrixToEuler(const Matrix3& R, EulerSequence sequence, EulerAxes axes);

}  // namespace abdyn
