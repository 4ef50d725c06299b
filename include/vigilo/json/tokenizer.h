// A streaming (pull) JSON tokenizer over a ByteSource.
//
// It holds at most `window_bytes` of input at a time, so a multi-GiB dataset
// document can be read one case object at a time: walk the outer structure
// with Next(), then take each case with ReadValue(limit). It enforces the same
// strict rules as Parse (UTF-8, escapes, numbers, depth, duplicate keys,
// trailing data) with errors at absolute byte offsets. The window is an I/O
// buffer, not a token bound: a string or number longer than it grows the
// buffer for that token, up to max_token_bytes (LimitExceeded beyond).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "vigilo/common/byte_source.h"
#include "vigilo/common/result.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/value.h"

namespace vigilo::json {

enum class TokenType : uint8_t {
  kBeginObject,
  kEndObject,
  kBeginArray,
  kEndArray,
  kKey,     // an object member name; `text` holds it, unescaped
  kString,  // `text` holds the unescaped value
  kNumber,
  kBool,
  kNull,
  kEnd,     // end of the document (only whitespace followed)
};

struct Token {
  TokenType type = TokenType::kEnd;
  std::string_view text;  // valid until the next call
  Number number;
  bool boolean = false;
  uint64_t offset = 0;    // absolute offset of the token's first byte
  size_t depth = 0;       // containers open after this token
};

struct TokenizerOptions {
  size_t window_bytes = 256u << 10;  // the seed's per-stream buffer budget (I/O reads)
  // The longest single token (string or number, as input bytes with its
  // quotes): the admitted record size, so any value a record may hold is read.
  size_t max_token_bytes = 8u << 20;
  size_t max_depth = kMaxNestingDepth;
  // Bytes of member names remembered per open object for duplicate detection.
  size_t max_key_bytes = 1u << 20;
};

class Tokenizer {
 public:
  Tokenizer(ByteSource& source, TokenizerOptions options = {});

  Result<Token> Next();

  // Inside an array: consumes the ',' before the next element if needed and
  // returns true if an element follows (ReadValue or Next may take it), or
  // false if the array ends (the ']' is left for Next()).
  Result<bool> HasNextElement();

  // Reads the next complete value (which must start at the current position:
  // top level, array element, or after a key) into a DOM. Fails with
  // LimitExceeded if it spans more than max_value_bytes of input.
  Result<Value> ReadValue(size_t max_value_bytes);

  // Consumes the next complete value (same position rules as ReadValue)
  // without building it; memory stays bounded by the window.
  Status SkipValue();

  // Absolute offset of the next unread byte.
  uint64_t offset() const { return base_offset_ + pos_; }

 private:
  enum class Expect : uint8_t { kValue, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kDocumentEnd, kDone };
  struct Frame {
    bool is_object;
    std::unordered_set<std::string> keys;  // member names seen so far (objects only)
  };

  Status Fill();  // shifts consumed bytes out and reads more; sets eof_
  Result<char> PeekNonWhitespace();
  Status RejectByteOrderMark();
  Status TokenTooLong() const;  // at the token starting at pos_
  Result<Token> ScanValueToken(char c);
  Result<Token> AfterValue(Token token);
  Status Fail(Status status);
  Status ExpectValueNext(std::string_view caller);  // consumes a pending ':'; errors if no value starts

  ByteSource& source_;
  TokenizerOptions options_;
  std::vector<char> window_;
  size_t pos_ = 0;
  size_t len_ = 0;
  uint64_t base_offset_ = 0;
  bool eof_ = false;
  bool bom_checked_ = false;
  Status failed_;
  Expect expect_ = Expect::kValue;
  std::vector<Frame> stack_;
  size_t key_bytes_ = 0;
  std::string scratch_;
};

}  // namespace vigilo::json
