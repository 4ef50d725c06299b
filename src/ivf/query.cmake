# The sans-IO query core (docs/format/ivf-query.md) and its local driver.
# The core (query.cc, source_lookup.cc) is in vigilo_read_core; the drivers here.
target_sources(vigilo_ivf_read PRIVATE ${CMAKE_CURRENT_LIST_DIR}/query_local.cc ${CMAKE_CURRENT_LIST_DIR}/text_query.cc)
vigilo_test(ivf_query_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/query_test.cc ${CMAKE_CURRENT_LIST_DIR}/query_integrity_test.cc ${CMAKE_CURRENT_LIST_DIR}/range_plan_test.cc ${CMAKE_CURRENT_LIST_DIR}/kth_smallest_test.cc
                                  ${CMAKE_CURRENT_LIST_DIR}/source_lookup_test.cc DEPS vigilo_ivf_build)
