#include "abdyn/constraints/rows.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "abdyn/error.hpp"
#include "constraints/orthonormal_complement.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {

ConstraintRow& RowSet::add() {
  if (size_ == static_cast<int>(rows_.size())) {
    rows_.emplace_back();
    rows_.back().J.resize(nv_);
    states_.emplace_back();
    states_.back().Minv_Jt.resize(nv_);
  }
  ConstraintRow& row = rows_[size_];
  RowSolverState& state = states_[size_];
  ++size_;
  // A fresh row and state that keep the storage of the vectors, so that reusing a row allocates nothing.
  ConstraintRow fresh;
  fresh.J = std::move(row.J);
  row = std::move(fresh);
  row.J.setZero(nv_);
  // Y and D^-1 Y are zero outside the support the solver last set (row_pgs.cpp relies on it).
  for (int r = 0; r < state.support_runs; ++r) {
    const int first = state.support[r].first, count = state.support[r].last - first + 1;
    state.Y.segment(first, count).setZero();
    state.Dinv_Y.segment(first, count).setZero();
  }
  RowSolverState fresh_state;
  fresh_state.Minv_Jt = std::move(state.Minv_Jt);
  fresh_state.Y = std::move(state.Y);
  fresh_state.Dinv_Y = std::move(state.Dinv_Y);
  state = std::move(fresh_state);
  state.Minv_Jt.setZero(nv_);
  return row;
}

void RowSet::reserve(int count) {
  clear();
  for (int r = 0; r < count; ++r) {
    add();
    states_[r].Y.setZero(nv_);  // the factor's coordinates are sized by the first solve otherwise
    states_[r].Dinv_Y.setZero(nv_);
  }
  clear();
  kept_.reserve(static_cast<std::size_t>(count));
}

void RowSet::keepImpulses() {
  kept_.clear();
  for (int r = 0; r < size_; ++r) {
    if (rows_[r].key >= 0) kept_.emplace_back(rows_[r].key, rows_[r].impulse);
  }
  // The builders make their rows in ascending key order within each source, so the list is usually sorted.
  if (!std::is_sorted(kept_.begin(), kept_.end())) std::sort(kept_.begin(), kept_.end());
}

void RowSet::warmStart() {
  // Rows mostly come in the kept order (the same sources step after step): try the entry after the last
  // one found before searching. Either way the first entry of the key (as lower_bound finds it).
  auto next = kept_.begin();
  for (int r = 0; r < size_; ++r) {
    ConstraintRow& row = rows_[r];
    auto found = next;
    if (found == kept_.end() || found->first != row.key || (found != kept_.begin() && (found - 1)->first == row.key)) {
      found = std::lower_bound(kept_.begin(), kept_.end(), std::make_pair(row.key, -HUGE_VAL));
    }
    const bool kept = found != kept_.end() && found->first == row.key;
    row.impulse = kept ? found->second : 0.0;
    if (kept) next = found + 1;
  }
}

namespace {

// J[k] += sign * f . S_world_k for the coordinates of joint i: the power of f on joint i's motion.
void addJointColumns(const Model& model, const Data& data, int i, const Force& f_world, double sign,
                     Eigen::VectorXd& J) {
  const Joint& j = model.joint(i);
  for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) J[k] += sign * data.S_world.col(k).dot(f_world.vector());
}

// J_r += f_r^T (J_A - J_B) for count wrenches at once (J_r the storage of row r's J): up both paths to the
// common ancestor of A and B only, since the coordinates above it move A and B alike (their entries would
// cancel). Parents precede their children, so the larger of the two indices is never the common ancestor.
// One walk for all the wrenches: each coordinate's column is read once.
ABDYN_FLATTEN void addWrenchPairs(const Model& model, const Data& data, int body_a, int body_b, const Force* f_world,
                                  double* const* J, int count) {
  while (body_a != body_b) {
    const bool on_a = body_a > body_b;
    const int i = on_a ? body_a : body_b;
    const double sign = on_a ? 1.0 : -1.0;
    const Joint& j = model.joint(i);
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
      const auto S_k = data.S_world.col(k);
      for (int r = 0; r < count; ++r) J[r][k] += sign * S_k.dot(f_world[r].vector());
    }
    (on_a ? body_a : body_b) = model.parent(i);
  }
}

ConstraintRow& addPairRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                          const Force& f_world, const char* function) {
  internal::checkBody(model, body_a, function, "body_a");
  internal::checkBody(model, body_b, function, "body_b");
  internal::checkWorldColumns(data, function);
  ConstraintRow& row = rows.add();
  double* const J = row.J.data();
  addWrenchPairs(model, data, body_a, body_b, &f_world, &J, 1);
  return row;
}

}  // namespace

ABDYN_FLATTEN int addPairRows(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                              const Force* f_world, int count) {
  constexpr const char* kFunction = "abdyn::addPairRows";
  internal::checkData(model, data, kFunction);
  internal::checkBody(model, body_a, kFunction, "body_a");
  internal::checkBody(model, body_b, kFunction, "body_b");
  internal::checkWorldColumns(data, kFunction);
  if (count < 1 || count > kMaxPairRows) {
    throw InvalidArgument(std::string(kFunction) + ": 'count' must lie in [1, " + std::to_string(kMaxPairRows) +
                          "], got " + std::to_string(count));
  }
  const int first = rows.size();
  for (int r = 0; r < count; ++r) rows.add();
  double* J[kMaxPairRows] = {};  // taken after the adds, which may move the rows
  for (int r = 0; r < count; ++r) J[r] = rows[first + r].J.data();
  addWrenchPairs(model, data, body_a, body_b, f_world, J, count);
  return first;
}

ABDYN_FLATTEN void addWrenchToRow(const Model& model, const Data& data, int body, const Force& f_world, double sign,
                                  Eigen::VectorXd& J) {
  internal::checkData(model, data, "abdyn::addWrenchToRow");
  internal::checkBody(model, body, "abdyn::addWrenchToRow", "body");
  internal::checkWorldColumns(data, "abdyn::addWrenchToRow");
  for (int i = body; i > 0; i = model.parent(i)) addJointColumns(model, data, i, f_world, sign, J);
}

ConstraintRow& addLinearRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                            const Vector3& p_world, const Vector3& n_world) {
  internal::checkData(model, data, "abdyn::addLinearRow");
  return addPairRow(rows, model, data, body_a, body_b, Force(p_world.cross(n_world), n_world), "abdyn::addLinearRow");
}

ConstraintRow& addAngularRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                             const Vector3& a_world) {
  internal::checkData(model, data, "abdyn::addAngularRow");
  return addPairRow(rows, model, data, body_a, body_b, Force(a_world, Vector3::Zero()), "abdyn::addAngularRow");
}

void orthonormalComplement(const Vector3& n, Vector3& t1, Vector3& t2) { internal::orthonormalComplement(n, t1, t2); }

}  // namespace abdyn
