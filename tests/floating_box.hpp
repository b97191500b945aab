#pragma once
// Test models shared by the Simulator and contact tests: free bodies, each carrying its collision shape.

#include <string>

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

/// Adds a free body `name` (joint `name`_free) carrying one collision shape `name` at its origin (sphere:
/// size = (r, 0, 0); box: edge lengths; cylinder: (r, length, 0)), with the inertia of a solid sphere of
/// radius 0.1 m and the same mass for simplicity. Returns the body's index.
inline int addFloatingShape(ModelBuilder& b, const std::string& name, ShapeType shape, const Vector3& size, double mass) {
  JointSpec free;
  free.type = JointType::Floating;
  free.name = name + "_free";
  const double I = 0.4 * mass * 0.01;
  const int body = b.addBody(0, free, Plx(), RigidBodyInertia(mass, Vector3::Zero(), Matrix3::Identity() * I), name);
  Geometry g;
  g.name = name;
  g.link = name;
  g.body = body;
  g.shape = shape;
  g.size = size;
  b.addGeometry(g);
  return body;
}

/// The model `name` of a 1 kg body "rod" on one joint of `type` named `joint` at the world's origin: its
/// centre of mass 0.5 m below its origin along its z, principal moments `moments` about it, without
/// collision shape.
inline Model rodOnJoint(const std::string& name, JointType type, const std::string& joint, const Vector3& moments) {
  ModelBuilder b(name);
  JointSpec spec;
  spec.type = type;
  spec.name = joint;
  b.addBody(0, spec, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -0.5), moments.asDiagonal()), "rod");
  return b.build();
}

/// A free rod (rodOnJoint), inertia diag(0.08, 0.08, 0.01) about its centre of mass.
inline Model floatingRod() { return rodOnJoint("rod", JointType::Floating, "free", Vector3(0.08, 0.08, 0.01)); }

}  // namespace abdyn::test
