// Batched dynamics over N states (C++ abdyn::forwardDynamicsBatch and friends, batch.hpp): C-ordered
// (N, nq) / (N, nv) arrays in, a new (N, nv) or (N, nv, nv) array out, the GIL released for the batch.

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "common.hpp"

namespace abdyn::python {
namespace {

using Rows = Eigen::Map<const RowMatrixXd>;

Rows rows(const py::array_t<double, py::array::c_style>& a) {
  return Rows(a.data(), static_cast<Eigen::Index>(a.shape(0)), static_cast<Eigen::Index>(a.shape(1)));
}

int threadCount(py::handle threads) {
  if (threads.is_none()) return 0;
  const int t = threads.cast<int>();
  if (t < 1) throw InvalidArgument("abdyn: 'threads' must be None (hardware concurrency) or at least 1, got " + std::to_string(t));
  return t;
}

// The batched calls' kept workspaces: one BatchWorkspace (threads and pack workspaces, batch.hpp) per model
// and thread count, built on the first call and kept for the next ones, so that a loop of Python calls
// wakes the same threads instead of starting new ones. A weak reference to the Python model frees its
// workspaces when the model is collected. All bookkeeping runs under the GIL; a call made while another
// thread's call holds the model's workspace builds one of its own for that call.
struct KeptWorkspace {
  int threads;
  bool busy;
  BatchWorkspace workspace;
};
using KeptWorkspaces = std::vector<std::shared_ptr<KeptWorkspace>>;  // shared: a lease outlives an erase

// Never destroyed: its workspaces' threads may outlive the interpreter's teardown.
std::map<const Model*, KeptWorkspaces>& allKeptWorkspaces() {
  static auto* kept = new std::map<const Model*, KeptWorkspaces>();
  return *kept;
}

KeptWorkspaces& keptWorkspaces(const Model& model) {
  std::map<const Model*, KeptWorkspaces>& kept = allKeptWorkspaces();
  const auto found = kept.find(&model);
  if (found != kept.end()) return found->second;
  const Model* key = &model;
  // The weak reference lives until its callback, which drops the model's workspaces (pybind11's keep_alive idiom).
  py::weakref(py::cast(&model, py::return_value_policy::reference), py::cpp_function([key](py::handle weakref) {
                allKeptWorkspaces().erase(key);
                weakref.dec_ref();
              }))
      .release();
  return kept[key];
}

/// The workspace a call with `threads` (0: hardware concurrency) borrows until the lease goes; GIL held.
class Lease {
 public:
  Lease(const Model& model, int threads) {
    const int t = batchThreads(threads, std::numeric_limits<Eigen::Index>::max());
    KeptWorkspaces& kept = keptWorkspaces(model);
    const auto same = std::find_if(kept.begin(), kept.end(), [t](const auto& w) { return w->threads == t; });
    if (same == kept.end()) {
      kept.push_back(std::make_shared<KeptWorkspace>(KeptWorkspace{t, false, BatchWorkspace(model, t)}));
      kept_ = kept.back();
    } else if (!(*same)->busy) {
      kept_ = *same;
    } else {
      own_ = std::make_unique<BatchWorkspace>(model, t);  // another thread's call holds the kept one
      return;
    }
    kept_->busy = true;
  }
  ~Lease() {
    if (kept_) kept_->busy = false;
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  BatchWorkspace& workspace() { return kept_ ? kept_->workspace : *own_; }

 private:
  std::shared_ptr<KeptWorkspace> kept_;
  std::unique_ptr<BatchWorkspace> own_;
};

const char* const kBatchDoc =
    "Arrays: any float64 array-likes, rows are states (copied only if not C-contiguous float64), checked\n"
    "finite. threads: None for std::thread::hardware_concurrency(), else the number of threads; each\n"
    "takes a contiguous block of rows and computes it in packs of states, one per SIMD lane (8 with\n"
    "AVX-512, 4 with AVX2). The threads and their workspaces are kept for the model's next calls with the\n"
    "same thread count. A state's result depends on its row only (bit-identical whatever the thread\n"
    "count or batch size) and agrees with the single-state call to round-off (1e-13 relative). The GIL\n"
    "is released for the whole batch. A failing state raises abdyn.Error naming its row.";

DynamicsOptions options(bool armature, bool damping) {
  DynamicsOptions o;
  o.armature = armature;
  o.damping = damping;
  return o;
}

void bindBatch(py::module_& m) {
  m.def("forward_dynamics_batch",
        [](const Model& model, py::handle Q, py::handle V, py::handle TAU, py::handle threads, bool armature, bool damping) {
          const char* fn = "forward_dynamics_batch";
          const auto q = readRows(fn, "Q", Q, model.nq());
          const auto v = readRows(fn, "V", V, model.nv(), q.shape(0));
          const auto tau = readRows(fn, "TAU", TAU, model.nv(), q.shape(0));
          const int t = threadCount(threads);
          py::array_t<double> out({q.shape(0), static_cast<py::ssize_t>(model.nv())});
          Eigen::Map<RowMatrixXd> qdd(out.mutable_data(), q.shape(0), model.nv());
          Lease lease(model, t);
          {
            py::gil_scoped_release release;
            forwardDynamicsBatch(model, lease.workspace(), rows(q), rows(v), rows(tau), qdd, options(armature, damping));
          }
          return out;
        },
        py::arg("model"), py::arg("Q"), py::arg("V"), py::arg("TAU"), py::arg("threads") = py::none(), py::kw_only(),
        py::arg("armature") = true, py::arg("damping") = true,
        (std::string("QDD, (N, nv): forward_dynamics (ABA) of each state (Q (N, nq), V (N, nv), TAU (N, nv))\n"
                     "(C++ abdyn::forwardDynamicsBatch). ") + kBatchDoc).c_str());
  m.def("inverse_dynamics_batch",
        [](const Model& model, py::handle Q, py::handle V, py::handle QDD, py::handle threads, bool armature, bool damping) {
          const char* fn = "inverse_dynamics_batch";
          const auto q = readRows(fn, "Q", Q, model.nq());
          const auto v = readRows(fn, "V", V, model.nv(), q.shape(0));
          const auto qdd = readRows(fn, "QDD", QDD, model.nv(), q.shape(0));
          const int t = threadCount(threads);
          py::array_t<double> out({q.shape(0), static_cast<py::ssize_t>(model.nv())});
          Eigen::Map<RowMatrixXd> tau(out.mutable_data(), q.shape(0), model.nv());
          Lease lease(model, t);
          {
            py::gil_scoped_release release;
            inverseDynamicsBatch(model, lease.workspace(), rows(q), rows(v), rows(qdd), tau, options(armature, damping));
          }
          return out;
        },
        py::arg("model"), py::arg("Q"), py::arg("V"), py::arg("QDD"), py::arg("threads") = py::none(), py::kw_only(),
        py::arg("armature") = true, py::arg("damping") = true,
        (std::string("TAU, (N, nv): inverse_dynamics (RNEA) of each state (Q (N, nq), V (N, nv), QDD (N, nv))\n"
                     "(C++ abdyn::inverseDynamicsBatch). ") + kBatchDoc).c_str());
  m.def("mass_matrix_batch",
        [](const Model& model, py::handle Q, py::handle threads, bool armature) {
          const char* fn = "mass_matrix_batch";
          const auto q = readRows(fn, "Q", Q, model.nq());
          const int t = threadCount(threads);
          const py::ssize_t nv = model.nv();
          py::array_t<double> out({q.shape(0), nv, nv});
          Eigen::Map<RowMatrixXd> M(out.mutable_data(), q.shape(0), nv * nv);
          Lease lease(model, t);
          {
            py::gil_scoped_release release;
            massMatrixBatch(model, lease.workspace(), rows(q), M, options(armature, true));
          }
          return out;
        },
        py::arg("model"), py::arg("Q"), py::arg("threads") = py::none(), py::kw_only(), py::arg("armature") = true,
        (std::string("M, (N, nv, nv): mass_matrix (CRBA) of each configuration in Q (N, nq) (C++\n"
                     "abdyn::massMatrixBatch). ") + kBatchDoc).c_str());
}

const Registration registration(25, bindBatch);

}  // namespace
}  // namespace abdyn::python
