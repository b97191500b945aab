// RBDL 3 in bench_peers: ForwardDynamics (ABA), InverseDynamics (RNEA) and
// CompositeRigidBodyAlgorithm (CRBA), on models loaded by RBDL's URDF reader addon.
//
// RBDL's URDF reader refuses rotated inertial frames on non-root links (and drops the rotation on the
// root link): the file is given to it with each such rotation folded into the inertia tensor
// (tools/reference/common.hpp, as for the reference outputs), the same rigid bodies.
//
// Coordinates: the floating base is a TranslationXYZ joint (q = world position, v = world linear
// velocity) carrying a Spherical joint (q = [qx qy qz] with qw at the end of q, v = angular velocity
// in the root-body frame). The other bodies are found by the name of the link their joint moves.
//
// A floating joint below the root (the delta robot's platform) would become TranslationXYZ + EulerXYZ
// (q = three angles); it is cut from the file and added back as TranslationXYZ + Spherical, the pair of
// RBDL's floating base, so that q holds abdyn's quaternion.
//
// Constrained cases (Problem::closures): ForwardDynamicsConstraintsDirect (the dense KKT system from
// CRBA), each closure row as one AddLoopConstraint (the same [n_ang; n_lin] in Fa), without Baumgarte
// stabilisation.

#include <rbdl/addons/urdfreader/urdfreader.h>
#include <rbdl/rbdl.h>

#include <benchmark/benchmark.h>

#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <tinyxml2.h>

#include "common.hpp"  // tools/reference: withUnrotatedInertials
#include "peer.hpp"

