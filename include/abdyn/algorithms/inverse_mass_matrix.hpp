#pragma once
/// @file
/// M(q)^-1 without forming or inverting M: ABA's factors at q, then one articulated-body recursion with a
/// right-hand side per velocity coordinate.

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// M(q)^-1 (both triangles) into data.Minv, by an articulated-body recursion with one right-hand
/// side per coordinate (O(n^2) flops, the size of the result), not by inverting M. Uses the
/// 6 x nv-per-body workspace data.minv.F (the largest part of Data on big models).
const Eigen::MatrixXd& inverseMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                         const DynamicsOptions& options = {});

}  // namespace abdyn
