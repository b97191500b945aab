#pragma once
/// @file
/// State-dependent joint forces for the integrators: springs, controllers, anything the step must
/// re-evaluate at each stage rather than hold constant over it.

#include <functional>

#include <Eigen/Core>

namespace abdyn {

/// Writes the joint forces tau (nv entries, already sized) at configuration q and velocity v.
using JointForceFunction = std::function<void(const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau)>;

}  // namespace abdyn
