#include "abdyn/model/data.hpp"

#include "model/huge_pages.hpp"
#include "model/passes.hpp"

namespace abdyn {
namespace {

// Every array starts as `value`, its memory advised for huge pages before it is first written
// (model/huge_pages.hpp: on a 10^5-body model the page faults were half of building a Data).
template <class T, class Allocator>
void fill(std::vector<T, Allocator>& v, std::size_t n, const T& value) {
  v.reserve(n);
  internal::adviseHugePages(v);
  v.assign(n, value);
}

template <class Derived>
void zero(Eigen::PlainObjectBase<Derived>& m, Eigen::Index rows, Eigen::Index cols) {
  m.resize(rows, cols);
  internal::adviseHugePages(m.data(), sizeof(typename Derived::Scalar) * static_cast<std::size_t>(m.size()));
  m.setZero();
}

}  // namespace

Data::Data(const Model& model) : model_key(model.structureKey()) {
  const auto n = static_cast<std::size_t>(model.nbodies());
  const int nv = model.nv();
  fill(X_up, n, Plx());
  fill(X_body_world, n, Plx());
  fill(crba.X_subtree, n, Plx());
  fill(v, n, Motion());
  fill(a, n, Motion());
  fill(a_with_gravity, n, Motion());
  zero(J, 6, nv);
  zero(dJ, 6, nv);
  zero(J_com, 3, nv);
  zero(S_world, 6, nv);
  fill(subtree_mass, n, 0.0);
  fill(subtree_moment, n, Vector3(Vector3::Zero()));
  fill(f, n, Force());
  fill(crba.I_composite, n, RigidBodyInertia());
  zero(crba.S_subtree, 6, nv);
  fill(aba.IA, n, ArticulatedBodyInertia());
  fill(aba.pA, n, Force());
  fill(aba.c, n, Motion());
  zero(aba.U, 6, nv);
  aba.u.setZero(nv);
  zero(aba.Dinv, nv, 6);
  tau.setZero(nv);
  qdd.setZero(nv);
  factor_D.setZero(nv);
  zero_qdd.setZero(nv);
  if (nv <= kEagerMassMatrixDofs) {
    internal::reserveMassMatrix(model, *this);
    internal::reserveDerivatives(model, *this);
  }
}

namespace internal {

// The derivatives' O(n) recursion workspace (about half of a Data's per-body bytes) comes with their
// nv x nv results, so that a Data for ABA alone stays small.
void reserveDerivatives(const Model& model, Data& data) {
  const int n = model.nbodies();
  const int nv = model.nv();
  if (data.dtau_dq.rows() == nv && static_cast<int>(data.deriv.v_world.size()) == n) return;
  for (Eigen::MatrixXd* m : {&data.dtau_dq, &data.dtau_dv, &data.dqdd_dq, &data.dqdd_dv, &data.dqdd_dtau}) m->setZero(nv, nv);
  Data::DerivativeWorkspace& w = data.deriv;
  w.S_world.setZero(6, nv);
  w.v_world.assign(n, Motion());
  w.a_world.assign(n, Motion());
  w.F.assign(n, Force());
  w.H.assign(n, Force());
  w.Ic.assign(n, Matrix6::Zero());
  w.B.assign(n, Matrix6::Zero());
  w.IA_world.assign(n, Matrix6::Zero());
  w.pA_world.assign(n, Force());
  w.c_world.assign(n, Motion());
  for (Matrix6X* m : {&w.U_world, &w.P, &w.Q, &w.S_rows, &w.alpha, &w.u, &w.w, &w.Gq, &w.Gv, &w.CP, &w.CQ, &w.E}) m->setZero(6, nv);
}

void reserveMassMatrix(const Model& model, Data& data) {
  const int nv = model.nv();
  if (data.M.rows() == nv && data.factor_L.size() == model.ancestorPairs()) return;
  data.M.setZero(nv, nv);
  data.Minv.setZero(nv, nv);
  data.minv.F.assign(model.nbodies(), Matrix6X::Zero(6, nv));
  data.minv.U_world.setZero(6, nv);
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

}  // namespace internal

}  // namespace abdyn
