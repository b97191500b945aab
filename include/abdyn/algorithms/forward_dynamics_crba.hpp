#pragma once
/// @file
/// Forward dynamics through the mass matrix: RNEA for the bias forces, CRBA for M, then the sparse
/// L^T D L solve. An independent second path to ABA's result; cheaper than ABA on bushy trees.

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/algorithms/inverse_mass_matrix.hpp"  // M^-1, the other mass-matrix call
#include "abdyn/model/data.hpp"

namespace abdyn {

/// qdd = M^-1 (tau - h), into data.qdd; also leaves M in data.M and its factor in data.factor_L, data.factor_D.
const Eigen::VectorXd& forwardDynamicsCrba(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                           const DynamicsOptions& options = {});
/// The same with external forces (body coordinates, as for forwardDynamics).
const Eigen::VectorXd& forwardDynamicsCrba(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                           const std::vector<Force>& f_ext, const DynamicsOptions& options = {});

}  // namespace abdyn
