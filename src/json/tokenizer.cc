#include "vigilo/json/tokenizer.h"

#include <algorithm>
#include <cstring>

#include "lex.h"

namespace vigilo::json {

Tokenizer::Tokenizer(ByteSource& source, TokenizerOptions options)
    : source_(source), options_(options), window_(options.window_bytes) {}

Status Tokenizer::Fail(Status status) {
  failed_ = status;
  expect_ = Expect::kDone;
  return status;
}

Status Tokenizer::TokenTooLong() const {
  return LimitExceeded("a JSON token is longer than the " + std::to_string(options_.max_token_bytes) +
                       "-byte token limit")
      .WithOffset(base_offset_ + pos_);
}

Status Tokenizer::Fill() {
  if (pos_ > 0) {
    std::memmove(window_.data(), window_.data() + pos_, len_ - pos_);
    len_ -= pos_;
    base_offset_ += pos_;
    pos_ = 0;
    // Back to the read window once a long token is consumed, so one long
    // value does not keep its buffer for the rest of the stream.
    if (window_.size() > options_.window_bytes && len_ < options_.window_bytes) {
      window_.resize(options_.window_bytes);
      window_.shrink_to_fit();
    }
  }
  if (len_ == window_.size()) {
    // One token fills the buffer: grow it for this token, up to the token
    // bound (+1 so a number's end can be seen after its last digit).
    size_t cap = std::max(options_.window_bytes, options_.max_token_bytes + 1);
    if (window_.size() >= cap) return TokenTooLong();
    window_.resize(std::min(cap, std::max<size_t>(window_.size() * 2, 1)));
  }
  VIGILO_ASSIGN_OR_RETURN(size_t n, source_.Read(std::span<char>(window_.data() + len_, window_.size() - len_)));
  if (n == 0) eof_ = true;
  len_ += n;
  return Status::Ok();
}

// Before the first token: a UTF-8 byte order mark gets the same message as
// json::Parse gives, not "expected a value, found byte 0xEF".
Status Tokenizer::RejectByteOrderMark() {
  bom_checked_ = true;
  while (len_ < 3 && !eof_) VIGILO_RETURN_IF_ERROR(Fill());
  if (len_ >= 3 && std::memcmp(window_.data(), "\xef\xbb\xbf", 3) == 0) {
    return ParseError("a byte order mark is not allowed").WithOffset(0);
  }
  return Status::Ok();
}

Result<char> Tokenizer::PeekNonWhitespace() {
  while (true) {
    while (pos_ < len_ && lex::IsWhitespace(window_[pos_])) ++pos_;
    if (pos_ < len_) return window_[pos_];
    if (eof_) return '\0';
    pos_ = len_;  // all whitespace: drop it
    VIGILO_RETURN_IF_ERROR(Fill());
    if (eof_ && pos_ == len_) return '\0';
  }
}

// Scans a string, number or literal at pos_, refilling the window as needed.
Result<Token> Tokenizer::ScanValueToken(char c) {
  while (true) {
    std::string_view buf(window_.data(), len_);
    Token token;
    token.offset = base_offset_ + pos_;
    lex::Scan scan;
    scratch_.clear();
    if (c == '"') {
      scan = lex::ScanString(buf, pos_, eof_, false, &scratch_);
      token.type = TokenType::kString;
    } else if (c == 't' || c == 'f') {
      scan = lex::ScanLiteral(buf, pos_, eof_, c == 't' ? "true" : "false");
      token.type = TokenType::kBool;
      token.boolean = c == 't';
    } else if (c == 'n') {
      scan = lex::ScanLiteral(buf, pos_, eof_, "null");
      token.type = TokenType::kNull;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      scan = lex::ScanNumber(buf, pos_, eof_, &token.number);
      token.type = TokenType::kNumber;
    } else if (c == '\0' && eof_) {
      return ParseError("unexpected end of input, expected a value").WithOffset(token.offset);
    } else {
      return ParseError("expected a value, found " + lex::DescribeByte(c)).WithOffset(token.offset);
    }
    if (scan.outcome == lex::Outcome::kOk) {
      if (scan.end - pos_ > options_.max_token_bytes) return TokenTooLong();
      token.text = scratch_;
      pos_ = scan.end;
      return token;
    }
    if (scan.outcome == lex::Outcome::kError) {
      Status s = std::move(scan.error);
      uint64_t rel = s.offset().value_or(0);
      return std::move(s).WithOffset(base_offset_ + rel);
    }
    VIGILO_RETURN_IF_ERROR(Fill());
  }
}

Result<Token> Tokenizer::Next() {
  if (!failed_.ok()) return failed_;
  auto result = [&]() -> Result<Token> {
    if (!bom_checked_) VIGILO_RETURN_IF_ERROR(RejectByteOrderMark());
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(char c, PeekNonWhitespace());
      uint64_t at = base_offset_ + pos_;
      bool at_end = c == '\0' && eof_ && pos_ == len_;
      switch (expect_) {
        case Expect::kDone:
          return Token{TokenType::kEnd, {}, {}, false, at, 0};
        case Expect::kDocumentEnd:
          if (!at_end) {
            return ParseError("trailing characters after the JSON value: " + lex::DescribeByte(c)).WithOffset(at);
          }
          expect_ = Expect::kDone;
          return Token{TokenType::kEnd, {}, {}, false, at, 0};
        case Expect::kColon:
          if (c != ':') {
            return ParseError(at_end ? "unexpected end of input, expected ':'"
                                     : "expected ':' after an object key, found " + lex::DescribeByte(c))
                .WithOffset(at);
          }
          ++pos_;
          expect_ = Expect::kValue;
          continue;
        case Expect::kCommaOrEnd: {
          Frame& top = stack_.back();
          char close = top.is_object ? '}' : ']';
          if (c == close) {
            ++pos_;
            key_bytes_ -= [&] {
              size_t n = 0;
              for (const auto& k : top.keys) n += k.size();
              return n;
            }();
            bool was_object = top.is_object;
            stack_.pop_back();
            expect_ = stack_.empty() ? Expect::kDocumentEnd : Expect::kCommaOrEnd;
            return Token{was_object ? TokenType::kEndObject : TokenType::kEndArray, {}, {}, false, at, stack_.size()};
          }
          if (c != ',') {
            if (at_end) return ParseError("unexpected end of input inside a container").WithOffset(at);
            return ParseError(std::string("expected ',' or '") + close + "', found " + lex::DescribeByte(c))
                .WithOffset(at);
          }
          ++pos_;
          expect_ = top.is_object ? Expect::kKey : Expect::kValue;
          VIGILO_ASSIGN_OR_RETURN(char next, PeekNonWhitespace());
          if (next == close) {
            return ParseError(top.is_object ? "trailing comma in an object" : "trailing comma in an array")
                .WithOffset(base_offset_ + pos_);
          }
          continue;
        }
        case Expect::kKeyOrEnd:
          if (c == '}') {
            ++pos_;
            stack_.pop_back();
            expect_ = stack_.empty() ? Expect::kDocumentEnd : Expect::kCommaOrEnd;
            return Token{TokenType::kEndObject, {}, {}, false, at, stack_.size()};
          }
          [[fallthrough]];
        case Expect::kKey: {
          if (c != '"') {
            if (at_end) return ParseError("unexpected end of input inside an object").WithOffset(at);
            return ParseError("expected a string key in an object, found " + lex::DescribeByte(c)).WithOffset(at);
          }
          VIGILO_ASSIGN_OR_RETURN(Token token, ScanValueToken(c));
          token.type = TokenType::kKey;
          Frame& top = stack_.back();
          key_bytes_ += token.text.size();
          if (key_bytes_ > options_.max_key_bytes) {
            return LimitExceeded("object member names exceed the tokenizer's " +
                                 std::to_string(options_.max_key_bytes) + "-byte duplicate-check budget")
                .WithOffset(token.offset);
          }
          if (!top.keys.emplace(token.text).second) {
            return ParseError("duplicate object key \"" + std::string(token.text) + "\"").WithOffset(token.offset);
          }
          token.depth = stack_.size();
          expect_ = Expect::kColon;
          return token;
        }
        case Expect::kValue: {
          if (c == '{' || c == '[') {
            if (stack_.size() + 1 > options_.max_depth) {
              return LimitExceeded("nesting deeper than " + std::to_string(options_.max_depth) + " levels")
                  .WithOffset(at);
            }
            ++pos_;
            bool is_object = c == '{';
            stack_.push_back(Frame{is_object, {}});
            // An empty array closes on ']' right away; handled as "comma or end" with no comma allowed.
            VIGILO_ASSIGN_OR_RETURN(char next, PeekNonWhitespace());
            if (is_object) {
              expect_ = Expect::kKeyOrEnd;
            } else if (next == ']') {
              expect_ = Expect::kCommaOrEnd;
            } else {
              expect_ = Expect::kValue;
            }
            return Token{is_object ? TokenType::kBeginObject : TokenType::kBeginArray, {}, {}, false, at,
                         stack_.size()};
          }
          VIGILO_ASSIGN_OR_RETURN(Token token, ScanValueToken(c));
          token.depth = stack_.size();
          expect_ = stack_.empty() ? Expect::kDocumentEnd : Expect::kCommaOrEnd;
          return token;
        }
      }
    }
  }();
  if (!result.ok()) return Fail(result.status());
  return result;
}

