#include "abdyn/constraints/rows.hpp"

#include "abdyn/error.hpp"

namespace abdyn {

ConstraintRow& RowSet::add() {
  if (size_ == static_cast<int>(rows_.size())) {
    rows_.emplace_back();
    rows_.back().J.resize(nv_);
    rows_.back().Minv_Jt.resize(nv_);
  }
  ConstraintRow& row = rows_[size_++];
  // A fresh row that keeps the storage of the vectors, so that reusing a row allocates nothing.
  ConstraintRow fresh;
  fresh.J = std::move(row.J);
  fresh.Minv_Jt = std::move(row.Minv_Jt);
  fresh.Y = std::move(row.Y);
  fresh.Dinv_Y = std::move(row.Dinv_Y);
  row = std::move(fresh);
  row.J.setZero(nv_);
  row.Minv_Jt.setZero(nv_);
  return row;
}

void addWrenchToRow(const Model& model, const Data& data, int body, const Force& f_world, double sign,
                    Eigen::VectorXd& J) {
  if (body < 0 || body >= model.nbodies()) {
    throw InvalidArgument("abdyn::addWrenchToRow: body " + std::to_string(body) + " is not in model '" +
                          model.name() + "'");
  }
  if (body == 0) return;
  // The wrench in body coordinates, then up the tree: f . (X_i_0^-1 S) = (X_i_0^-T f) . S (power is invariant).
  Force f = data.X_world[body].apply(f_world);
  const auto& S = model.motionSubspace();
  for (int i = body; i > 0; i = model.parent(i)) {
    const Joint& j = model.joint(i);
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) J[k] += sign * S.col(k).dot(f.vector());
    f = data.X_up[i].applyInverse(f);
  }
}

ConstraintRow& addLinearRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                            const Vector3& p_world, const Vector3& n_world) {
  ConstraintRow& row = rows.add();
  const Force f(p_world.cross(n_world), n_world);
  addWrenchToRow(model, data, body_a, f, 1.0, row.J);
  addWrenchToRow(model, data, body_b, f, -1.0, row.J);
  return row;
}

ConstraintRow& addAngularRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                             const Vector3& a_world) {
  ConstraintRow& row = rows.add();
  const Force f(a_world, Vector3::Zero());
  addWrenchToRow(model, data, body_a, f, 1.0, row.J);
  addWrenchToRow(model, data, body_b, f, -1.0, row.J);
  return row;
}

void orthonormalComplement(const Vector3& n, Vector3& t1, Vector3& t2) {
  // Cross n with the world axis it is least aligned with, so the product is never near zero.
  Eigen::Index smallest = 0;
  n.cwiseAbs().minCoeff(&smallest);
  t1 = n.cross(Vector3::Unit(smallest)).normalized();
  t2 = n.cross(t1);
}

}  // namespace abdyn
