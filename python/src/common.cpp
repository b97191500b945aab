#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

namespace abdyn::python {

PyData::PyData(ModelPtr model_in)
    : model(std::move(model_in)),
      data(*model),
      q(Eigen::VectorXd::Zero(model->nq())),
      v(Eigen::VectorXd::Zero(model->nv())),
      u(Eigen::VectorXd::Zero(model->nv())),
      w(Eigen::VectorXd::Zero(model->nv())),
      a(Eigen::VectorXd::Zero(model->nv())) {}

DataLock::DataLock(const char* function, const Model& model, PyData& data)
    : data_(data), function_(function), previous_kinematics_(0) {
  if (data.model.get() != &model) {
    throw InvalidArgument(std::string("abdyn.") + function + ": 'data' was made for another Model (model '" +
                          data.model->name() + "'); make one with abdyn.Data(model)");
  }
  bool expected = false;
  if (!data.busy.compare_exchange_strong(expected, true)) {
    throw Error(std::string("abdyn.") + function +
                ": 'data' is in use by a call in another thread; give each thread its own abdyn.Data");
  }
  previous_kinematics_ = data.kinematics;
  data.kinematics = 0;
}

void DataLock::requireKinematics(int level, const char* what) {
  if (previous_kinematics_ < level) {
    throw Error(std::string("abdyn.") + function_ + " reads the " + what +
                " of the last abdyn.forward_kinematics call on this Data, and the last call on it was not one"
                " that computed them");
  }
  data_.kinematics = previous_kinematics_;
}

DataLock::~DataLock() { data_.busy.store(false); }

std::string argumentPrefix(const char* function, const char* name) {
  return std::string("abdyn.") + function + ": '" + name + "' ";
}

namespace {

std::string shapeString(const py::array& a) {
  std::ostringstream s;
  s << '(';
  for (py::ssize_t k = 0; k < a.ndim(); ++k) s << (k ? ", " : "") << a.shape(k);
  s << (a.ndim() == 1 ? ",)" : ")");
  return s.str();
}

std::string shapeString(std::initializer_list<Eigen::Index> dims) {
  std::ostringstream s;
  s << '(';
  int k = 0;
  for (const Eigen::Index d : dims) {
    s << (k++ ? ", " : "");
    if (d < 0) s << 'N'; else s << d;
  }
  s << (dims.size() == 1 ? ",)" : ")");
  return s.str();
}

[[noreturn]] void throwShape(const char* function, const char* name, const py::array& a,
                             std::initializer_list<Eigen::Index> expected) {
  throw InvalidArgument(argumentPrefix(function, name) + "must have shape " + shapeString(expected) + ", got " +
                        shapeString(a));
}

[[noreturn]] void throwNonFinite(const char* function, const char* name, Eigen::Index index, double value) {
  std::ostringstream s;
  s << argumentPrefix(function, name) << "has a non-finite entry " << value << " at flat index " << index;
  throw InvalidArgument(s.str());
}

/// Reads element (i, j) of a float64 array through its strides.
inline double at(const py::array& a, py::ssize_t i) {
  return *reinterpret_cast<const double*>(static_cast<const char*>(a.data()) + i * a.strides(0));
}
inline double at(const py::array& a, py::ssize_t i, py::ssize_t j) {
  return *reinterpret_cast<const double*>(static_cast<const char*>(a.data()) + i * a.strides(0) + j * a.strides(1));
}

}  // namespace

py::array asFloatArray(const char* function, const char* name, py::handle obj) {
  py::array a;
  if (py::isinstance<py::array>(obj)) {
    a = py::reinterpret_borrow<py::array>(obj);
  } else {
    a = py::array::ensure(obj);
    if (!a) {
      throw py::type_error(argumentPrefix(function, name) + "must be a float64 array-like, got " +
                           std::string(py::str(py::type::of(obj).attr("__name__"))));
    }
  }
  const char kind = a.dtype().kind();
  if (kind == 'f' && a.itemsize() == static_cast<py::ssize_t>(sizeof(double))) return a;
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(argumentPrefix(function, name) + "must be a float64 array-like, got dtype " +
                         std::string(py::str(a.dtype())));
  }
  return py::array_t<double, py::array::forcecast>::ensure(a);
}

