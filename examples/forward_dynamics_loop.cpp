// Load a URDF robot and call forward dynamics (ABA) in a loop: the pattern of a control or simulation
// loop. Data is built once; the calls inside the loop allocate nothing.
//
//   example_forward_dynamics_loop models/iiwa7.urdf

#include <iostream>

#include "abdyn/abdyn.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  return example::runWithOneFile(argc, argv, "example_forward_dynamics_loop MODEL.urdf", [](const char* path) {
    const abdyn::Model model = abdyn::loadUrdf(path);
    abdyn::Data data(model);  // all workspace, allocated here once

    Eigen::VectorXd q = abdyn::neutral(model), v = Eigen::VectorXd::Constant(model.nv(), 0.5);
    Eigen::VectorXd q_next(model.nq()), tau(model.nv());
    const double h = 1e-3;
    for (int k = 0; k < 1000; ++k) {
      // Gravity compensation plus joint damping (assigning into sized vectors allocates nothing).
      tau = abdyn::gravityTorques(model, data, q);
      tau -= 0.5 * v;
      const Eigen::VectorXd& qdd = abdyn::forwardDynamics(model, data, q, v, tau);
      v += h * qdd;                           // semi-implicit Euler:
      abdyn::integrate(model, q, v, h, q_next);  // the new velocity moves q (on the manifold)
      q.swap(q_next);
    }
    std::cout << model.name() << ": 1 s of gravity compensation and damping from 0.5 rad/s per joint, final speed |v| = " << v.norm() << "\n";
    return 0;
  });
}
