#pragma once
// q derivatives of the rows of joints of rows (row_joints.hpp) for the Simulator step's Jacobians
// (docs/derivatives.md, section 8): a row is the wrench f (world coordinates, [angular; linear] about the
// world origin) between bodies A and B, J = f^T (J_A - J_B), with target slope * C. Along tangent coordinate j
// the geometry moves by df_j and dC_j; the step needs d(J^T lambda)/dq and d(J v+ - target)/dq.

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn::internal {

/// One pair row's geometry and its q derivatives, for the coordinates on the paths of its two bodies.
struct PairRowDerivative {
  explicit PairRowDerivative(const Model& model);

  int body_a = 0, body_b = 0;
  Vector6 f = Vector6::Zero();     // the row's wrench, world coordinates: J = f^T (J_A - J_B)
  Matrix6X df;                     // 6 x nv: d f / dq_j (columns of `coordinates` only)
  Eigen::VectorXd dC;              // nv: d C / dq_j (entries of `coordinates` only)
  std::vector<int> coordinates;    // the coordinates on the path of A or of B (root to body)
  std::vector<unsigned char> path; // nv: bit 1 on A's path, bit 2 on B's path (zero outside `coordinates`)
};

/// Fills d with the geometry of the row `offset` (its key minus the joint's key base) of `joint`, from data's
/// X_body_world and S_world at the row's q (the rows' build). False when the joint has no such row there.
bool rowJointDerivative(const Model& model, const Data& data, const RowJoint& joint, int offset, PairRowDerivative& d);

/// Fills d with the geometry of the body-contact row with key offset `offset` (its key minus the body contacts'
/// key base, row_contacts.hpp) and sets C's slope factor: the row's gap C for a normal row (the contact's
/// point of shape A against the signed distance of shape B). Spheres, boxes and cylinders on either side;
/// false at degenerate geometry, where the row has no derivative (left to rebuilds): a cylinder's rim point
/// whose direction toward the other shape lies along its axis, a point on a cylinder's axis where its radial
/// direction is used or as near its side as its cap inside it, a point at a sphere's centre.
bool bodyContactDerivative(const Model& model, const Data& data, std::int64_t offset, PairRowDerivative& d);

/// Gq(:, j) += impulse d(J^T)/dq_j: the q derivative of the row's generalized impulse J^T lambda at fixed lambda.
void addImpulseDerivative(const Model& model, const Data& data, const PairRowDerivative& d, double impulse, Eigen::MatrixXd& Gq);

/// phi_q(j) = d(J v+ - target)/dq_j = d(J v+)/dq_j - slope dC_j for the coordinates on the paths (the others
/// left alone), at fixed v+; V holds the bodies' world velocities at v+ ([angular; linear] about the world
/// origin, V[0] = 0).
void velocityErrorDerivative(const Model& model, const Data& data, const PairRowDerivative& d, const std::vector<Vector6>& V,
                             double slope, Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> phi_q);

}  // namespace abdyn::internal
