#include "errors.h"

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace vigilo::python {

void RegisterErrorTranslator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      const Status& s = e.status();
      // vigilo._errors.from_status(code, message, path, offset) builds the
      // instance of the code's class.
      py::object make = py::module_::import("vigilo._errors").attr("from_status");
      py::object offset = s.offset() ? py::object(py::int_(*s.offset())) : py::object(py::none());
      py::object error = make(std::string(StatusCodeName(s.code())), std::string(s.message()),
                              std::string(s.path()), offset);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
}

}  // namespace vigilo::python
