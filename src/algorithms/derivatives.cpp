#include "abdyn/algorithms/derivatives.hpp"

#include <algorithm>

#include "algorithms/articulated_step.hpp"
#include "algorithms/inverse_mass_steps.hpp"
#include "algorithms/joint_ops.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"
#include "model/passes.hpp"

namespace abdyn {
namespace {

// Derivation (docs/derivatives.md has it in full). Everything is in world coordinates about the world
// origin. Coordinate k moves body b = b(k), with parent p = lambda(b), along the world column S_k. Per body
//   v_i = v_p + S_i qd_i,   a_i = a_p + S_i qdd_i + v_i x S_i qd_i   (a_0 = -gravity),
//   f_i = I_i a_i + v_i x* I_i v_i - f_ext_i,   F_i = sum of f over subtree(i),   tau_j = S_j . F_c(j).
// Moving q_k by eps carries subtree(b) rigidly by the world twist S_k eps, which turns every S, I, f_ext,
// v, a there by S_k x (.), and on top of that changes each v_l, a_l in subtree(b) by
//   u_k = v_p x S_k                                        (the same for every l)
//   alpha_k + u_k x v_l,  alpha_k = a_p x S_k - u_k x v_p.
// Summed over subtree(c) for any c in subtree(b), with Ic_c = sum I, B_c = sum crf(v) I, H_c = sum I v:
//   dF_c / dq_k = S_k x* F_c + Ic_c alpha_k + (B_c + B_c^T) u_k + u_k x* H_c.
// Moving qd_k changes v_l by S_k and a_l by w_k + S_k x v_l, w_k = (v_b + v_p) x S_k, so
//   dF_c / dqd_k = Ic_c w_k + (B_c + B_c^T) S_k + S_k x* H_c.
// Then for tau_j = S_j . F_c, c = b(j):
//   b(k) on the path from the root to c (k's joint at or above j's): S_j turns too, and its term
//     (S_k x S_j) . F_c cancels S_k x* F_c, leaving
//     dtau_j / dq_k = P_j . alpha_k + Q_j . u_k,   dtau_j / dqd_k = P_j . w_k + Q_j . S_k,
//     with P_j = Ic_c S_j and Q_j = (B_c + B_c^T) S_j - S_j x* H_c (using S . (m x* H) = -m . (S x* H));
//   c strictly above b(k): dtau_j / dq_k = S_j . Gq_k, dtau_j / dqd_k = S_j . Gv_k, with Gq_k, Gv_k the
//     two subtree derivatives above at c = b(k);
//   otherwise zero.

// crf(v) M: the dual cross product applied to each column of a motion-to-force matrix.
ABDYN_ALWAYS_INLINE Matrix6 crfTimes(const Motion& v, const Matrix6& M) {
  Matrix6 out;
  for (int c = 0; c < 6; ++c) out.col(c) = v.crossDual(Force(Vector6(M.col(c)))).vector();
  return out;
}

// An nv x 6 view of a 6 x nv workspace matrix: row k for coordinate k. The pairs pass dots runs of rows of
// S, P and Q with one 6-vector each, so P and Q are stored this way in Data::deriv, and S's rows are copied
// into Data::deriv.S_rows: a run of rows is then six contiguous pieces, and the loop over it vectorises.
// Data::deriv.S_world keeps S's columns (the constrained derivatives read them).
using RowsX6 = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, 6>>;
using ConstRowsX6 = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 6>>;
ABDYN_ALWAYS_INLINE RowsX6 rowsOf(Matrix6X& m) { return RowsX6(m.data(), m.cols(), 6); }
ABDYN_ALWAYS_INLINE ConstRowsX6 rowsOf(const Matrix6X& m) { return ConstRowsX6(m.data(), m.cols(), 6); }

// Body i's share of the forward pass, in world coordinates at data.X_body_world[i]: its coordinates' columns
// S_k, its velocity v_i = v_p + vJ, momentum H_i = I_i v_i, Ic_i = I_i as a matrix and B_i = crf(v_i) I_i.
struct BodyMotion {
  Motion vJ;           // S qd
  RigidBodyInertia I;  // I_i in world coordinates
};

ABDYN_ALWAYS_INLINE BodyMotion bodyTerms(const Model& model, Data& data, int i, const Eigen::VectorXd& v) {
  Data::DerivativeWorkspace& w = data.deriv;
  const Joint& j = model.joint(i);
  const Plx& X = data.X_body_world[i];  // world to body i
  Motion vJ;
  for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
    const Motion Sk = X.applyInverse(Motion(Vector6(model.motionSubspace().col(k))));
    w.S_world.col(k) = Sk.vector();
    vJ += Sk * v[k];
  }
  w.v_world[i] = w.v_world[model.parent(i)] + vJ;
  const RigidBodyInertia I = X.applyInverse(model.inertia(i));
  w.H[i] = I * w.v_world[i];
  w.Ic[i] = I.matrix();
  w.B[i] = crfTimes(w.v_world[i], w.Ic[i]);
  return {vJ, I};
}

// Body b's coordinates' vectors, of which every entry of d tau / d q and d tau / d v is a dot product:
// w.S_world, w.u, w.alpha, w.w, w.P, w.Q (as rows), w.Gq, w.Gv. Needs b's subtree sums Ic, B, H, F and the
// motions of b and its parent. B + B^T once per body; (B + B^T) S_k and S_k x* H serve both Q_k and Gv_k.
// Gq_k and Gv_k enter only the rows of k's strict ancestors: a joint on the world (the floating base's six
// coordinates) has none, and its are left alone (zero since Data was built).
ABDYN_ALWAYS_INLINE void coordinateTermsOfBody(const Model& model, Data& data, int b) {
  Data::DerivativeWorkspace& w = data.deriv;
  RowsX6 P_rows = rowsOf(w.P), Q_rows = rowsOf(w.Q);
  const Joint& j = model.joint(b);
  const int p = model.parent(b);
  const Matrix6 Bsym = w.B[b] + w.B[b].transpose();
  for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
    const Motion Sk(Vector6(w.S_world.col(k)));
    const Motion u = w.v_world[p].cross(Sk);
    const Motion alpha = w.a_world[p].cross(Sk) - u.cross(w.v_world[p]);
    const Motion wk = (w.v_world[b] + w.v_world[p]).cross(Sk);
    const Vector6 BS = Bsym * Sk.vector();
    const Vector6 SxH = Sk.crossDual(w.H[b]).vector();
    w.u.col(k) = u.vector();
    w.alpha.col(k) = alpha.vector();
    w.w.col(k) = wk.vector();
    P_rows.row(k).noalias() = (w.Ic[b] * Sk.vector()).transpose();
    Q_rows.row(k) = (BS - SxH).transpose();
    if (p == 0) continue;
    w.Gq.col(k) = Sk.crossDual(w.F[b]).vector() + w.Ic[b] * alpha.vector() + Bsym * u.vector() +
                  u.crossDual(w.H[b]).vector();
    w.Gv.col(k) = w.Ic[b] * wk.vector() + BS + SxH;
  }
}

