// The tokenizer "vigilo-words-v1" of contract static-word-vectors-v1
// (docs/format/embedding.md, Tokenizer): byte rules a JavaScript port can
// repeat exactly, no Unicode tables.
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/utf8.h"
#include "vigilo/ivf/embed_core.h"

namespace vigilo::ivf {

namespace {

constexpr std::string_view kPlaceholder = "{text}";

// ASCII letters and digits, and every byte of a non-ASCII code point.
bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

}  // namespace

Result<std::string> ApplyInputTemplate(std::string_view input_template, std::string_view text) {
  size_t at = input_template.find(kPlaceholder);
  if (at == std::string_view::npos || input_template.find(kPlaceholder, at + 1) != std::string_view::npos) {
    return InvalidFormat("the input template must hold \"{text}\" exactly once").WithPath("input-template");
  }
  std::string out;
  out.reserve(input_template.size() - kPlaceholder.size() + text.size());
  out.append(input_template.substr(0, at));
  out.append(text);
  out.append(input_template.substr(at + kPlaceholder.size()));
  return out;
}

Result<std::vector<std::string>> TokenizeWords(std::string_view text) {
  if (text.size() > kMaxEmbedTextBytes) {
    return LimitExceeded("the text is " + std::to_string(text.size()) + " bytes; at most " +
                         std::to_string(kMaxEmbedTextBytes) + " are embedded");
  }
  if (size_t bad = FindInvalidUtf8(text); bad != kUtf8Valid) {
    return InvalidArgument("the text is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&]() -> Status {
    if (current.empty()) return Status::Ok();
    if (tokens.size() == kMaxEmbedTokens) {
      return LimitExceeded("the text has more than " + std::to_string(kMaxEmbedTokens) + " words");
    }
    tokens.push_back(std::move(current));
    current.clear();
    return Status::Ok();
  };
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (IsWordByte(c)) {
      current.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : ch);
    } else {
      VIGILO_RETURN_IF_ERROR(flush());
    }
  }
  VIGILO_RETURN_IF_ERROR(flush());
  return tokens;
}

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace vigilo::ivf