Result<bool> Tokenizer::HasNextElement() {
  if (!failed_.ok()) return failed_;
  if (stack_.empty() || stack_.back().is_object) {
    return Fail(InvalidArgument("HasNextElement called outside an array").WithOffset(offset()));
  }
  if (expect_ == Expect::kValue) return true;  // right after '[' or ','
  if (expect_ != Expect::kCommaOrEnd) return Fail(Internal("unexpected tokenizer state in an array"));
  auto peek = PeekNonWhitespace();
  if (!peek.ok()) return Fail(peek.status());
  char c = *peek;
  if (c == ']') return false;
  if (c != ',') {
    if (c == '\0' && eof_) return Fail(ParseError("unexpected end of input inside an array").WithOffset(offset()));
    return Fail(ParseError("expected ',' or ']', found " + lex::DescribeByte(c)).WithOffset(offset()));
  }
  ++pos_;
  auto next = PeekNonWhitespace();
  if (!next.ok()) return Fail(next.status());
  if (*next == ']') return Fail(ParseError("trailing comma in an array").WithOffset(offset()));
  expect_ = Expect::kValue;
  return true;
}

Status Tokenizer::ExpectValueNext(std::string_view caller) {
  if (!failed_.ok()) return failed_;
  if (expect_ == Expect::kColon) {  // right after a key: the ':' is still unread
    auto c = PeekNonWhitespace();
    if (!c.ok()) return Fail(c.status());
    if (*c != ':') {
      return Fail(ParseError("expected ':' after an object key, found " + lex::DescribeByte(*c)).WithOffset(offset()));
    }
    ++pos_;
    expect_ = Expect::kValue;
  }
  if (expect_ != Expect::kValue) {
    return Fail(InvalidArgument(std::string(caller) + " called where no value starts").WithOffset(offset()));
  }
  return Status::Ok();
}

