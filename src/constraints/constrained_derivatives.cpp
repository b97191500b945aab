#include "abdyn/constraints/constrained_derivatives.hpp"

#include <string>

#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/error.hpp"
#include "algorithms/passes.hpp"
#include "constraints/passes.hpp"
#include "internal/checks.hpp"
#include "internal/dense_solve.hpp"

namespace abdyn {
namespace {

// Derivation (docs/derivatives.md, section 6). World coordinates about the world origin throughout, as in
// the dRNEA recursion (derivatives.cpp), whose workspace data.deriv supplies the body velocities V, the
// accelerations A (at the solution's qdd, with A_0 = -gravity, which cancels in differences), the world
// columns S_k and the motions u_k, alpha_k, w_k that coordinate k excites.
//
// Closure c joins Fa on body a to Fb on body b. Let F be the frame with Fa's axes and Fb's origin p_b,
// X_F the motion transform from world to F. With V = V_b - V_a and A = A_b - A_a:
//   G v  = P X_F V,                        (the closure's relative velocity, P its selected directions)
//   Phi  = G qdd + Gdot v = P X_F (A - V_F x V),   V_F = V_a + [0; V.lin + V.ang x p_b] (F's own velocity),
//   G^T lambda acts as the world force Fw = X_F^T P^T lambda on b and -Fw on a.
// Moving q_k turns the subtree T of k's body by the world twist S_k; with ia = [a in T], ib = [b in T]:
//   F moves by dF = ia [s_w; p_b x s_w] + ib [0; s_o + s_w x p_b]   (its axes turn with a, its origin moves with b)
//   d X_F = -X_F crm(dF),  d Fw = dF x* Fw,
//   d V_l = S_k x V_l + u_k,  d A_l = S_k x A_l + alpha_k + u_k x V_l   (l in T; zero elsewhere),
//   d V_F = d V_a + [0; dV.lin + dV.ang x p_b + V.ang x d p_b],
// and moving v_k: d V_l = S_k, d A_l = w_k + S_k x V_l (l in T), X_F unchanged. Then
//   d Phi = P X_F (d A - d V_F x V - V_F x d V - dF x (A - V_F x V)),   d (G v) = P X_F (d V - dF x V),
//   d (G^T lambda)_j = sigma_j (S_j . (dF x* Fw) + [j's body in T] (S_k x S_j) . Fw),
// sigma_j = +1 if coordinate j moves b only, -1 if it moves a only, 0 otherwise (G's column j is sigma_j P X_F S_j).

bool inSubtree(const Model& model, int body, int root) {
  for (int i = body; i > 0; i = model.parent(i)) {
    if (i == root) return true;
  }
  return false;
}

double indicator(bool b) { return b ? 1.0 : 0.0; }

// Fa's axes with Fb's origin, in world coordinates: the frame in which G measures closure c.
Plx closureFrame(const Data& data, const LoopClosure& c) {
  Matrix3 R_0_F = c.R_a;
  if (c.body_a > 0) R_0_F = data.X_body_world[c.body_a].E().transpose() * c.R_a;
  Vector3 p_b = c.p_b;
  if (c.body_b > 0) p_b = data.X_body_world[c.body_b].applyInverseToPoint(c.p_b);
  return Plx(R_0_F.transpose(), p_b);
}

// The twist by which q_k moves frame F (see above).
Motion frameMotion(const Motion& S, const Vector3& p_b, double ia, double ib) {
  const Vector3 dp = S.linear() + S.angular().cross(p_b);
  return Motion(ia * S.angular(), ia * p_b.cross(S.angular()) + ib * dp);
}

void checkOut(const Model& model, const ConstraintSet& constraints, const ConstrainedDerivatives& out, const char* fn) {
  if (out.dqdd_dq.rows() != model.nv() || out.dlambda_dq.rows() != constraints.rows() ||
      out.work.path_offset.size() != constraints.loops.size() + 1) {
    throw InvalidArgument(std::string(fn) + ": 'out' was built for other constraints or another model");
  }
}

// Adds the closures' terms of the differentiated right-hand side (all but -b dC/dq and -a G v's G).
void closureTerms(const Model& model, const Data& data, const ConstrainedDynamicsData& cd,
                  const ConstraintSet& constraints, double a_gain, ConstrainedDerivatives::Workspace& w) {
  const Data::DerivativeWorkspace& d = data.deriv;
  const int nv = model.nv();
  int row = 0;
  for (std::size_t ci = 0; ci < constraints.loops.size(); ++ci) {
    const LoopClosure& c = constraints.loops[ci];
    const int m = c.rows(), A = c.body_a, B = c.body_b;
    const Plx X_F = closureFrame(data, c);
    const Vector3& p_b = X_F.r();
    const Motion& Va = d.v_world[A];
    const Motion& Vb = d.v_world[B];
    const Motion V = Vb - Va;
    const Motion Acc = d.a_world[B] - d.a_world[A];
    const Motion VF = Va + Motion(Vector3::Zero(), V.linear() + V.angular().cross(p_b));
    const Motion Rel = Acc - VF.cross(V);
    const Force Fw = X_F.applyInverse(Force(Vector6(c.directions.transpose() * cd.lambda.segment(row, m))));
    const int* first = w.path.data() + w.path_offset[ci];
    const int* last = w.path.data() + w.path_offset[ci + 1];
    for (const int* kp = first; kp != last; ++kp) {
      const int k = *kp, bk = model.dofBody(k);
      const double ia = indicator(inSubtree(model, A, bk)), ib = indicator(inSubtree(model, B, bk));
      const Motion S(Vector6(d.S_world.col(k)));
      const Motion u(Vector6(d.u.col(k)));
      const Motion alpha(Vector6(d.alpha.col(k)));
      const Motion wk(Vector6(d.w.col(k)));
      const Motion dF = frameMotion(S, p_b, ia, ib);
      // q_k.
      const Motion dVa = (S.cross(Va) + u) * ia;
      const Motion dV = (S.cross(Vb) + u) * ib - dVa;
      const Motion dA = (S.cross(d.a_world[B]) + alpha + u.cross(Vb)) * ib - (S.cross(d.a_world[A]) + alpha + u.cross(Va)) * ia;
      const Vector3 dp_b = ib * (S.linear() + S.angular().cross(p_b));
      const Motion dVF = dVa + Motion(Vector3::Zero(), dV.linear() + dV.angular().cross(p_b) + V.angular().cross(dp_b));
      const Motion dPhi = X_F.apply(dA - dVF.cross(V) - VF.cross(dV) - dF.cross(Rel));
      const Motion dGv = X_F.apply(dV - dF.cross(V));
      w.rhs_bottom.col(k).segment(row, m).noalias() -= c.directions * (dPhi.vector() + a_gain * dGv.vector());
      // v_k.
      const Motion eVa = S * ia;
      const Motion eV = S * ib - eVa;
      const Motion eA = (wk + S.cross(Vb)) * ib - (wk + S.cross(Va)) * ia;
      const Motion eVF = eVa + Motion(Vector3::Zero(), eV.linear() + eV.angular().cross(p_b));
      const Motion ePhi = X_F.apply(eA - eVF.cross(V) - VF.cross(eV));
      w.rhs_bottom.col(nv + k).segment(row, m).noalias() -= c.directions * ePhi.vector();
      // d (G^T lambda) / d q_k: rows j on the closure's path.
      const Vector6 dFw = dF.crossDual(Fw).vector();
      for (const int* jp = first; jp != last; ++jp) {
        const int j = *jp, bj = model.dofBody(j);
        const double sigma = indicator(inSubtree(model, B, bj)) - indicator(inSubtree(model, A, bj));
        if (sigma == 0.0) continue;
        const Motion Sj(Vector6(d.S_world.col(j)));
        double value = Sj.vector().dot(dFw);
        if (inSubtree(model, bj, bk)) value += S.cross(Sj).vector().dot(Fw.vector());
        w.rhs_top(j, k) += sigma * value;
      }
    }
    row += m;
  }
}

// d (G y) / d q into w.dG_y for y = w.y: the closures' relative velocity under the velocity y, differentiated
// in q (as d (G v) above, with y's own body velocities and u_k = V_parent(y) x S_k). Couplings' rows are zero.
void jacobianDerivativeTimes(const Model& model, const Data& data, const ConstraintSet& constraints,
                             ConstrainedDerivatives::Workspace& w) {
  const Data::DerivativeWorkspace& d = data.deriv;
  w.v_y[0] = Motion::Zero();
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    Motion vi = w.v_y[model.parent(i)];
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) vi += Motion(Vector6(d.S_world.col(k))) * w.y[k];
    w.v_y[i] = vi;
  }
  w.dG_y.setZero();
  int row = 0;
  for (std::size_t ci = 0; ci < constraints.loops.size(); ++ci) {
    const LoopClosure& c = constraints.loops[ci];
    const int m = c.rows(), A = c.body_a, B = c.body_b;
    const Plx X_F = closureFrame(data, c);
    const Motion V = w.v_y[B] - w.v_y[A];
    for (int t = w.path_offset[ci]; t < w.path_offset[ci + 1]; ++t) {
      const int k = w.path[t], bk = model.dofBody(k);
      const double ia = indicator(inSubtree(model, A, bk)), ib = indicator(inSubtree(model, B, bk));
      const Motion S(Vector6(d.S_world.col(k)));
      const Motion u = w.v_y[model.parent(bk)].cross(S);
      const Motion dV = (S.cross(w.v_y[B]) + u) * ib - (S.cross(w.v_y[A]) + u) * ia;
      const Motion dGy = X_F.apply(dV - frameMotion(S, X_F.r(), ia, ib).cross(V));
      w.dG_y.col(k).segment(row, m).noalias() = c.directions * dGy.vector();
    }
    row += m;
  }
}

