// Block parallelism for the k-means kernels: work is cut into blocks whose
// boundaries never depend on the thread count, and each block's result depends
// only on its index, so any number of threads gives identical bytes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <system_error>
#include <thread>
#include <vector>

namespace vigilo::ivf {

// Runs worker(block) for every block in [0, blocks) on up to `threads`
// threads, the calling thread included. make_worker() is called once per
// thread and returns a callable owning that thread's scratch. If the system
// refuses to start a thread, the threads already running finish the work.
template <typename MakeWorker>
void ParallelForBlocks(uint32_t threads, size_t blocks, const MakeWorker& make_worker) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    auto worker = make_worker();
    for (size_t b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) worker(b);
  };
  const size_t extra = threads > 1 ? std::min<size_t>(threads - 1, blocks > 0 ? blocks - 1 : 0) : 0;
  std::vector<std::thread> pool;
  pool.reserve(extra);
  for (size_t t = 0; t < extra; ++t) {
    try {
      pool.emplace_back(run);
    } catch (const std::system_error&) {
      break;
    }
  }
  run();
  for (std::thread& t : pool) t.join();
}

}  // namespace vigilo::ivf
