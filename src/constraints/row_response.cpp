#include "abdyn/constraints/row_response.hpp"

#include "abdyn/algorithms/crba.hpp"
#include "algorithms/articulated_step.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {
RowResponse::RowResponse(const Model& model)
    : p_(model.nbodies(), Force::Zero()),
      a_(model.nbodies(), Motion::Zero()),
      u_(model.nv()),
      ancestor_pairs_(model.ancestorPairs()),
      nbodies_(model.nbodies()) {}

void RowResponse::checkModel(const Model& model, const Data& data, const char* function) const {
  internal::checkData(model, data, function);
  internal::checkDynamics(model, function);
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
  // ABA's passes 2 and 3 at v = 0 without gravity and with tau = x, reusing ABA's factors U, D^-1 and
  // X_up (algorithms/articulated_step.hpp): p_ are the bias forces, a_ the body accelerations.
  const int n = model.nbodies();
  for (int i = 0; i < n; ++i) p_[i] = Force::Zero();
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    // Off the path from the impulse's coordinates to the root nothing propagates (a row's J is sparse).
    if (x.segment(j.idx_v, j.nv).isZero(0.0) && p_[i].vector().isZero(0.0)) {
      u_.segment(j.idx_v, j.nv).setZero();
      out.segment(j.idx_v, j.nv).setZero();
      continue;
    }
    internal::visitJointDofs(j, [&](auto dofs) {
      using Step = internal::ArticulatedStep<decltype(dofs)::value>;
      const Step step(model, data, j);
      const Vector6 pA = p_[i].vector();
      auto u = Step::rows(u_, j);
      step.bias(Step::rows(x, j), pA, u);  // u = x - S^T pA
      auto qdd = Step::rows(out, j);
      step.solve(u, qdd);                  // qdd = D^-1 u, for now
      if (p == 0) return;
      Vector6 pa = pA;
      step.addResponse(qdd, pa);           // pa = pA + U D^-1 u
      p_[p] += data.X_up[i].applyInverse(Force(pa));
    });
  }
  a_[0] = Motion::Zero();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    internal::visitJointDofs(j, [&](auto dofs) {
      using Step = internal::ArticulatedStep<decltype(dofs)::value>;
      const Step step(model, data, j);
      Vector6 a = data.X_up[i].apply(a_[model.parent(i)]).vector();  // a' = X_up a_p
      auto qdd = Step::rows(out, j);
      typename Step::Rows Uta(j.nv, 1);
      step.correct(a, Uta, qdd);                                     // qdd = D^-1 (u - U^T a')
      step.addMotion(qdd, a);                                        // a_i = a' + S qdd
      a_[i] = Motion(a);
    });
  }
}

void RowResponse::articulated(const Model& model, const Data& data, RowSet& rows) {
  checkModel(model, data, "abdyn::RowResponse::articulated");
  for (int r = 0; r < rows.size(); ++r) applyInverseMass(model, data, rows[r].J, rows.state(r).Minv_Jt);
}

void RowResponse::factorized(const Model& model, const Data& data, RowSet& rows) {
  checkModel(model, data, "abdyn::RowResponse::factorized");
  for (int r = 0; r < rows.size(); ++r) {
    rows.state(r).Minv_Jt = rows[r].J;
    solveMassMatrix(model, data, rows.state(r).Minv_Jt);
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
