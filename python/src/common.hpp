#pragma once
// Shared by the binding sources of the Python module: the Python-side Data, argument conversion from
// NumPy array-likes, result conversion to NumPy, and the registry through which each source file adds
// its functions to the module.
//
// Conventions of the whole module (say them once, keep them everywhere):
//   - Every array argument accepts any array-like NumPy can turn into float64 without an object or
//     complex dtype (lists, tuples, int or float arrays, strided views). A wrong dtype raises TypeError; a
//     wrong shape or a NaN/infinity raises abdyn.InvalidArgument (a ValueError) naming the function, the
//     argument and the expected shape.
//   - Every result is a new NumPy array that the caller owns (a copy of what the C++ call left in Data):
//     no view into Data is ever handed out, so no result changes under the user or outlives its Data.
//   - The GIL is released while the C++ call runs. A Data serves one call at a time: a second thread
//     calling with the same Data meanwhile gets abdyn.Error instead of a data race.

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "abdyn/abdyn.hpp"

namespace abdyn::python {

namespace py = pybind11;

using ModelPtr = std::shared_ptr<const Model>;
using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// abdyn.Data: the C++ Data plus the model it was made for and input buffers sized once, so that a
/// call copies its arguments without allocating.
class PyData {
 public:
  explicit PyData(ModelPtr model);

  const ModelPtr model;
  Data data;
  Eigen::VectorXd q, v, u, w;  // q: nq, v, u, w: nv (argument buffers)
  Eigen::VectorXd a;           // nv: accelerations (forward_kinematics, inverse_dynamics_derivatives)
  std::vector<Force> f_ext;    // external forces argument
  std::atomic<bool> busy{false};
  // What the last call left in data for the frame queries (frame_pose, frame_velocity, ...): 0 nothing
  // they can use, 1 positions, 2 and velocities, 3 and accelerations. Every call resets it; those that
  // leave forward kinematics behind set it.
  int kinematics = 0;
  // Whether data.factor_L, factor_D hold a factor of a mass matrix (solve_mass_matrix needs one).
  bool factorized = false;
};

/// Holds a PyData for one call: checks that it belongs to `model` and that no other thread uses it.
class DataLock {
 public:
  DataLock(const char* function, const Model& model, PyData& data);
  ~DataLock();
  DataLock(const DataLock&) = delete;
  DataLock& operator=(const DataLock&) = delete;

  /// For the read-only frame queries: raises abdyn.Error unless the call before left kinematics of
  /// `level`, and keeps it for the next query.
  void requireKinematics(int level, const char* what);

 private:
  PyData& data_;
  const char* function_;
  int previous_kinematics_;
};

/// "abdyn.<function>: '<name>' " prefix of argument errors.
std::string argumentPrefix(const char* function, const char* name);

/// Turns an array-like into a float64 NumPy array (no copy if it already is one); TypeError otherwise.
py::array asFloatArray(const char* function, const char* name, py::handle obj);

/// A scalar argument, checked like an array's entries: abdyn.InvalidArgument naming it when it is NaN or
/// infinite; otherwise x.
double readScalar(const char* function, const char* name, double x);

/// Copies a 1-D array-like of length n into out (resized only if its size differs), checking shape and
/// finiteness.
void readVector(const char* function, const char* name, py::handle obj, Eigen::Index n, Eigen::VectorXd& out);
Eigen::VectorXd readVector(const char* function, const char* name, py::handle obj, Eigen::Index n);
/// A 3-vector, a 3x3 and a 6x6 matrix, and a (rows, cols) matrix.
Vector3 readVector3(const char* function, const char* name, py::handle obj);
Matrix3 readMatrix3(const char* function, const char* name, py::handle obj);
Eigen::MatrixXd readMatrix(const char* function, const char* name, py::handle obj, Eigen::Index rows, Eigen::Index cols);
/// A C-contiguous float64 (N, cols) array (copied only if obj is not one), checked finite; N is free
/// unless `rows` >= 0.
py::array_t<double, py::array::c_style> readRows(const char* function, const char* name, py::handle obj,
                                                  Eigen::Index cols, Eigen::Index rows = -1);

/// A new NumPy array holding a copy of an Eigen vector (1-D) or matrix (2-D, C order).
template <int Rows, int Cols, int Options, int MaxRows, int MaxCols>
py::array_t<double> toArray(const Eigen::Matrix<double, Rows, Cols, Options, MaxRows, MaxCols>& x) {
  if constexpr (Cols == 1) {
    py::array_t<double> out(x.size());
    std::copy(x.data(), x.data() + x.size(), out.mutable_data());
    return out;
  } else {
    py::array_t<double> out({x.rows(), x.cols()});
    Eigen::Map<RowMatrixXd>(out.mutable_data(), x.rows(), x.cols()) = x;
    return out;
  }
}

/// Per-body external forces: None, or an (nbodies, 6) array-like, row i the force on body i in body-i
/// coordinates [n; f] about its origin (row 0, the world, is ignored).
bool readExternalForces(const char* function, py::handle obj, const Model& model, std::vector<Force>& out);

/// The steps every call on the state shares: it holds the Data for the call (DataLock), reads q (nq,), v
/// and further nv-vectors (tau, qdd, ...) into the Data's argument buffers and the optional external
/// forces, and runs the C++ call with the GIL released. The caller copies the results out (toArray) while
/// the StateCall, a named local, still holds the Data.
///   StateCall call("forward_dynamics", model, d);
///   call.q(q).v(v).vector("tau", tau, d.u).externalForces(f_ext);
///   call.runWithForces([&](const auto&... f_ext) { forwardDynamics(model, d.data, d.q, d.v, d.u, f_ext...); });
class StateCall {
 public:
  StateCall(const char* function, const Model& model, PyData& data);

