#pragma once
/// @file
/// Data: the per-call workspace of the algorithms for one Model. `Data data(model)` allocates
/// everything once; after that no algorithm allocates. One Model may be shared read-only by many
/// threads, each with its own Data. Every algorithm rejects a Data built for another model (model_key).
///
/// Memory: the recursive algorithms (kinematics, RNEA, ABA) need O(n) workspace. The mass-matrix
/// workspace (M, M^-1 and its 6 x nv per-body scratch, and the L^T D L factor with its pattern, O(nv^2)
/// and O(nv * depth)) and the derivatives' (their nv x nv results and `deriv`) are allocated here too when
/// nv <= kEagerMassMatrixDofs; for bigger models the first call that needs them (massMatrix,
/// factorizeMassMatrix, forwardDynamicsCrba, inverseMassMatrix, the derivatives) allocates them, so that
/// a 10^6-body chain runs ABA in O(n) memory (about 1.4 KB per body).
///
/// Conventions: spatial vectors are angular first; per-body quantities are in body coordinates unless
/// the name says otherwise (a trailing _world: world coordinates, about the world origin).

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "abdyn/model/model.hpp"
#include "abdyn/spatial/articulated_body_inertia.hpp"
#include "abdyn/spatial/plx.hpp"

namespace abdyn {

/// 6 x n matrix of doubles: n spatial vectors as columns, angular first.
using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;
/// 3 x n matrix of doubles.
using Matrix3X = Eigen::Matrix<double, 3, Eigen::Dynamic>;

/// The per-call workspace and results of the algorithms for one Model (see the file comment):
/// `Data data(model)` allocates everything once; each field says which call fills it, its shape and frame.
class Data {
 public:
  /// Workspace for `model`, allocated once (the mass-matrix part lazily on big models).
  explicit Data(const Model& model);

  /// Models with at most this many velocity coordinates get the mass-matrix workspace at construction.
  static constexpr int kEagerMassMatrixDofs = 1024;

  std::uint64_t model_key;   ///< Model::structureKey() of the model this Data was built for

  // Kinematics (forwardKinematics; every recursive algorithm fills X_up and v). Per body, index 0 the world.
  std::vector<Plx> X_up;          ///< X_i_lambda(i): parent-body coordinates to body-i coordinates
  std::vector<Plx> X_body_world;  ///< X_i_0: world coordinates to body-i coordinates (pose: .toPose())
  std::uint64_t X_body_world_stamp = 0;  ///< how many passes have written X_body_world (see S_world)
  std::vector<Motion> v;          ///< body velocities, body coordinates
  std::vector<Motion> a;          ///< forwardKinematics: body accelerations, body coordinates, gravity left out
                                  ///< (a[0] = 0): what frameAcceleration reads
  std::vector<Motion> a_with_gravity;  ///< inverseDynamics and forwardDynamics: body acceleration plus the
                                       ///< fictitious base acceleration, a_with_gravity[0] = -gravity
                                       ///< (Featherstone), body coordinates

  // Results, each written by the call named.
  Eigen::VectorXd tau;     ///< nv: inverseDynamics
  std::vector<Force> f;    ///< per body (inverseDynamics): joint force transmitted from parent to body, body coordinates
  Eigen::VectorXd qdd;     ///< nv: forwardDynamics
  Eigen::MatrixXd M;       ///< nv x nv: massMatrix (both triangles); entries off the ancestor pattern are zero
                           ///< from construction: keep them so
  // L^T D L factor of M (factorizeMassMatrix): row k of the unit lower-triangular L holds nonzeros only at k's
  // strict ancestors, packed in ascending order from Model::ancestorOffset(k), so that the ancestors of every
  // entry precede it contiguously and the factorisation's updates are contiguous.
  std::vector<int> factor_ancestors;  ///< Model::ancestorPairs() entries: the ancestors, row by row
  Eigen::VectorXd factor_L;           ///< Model::ancestorPairs() entries: L at those ancestors
  Eigen::VectorXd factor_D;           ///< nv: the diagonal D
  Eigen::MatrixXd Minv;               ///< nv x nv: inverseMassMatrix (both triangles)
  Matrix6X J;       ///< 6 x nv (frameJacobian, frameJacobianTimeVariation): angular first, in the frame asked for
  Matrix6X dJ;      ///< 6 x nv: time derivative of J
  Matrix3X J_com;   ///< 3 x nv (centerOfMassJacobian): world coordinates
  // jointJacobians: column k is velocity coordinate k's motion-subspace column S_k in world coordinates about
  // the world origin, X_body_world[i]^-1 S_k for the joint i owning k (the world Jacobian of every body at
  // once: body b's world spatial velocity is the sum of S_world.col(k) v[k] over the coordinates on b's path).
  // It matches X_body_world only while S_world_stamp == X_body_world_stamp; the row builders (rows.hpp) check that.
  Matrix6X S_world;  ///< 6 x nv
  std::uint64_t S_world_stamp = ~std::uint64_t(0);  ///< X_body_world_stamp when S_world was filled (never: all ones)
  std::vector<double> subtree_mass;     ///< per body (centerOfMassJacobian): mass of its subtree
  std::vector<Vector3> subtree_moment;  ///< per body (centerOfMassJacobian): first moment of its subtree, world coordinates
  // Derivatives of the dynamics (algorithms/derivatives.hpp). Columns for q are tangent directions: column k
  // is d/d eps at eps = 0 along integrate(q, eps e_k), i.e. each joint's child frame moved by exp(S_k eps).
  // d tau / d qdd is M: inverseDynamicsDerivatives leaves it in M (with armature per the options).
  Eigen::MatrixXd dtau_dq;    ///< nv x nv (inverseDynamicsDerivatives)
  Eigen::MatrixXd dtau_dv;    ///< nv x nv
  Eigen::MatrixXd dqdd_dq;    ///< nv x nv (forwardDynamicsDerivatives)
  Eigen::MatrixXd dqdd_dv;    ///< nv x nv
  Eigen::MatrixXd dqdd_dtau;  ///< nv x nv: M^-1

