#pragma once
/// @file
/// Batched dynamics: the same algorithm on N independent states, spread over threads and SIMD lanes.
///
/// States are rows of row-major matrices (row k of Q is q_k), the layout of a C-ordered (N, nq) NumPy
/// array, so the Python module passes its arrays without copying. The N rows run in packs of W states,
/// one state per lane of a vector register (W = batchLanes(): 8 with AVX-512, 4 with AVX2, 2 with SSE4 or
/// NEON), by kernels compiled for each instruction set and chosen at run time; the threads take chunks of
/// packs from a shared counter (BatchWorkspace). The last pack, when fewer than W rows remain, fills its
/// spare lanes with copies of its last row and stores only its own rows.
///
/// Every operation acts lane by lane, so a state's result depends only on its own row: not on the batch
/// size, its lane, the padding or the thread count (bit for bit). It agrees with the single-state call
/// (forwardDynamics, inverseDynamics, massMatrix) to round-off, not bit for bit: the kernels evaluate sin
/// and cos with their own polynomials (within 1 ulp) instead of the C library's, fuse multiplies and adds where
/// the instruction set has FMA, and compute the mass matrix by the classic composite-inertia recursion
/// rather than massMatrix's subtree frames (docs/batched-dynamics.md gives the measured differences).
///
/// Sizes are checked (abdyn::InvalidArgument naming the argument); an exception thrown for one state
/// (checked mode: a non-finite input, for example) stops its thread and is rethrown after all threads
/// have finished, prefixed with the state's row: the lowest failing row of the batch.
///
/// The calls that take a thread count share one process-wide BatchWorkspace, built by the first such call
/// and kept (its threads sleep between calls) until the process ends; it is rebuilt when a call brings
/// another model (or other parameters), another instruction set (setBatchSimd) or more threads than it
/// has. They are safe to call from several threads at once: a call that finds the shared workspace held
/// by another builds a workspace of its own for the call (a thread start and allocations, tens of
/// microseconds). Calls with a BatchWorkspace of their own never build anything and allocate nothing.

#include <cstdint>
#include <memory>

#include <Eigen/Core>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn {

/// A dynamic matrix stored row-major: one state (or one rollout step) per row, as NumPy arrays are.
using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The instruction sets the batched kernels choose from at run time, widest first (x86; other machines
/// have their widest and Portable).
enum class BatchSimd {
  Widest,    ///< the widest the CPU has (AVX-512 where available)
  Avx2,      ///< at most AVX2 + FMA (4 lanes)
  Sse4,      ///< at most SSE4 (2 lanes)
  Portable,  ///< Highway's portable code (scalar instructions, 1 or 2 lanes)
};

/// Caps the instruction set of the batched calls for the whole process, for tests and comparisons; the
/// CPU's own limits still apply. Not to be called while a batched call runs. Throws abdyn::InvalidArgument
/// for a value that is not a BatchSimd.
void setBatchSimd(BatchSimd limit);
/// The instruction set the batched calls use now, by Highway's name ("AVX3" is AVX-512).
const char* batchSimdName();
/// States per pack, W: the lanes of a vector register of doubles in the instruction set used now.
int batchLanes();

/// threads <= 0: std::thread::hardware_concurrency(). Never more threads than states.
int batchThreads(int threads, Eigen::Index states);

namespace internal {
struct BatchWorkspaceImpl;
}

/// The workspace of the batched calls for one model, allocated once (like Data): a team of `threads`
/// threads started once and kept until the workspace is destroyed (the calling thread and threads - 1
/// workers), and for each thread the kernels' workspace: the kernels of the instruction set chosen when
/// it is built, the model's constants in their layout and one pack of states. The batched calls that
/// take one wake its workers instead of starting threads, hand out their rows in chunks of packs from a
/// shared counter (so a thread the system delays does not hold up the others, and a worker the system
/// has not yet scheduled when the calling thread has taken the last chunk is not waited for; the packs,
/// and so the results, are the same whatever the thread count), and allocate nothing: repeated calls
/// (a control loop, a training step) should keep one. Between calls the workers spin for a fraction of
/// a millisecond, then sleep. One call at a time per workspace; threads of their own use their own.
class BatchWorkspace {
 public:
  /// The workspace for `model` with `threads` threads (<= 0: std::thread::hardware_concurrency(); 1: the
  /// calling thread alone, no worker), with the kernels of the instruction set used now (setBatchSimd).
  explicit BatchWorkspace(const Model& model, int threads = 1);
  /// Stops and joins the workers.
  ~BatchWorkspace();
  ///@{
  /// Movable (the threads and the kernels' state move with it), not copyable.
  BatchWorkspace(BatchWorkspace&&) noexcept;
  BatchWorkspace& operator=(BatchWorkspace&&) noexcept;
  ///@}
  /// States per pack (batchLanes() when the workspace was built).
  int lanes() const;
  /// The threads a call with this workspace uses at most (fewer when there are fewer states).
  int threads() const;
  /// The workspace's state, for the batched calls.
  internal::BatchWorkspaceImpl& impl() { return *impl_; }

 private:
  std::unique_ptr<internal::BatchWorkspaceImpl> impl_;
};

/// QDD.row(k) = forwardDynamics(Q.row(k), V.row(k), TAU.row(k)) (ABA). Q: N x nq; V, TAU, QDD: N x nv.
/// On `threads` threads (<= 0: hardware concurrency) of the process's shared workspace (above).
void forwardDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd> QDD, int threads = 0,
                          const DynamicsOptions& options = {});

/// The same on the threads of a workspace built for `model`: allocates nothing.
void forwardDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& TAU,
                          Eigen::Ref<RowMatrixXd> QDD, const DynamicsOptions& options = {});

/// TAU.row(k) = inverseDynamics(Q.row(k), V.row(k), QDD.row(k)) (RNEA). Q: N x nq; V, QDD, TAU: N x nv.
/// On `threads` threads of the shared workspace, as forwardDynamicsBatch.
void inverseDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd> TAU, int threads = 0,
                          const DynamicsOptions& options = {});

/// The same on the threads of a workspace built for `model`: allocates nothing.
void inverseDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& QDD,
                          Eigen::Ref<RowMatrixXd> TAU, const DynamicsOptions& options = {});

/// M_k = massMatrix(Q.row(k)) (CRBA, both triangles), stored row by row in M.row(k): N x (nv * nv),
/// M.row(k)[i * nv + j] = M_k(i, j), the layout of a C-ordered (N, nv, nv) array. On `threads` threads
/// of the shared workspace, as forwardDynamicsBatch.
void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M,
                     int threads = 0, const DynamicsOptions& options = {});
/// The same on the threads of a workspace built for `model`: allocates nothing.
void massMatrixBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                     Eigen::Ref<RowMatrixXd> M, const DynamicsOptions& options = {});

}  // namespace abdyn
