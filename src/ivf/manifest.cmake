# Manifest model, strict decoder, validator and encoder (publication-v1.md §2):
# all in vigilo_read_core (read_core.cmake).
vigilo_test(ivf_manifest_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/manifest_test.cc DEPS vigilo_read_core)
