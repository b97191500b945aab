#include "abdyn/model/data.hpp"

namespace abdyn {

Data::Data(const Model& model) {
  const int n = model.nbodies();
  const int nv = model.nv();
  X_up.assign(n, Plx());
  X_world.assign(n, Plx());
  X_subtree.assign(n, Plx());
  v.assign(n, Motion());
  a.assign(n, Motion());
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
  D.setZero(nv);
  u.setZero(nv);
  Dinv_block.setZero(nv, 6);
  tau.setZero(nv);
  qdd.setZero(nv);
  M.setZero(nv, nv);
  factor_L.setZero(model.ancestorPairs());
  factor_D.setZero(nv);
  Minv.setZero(nv, nv);
  Minv_F.assign(n, Matrix6X::Zero(6, nv));
  Minv_tmp.setZero(6, nv);
  tmp_v.setZero(nv);
  dtau_dq.setZero(nv, nv);
  dtau_dv.setZero(nv, nv);
  dqdd_dq.setZero(nv, nv);
  dqdd_dv.setZero(nv, nv);
  dqdd_dtau.setZero(nv, nv);
  deriv.S.setZero(6, nv);
  deriv.v.assign(n, Motion());
  deriv.a.assign(n, Motion());
  deriv.F.assign(n, Force());
  deriv.H.assign(n, Force());
  deriv.Ic.assign(n, Matrix6::Zero());
  deriv.B.assign(n, Matrix6::Zero());
  for (Matrix6X* m : {&deriv.P, &deriv.Q, &deriv.alpha, &deriv.u, &deriv.w, &deriv.Gq, &deriv.Gv}) m->setZero(6, nv);
}

}  // namespace abdyn
