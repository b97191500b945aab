#include "abdyn/algorithms/crba.hpp"

#include <algorithm>

#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"
#include "model/passes.hpp"

namespace abdyn {
namespace {

// Coordinate k's strict ancestors (ascending) in the factor's pattern, and how many there are.
const int* ancestors(const Model& model, const Data& data, int k) {
  return data.factor_ancestors.data() + model.ancestorOffset(k);
}
int ancestorCount(const Model& model, int k) {
  return static_cast<int>(model.ancestorOffset(k + 1) - model.ancestorOffset(k));
}

// The factor's storage exists once the mass matrix has been formed (massMatrix allocates it on big models).
void checkFactorStorage(const Model& model, const Data& data, const char* function) {
  if (data.factor_L.size() != model.ancestorPairs() || data.M.rows() != model.nv()) {
    throw InvalidArgument(std::string(function) + ": argument 'data' holds no mass matrix yet: call abdyn::massMatrix" +
                          " (and factorizeMassMatrix before a solve) first");
  }
}

// X^T I X with X = X_i_r: body i's inertia in r's coordinates, centre of mass E^T c + r and rotational
// inertia E^T Ic E. The latter is symmetric, so one triangle of dot products of E's columns with
// Ic E's suffices: 45 multiplications instead of the 54 of two dense 3x3 products.
ABDYN_ALWAYS_INLINE RigidBodyInertia inertiaInSubtreeFrame(const Plx& X_i_r, const RigidBodyInertia& I) {
  const Matrix3& E = X_i_r.E();
  const Matrix3 IcE = I.inertiaAboutCom() * E;
  Matrix3 rotated;
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r <= c; ++r) rotated(r, c) = rotated(c, r) = E.col(r).dot(IcE.col(c));
  }
  return RigidBodyInertia::unchecked(I.mass(), E.transpose() * I.com() + X_i_r.r(), rotated);
}

// Ic_p += Ic_i in the centre-of-mass form (RigidBodyInertia::operator+= and its parallel-axis term),
// with one reciprocal of the joint mass where operator+= divides four times. In a chain each level's
// sum waits for the level below, so the divisions' latency adds up along the whole backward pass.
ABDYN_ALWAYS_INLINE void addToComposite(RigidBodyInertia& Ic_p, const RigidBodyInertia& Ic_i) {
  const double m1 = Ic_p.mass();
  const double m2 = Ic_i.mass();
  const double m = m1 + m2;
  if (m == 0.0) {
    Ic_p = RigidBodyInertia::unchecked(0.0, Ic_p.com(), Ic_p.inertiaAboutCom() + Ic_i.inertiaAboutCom());
    return;
  }
  const double inverse_m = 1.0 / m;
  const Vector3 d = Ic_p.com() - Ic_i.com();
  const double mu = m1 * m2 * inverse_m;
  Matrix3 Ic = Ic_p.inertiaAboutCom() + Ic_i.inertiaAboutCom();
  Ic.noalias() -= (mu * d) * d.transpose();  // -[d]x [d]x = |d|^2 1 - d d^T
  Ic.diagonal().array() += mu * d.squaredNorm();
  Ic_p = RigidBodyInertia::unchecked(m, (m1 * inverse_m) * Ic_p.com() + (m2 * inverse_m) * Ic_i.com(), Ic);
}

// X_i_r^-1 S_k = [E^T w; E^T v + r x E^T w], column k of S in r's coordinates. For an axis pick
// (S = s e_a, Joint::axis_column and axis_sign) E^T e_a is row a of E: a revolute axis becomes
// [s E_a; r x s E_a] and a prismatic one [0; s E_a], 9 and 3 multiplications instead of 24.
ABDYN_ALWAYS_INLINE Vector6 axisInSubtreeFrame(const Plx& X_i_r, const Joint& j, const Matrix6X& S, int k) {
  Vector6 S_r;
  if (j.axis_column >= 0) {
    const Vector3 axis = j.axis_sign * X_i_r.E().row(j.axis_column % 3).transpose();
    if (j.axis_column < 3) {
      S_r << axis, X_i_r.r().cross(axis);
    } else {
      S_r << Vector3::Zero(), axis;
    }
  } else {
    S_r = X_i_r.applyInverse(Motion(Vector6(S.col(k)))).vector();
  }
  return S_r;
}

}  // namespace

