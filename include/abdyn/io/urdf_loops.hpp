#pragma once
/// @file
/// Loop joints declared in a URDF file. URDF describes trees only; abdyn reads closures from extension
/// elements that URDF readers ignore (docs/urdf-extensions.md):
///
/// ```xml
///   <loop_joint name="N" type="revolute|prismatic|spherical|fixed">
///     <predecessor link="A" xyz="x y z" rpy="r p y"/>   <!-- frame Fa, in link A's frame -->
///     <successor link="B" xyz="x y z" rpy="r p y"/>     <!-- frame Fb, in link B's frame -->
///     <axis xyz="x y z"/>                               <!-- revolute, prismatic: in Fa -->
///   </loop_joint>
/// ```
///
/// and Drake's ball constraint, so that files written for Drake load unchanged:
///
/// ```xml
///   <drake:ball_constraint>
///     <drake:ball_constraint_body_A name="A"/>  <drake:ball_constraint_p_AP value="x y z"/>
///     <drake:ball_constraint_body_B name="B"/>  <drake:ball_constraint_p_BQ value="x y z"/>
///   </drake:ball_constraint>
/// ```
///
/// Links may be bodies, links merged through fixed joints, or "world"; xyz and rpy default to zero.
/// URDF mimic joints are returned as joint couplings too. Every problem throws abdyn::Error starting with
/// the source and naming the loop joint.

#include <string>

#include "abdyn/constraints/loop_closure.hpp"

namespace abdyn {

/// The closures of the URDF file at `path`, for `model` loaded from the same file.
ConstraintSet loadUrdfLoops(const std::string& path, const Model& model);
/// The same from a document in memory (errors start with "\<string\>").
ConstraintSet loadUrdfLoopsString(const std::string& xml, const Model& model);

}  // namespace abdyn
