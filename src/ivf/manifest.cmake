# Manifest model, strict decoder, validator and encoder (publication-v1.md §2).
# (The decoder and validator are in vigilo_read_core.)
target_sources(vigilo_ivf PRIVATE ${CMAKE_CURRENT_LIST_DIR}/manifest_encode.cc)
vigilo_test(ivf_manifest_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/manifest_test.cc DEPS vigilo_ivf)
