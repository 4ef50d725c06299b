// Test helpers for the build inputs: a scratch directory, deterministic
// vectors, and writers for every input format (so each test makes the exact
// file it needs).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vigilo/ivf/input.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::ivf::testing {

// A fresh directory per test, removed afterwards.
class InputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("vigilo_input_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::string Write(const std::string& name, const std::string& bytes) const {
    std::string path = Path(name);
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  std::filesystem::path dir_;
};

// rows × dim values. With `bytes`, every value is an integer 0…255 (so that
// bvecs and '|u1' can hold it); otherwise multiples of 1/64 (exact in binary
// and in short decimal, so JSON round-trips them bit for bit).
struct Matrix {
  uint32_t dim = 0;
  uint64_t rows = 0;
  std::vector<float> values;

  std::span<const float> Row(uint64_t r) const { return {values.data() + r * dim, dim}; }
};

inline Matrix MakeMatrix(uint64_t rows, uint32_t dim, bool bytes) {
  Matrix m{dim, rows, {}};
  m.values.resize(rows * dim);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint32_t j = 0; j < dim; ++j) {
      uint64_t h = (r * 2654435761u + j * 40503u + 17) % 1000;
      m.values[r * dim + j] = bytes ? static_cast<float>(h % 256) : static_cast<float>(h) / 64.0f - 7.0f;
    }
  }
  return m;
}

inline void AppendInt32(std::string* out, int32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }

inline std::string FvecsBytes(const Matrix& m) {
  std::string out;
  for (uint64_t r = 0; r < m.rows; ++r) {
    AppendInt32(&out, static_cast<int32_t>(m.dim));
    out.append(reinterpret_cast<const char*>(m.Row(r).data()), m.dim * 4);
  }
  return out;
}

inline std::string BvecsBytes(const Matrix& m) {
  std::string out;
  for (uint64_t r = 0; r < m.rows; ++r) {
    AppendInt32(&out, static_cast<int32_t>(m.dim));
    for (float v : m.Row(r)) out.push_back(static_cast<char>(static_cast<uint8_t>(v)));
  }
  return out;
}

// An .npy file with the given header dict and raw data; the header is padded
// with spaces to a multiple of 64 bytes and ends with LF, as NumPy writes it.
inline std::string NpyFile(const std::string& dict, const std::string& data, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  if (major == 1) {
    out.push_back(static_cast<char>(header.size() & 0xff));
    out.push_back(static_cast<char>(header.size() >> 8));
  } else {
    AppendInt32(&out, static_cast<int32_t>(header.size()));
  }
  return out + header + data;
}

inline std::string NpyDict(const std::string& descr, uint64_t rows, uint32_t dim, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (" +
         std::to_string(rows) + ", " + std::to_string(dim) + "), }";
}

// '<f4', '<f8' or '|u1' data of m.
inline std::string NpyData(const Matrix& m, const std::string& descr) {
  std::string out;
  for (float v : m.values) {
    if (descr == "<f4") {
      out.append(reinterpret_cast<const char*>(&v), 4);
    } else if (descr == "<f8") {
      double d = v;
      out.append(reinterpret_cast<const char*>(&d), 8);
    } else {
      out.push_back(static_cast<char>(static_cast<uint8_t>(v)));
    }
  }
  return out;
}

inline std::string JsonNumber(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
  return buf;
}

// {"id": <r>, "vector": [...]} per line (the key omitted when key_name is empty).
inline std::string JsonlBytes(const Matrix& m, const std::string& key_name = "id") {
  std::string out;
  for (uint64_t r = 0; r < m.rows; ++r) {
    out += "{";
    if (!key_name.empty()) out += "\"" + key_name + "\": " + std::to_string(r) + ", ";
    out += "\"vector\": [";
    for (uint32_t j = 0; j < m.dim; ++j) out += (j ? ", " : "") + JsonNumber(m.Row(r)[j]);
    out += "]}\n";
  }
  return out;
}

// A Parquet file with columns `id` (INT64 = row) and `vector` (LIST<FLOAT>),
// `group_rows` rows per row group.
inline void WriteParquet(const std::string& path, const Matrix& m, uint64_t group_rows) {
  using namespace vigilo::parquet;
  MemorySink sink;
  std::vector<ColumnSpec> cols = {{"id", ColumnKind::kInt64}, {"vector", ColumnKind::kFloatList}};
  auto w = FileWriter::Open(cols, {}, &sink);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (uint64_t start = 0; start < m.rows; start += group_rows) {
    uint64_t n = std::min(group_rows, m.rows - start);
    std::vector<int64_t> ids(n);
    std::vector<int64_t> offsets(n + 1);
    for (uint64_t i = 0; i < n; ++i) ids[i] = static_cast<int64_t>(start + i);
    for (uint64_t i = 0; i <= n; ++i) offsets[i] = static_cast<int64_t>(i * m.dim);
    ASSERT_TRUE((*w)->BeginRowGroup().ok());
    ASSERT_TRUE((*w)->WriteInt64(0, ids).ok());
    ASSERT_TRUE(
        (*w)->WriteFloatList(1, offsets, std::span<const float>(m.values).subspan(start * m.dim, n * m.dim)).ok());
    ASSERT_TRUE((*w)->EndRowGroup().ok());
  }
  ASSERT_TRUE((*w)->Finish().ok());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(sink.bytes().data()), static_cast<std::streamsize>(sink.bytes().size()));
}

// Every block of one pass.
inline Result<std::vector<InputBlock>> ReadBlocks(VectorInput& input) {
  std::vector<InputBlock> blocks;
  while (true) {
    InputBlock block;
    VIGILO_ASSIGN_OR_RETURN(bool more, input.Next(&block));
    if (!more) break;
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// All vectors of one pass, concatenated.
inline Result<std::vector<float>> ReadVectors(VectorInput& input) {
  VIGILO_ASSIGN_OR_RETURN(auto blocks, ReadBlocks(input));
  std::vector<float> all;
  for (const auto& b : blocks) all.insert(all.end(), b.vectors.begin(), b.vectors.end());
  return all;
}

// The error a whole pass ends with (OK if none): opening included.
inline Status PassError(const std::string& path, const InputOptions& options) {
  auto input = OpenVectorInput(path, options);
  if (!input.ok()) return input.status();
  auto blocks = ReadBlocks(**input);
  return blocks.ok() ? Status::Ok() : blocks.status();
}

}  // namespace vigilo::ivf::testing
