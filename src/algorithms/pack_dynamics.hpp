#pragma once
// The pack kernels' interface: ABA, RNEA and CRBA on a pack of W states at once, one state per SIMD lane
// (pack_kernels.cpp, compiled once per instruction set and chosen at run time). Nothing here depends on an
// instruction set: the kernels take plain double arrays and a PackModel, so that no vector type and no
// inline function compiled for a wide instruction set crosses into code that runs everywhere.
//
// Structure of arrays: a pack's input x (q, v, tau or qdd) holds coordinate j of lane l at x[j * W + l];
// the kernels write their outputs the same way (M: entry (r, c) of lane l at M[(r * nv + c) * W + l]).

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn::internal {

/// The most lanes a pack has (AVX-512's 8 doubles): the workspace and the gathers are sized for it.
constexpr int kPackLanesMax = 8;

/// One body of a Model, flattened for the pack kernels (body coordinates, [angular; linear]).
struct PackBody {
  int parent = 0;
  JointType type = JointType::Revolute;
  int idx_q = 0, idx_v = 0, nv = 0;
  double axis[3] = {0, 0, 1};    // revolute, prismatic, helical: the axis; planar: the normal n
  double axis2[3] = {1, 0, 0};   // planar: t1
  double axis3[3] = {0, 1, 0};   // planar: t2 = n x t1
  double pitch = 0.0;            // helical
  double stiffness = 0.0;        // the joint spring's stiffness (Model::stiffness of its first coordinate)
  double E_tree[9] = {};         // X_tree's E, row-major
  double r_tree[3] = {};         // X_tree's r
  double mass = 0.0, com[3] = {};  // rigid-body inertia: mass, centre of mass
  double I[21] = {};             // its 6 x 6 matrix, lower triangle row by row: I(r, c) at r (r + 1) / 2 + c
  double S[36] = {};             // motion subspace, column k at S[6 k .. 6 k + 5]
  int pick[6] = {-1, -1, -1, -1, -1, -1};  // column k is pick_sign[k] e_pick[k], or -1 for a general column
  double pick_sign[6] = {1, 1, 1, 1, 1, 1};
};

/// The constants of a Model that the pack kernels read, built once per workspace.
struct PackModel {
  explicit PackModel(const Model& model);
  std::vector<PackBody> bodies;  // index 0: the world (unused)
  int nq = 0, nv = 0;
  double minus_gravity[6] = {};  // a_0 = -gravity
  std::vector<double> armature, damping;
  std::vector<double> spring_reference;  // nq: Model::springReference
};

/// The first lane whose mass matrix has no positive pivot at a joint (ABA: S^T IA S; a massless body
/// whose motion another joint duplicates), or lane -1.
struct PackFailure {
  int lane = -1;
  int body = -1;
  double pivot = 0.0;
};

/// One instruction set's kernels. `work` is PackWorkspace::work() (64-byte aligned, workDoubles long).
struct PackKernels {
  const char* name;  // Highway's target name: "AVX3" (AVX-512), "AVX2", "SSE4", "EMU128", ...
  int lanes;         // W: doubles per vector
  /// qdd = ABA(q, v, tau) for the pack; returns false and fills `failure` if a lane's D is not positive.
  bool (*aba)(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
              const double* tau, double* qdd, PackFailure* failure);
  /// tau = RNEA(q, v, qdd).
  void (*rnea)(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, const double* v,
               const double* qdd, double* tau);
  /// M = CRBA(q), both triangles (nv * nv entries per lane).
  void (*crba)(const PackModel& model, const DynamicsOptions& options, double* work, const double* q, double* M);
};

/// The kernels of the widest instruction set that this CPU has and setBatchSimd allows.
const PackKernels& packKernels();

/// Doubles of kernel workspace per lane for a model: per body and per DoF scratch of the three kernels.
std::size_t packWorkDoublesPerLane(const PackModel& model);

/// The kernels' workspace, allocated once (like Data): the flattened model, the 64-byte aligned scratch and
/// one pack of inputs and outputs.
class PackWorkspace {
 public:
  explicit PackWorkspace(const Model& model);
  const PackModel& model() const { return model_; }
  const PackKernels& kernels() const { return *kernels_; }
  int lanes() const { return kernels_->lanes; }
  double* work() { return work_.get(); }
  double* q() { return q_.get(); }  // nq x W
  double* v() { return v_.get(); }  // nv x W
  double* x() { return x_.get(); }  // nv x W: tau or qdd in
  double* y() { return y_.get(); }  // nv x W (ABA, RNEA) or nv^2 x W (CRBA) out

 private:
  struct Free {
    void operator()(double* p) const { std::free(p); }
  };
  using Buffer = std::unique_ptr<double[], Free>;
  static Buffer allocate(std::size_t doubles);

  PackModel model_;
  const PackKernels* kernels_;
  Buffer work_, q_, v_, x_, y_;
};

}  // namespace abdyn::internal
