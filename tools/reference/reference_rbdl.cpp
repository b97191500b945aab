// Reference outputs of RBDL on one URDF: forward dynamics (ABA), inverse dynamics (RNEA), the mass
// matrix (CRBA) and every link's pose, at seeded random states, in RBDL's native layout.
//
// usage: reference_rbdl <file.urdf> <model name> <fixed|floating> <out.json> [states] [seed]

#include <iostream>

#include <rbdl/addons/urdfreader/urdfreader.h>
#include <rbdl/rbdl.h>

#include "common.hpp"

using namespace RigidBodyDynamics;
using reference::Draw;

int main(int argc, char** argv) try {
  reference::Arguments args;
  if (!reference::parseArguments(argc, argv, "reference_rbdl", args)) return 2;
  const std::string &path = args.path, &name = args.name, &base = args.base;
  const bool floating = args.floating;
  const reference::UrdfInfo urdf = reference::readUrdf(path);

  std::vector<std::string> rotated;
  const std::string xml = reference::withUnrotatedInertials(path, rotated);
  Model model;
  if (!Addons::URDFReadFromString(xml.c_str(), &model, floating, false)) throw std::runtime_error("RBDL cannot read " + path);
  model.gravity = Math::Vector3d(0.0, 0.0, -9.81);

  reference::Header h;
  h.peer = "rbdl";
  h.version = "3.3.1 (rbdl/rbdl d2ca037)";
  h.model = name;
  h.base = base;
  h.nq = static_cast<int>(model.q_size);
  h.nv = static_cast<int>(model.qdot_size);
  h.gravity = model.gravity;
  h.convention =
      "native RBDL: floating q=[p_world, qx,qy,qz, joints..., qw], qdot=[pdot_world, omega_body, ...], "
      "tau=[f_world, n_body, ...]; a continuous joint is one angle. M, M_diag, Mx and Mx_x are in the same "
      "native layout. link_poses: rotation R (row-major, link axes as columns) and origin p of each URDF "
      "link in the world (CalcBodyWorldOrientation transposed, CalcBodyToBaseCoordinates).";
  h.note = "URDF read by RBDL's urdfreader addon (bundled URDF_Parser) from models/" + name + ".urdf";
  if (!rotated.empty()) {
    h.note += "; the inertial rotations of";
    for (const auto& l : rotated) h.note += " " + l;
    h.note += " were folded into their inertia tensors first (R I R^T, rpy 0), which RBDL's reader requires";
  }

  // Velocity-coordinate names and what to draw for each moving body.
  h.dof_names.resize(model.qdot_size);
  for (unsigned i = 1; i < model.mBodies.size(); ++i) {
    const Joint& joint = model.mJoints[i];
    const std::string body = model.GetBodyName(i);
    for (unsigned k = 0; k < joint.mDoFCount; ++k) {
      std::string dof;
      if (joint.mJointType == JointTypeTranslationXYZ) dof = std::string("__root__:v") + "xyz"[k];
      else if (joint.mJointType == JointTypeSpherical) dof = std::string("__root__:w") + "xyz"[k];
      else dof = urdf.joint_of_child.at(body);
      h.dof_names[joint.q_index + k] = dof;
    }
  }
  for (const auto& l : urdf.links)
    if (model.GetBodyId(l.c_str()) != std::numeric_limits<unsigned>::max()) h.links.push_back(l);

  Draw draw(args.seed);
  h.Mx_x = draw.vector(h.nv, 1.0);
  std::vector<reference::Outputs> states;
  for (int s = 0; s < args.states; ++s) {
    reference::Outputs o;
    o.q = Math::VectorNd::Zero(model.q_size);
    for (unsigned i = 1; i < model.mBodies.size(); ++i) {
      const Joint& joint = model.mJoints[i];
      if (joint.mJointType == JointTypeTranslationXYZ) {
        for (unsigned k = 0; k < 3; ++k) o.q[joint.q_index + k] = draw.uniform(-reference::kPosition, reference::kPosition);
      } else if (joint.mJointType == JointTypeSpherical) {
        const Eigen::Vector4d x = draw.quaternionXyzw();
        model.SetQuaternion(i, Math::Quaternion(x[0], x[1], x[2], x[3]), o.q);
      } else if (joint.mDoFCount == 1) {
        const reference::UrdfJoint& u = urdf.joints.at(urdf.joint_of_child.at(model.GetBodyName(i)));
        o.q[joint.q_index] = draw.uniform(u.lower, u.upper);
      } else if (joint.mDoFCount != 0) {
        throw std::runtime_error("unexpected joint on body " + model.GetBodyName(i));
      }
    }
    reference::drawInputs(draw, h.nv, o);

    Math::VectorNd q = o.q, v = o.v, tau = o.tau, acc = o.acc, qdd = Math::VectorNd::Zero(h.nv), id = Math::VectorNd::Zero(h.nv);
    ForwardDynamics(model, q, v, tau, qdd);
    InverseDynamics(model, q, v, acc, id);
    Math::MatrixNd H = Math::MatrixNd::Zero(h.nv, h.nv);
    CompositeRigidBodyAlgorithm(model, q, H, true);
    o.fd_qdd = qdd;
    o.id_tau = id;
    o.M = H;

    UpdateKinematicsCustom(model, &q, nullptr, nullptr);
    for (const auto& l : h.links) {
      const unsigned id_l = model.GetBodyId(l.c_str());
      // CalcBodyWorldOrientation is E, world to body coordinates: the link's rotation is E^T.
      o.R.emplace_back(l, CalcBodyWorldOrientation(model, q, id_l, false).transpose());
      o.p.push_back(CalcBodyToBaseCoordinates(model, q, id_l, Math::Vector3d::Zero(), false));
    }
    states.push_back(std::move(o));
  }
  reference::write(args.out, h, states);
  std::cout << args.out << ": nq " << h.nq << ", nv " << h.nv << ", " << h.links.size() << " links\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "reference_rbdl: " << e.what() << "\n";
  return 1;
}
