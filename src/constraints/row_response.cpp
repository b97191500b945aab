#include "abdyn/constraints/row_response.hpp"

#include "abdyn/algorithms/crba.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"
#include "internal/shared_passes.hpp"

namespace abdyn {
namespace {
// At most 6 entries, on the stack: a multi-DoF joint's slice of the impulse propagation.
using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;
}  // namespace

RowResponse::RowResponse(const Model& model)
    : p_(model.nbodies(), Force::Zero()),
      a_(model.nbodies(), Motion::Zero()),
      u_(model.nv()),
      ancestor_pairs_(model.ancestorPairs()),
      nbodies_(model.nbodies()) {}

void RowResponse::checkModel(const Model& model, const Data& data, const char* function) const {
  internal::checkData(model, data, function);
  if (nbodies_ != model.nbodies() || u_.size() != model.nv()) {
    throw InvalidArgument(std::string(function) + ": this RowResponse was built for another model (" +
                          std::to_string(nbodies_) + " bodies, not " + std::to_string(model.nbodies()) + ")");
  }
}

ResponseMethod RowResponse::choose(ResponseMethod requested) const {
  if (requested != ResponseMethod::Automatic) return requested;
  return ancestor_pairs_ <= 20L * nbodies_ ? ResponseMethod::Factorized : ResponseMethod::Articulated;
}

ABDYN_FLATTEN void RowResponse::applyInverseMass(const Model& model, const Data& data, const Eigen::VectorXd& x,
                                   Eigen::VectorXd& out) {
  checkModel(model, data, "abdyn::RowResponse::applyInverseMass");
  const auto& S = model.motionSubspace();
  const int n = model.nbodies();
  for (int i = 0; i < n; ++i) p_[i] = Force::Zero();
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    // Off the path from the impulse's coordinates to the root nothing propagates (a row's J is sparse).
    if (x.segment(j.idx_v, j.nv).isZero(0.0) && p_[i].vector().isZero(0.0)) {
      u_.segment(j.idx_v, j.nv).setZero();
      continue;
    }
    Vector6 pa = p_[i].vector();
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) u_[k] = x[k] - S.col(k).dot(p_[i].vector());
    if (p == 0) continue;
    if (j.nv == 1) {
      pa += data.U.col(j.idx_v) * (data.D[j.idx_v] * u_[j.idx_v]);  // data.D holds 1 / D
    } else {
      const SmallVector du = data.Dinv_block.block(j.idx_v, 0, j.nv, j.nv) * u_.segment(j.idx_v, j.nv);
      pa.noalias() += data.U.middleCols(j.idx_v, j.nv) * du;
    }
    p_[p] += data.X_up[i].applyInverse(Force(pa));
  }
  a_[0] = Motion::Zero();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const Motion a = data.X_up[i].apply(a_[model.parent(i)]);
    if (j.nv == 1) {
      const int k = j.idx_v;
      out[k] = data.D[k] * (u_[k] - data.U.col(k).dot(a.vector()));
      a_[i] = a + Motion(Vector6(S.col(k) * out[k]));
    } else {
      SmallVector rhs = u_.segment(j.idx_v, j.nv);
      rhs.noalias() -= data.U.middleCols(j.idx_v, j.nv).transpose() * a.vector();
      out.segment(j.idx_v, j.nv).noalias() = data.Dinv_block.block(j.idx_v, 0, j.nv, j.nv) * rhs;
      Vector6 da;
      da.noalias() = S.middleCols(j.idx_v, j.nv) * out.segment(j.idx_v, j.nv);
      a_[i] = a + Motion(da);
    }
  }
}

void RowResponse::articulated(const Model& model, const Data& data, RowSet& rows) {
  checkModel(model, data, "abdyn::RowResponse::articulated");
  for (int r = 0; r < rows.size(); ++r) applyInverseMass(model, data, rows[r].J, rows[r].Minv_Jt);
}

void RowResponse::factorized(const Model& model, const Data& data, RowSet& rows) {
  checkModel(model, data, "abdyn::RowResponse::factorized");
  for (int r = 0; r < rows.size(); ++r) {
    rows[r].Minv_Jt = rows[r].J;
    solveMassMatrix(model, data, rows[r].Minv_Jt);
  }
}

void RowResponse::dense(const Model& model, Data& data, const Eigen::VectorXd& q, RowSet& rows,
                        const DynamicsOptions& options) {
  checkModel(model, data, "abdyn::RowResponse::dense");
  massMatrix(model, data, q, options);
  internal::factorizeAtMassMatrix(model, data);
  factorized(model, data, rows);
}

}  // namespace abdyn
