# Distance reference kernels and k-means (docs/format/ivf-build-algorithms.md); the LVQ codec (lvq.cc) is in the read core.
set(VIGILO_CODEC_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/distance.cc
  ${CMAKE_CURRENT_LIST_DIR}/kmeans.cc
  ${CMAKE_CURRENT_LIST_DIR}/kmeans_assign.cc
  ${CMAKE_CURRENT_LIST_DIR}/kmeans_partition.cc)
target_sources(vigilo_ivf_build PRIVATE ${VIGILO_CODEC_SOURCES})
# LVQ decode is normative to the bit (product rounded before the sum), and the
# k-means reductions promise a portable order: no FMA contraction anywhere.
set_source_files_properties(${VIGILO_CODEC_SOURCES} PROPERTIES COMPILE_OPTIONS -ffp-contract=off)

# OpenBLAS (Debian: libopenblas-dev) for sgemm and openblas_set_num_threads.
# Its header directory holds openblas_config.h next to its own cblas.h.
find_library(VIGILO_OPENBLAS_LIBRARY NAMES openblas REQUIRED)
find_path(VIGILO_OPENBLAS_INCLUDE_DIR openblas_config.h
  PATH_SUFFIXES openblas-pthread openblas openblas-openmp openblas-serial REQUIRED)
# SYSTEM: its headers use C99 _Complex, which clang -Wpedantic reports in C++.
target_include_directories(vigilo_ivf_build SYSTEM PRIVATE ${VIGILO_OPENBLAS_INCLUDE_DIR})
find_package(Threads REQUIRED)  # the k-means block workers
target_link_libraries(vigilo_ivf_build PUBLIC ${VIGILO_OPENBLAS_LIBRARY} Threads::Threads)

vigilo_test(ivf_codec_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/lvq_test.cc ${CMAKE_CURRENT_LIST_DIR}/distance_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/kmeans_test.cc ${CMAKE_CURRENT_LIST_DIR}/kmeans_partition_test.cc
  DEPS vigilo_ivf_build)

if(VIGILO_BENCH AND NOT VIGILO_FUZZ AND NOT VIGILO_SANITIZE)
  # k-means time (docs/format/ivf-build-algorithms.md): ivf_kmeans [n d k iterations threads...]
  add_executable(ivf_kmeans ${PROJECT_SOURCE_DIR}/bench/ivf_kmeans.cc)
  target_link_libraries(ivf_kmeans PRIVATE vigilo_ivf_build vigilo_warnings)
endif()
