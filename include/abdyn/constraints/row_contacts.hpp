#pragma once
/// @file
/// Contacts between the model's collision geometry and a horizontal ground plane z = height.
/// Each shape offers fixed candidate points (sphere: its lowest point; box: its 8 corners; cylinder: per end
/// cap the lowest rim point and three more at 90 degree steps); a point within `margin` of the plane
/// (gap C = z - height < margin) becomes three rows at the point:
///   normal    J v = n . v(p), n = +z, impulse in [0, inf), target unilateralTarget(C) capped at
///             max_push_velocity, raised to
///             -restitution (n . v(p)) when the point approaches faster than restitution_threshold;
///   friction  J v = t . v(p) for t1, t2 perpendicular to n, target 0, |impulse| <= mu * normal impulse.
/// Mesh shapes are not handled (skipped).
///
/// Contacts between bodies test candidate points of one shape against the signed distance d and outward
/// normal n of the other (sphere, box, cylinder): a sphere by its centre (gap d - radius, contact point
/// on its surface), boxes and cylinders by their candidate points in both directions. Rows as above with
/// n . (v_A(p) - v_B(p)) for the point's body A and the surface's body B. Pairs on one body or on a parent
/// and its child (whose shapes overlap at the joint) are skipped. Box-box edge-edge contacts are missed.

#include <cstdint>

#include "abdyn/constraints/rows.hpp"

namespace abdyn {

/// Contact parameters of the ground plane and of body-body contacts.
struct GroundContactSettings {
  double height = 0.0;                 ///< the plane z = height, world coordinates
  double mu = 0.8;                     ///< Coulomb friction coefficient (box approximation of the cone)
  double margin = 0.01;                ///< speculative margin, m
  double erp = 0.2;                    ///< penetration recovery per step (ground and body contacts)
  double max_push_velocity = 1.0;      ///< cap on the ERP push-out speed (m/s), so deep penetration cannot launch bodies
  double restitution = 0.0;            ///< coefficient e
  double restitution_threshold = 0.5;  ///< approach speed (m/s) below which impacts are inelastic
};

/// Candidate points per geometry (row keys are key_base + 3 (8 geometry + point) + {0, 1, 2}).
constexpr int kContactPointsPerGeometry = 8;

/// Appends the rows of every collision point near the plane; returns the number of contact points.
/// Needs data.X_body_world and data.S_world (forwardKinematics, then jointJacobians; abdyn::InvalidArgument on a
/// stale S_world, rows.hpp); v is the velocity restitution is judged by.
int addGroundContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                         const GroundContactSettings& settings, double h, std::int64_t key_base);

/// A ground contact's point and how it moves with its body (see groundContactPoint).
struct GroundContactPoint {
  int body = 0;                      ///< the body the point belongs to
  Vector3 p_world = Vector3::Zero();  ///< the contact point, world coordinates
  Matrix3 slide = Matrix3::Zero();  ///< world coordinates; zero for a point fixed on the body
};
/// Where the ground contact with key offset `key_offset` (its rows' key minus key_base, any of the three) touches,
/// and how that point moves with its body, for the derivative of the rows along q (docs/derivatives.md, section 8).
/// A box corner is a point of the body; a sphere's lowest point and a cylinder's rim points are not: turning the
/// body at angular velocity w (world) moves the point at v_body(p) + slide w, not v_body(p). Needs
/// data.X_body_world at the configuration the rows were built at; throws abdyn::InvalidArgument on an offset
/// that names no candidate point of a collision shape.
GroundContactPoint groundContactPoint(const Model& model, const Data& data, std::int64_t key_offset);

/// Appends the rows of every pair of collision shapes on different, non-adjacent bodies that are within
/// `margin` (settings.height is unused); returns the number of contact points. Row keys start at key_base.
/// Needs data.X_body_world and data.S_world, like addGroundContactRows.
int addBodyContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                       const GroundContactSettings& settings, double h, std::int64_t key_base);

}  // namespace abdyn