namespace abdyn_bench {

namespace {

namespace rbd = RigidBodyDynamics;

struct RbdlCase {
  rbd::Model model;
  std::vector<rbd::Math::VectorNd> q, v, tau, qdd;
};

rbd::Math::VectorNd toEigen(const std::vector<double>& x) {
  return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
}

std::vector<double> toStd(const rbd::Math::VectorNd& x) { return {x.data(), x.data() + x.size()}; }

// A closure frame as (moving body, RBDL loop-constraint frame); the world when link is empty. RBDL's
// loop frames are not Featherstone transforms: E rotates frame coordinates into body coordinates
// (Constraint_Loop.h; Constraint_Loop.cc composes CalcBodyWorldOrientation^T E), r is the origin in the body.
bool closureFrame(rbd::Model& model, const std::string& link, const std::array<double, 9>& R,
                  const std::array<double, 3>& p, unsigned int& body, rbd::Math::SpatialTransform& frame) {
  rbd::Math::Matrix3d E;
  E << R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8];  // R^T: link coordinates into frame coordinates
  rbd::Math::SpatialTransform X_frame_body(E, rbd::Math::Vector3d(p[0], p[1], p[2]));  // Featherstone's
  body = 0;
  if (!link.empty()) {
    body = model.GetBodyId(link.c_str());
    if (body == std::numeric_limits<unsigned int>::max()) return false;
  }
  if (model.IsFixedBodyId(body)) {
    const rbd::FixedBody& fixed = model.mFixedBodies[body - model.fixed_body_discriminator];
    X_frame_body = X_frame_body * fixed.mParentTransform;
    body = fixed.mMovableParent;
  }
  frame = rbd::Math::SpatialTransform(X_frame_body.E.transpose(), X_frame_body.r);
  return true;
}

std::vector<PeerReport> addConstrained(const Problem& problem, const std::shared_ptr<RbdlCase>& c, const Layout& layout,
                                       const std::string& note) {
  auto constraints = std::make_shared<rbd::ConstraintSet>();
  for (const Closure& closure : problem.closures) {
    unsigned int a = 0, b = 0;
    rbd::Math::SpatialTransform frame_a, frame_b;
    if (!closureFrame(c->model, closure.link_a, closure.R_a, closure.p_a, a, frame_a)) return {{"rbdl", "no link " + closure.link_a, {}, {}}};
    if (!closureFrame(c->model, closure.link_b, closure.R_b, closure.p_b, b, frame_b)) return {{"rbdl", "no link " + closure.link_b, {}, {}}};
    for (const std::array<double, 6>& n : closure.directions) {
      const rbd::Math::SpatialVector axis(n[0], n[1], n[2], n[3], n[4], n[5]);  // [angular; linear] in Fa, as abdyn's
      constraints->AddLoopConstraint(a, b, frame_a, frame_b, axis, false);     // false: no Baumgarte stabilisation
    }
  }
  constraints->Bind(c->model);
  PeerReport report{"rbdl", {}, note, {}};
  {
    rbd::Model model = c->model;
    rbd::ConstraintSet set = *constraints;
    rbd::Math::VectorNd qdd = rbd::Math::VectorNd::Zero(model.qdot_size);
    rbd::ForwardDynamicsConstraintsDirect(model, c->q[0], c->v[0], c->tau[0], set, qdd);
    report.outputs.qdd = layout.accelerationFromPeer(problem.q[0], problem.v[0], toStd(qdd));
  }
  benchmark::RegisterBenchmark(("Constrained/" + problem.label + "/rbdl").c_str(), [c, constraints](benchmark::State& state) {
    rbd::Model model = c->model;
    rbd::ConstraintSet set = *constraints;
    rbd::Math::VectorNd qdd = rbd::Math::VectorNd::Zero(model.qdot_size);
    int s = 0;
    for (auto _ : state) {
      rbd::ForwardDynamicsConstraintsDirect(model, c->q[s], c->v[s], c->tau[s], set, qdd);
      benchmark::DoNotOptimize(qdd.data());
      s = (s + 1) % kStates;
    }
  });
  return {report};
}

// The URDF text without its floating joints (their child links must be leaves), whose child links are
// named in `links`.
std::string withoutFloatingJoints(const std::string& text, std::vector<std::string>& links) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.c_str()) != tinyxml2::XML_SUCCESS) throw std::runtime_error("cannot parse the URDF text");
  auto* robot = doc.FirstChildElement("robot");
  std::vector<tinyxml2::XMLElement*> cut;
  for (auto* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    if (std::string(j->Attribute("type")) == "floating") cut.push_back(j);
  }
  for (tinyxml2::XMLElement* j : cut) {
    const std::string child = j->FirstChildElement("child")->Attribute("link");
    for (auto* k = robot->FirstChildElement("joint"); k; k = k->NextSiblingElement("joint")) {
      if (child == k->FirstChildElement("parent")->Attribute("link")) {
        throw std::runtime_error("floating joint " + std::string(j->Attribute("name")) + " has a subtree");
      }
    }
    links.push_back(child);
    robot->DeleteChild(j);
  }
  for (const std::string& link : links) {
    for (auto* l = robot->FirstChildElement("link"); l; l = l->NextSiblingElement("link")) {
      if (link == l->Attribute("name")) {
        robot->DeleteChild(l);
        break;
      }
    }
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

// Loads the URDF text into model; a floating joint below the root becomes TranslationXYZ + Spherical
// (the links' bodies and joint placements as RBDL's reader builds them, read from a full load).
bool loadWithSphericalFloating(const std::string& text, bool floating_base, rbd::Model& model) {
  std::vector<std::string> floating_links;
  const std::string tree = withoutFloatingJoints(text, floating_links);
  if (!rbd::Addons::URDFReadFromString(tree.c_str(), &model, floating_base)) return false;
  if (floating_links.empty()) return true;
  rbd::Model euler;  // the floating joints as the reader makes them: TranslationXYZ + EulerXYZ
  if (!rbd::Addons::URDFReadFromString(text.c_str(), &euler, floating_base)) return false;
  for (const std::string& link : floating_links) {
    const unsigned int rotation = euler.GetBodyId(link.c_str());
    const unsigned int translation = euler.lambda[rotation];
    if (euler.lambda[translation] != 0) throw std::runtime_error("floating joint of " + link + " not on the root");
    const rbd::Body massless(0., rbd::Math::Vector3d(0., 0., 0.), rbd::Math::Matrix3d(rbd::Math::Matrix3d::Zero()));
    model.AddBody(0, euler.X_T[translation], rbd::Joint(rbd::JointTypeTranslationXYZ), massless, link + "_Translate");
    model.AppendBody(rbd::Math::SpatialTransform(), rbd::Joint(rbd::JointTypeSpherical), euler.mBodies[rotation], link);
  }
  return true;
}

}  // namespace

