#pragma once
/// @file
/// Joints between any two bodies (or a body and the world, body 0) built from 1D rows (rows.hpp).
/// Each joint has a frame on each body; it holds when the frames coincide in the kept directions.
/// With frame orientations R_A, R_B and origins p_A, p_B in the world (A's frame axes: x, y, z = axis):
///   linear rows   along world direction n at p_A:     C = n . (p_A - p_B),         dC/dt = n . (v_A(p) - v_B(p))
///   angular rows  about world axis a:                 C = a . log(R_A R_B^T),      dC/dt ~ a . (w_A - w_B)
///   hinge axis    about t1, t2 perpendicular to z_A:  C = t . (z_B x z_A)          (the small angle between axes)
///   distance      along u = (p_A - p_B) / |p_A - p_B|: C = |p_A - p_B| - length
/// so  ball = 3 linear,  hinge = 3 linear + 2 angular,  slider = 2 linear (x, y) + 3 angular (axis z),
///     fixed = 3 + 3,  distance = 1 linear.  Each row's target is -(erp / h) C (Baumgarte / ERP), so a joint
///     should start (nearly) satisfied: an error of C metres asks for a speed of erp C / h.
///
/// Ragdoll limits (any joint type, usually ball), unilateral rows added within limit_margin of a bound:
///   swing cone  theta = angle(z_A, z_B) <= swing_limit: C = swing_limit - theta. With
///               n = z_B x z_A / |z_B x z_A|, rotating A about n by d opens theta by d, so
///               dC/dt = -n . (w_A - w_B): an angular row about -n.
///   twist       psi = 2 atan2(q_z, q_w) of the quaternion of R_A^T R_B (B's rotation about z_A after
///               its swing), bounded to [twist_lower, twist_upper]; dpsi/dt ~ a . (w_B - w_A) about the mean
///               axis a = (z_A + z_B) / |z_A + z_B| (exact without swing), so the lower bound is a row about
///               -a with C = psi - twist_lower and the upper one a row about a with C = twist_upper - psi.

#include <cstdint>
#include <limits>

#include "abdyn/constraints/rows.hpp"

namespace abdyn {

/// The kinds of two-body joints made of rows: ball (3 linear rows), hinge, slider, weld (6 rows) and
/// distance (1 row), with optional swing and twist limits.
enum class RowJointType { Ball, Hinge, Slider, Fixed, Distance };

/// A joint between two bodies of the model made of constraint rows (the Simulator solves them).
struct RowJoint {
  RowJointType type = RowJointType::Ball;  ///< the kind of joint
  int body_a = 0;         ///< body A (0: the world)
  int body_b = 0;         ///< body B (0: the world)
  Plx X_frame_a = Plx();  ///< maps body-A coordinates into the joint frame on A
  Plx X_frame_b = Plx();  ///< maps body-B coordinates into the joint frame on B
  double length = 0.0;    ///< distance joints: the kept distance between the frame origins
  double swing_limit = std::numeric_limits<double>::infinity();   ///< rad, cone half-angle between z_A and z_B
  double twist_lower = -std::numeric_limits<double>::infinity();  ///< rad, twist of B about z_A
  double twist_upper = std::numeric_limits<double>::infinity();   ///< rad, twist of B about z_A
  double limit_margin = 0.02;  ///< rad: limit rows are added this close to a bound
};

/// Row keys a joint uses: key_base + 0 .. kRowJointKeys - 1.
constexpr int kRowJointKeys = 9;

/// Appends the joint's rows (keys key_base, key_base + 1, ...) with targets -(erp / h) C and softness cfm,
/// and its limit rows (unilateral, targets unilateralTarget(C, erp, h)).
/// Needs data.X_body_world and data.S_world (forwardKinematics, then jointJacobians). Throws
/// abdyn::InvalidArgument on a body outside the model, a stale S_world (rows.hpp) or a distance joint whose
/// frame origins coincide.
void addRowJoint(RowSet& rows, const Model& model, const Data& data, const RowJoint& joint, double erp, double cfm,
                 double h, std::int64_t key_base);

}  // namespace abdyn
