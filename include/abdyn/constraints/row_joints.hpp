#pragma once
// Joints between any two bodies (or a body and the world, body 0) built from 1D rows (rows.hpp).
// Each joint has a frame on each body; it holds when the frames coincide in the kept directions.
// With frame orientations R_A, R_B and origins p_A, p_B in the world (A's frame axes: x, y, z = axis):
//   linear rows   along world direction n at p_A:     C = n . (p_A - p_B),         dC/dt = n . (v_A(p) - v_B(p))
//   angular rows  about world axis a:                 C = a . log(R_A R_B^T),      dC/dt ~ a . (w_A - w_B)
//   hinge axis    about t1, t2 perpendicular to z_A:  C = t . (z_B x z_A)          (the small angle between axes)
//   distance      along u = (p_A - p_B) / |p_A - p_B|: C = |p_A - p_B| - length
// so  ball = 3 linear,  hinge = 3 linear + 2 angular,  slider = 2 linear (x, y) + 3 angular (axis z),
//     fixed = 3 + 3,  distance = 1 linear.  Each row's target is -(erp / h) C (Baumgarte / ERP).

#include <cstdint>

#include "abdyn/constraints/rows.hpp"

namespace abdyn {

enum class RowJointType { Ball, Hinge, Slider, Fixed, Distance };

struct RowJoint {
  RowJointType type = RowJointType::Ball;
  int body_a = 0;
  int body_b = 0;
  Plx X_frame_a = Plx();  // maps body-A coordinates into the joint frame on A
  Plx X_frame_b = Plx();  // maps body-B coordinates into the joint frame on B
  double length = 0.0;    // distance joints: the kept distance between the frame origins
};

/// Appends the joint's rows (keys key_base, key_base + 1, ...) with targets -(erp / h) C and softness cfm.
/// Needs data.X_world and data.X_up (forwardKinematics). Throws abdyn::InvalidArgument on a body outside
/// the model or on a distance joint whose frame origins coincide.
void addRowJoint(RowSet& rows, const Model& model, const Data& data, const RowJoint& joint, double erp, double cfm,
                 double h, std::int64_t key_base);

}  // namespace abdyn
