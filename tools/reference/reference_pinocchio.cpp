// Reference outputs of Pinocchio on one URDF: forward dynamics (ABA), inverse dynamics (RNEA), the mass
// matrix (CRBA) and every link's pose, at seeded random states, in Pinocchio's layout; for the first
// [derivative states] states also computeRNEADerivatives and computeABADerivatives.
//
// usage: reference_pinocchio <file.urdf> <model name> <fixed|floating> <out.json> [states] [seed]
//                            [derivative states]

#include <algorithm>
#include <iostream>

#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/model.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include "common.hpp"

using reference::Draw;

int main(int argc, char** argv) try {
  reference::Arguments args;
  if (!reference::parseArguments(argc, argv, "reference_pinocchio", args)) return 2;
  const std::string &path = args.path, &name = args.name, &base = args.base;
  const bool floating = args.floating;
  const reference::UrdfInfo urdf = reference::readUrdf(path);

  pinocchio::Model model;
  if (floating) pinocchio::urdf::buildModel(path, pinocchio::JointModelFreeFlyer(), "root_joint", model);
  else pinocchio::urdf::buildModel(path, model);
  model.gravity.linear(Eigen::Vector3d(0.0, 0.0, -9.81));
  model.gravity.angular(Eigen::Vector3d::Zero());
  pinocchio::Data data(model);

  reference::Header h;
  h.peer = "pinocchio";
  h.version = std::string(PINOCCHIO_VERSION) + " (stack-of-tasks/pinocchio c51d923)";
  h.model = name;
  h.base = base;
  h.nq = model.nq;
  h.nv = model.nv;
  h.gravity = model.gravity.linear();
  h.convention =
      "Pinocchio: floating q=[x,y,z, qx,qy,qz,qw, joints...], v, a and tau of the free flyer [linear; angular] "
      "in the body frame; a continuous joint is (cos, sin) in q. ABA and RNEA include armature (zero from a "
      "URDF) and ignore URDF damping. link_poses: data.oMf of each link's BODY frame (rotation row-major, "
      "link axes as columns; translation) after framesForwardKinematics.";
  h.note = "URDF read by pinocchio::urdf::buildModel (urdfdom) from models/" + name + ".urdf";

  for (pinocchio::JointIndex j = 1; j < static_cast<pinocchio::JointIndex>(model.njoints); ++j)
    for (int k = 0; k < model.joints[j].nv(); ++k) {
      const std::string& n = model.names[j];
      h.dof_names.push_back(n == "root_joint" ? std::string("__root__:") + (k < 3 ? "v" : "w") + "xyz"[k % 3] : n);
    }
  for (const auto& l : urdf.links)
    if (model.existFrame(l, pinocchio::BODY)) h.links.push_back(l);

  Draw draw(args.seed);
  h.Mx_x = draw.vector(h.nv, 1.0);
  h.convention +=
      " dtau_dq, dtau_dv (computeRNEADerivatives at q, v, acc), ddq_dq, ddq_dv, Minv (computeABADerivatives at q, v, "
      "tau; Minv symmetrised from its upper triangle) where present: columns in Pinocchio's tangent coordinates, "
      "the perturbation q exp(dv) of pinocchio::integrate (free flyer [linear; angular] in the body frame).";
  std::vector<reference::Outputs> states;
  for (int s = 0; s < args.states; ++s) {
    reference::Outputs o;
    o.q = Eigen::VectorXd::Zero(model.nq);
    for (pinocchio::JointIndex j = 1; j < static_cast<pinocchio::JointIndex>(model.njoints); ++j) {
      const auto& joint = model.joints[j];
      const int iq = joint.idx_q();
      if (joint.nq() == 7) {  // free flyer
        for (int k = 0; k < 3; ++k) o.q[iq + k] = draw.uniform(-reference::kPosition, reference::kPosition);
        o.q.segment<4>(iq + 3) = draw.quaternionXyzw();
      } else if (joint.nq() == 2 && joint.nv() == 1) {  // continuous: (cos, sin)
        const double a = draw.uniform(-M_PI, M_PI);
        o.q[iq] = std::cos(a);
        o.q[iq + 1] = std::sin(a);
      } else if (joint.nq() == 1) {
        const reference::UrdfJoint& u = urdf.joints.at(model.names[j]);
        o.q[iq] = draw.uniform(u.lower, u.upper);
      } else {
        throw std::runtime_error("unexpected joint " + model.names[j]);
      }
    }
    reference::drawInputs(draw, h.nv, o);

    o.fd_qdd = pinocchio::aba(model, data, o.q, o.v, o.tau);
    o.id_tau = pinocchio::rnea(model, data, o.q, o.v, o.acc);
    pinocchio::crba(model, data, o.q);
    // crba fills the upper triangle only.
    data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
    o.M = data.M;

    if (s < args.derivative_states) {
      // Columns in Pinocchio's tangent coordinates (the perturbation of its integrate: q exp(dv) on the
      // right, in each joint's child frame, free flyer linear first); rows in the layout of tau and a.
      pinocchio::computeRNEADerivatives(model, data, o.q, o.v, o.acc);
      o.dtau_dq = data.dtau_dq;
      o.dtau_dv = data.dtau_dv;
      pinocchio::computeABADerivatives(model, data, o.q, o.v, o.tau);
      o.ddq_dq = data.ddq_dq;
      o.ddq_dv = data.ddq_dv;
      // Minv is documented as filled in its upper triangle only.
      data.Minv.triangularView<Eigen::StrictlyLower>() = data.Minv.transpose().triangularView<Eigen::StrictlyLower>();
      o.Minv = data.Minv;
    }

    pinocchio::framesForwardKinematics(model, data, o.q);
    for (const auto& l : h.links) {
      const pinocchio::SE3& oMf = data.oMf[model.getFrameId(l, pinocchio::BODY)];
      o.R.emplace_back(l, oMf.rotation());
      o.p.push_back(oMf.translation());
    }
    states.push_back(std::move(o));
  }
  reference::write(args.out, h, states);
  std::cout << args.out << ": nq " << h.nq << ", nv " << h.nv << ", " << h.links.size() << " links, "
            << std::min(args.derivative_states, args.states) << " states with derivatives\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "reference_pinocchio: " << e.what() << "\n";
  return 1;
}
