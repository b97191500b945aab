#pragma once
// The interface between bench_step_peers.cpp (abdyn) and the simulation-step adapters for Bullet's
// btMultiBody and MuJoCo: one scene, described with plain C++ types, that every engine builds and runs.
//
// Frames: every body has abdyn's body frame (the URDF link frame after fixed-joint merging). Rotation
// matrices are row-major; R_a_b has b's axes as columns in a's coordinates. States are in abdyn's
// coordinates (peer.hpp): the floating root q = [x y z qw qx qy qz], v = [angular; linear] in the root
// body frame, then one coordinate per revolute joint.

#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "peer.hpp"

namespace abdyn_bench {

using Mat3 = std::array<double, 9>;  // row-major
using Vec3 = std::array<double, 3>;

/// A collision shape on a body. Box: size = edge lengths; cylinder: (radius, length, 0) along its z;
/// sphere: (radius, 0, 0).
struct StepShape {
  enum class Type { Box, Cylinder, Sphere } type = Type::Box;
  Mat3 R_body_shape{};  // the shape's axes in body coordinates
  Vec3 p_body_shape{};  // the shape's centre in body coordinates
  Vec3 size{};
};

/// A body and the joint that moves it: a floating joint from the world, or a revolute joint on its
/// parent body or on the world.
struct StepBody {
  std::string name;
  int parent = -1;      // index in StepScene::bodies; -1: the world
  Mat3 R_parent_body{}; // the body frame at q = 0 in the parent's frame
  Vec3 p_parent_body{};
  Vec3 axis{};          // revolute axis in the body frame (the joint turns the body by +q about it)
  double mass = 0.0;
  Vec3 com{};           // centre of mass in the body frame
  Mat3 inertia{};       // rotational inertia about the centre of mass, body axes
  double lower = 0.0, upper = 0.0;  // position limits (rad); none unless lower < upper
  double damping = 0.0;             // viscous joint damping (N m s / rad), applied explicitly
  double friction = 0.0;            // Coulomb joint friction (N m)
  JointSlice joint;
  std::vector<StepShape> shapes;
};

/// A revolute loop closure: a point and an axis on body a coincide with a point and an axis on body b.
/// abdyn holds it by a hinge of rows; Bullet and MuJoCo, which have no hinge between two bodies of
/// articulations, by two point constraints at origin +- hinge_half_span along the axis.
struct StepHinge {
  std::string name;
  int body_a = 0, body_b = 0;  // indices in StepScene::bodies
  Vec3 p_a{}, p_b{};           // the hinge's origin in body-a and in body-b coordinates
  Vec3 axis_a{}, axis_b{};     // its unit axis in body-a and in body-b coordinates
};

/// A scene: articulated bodies, possibly closed by hinges and over a horizontal ground plane, run for
/// `steps` steps of h from (q0, v0) with the joint forces tau held constant.
struct StepScene {
  std::string label;
  Problem problem;  // the URDF file and abdyn's joint layout (for MuJoCo, which loads the URDF itself)
  std::vector<StepBody> bodies;  // gravity: problem.gravity
  std::vector<StepHinge> hinges;
  double hinge_half_span = 0.025;  // m: a hinge's points for point constraints are origin +- this along the axis
  std::vector<double> tau;         // constant joint forces, abdyn's v coordinates (zero on floating joints)
  bool ground = true;              // the plane z = ground_height and contacts with it
  double ground_height = 0.0;
  double mu = 0.8;        // Coulomb friction between the shapes and the ground
  double h = 2e-3;        // time step (s)
  int steps = 1000;
  int iterations = 20;    // solver iterations (sweeps) per step
  std::vector<double> q0, v0;
  std::vector<double> q_check, v_check;  // a random state for the model check
};

/// What an engine reports: its joint accelerations at (q_check, v_check) without contacts, limits,
/// friction or damping (the model check), and the state after a run of the scene, in abdyn's coordinates.
struct StepReport {
  std::string library;
  std::string error;   // empty on success
  std::string note;    // settings the engine needed, for the record
  std::vector<double> free_qdd;        // joint accelerations at (q_check, v_check); 0 on floating joints
  std::vector<double> q_end, v_end;    // state after scene.steps steps
  double mean_contacts = 0.0;          // contact points per step, averaged over the run
};

/// The rollout batch (RolloutRun/<scene>/<library>/threads:k): kRolloutRuns runs of the scene, run n from
/// (q0, rolloutScale(n) v0) under rolloutScale(n) tau, so that the runs differ (the delta robot starts at
/// rest, so its runs differ by their torques). Smaller pushes than the scene's: with 1.08 times its push
/// abdyn's ragdoll diverges after about 1.5 s. The runs are split into contiguous blocks, one per thread,
/// each thread with its own engine state (abdyn::rollout; MuJoCo: one mjData per thread).
constexpr int kRolloutRuns = 8;
inline double rolloutScale(int run) { return 1.0 - 0.02 * run; }

/// Sets the entries of floating joints to 0 (the model check compares joint accelerations only).
inline void zeroFloating(const StepScene& scene, std::vector<double>& qdd) {
  for (const StepBody& b : scene.bodies) {
    if (!b.joint.floating) continue;
    for (int k = 0; k < b.joint.nv; ++k) qdd[static_cast<std::size_t>(b.joint.idx_v + k)] = 0.0;
  }
}

/// TransitionJacobians/<scene>/<library>: the step's transition Jacobians A = d x_next / d x and
/// B = d x_next / d tau at one state. What a library's Jacobians were checked against, before timing:
/// `difference` is the largest entry of their difference from the reference, relative to the largest
/// `difference` is transitionDifference's measure against a reference: abdyn's against centred
/// differences of its own step, MuJoCo's (which are centred differences) against its own at ten times the
/// step.
struct TransitionCheck {
  std::string library;
  std::string error;  // empty on success
  std::string note;
  double difference = 0.0;
};
constexpr double kTransitionEps = 1e-6;  // MuJoCo's centred differences' step (tangent units, N m)

/// |[A B] - [A_ref B_ref]| / |[A_ref - 1, B_ref]| (Frobenius) for row-major A (n x n) and B (n rows): relative
/// to what the step changes, since A is 1 + O(h) and would hide an error in its O(h) part.
inline double transitionDifference(const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& A_ref,
                                   const std::vector<double>& B_ref, int n) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t k = 0; k < A.size(); ++k) {
    const double one = k % static_cast<std::size_t>(n + 1) == 0 ? 1.0 : 0.0;
    diff += (A[k] - A_ref[k]) * (A[k] - A_ref[k]);
    scale += (A_ref[k] - one) * (A_ref[k] - one);
  }
  for (std::size_t k = 0; k < B.size(); ++k) {
    diff += (B[k] - B_ref[k]) * (B[k] - B_ref[k]);
    scale += B_ref[k] * B_ref[k];
  }
  return std::sqrt(diff / scale);
}

/// Each adapter builds the scene in its engine, registers the Google Benchmark case
/// "StepRun/<label>/<library>" (one iteration = the whole run from (q0, v0)) and reports one run.
std::vector<StepReport> addBulletStep(const StepScene& scene);
std::vector<StepReport> addMujocoStep(const StepScene& scene);
/// Registers TransitionJacobians/<label>/mujoco: mjd_transitionFD (centred, kTransitionEps) at (q, v) in
/// abdyn's coordinates under the scene's joint forces, with one motor actuator per revolute joint for B.
TransitionCheck addMujocoTransition(const StepScene& scene, const std::string& label, const std::vector<double>& q,
                                    const std::vector<double>& v);

}  // namespace abdyn_bench