// The recursion's two passes for inverseDynamicsDerivatives at the transforms data.X_body_world, then the
// coordinates' vectors; tau (RNEA's, before armature and damping) into data.tau.
ABDYN_FLATTEN void coordinateTerms(const Model& model, Data& data, const Eigen::VectorXd& v, const Eigen::VectorXd& qdd,
                                   const std::vector<Force>* f_ext) {
  Data::DerivativeWorkspace& w = data.deriv;
  w.v_world[0] = Motion::Zero();
  w.a_world[0] = -model.gravity();
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const BodyMotion body = bodyTerms(model, data, i, v);
    Motion aJ;
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) aJ += Motion(Vector6(w.S_world.col(k))) * qdd[k];
    w.a_world[i] = w.a_world[model.parent(i)] + aJ + w.v_world[i].cross(body.vJ);  // d/dt S = v_i x S in world coordinates
    w.F[i] = body.I * w.a_world[i] + w.v_world[i].crossDual(w.H[i]);
    if (f_ext) w.F[i] -= data.X_body_world[i].applyInverse((*f_ext)[i]);
  }
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    const int p = model.parent(i);
    if (p > 0) {
      w.F[p] += w.F[i];
      w.H[p] += w.H[i];
      w.Ic[p] += w.Ic[i];
      w.B[p] += w.B[i];
    }
  }
  for (int b = 1; b < model.nbodies(); ++b) {
    coordinateTermsOfBody(model, data, b);
    const Joint& j = model.joint(b);
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) data.tau[k] = w.S_world.col(k).dot(w.F[b].vector());
  }
}

