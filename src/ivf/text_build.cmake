# Text builds (docs/format/ivf-build.md, "Building from text"): the text
# column embedded with a model `vigilo embed import` wrote.
target_sources(vigilo_ivf_build PRIVATE ${CMAKE_CURRENT_LIST_DIR}/text_build.cc)
vigilo_test(ivf_text_build_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/text_build_test.cc DEPS vigilo_ivf_build vigilo_store)
if(TARGET ivf_text_build_test)
  target_link_libraries(ivf_text_build_test PRIVATE ZLIB::ZLIB)
endif()
