#pragma once
/// @file
/// Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone RBDA sec. 5.3):
/// tau = M(q) qdd + C(q, v) v + g(q) [+ damping v] - sum_i J_i^T f_ext_i.

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// The joint forces that produce accelerations qdd at (q, v) under gravity, into data.tau.
const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& qdd, const DynamicsOptions& options = {});
/// The same with external forces: f_ext[i] acts on body i, in body-i coordinates about body i's origin
/// (f_ext has model.nbodies() entries; entry 0, the world, is ignored).
const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& qdd, const std::vector<Force>& f_ext,
                                       const DynamicsOptions& options = {});

/// C(q, v) v + g(q) (plus damping v if options.damping): inverse dynamics at qdd = 0, into data.tau.
const Eigen::VectorXd& nonlinearEffects(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const DynamicsOptions& options = {});
/// g(q): the joint forces that hold the model still against gravity, into data.tau.
const Eigen::VectorXd& gravityTorques(const Model& model, Data& data, const Eigen::VectorXd& q);

}  // namespace abdyn
