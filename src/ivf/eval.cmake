# Recall evaluation: ground truth (.ivecs/.npy/.jsonl, by row or by id column), recall@k, timed passes (`vigilo index eval`).
target_sources(vigilo_ivf_build PRIVATE ${CMAKE_CURRENT_LIST_DIR}/eval.cc)
vigilo_test(ivf_eval_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/eval_test.cc DEPS vigilo_ivf_build)
