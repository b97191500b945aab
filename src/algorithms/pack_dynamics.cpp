#include "algorithms/pack_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <new>

namespace abdyn::internal {

namespace {

// Column k of S as a pick: the index a and sign when it is +-e_a exactly, else -1.
int unitColumn(const Vector6& s, double& sign) {
  int a = -1;
  for (int r = 0; r < 6; ++r) {
    if (s[r] == 0.0) continue;
    if (a >= 0 || std::abs(s[r]) != 1.0) return -1;
    a = r;
  }
  sign = a >= 0 ? s[a] : 1.0;
  return a;
}

}  // namespace

PackModel::PackModel(const Model& model)
    : bodies(static_cast<std::size_t>(model.nbodies())),
      nq(model.nq()),
      nv(model.nv()),
      armature(model.armature().data(), model.armature().data() + model.nv()),
      damping(model.damping().data(), model.damping().data() + model.nv()),
      spring_reference(model.springReference().data(), model.springReference().data() + model.nq()) {
  for (int r = 0; r < 6; ++r) minus_gravity[r] = -model.gravity().vector()[r];
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    PackBody& B = bodies[static_cast<std::size_t>(i)];
    B.parent = model.parent(i);
    B.type = j.type;
    B.idx_q = j.idx_q;
    B.idx_v = j.idx_v;
    B.nv = j.nv;
    const Vector3 t2 = j.axis.cross(j.axis2);
    for (int k = 0; k < 3; ++k) {
      B.axis[k] = j.axis[k];
      B.axis2[k] = j.axis2[k];
      B.axis3[k] = t2[k];
      B.r_tree[k] = model.Xtree(i).r()[k];
      B.com[k] = model.inertia(i).com()[k];
      for (int c = 0; c < 3; ++c) B.E_tree[3 * k + c] = model.Xtree(i).E()(k, c);
    }
    B.pitch = j.pitch;
    B.stiffness = model.stiffness()[j.idx_v];
    B.mass = model.inertia(i).mass();
    const Matrix6& I = model.inertiaMatrix(i);
    for (int r = 0; r < 6; ++r) {
      for (int c = 0; c <= r; ++c) B.I[r * (r + 1) / 2 + c] = I(r, c);
    }
    for (int k = 0; k < j.nv; ++k) {
      const Vector6 s = model.motionSubspace().col(j.idx_v + k);
      for (int r = 0; r < 6; ++r) B.S[6 * k + r] = s[r];
      B.pick[k] = unitColumn(s, B.pick_sign[k]);
    }
  }
}

PackWorkspace::Buffer PackWorkspace::allocate(std::size_t doubles) {
  // std::aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t bytes = std::max<std::size_t>(64, (doubles * sizeof(double) + 63) / 64 * 64);
  auto* p = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  return Buffer(p);
}

PackWorkspace::PackWorkspace(const Model& model) : model_(model), kernels_(&packKernels()) {
  const auto W = static_cast<std::size_t>(kernels_->lanes);
  const auto nq = static_cast<std::size_t>(model.nq()), nv = static_cast<std::size_t>(model.nv());
  work_ = allocate(packWorkDoublesPerLane(model_) * W);
  q_ = allocate(nq * W);
  v_ = allocate(nv * W);
  x_ = allocate(nv * W);
  y_ = allocate(std::max(nv, nv * nv) * W);
}

}  // namespace abdyn::internal
