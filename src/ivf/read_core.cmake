# vigilo_read_core: the sans-IO read path alone (docs/format/wasm.md) — the
# manifest model (decode, validate, encode), query planning and scoring, the
# LVQ codec and kernels, source lookup, the embedding runtime (tokenizer,
# asset parsers, pooling). No OpenBLAS, threads, OpenSSL, files or sockets:
# it links only the sans-IO layers below (vigilo_parquet_read, vigilo_json,
# vigilo_common), so the WebAssembly build (src/web) links this same target.
# tests/read_core_deps.sh keeps the rule (it reads the list below).
set(VIGILO_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/lvq_kernels.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_kernels_scalar.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_kernels_portable.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_kernels_avx2.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_kernels_avx512.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_screen.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_screen_avx2.cc
  ${CMAKE_CURRENT_LIST_DIR}/lvq_screen_avx512.cc)
# LVQ decode and pooling are normative to the bit, and scalar/portable/AVX2
# must stay bit-identical: no FMA contraction in these (see kernels.cmake).
set(VIGILO_READ_CORE_NO_CONTRACT_SOURCES ${VIGILO_KERNEL_SOURCES} ${CMAKE_CURRENT_LIST_DIR}/lvq.cc
    ${CMAKE_CURRENT_LIST_DIR}/embed_run.cc)
set(VIGILO_READ_CORE_SOURCES
  ${VIGILO_READ_CORE_NO_CONTRACT_SOURCES}
  ${CMAKE_CURRENT_LIST_DIR}/types.cc
  ${CMAKE_CURRENT_LIST_DIR}/key_column.cc
  ${CMAKE_CURRENT_LIST_DIR}/exact_float32.cc
  ${CMAKE_CURRENT_LIST_DIR}/manifest_decode.cc
  ${CMAKE_CURRENT_LIST_DIR}/manifest_validate.cc
  ${CMAKE_CURRENT_LIST_DIR}/manifest_encode.cc
  ${CMAKE_CURRENT_LIST_DIR}/postings_cid.cc
  ${CMAKE_CURRENT_LIST_DIR}/column_schema.cc
  ${CMAKE_CURRENT_LIST_DIR}/range_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/kth_smallest.cc
  ${CMAKE_CURRENT_LIST_DIR}/query.cc
  ${CMAKE_CURRENT_LIST_DIR}/query_score.cc
  ${CMAKE_CURRENT_LIST_DIR}/postings_group_columns.cc
  ${CMAKE_CURRENT_LIST_DIR}/source_lookup.cc
  ${CMAKE_CURRENT_LIST_DIR}/embed_tokenizer.cc
  ${CMAKE_CURRENT_LIST_DIR}/embed_assets.cc)
vigilo_library(vigilo_read_core
  SOURCES ${VIGILO_READ_CORE_SOURCES}
  DEPS vigilo_parquet_read vigilo_json vigilo_common)
set_source_files_properties(${VIGILO_READ_CORE_NO_CONTRACT_SOURCES} PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
if(VIGILO_TESTS)
  # Links the core alone (no other ivf target): an unresolved symbol or a
  # forbidden library on its link line fails here.
  add_executable(read_core_link_check ${PROJECT_SOURCE_DIR}/tests/read_core_link_check.cc)
  target_link_libraries(read_core_link_check PRIVATE vigilo_read_core vigilo_warnings)
  add_test(NAME read_core_deps
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/read_core_deps.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
endif()

# The WebAssembly read core's node smoke test (tests/wasm/smoke.mjs): results
# bit-identical to the native CLI's. Needs scripts/build-wasm first, so it is
# opt-in; scripts/test (CI) turns it on for the release build.
option(VIGILO_WASM_TEST "Run the WebAssembly read core's smoke test (build it with scripts/build-wasm)" OFF)
set(VIGILO_WASM_DIR ${PROJECT_SOURCE_DIR}/build/wasm CACHE PATH
    "What scripts/build-wasm built: vigilo_read_core.mjs and web/, which the wasm tests load")
if(VIGILO_TESTS AND VIGILO_WASM_TEST AND "cli" IN_LIST VIGILO_LAYERS)
  add_test(NAME wasm_smoke
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/wasm/smoke.mjs $<TARGET_FILE:vigilo> ${VIGILO_WASM_DIR}/vigilo_read_core.mjs
                   ${CMAKE_CURRENT_BINARY_DIR}/wasm-smoke)
  set_tests_properties(wasm_smoke PROPERTIES LABELS wasm TIMEOUT 120)
  # The ES module (web/, copied beside the core by scripts/build-wasm) over a
  # private nginx against the CLI, and its HTTP refusals (tests/wasm/module.mjs).
  add_test(NAME wasm_module
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/wasm/module.mjs $<TARGET_FILE:vigilo> ${VIGILO_WASM_DIR}/web
                   ${CMAKE_CURRENT_BINARY_DIR}/wasm-module)
  set_tests_properties(wasm_module PROPERTIES LABELS wasm TIMEOUT 180)
  # The search page (web/search/) in Debian's headless Chromium through
  # playwright-core (tools/), against the CLI; its screenshot lands here.
  add_test(NAME wasm_page
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/wasm/page.mjs $<TARGET_FILE:vigilo> ${VIGILO_WASM_DIR}/web
                   ${CMAKE_CURRENT_BINARY_DIR}/wasm-page ${CMAKE_CURRENT_BINARY_DIR}/wasm-page.png)
  set_tests_properties(wasm_page PROPERTIES LABELS wasm TIMEOUT 240)
endif()
