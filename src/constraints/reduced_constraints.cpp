#include "abdyn/constraints/reduced_constraints.hpp"

#include <string>
#include <utility>

#include "abdyn/error.hpp"

namespace abdyn {
namespace {

// Where body `body` of `model` is in `reduced`: the body holding the frame of its name (a Body frame if
// it stayed, a Fixed frame if it was merged) and X_frame_body, which maps that body's coordinates into
// the old body's.
std::pair<int, Plx> placeIn(const Model& reduced, const Model& model, int body) {
  if (body == 0) return {0, Plx()};
  int frame = -1;
  try {
    frame = reduced.frameId(model.bodyName(body));
  } catch (const Error&) {
    throw Error("reduceConstraints: body '" + model.bodyName(body) + "' of model '" + model.name() +
                "' is not in the reduced model: pass the model it was reduced from");
  }
  const Frame& f = reduced.frame(frame);
  return {f.body, f.X_frame_body};
}

}  // namespace

ConstraintSet reduceConstraints(const ConstraintSet& constraints, const Model& model, const Model& reduced) {
  ConstraintSet out;
  for (const LoopClosure& c : constraints.loops) {
    const auto [a, X_old_a] = placeIn(reduced, model, c.body_a);
    const auto [b, X_old_b] = placeIn(reduced, model, c.body_b);
    if (a == b) {
      throw Error("reduceConstraints: loop joint '" + c.name + "' joins bodies '" + model.bodyName(c.body_a) + "' and '" +
                  model.bodyName(c.body_b) + "', which the reduced model welds together: the loop closes nothing "
                  "(leave it out, or lock fewer joints)");
    }
    // A point p of the old body is E^T p + r in the new body's coordinates, a direction d is E^T d.
    LoopClosure moved = c;
    moved.body_a = a;
    moved.R_a = X_old_a.E().transpose() * c.R_a;
    moved.p_a = X_old_a.E().transpose() * c.p_a + X_old_a.r();
    moved.body_b = b;
    moved.R_b = X_old_b.E().transpose() * c.R_b;
    moved.p_b = X_old_b.E().transpose() * c.p_b + X_old_b.r();
    out.loops.push_back(std::move(moved));
  }
  for (const JointCoupling& c : constraints.couplings) {
    const std::string& follower = model.joint(c.follower).name;
    const std::string& leader = model.joint(c.leader).name;
    const auto find = [&](const std::string& name) {
      for (int i = 1; i < reduced.nbodies(); ++i) {
        if (reduced.joint(i).name == name) return i;
      }
      return -1;
    };
    const int f = find(follower), l = find(leader);
    if (f < 0 && l < 0) continue;
    if (f < 0 || l < 0) {
      throw Error("reduceConstraints: coupling '" + c.name + "' ties joint '" + follower + "' to joint '" + leader +
                  "', and only one of them is locked: lock both joints or neither");
    }
    JointCoupling moved = c;
    moved.follower = f;
    moved.leader = l;
    out.couplings.push_back(std::move(moved));
  }
  try {
    out.validate(reduced);
  } catch (const InvalidArgument& e) {
    throw Error(std::string("reduceConstraints: ") + e.what());
  }
  return out;
}

}  // namespace abdyn
