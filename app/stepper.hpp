#pragma once
// One step of the method `abdyn simulate` chose: an unconstrained integrator, the Simulator's constraint-row
// step, or the loop path (constrained accelerations, then post-stabilisation).

#include <limits>
#include <memory>
#include <string>

#include "abdyn/abdyn.hpp"
#include "model_command.hpp"

namespace abdyn_app {

class Stepper {
 public:
  /// Refuses (UsageError) a method the model's loop joints, mimic couplings or constraint rows rule out.
  Stepper(const abdyn::Model& model, const Arguments& args, const abdyn::ConstraintSet& set);

  /// Closes the loops at q (Gauss-Newton from q) and makes v admissible; no-op without loop joints.
  void assemble(Eigen::VectorXd& q, Eigen::VectorXd& v);

  /// The largest closure error at q (loop-joint models only).
  double closureError(const Eigen::VectorXd& q);
  bool hasLoops() const { return constrained_ != nullptr; }

  /// Whether the model's dynamics are defined at configuration q: false for a non-finite q or an
  /// exception (a singular mass matrix at q). Judged at rest, so that a wild velocity (the symptom of
  /// a diverging run, which can overflow the velocity products) does not count against the model.
  bool dynamicsDefined(const Eigen::VectorXd& q, const Eigen::VectorXd& tau);

  /// Advances (q, v) by h. On an exception (q, v) hold the state the step reached, where it has one.
  void step(Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h);

  /// adaptive-rk4: the sub-steps accepted so far and the shortest of them.
  long adaptiveSubsteps() const { return adaptive_substeps_; }
  double smallestSubstep() const { return smallest_substep_; }

  /// What the run does with the world's own collision shapes, for the summary; empty when the model has none
  /// or the run makes no contacts.
  const std::string& worldShapesText() const { return world_text_; }

  /// URDF files: the bodies overlapping the world's shapes at q (a fixed base's root link meets the links near
  /// it) do not collide with them.
  void leaveOutWorldTouches(const Eigen::VectorXd& q);

  /// The pairs of collision shapes that contacts collide and that overlap deeper than 1 mm at q, for the summary
  /// and a divergence's message: the deepest pair with its depth and how many more; empty when none. Contacts
  /// push such shapes apart, which the joints between their bodies may not allow (a file's default pose drawn
  /// folded into itself).
  std::string startOverlaps(const Eigen::VectorXd& q);

  /// The constraint rows' statistics of the last step (constrained runs only).
  const abdyn::StepStatistics* statistics() const { return simulator_ ? &simulator_->statistics() : nullptr; }

 private:
  // The loop path: ConstrainedRungeKutta4 or ConstrainedImplicitDampingEuler, each with its post-stabilisation.
  // Turns on the world's collision shapes in the contact settings unless --no-world-shapes (stepper.cpp).
  void useWorldShapes(abdyn::SimulatorSettings& settings);
  void loopStep(Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double step);

  const abdyn::Model& model_;
  abdyn::Data data_;
  const Arguments& args_;
  abdyn::RungeKutta4 rk_;
  abdyn::ExplicitEuler explicit_;
  abdyn::SemiImplicitEuler semi_implicit_;
  abdyn::ImplicitMidpoint midpoint_;
  abdyn::ImplicitDampingEuler implicit_damping_;
  abdyn::AdaptiveRungeKutta4 adaptive_;
  long adaptive_substeps_ = 0;
  double smallest_substep_ = std::numeric_limits<double>::infinity();
  abdyn::ConstrainedRungeKutta4 constrained_rk_;
  abdyn::ConstrainedImplicitDampingEuler constrained_damping_;
  std::unique_ptr<abdyn::Simulator> simulator_;
  const abdyn::ConstraintSet& set_;
  std::unique_ptr<abdyn::ConstrainedDynamicsData> constrained_;
  std::string world_text_;
};

}  // namespace abdyn_app
