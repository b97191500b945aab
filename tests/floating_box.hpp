#pragma once
// A test model shared by the Simulator tests: one box on a floating joint whose collision shape is itself.

#include "abdyn/model/model_builder.hpp"

namespace abdyn::test {

/// A floating box of `mass` and edge lengths `size` (a uniform solid: I = m/12 (b^2 + c^2), ...), its collision
/// box the body itself, under `gravity` (world coordinates).
inline Model floatingBox(const Vector3& size, double mass, const Vector3& gravity) {
  ModelBuilder b("box");
  b.setGravity(gravity);
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const Vector3 s2 = size.cwiseProduct(size);
  const Vector3 I = mass / 12.0 * Vector3(s2[1] + s2[2], s2[0] + s2[2], s2[0] + s2[1]);
  const int body = b.addBody(0, free, Plx(), RigidBodyInertia(mass, Vector3::Zero(), I.asDiagonal()), "box");
  Geometry g;
  g.name = "box_collision";
  g.link = "box";
  g.body = body;
  g.shape = ShapeType::Box;
  g.size = size;
  b.addGeometry(g);
  return b.build();
}

}  // namespace abdyn::test