// forwardDynamics, M^-1 and the coordinates' vectors at qdd = ABA(q, v, tau) in three passes, all in world
// coordinates about the world origin (as Pinocchio's ABA derivatives, Carpentier and Mansard 2018): there the
// articulated inertias, bias forces and subtree sums pass from child to parent, and the accelerations from
// parent to child, without a transform, and the forward pass's world quantities serve ABA and the
// derivatives at once. ABA's symbols as in aba.cpp; U = IA S in data.deriv.U_world, D^-1 in data.aba.Dinv, u in
// data.aba.u, qdd in data.qdd. ABA's factors are left as forwardDynamics leaves them (data.X_up, data.aba.Dinv and
// data.aba.U in body coordinates), which RowResponse reads. The subtree's net force is ABA's F_i = IA_i a_i +
// pA_i (the force its parent exerts through joint i), so no backward sum of forces is needed after the
// accelerations.
ABDYN_FLATTEN void articulatedCoordinateTerms(const Model& model, Data& data, const Eigen::VectorXd& q,
                                              const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                              const std::vector<Force>* f_ext, const DynamicsOptions& options,
                                              const char* caller) {
  Data::DerivativeWorkspace& w = data.deriv;
  const int n = model.nbodies();
  Matrix6X& U_world = w.U_world;

  // Pass 1, root to leaves: transforms, motions, inertias, IA_i = I_i, pA_i = v_i x* I_i v_i - f_ext_i.
  w.v_world[0] = Motion::Zero();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    data.X_body_world[i] = p > 0 ? data.X_up[i] * data.X_body_world[p] : data.X_up[i];
    const BodyMotion body = bodyTerms(model, data, i, v);
    w.c_world[i] = w.v_world[i].cross(body.vJ);
    w.IA_world[i] = w.Ic[i];
    w.pA_world[i] = w.v_world[i].crossDual(w.H[i]);
    if (f_ext) w.pA_world[i] -= data.X_body_world[i].applyInverse((*f_ext)[i]);
    internal::clearInverseMassForces(model, data, i);
  }
  ++data.X_body_world_stamp;
  data.Minv.setZero();

  // Pass 2, leaves to root: ABA's factors and M^-1's rows so far; the subtree sums Ic, B, H.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      constexpr int N = decltype(dofs)::value;
      using Step = internal::ArticulatedStep<N>;
      Step::factor(model, j, w.IA_world[i], w.S_world, U_world, options, data, caller);  // U = IA S, D = S^T U, D^-1
      const Step step(w.S_world, U_world, data, j);
      auto u = Step::rows(data.aba.u, j);
      step.bias(Step::rows(tau, j), w.pA_world[i].vector(), u);  // u = tau - S^T pA
      if (options.damping) u -= Step::rows(model.damping(), j).cwiseProduct(Step::rows(v, j));
      if (options.armature) internal::addFloatingArmatureProduct(model, j, v, -1.0, u.data());
      auto qdd = Step::rows(data.qdd, j);
      step.solve(u, qdd);  // qdd = D^-1 u, for now
      internal::inverseMassBackwardStep<N>(model, data, i, w.S_world, U_world);
      if (p == 0) return;
      const ArticulatedBodyInertia Ia = step.projectedInertia(w.IA_world[i]);  // Ia = IA - U D^-1 U^T
      Vector6 pa = w.pA_world[i].vector() + Ia.matrix() * w.c_world[i].vector();
      step.addResponse(qdd, pa);  // pa = pA + Ia c + U D^-1 u
      w.IA_world[p] += Ia.matrix();
      w.pA_world[p] += Force(pa);
      w.Ic[p] += w.Ic[i];
      w.B[p] += w.B[i];
      w.H[p] += w.H[i];
    });
  }

  // Pass 3, root to leaves: accelerations, M^-1's rows corrected, F_i, the coordinates' vectors.
  w.a_world[0] = -model.gravity();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      constexpr int N = decltype(dofs)::value;
      using Step = internal::ArticulatedStep<N>;
      const Step step(w.S_world, U_world, data, j);
      Vector6 a = (w.a_world[model.parent(i)] + w.c_world[i]).vector();  // a' = a_p + c
      auto qdd = Step::rows(data.qdd, j);
      typename Step::Rows Uta(j.nv, 1);
      step.correct(a, Uta, qdd);  // qdd = D^-1 (u - U^T a')
      step.addMotion(qdd, a);     // a_i = a' + S qdd
      w.a_world[i] = Motion(a);
      internal::inverseMassForwardStep<N>(model, data, i, w.S_world, U_world);
    });
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {  // U in body coordinates, where forwardDynamics leaves it
      data.aba.U.col(k) = data.X_body_world[i].apply(Force(Vector6(U_world.col(k)))).vector();
    }
    w.F[i] = Force(Vector6(w.IA_world[i] * w.a_world[i].vector())) + w.pA_world[i];
    coordinateTermsOfBody(model, data, i);
  }
  internal::symmetrizeInverseMass(data);
}

