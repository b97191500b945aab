// Pinocchio 3 in bench_peers: pinocchio::aba, pinocchio::rnea and pinocchio::crba, each in its
// default convention (Convention::LOCAL) and, for ABA and CRBA, also in Convention::WORLD (the
// variant Pinocchio's own benchmark/timings.cpp reports as well), as "pinocchio_world".
//
// Constrained cases (Problem::closures): pinocchio::constraintDynamics (the sparse Cholesky factorisation
// of the KKT system, Carpentier et al., RSS 2021) as "pinocchio", and pinocchio::constrainedABA (the
// Popov-Vereshchagin solver of Sathya et al. 2024) as "pinocchio_pv", with zero corrector gains.
// constraintDynamics gets mu = 0 and one iteration (an exact solve of a full-rank system);
// constrainedABA requires mu > 0 and gets mu = 1e-10 with up to 5 proximal iterations to 1e-12. A closure
// becomes a RigidConstraintModel CONTACT_6D (weld) or CONTACT_3D (point) between the parent joints of
// the two links' frames, in the LOCAL reference frame. Pinocchio 3 has no other rigid constraint, so a
// problem with any other closure (a hinge's five rows) is not run.
//
// Derivatives: "dRNEA" is pinocchio::computeRNEADerivatives (d tau / d q, d tau / d v, M) and "dABA"
// pinocchio::computeABADerivatives (d qdd / d q, d qdd / d v, M^-1), beside abdyn's
// inverseDynamicsDerivatives and forwardDynamicsDerivatives on the same states.
//
// Coordinates: free-flyer q = [x y z qx qy qz qw], v = [linear; angular] in the root-body frame. Pinocchio
// perturbs q as q exp(v) in the same body-frame coordinates as abdyn (docs/derivatives.md), so its tangent
// map is its velocity map, a permutation: a derivative matrix converts column by column through Layout.

#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/algorithm/contact-info.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/pv.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/model.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include <benchmark/benchmark.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "peer.hpp"

namespace abdyn_bench {

namespace {

struct PinocchioCase {
  pinocchio::Model model;
  std::vector<Eigen::VectorXd> q, v, tau, qdd;
};

Eigen::VectorXd toEigen(const std::vector<double>& x) {
  return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
}

std::vector<double> toStd(const Eigen::VectorXd& x) { return {x.data(), x.data() + x.size()}; }

std::vector<double> fullMassMatrix(const pinocchio::Data& data) {
  // Pinocchio fills the upper triangle only.
  Eigen::MatrixXd M = data.M;
  M.triangularView<Eigen::StrictlyLower>() = M.transpose();
  return {M.data(), M.data() + M.size()};
}

// A derivative matrix D of Pinocchio (rows: a force if `rows_are_forces`, else an acceleration; columns in
// its tangent = velocity coordinates) in abdyn's coordinates, nv x nv column-major: column k is the
// row-space conversion of D times Pinocchio's image of abdyn's unit vector e_k.
std::vector<double> derivativeFromPeer(const Layout& layout, const Problem& problem, const Eigen::MatrixXd& D,
                                       bool rows_are_forces) {
  const int nv = problem.nv;
  std::vector<double> out;
  for (int k = 0; k < nv; ++k) {
    std::vector<double> e(static_cast<std::size_t>(nv), 0.0);
    e[static_cast<std::size_t>(k)] = 1.0;
    const std::vector<double> column = toStd(D * toEigen(layout.velocity(problem.q[0], e)));
    const std::vector<double> converted = rows_are_forces ? layout.forceFromPeer(problem.q[0], column)
                                                          : layout.accelerationFromPeer(problem.q[0], problem.v[0], column);
    out.insert(out.end(), converted.begin(), converted.end());
  }
  return out;
}

using ConstraintModels = PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pinocchio::RigidConstraintModel);
using ConstraintDatas = PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pinocchio::RigidConstraintData);

