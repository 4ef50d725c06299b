# vigilo_read_core: the sans-IO read path alone (docs/format/wasm.md) — no
# OpenBLAS, threads, OpenSSL, files or sockets, so it also builds for
# WebAssembly. vigilo_ivf links it; tests/read_core_deps.sh keeps the rule.
include(${CMAKE_CURRENT_LIST_DIR}/read_core_sources.cmake)
vigilo_library(vigilo_read_core
  SOURCES ${VIGILO_READ_CORE_IVF_SOURCES}
  DEPS vigilo_parquet vigilo_json vigilo_common)
set_source_files_properties(${VIGILO_READ_CORE_NO_CONTRACT_SOURCES} PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
if(VIGILO_TESTS)
  # Links the core alone (no vigilo_ivf): an unresolved symbol or a forbidden
  # library on its link line fails here.
  add_executable(read_core_link_check ${PROJECT_SOURCE_DIR}/tests/read_core_link_check.cc)
  target_link_libraries(read_core_link_check PRIVATE vigilo_read_core vigilo_warnings)
  add_test(NAME read_core_deps
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/read_core_deps.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
endif()

# The WebAssembly read core's node smoke test (tests/wasm/smoke.mjs): results
# bit-identical to the native CLI's. Needs scripts/build-wasm first, so it is
# opt-in; scripts/test (CI) turns it on for the release build.
option(VIGILO_WASM_TEST "Run the WebAssembly read core's smoke test (build it with scripts/build-wasm)" OFF)
set(VIGILO_WASM_JS ${PROJECT_SOURCE_DIR}/build/wasm/vigilo_read_core.js CACHE FILEPATH
    "The WebAssembly read core that wasm_smoke loads")
if(VIGILO_TESTS AND VIGILO_WASM_TEST AND "cli" IN_LIST VIGILO_LAYERS)
  add_test(NAME wasm_smoke
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/wasm/smoke.mjs $<TARGET_FILE:vigilo> ${VIGILO_WASM_JS}
                   ${CMAKE_CURRENT_BINARY_DIR}/wasm-smoke)
  set_tests_properties(wasm_smoke PROPERTIES LABELS wasm TIMEOUT 120)
endif()
