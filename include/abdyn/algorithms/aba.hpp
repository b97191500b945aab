#pragma once
/// @file
/// Forward dynamics by the articulated-body algorithm (Featherstone RBDA sec. 7.3), O(n):
/// qdd = M(q)^-1 (tau - C(q, v) v - g(q) [- damping v] + sum_i J_i^T f_ext_i).

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Joint accelerations under joint forces tau at (q, v), into data.qdd. Leaves each body's
/// acceleration plus the gravity offset in data.a_with_gravity (a_0 = -gravity).
const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& tau, const DynamicsOptions& options = {});
/// The same with external forces: f_ext[i] acts on body i, in body-i coordinates about body i's origin
/// (model.nbodies() entries; entry 0 is ignored).
const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& tau, const std::vector<Force>& f_ext,
                                       const DynamicsOptions& options = {});

}  // namespace abdyn