// A closure frame as (parent joint, placement in that joint's frame); the world when link is empty.
void closureFrame(const pinocchio::Model& model, const std::string& link, const std::array<double, 9>& R,
                  const std::array<double, 3>& p, pinocchio::JointIndex& joint, pinocchio::SE3& placement) {
  Eigen::Matrix3d rotation;
  rotation << R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8];
  const pinocchio::SE3 in_link(rotation, Eigen::Vector3d(p[0], p[1], p[2]));
  if (link.empty()) {
    joint = 0;
    placement = in_link;
    return;
  }
  const pinocchio::Frame& frame = model.frames[model.getFrameId(link, pinocchio::BODY)];
  joint = frame.parentJoint;
  placement = frame.placement * in_link;
}

// The closure's rows as a Pinocchio rigid constraint: the six unit axes of Fa (weld) or its three linear
// ones (point); false for any other set of rows.
bool contactType(const Closure& closure, pinocchio::ContactType& type) {
  const std::size_t first = closure.directions.size() == 6 ? 0 : 3;  // [angular; linear]: linear from 3 on
  if (closure.directions.size() != 6 - first) return false;
  for (std::size_t k = 0; k < closure.directions.size(); ++k) {
    for (std::size_t j = 0; j < 6; ++j) {
      if (closure.directions[k][j] != (j == first + k ? 1.0 : 0.0)) return false;
    }
  }
  type = first == 0 ? pinocchio::CONTACT_6D : pinocchio::CONTACT_3D;
  return true;
}