ABDYN_FLATTEN const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::massMatrix");
  internal::checkDynamics(model, "abdyn::massMatrix");
  internal::checkConfiguration(model, q, "abdyn::massMatrix");
  internal::checkDynamicsOptions(options, "abdyn::massMatrix");
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
  }
  return internal::massMatrixAtTransforms(model, data, options);
}

namespace internal {

ABDYN_FLATTEN const Eigen::MatrixXd& massMatrixAtTransforms(const Model& model, Data& data, const DynamicsOptions& options) {
  // Composite-rigid-body algorithm in one frame per subtree: with every joint axis S_k and every
  // composite inertia Ic_i moved once into the coordinates of r, the body at the top of i's subtree, entry
  // M(l, k) for an ancestor coordinate l of k is the dot product S_l . (Ic_i S_k), one 6-vector product
  // instead of a transform per ancestor. The entries do not depend on the common frame, and no entry couples
  // two subtrees of the world; r's own coordinates (rather than the world's) spare r's transforms and keep a
  // floating base's axes the unit vectors.
  reserveMassMatrix(model, data);
  const auto& S = model.motionSubspace();
  const int n = model.nbodies();
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    if (p > 0) {
      data.crba.X_subtree[i] = model.parent(p) == 0 ? data.X_up[i] : data.X_up[i] * data.crba.X_subtree[p];
      data.crba.I_composite[i] = inertiaInSubtreeFrame(data.crba.X_subtree[i], model.inertia(i));
      for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
        data.crba.S_subtree.col(k) = axisInSubtreeFrame(data.crba.X_subtree[i], j, S, k);
      }
    } else {
      data.crba.I_composite[i] = model.inertia(i);
      data.crba.S_subtree.middleCols(j.idx_v, j.nv) = S.middleCols(j.idx_v, j.nv);
    }
  }
  // Only entries of ancestor pairs are written, into both triangles at once. Every other entry is zero by
  // the tree's structure and stays as Data's constructor left it, so a bushy tree costs O(n depth) memory
  // traffic instead of two passes over all n^2 entries.
  for (int i = n - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    if (p == 0 && j.identitySubspace()) {
      // A floating base's axes in its own coordinates (S = 1) are the unit vectors: its block is Ic itself,
      // mirrored from the upper triangle so that M is symmetric to the last bit.
      auto block = data.M.block<6, 6>(j.idx_v, j.idx_v);
      block = data.crba.I_composite[i].matrix();
      for (int r = 1; r < 6; ++r) {
        for (int c = 0; c < r; ++c) block(r, c) = block(c, r);
      }
      continue;
    }
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
      const Vector6 F = (data.crba.I_composite[i] * Motion(Vector6(data.crba.S_subtree.col(k)))).vector();
      // Ancestor coordinates come in runs of consecutive indices (a whole chain is one run).
      for (int l = k; l >= 0;) {
        int start = model.dofRunStart(l);
        const int run_start = start;
        const int top = model.dofBody(start);
        if (model.parent(top) == 0 && model.joint(top).identitySubspace()) {
          // The same unit axes: the floating base's entries are F's.
          const int length = std::min(l - start + 1, 6);
          data.M.col(k).segment(start, length) = F.head(length);
          data.M.row(k).segment(start, length) = F.head(length).transpose();
          start += length;
        }
        // One fixed-size 6-term dot product per entry, written to both triangles: Eigen's
        // dynamic-size product S^T F over the run cost about 45 instructions per entry (callgrind).
        for (int a = start; a <= l; ++a) {
          data.M(a, k) = data.M(k, a) = Vector6::Map(data.crba.S_subtree.col(a).data()).dot(F);
        }
        l = model.dofParent(run_start);
      }
    }
    if (p > 0) addToComposite(data.crba.I_composite[p], data.crba.I_composite[i]);
  }
  if (options.armature) data.M.diagonal() += model.armature();
  if (options.damping) data.M.diagonal() += options.implicit_damping_step * model.damping();
  return data.M;
}

}  // namespace internal

