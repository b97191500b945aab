#pragma once
/// @file
/// Jacobians of integrate and difference (configuration.hpp) in the tangent space, for chaining derivatives
/// taken in tangent coordinates (algorithms/derivatives.hpp) through the configuration manifold.
///
/// Every joint moves its child frame on its own group G (R for one-DoF joints, SO(3) spherical, SE(2) planar,
/// SE(3) floating) by right multiplication, q (+) xi = q exp(xi), with xi in the joint's velocity coordinates.
/// A perturbation of q is a tangent vector d with q -> q exp(d), the same on both sides of every map below.
/// With ad the joint's Lie bracket [xi, .] as a matrix (0 for one-DoF joints, skew(w) for spherical ones,
/// crm(xi) for floating ones), Jr(xi) = sum_n (-ad)^n / (n+1)! the right Jacobian and Jl(xi) = Jr(-xi):
///   q1 = integrate(q, v, dt), xi = v dt:   d q1 / d q = exp(-ad_xi) = Ad(exp(xi))^-1,   d q1 / d v = Jr(xi) dt
///   xi = difference(q0, q1):               d xi / d q0 = -Jl(xi)^-1,                    d xi / d q1 = Jr(xi)^-1
/// (docs/derivatives.md derives them). Each result is nv x nv and block diagonal, one block per joint.

#include <Eigen/Core>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// d integrate(q, v, dt) / d q and / d v into d_dq and d_dv (resized to nv x nv if they are not).
void integrateJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt,
                        Eigen::MatrixXd& d_dq, Eigen::MatrixXd& d_dv);

/// d difference(q0, q1) / d q0 and / d q1 into d_dq0 and d_dq1 (resized to nv x nv if they are not).
void differenceJacobians(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                         Eigen::MatrixXd& d_dq0, Eigen::MatrixXd& d_dq1);

}  // namespace abdyn

namespace abdyn {

/// Jacobians of exponentialCoordinateRate(theta, v) = v + 1/2 [theta, v] + 1/12 [theta, [theta, v]] (per joint)
/// with respect to theta and v, into d_dtheta and d_dv (resized to nv x nv if they are not):
///   d / d v = 1 + 1/2 ad_theta + 1/12 ad_theta^2,   d / d theta = -1/2 ad_v - 1/12 (ad_[theta, v] + ad_theta ad_v).
void exponentialCoordinateRateJacobians(const Model& model, const Eigen::VectorXd& theta, const Eigen::VectorXd& v,
                                        Eigen::MatrixXd& d_dtheta, Eigen::MatrixXd& d_dv);

}  // namespace abdyn
