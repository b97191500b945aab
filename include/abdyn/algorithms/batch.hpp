#pragma once
/// @file
/// Batched dynamics: the same algorithm on N independent states, spread over threads.
///
/// States are rows of row-major matrices (row k of Q is q_k), the layout of a C-ordered (N, nq) NumPy
/// array, so the Python module passes its arrays without copying. The N rows are split into `threads`
/// contiguous blocks of N / threads rows (the first N % threads blocks one row longer); each block runs
/// serially on its own thread with its own Data. Every state's result is computed by the same serial
/// code on a Data of its own model, and no algorithm's result depends on what an earlier call left in
/// Data, so the results are bit-identical to a serial loop whatever the thread count.
///
/// Sizes are checked (abdyn::InvalidArgument naming the argument); an exception thrown for one state
/// (checked mode: a non-finite input, for example) stops its block and is rethrown after all threads
/// have joined, prefixed with the state's row: the one with the lowest row among the blocks that failed.

#include <Eigen/Core>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn {

/// A dynamic matrix stored row-major: one state (or one rollout step) per row, as NumPy arrays are.
using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// threads <= 0: std::thread::hardware_concurrency(). Never more threads than states.
int batchThreads(int threads, Eigen::Index states);

/// QDD.row(k) = forwardDynamics(Q.row(k), V.row(k), TAU.row(k)) (ABA). Q: N x nq; V, TAU, QDD: N x nv.
void forwardDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd> QDD, int threads = 0,
                          const DynamicsOptions& options = {});

/// TAU.row(k) = inverseDynamics(Q.row(k), V.row(k), QDD.row(k)) (RNEA). Q: N x nq; V, QDD, TAU: N x nv.
void inverseDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd> TAU, int threads = 0,
                          const DynamicsOptions& options = {});

/// M_k = massMatrix(Q.row(k)) (CRBA, both triangles), stored row by row in M.row(k): N x (nv * nv),
/// M.row(k)[i * nv + j] = M_k(i, j), the layout of a C-ordered (N, nv, nv) array.
void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M,
                     int threads = 0, const DynamicsOptions& options = {});

}  // namespace abdyn
