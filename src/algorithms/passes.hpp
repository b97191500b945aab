#pragma once
// The algorithms layer's unchecked passes: later passes for callers that already hold the joint transforms
// data.X_up at q (from RNEA, say), so that one kinematics pass serves several algorithms. They check no
// arguments: a public function checks its arguments once, at its door, and then calls them. Each group
// names the file (src/algorithms/) that defines it.

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn::internal {

// kinematics.cpp

/// forwardKinematics (kinematics.hpp) without its argument checks: data.X_up and data.X_body_world at q, with
/// v data.v, and with qdd data.a (without gravity).
void forwardKinematicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q);
void forwardKinematicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
void forwardKinematicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& qdd);

/// data.X_body_world from data.X_up (forwardKinematics' positions without recomputing the joint transforms).
void worldTransformsAtTransforms(const Model& model, Data& data);

// rnea.cpp

/// nonlinearEffects (rnea.hpp) without its argument checks: h in data.tau, and data.X_up, data.v and
/// data.a_with_gravity (a[0] = -gravity) at (q, v) for the passes that follow. With f_ext (one force per
/// body, body coordinates), h - J^T f_ext: inverseDynamics at qdd = 0.
const Eigen::VectorXd& nonlinearEffectsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                 const Eigen::VectorXd& v, const DynamicsOptions& options,
                                                 const std::vector<Force>* f_ext = nullptr);

// aba.cpp

/// forwardDynamics (aba.hpp) without its argument checks: qdd in data.qdd, and data.X_up, data.aba.IA, data.aba.pA
/// at (q, v) for the row responses that follow. A singular joint's error names `caller`.
const Eigen::VectorXd& forwardDynamicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                const DynamicsOptions& options, const char* caller);

// crba.cpp

/// massMatrix (crba.hpp) with data.X_up already at q.
const Eigen::MatrixXd& massMatrixAtTransforms(const Model& model, Data& data, const DynamicsOptions& options);

/// factorizeMassMatrix and the products and solves with L (crba.hpp) without their argument checks, for
/// the solvers that call them on their own, already checked, Data.
void factorizeAtMassMatrix(const Model& model, Data& data);
/// The same factorisation without the throw: returns the first coordinate k (from the leaves) whose pivot
/// D_k is not positive or at most relative_pivot * M(k, k), the factor then left incomplete, or -1 when
/// every pivot passes (the loaders' singularity check, io/mass_matrix_diagnosis.hpp).
int factorizeAtMassMatrix(const Model& model, Data& data, double relative_pivot);
void multiplyByL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
void multiplyByLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
void solveL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
void solveLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
/// The most vectors solveLTransposedSpan solves at once.
constexpr int kMaxSpanSolves = 3;
/// solveLTransposed for `count` (1 to kMaxSpanSolves) vectors x[i] (nv entries each) that are zero outside
/// [first, end) (rows of a constraint Jacobian on the same bodies): visits only the coordinates from the
/// lowest one reached to end, each x[i] bit for bit solveLTransposed's result, and returns that lowest
/// coordinate (every x[i] is zero below it and from end on). The vectors' solves are independent chains of
/// dependent updates, interleaved so that the processor overlaps them.
int solveLTransposedSpan(const Model& model, const Data& data, double* const* x, int count, int first, int end);

/// x = M^-1 x with the factor of factorizeMassMatrix, without solveMassMatrix's argument checks: inside
/// an algorithm a non-finite x is a diverging state for the caller to report, not a bad argument.
void solveWithFactor(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);

// forward_dynamics_crba.cpp

/// forwardDynamicsCrba (forward_dynamics_crba.hpp) without its argument checks: qdd in data.qdd from
/// M(q) qdd = tau - h(q, v) (+ J^T f_ext with f_ext), and the factor of M in data.factor_L, data.factor_D.
const Eigen::VectorXd& forwardDynamicsCrbaUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                    const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                    const std::vector<Force>* f_ext, const DynamicsOptions& options);

// center_of_mass.cpp

/// mechanicalEnergy (center_of_mass.hpp) without its argument checks.
double mechanicalEnergyUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// Here, inline: used by jacobian.cpp, center_of_mass.cpp and the constraints layer.

/// Velocity coordinate k's motion-subspace column in world coordinates about the world origin:
/// X_body_world[i]^-1 S_k for the body i that k moves (needs data.X_body_world).
inline Motion worldMotionColumn(const Model& model, const Data& data, int k) {
  return data.X_body_world[model.dofBody(k)].applyInverse(Motion(model.motionSubspace().col(k)));
}

}  // namespace abdyn::internal
