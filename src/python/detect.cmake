# Whether this build makes the Python module (src/python, docs/python.md):
# included by the root CMakeLists.txt before the layers, because a Python
# extension is a shared object and every static layer it links must then be
# compiled as position-independent code.
#
# Debian's /usr/bin/python3 is preferred when it has numpy: the `python3`
# first on PATH may be another build without numpy or pytest (a pyenv
# shim). -DPython_EXECUTABLE=... chooses another. Never in the sanitizer
# or fuzz builds (an ASan runtime cannot be loaded into a plain python).
option(VIGILO_PYTHON "Build the Python module when Python and pybind11 are found" ON)
set(VIGILO_PYTHON_MODULE OFF)
if(VIGILO_PYTHON AND NOT VIGILO_SANITIZE AND NOT VIGILO_FUZZ)
  if(NOT Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    execute_process(COMMAND /usr/bin/python3 -c "import numpy" RESULT_VARIABLE vigilo_numpy_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(vigilo_numpy_rc EQUAL 0)
      set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The interpreter the Python module is built for")
    endif()
  endif()
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(VIGILO_PYTHON_MODULE ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    message(STATUS "vigilo: Python module for ${Python_EXECUTABLE} (${Python_VERSION}), pybind11 ${pybind11_VERSION}")
  else()
    message(STATUS "vigilo: no Python module (Python development files or pybind11 not found)")
  endif()
endif()