// out[r] = A_(first + r) . x for count rows of an nv x 6 matrix A (x: 6 doubles), and the same plus
// B_(first + r) . y: one pass down the six (twelve) columns, which vectorises along the rows (out is a
// column of another matrix: no aliasing).
ABDYN_ALWAYS_INLINE void setRowDots(double* __restrict out, const ConstRowsX6& A, const double* x, int first, int count) {
  const Eigen::Index nv = A.rows();
  const double* __restrict a = A.data() + first;
  const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5];
  for (int r = 0; r < count; ++r) {
    out[r] = a[r] * x0 + a[r + nv] * x1 + a[r + 2 * nv] * x2 + a[r + 3 * nv] * x3 + a[r + 4 * nv] * x4 + a[r + 5 * nv] * x5;
  }
}

ABDYN_ALWAYS_INLINE void setRowDots(double* __restrict out, const ConstRowsX6& A, const double* x, const ConstRowsX6& B,
                                    const double* y, int first, int count) {
  const Eigen::Index nv = A.rows();
  const double* __restrict a = A.data() + first;
  const double* __restrict b = B.data() + first;
  const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5];
  const double y0 = y[0], y1 = y[1], y2 = y[2], y3 = y[3], y4 = y[4], y5 = y[5];
  for (int r = 0; r < count; ++r) {
    out[r] = a[r] * x0 + a[r + nv] * x1 + a[r + 2 * nv] * x2 + a[r + 3 * nv] * x3 + a[r + 4 * nv] * x4 + a[r + 5 * nv] * x5 +
             b[r] * y0 + b[r + nv] * y1 + b[r + 2 * nv] * y2 + b[r + 3 * nv] * y3 + b[r + 4 * nv] * y4 + b[r + 5 * nv] * y5;
  }
}

// Whether the bodies are numbered depth first (each body follows its parent's subtree so far): then every
// subtree's coordinates are one contiguous run. Walking from body i - 1 up to i's parent passes only
// closed subtrees, so on such a model the walks take O(n) in all.
bool isDepthFirst(const Model& model) {
  for (int i = 2; i < model.nbodies(); ++i) {
    int a = i - 1;
    while (a > model.parent(i)) a = model.parent(a);
    if (a != model.parent(i)) return false;
  }
  return true;
}

// Whether body i is in body b's subtree.
bool inSubtreeOf(const Model& model, int i, int b) {
  while (i > b) i = model.parent(i);
  return i == b;
}

// Column k of d tau / d q and d tau / d v from the coordinate terms, before armature and damping, and with
// with_mass_matrix column k of M = d tau / d qdd, on their pattern; the other entries are left alone. Rows
// j of k's body's subtree, [first, lastSubtreeDof] (its own joint included; contiguous in the depth-first
// order), take the formula for b(k) on j's path: P_j . alpha_k + Q_j . u_k, P_j . w_k + Q_j . S_k and
// P_j . S_k. Rows of strict ancestors, walked by runs of consecutive coordinates (Model::dofRunStart), take
// S_j . Gq_k, S_j . Gv_k and S_j . P_k. Both are runs of rows of P, Q and S (stored as rows), so each run
// is one vectorised loop writing a contiguous piece of the column. Unless the model is depth_first, the
// rows [first, lastSubtreeDof] may hold other bodies' coordinates too: those are set to zero after.
ABDYN_FLATTEN void tauDerivativeColumn(const Model& model, Data& data, int k, bool with_mass_matrix, bool depth_first) {
  const Data::DerivativeWorkspace& w = data.deriv;
  const int first = model.joint(model.dofBody(k)).idx_v;
  const int count = model.lastSubtreeDof(model.dofBody(k)) - first + 1;
  double* dq = data.dtau_dq.col(k).data();
  double* dv = data.dtau_dv.col(k).data();
  double* M = data.M.col(k).data();
  const Matrix6X& S_rows = w.S_rows;
  const ConstRowsX6 S = rowsOf(S_rows), P = rowsOf(w.P), Q = rowsOf(w.Q);
  const Vector6 Pk = P.row(k).transpose();
  const double* Sk = w.S_world.col(k).data();
  setRowDots(dq + first, P, w.alpha.col(k).data(), Q, w.u.col(k).data(), first, count);
  setRowDots(dv + first, P, w.w.col(k).data(), Q, Sk, first, count);
  if (with_mass_matrix) setRowDots(M + first, P, Sk, first, count);
  if (!depth_first) {
    for (int j = first; j < first + count; ++j) {
      if (inSubtreeOf(model, model.dofBody(j), model.dofBody(k))) continue;
      dq[j] = dv[j] = 0.0;
      if (with_mass_matrix) M[j] = 0.0;
    }
  }
  for (int e = model.dofParent(first); e >= 0;) {
    const int s = model.dofRunStart(e), L = e - s + 1;
    setRowDots(dq + s, S, w.Gq.col(k).data(), s, L);
    setRowDots(dv + s, S, w.Gv.col(k).data(), s, L);
    if (with_mass_matrix) setRowDots(M + s, S, Pk.data(), s, L);
    e = model.dofParent(s);
  }
}

