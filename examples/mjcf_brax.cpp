// Brax's ant and humanoid, as MJCF models (models/ant.xml, models/humanoid.xml, written for abdyn in the
// style of Brax's environment files), stepped with abdyn's forward dynamics. Brax compiles its systems
// from MJCF through MuJoCo and keeps MuJoCo's state layout, which loadMjcf keeps too: q is qpos as is,
// and only the free joint's velocity differs. Each step prints both layouts side by side, with the
// Pluecker convention of each quantity named:
//   abdyn  v = [w_b; v_b]: the torso's spatial velocity in torso coordinates (Featherstone's motion
//          vector); the torso pose as data.X_body_world, a Plx X_torso_world (world to torso
//          coordinates, left-associative: X_C_A = X_C_B X_B_A).
//   Brax   qd = [pdot; w_b]: the origin's velocity in the world, the angular velocity in the torso; the
//          pose as a Transform (Plxb: the torso's position and orientation in the world,
//          right-associative: T_A_C = T_A_B T_B_C), Plxb::fromPlx(X_torso_world).
//
//   example_mjcf_brax models/ant.xml [steps]

#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "abdyn/abdyn.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: example_mjcf_brax MODEL.xml [steps]\n";
    return 2;
  }
  try {
    const abdyn::Model model = abdyn::loadMjcf(argv[1]);
    abdyn::Data data(model);
    const int steps = argc == 3 ? std::atoi(argv[2]) : 5;
    const double dt = model.timestep();
    const int torso = model.bodyId("torso");

    // Start at the file's first keyframe (or qpos0's neutral pose), spinning at 1 rad/s about z.
    abdyn::State s;
    s.q = model.configurations().empty() ? abdyn::neutral(model) : model.configurations()[0].q;
    s.v = Eigen::VectorXd::Zero(model.nv());
    s.v[2] = 1.0;
    const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
    std::cout << std::fixed << std::setprecision(5);
    std::cout << model.name() << ": nq " << model.nq() << ", nv " << model.nv() << ", dt " << dt << " s\n";
    for (int k = 0; k <= steps; ++k) {
      const abdyn::State brax = abdyn::brax::stateFromAbdyn(model, s);
      abdyn::forwardKinematics(model, data, s.q);
      const abdyn::Plx& X_torso_world = data.X_body_world[static_cast<std::size_t>(torso)];
      const abdyn::Plxb T_world_torso = abdyn::Plxb::fromPlx(X_torso_world);
      std::cout << "step " << k << "\n"
                << "  q (abdyn = Brax = MuJoCo qpos)       " << s.q.head(7).transpose() << "\n"
                << "  abdyn v [w_b; v_b]   (plx motion)    " << s.v.head(6).transpose() << "\n"
                << "  Brax qd [pdot; w_b]  (world, body)   " << brax.v.head(6).transpose() << "\n"
                << "  abdyn X_torso_world  (plx) r         " << X_torso_world.r().transpose() << "\n"
                << "  Brax Transform pos   (plxb)          " << T_world_torso.position().transpose() << "\n";
      // Semi-implicit Euler, as Brax's generalized pipeline and MuJoCo's Euler step: v first, then q.
      s.v += dt * abdyn::forwardDynamics(model, data, s.q, s.v, tau);
      Eigen::VectorXd q_next(model.nq());
      abdyn::integrate(model, s.q, s.v, dt, q_next);
      s.q = q_next;
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