Status Tokenizer::SkipValue() {
  VIGILO_RETURN_IF_ERROR(ExpectValueNext("SkipValue"));
  size_t depth = 0;
  do {
    VIGILO_ASSIGN_OR_RETURN(Token t, Next());
    if (t.type == TokenType::kBeginObject || t.type == TokenType::kBeginArray) ++depth;
    if (t.type == TokenType::kEndObject || t.type == TokenType::kEndArray) --depth;
    if (t.type == TokenType::kEnd) return Fail(Internal("document ended inside a value"));
  } while (depth > 0);
  return Status::Ok();
}

Result<Value> Tokenizer::ReadValue(size_t max_value_bytes) {
  VIGILO_RETURN_IF_ERROR(ExpectValueNext("ReadValue"));
  // Build the DOM from tokens, so the checks are exactly those of Next().
  // Members are collected and sorted once when their object closes.
  struct Open {
    bool is_object;
    Array items;
    std::vector<Object::Member> members;
    std::string key;  // pending member name
  };
  std::vector<Open> open;
  uint64_t start = offset();
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(Token t, Next());
    if (offset() - start > max_value_bytes) {
      return Fail(LimitExceeded("JSON value exceeds its limit of " + std::to_string(max_value_bytes) + " bytes")
                      .WithOffset(start));
    }
    Value done;
    switch (t.type) {
      case TokenType::kBeginObject: open.push_back({true, {}, {}, {}}); continue;
      case TokenType::kBeginArray: open.push_back({false, {}, {}, {}}); continue;
      case TokenType::kKey: open.back().key = std::string(t.text); continue;
      case TokenType::kEndObject: {
        auto& members = open.back().members;
        std::sort(members.begin(), members.end(),
                  [](const Object::Member& a, const Object::Member& b) { return a.first < b.first; });
        done = Value(Object::FromSortedUnique(std::move(members)));  // Next() rejected duplicates
        open.pop_back();
        break;
      }
      case TokenType::kEndArray:
        done = Value(std::move(open.back().items));
        open.pop_back();
        break;
      case TokenType::kString: done = Value(std::string(t.text)); break;
      case TokenType::kNumber: done = Value(t.number); break;
      case TokenType::kBool: done = Value(t.boolean); break;
      case TokenType::kNull: done = Value(); break;
      case TokenType::kEnd: return Fail(Internal("document ended inside a value"));
    }
    if (open.empty()) return done;
    Open& parent = open.back();
    if (parent.is_object) {
      parent.members.emplace_back(std::move(parent.key), std::move(done));
    } else {
      parent.items.push_back(std::move(done));
    }
  }
}

}  // namespace vigilo::json