// S's rows into data.deriv.S_rows for tauDerivativeColumn.
void copySRows(Data& data) { rowsOf(data.deriv.S_rows) = data.deriv.S_world.transpose(); }

// d tau / d q and d tau / d v (and M) column by column; zero off the pattern.
void tauDerivativePairs(const Model& model, Data& data, bool with_mass_matrix) {
  copySRows(data);
  data.dtau_dq.setZero();
  data.dtau_dv.setZero();
  const bool depth_first = isDepthFirst(model);
  for (int k = 0; k < model.nv(); ++k) tauDerivativeColumn(model, data, k, with_mass_matrix, depth_first);
}

// The floating joints' armature products a (w x v) (algorithms/joint_ops.hpp) in d tau / d v: on a joint's
// linear rows, -a [v]x in its angular columns and a [w]x in its linear ones. Calls add(k, J) with the
// joint's first coordinate k and the 3 x 6 block J of its linear rows.
template <class Add>
void floatingArmatureDerivative(const Model& model, const Eigen::VectorXd& v, Add add) {
  if (!model.hasQuaternions()) return;
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (j.type != JointType::Floating || model.armature()[j.idx_v + 3] == 0.0) continue;
    const double a = model.armature()[j.idx_v + 3];
    Eigen::Matrix<double, 3, 6> J;
    J << -a * skew(v.segment<3>(j.idx_v + 3)), a * skew(v.segment<3>(j.idx_v));
    add(j.idx_v, J);
  }
}

// The door of the derivative calls: data belongs to the model, which has dynamics and no springs (unless
// the options leave them out), q, v and x (qdd or tau, named x_name) have its sizes, f_ext too when given,
// and the options are valid. The derivatives of the joint springs (Model::stiffness) are not formed: a model
// with springs is differentiated only with DynamicsOptions::springs off, so that no call returns a
// derivative that silently leaves them out.
void checkInputs(const Model& model, const Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                 const Eigen::VectorXd& x, const std::vector<Force>* f_ext, const DynamicsOptions& options,
                 const char* function, const char* x_name) {
  internal::checkData(model, data, function);
  internal::checkDynamics(model, function);
  internal::checkConfiguration(model, q, function);
  internal::checkVector(v, model.nv(), function, "v");
  internal::checkVector(x, model.nv(), function, x_name);
  if (f_ext) internal::checkForces(model, *f_ext, function);
  internal::checkDynamicsOptions(options, function);
  if (options.springs && model.hasSprings()) {
    throw InvalidArgument(std::string(function) +
                          ": the model has joint springs (Model::stiffness), whose derivatives abdyn does not form; "
                          "pass DynamicsOptions with springs = false to differentiate the dynamics without them");
  }
}