std::vector<PeerReport> addConstrained(const Problem& problem, const std::shared_ptr<PinocchioCase>& c, const Layout& layout) {
  const pinocchio::Model& model = c->model;
  auto constraints = std::make_shared<ConstraintModels>();
  for (const Closure& closure : problem.closures) {
    if (!closure.link_a.empty() && !model.existBodyName(closure.link_a)) return {{"pinocchio", "no link " + closure.link_a, {}, {}}};
    if (!model.existBodyName(closure.link_b)) return {{"pinocchio", "no link " + closure.link_b, {}, {}}};
    pinocchio::JointIndex ja = 0, jb = 0;
    pinocchio::SE3 pa, pb;
    closureFrame(model, closure.link_a, closure.R_a, closure.p_a, ja, pa);
    closureFrame(model, closure.link_b, closure.R_b, closure.p_b, jb, pb);
    pinocchio::ContactType type = pinocchio::CONTACT_6D;
    contactType(closure, type);  // addPinocchio has checked that it is one
    constraints->emplace_back(type, model, jb, pb, ja, pa, pinocchio::LOCAL);
  }
  using Solve = const Eigen::VectorXd& (*)(const pinocchio::Model&, pinocchio::Data&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                           const Eigen::VectorXd&, const ConstraintModels&, ConstraintDatas&,
                                           pinocchio::ProximalSettings&);
  struct Variant {
    const char* library;
    double mu;
    int iterations;
    void (*init)(const pinocchio::Model&, pinocchio::Data&, const ConstraintModels&);
    Solve solve;
  };
  const Variant variants[] = {
      {"pinocchio", 0.0, 1, [](const pinocchio::Model& m, pinocchio::Data& d, const ConstraintModels& cm) { pinocchio::initConstraintDynamics(m, d, cm); },
       [](const pinocchio::Model& m, pinocchio::Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
          const ConstraintModels& cm, ConstraintDatas& cd, pinocchio::ProximalSettings& settings) -> const Eigen::VectorXd& {
         return pinocchio::constraintDynamics(m, d, q, v, tau, cm, cd, settings);
       }},
      {"pinocchio_pv", 1e-10, 5, [](const pinocchio::Model& m, pinocchio::Data& d, const ConstraintModels& cm) { pinocchio::initPvSolver(m, d, cm); },
       [](const pinocchio::Model& m, pinocchio::Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
          const ConstraintModels& cm, ConstraintDatas& cd, pinocchio::ProximalSettings& settings) -> const Eigen::VectorXd& {
         return pinocchio::constrainedABA(m, d, q, v, tau, cm, cd, settings);
       }},
  };
  std::vector<PeerReport> reports;
  for (const Variant& variant : variants) {
    PeerReport report{variant.library, {}, {}, {}};
    {
      pinocchio::Data data(model);
      ConstraintDatas datas;
      for (const auto& cm : *constraints) datas.emplace_back(cm);
      pinocchio::ProximalSettings settings(1e-12, variant.mu, variant.iterations);
      variant.init(model, data, *constraints);
      report.outputs.qdd = layout.accelerationFromPeer(
          problem.q[0], problem.v[0], toStd(variant.solve(model, data, c->q[0], c->v[0], c->tau[0], *constraints, datas, settings)));
    }
    benchmark::RegisterBenchmark(("Constrained/" + problem.label + "/" + variant.library).c_str(),
                                 [c, constraints, variant](benchmark::State& state) {
                                   pinocchio::Data data(c->model);
                                   ConstraintDatas datas;
                                   for (const auto& cm : *constraints) datas.emplace_back(cm);
                                   pinocchio::ProximalSettings settings(1e-12, variant.mu, variant.iterations);
                                   variant.init(c->model, data, *constraints);
                                   int s = 0;
                                   for (auto _ : state) {
                                     benchmark::DoNotOptimize(
                                         variant.solve(c->model, data, c->q[s], c->v[s], c->tau[s], *constraints, datas, settings).data());
                                     benchmark::ClobberMemory();
                                     s = (s + 1) % kStates;
                                   }
                                 });
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace

std::vector<PeerReport> addPinocchio(const Problem& problem) {
  // Pinocchio 3's Data holds the second-order derivative tensors of RNEA (d2tau_dqdq and three more),
  // nv^3 doubles each: 8 GB apiece at nv = 1000, more than this machine's memory.
  if (problem.nv > 400) {
    const std::string why = "Pinocchio 3 Data allocates four nv^3 tensors (" +
                            std::to_string(8e-9 * problem.nv * problem.nv * problem.nv) + " GB each here)";
    return {{"pinocchio", why, {}, {}}, {"pinocchio_world", why, {}, {}}};
  }
  for (const Closure& closure : problem.closures) {
    pinocchio::ContactType type = pinocchio::CONTACT_6D;
    if (!contactType(closure, type)) {
      const std::string why = "Pinocchio 3's rigid constraints are 3-D or 6-D only; a closure here has " +
                              std::to_string(closure.directions.size()) + " other rows";
      return {{"pinocchio", why, {}, {}}, {"pinocchio_pv", why, {}, {}}};
    }
  }
  auto c = std::make_shared<PinocchioCase>();
  try {
    if (problem.floating_base) {
      pinocchio::urdf::buildModel(problem.urdf, pinocchio::JointModelFreeFlyer(), c->model);
    } else {
      pinocchio::urdf::buildModel(problem.urdf, c->model);
    }
  } catch (const std::exception& e) {
    return {{"pinocchio", e.what(), {}, {}}, {"pinocchio_world", e.what(), {}, {}}};
  }
  pinocchio::Model& model = c->model;
  model.gravity.linear(Eigen::Vector3d(problem.gravity[0], problem.gravity[1], problem.gravity[2]));

  Layout layout(problem);
  std::string error;
  if (model.nq != problem.nq || model.nv != problem.nv) error = "the model's nq, nv differ from abdyn's";
  for (const JointSlice& joint : problem.joints) {
    if (!error.empty()) break;
    if (!model.existJointName(joint.name)) {
      error = "no joint " + joint.name;
      break;
    }
    const auto id = model.getJointId(joint.name);
    const int iq = model.idx_qs[id], iv = model.idx_vs[id];
    if (model.nqs[id] != joint.nq || model.nvs[id] != joint.nv) {
      error = "joint " + joint.name + " has other coordinates than in abdyn";
    } else if (joint.floating) {
      layout.mapFloating(joint, {iq, iq + 1, iq + 2, iq + 6, iq + 3, iq + 4, iq + 5}, {iv, iv + 1, iv + 2},
                         {iv + 3, iv + 4, iv + 5}, false);
    } else {
      layout.mapJoint(joint, iq, iv);
    }
  }
  if (error.empty()) error = layout.check();
  if (!error.empty()) return {{"pinocchio", error, {}, {}}, {"pinocchio_world", error, {}, {}}};

  for (int s = 0; s < kStates; ++s) {
    c->q.push_back(toEigen(layout.configuration(problem.q[s])));
    c->v.push_back(toEigen(layout.velocity(problem.q[s], problem.v[s])));
    c->tau.push_back(toEigen(layout.force(problem.q[s], problem.tau[s])));
    c->qdd.push_back(toEigen(layout.acceleration(problem.q[s], problem.v[s], problem.qdd[s])));
  }
  if (!problem.closures.empty()) return addConstrained(problem, c, layout);

  const auto outputs = [&](pinocchio::Convention convention) {
    pinocchio::Data data(model);
    Outputs out;
    pinocchio::aba(model, data, c->q[0], c->v[0], c->tau[0], convention);
    out.qdd = layout.accelerationFromPeer(problem.q[0], problem.v[0], toStd(data.ddq));
    pinocchio::rnea(model, data, c->q[0], c->v[0], c->qdd[0]);
    out.tau = layout.forceFromPeer(problem.q[0], toStd(data.tau));
    pinocchio::crba(model, data, c->q[0], convention);
    out.mass_matrix = layout.massMatrixFromPeer(problem.q[0], fullMassMatrix(data));
    return out;
  };
  // RNEA has no convention argument: pinocchio_world repeats pinocchio's RNEA result and is timed
  // for ABA and CRBA only.
  std::vector<PeerReport> reports = {{"pinocchio", {}, {}, outputs(pinocchio::Convention::LOCAL)},
                                     {"pinocchio_world", {}, {}, outputs(pinocchio::Convention::WORLD)}};
  {
    pinocchio::Data data(model);
    Outputs& out = reports[0].outputs;
    pinocchio::computeRNEADerivatives(model, data, c->q[0], c->v[0], c->qdd[0]);
    out.dtau_dq = derivativeFromPeer(layout, problem, data.dtau_dq, true);
    out.dtau_dv = derivativeFromPeer(layout, problem, data.dtau_dv, true);
    pinocchio::computeABADerivatives(model, data, c->q[0], c->v[0], c->tau[0]);
    out.dqdd_dq = derivativeFromPeer(layout, problem, data.ddq_dq, false);
    out.dqdd_dv = derivativeFromPeer(layout, problem, data.ddq_dv, false);
  }

  const auto add = [&](const std::string& algorithm, const std::string& library, auto call) {
    benchmark::RegisterBenchmark((algorithm + "/" + problem.label + "/" + library).c_str(), [c, call](benchmark::State& state) {
      pinocchio::Data data(c->model);
      int s = 0;
      for (auto _ : state) {
        call(*c, data, s);
        benchmark::ClobberMemory();
        s = (s + 1) % kStates;
      }
    });
  };
  add("ABA", "pinocchio", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    benchmark::DoNotOptimize(pinocchio::aba(p.model, d, p.q[s], p.v[s], p.tau[s]));
  });
  add("ABA", "pinocchio_world", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    benchmark::DoNotOptimize(pinocchio::aba(p.model, d, p.q[s], p.v[s], p.tau[s], pinocchio::Convention::WORLD));
  });
  add("RNEA", "pinocchio", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    benchmark::DoNotOptimize(pinocchio::rnea(p.model, d, p.q[s], p.v[s], p.qdd[s]));
  });
  add("CRBA", "pinocchio", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    benchmark::DoNotOptimize(pinocchio::crba(p.model, d, p.q[s]));
  });
  add("dRNEA", "pinocchio", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    pinocchio::computeRNEADerivatives(p.model, d, p.q[s], p.v[s], p.qdd[s]);
    benchmark::DoNotOptimize(d.dtau_dq.data());
  });
  add("dABA", "pinocchio", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    pinocchio::computeABADerivatives(p.model, d, p.q[s], p.v[s], p.tau[s]);
    benchmark::DoNotOptimize(d.ddq_dq.data());
  });
  add("CRBA", "pinocchio_world", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    benchmark::DoNotOptimize(pinocchio::crba(p.model, d, p.q[s], pinocchio::Convention::WORLD));
  });
  return reports;
}

}  // namespace abdyn_bench
