#include "abdyn/algorithms/crba.hpp"

#include <algorithm>

#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {

ABDYN_FLATTEN const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                const DynamicsOptions& options) {
  internal::checkConfiguration(model, q, "abdyn::massMatrix");
  // Composite-rigid-body algorithm in one frame per subtree: with every joint axis S_k and every
  // composite inertia Ic_i moved once into the coordinates of r, the body at the top of i's subtree, entry
  // M(l, k) for an ancestor coordinate l of k is the dot product S_l . (Ic_i S_k), one 6-vector product
  // instead of a transform per ancestor. The entries do not depend on the common frame, and no entry couples
  // two subtrees of the world; r's own coordinates (rather than the world's) spare r's transforms and keep a
  // floating base's axes the unit vectors.
  const auto& S = model.motionSubspace();
  const int n = model.nbodies();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    if (p > 0) {
      data.X_subtree[i] = model.parent(p) == 0 ? data.X_up[i] : data.X_up[i] * data.X_subtree[p];
      data.I_composite[i] = data.X_subtree[i].applyInverse(model.inertia(i));
      for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
        data.S_subtree.col(k) = data.X_subtree[i].applyInverse(Motion(S.col(k))).vector();
      }
    } else {
      data.I_composite[i] = model.inertia(i);
      data.S_subtree.middleCols(j.idx_v, j.nv) = S.middleCols(j.idx_v, j.nv);
    }
  }
  // Only entries of ancestor pairs are written, into both triangles at once. Every other entry is zero by
  // the tree's structure and stays as Data's constructor left it, so a bushy tree costs O(n depth) memory
  // traffic instead of two passes over all n^2 entries.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    if (p == 0 && j.type == JointType::Floating) {
      // A floating base's axes in its own coordinates are the unit vectors: its block is Ic itself,
      // mirrored from the upper triangle so that M is symmetric to the last bit.
      auto block = data.M.block<6, 6>(j.idx_v, j.idx_v);
      block = data.I_composite[i].matrix();
      for (int r = 1; r < 6; ++r) {
        for (int c = 0; c < r; ++c) block(r, c) = block(c, r);
      }
      continue;
    }
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
      const Vector6 F = (data.I_composite[i] * Motion(Vector6(data.S_subtree.col(k)))).vector();
      // Ancestor coordinates come in runs of consecutive indices (a whole chain is one run), each
      // handled by one transposed matrix-vector product.
      for (int l = k; l >= 0;) {
        int start = model.dofRunStart(l);
        const int run_start = start;
        const int top = model.dofBody(start);
        if (model.parent(top) == 0 && model.joint(top).type == JointType::Floating) {
          // The same unit axes: the floating base's entries are F's.
          const int length = std::min(l - start + 1, 6);
          data.M.col(k).segment(start, length) = F.head(length);
          data.M.row(k).segment(start, length) = F.head(length).transpose();
          start += length;
        }
        if (start <= l) {
          const int length = l - start + 1;
          auto column = data.M.col(k).segment(start, length);
          column.noalias() = data.S_subtree.middleCols(start, length).transpose() * F;
          data.M.row(k).segment(start, length) = column.transpose();
        }
        l = model.dofParent(run_start);
      }
    }
    if (p > 0) data.I_composite[p] += data.I_composite[i];
  }
  if (options.armature) data.M.diagonal() += model.armature();
  return data.M;
}

void factorizeMassMatrix(const Model& model, Data& data) {
  // Featherstone's LTDL: eliminate from the last coordinate up, touching only ancestor pairs
  // (lambda = Model::dofParent), so no fill-in occurs.
  // Only ancestor pairs are copied: L's other entries are zero from Data's constructor and never written.
  Eigen::MatrixXd& H = data.L;
  for (int k = 0; k < model.nv(); ++k) {
    for (int l = k; l >= 0;) {
      const int start = model.dofRunStart(l), length = l - start + 1;
      H.row(k).segment(start, length) = data.M.row(k).segment(start, length);
      l = model.dofParent(start);
    }
  }
  for (int k = model.nv() - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0)) {
      throw Error("abdyn::factorizeMassMatrix: mass matrix of model '" + model.name() + "' is not positive definite (pivot " +
                  std::to_string(H(k, k)) + " at coordinate " + std::to_string(k) + ")");
    }
    for (int i = model.dofParent(k); i >= 0; i = model.dofParent(i)) {
      const double a = H(k, i) / H(k, k);
      for (int j = i; j >= 0; j = model.dofParent(j)) H(i, j) -= a * H(k, j);
      H(k, i) = a;
    }
  }
}

void multiplyByL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = model.nv() - 1; k >= 0; --k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[k] += data.L(k, j) * x[j];
  }
}

void multiplyByLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = 0; k < model.nv(); ++k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[j] += data.L(k, j) * x[k];
  }
}

void solveL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = 0; k < model.nv(); ++k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[k] -= data.L(k, j) * x[j];
  }
}

void solveLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = model.nv() - 1; k >= 0; --k) {
    for (int j = model.dofParent(k); j >= 0; j = model.dofParent(j)) x[j] -= data.L(k, j) * x[k];
  }
}

void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> b) {
  internal::checkVector(b, model.nv(), "abdyn::solveMassMatrix", "b");
  // M^-1 = L^-1 D^-1 L^-T.
  solveLTransposed(model, data, b);
  b.array() /= data.L.diagonal().array();
  solveL(model, data, b);
}

}  // namespace abdyn
