#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace vigilo::cli {

Progress Progress::ForStderr(bool quiet) { return Progress(stderr, !quiet && ::isatty(STDERR_FILENO) != 0); }

Progress::Progress(std::FILE* out, bool enabled, Clock clock)
    : out_(out), enabled_(enabled), clock_(std::move(clock)) {}

namespace {

std::string Duration(double seconds) {
  auto s = static_cast<uint64_t>(std::llround(std::max(seconds, 0.0)));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60), static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  }
  return buf;
}

}  // namespace

std::string Progress::Line(std::string_view step, uint64_t done, uint64_t total, double seconds) {
  std::string line(step);
  char buf[96];
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  if (total > 0) {
    constexpr int kWidth = 20;
    uint64_t capped = std::min(done, total);
    auto filled = static_cast<size_t>(static_cast<double>(capped) / static_cast<double>(total) * kWidth);
    line += " [" + std::string(filled, '#') + std::string(kWidth - filled, ' ') + "] ";
    std::snprintf(buf, sizeof buf, "%llu/%llu", static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(total));
    line += buf;
  } else {
    std::snprintf(buf, sizeof buf, " %llu", static_cast<unsigned long long>(done));
    line += buf;
  }
  std::snprintf(buf, sizeof buf, "  %.1f/s", rate);
  line += buf;
  if (total > 0 && rate > 0 && done < total) {
    line += "  ETA " + Duration(static_cast<double>(total - done) / rate);
  } else {
    line += "  " + Duration(seconds);
  }
  return line;
}

void Progress::Update(std::string_view step, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = clock_();
  if (step != step_) {
    Finish();
    step_ = std::string(step);
    started_ = now;
  }
  done_ = done;
  total_ = total;
  if (now - started_ < kShowAfter) return;
  if (drawing_ && now - drawn_ < kRedrawEvery && !(total > 0 && done >= total)) return;
  double seconds = std::chrono::duration<double>(now - started_).count();
  // \r and erase-to-end-of-line: redraw in place, shorter lines leave nothing behind.
  std::fprintf(out_, "\r%s\x1b[K", Line(step_, done, total, seconds).c_str());
  std::fflush(out_);
  drawing_ = true;
  drawn_ = now;
}

void Progress::Finish() {
  if (drawing_) {
    double seconds = std::chrono::duration<double>(clock_() - started_).count();
    std::fprintf(out_, "\r%s\x1b[K\n", Line(step_, done_, total_, seconds).c_str());
    std::fflush(out_);
  }
  drawing_ = false;
  step_.clear();
}

}  // namespace vigilo::cli
