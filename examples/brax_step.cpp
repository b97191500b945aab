// A Brax-style step written with abdyn. Brax (and MuJoCo) keep a free joint's q as (position, quaternion
// w-first) and its velocity as (linear velocity in the world, angular velocity in the body); abdyn's
// floating-joint velocity is the body's spatial velocity in body coordinates, angular first. The state
// stays in Brax's layout between steps and is converted at the boundary by abdyn::brax.
//
//   example_brax_step models/quadruped.urdf

#include <iostream>

#include "abdyn/abdyn.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  return example::runWithOneFile(argc, argv, "example_brax_step MODEL.urdf", [](const char* path) {
    abdyn::UrdfOptions options;
    options.floating_base = true;
    const abdyn::Model model = abdyn::loadUrdf(path, options);
    abdyn::Data data(model);

    // The Brax state: dropped from rest, spinning about its vertical axis at 1 rad/s.
    abdyn::State start;
    start.q = abdyn::neutral(model);
    start.v = Eigen::VectorXd::Zero(model.nv());
    start.v[2] = 1.0;  // abdyn's body angular velocity about z
    abdyn::State brax = abdyn::brax::stateFromAbdyn(model, start);

    const double dt = 1e-3;
    for (int k = 0; k < 500; ++k) {
      // Brax's generalized step: accelerations at (q, qd), then qd += dt qdd, then q moved by the new qd.
      abdyn::State s = abdyn::brax::stateToAbdyn(model, brax);
      const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
      s.v += dt * abdyn::forwardDynamics(model, data, s.q, s.v, tau);
      Eigen::VectorXd q_next(model.nq());
      abdyn::integrate(model, s.q, s.v, dt, q_next);
      s.q = q_next;
      brax = abdyn::brax::stateFromAbdyn(model, s);
    }
    std::cout << "after 0.5 s, Brax q[0..6] (position, quaternion w-first): " << brax.q.head(7).transpose() << "\n"
              << "Brax qd[0..5] (linear velocity in the world, angular in the body): " << brax.v.head(6).transpose()
              << "\n";
    return 0;
  });
}