double readScalar(const char* function, const char* name, double x) {
  if (!std::isfinite(x)) {
    std::ostringstream s;
    s << argumentPrefix(function, name) << "is " << x << ", expected a finite number";
    throw InvalidArgument(s.str());
  }
  return x;
}

void readVector(const char* function, const char* name, py::handle obj, Eigen::Index n, Eigen::VectorXd& out) {
  const py::array a = asFloatArray(function, name, obj);
  if (a.ndim() != 1 || a.shape(0) != n) throwShape(function, name, a, {n});
  if (out.size() != n) out.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double x = at(a, i);
    if (!std::isfinite(x)) throwNonFinite(function, name, i, x);
    out[i] = x;
  }
}

Eigen::VectorXd readVector(const char* function, const char* name, py::handle obj, Eigen::Index n) {
  Eigen::VectorXd out(n);
  readVector(function, name, obj, n, out);
  return out;
}

Vector3 readVector3(const char* function, const char* name, py::handle obj) {
  Eigen::VectorXd x(3);
  readVector(function, name, obj, 3, x);
  return x;
}

Eigen::MatrixXd readMatrix(const char* function, const char* name, py::handle obj, Eigen::Index rows, Eigen::Index cols) {
  const py::array a = asFloatArray(function, name, obj);
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols) throwShape(function, name, a, {rows, cols});
  Eigen::MatrixXd out(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) {
      const double x = at(a, i, j);
      if (!std::isfinite(x)) throwNonFinite(function, name, i * cols + j, x);
      out(i, j) = x;
    }
  }
  return out;
}

Matrix3 readMatrix3(const char* function, const char* name, py::handle obj) {
  return readMatrix(function, name, obj, 3, 3);
}

py::array_t<double, py::array::c_style> readRows(const char* function, const char* name, py::handle obj,
                                                  Eigen::Index cols, Eigen::Index rows) {
  const py::array a = asFloatArray(function, name, obj);
  if (a.ndim() != 2 || a.shape(1) != cols || (rows >= 0 && a.shape(0) != rows)) throwShape(function, name, a, {rows, cols});
  auto c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  const double* p = c.data();
  const Eigen::Index n = static_cast<Eigen::Index>(c.size());
  for (Eigen::Index k = 0; k < n; ++k) {
    if (!std::isfinite(p[k])) throwNonFinite(function, name, k, p[k]);
  }
  return c;
}

bool readExternalForces(const char* function, py::handle obj, const Model& model, std::vector<Force>& out) {
  if (obj.is_none()) return false;
  const Eigen::MatrixXd F = readMatrix(function, "f_ext", obj, model.nbodies(), 6);
  out.resize(static_cast<std::size_t>(model.nbodies()));
  for (int i = 0; i < model.nbodies(); ++i) out[i] = Force(F.row(i).head<3>().transpose(), F.row(i).tail<3>().transpose());
  return true;
}

StateCall::StateCall(const char* function, const Model& model, PyData& data)
    : lock_(function, model, data), function_(function), model_(model), data_(data) {}

StateCall& StateCall::q(py::handle obj) {
  readVector(function_, "q", obj, model_.nq(), data_.q);
  return *this;
}

StateCall& StateCall::v(py::handle obj) {
  readVector(function_, "v", obj, model_.nv(), data_.v);
  return *this;
}

StateCall& StateCall::vector(const char* name, py::handle obj, Eigen::VectorXd& out) {
  readVector(function_, name, obj, model_.nv(), out);
  return *this;
}

StateCall& StateCall::externalForces(py::handle obj) {
  has_forces_ = readExternalForces(function_, obj, model_, data_.f_ext);
  return *this;
}

namespace {
std::vector<std::pair<int, BindFunction>>& registry() {
  static std::vector<std::pair<int, BindFunction>> functions;
  return functions;
}
}  // namespace

Registration::Registration(int order, BindFunction bind) { registry().emplace_back(order, bind); }

void bindAll(py::module_& m) {
  auto functions = registry();
  std::stable_sort(functions.begin(), functions.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& f : functions) f.second(m);
}

}  // namespace abdyn::python
