#include "abdyn/model/data.hpp"

#include "internal/shared_passes.hpp"

namespace abdyn {

Data::Data(const Model& model) : model_key(model.structureKey()) {
  const int n = model.nbodies();
  const int nv = model.nv();
  X_up.assign(n, Plx());
  X_body_world.assign(n, Plx());
  X_subtree.assign(n, Plx());
  v.assign(n, Motion());
  a.assign(n, Motion());
  a_with_gravity.assign(n, Motion());
  J.setZero(6, nv);
  dJ.setZero(6, nv);
  J_com.setZero(3, nv);
  S_world.setZero(6, nv);
  subtree_mass.assign(n, 0.0);
  subtree_moment.assign(n, Vector3::Zero());
  f.assign(n, Force());
  I_composite.assign(n, RigidBodyInertia());
  S_subtree.setZero(6, nv);
  IA.assign(n, ArticulatedBodyInertia());
  pA.assign(n, Force());
  c.assign(n, Motion());
  U.setZero(6, nv);
  u.setZero(nv);
  Dinv.setZero(nv, 6);
  tau.setZero(nv);
  qdd.setZero(nv);
  factor_D.setZero(nv);
  tmp_v.setZero(nv);
  if (nv <= kEagerMassMatrixDofs) {
    internal::reserveMassMatrix(model, *this);
    internal::reserveDerivatives(model, *this);
  }
}

// The derivatives' O(n) recursion workspace (about half of a Data's per-body bytes) comes with their
// nv x nv results, so that a Data for ABA alone stays small.
void internal::reserveDerivatives(const Model& model, Data& data) {
  const int n = model.nbodies();
  const int nv = model.nv();
  if (data.dtau_dq.rows() == nv && static_cast<int>(data.deriv.v.size()) == n) return;
  for (Eigen::MatrixXd* m : {&data.dtau_dq, &data.dtau_dv, &data.dqdd_dq, &data.dqdd_dv, &data.dqdd_dtau}) m->setZero(nv, nv);
  Data::DerivativeWorkspace& w = data.deriv;
  w.S.setZero(6, nv);
  w.v.assign(n, Motion());
  w.a.assign(n, Motion());
  w.F.assign(n, Force());
  w.H.assign(n, Force());
  w.Ic.assign(n, Matrix6::Zero());
  w.B.assign(n, Matrix6::Zero());
  for (Matrix6X* m : {&w.P, &w.Q, &w.alpha, &w.u, &w.w, &w.Gq, &w.Gv}) m->setZero(6, nv);
}

void internal::reserveMassMatrix(const Model& model, Data& data) {
  const int nv = model.nv();
  if (data.M.rows() == nv && data.factor_L.size() == model.ancestorPairs()) return;
  data.M.setZero(nv, nv);
  data.Minv.setZero(nv, nv);
  data.Minv_F.assign(model.nbodies(), Matrix6X::Zero(6, nv));
  data.Minv_tmp.setZero(6, nv);
  data.factor_L.setZero(model.ancestorPairs());
  // Coordinate k's strict ancestors, ascending: its dof parent's list followed by the dof parent itself.
  data.factor_ancestors.resize(static_cast<std::size_t>(model.ancestorPairs()));
  for (int k = 0; k < nv; ++k) {
    const int p = model.dofParent(k);
    if (p < 0) continue;
    int* row = data.factor_ancestors.data() + model.ancestorOffset(k);
    const int* parent_row = data.factor_ancestors.data() + model.ancestorOffset(p);
    const std::int64_t parent_count = model.ancestorOffset(p + 1) - model.ancestorOffset(p);
    for (std::int64_t t = 0; t < parent_count; ++t) row[t] = parent_row[t];
    row[parent_count] = p;
  }
}

}  // namespace abdyn