// Gamma's Cholesky factor when every pivot exceeds tolerance times its largest diagonal entry (the forward
// call's test of regularity); false otherwise.
bool regularGamma(ConstrainedDerivatives::Workspace& w, double tolerance) {
  if (w.Gamma.rows() == 0) return true;
  w.gamma_factor.compute(w.Gamma);
  if (w.gamma_factor.info() != Eigen::Success) return false;
  const double floor = tolerance * w.Gamma.diagonal().maxCoeff();
  const Eigen::MatrixXd& L = w.gamma_factor.matrixLLT();
  for (Eigen::Index j = 0; j < L.rows(); ++j) {
    if (!(L(j, j) * L(j, j) > floor)) return false;
  }
  return true;
}

}  // namespace

ConstrainedDerivatives::Workspace::Workspace(const Model& model, const ConstraintSet& constraints)
    : kinematics(model, constraints),
      rhs_top(model.nv(), 3 * model.nv()),
      rhs_bottom(constraints.rows(), 3 * model.nv()),
      Z(model.nv(), 3 * model.nv()),
      Minv_Gt(model.nv(), constraints.rows()),
      Gamma(constraints.rows(), constraints.rows()),
      E(constraints.rows(), 3 * model.nv()),
      Lambda(constraints.rows(), 3 * model.nv()),
      mass_factor(model.nv()),
      gamma_factor(constraints.rows()),
      gamma_solver(constraints.rows(), constraints.rows()),
      column(constraints.rows()),
      projected(constraints.rows()),
      solve_work(constraints.rows()),
      solve_y(constraints.rows()),
      dG_y(constraints.rows(), model.nv()),
      y(model.nv()),
      v_y(model.nbodies()) {
  for (const LoopClosure& c : constraints.loops) {
    std::vector<bool> moved(model.nv(), false);
    internal::markPathCoordinates(model, c.body_a, moved);
    internal::markPathCoordinates(model, c.body_b, moved);
    path_offset.push_back(static_cast<int>(path.size()));
    for (int k = 0; k < model.nv(); ++k) {
      if (moved[k]) path.push_back(k);
    }
  }
  path_offset.push_back(static_cast<int>(path.size()));
}

