# Publication writer: centroids, postings files and the manifest (publication-v1.md §3).
target_sources(vigilo_ivf PRIVATE ${CMAKE_CURRENT_LIST_DIR}/publication_writer.cc ${CMAKE_CURRENT_LIST_DIR}/publication_check.cc
               ${CMAKE_CURRENT_LIST_DIR}/publication_inspect.cc ${CMAKE_CURRENT_LIST_DIR}/publication_verify.cc)
target_link_libraries(vigilo_ivf PUBLIC vigilo_store)
vigilo_test(ivf_publish_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/publication_writer_test.cc ${CMAKE_CURRENT_LIST_DIR}/publication_check_test.cc DEPS vigilo_ivf)
# Full verification (`vigilo index verify`): the exhaustive corruption test.
vigilo_test(ivf_verify_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/publication_verify_test.cc DEPS vigilo_ivf)