std::vector<PeerReport> addRbdl(const Problem& problem) {
  auto c = std::make_shared<RbdlCase>();
  std::string note;
  try {
    std::vector<std::string> changed;
    const std::string text = reference::withUnrotatedInertials(problem.urdf, changed);
    if (!loadWithSphericalFloating(text, problem.floating_base, c->model)) {
      return {{"rbdl", "URDFReadFromString failed", {}, {}}};
    }
    if (!changed.empty()) note = "inertial rotations of " + std::to_string(changed.size()) + " links folded into their tensors";
  } catch (const std::exception& e) {
    return {{"rbdl", e.what(), {}, {}}};
  }
  rbd::Model& model = c->model;
  model.gravity = rbd::Math::Vector3d(problem.gravity[0], problem.gravity[1], problem.gravity[2]);

  Layout layout(problem);
  std::string error;
  if (static_cast<int>(model.q_size) != problem.nq || static_cast<int>(model.qdot_size) != problem.nv) {
    error = "the model's q_size, qdot_size differ from abdyn's nq, nv";
  }
  for (const JointSlice& joint : problem.joints) {
    if (!error.empty()) break;
    const unsigned int id = model.GetBodyId(joint.child_link.c_str());
    if (id == std::numeric_limits<unsigned int>::max() || id >= model.fixed_body_discriminator) {
      error = "no moving body " + joint.child_link;
      break;
    }
    const int iq = static_cast<int>(model.mJoints[id].q_index);
    if (joint.floating) {
      // The root body hangs from the translation's massless body by the spherical joint.
      const unsigned int translation = model.lambda[id];
      if (model.mJoints[id].mJointType != rbd::JointTypeSpherical ||
          model.mJoints[translation].mJointType != rbd::JointTypeTranslationXYZ) {
        error = "the floating base is not TranslationXYZ + Spherical";
        break;
      }
      const int it = static_cast<int>(model.mJoints[translation].q_index);
      const int iw = static_cast<int>(model.multdof3_w_index[id]);
      layout.mapFloating(joint, {it, it + 1, it + 2, iw, iq, iq + 1, iq + 2}, {it, it + 1, it + 2}, {iq, iq + 1, iq + 2},
                         true);
    } else if (model.mJoints[id].mDoFCount != 1) {
      error = "joint " + joint.name + " is not one-DoF in RBDL";
    } else {
      layout.mapJoint(joint, iq, iq);
    }
  }
  if (error.empty()) error = layout.check();
  if (!error.empty()) return {{"rbdl", error, {}, {}}};

  for (int s = 0; s < kStates; ++s) {
    c->q.push_back(toEigen(layout.configuration(problem.q[s])));
    c->v.push_back(toEigen(layout.velocity(problem.q[s], problem.v[s])));
    c->tau.push_back(toEigen(layout.force(problem.q[s], problem.tau[s])));
    c->qdd.push_back(toEigen(layout.acceleration(problem.q[s], problem.v[s], problem.qdd[s])));
  }
  if (!problem.closures.empty()) return addConstrained(problem, c, layout, note);

  PeerReport report{"rbdl", {}, note, {}};
  {
    rbd::Model scratch = model;
    rbd::Math::VectorNd out = rbd::Math::VectorNd::Zero(model.qdot_size);
    rbd::ForwardDynamics(scratch, c->q[0], c->v[0], c->tau[0], out);
    report.outputs.qdd = layout.accelerationFromPeer(problem.q[0], problem.v[0], toStd(out));
    rbd::InverseDynamics(scratch, c->q[0], c->v[0], c->qdd[0], out);
    report.outputs.tau = layout.forceFromPeer(problem.q[0], toStd(out));
    // CompositeRigidBodyAlgorithm writes the entries of ancestor-descendant pairs only: H starts at zero.
    rbd::Math::MatrixNd H = rbd::Math::MatrixNd::Zero(model.qdot_size, model.qdot_size);
    rbd::CompositeRigidBodyAlgorithm(scratch, c->q[0], H);
    report.outputs.mass_matrix = layout.massMatrixFromPeer(problem.q[0], {H.data(), H.data() + H.size()});
  }

  // Each case times its own copy of the model, which holds RBDL's workspace.
  const auto add = [&](const std::string& algorithm, auto call) {
    benchmark::RegisterBenchmark((algorithm + "/" + problem.label + "/rbdl").c_str(), [c, call](benchmark::State& state) {
      rbd::Model model = c->model;
      rbd::Math::VectorNd out = rbd::Math::VectorNd::Zero(model.qdot_size);
      rbd::Math::MatrixNd H = rbd::Math::MatrixNd::Zero(model.qdot_size, model.qdot_size);
      int s = 0;
      for (auto _ : state) {
        call(*c, model, out, H, s);
        benchmark::ClobberMemory();
        s = (s + 1) % kStates;
      }
    });
  };
  add("ABA", [](const RbdlCase& p, rbd::Model& m, rbd::Math::VectorNd& out, rbd::Math::MatrixNd&, int s) {
    rbd::ForwardDynamics(m, p.q[s], p.v[s], p.tau[s], out);
    benchmark::DoNotOptimize(out.data());
  });
  add("RNEA", [](const RbdlCase& p, rbd::Model& m, rbd::Math::VectorNd& out, rbd::Math::MatrixNd&, int s) {
    rbd::InverseDynamics(m, p.q[s], p.v[s], p.qdd[s], out);
    benchmark::DoNotOptimize(out.data());
  });
  add("CRBA", [](const RbdlCase& p, rbd::Model& m, rbd::Math::VectorNd&, rbd::Math::MatrixNd& H, int s) {
    rbd::CompositeRigidBodyAlgorithm(m, p.q[s], H);
    benchmark::DoNotOptimize(H.data());
  });
  return {report};
}

}  // namespace abdyn_bench
