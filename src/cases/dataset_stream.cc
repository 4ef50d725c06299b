#include "vigilo/cases/dataset_stream.h"

#include <algorithm>
#include <string>
#include <utility>

#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

using json::TokenType;

// Walks the top-level object, handing each member name to `on_member`, which
// must consume that member's value.
Status WalkTopLevel(json::Tokenizer& tok, const std::function<Status(const std::string& key)>& on_member) {
  VIGILO_ASSIGN_OR_RETURN(json::Token first, tok.Next());
  if (first.type != TokenType::kBeginObject) {
    return InvalidFormat("a dataset document must be a JSON object").WithPath("$").WithOffset(first.offset);
  }
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(json::Token t, tok.Next());
    if (t.type == TokenType::kEndObject) break;
    VIGILO_RETURN_IF_ERROR(on_member(std::string(t.text)));
  }
  VIGILO_ASSIGN_OR_RETURN(json::Token end, tok.Next());
  if (end.type != TokenType::kEnd) return Internal("expected the end of the document");
  return Status::Ok();
}

// Positions the tokenizer inside the `cases` array, or fails if it is not an array.
Status EnterCases(json::Tokenizer& tok) {
  VIGILO_ASSIGN_OR_RETURN(json::Token t, tok.Next());
  if (t.type != TokenType::kBeginArray) return InvalidFormat("cases must be an array").WithPath("$.cases").WithOffset(t.offset);
  return Status::Ok();
}

Status LeaveCases(json::Tokenizer& tok) {
  VIGILO_ASSIGN_OR_RETURN(json::Token t, tok.Next());
  if (t.type != TokenType::kEndArray) return Internal("expected the end of the cases array");
  return Status::Ok();
}

// The window bounds reads; a token may be as long as the largest value admitted.
json::TokenizerOptions TokenizerFor(const DatasetStreamLimits& limits) {
  json::TokenizerOptions options = limits.tokenizer;
  options.max_token_bytes = std::max({options.max_token_bytes, limits.max_case_bytes, limits.max_field_bytes});
  return options;
}

// Locates an error inside one value at `path`, unless it already names a place.
Status Located(Status s, const std::string& path) {
  if (!s.path().empty()) return s;
  return std::move(s).WithPath(path);
}

// A file of JSON Lines read as a dataset document fails at the second line
// with trailing data after a first object that has no `cases`: say what it
// looks like and how to read it (issue 34).
Status WithJsonLinesHint(Status s, const DatasetSourceFields& sf) {
  if (s.code() != StatusCode::kParseError || sf.cases_present ||
      !s.message().starts_with("trailing characters after the JSON value")) {
    return s;
  }
  Status hinted(s.code(), std::string(s.message()) +
                              "; the input holds more than one JSON value and the first has no \"cases\": it looks "
                              "like JSON Lines (one case per line), which is read with `format` jsonl and a "
                              "`dataset_id`");
  if (!s.path().empty()) hinted = std::move(hinted).WithPath(std::string(s.path()));
  return s.offset() ? std::move(hinted).WithOffset(*s.offset()) : hinted;
}

}  // namespace

Result<DatasetSourceFields> ReadDatasetSourceFields(ByteSource& source, const DatasetStreamLimits& limits) {
  json::Tokenizer tok(source, TokenizerFor(limits));
  DatasetSourceFields sf;
  size_t canonical_bytes = 0;  // of the members read so far
  Status walked = WalkTopLevel(tok, [&](const std::string& key) -> Status {
    if (key != "cases") {
      auto read = tok.ReadValue(limits.max_field_bytes);
      if (!read.ok()) return Located(read.status(), "$." + key);
      json::Value value = std::move(read).value();
      VIGILO_ASSIGN_OR_RETURN(std::string member, json::ToCanonical(value));
      canonical_bytes += member.size() + key.size() + 4;  // "key": and a comma
      if (canonical_bytes > limits.max_source_fields_bytes) {
        return LimitExceeded("the dataset's top-level fields exceed " + std::to_string(limits.max_source_fields_bytes) +
                             " canonical bytes (the source-fields budget)")
            .WithPath("$." + key);
      }
      sf.fields.Set(key, std::move(value));  // the tokenizer already rejected duplicates
      return Status::Ok();
    }
    sf.cases_present = true;
    VIGILO_RETURN_IF_ERROR(EnterCases(tok));
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(bool more, tok.HasNextElement());
      if (!more) break;
      VIGILO_RETURN_IF_ERROR(tok.SkipValue());
    }
    return LeaveCases(tok);
  });
  VIGILO_RETURN_IF_ERROR(WithJsonLinesHint(std::move(walked), sf));
  VIGILO_RETURN_IF_ERROR(sf.Validate());
  return sf;
}

Status ForEachDatasetCase(ByteSource& source, const DatasetStreamLimits& limits,
                          const std::function<Status(const json::Value& source_case)>& on_case) {
  json::Tokenizer tok(source, TokenizerFor(limits));
  return WalkTopLevel(tok, [&](const std::string& key) -> Status {
    if (key != "cases") return tok.SkipValue();
    VIGILO_RETURN_IF_ERROR(EnterCases(tok));
    for (uint64_t ordinal = 0;; ++ordinal) {
      VIGILO_ASSIGN_OR_RETURN(bool more, tok.HasNextElement());
      if (!more) break;
      auto c = tok.ReadValue(limits.max_case_bytes);
      if (!c.ok()) return Located(c.status(), "$.cases[" + std::to_string(ordinal) + "]");
      VIGILO_RETURN_IF_ERROR(on_case(*c));
    }
    return LeaveCases(tok);
  });
}

Result<DatasetIdentity> ComputeDatasetIdentity(const std::string& path, const DatasetStreamLimits& limits) {
  VIGILO_ASSIGN_OR_RETURN(auto first, FileByteSource::Open(path));
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, ReadDatasetSourceFields(*first, limits));
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder builder, DatasetIdentityBuilder::Start(sf.fields, sf.cases_present));
  VIGILO_ASSIGN_OR_RETURN(auto second, FileByteSource::Open(path));
  VIGILO_RETURN_IF_ERROR(ForEachDatasetCase(*second, limits, [&](const json::Value& c) {
    return builder.AddCase(c).status();
  }));
  return builder.Finish();
}

}  // namespace vigilo::cases
