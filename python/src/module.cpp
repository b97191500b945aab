// The extension module abdyn._abdyn; python/abdyn/__init__.py re-exports it as `abdyn`.

#include "common.hpp"

PYBIND11_MODULE(_abdyn, m) {
  namespace py = pybind11;
  m.doc() = "abdyn: articulated-body dynamics (C++ core) with NumPy arrays in and out.";
  // abdyn::Error (invalid data: a file, an element, a physical quantity, a diverged simulation) and
  // abdyn::InvalidArgument (an argument of the wrong size or with a non-finite value) both derive from
  // abdyn.Error, itself a ValueError: a caller catches everything abdyn rejects with one class.
  static py::exception<abdyn::Error> error(m, "Error", PyExc_ValueError);
  static py::exception<abdyn::InvalidArgument> invalid(m, "InvalidArgument", error.ptr());
  error.doc() = "Raised for data abdyn rejects (C++ abdyn::Error), with the C++ message. Subclass of ValueError.";
  invalid.doc() = "An argument of the wrong shape or with a non-finite value (C++ abdyn::InvalidArgument). "
                  "Subclass of abdyn.Error.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const abdyn::InvalidArgument& e) {
      PyErr_SetString(invalid.ptr(), e.what());
    } catch (const abdyn::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  m.def("set_checked_mode", &abdyn::setCheckedMode, py::arg("on"),
        "Turns checked mode on or off for the whole process (C++ abdyn::setCheckedMode): every call then also\n"
        "rejects quaternions in q whose norm is off by more than 1e-6 and non-finite values the library meets\n"
        "(abdyn.InvalidArgument). Arguments from Python are checked for NaN and infinities in either mode.");
  m.def("checked_mode", &abdyn::checkedMode, "Whether checked mode is on (C++ abdyn::checkedMode); off by default in\n"
        "Release builds of the library.");
  abdyn::python::bindAll(m);
}
