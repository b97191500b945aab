#pragma once
/// @file
/// Forward dynamics through the mass matrix: RNEA for the bias forces, CRBA for M, then the sparse
/// L^T D L solve. An independent second path to ABA's result; cheaper than ABA on bushy trees.

#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
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

/// M(q)^-1 (both triangles) into data.Minv, by an articulated-body recursion with one right-hand
/// side per coordinate (O(n^2) flops, the size of the result), not by inverting M. Uses the
/// 6 x nv-per-body workspace data.Minv_F (the largest part of Data on big models).
const Eigen::MatrixXd& inverseMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                         const DynamicsOptions& options = {});

}  // namespace abdyn
