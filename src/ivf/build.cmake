# The index builder (docs/format/ivf-build.md): sample, train, assign, spill, write.
target_sources(vigilo_ivf_build PRIVATE ${CMAKE_CURRENT_LIST_DIR}/builder.cc ${CMAKE_CURRENT_LIST_DIR}/builder_dirs.cc
               ${CMAKE_CURRENT_LIST_DIR}/builder_spill.cc
               ${CMAKE_CURRENT_LIST_DIR}/source_writer.cc ${CMAKE_CURRENT_LIST_DIR}/spaced_column.cc ${CMAKE_CURRENT_LIST_DIR}/source_copy.cc
               ${CMAKE_CURRENT_LIST_DIR}/source_table.cc)
vigilo_test(ivf_build_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/builder_test.cc ${CMAKE_CURRENT_LIST_DIR}/builder_fault_test.cc
            DEPS vigilo_ivf_build)

# SIGINT/SIGTERM cancel a build and leave nothing; after SIGKILL a rerun removes
# what the dead build left (docs/format/ivf-build.md, "Interrupted and killed builds").
# Release build only: it runs four builds of 300,000 vectors, 33 s in release
# but 422 s under ASan (the longest entry of CI); in-process,
# BuilderTest.ACancelledBuildFailsCancelledAndLeavesNothing checks the same
# cancellation under the sanitizers.
if(VIGILO_TESTS AND "cli" IN_LIST VIGILO_LAYERS AND NOT VIGILO_SANITIZE)
  add_test(NAME ivf_build_interrupt
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/builder_interrupt_test.sh $<TARGET_FILE:vigilo>
                   ${CMAKE_CURRENT_BINARY_DIR}/build-interrupt)
  set_tests_properties(ivf_build_interrupt PROPERTIES TIMEOUT 900)
endif()
if(VIGILO_TESTS AND "cli" IN_LIST VIGILO_LAYERS)
  # The same for index eval (its exact search over --base) and inside k-means
  # training (docs/errors.md, "Signals"; issue 34); about 6 s.
  add_test(NAME ivf_long_commands_interrupt
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/long_commands_interrupt_test.sh $<TARGET_FILE:vigilo>
                   ${CMAKE_CURRENT_BINARY_DIR}/long-commands-interrupt)
  set_tests_properties(ivf_long_commands_interrupt PROPERTIES TIMEOUT 120)
endif()
