# The embedding runtime (docs/format/embedding.md). Its sans-IO core
# (embed_tokenizer.cc, embed_assets.cc, embed_run.cc) is in vigilo_read_core
# (read_core.cmake; embed_run.cc is among its no-FMA-contraction sources:
# pooling is normative to the bit); the store driver is in vigilo_ivf_read;
# model import and conversion (tarball, probes, the embedding section) are
# vigilo_ivf_embed.
target_sources(vigilo_ivf_read PRIVATE ${CMAKE_CURRENT_LIST_DIR}/embed_driver.cc)
target_sources(vigilo_ivf_embed PRIVATE ${CMAKE_CURRENT_LIST_DIR}/embed_import.cc ${CMAKE_CURRENT_LIST_DIR}/embed_probes.cc
  ${CMAKE_CURRENT_LIST_DIR}/embed_section.cc ${CMAKE_CURRENT_LIST_DIR}/embed_tar.cc)
target_link_libraries(vigilo_ivf_embed PRIVATE ZLIB::ZLIB OpenSSL::Crypto)
vigilo_test(ivf_embed_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/embed_core_test.cc ${CMAKE_CURRENT_LIST_DIR}/embed_driver_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/embed_import_test.cc ${CMAKE_CURRENT_LIST_DIR}/embed_probes_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/text_query_test.cc
  DEPS vigilo_ivf_build vigilo_store)
if(TARGET ivf_embed_test)
  target_link_libraries(ivf_embed_test PRIVATE OpenSSL::Crypto ZLIB::ZLIB)
endif()

# The full model on real data (tests/embed/wordnet_quality.sh): the wink
# tarball scripts/setup caches, WordNet's nouns, text queries whose expected
# synsets must rank where they do. Once, in the release build (scripts/test
# turns it on there; not under ASan).
option(VIGILO_FULL_MODEL_TEST "Run the full-model text-search checks (needs scripts/setup's wink tarball)" OFF)
if(VIGILO_TESTS AND VIGILO_FULL_MODEL_TEST AND "cli" IN_LIST VIGILO_LAYERS)
  add_test(NAME wordnet_text_quality
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/embed/wordnet_quality.sh $<TARGET_FILE:vigilo>
                   ${CMAKE_CURRENT_BINARY_DIR}/wordnet-quality)
  # Its publication (build/.../wordnet-quality/pub) is what s3_wordnet publishes to RGW.
  set_tests_properties(wordnet_text_quality PROPERTIES LABELS full_model TIMEOUT 300
                       FIXTURES_SETUP wordnet_publication)
  add_test(NAME s3_wordnet
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/s3/wordnet.sh $<TARGET_FILE:vigilo>
                   ${CMAKE_CURRENT_BINARY_DIR}/wordnet-quality/pub)
  set_tests_properties(s3_wordnet PROPERTIES LABELS "s3;full_model" TIMEOUT 300
                       FIXTURES_REQUIRED wordnet_publication)
endif()
