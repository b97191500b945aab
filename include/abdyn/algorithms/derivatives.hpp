#pragma once
/// @file
/// Analytic first-order derivatives of inverse and forward dynamics (derivation: docs/derivatives.md).
///
/// Derivatives with respect to q are taken in the tangent space: column k of d y / d q is
/// d/d eps y(integrate(q, eps e_k, 1)) at eps = 0, the same perturbation integrate() makes, so for every joint
/// type (spherical and floating included) the k-th direction moves joint k's child frame by exp(S_k eps) in
/// child coordinates. Chain with configuration_derivatives.hpp to change coordinates.
///
/// The recursion is O(n d) in the spirit of Carpentier and Mansard, "Analytical Derivatives of Rigid Body
/// Dynamics Algorithms" (RSS 2018), re-derived here in world coordinates: one pass forward, one backward
/// accumulating subtree sums (inertia I, crf(v) I, momentum and force), then a few 6-vector dot products per
/// pair of coordinates on a common path. Allocation-free after Data is built.

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// d tau / d q and d tau / d v of inverseDynamics(q, v, qdd) into data.dtau_dq and data.dtau_dv (nv x nv);
/// also leaves tau in data.tau and d tau / d qdd = M (with armature if options.armature) in data.M.
void inverseDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& qdd, const DynamicsOptions& options = {});
/// The same with external forces as inverseDynamics takes them: f_ext[i] acts on body i, in body-i
/// coordinates about body i's origin (model.nbodies() entries; entry 0 is ignored). Being fixed in the body,
/// they turn with it when q moves.
void inverseDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& qdd, const std::vector<Force>& f_ext,
                                const DynamicsOptions& options = {});

/// d qdd / d q, d qdd / d v and d qdd / d tau of forwardDynamics(q, v, tau) into data.dqdd_dq,
/// data.dqdd_dv and data.dqdd_dtau: qdd = ABA(q, v, tau) (left in data.qdd), M^-1 from ABA's own factors
/// (an O(n^2) pass, also in data.Minv), and d qdd / d x = -M^-1 d tau / d x at that qdd. ABA runs in world
/// coordinates here, in the same three passes as M^-1 and the d tau terms (its qdd equals forwardDynamics'
/// to roundoff); ABA's factors data.X_up, data.aba.U and data.aba.Dinv are left at q as forwardDynamics leaves them
/// (RowResponse reads them), its other workspace (data.v, data.aba.IA, ...) is not written. data.dtau_dq,
/// data.dtau_dv and data.M are scratch: unspecified after this call.
void forwardDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const DynamicsOptions& options = {});
/// The same with external forces (body coordinates, as for forwardDynamics).
void forwardDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const std::vector<Force>& f_ext,
                                const DynamicsOptions& options = {});

}  // namespace abdyn
