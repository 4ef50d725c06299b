# The sans-IO read core's sources (docs/format/wasm.md): manifest decode and
# validation, query planning and scoring, the LVQ kernels, source lookup, the
# embedding runtime (tokenizer, asset parsers, pooling).
# Included by read_core.cmake (the native vigilo_read_core target) and by the
# WebAssembly build (src/web/CMakeLists.txt), which also needs the lower
# layers' read-side sources listed below (natively they come from
# vigilo_parquet, vigilo_json and vigilo_common).
get_filename_component(VIGILO_READ_CORE_DIR ${CMAKE_CURRENT_LIST_DIR}/../.. ABSOLUTE)
set(VIGILO_KERNEL_SOURCES
  ${VIGILO_READ_CORE_DIR}/src/ivf/lvq_kernels.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/lvq_kernels_scalar.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/lvq_kernels_portable.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/lvq_kernels_avx2.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/lvq_screen.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/lvq_screen_avx2.cc)
# LVQ decode is normative to the bit, and scalar/portable/AVX2 must stay
# bit-identical: no FMA contraction in these (see kernels.cmake).
set(VIGILO_READ_CORE_NO_CONTRACT_SOURCES ${VIGILO_KERNEL_SOURCES} ${VIGILO_READ_CORE_DIR}/src/ivf/lvq.cc
    ${VIGILO_READ_CORE_DIR}/src/ivf/embed_run.cc)
set(VIGILO_READ_CORE_IVF_SOURCES
  ${VIGILO_READ_CORE_NO_CONTRACT_SOURCES}
  ${VIGILO_READ_CORE_DIR}/src/ivf/types.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/key_column.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/exact_float32.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/manifest_decode.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/manifest_validate.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/postings_cid.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/column_schema.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/range_plan.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/query.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/postings_group_columns.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/source_lookup.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/embed_tokenizer.cc
  ${VIGILO_READ_CORE_DIR}/src/ivf/embed_assets.cc)

# The lower layers' read side, for the WebAssembly build only. compression.cc
# is replaced there by src/web/compression_wasm.cc (UNCOMPRESSED only).
set(VIGILO_READ_CORE_LOWER_SOURCES)
foreach(f common/status.cc common/hex.cc common/uuid.cc common/utf8.cc common/paths.cc
          json/value.cc json/lex.cc json/parse.cc json/write.cc json/canonical.cc json/tokenizer.cc json/fields.cc
          parquet/thrift_compact_reader.cc parquet/logical_type.cc parquet/metadata_read.cc parquet/schema.cc
          parquet/footer.cc parquet/footer_validate.cc parquet/type_names.cc parquet/levels_reader.cc
          parquet/level_scan.cc parquet/value_decoder.cc parquet/column_reader.cc parquet/chunk_levels.cc
          parquet/column_view.cc parquet/value_json.cc)
  list(APPEND VIGILO_READ_CORE_LOWER_SOURCES ${VIGILO_READ_CORE_DIR}/src/${f})
endforeach()
