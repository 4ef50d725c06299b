// Progress on stderr (docs/cli.md "Progress"): drawn only when stderr is a
// terminal and --quiet is not given, and only for a step that has run long
// enough to be worth watching; redrawn in place at most ten times a second,
// with the rate and the time left. Off a terminal nothing is written, so
// logs and pipes see only what the command prints on purpose.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace vigilo::cli {

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Draws on stderr when it is a terminal and `quiet` is false.
  static Progress ForStderr(bool quiet);
  // Draws on `out` when `enabled`; the clock is injectable for tests.
  Progress(std::FILE* out, bool enabled, Clock clock = std::chrono::steady_clock::now);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { Finish(); }

  // `done` of `total` units of `step` (total 0: unknown). A new step name
  // finishes the previous one.
  void Update(std::string_view step, uint64_t done, uint64_t total);
  // Ends the current line if one was drawn.
  void Finish();

  // The line drawn for a step: "step [#####     ] 120/300  40.0/s  ETA 0:05".
  static std::string Line(std::string_view step, uint64_t done, uint64_t total, double seconds);

  // A step is drawn once it has run this long; shorter ones stay silent.
  static constexpr std::chrono::milliseconds kShowAfter{1000};
  static constexpr std::chrono::milliseconds kRedrawEvery{100};

 private:
  std::FILE* out_;
  bool enabled_;
  Clock clock_;
  std::string step_;
  std::chrono::steady_clock::time_point started_{}, drawn_{};
  bool drawing_ = false;
  uint64_t done_ = 0, total_ = 0;
};

}  // namespace vigilo::cli
