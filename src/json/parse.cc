#include "vigilo/json/parse.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "lex.h"
#include "vigilo/common/utf8.h"

namespace vigilo::json {
namespace {

class Parser {
 public:
  Parser(std::string_view buf, const ParseOptions& options) : buf_(buf), options_(options) {}

  Result<Value> ParseDocument() {
    size_t pos = lex::SkipWhitespace(buf_, 0);
    Value value;
    VIGILO_RETURN_IF_ERROR(ParseValue(pos, 0, &value));
    pos = lex::SkipWhitespace(buf_, pos_);
    if (pos != buf_.size()) {
      return ParseError("trailing characters after the JSON value: " + lex::DescribeByte(buf_[pos]))
          .WithOffset(pos);
    }
    return value;
  }

 private:
  // Parses the value starting at `pos` (whitespace already skipped); leaves pos_ after it.
  Status ParseValue(size_t pos, size_t depth, Value* out) {
    if (pos >= buf_.size()) return ParseError("unexpected end of input, expected a value").WithOffset(pos);
    char c = buf_[pos];
    switch (c) {
      case '{': return ParseObject(pos, depth + 1, out);
      case '[': return ParseArray(pos, depth + 1, out);
      case '"': {
        std::string s;
        VIGILO_RETURN_IF_ERROR(Finish(lex::ScanString(buf_, pos, true, true, &s)));
        *out = Value(std::move(s));
        return Status::Ok();
      }
      case 't':
      case 'f': {
        bool b = c == 't';
        VIGILO_RETURN_IF_ERROR(Finish(lex::ScanLiteral(buf_, pos, true, b ? "true" : "false")));
        *out = Value(b);
        return Status::Ok();
      }
      case 'n':
        VIGILO_RETURN_IF_ERROR(Finish(lex::ScanLiteral(buf_, pos, true, "null")));
        *out = Value();
        return Status::Ok();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          Number n;
          VIGILO_RETURN_IF_ERROR(Finish(lex::ScanNumber(buf_, pos, true, &n)));
          *out = Value(n);
          return Status::Ok();
        }
        return ParseError("expected a value, found " + lex::DescribeByte(c)).WithOffset(pos);
    }
  }

  Status Finish(lex::Scan scan) {
    if (scan.outcome != lex::Outcome::kOk) return std::move(scan.error);
    pos_ = scan.end;
    return Status::Ok();
  }

  Status CheckDepth(size_t depth, size_t pos) const {
    if (depth > options_.max_depth) {
      return LimitExceeded("nesting deeper than " + std::to_string(options_.max_depth) + " levels")
          .WithOffset(pos);
    }
    return Status::Ok();
  }

  Status ParseArray(size_t pos, size_t depth, Value* out) {
    VIGILO_RETURN_IF_ERROR(CheckDepth(depth, pos));
    Array items;
    size_t p = lex::SkipWhitespace(buf_, pos + 1);
    if (p < buf_.size() && buf_[p] == ']') {
      pos_ = p + 1;
      *out = Value(std::move(items));
      return Status::Ok();
    }
    while (true) {
      Value item;
      VIGILO_RETURN_IF_ERROR(ParseValue(p, depth, &item));
      items.push_back(std::move(item));
      p = lex::SkipWhitespace(buf_, pos_);
      if (p >= buf_.size()) return ParseError("unexpected end of input inside an array").WithOffset(p);
      if (buf_[p] == ']') break;
      if (buf_[p] != ',') {
        return ParseError("expected ',' or ']' in an array, found " + lex::DescribeByte(buf_[p])).WithOffset(p);
      }
      p = lex::SkipWhitespace(buf_, p + 1);
      if (p < buf_.size() && buf_[p] == ']') return ParseError("trailing comma in an array").WithOffset(p);
    }
    pos_ = p + 1;
    *out = Value(std::move(items));
    return Status::Ok();
  }

