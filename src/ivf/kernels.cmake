# Scoring kernels for residual LVQ postings (docs/format/ivf-build-algorithms.md,
# "Scoring kernels"): one dispatcher, scalar, portable, AVX2 and AVX-512 paths; and the
# screen that bounds LVQ8 distances before exact scoring ("Screening").
# VIGILO_KERNEL_SOURCES (read_core.cmake) are compiled into vigilo_read_core.
# No contraction: the per-row combination in double must round the same way on
# every path, and scalar/portable must stay bit-identical (the AVX2 path's FMAs
# are explicit intrinsics, which this does not affect). No -mavx2 either: the
# AVX2 and AVX-512 functions carry target attributes, so the binary runs on
# any x86-64 and picks its path once per process from CPUID.
set_source_files_properties(${VIGILO_KERNEL_SOURCES} PROPERTIES COMPILE_OPTIONS -ffp-contract=off)

vigilo_test(ivf_kernels_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/lvq_kernels_test.cc DEPS vigilo_read_core)
vigilo_test(ivf_screen_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/lvq_screen_test.cc DEPS vigilo_ivf_build)
# Every path (scalar, portable, AVX2, AVX-512) bit for bit on adversarial inputs and every d mod 32.
vigilo_test(ivf_kernel_paths_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/lvq_kernel_paths_test.cc DEPS vigilo_read_core)

if(VIGILO_BENCH AND NOT VIGILO_FUZZ AND NOT VIGILO_SANITIZE)
  # Rows/s per core, in cache and from DRAM, against a streaming-read ceiling: ivf_kernels [seconds]
  add_executable(ivf_kernels ${PROJECT_SOURCE_DIR}/bench/ivf_kernels.cc)
  target_link_libraries(ivf_kernels PRIVATE vigilo_read_core vigilo_warnings)
endif()
