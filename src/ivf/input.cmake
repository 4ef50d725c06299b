# Build inputs of `vigilo index build`: Parquet, .fvecs/.bvecs, .npy, JSONL
# (include/vigilo/ivf/input.h, docs/format/ivf-inputs.md).
target_sources(vigilo_ivf_build PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/input.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_vecs.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_npy.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_jsonl.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_parquet.cc)

vigilo_test(ivf_input_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/input_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/input_vecs_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/input_npy_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/input_jsonl_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/input_parquet_test.cc
  DEPS vigilo_ivf_build)
