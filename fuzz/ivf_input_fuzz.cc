// Build inputs (include/vigilo/ivf/input.h) on arbitrary file bytes. The
// first byte picks the format, whether a key is asked for, and the block
// size; the rest is the file. Invariants: no crash or sanitizer report; an
// error names the file; every block is full-sized except the last, holds
// rows × dimension finite floats and one key per row; a known row count is
// the count handed out; a second pass after Rewind gives the same vectors.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vigilo/ivf/input.h"

namespace {

using vigilo::ivf::InputBlock;
using vigilo::ivf::InputFormat;

constexpr InputFormat kFormats[] = {InputFormat::kParquet, InputFormat::kFvecs, InputFormat::kBvecs,
                                    InputFormat::kNpy, InputFormat::kJsonl};

// All vectors of one pass, or false after an error.
bool Pass(vigilo::ivf::VectorInput& input, size_t block_rows, std::vector<float>* all) {
  InputBlock block;
  bool short_seen = false;
  while (true) {
    auto more = input.Next(&block);
    if (!more.ok()) {
      if (more.status().path().empty()) std::abort();
      return false;
    }
    if (!*more) break;
    if (short_seen || block.rows == 0 || block.rows > block_rows) std::abort();
    short_seen = block.rows < block_rows;
    if (block.first_row * input.dimension() != all->size()) std::abort();
    if (block.vectors.size() != block.rows * input.dimension()) std::abort();
    if (input.key_field() && block.keys.size() != block.rows) std::abort();
    for (float v : block.vectors) {
      if (!std::isfinite(v)) std::abort();
    }
    all->insert(all->end(), block.vectors.begin(), block.vectors.end());
  }
  if (input.rows() && *input.rows() * input.dimension() != all->size()) std::abort();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t control = data[0];
  InputFormat format = kFormats[control % 5];
  vigilo::ivf::InputOptions options;
  options.format = format;
  options.block_rows = size_t{1} + ((control >> 4) & 7);
  if ((control & 8) != 0 && (format == InputFormat::kParquet || format == InputFormat::kJsonl)) {
    options.key_field = "id";
  }
  std::string path = "/tmp/ivf_input_fuzz_" + std::to_string(::getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data + 1, 1, size - 1, f);
  std::fclose(f);

  auto input = vigilo::ivf::OpenVectorInput(path, options);
  if (!input.ok()) {
    if (input.status().path().empty() && input.status().code() != vigilo::StatusCode::kInvalidArgument) std::abort();
  } else {
    std::vector<float> first, second;
    if (Pass(**input, options.block_rows, &first)) {
      if (!(*input)->Rewind().ok()) std::abort();
      if (!Pass(**input, options.block_rows, &second) || first != second) std::abort();
    }
  }
  std::remove(path.c_str());
  return 0;
}
