#pragma once
// Many runs of an unconstrained integrator at once: N runs of `steps` steps from their own initial states
// under their own joint forces, spread over threads and, within a thread, W runs stepped together with
// their accelerations computed in the SIMD lanes of the batched ABA (algorithms/batch.hpp, W = batchLanes()).
// The configuration updates (q (+) h v, and the Runge-Kutta stages' exponential coordinates) run state by
// state. Unlike rollout (rollout.hpp), there is no Simulator and so no rows: no contacts, joint limits,
// friction, loop closures or mimic couplings, and damping is explicit unless options ask for the implicit
// step (DynamicsOptions::implicit_damping_step). Use rollout for those.
//
// Layouts: as rollout.hpp (row-major):
//   q0 (N, nq), v0 (N, nv); tau (N, T nv): the forces of step t of run n at tau(n, t nv .. t nv + nv - 1);
//   Q (N, (T+1) nq), V (N, (T+1) nv): the state after t steps at column t nq (t nv); t = 0 is (q0, v0).
//
// Results: each run is stepped by the same formulas as SemiImplicitEuler::step or RungeKutta4::step, and
// agrees with them to round-off (the accelerations are the batched ABA's, batch.hpp); a run's trajectory
// depends only on its own rows, bit for bit, whatever N, its lane and the thread count.
//
// Errors: abdyn::InvalidArgument names the argument (shapes, h not positive and finite, options; in checked
// mode non-finite entries and non-unit quaternions of q0); a singular joint-space inertia throws abdyn::Error.
// With several failing runs the lowest is reported, prefixed with its row ("abdyn::rolloutBatch: state n: ").

#include <Eigen/Core>

#include "abdyn/algorithms/batch.hpp"
#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn {

/// The integrators rolloutBatch offers.
enum class BatchIntegrator {
  SemiImplicitEuler,  ///< v1 = v + h qdd(q, v), q1 = q (+) h v1 (semi_implicit_euler.hpp)
  RungeKutta4,        ///< the classical four-stage method on the configuration manifold (runge_kutta4.hpp)
};

/// N = q0.rows() runs of `steps` steps of length h with the joint forces of tau (layouts above) on
/// min(N, threads) threads (threads <= 0: the hardware's); writes Q and V. Runs on the process's shared
/// kept workspace, as the batched calls that take a thread count (batch.hpp).
void rolloutBatch(const Model& model, BatchIntegrator integrator, const Eigen::Ref<const RowMatrixXd>& q0,
                  const Eigen::Ref<const RowMatrixXd>& v0, const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h,
                  Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V, int threads = 0,
                  const DynamicsOptions& options = {});

/// The same on the threads of a workspace built for `model` (batch.hpp): the first rollout on a workspace
/// builds each thread's lanes (a state and Runge-Kutta stages per lane); later ones allocate nothing.
/// One call at a time per workspace.
void rolloutBatch(const Model& model, BatchWorkspace& workspace, BatchIntegrator integrator,
                  const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
                  const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h, Eigen::Ref<RowMatrixXd> Q,
                  Eigen::Ref<RowMatrixXd> V, const DynamicsOptions& options = {});

}  // namespace abdyn
