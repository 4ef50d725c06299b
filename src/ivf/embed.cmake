# The embedding runtime (docs/format/embedding.md). Its sans-IO core
# (embed_tokenizer.cc, embed_assets.cc, embed_run.cc) is in vigilo_read_core
# (read_core_sources.cmake); the store driver and the importer are here.
# Pooling is normative to the bit: embed_run.cc is among the read core's
# no-FMA-contraction sources (read_core_sources.cmake).
target_sources(vigilo_ivf PRIVATE ${CMAKE_CURRENT_LIST_DIR}/embed_driver.cc ${CMAKE_CURRENT_LIST_DIR}/embed_import.cc
  ${CMAKE_CURRENT_LIST_DIR}/embed_section.cc ${CMAKE_CURRENT_LIST_DIR}/embed_tar.cc)
target_link_libraries(vigilo_ivf PRIVATE ZLIB::ZLIB OpenSSL::Crypto)
vigilo_test(ivf_embed_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/embed_core_test.cc ${CMAKE_CURRENT_LIST_DIR}/embed_driver_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/embed_import_test.cc ${CMAKE_CURRENT_LIST_DIR}/text_query_test.cc
  DEPS vigilo_ivf vigilo_store)
if(TARGET ivf_embed_test)
  target_link_libraries(ivf_embed_test PRIVATE OpenSSL::Crypto ZLIB::ZLIB)
endif()
