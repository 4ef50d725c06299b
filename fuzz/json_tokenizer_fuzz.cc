// The streaming tokenizer must accept exactly what the DOM parser accepts and
// build the same value, whatever the read sizes and window. The first byte of
// the input picks the read chunk size, so window refills land everywhere.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "vigilo/json/parse.h"
#include "vigilo/json/tokenizer.h"

namespace {

class ChunkedSource final : public vigilo::ByteSource {
 public:
  ChunkedSource(std::string_view data, size_t chunk) : data_(data), chunk_(chunk) {}
  vigilo::Result<size_t> Read(std::span<char> buf) override {
    size_t n = std::min({buf.size(), chunk_, data_.size() - pos_});
    std::memcpy(buf.data(), data_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string_view data_;
  size_t chunk_;
  size_t pos_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t chunk = 1 + data[0] % 17;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  ChunkedSource source(input, chunk);
  vigilo::json::TokenizerOptions options;
  options.window_bytes = 1 << 16;  // larger than any fuzz input: no token-size limit differences
  vigilo::json::Tokenizer tokenizer(source, options);
  auto streamed = tokenizer.ReadValue(1 << 20);
  bool stream_ok = streamed.ok();
  if (stream_ok) {
    auto end = tokenizer.Next();
    stream_ok = end.ok() && end->type == vigilo::json::TokenType::kEnd;
  }
  auto parsed = vigilo::json::Parse(input);
  if (parsed.ok() != stream_ok) std::abort();
  if (stream_ok && !(*parsed == *streamed)) std::abort();
  return 0;
}
