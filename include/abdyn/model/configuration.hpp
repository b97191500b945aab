#pragma once
/// @file
/// The configuration space of a model: q has nq coordinates, velocities have nv (see joint.hpp for
/// each joint's layout). Quaternion joints make q a manifold, so q is moved by integrate (the
/// exponential map of each joint's group) and compared by difference (its logarithm), never by + and -.

#include <random>

#include <Eigen/Core>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// The neutral configuration: zero angles and offsets, identity quaternions, clamped into the
/// position limits of joints whose range excludes zero.
Eigen::VectorXd neutral(const Model& model);

/// q (+) v dt: moves each joint for time dt with constant joint velocity v (in its child frame), exactly
/// on each joint's group (SO(3) for spherical, SE(3) for floating, SE(2) for planar joints).
Eigen::VectorXd integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt);
/// Allocation-free form; q_out may alias q.
void integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt,
               Eigen::VectorXd& q_out);

/// The velocity v with integrate(q0, v, 1) == q1 (for rotations, the shortest one).
Eigen::VectorXd difference(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1);

/// Rate of the exponential coordinates theta (q = integrate(q0, theta, 1)) when the velocity at q is v:
/// dexp^-1_{-theta}(v) = v + 1/2 [theta, v] + 1/12 [theta, [theta, v]] + O(|theta|^4 |v|), per joint,
/// with [., .] the Lie bracket of the joint's group (the spatial cross product for floating joints,
/// the vector cross product for spherical ones, zero for one-DoF joints). Runge-Kutta-Munthe-Kaas
/// methods of order 4 need exactly these terms. out may not alias theta or v.
void exponentialCoordinateRate(const Model& model, const Eigen::VectorXd& theta, const Eigen::VectorXd& v,
                               Eigen::VectorXd& out);

/// A random configuration: uniform within position limits; unlimited angles in [-pi, pi], unlimited
/// offsets and floating and planar positions in [-1, 1], uniformly distributed orientations. With one
/// limit only, the interval runs from it over 2 pi (angles) or 2 (offsets) away from the limit, or up to
/// pi / 1 on the other side of zero if that is farther: [lo, max(s, lo + 2 s)], [min(-s, hi - 2 s), hi].
Eigen::VectorXd randomConfiguration(const Model& model, std::mt19937& rng);

/// Rescales every quaternion in q to unit length; throws abdyn::InvalidArgument on a zero quaternion.
void normalize(const Model& model, Eigen::VectorXd& q);

}  // namespace abdyn