  /// Reads q (nq,) into data.q.
  StateCall& q(py::handle obj);
  /// Reads v (nv,) into data.v.
  StateCall& v(py::handle obj);
  /// Reads the nv-vector argument `name` into `out`, one of data's buffers.
  StateCall& vector(const char* name, py::handle obj, Eigen::VectorXd& out);
  /// Reads f_ext, None or (nbodies, 6) (readExternalForces), into data.f_ext.
  StateCall& externalForces(py::handle obj);

  /// Runs f() with the GIL released; what f returns.
  template <class F>
  auto run(F&& f) const {
    py::gil_scoped_release release;
    return f();
  }
  /// Runs f(data.f_ext) if externalForces read forces, f() otherwise, with the GIL released.
  template <class F>
  void runWithForces(F&& f) const {
    py::gil_scoped_release release;
    if (has_forces_) {
      f(data_.f_ext);
    } else {
      f();
    }
  }

  /// The function's name, for argument errors.
  const char* function() const { return function_; }

 private:
  DataLock lock_;
  const char* function_;
  const Model& model_;
  PyData& data_;
  bool has_forces_ = false;
};

/// The DynamicsOptions of the keyword arguments armature and damping.
inline DynamicsOptions dynamicsOptions(bool armature, bool damping) {
  DynamicsOptions o;
  o.armature = armature;
  o.damping = damping;
  return o;
}

/// Binds `name`(model, data, q, v, `x_name`, f_ext=None, *, armature=True, damping=True), the signature the
/// dynamics functions of a state share: the nv-vector `x_name` (tau or qdd) is read into data.*x, then
/// run(model, data, options, f_ext...) calls the C++ function (f_ext... empty when f_ext is None) with the
/// GIL released, and result(data) copies the results out.
template <class Run, class Result>
void defDynamicsFunction(py::module_& m, const char* name, const char* x_name, Eigen::VectorXd PyData::*x, Run run,
                         Result result, const std::string& doc) {
  m.def(name,
        [name, x_name, x, run, result](const Model& model, PyData& d, py::handle q, py::handle v, py::handle x_arg,
                                       py::handle f_ext, bool armature, bool damping) {
          StateCall call(name, model, d);
          call.q(q).v(v).vector(x_name, x_arg, d.*x).externalForces(f_ext);
          const DynamicsOptions options = dynamicsOptions(armature, damping);
          call.runWithForces([&](const auto&... f) { run(model, d, options, f...); });
          return result(d);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg(x_name), py::arg("f_ext") = py::none(),
        py::kw_only(), py::arg("armature") = true, py::arg("damping") = true, doc.c_str());
}

/// Each binding source registers one function that adds its part of the module; `order` fixes the order
/// in which they run (types before the functions whose signatures name them). Use at namespace scope:
///   static const Registration registration(20, bindDynamics);
using BindFunction = void (*)(py::module_&);
struct Registration {
  Registration(int order, BindFunction bind);
};
/// Runs every registered function in order (module.cpp).
void bindAll(py::module_& m);

}  // namespace abdyn::python
