// Shared fixtures of the run-plan format tests (cases_runs_test): JSON
// surgery by path and sample run objects (the object store is
// store_test_support.h's).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/cases/ordinal_index.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "store_test_support.h"

namespace vigilo::cases::runs_test {

inline json::Value J(std::string_view text) { return *json::Parse(text); }
inline std::string Canon(const json::Value& v) { return *json::ToCanonical(v); }

inline const Uuid& RunId() {
  static const Uuid id = *Uuid::Parse("6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f");
  return id;
}

inline VerifiedObject Verified(const std::string& bytes, StorageFormat schema, const std::string& key = "runs/r/x.json") {
  return *ObjectRef::ForBytes("mem", key, schema, bytes).Verify(bytes, 64u << 20);
}

// Steps into "a.b[2].c" (creating nothing): returns the parent and the last name/index.
inline json::Value* Walk(json::Value* v, std::string_view path, std::string* last_name, std::optional<size_t>* last_index) {
  std::vector<std::pair<std::string, std::optional<size_t>>> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') { ++i; continue; }
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      steps.push_back({"", std::stoul(std::string(path.substr(i + 1, close - i - 1)))});
      i = close + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    if (end == std::string_view::npos) end = path.size();
    steps.push_back({std::string(path.substr(i, end - i)), std::nullopt});
    i = end;
  }
  for (size_t s = 0; s + 1 < steps.size(); ++s) {
    v = steps[s].second ? &v->as_array()[*steps[s].second] : v->as_object().Find(steps[s].first);
  }
  *last_name = steps.back().first;
  *last_index = steps.back().second;
  return v;
}

// A copy of `root` with the member at `path` replaced (or erased when `replacement` is nullopt).
inline json::Value With(json::Value root, std::string_view path, std::optional<json::Value> replacement) {
  std::string name;
  std::optional<size_t> index;
  json::Value* parent = Walk(&root, path, &name, &index);
  if (index) {
    if (replacement) parent->as_array()[*index] = std::move(*replacement);
    else parent->as_array().erase(parent->as_array().begin() + static_cast<std::ptrdiff_t>(*index));
  } else if (replacement) {
    parent->as_object().Set(name, std::move(*replacement));
  } else {
    parent->as_object().Erase(name);
  }
  return root;
}

inline ::testing::AssertionResult IsError(const Status& s, StatusCode code, std::string_view path) {
  if (s.ok()) return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at " << path << ", got ok";
  if (s.code() != code || s.path() != path) {
    return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at \"" << path << "\", got "
                                         << s.ToString() << " (path \"" << s.path() << "\")";
  }
  return ::testing::AssertionSuccess();
}

inline std::string HashOf(int i) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x", i & 0xff);
  std::string out;
  for (int k = 0; k < 32; ++k) out += buf;
  return out;
}

inline RunChunk Chunk(int32_t index, int32_t shard, int32_t start, int32_t end, std::string group = "default") {
  return RunChunk{index, DeriveChunkId(RunId(), index), shard, start, end, std::move(group), HashOf(index)};
}

// A page of `n` chunks from chunk index `first`, `width` cases each starting at ordinal `ordinal`.
inline RunChunkPage Page(int32_t first, int32_t n, int32_t ordinal = 0, int32_t width = 10, int32_t shard = 0) {
  RunChunkPage page;
  page.run_id = RunId();
  page.chunk_index_start = first;
  page.chunk_index_end = first + n;
  for (int32_t i = 0; i < n; ++i) page.chunks.push_back(Chunk(first + i, shard, ordinal + i * width, ordinal + (i + 1) * width));
  return page;
}

}  // namespace vigilo::cases::runs_test