ABDYN_FLATTEN void factorizeMassMatrix(const Model& model, Data& data) {
  // Featherstone's LTDL (RBDA sec. 6.5): eliminate from the last coordinate up, touching only ancestor
  // pairs, so no fill-in occurs. Row k of L is packed along k's ancestors A_k (ascending); the ancestors of
  // its t-th entry i = A_k[t] are A_k[0..t), so eliminating k from row i is one contiguous update of the
  // first t entries of both packed rows.
  internal::checkData(model, data, "abdyn::factorizeMassMatrix");
  internal::checkDynamics(model, "abdyn::factorizeMassMatrix");
  checkFactorStorage(model, data, "abdyn::factorizeMassMatrix");
  internal::factorizeAtMassMatrix(model, data);
}

namespace internal {

void factorizeAtMassMatrix(const Model& model, Data& data) {
  const int k = factorizeAtMassMatrix(model, data, 0.0);
  if (k >= 0) {
    throw Error("abdyn::factorizeMassMatrix: mass matrix of model '" + model.name() + "' is not positive definite (pivot " +
                std::to_string(data.factor_D[k]) + " at coordinate " + std::to_string(k) + ")");
  }
}

ABDYN_FLATTEN int factorizeAtMassMatrix(const Model& model, Data& data, double relative_pivot) {
  double* __restrict L = data.factor_L.data();
  double* __restrict D = data.factor_D.data();
  for (int k = 0; k < model.nv(); ++k) {
    D[k] = data.M(k, k);
    double* __restrict lk = L + model.ancestorOffset(k);
    const double* mk = data.M.col(k).data();
    const int* A = ancestors(model, data, k);
    for (int t = 0, count = ancestorCount(model, k); t < count; ++t) lk[t] = mk[A[t]];
  }
  for (int k = model.nv() - 1; k >= 0; --k) {
    if (!(D[k] > 0.0) || D[k] <= relative_pivot * data.M(k, k)) return k;
    const double inverse_d = 1.0 / D[k];
    double* __restrict lk = L + model.ancestorOffset(k);
    const int* A = ancestors(model, data, k);
    for (int t = ancestorCount(model, k) - 1; t >= 0; --t) {
      const int i = A[t];
      const double a = lk[t] * inverse_d;
      D[i] -= a * lk[t];
      double* __restrict li = L + model.ancestorOffset(i);
      for (int s = 0; s < t; ++s) li[s] -= a * lk[s];
      lk[t] = a;
    }
  }
  return -1;
}

// The products with L and the solves: checked at their public doors, unchecked (internal::) inside the solvers.
void multiplyByL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = model.nv() - 1; k >= 0; --k) {
    const double* lk = data.factor_L.data() + model.ancestorOffset(k);
    const int* A = ancestors(model, data, k);
    for (int t = 0, count = ancestorCount(model, k); t < count; ++t) x[k] += lk[t] * x[A[t]];
  }
}

void multiplyByLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  for (int k = 0; k < model.nv(); ++k) {
    const double* lk = data.factor_L.data() + model.ancestorOffset(k);
    const int* A = ancestors(model, data, k);
    for (int t = 0, count = ancestorCount(model, k); t < count; ++t) x[A[t]] += lk[t] * x[k];
  }
}

ABDYN_FLATTEN void solveL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  double* __restrict xs = x.data();
  for (int k = 0; k < model.nv(); ++k) {  // coordinate k gathers from its ancestors
    const double* __restrict lk = data.factor_L.data() + model.ancestorOffset(k);
    const int* __restrict A = ancestors(model, data, k);
    double sum = 0.0;
    for (int t = 0, count = ancestorCount(model, k); t < count; ++t) sum += lk[t] * xs[A[t]];
    xs[k] -= sum;
  }
}