  Status ParseObject(size_t pos, size_t depth, Value* out) {
    VIGILO_RETURN_IF_ERROR(CheckDepth(depth, pos));
    std::vector<Object::Member> members;
    const size_t offsets_base = key_offsets_.size();  // this object's slice of key_offsets_
    size_t p = lex::SkipWhitespace(buf_, pos + 1);
    if (p < buf_.size() && buf_[p] == '}') {
      pos_ = p + 1;
      *out = Value(Object());
      return Status::Ok();
    }
    while (true) {
      if (p >= buf_.size()) return ParseError("unexpected end of input inside an object").WithOffset(p);
      if (buf_[p] != '"') {
        return ParseError("expected a string key in an object, found " + lex::DescribeByte(buf_[p]))
            .WithOffset(p);
      }
      std::string key;
      VIGILO_RETURN_IF_ERROR(Finish(lex::ScanString(buf_, p, true, true, &key)));
      key_offsets_.push_back(p);
      p = lex::SkipWhitespace(buf_, pos_);
      if (p >= buf_.size() || buf_[p] != ':') {
        return ParseError(p >= buf_.size() ? "unexpected end of input, expected ':'"
                                           : "expected ':' after an object key, found " + lex::DescribeByte(buf_[p]))
            .WithOffset(p);
      }
      p = lex::SkipWhitespace(buf_, p + 1);
      Value value;
      VIGILO_RETURN_IF_ERROR(ParseValue(p, depth, &value));
      members.emplace_back(std::move(key), std::move(value));
      p = lex::SkipWhitespace(buf_, pos_);
      if (p >= buf_.size()) return ParseError("unexpected end of input inside an object").WithOffset(p);
      if (buf_[p] == '}') break;
      if (buf_[p] != ',') {
        return ParseError("expected ',' or '}' in an object, found " + lex::DescribeByte(buf_[p])).WithOffset(p);
      }
      p = lex::SkipWhitespace(buf_, p + 1);
      if (p < buf_.size() && buf_[p] == '}') return ParseError("trailing comma in an object").WithOffset(p);
    }
    pos_ = p + 1;
    Status sorted = SortAndCheckDuplicates(&members, key_offsets_.data() + offsets_base);
    key_offsets_.resize(offsets_base);
    VIGILO_RETURN_IF_ERROR(sorted);
    *out = Value(Object::FromSortedUnique(std::move(members)));
    return Status::Ok();
  }

  // Sorts members by key bytes; a repeated key is an error at the offset of
  // its second occurrence (the earliest such one in the document). `offsets`
  // holds each member's key offset, in input order.
  static Status SortAndCheckDuplicates(std::vector<Object::Member>* members, size_t* offsets) {
    auto& m = *members;
    const size_t n = m.size();
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i) sorted = m[i - 1].first < m[i].first;
    if (sorted) return Status::Ok();  // canonical input is already sorted and unique
    if (n <= 32) {
      // Stable insertion sort in place, carrying the offsets along: typical
      // objects are small and this allocates nothing.
      for (size_t i = 1; i < n; ++i) {
        for (size_t j = i; j > 0 && m[j].first < m[j - 1].first; --j) {
          std::swap(m[j], m[j - 1]);
          std::swap(offsets[j], offsets[j - 1]);
        }
      }
    } else {
      std::vector<size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m[a].first < m[b].first; });
      std::vector<Object::Member> out;
      out.reserve(n);
      std::vector<size_t> out_offsets(n);
      for (size_t i = 0; i < n; ++i) {
        out.push_back(std::move(m[order[i]]));
        out_offsets[i] = offsets[order[i]];
      }
      m = std::move(out);
      std::copy(out_offsets.begin(), out_offsets.end(), offsets);
    }
    // Equal keys are adjacent, in input order: the second of a pair is the repeat.
    size_t dup = n;
    for (size_t i = 1; i < n; ++i) {
      if (m[i].first == m[i - 1].first && (dup == n || offsets[i] < offsets[dup])) dup = i;
    }
    if (dup != n) return ParseError("duplicate object key \"" + m[dup].first + "\"").WithOffset(offsets[dup]);
    return Status::Ok();
  }

  std::string_view buf_;
  const ParseOptions& options_;
  size_t pos_ = 0;
  std::vector<size_t> key_offsets_;  // a stack shared by all open objects
};

}  // namespace

Result<Value> Parse(std::string_view bytes, const ParseOptions& options) {
  if (bytes.size() > options.max_bytes) {
    return LimitExceeded("JSON input is " + std::to_string(bytes.size()) + " bytes; the limit is " +
                         std::to_string(options.max_bytes));
  }
  if (bytes.size() >= 3 && bytes.substr(0, 3) == "\xef\xbb\xbf") {
    return ParseError("a byte order mark is not allowed").WithOffset(0);
  }
  size_t bad = FindInvalidUtf8(bytes);
  if (bad != kUtf8Valid) return ParseError("invalid UTF-8").WithOffset(bad);
  return Parser(bytes, options).ParseDocument();
}

}  // namespace vigilo::json
