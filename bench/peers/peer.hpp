#pragma once
// The interface between bench_peers.cpp (abdyn) and the peer adapters in this directory (Pinocchio,
// RBDL, MuJoCo): plain C++ types only, no Eigen or abdyn types, so that each adapter depends on its
// peer's headers alone.
//
// abdyn's coordinates, in which every state is drawn and every result is compared:
//   one-DoF joints   q = angle or offset, v = its rate (the URDF axis and sign, as every peer has them)
//   floating base    q = [x y z qw qx qy qz] (root position and orientation in the world),
//                    v = [angular; linear], the root's spatial velocity in root-body coordinates.

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace abdyn_bench {

/// max |x - reference| / max |reference|; infinite when the sizes differ or x is not finite.
inline double relativeError(const std::vector<double>& x, const std::vector<double>& reference) {
  if (x.size() != reference.size()) return INFINITY;
  double diff = 0.0, scale = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!std::isfinite(x[k])) return INFINITY;
    diff = std::max(diff, std::abs(x[k] - reference[k]));
    scale = std::max(scale, std::abs(reference[k]));
  }
  return diff / std::max(scale, 1e-300);
}

/// States per model, drawn before timing; every timed loop cycles through them.
constexpr int kStates = 64;

/// One moving joint of the abdyn model and its slices of abdyn's q and v.
struct JointSlice {
  std::string name;        // the URDF joint name; "root_joint" for the floating base
  std::string child_link;  // the URDF link this joint moves
  int idx_q = 0;
  int idx_v = 0;
  int nq = 1;
  int nv = 1;
  bool floating = false;
};

/// A loop closure of the constrained-dynamics cases (abdyn::LoopClosure in plain types): frame Fa on
/// link_a and frame Fb on link_b (an empty name: the world). Each frame is placed in its link's frame: R
/// (row-major, the frame's axes in link coordinates) and p (its origin). Each row of `directions` is a
/// unit [n_ang; n_lin] in Fa coordinates, applied to the motion of Fb relative to Fa expressed in Fa
/// (six unit axes: a weld; the three linear ones: a point; two angular and three linear: a hinge).
struct Closure {
  std::string link_a, link_b;
  std::array<double, 9> R_a{1, 0, 0, 0, 1, 0, 0, 0, 1}, R_b{1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::array<double, 3> p_a{}, p_b{};
  std::vector<std::array<double, 6>> directions;
};

/// A model and the states every library is timed on, in abdyn's coordinates.
struct Problem {
  std::string label;  // benchmark name component, e.g. "talos_reduced_floating"
  std::string urdf;   // path of the URDF file
  bool floating_base = false;
  std::array<double, 3> gravity{};
  int nq = 0;
  int nv = 0;
  std::vector<JointSlice> joints;
  /// kStates entries each: joint forces for ABA, joint accelerations for RNEA.
  std::vector<std::vector<double>> q, v, tau, qdd;
  /// Non-empty for a constrained case: the states satisfy the closures (C(q) = 0, G v = 0), the
  /// benchmark is "Constrained/<label>/<library>" (forward dynamics with the closures' multipliers,
  /// no stabilisation) and Outputs holds qdd only.
  std::vector<Closure> closures;
};

/// A library's results on state 0 of a Problem, converted to abdyn's coordinates.
struct Outputs {
  std::vector<double> qdd;          // ABA at (q, v, tau)
  std::vector<double> tau;          // RNEA at (q, v, qdd)
  std::vector<double> mass_matrix;  // CRBA at q: nv x nv, column-major, both triangles
  // First-order derivatives where the library has them (empty otherwise), nv x nv column-major, columns
  // in abdyn's tangent coordinates: of RNEA at (q, v, qdd) and of ABA at (q, v, tau).
  std::vector<double> dtau_dq, dtau_dv, dqdd_dq, dqdd_dv;
};

/// What an adapter reports for one library variant: the outputs, or why it could not run the model.
struct PeerReport {
  std::string library;  // the benchmark name component, e.g. "pinocchio"
  std::string error;    // empty on success
  std::string note;     // how the library had to be told to accept the model, if it had to
  Outputs outputs;
};

/// Where abdyn's coordinates sit in a peer's q and v, and the conversions of states and results.
/// One-DoF joints and the quaternion's components map one to one. A floating base whose linear
/// velocity the peer keeps in world coordinates (MuJoCo's free joint, RBDL's floating base) relates
/// to abdyn's by v_peer_lin = R v_lin, with R the root's orientation, and therefore
/// qdd_peer_lin = R (qdd_lin + omega x v_lin), tau_peer_lin = R tau_lin and M = T^T M_peer T.
class Layout {
 public:
  explicit Layout(const Problem& problem);

  /// A one-DoF joint at these indices of the peer's q and v.
  void mapJoint(const JointSlice& joint, int peer_idx_q, int peer_idx_v);
  /// The floating base: q_slots receive abdyn's [x y z qw qx qy qz], linear_slots and angular_slots
  /// the velocity components; world_linear if the peer's linear velocity is in world coordinates.
  void mapFloating(const JointSlice& joint, const std::array<int, 7>& q_slots, const std::array<int, 3>& linear_slots,
                   const std::array<int, 3>& angular_slots, bool world_linear);
  /// Empty if every coordinate is mapped to a distinct peer coordinate, else what is wrong.
  std::string check() const;

  std::vector<double> configuration(const std::vector<double>& q) const;
  std::vector<double> velocity(const std::vector<double>& q, const std::vector<double>& v) const;
  std::vector<double> acceleration(const std::vector<double>& q, const std::vector<double>& v,
                                   const std::vector<double>& qdd) const;
  std::vector<double> force(const std::vector<double>& q, const std::vector<double>& tau) const;

  std::vector<double> configurationFromPeer(const std::vector<double>& peer_q) const;
  std::vector<double> velocityFromPeer(const std::vector<double>& q, const std::vector<double>& peer_v) const;
  std::vector<double> accelerationFromPeer(const std::vector<double>& q, const std::vector<double>& v,
                                           const std::vector<double>& peer_qdd) const;
  std::vector<double> forceFromPeer(const std::vector<double>& q, const std::vector<double>& peer_tau) const;
  /// peer_mass: the peer's nv x nv matrix, column-major, both triangles.
  std::vector<double> massMatrixFromPeer(const std::vector<double>& q, const std::vector<double>& peer_mass) const;

 private:
  std::array<double, 9> rootRotation(const std::vector<double>& q) const;  // row-major

  int nq_, nv_;
  std::vector<int> q_map_;  // abdyn q index -> peer q index (-1 until mapped)
  std::vector<int> v_map_;  // abdyn v index -> peer v index (-1 until mapped)
  int float_q_ = -1;        // abdyn idx_q of the floating base, if any
  int float_v_ = -1;        // abdyn idx_v of the floating base, if any
  bool world_linear_ = false;
};

/// The adapters, each compiled in when CMake enables its peer: load problem.urdf into the library,
/// register the Google Benchmark cases "<ABA|RNEA|CRBA>/<label>/<library>" (or "Constrained/...";
/// Pinocchio also "dRNEA" and "dABA", its computeRNEADerivatives and computeABADerivatives),
/// and report the results on state 0 for the agreement check.
std::vector<PeerReport> addPinocchio(const Problem& problem);
std::vector<PeerReport> addRbdl(const Problem& problem);
std::vector<PeerReport> addMujoco(const Problem& problem);

}  // namespace abdyn_bench
