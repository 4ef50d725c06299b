# The two target helpers every layer's CMakeLists.txt calls, shared by the
# native build (the root CMakeLists.txt) and the WebAssembly read core's
# (src/web/CMakeLists.txt). The includer sets VIGILO_INCLUDE_DIR (the API
# headers) and, for tests, VIGILO_TESTS.

# vigilo_library(NAME SOURCES... DEPS ...): one static library per layer.
function(vigilo_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${VIGILO_INCLUDE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE vigilo_warnings)
endfunction()

# vigilo_test(NAME SOURCES... DEPS ...): a GoogleTest binary registered with
# CTest; nothing when VIGILO_TESTS is off (the WebAssembly build has none).
function(vigilo_test name)
  if(NOT VIGILO_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  # src/ for test helpers shared across layers ("common/scratch_test_support.h").
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock vigilo_warnings)
  target_compile_definitions(${name} PRIVATE
    VIGILO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    VIGILO_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
  if("vigilo_control_testing" IN_LIST ARG_DEPS)
    # The PostgreSQL instances of ControlBackends() suites (and the
    # Postgres* suites) share one server per process: one CTest entry runs
    # them all, so the server starts once, not once per case.
    set(postgres "*/Postgresql:Postgres*")
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_FILTER "-${postgres}")
    add_test(NAME ${name}_postgresql COMMAND ${name} --gtest_filter=${postgres})
    set_tests_properties(${name}_postgresql PROPERTIES LABELS postgresql TIMEOUT 600)
  else()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
