// Pinocchio 3 in bench_peers: pinocchio::aba, pinocchio::rnea and pinocchio::crba, each in its
// default convention (Convention::LOCAL) and, for ABA and CRBA, also in Convention::WORLD (the
// variant Pinocchio's own benchmark/timings.cpp reports as well), as "pinocchio_world".
//
// Coordinates: free-flyer q = [x y z qx qy qz qw], v = [linear; angular] in the root-body frame.

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
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

}  // namespace

std::vector<PeerReport> addPinocchio(const Problem& problem) {
  // Pinocchio 3's Data holds the second-order derivative tensors of RNEA (d2tau_dqdq and three more),
  // nv^3 doubles each: 8 GB apiece at nv = 1000, more than this machine's memory.
  if (problem.nv > 400) {
    const std::string why = "Pinocchio 3 Data allocates four nv^3 tensors (" +
                            std::to_string(8e-9 * problem.nv * problem.nv * problem.nv) + " GB each here)";
    return {{"pinocchio", why, {}, {}}, {"pinocchio_world", why, {}, {}}};
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
  add("CRBA", "pinocchio_world", [](const PinocchioCase& p, pinocchio::Data& d, int s) {
    benchmark::DoNotOptimize(pinocchio::crba(p.model, d, p.q[s], pinocchio::Convention::WORLD));
  });
  return reports;
}

}  // namespace abdyn_bench