// d tau / d q, d tau / d v and M (inverseDynamicsDerivatives) from the coordinate terms, with the options.
void inverseDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        const Eigen::VectorXd& qdd, const std::vector<Force>* f_ext, const DynamicsOptions& options) {
  checkInputs(model, data, q, v, qdd, f_ext, options, "abdyn::inverseDynamicsDerivatives", "qdd");
  internal::reserveMassMatrix(model, data);  // no-ops unless nv > Data::kEagerMassMatrixDofs
  internal::reserveDerivatives(model, data);
  internal::forwardKinematicsUnchecked(model, data, q);  // data.X_up and data.X_body_world at q
  coordinateTerms(model, data, v, qdd, f_ext);
  tauDerivativePairs(model, data, true);
  if (options.armature) {
    data.M.diagonal() += model.armature();
    data.tau += model.armature().cwiseProduct(qdd);
    for (int i = 1; i < model.nbodies() && model.hasQuaternions(); ++i) {
      const Joint& j = model.joint(i);
      internal::addFloatingArmatureProduct(model, j, v, 1.0, data.tau.data() + j.idx_v);
    }
    floatingArmatureDerivative(model, v, [&](int k, const Eigen::Matrix<double, 3, 6>& J) {
      data.dtau_dv.block<3, 6>(k + 3, k) += J;
    });
  }
  if (options.damping) {
    data.dtau_dv.diagonal() += model.damping();
    data.tau += model.damping().cwiseProduct(v);
    // Implicit damping (dynamics_options.hpp) adds h D qdd to tau, as RNEA does, so h D to d tau / d qdd.
    data.M.diagonal() += options.implicit_damping_step * model.damping();
    data.tau += options.implicit_damping_step * model.damping().cwiseProduct(qdd);
  }
}

// Column c of d qdd / d q and d qdd / d v: -M^-1 times column c of d tau / d q and d tau / d v, over the
// rows of their pattern only: c's strict ancestors (listed in data.factor_ancestors) and the rows
// [c, lastSubtreeDof(body(c))], which hold c's subtree (and, on a model not numbered depth first, other
// bodies' coordinates, whose d tau entries are zero). Both products come from one sweep over M^-1's
// columns, taken four at a time whatever runs they come from: each entry of M^-1 is loaded once for the
// two products, and each output entry once per four columns (the loop over rows vectorises).
ABDYN_FLATTEN void minusInverseMassTimesPatternColumn(const Model& model, Data& data, int c) {
  const Eigen::Index nv = data.Minv.rows();
  const double* dq = data.dtau_dq.col(c).data();
  const double* dv = data.dtau_dv.col(c).data();
  double* out_q = data.dqdd_dq.col(c).data();
  double* out_v = data.dqdd_dv.col(c).data();
  const auto subtractFour = [&](const int* t) {
    const double *M0 = data.Minv.col(t[0]).data(), *M1 = data.Minv.col(t[1]).data();
    const double *M2 = data.Minv.col(t[2]).data(), *M3 = data.Minv.col(t[3]).data();
    const double a0 = dq[t[0]], a1 = dq[t[1]], a2 = dq[t[2]], a3 = dq[t[3]];
    const double b0 = dv[t[0]], b1 = dv[t[1]], b2 = dv[t[2]], b3 = dv[t[3]];
    for (Eigen::Index r = 0; r < nv; ++r) {
      out_q[r] -= a0 * M0[r] + a1 * M1[r] + a2 * M2[r] + a3 * M3[r];
      out_v[r] -= b0 * M0[r] + b1 * M1[r] + b2 * M2[r] + b3 * M3[r];
    }
  };
  std::fill(out_q, out_q + nv, 0.0);
  std::fill(out_v, out_v + nv, 0.0);
  int pending[4];
  int count = 0;
  const auto add = [&](int t) {
    pending[count++] = t;
    if (count == 4) {
      subtractFour(pending);
      count = 0;
    }
  };
  const int* ancestors = data.factor_ancestors.data() + model.ancestorOffset(c);
  const int* ancestors_end = data.factor_ancestors.data() + model.ancestorOffset(c + 1);
  for (const int* t = ancestors; t != ancestors_end; ++t) add(*t);
  for (int t = c; t <= model.lastSubtreeDof(model.dofBody(c)); ++t) add(t);
  for (int k = 0; k < count; ++k) {
    const double* M0 = data.Minv.col(pending[k]).data();
    const double a0 = dq[pending[k]], b0 = dv[pending[k]];
    for (Eigen::Index r = 0; r < nv; ++r) {
      out_q[r] -= a0 * M0[r];
      out_v[r] -= b0 * M0[r];
    }
  }
}

// Whether body i's parent is i - 1 for every body: then coordinate c's strict ancestors are the rows
// [0, first) and its subtree the rows [first, nv), first = idx_v of c's body.
bool isChain(const Model& model) {
  for (int i = 1; i < model.nbodies(); ++i) {
    if (model.parent(i) != i - 1) return false;
  }
  return true;
}