ConstrainedDerivatives::ConstrainedDerivatives(const Model& model, const ConstraintSet& constraints)
    : dqdd_dq(Eigen::MatrixXd::Zero(model.nv(), model.nv())),
      dqdd_dv(Eigen::MatrixXd::Zero(model.nv(), model.nv())),
      dqdd_dtau(Eigen::MatrixXd::Zero(model.nv(), model.nv())),
      dlambda_dq(Eigen::MatrixXd::Zero(constraints.rows(), model.nv())),
      dlambda_dv(Eigen::MatrixXd::Zero(constraints.rows(), model.nv())),
      dlambda_dtau(Eigen::MatrixXd::Zero(constraints.rows(), model.nv())),
      work(model, constraints) {}

void forwardDynamicsConstrainedDerivatives(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                           ConstrainedDerivatives& out, const ConstraintSet& constraints,
                                           const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                           const Eigen::VectorXd& tau, const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::forwardDynamicsConstrainedDerivatives";
  internal::checkConstrainedCall(model, data, cd, constraints, q, &settings, fn);
  internal::checkVector(v, model.nv(), fn, "v");
  internal::checkVector(tau, model.nv(), fn, "tau");
  checkOut(model, constraints, out, fn);
  internal::forwardDynamicsConstrainedUnchecked(model, data, cd, constraints, q, v, tau, settings);

  const int nv = model.nv();
  ConstrainedDerivatives::Workspace& w = out.work;
  // dRNEA at the solution's qdd: d (M qdd + h) / d (q, v), M, and the world-frame kinematics used below.
  inverseDynamicsDerivatives(model, data, q, v, cd.qdd, settings.dynamics);
  internal::evaluateConstraints(model, data, constraints, w.kinematics, q, nullptr, true);
  const Eigen::MatrixXd& G = w.kinematics.G;
  const auto [a_gain, b_gain] = internal::feedbackGains(settings);

  // Right-hand side, columns (dq, dv, dtau):
  //   top    = d tau - d ID + d (G^T lambda),   bottom = -d Phi - a d (G v) - b d C.
  w.rhs_top.leftCols(nv) = -data.dtau_dq;
  w.rhs_top.middleCols(nv, nv) = -data.dtau_dv;
  w.rhs_top.rightCols(nv).setIdentity();
  w.rhs_bottom.setZero();
  closureTerms(model, data, cd, constraints, a_gain, w);
  w.rhs_bottom.leftCols(nv).noalias() -= b_gain * w.kinematics.G_exact;  // d C / d q (tangent), couplings too
  w.rhs_bottom.middleCols(nv, nv).noalias() -= a_gain * G;                 // d (G v) / d v

  // [M -G^T; G cfm 1] [X; Lambda] = [top; bottom] by the Schur complement, as the forward call:
  //   Z = M^-1 top,  Gamma Lambda = bottom - G Z,  X = Z + M^-1 G^T Lambda.
  w.mass_factor.compute(data.M);
  w.Z = w.rhs_top;
  w.mass_factor.solveInPlace(w.Z);
  w.Minv_Gt = G.transpose();
  w.mass_factor.solveInPlace(w.Minv_Gt);
  w.Gamma.noalias() = G * w.Minv_Gt;
  w.Gamma.diagonal().array() += settings.cfm;
  w.E = w.rhs_bottom;
  w.E.noalias() -= G * w.Z;
  const Eigen::Index m = w.Gamma.rows();
  if (regularGamma(w, settings.rank_tolerance)) {
    w.Lambda = w.E;
    if (m > 0) w.gamma_factor.solveInPlace(w.Lambda);
  } else {
    // Redundant closures: the forward call's minimum-norm lambda = Gamma^+ eta lies in range(G) and stays
    // there, so d lambda is the minimum-norm solution plus the part along null(G^T) that keeps it in the
    // turning range: P_N d lambda = P_N (dG y), y = M^-1 G^T Gamma^+ lambda (so G y = lambda); P_N x =
    // x - Gamma Gamma^+ x. With cfm > 0 Gamma is regular and this branch is not taken.
    w.gamma_solver.setThreshold(settings.rank_tolerance);
    w.gamma_solver.compute(w.Gamma);
    for (Eigen::Index col = 0; col < w.E.cols(); ++col) {
      w.column = w.E.col(col);
      internal::minimumNormSolve(w.gamma_solver, w.column, w.solve_work, w.solve_y, w.Lambda.col(col));
    }
    internal::minimumNormSolve(w.gamma_solver, cd.lambda, w.solve_work, w.solve_y, w.column);
    w.y.noalias() = w.Minv_Gt * w.column;
    jacobianDerivativeTimes(model, data, constraints, w);
    for (int k = 0; k < nv; ++k) {
      w.column = w.dG_y.col(k);
      internal::minimumNormSolve(w.gamma_solver, w.column, w.solve_work, w.solve_y, w.projected);
      w.Lambda.col(k) += w.column;
      w.Lambda.col(k).noalias() -= w.Gamma * w.projected;
    }
  }
  out.dlambda_dq = w.Lambda.leftCols(nv);
  out.dlambda_dv = w.Lambda.middleCols(nv, nv);
  out.dlambda_dtau = w.Lambda.rightCols(nv);
  w.Z.noalias() += w.Minv_Gt * w.Lambda;
  out.dqdd_dq = w.Z.leftCols(nv);
  out.dqdd_dv = w.Z.middleCols(nv, nv);
  out.dqdd_dtau = w.Z.rightCols(nv);
}

}  // namespace abdyn
