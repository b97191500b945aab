#pragma once
// The constraints of a model carried over to its reduced model (model/reduced_model.hpp): each loop
// closure's frames move to the bodies their bodies were merged into, and joint couplings are re-indexed
// by joint name.

#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn {

/// `constraints` of `model`, expressed on `reduced` = buildReducedModel(model, ...). A loop closure whose
/// two bodies are welded into one closes nothing and is refused, as is a coupling between a locked and a
/// free joint; a coupling between two locked joints is dropped (buildReducedModel checked it holds).
/// Throws abdyn::Error naming the constraint.
ConstraintSet reduceConstraints(const ConstraintSet& constraints, const Model& model, const Model& reduced);

}  // namespace abdyn
