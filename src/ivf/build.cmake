# The index builder (docs/format/ivf-build.md): sample, train, assign, spill, write.
target_sources(vigilo_ivf_build PRIVATE ${CMAKE_CURRENT_LIST_DIR}/builder.cc ${CMAKE_CURRENT_LIST_DIR}/builder_dirs.cc
               ${CMAKE_CURRENT_LIST_DIR}/builder_spill.cc
               ${CMAKE_CURRENT_LIST_DIR}/source_writer.cc ${CMAKE_CURRENT_LIST_DIR}/spaced_column.cc ${CMAKE_CURRENT_LIST_DIR}/source_copy.cc)
vigilo_test(ivf_build_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/builder_test.cc ${CMAKE_CURRENT_LIST_DIR}/builder_fault_test.cc
            DEPS vigilo_ivf_build)