ABDYN_FLATTEN void solveLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  double* __restrict xs = x.data();
  for (int k = model.nv() - 1; k >= 0; --k) {  // coordinate k feeds its ancestors
    const double xk = xs[k];
    if (xk == 0.0) continue;  // sparse right-hand sides (one row of a constraint Jacobian) skip most of the tree
    const double* __restrict lk = data.factor_L.data() + model.ancestorOffset(k);
    const int* __restrict A = ancestors(model, data, k);
    for (int t = 0, count = ancestorCount(model, k); t < count; ++t) xs[A[t]] -= lk[t] * xk;
  }
}

// L^-T carries entries only towards the root (ancestors have lower indices): the coordinates the solve
// reaches lie between the lowest ancestor met so far and end, and k only lowers that bound by its root-most
// ancestor A_k[0]. A vector whose x_k is zero skips k (x - l * 0 would leave it as it is).
ABDYN_FLATTEN int solveLTransposedSpan(const Model& model, const Data& data, double* const* x, int count, int first,
                                       int end) {
  double* __restrict x0 = x[0];
  double* __restrict x1 = count > 1 ? x[1] : nullptr;
  double* __restrict x2 = count > 2 ? x[2] : nullptr;
  int lowest = first;
  for (int k = end - 1; k >= lowest; --k) {
    const double a0 = x0[k], a1 = x1 != nullptr ? x1[k] : 0.0, a2 = x2 != nullptr ? x2[k] : 0.0;
    if (a0 == 0.0 && a1 == 0.0 && a2 == 0.0) continue;
    const int n = ancestorCount(model, k);
    if (n == 0) continue;
    const double* __restrict lk = data.factor_L.data() + model.ancestorOffset(k);
    const int* __restrict A = ancestors(model, data, k);
    lowest = std::min(lowest, A[0]);
    if (a0 != 0.0) {
      for (int t = 0; t < n; ++t) x0[A[t]] -= lk[t] * a0;
    }
    if (a1 != 0.0) {
      for (int t = 0; t < n; ++t) x1[A[t]] -= lk[t] * a1;
    }
    if (a2 != 0.0) {
      for (int t = 0; t < n; ++t) x2[A[t]] -= lk[t] * a2;
    }
  }
  return lowest;
}

void solveWithFactor(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  // M^-1 = L^-1 D^-1 L^-T.
  internal::solveLTransposed(model, data, x);
  x.array() /= data.factor_D.array();
  internal::solveL(model, data, x);
}

}  // namespace internal

namespace {

// The door of the factor's public passes: data belongs to the model and holds a factor, x has nv entries;
// then the unchecked pass.
void throughFactor(void (*pass)(const Model&, const Data&, Eigen::Ref<Eigen::VectorXd>), const Model& model,
                   const Data& data, Eigen::Ref<Eigen::VectorXd> x, const char* function, const char* argument) {
  internal::checkData(model, data, function);
  checkFactorStorage(model, data, function);
  internal::checkVector(x, model.nv(), function, argument);
  pass(model, data, x);
}

}  // namespace

void multiplyByL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  throughFactor(internal::multiplyByL, model, data, x, "abdyn::multiplyByL", "x");
}

void multiplyByLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  throughFactor(internal::multiplyByLTransposed, model, data, x, "abdyn::multiplyByLTransposed", "x");
}

void solveL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  throughFactor(internal::solveL, model, data, x, "abdyn::solveL", "x");
}

void solveLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  throughFactor(internal::solveLTransposed, model, data, x, "abdyn::solveLTransposed", "x");
}

void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> b) {
  throughFactor(internal::solveWithFactor, model, data, b, "abdyn::solveMassMatrix", "b");
}

}  // namespace abdyn