  /// ABA's workspace (forwardDynamics; its U, Dinv and X_up serve RowResponse::applyInverseMass and
  /// inverseMassMatrix). Per body in body coordinates; per velocity coordinate in v's order. Symbols as in
  /// Featherstone's articulated-body algorithm (aba.cpp's glossary).
  struct ArticulatedBodyWorkspace {
    std::vector<Motion> c;                   ///< per body: velocity-product acceleration v x (S qd)
    std::vector<ArticulatedBodyInertia> IA;  ///< per body: articulated-body inertia of its subtree
    std::vector<Force> pA;                   ///< per body: articulated-body bias force of its subtree
    Matrix6X U;                              ///< 6 x nv: column k is IA S_k of coordinate k's body
    Eigen::MatrixXd Dinv;                    ///< nv x 6: joint i's D^-1 = (S^T IA S + armature + h damping)^-1 in
                                             ///< rows idx_v..idx_v+nv_i-1, columns 0..nv_i-1 (one entry for one DoF)
    Eigen::VectorXd u;                       ///< nv: tau - S^T pA (- damping v)
  } aba;  ///< ABA's workspace

  /// CRBA's workspace (massMatrix). CRBA works per subtree hanging from the world, in the coordinates of that
  /// subtree's root body r.
  struct CompositeWorkspace {
    std::vector<Plx> X_subtree;                  ///< per body: X_i_r, r's coordinates to body-i coordinates
    std::vector<RigidBodyInertia> I_composite;   ///< per body: composite-rigid-body inertia, r's coordinates
    Matrix6X S_subtree;                          ///< 6 x nv: each joint axis in r's coordinates
  } crba;  ///< CRBA's workspace

  /// The inverse mass matrix's workspace (inverseMassMatrix and forwardDynamicsDerivatives: ABA with nv
  /// right-hand sides from ABA's U and Dinv, with X_body_world and S_world).
  struct InverseMassWorkspace {
    std::vector<Matrix6X> F;  ///< per body, 6 x nv storage read as nv x 6 rows, world coordinates: the bias force
                              ///< per right-hand side, then the acceleration; F[0] is the pass's per-joint scratch
    Matrix6X U_world;         ///< 6 x nv (inverseMassMatrix): ABA's U in world coordinates
  } minv;  ///< the inverse mass matrix's workspace

  /// The derivative recursion's workspace (sized with the derivative matrices above); every spatial quantity
  /// here is in world coordinates about the world origin, angular first (docs/derivatives.md names each one).
  struct DerivativeWorkspace {
    Matrix6X S_world;                    ///< 6 x nv: motion-subspace columns
    ///@{
    std::vector<Motion> v_world, a_world;  ///< per body: velocity; acceleration with a_0 = -gravity
    ///@}
    ///@{
    std::vector<Force> F, H;      ///< per body: subtree sums of the net forces f and of the momenta I v
    ///@}
    ///@{
    std::vector<Matrix6> Ic, B;   ///< per body: subtree sums of the inertias I and of crf(v) I
    ///@}
    std::vector<Matrix6> IA_world;  ///< per body (forwardDynamicsDerivatives): ABA's articulated-body inertia,
    std::vector<Force> pA_world;    ///<   bias force, velocity-product acceleration c = v x S qd and
    std::vector<Motion> c_world;    ///<   U = IA S (6 x nv), in world coordinates
    Matrix6X U_world;               ///<   (ABA's body-coordinate U is left in Data::aba)
    ///@{
    Matrix6X P, Q;                ///< 6 x nv storage read as nv x 6 rows (derivatives.cpp): row k is Ic S_k and
                                  ///< (B + B^T) S_k - S_k x* H of coordinate k's body
    ///@}
    Matrix6X S_rows;              ///< 6 x nv storage read as nv x 6 rows: S_world's rows
    ///@{
    Matrix6X alpha, u, w;         ///< 6 x nv: per coordinate k, the motions that its q- and v-columns excite
    ///@}
    ///@{
    Matrix6X Gq, Gv;              ///< 6 x nv: per coordinate k, d F / d q_k and d F / d v_k of its own body
    ///@}
    ///@{
    Matrix6X CP, CQ, E;           ///< 6 x nv storage read as nv x 6 (chains only): the running sums of M^-1 P^T,
                                  ///< M^-1 Q^T and M^-1 S^T (derivatives.cpp)
    ///@}
  } deriv;  ///< the derivatives' workspace (forwardDynamicsDerivatives, inverseDynamicsDerivatives)

  Eigen::VectorXd zero_qdd;  ///< nv zeros: the acceleration frameJacobianTimeVariationTimesV gives forwardKinematics
};

}  // namespace abdyn
