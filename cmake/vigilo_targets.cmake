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
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock vigilo_warnings)
  target_compile_definitions(${name} PRIVATE
    VIGILO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    VIGILO_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()
