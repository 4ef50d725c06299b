# Publication writer: centroids, postings files and the manifest (publication-v1.md §3), in
# vigilo_ivf_build; the object-level checks, inspect and full verification, in vigilo_ivf_read.
target_sources(vigilo_ivf_build PRIVATE ${CMAKE_CURRENT_LIST_DIR}/publication_writer.cc)
target_sources(vigilo_ivf_read PRIVATE ${CMAKE_CURRENT_LIST_DIR}/publication_check.cc
               ${CMAKE_CURRENT_LIST_DIR}/publication_inspect.cc ${CMAKE_CURRENT_LIST_DIR}/publication_verify.cc)
vigilo_test(ivf_publish_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/publication_writer_test.cc ${CMAKE_CURRENT_LIST_DIR}/publication_check_test.cc DEPS vigilo_ivf_build)
# Full verification (`vigilo index verify`): the exhaustive corruption test.
vigilo_test(ivf_verify_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/publication_verify_test.cc DEPS vigilo_ivf_build)