// On a chain the pattern of d tau is full, and -M^-1 d tau factors through three nv x 6 running sums
// instead of two dense nv x nv x nv products (54 nv^2 multiplications instead of 2 nv^3, and no d tau
// matrices): with first = idx_v of c's body,
//   -d qdd / d q_c = CP alpha_c + CQ u_c + E Gq_c,   -d qdd / d v_c = CP w_c + CQ S_c + E Gv_c + M^-1_c damping_c,
//   CP = sum_{r >= first} M^-1_r P_r^T,   CQ = sum_{r >= first} M^-1_r Q_r^T,   E = sum_{r < first} M^-1_r S_r^T
// (M^-1_r column r of M^-1): CP and CQ summed leaves to root, E root to leaves. The sums live in
// data.deriv.CP, CQ and E, 6 x nv each, read as nv x 6.
constexpr int kChainProductDofs = 48;  // below it the dense product's 2 nv^3 is no more work

using ChainSum = RowsX6;

// out = -(C x + D y) for nv x 6 sums C, D and 6-vectors x, y: one loop over rows, twelve columns at once
// (out is a column of another matrix: no aliasing, and x, y held in registers).
ABDYN_ALWAYS_INLINE void setMinusSums(double* __restrict out, const ChainSum& C, const double* x, const ChainSum& D,
                                      const double* y) {
  const Eigen::Index nv = C.rows();
  const double* __restrict c = C.data();
  const double* __restrict d = D.data();
  const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5];
  const double y0 = y[0], y1 = y[1], y2 = y[2], y3 = y[3], y4 = y[4], y5 = y[5];
  for (Eigen::Index r = 0; r < nv; ++r) {
    out[r] = -(c[r] * x0 + c[r + nv] * x1 + c[r + 2 * nv] * x2 + c[r + 3 * nv] * x3 + c[r + 4 * nv] * x4 +
               c[r + 5 * nv] * x5 + d[r] * y0 + d[r + nv] * y1 + d[r + 2 * nv] * y2 + d[r + 3 * nv] * y3 +
               d[r + 4 * nv] * y4 + d[r + 5 * nv] * y5);
  }
}

// out -= E x for an nv x 6 sum E and a 6-vector x.
ABDYN_ALWAYS_INLINE void subtractSum(double* __restrict out, const ChainSum& E, const double* x) {
  const Eigen::Index nv = E.rows();
  const double* __restrict e = E.data();
  const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5];
  for (Eigen::Index r = 0; r < nv; ++r) {
    out[r] -= e[r] * x0 + e[r + nv] * x1 + e[r + 2 * nv] * x2 + e[r + 3 * nv] * x3 + e[r + 4 * nv] * x4 + e[r + 5 * nv] * x5;
  }
}

// C += m y^T for an nv-vector m (a column of M^-1) and a 6-vector y.
ABDYN_ALWAYS_INLINE void addOuter(ChainSum& C, const double* __restrict m, const double* y) {
  const Eigen::Index nv = C.rows();
  double* __restrict c = C.data();
  const double y0 = y[0], y1 = y[1], y2 = y[2], y3 = y[3], y4 = y[4], y5 = y[5];
  for (Eigen::Index r = 0; r < nv; ++r) {
    const double mr = m[r];
    c[r] += y0 * mr;
    c[r + nv] += y1 * mr;
    c[r + 2 * nv] += y2 * mr;
    c[r + 3 * nv] += y3 * mr;
    c[r + 4 * nv] += y4 * mr;
    c[r + 5 * nv] += y5 * mr;
  }
}

ABDYN_FLATTEN void minusInverseMassTimesChain(const Model& model, Data& data, const DynamicsOptions& options) {
  const int nv = model.nv();
  const Data::DerivativeWorkspace& w = data.deriv;
  ChainSum CP(data.deriv.CP.data(), nv, 6), CQ(data.deriv.CQ.data(), nv, 6), E(data.deriv.E.data(), nv, 6);
  CP.setZero();
  CQ.setZero();
  E.setZero();
  for (int b = model.nbodies() - 1; b >= 1; --b) {
    const Joint& j = model.joint(b);
    for (int c = j.idx_v; c < j.idx_v + j.nv; ++c) {
      const Vector6 Pc = rowsOf(w.P).row(c).transpose(), Qc = rowsOf(w.Q).row(c).transpose();
      addOuter(CP, data.Minv.col(c).data(), Pc.data());
      addOuter(CQ, data.Minv.col(c).data(), Qc.data());
    }
    for (int c = j.idx_v; c < j.idx_v + j.nv; ++c) {
      setMinusSums(data.dqdd_dq.col(c).data(), CP, w.alpha.col(c).data(), CQ, w.u.col(c).data());
      setMinusSums(data.dqdd_dv.col(c).data(), CP, w.w.col(c).data(), CQ, w.S_world.col(c).data());
    }
  }
  for (int b = 1; b < model.nbodies(); ++b) {
    const Joint& j = model.joint(b);
    if (b > 1) {  // E = 0 at body 1, the joint on the world, which has no Gq, Gv
      for (int c = j.idx_v; c < j.idx_v + j.nv; ++c) {
        subtractSum(data.dqdd_dq.col(c).data(), E, w.Gq.col(c).data());
        subtractSum(data.dqdd_dv.col(c).data(), E, w.Gv.col(c).data());
      }
    }
    for (int c = j.idx_v; c < j.idx_v + j.nv; ++c) addOuter(E, data.Minv.col(c).data(), w.S_world.col(c).data());
  }
  if (options.damping) {
    for (int c = 0; c < nv; ++c) data.dqdd_dv.col(c) -= model.damping()[c] * data.Minv.col(c);
  }
}

// dqdd / dx = -M^-1 dtau / dx at qdd = ABA(q, v, tau): the articulated pass leaves qdd, M^-1 and the
// coordinates' vectors; d tau / d q and d tau / d v are formed column by column on their pattern, each
// column's product right after it; M and the armature's and implicit damping's share of d tau / d qdd are
// not needed (they live in ABA's D^-1, hence in M^-1).
void forwardDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        const Eigen::VectorXd& tau, const std::vector<Force>* f_ext, const DynamicsOptions& options) {
  checkInputs(model, data, q, v, tau, f_ext, options, "abdyn::forwardDynamicsDerivatives", "tau");
  internal::reserveMassMatrix(model, data);  // no-ops unless nv > Data::kEagerMassMatrixDofs
  internal::reserveDerivatives(model, data);
  articulatedCoordinateTerms(model, data, q, v, tau, f_ext, options, "abdyn::forwardDynamicsDerivatives");
  const int nv = model.nv();
  if (nv >= kChainProductDofs && isChain(model)) {
    minusInverseMassTimesChain(model, data, options);
  } else if (4 * (nv + 2 * model.ancestorPairs()) > 3 * std::int64_t{nv} * nv) {
    // On a chain-like tree (every pair on a path: nv + 2 ancestorPairs = nv^2) the dense product is
    // faster; on a branched tree the pattern is a fraction of the rows.
    tauDerivativePairs(model, data, false);
    if (options.damping) data.dtau_dv.diagonal() += model.damping();
    data.dqdd_dq.noalias() = -data.Minv * data.dtau_dq;
    data.dqdd_dv.noalias() = -data.Minv * data.dtau_dv;
  } else {
    // Each column's product right after the column, which it reads on its pattern only (no zeroing).
    const bool depth_first = isDepthFirst(model);
    copySRows(data);
    for (int c = 0; c < nv; ++c) {
      tauDerivativeColumn(model, data, c, false, depth_first);
      if (options.damping) data.dtau_dv(c, c) += model.damping()[c];
      minusInverseMassTimesPatternColumn(model, data, c);
    }
  }
  if (options.armature) {
    floatingArmatureDerivative(model, v, [&](int k, const Eigen::Matrix<double, 3, 6>& J) {
      data.dqdd_dv.middleCols<6>(k).noalias() -= data.Minv.middleCols<3>(k + 3) * J;
    });
  }
  data.dqdd_dtau = data.Minv;
}

}  // namespace

// The public calls: their checks are the workers' first step (checkInputs).

void inverseDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& qdd, const DynamicsOptions& options) {
  inverseDerivatives(model, data, q, v, qdd, nullptr, options);
}

void forwardDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const DynamicsOptions& options) {
  forwardDerivatives(model, data, q, v, tau, nullptr, options);
}

void inverseDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& qdd, const std::vector<Force>& f_ext,
                                const DynamicsOptions& options) {
  inverseDerivatives(model, data, q, v, qdd, &f_ext, options);
}

void forwardDynamicsDerivatives(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const std::vector<Force>& f_ext,
                                const DynamicsOptions& options) {
  forwardDerivatives(model, data, q, v, tau, &f_ext, options);
}

}  // namespace abdyn
