// parquet_bench_writer KIND ROWS FILE [CODEC]: the inputs of bench/parquet.sh,
// written with vigilo's writer (100,000-row row groups, deterministic data).
//
//   vectors  embedding: required LIST<FLOAT> of 100 required floats
//   lvq      id INT32, scale FLOAT, bias FLOAT, code BYTE_ARRAY (50 bytes),
//            all required: the shape of an IVF-LVQ postings file
//
// CODEC is uncompressed, snappy or zstd (default).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/parquet/writer.h"

namespace vp = vigilo::parquet;
using vigilo::Status;

namespace {

constexpr size_t kRowGroup = 100000;
constexpr size_t kDim = 100;
constexpr size_t kCodeBytes = 50;

uint64_t state = 0x9e3779b97f4a7c15ull;
uint32_t Next() {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<uint32_t>(state >> 33);
}
float UnitFloat() { return static_cast<float>(Next() % 2000001) / 1000000.0f - 1.0f; }

Status Vectors(vp::FileWriter& w, size_t rows) {
  std::vector<int64_t> offsets;
  std::vector<float> elements;
  for (size_t start = 0; start < rows; start += kRowGroup) {
    size_t n = std::min(kRowGroup, rows - start);
    offsets.assign(1, 0);
    elements.clear();
    for (size_t r = 0; r < n; ++r) {
      for (size_t k = 0; k < kDim; ++k) elements.push_back(UnitFloat());
      offsets.push_back(static_cast<int64_t>(elements.size()));
    }
    VIGILO_RETURN_IF_ERROR(w.BeginRowGroup());
    VIGILO_RETURN_IF_ERROR(w.WriteFloatList(0, offsets, elements));
    VIGILO_RETURN_IF_ERROR(w.EndRowGroup());
  }
  return Status::Ok();
}

Status Lvq(vp::FileWriter& w, size_t rows) {
  std::vector<int32_t> ids;
  std::vector<float> scale, bias;
  std::string codes;
  std::vector<std::string_view> views;
  for (size_t start = 0; start < rows; start += kRowGroup) {
    size_t n = std::min(kRowGroup, rows - start);
    ids.clear();
    scale.clear();
    bias.clear();
    codes.clear();
    views.clear();
    for (size_t r = 0; r < n; ++r) {
      ids.push_back(static_cast<int32_t>(start + r));
      scale.push_back(UnitFloat() + 2.0f);
      bias.push_back(UnitFloat());
      for (size_t k = 0; k < kCodeBytes; ++k) codes.push_back(static_cast<char>(Next() & 0xff));
    }
    for (size_t r = 0; r < n; ++r) views.emplace_back(codes.data() + r * kCodeBytes, kCodeBytes);
    VIGILO_RETURN_IF_ERROR(w.BeginRowGroup());
    VIGILO_RETURN_IF_ERROR(w.WriteInt32(0, ids));
    VIGILO_RETURN_IF_ERROR(w.WriteFloat(1, scale));
    VIGILO_RETURN_IF_ERROR(w.WriteFloat(2, bias));
    VIGILO_RETURN_IF_ERROR(w.WriteByteArray(3, views));
    VIGILO_RETURN_IF_ERROR(w.EndRowGroup());
  }
  return Status::Ok();
}

Status Run(std::string_view kind, size_t rows, const std::string& path, std::string_view codec) {
  vp::WriterOptions options;
  if (codec == "zstd") {
    options.codec = vp::CompressionCodec::kZstd;
  } else if (codec == "snappy") {
    options.codec = vp::CompressionCodec::kSnappy;
  } else if (codec != "uncompressed") {
    return vigilo::InvalidArgument("unknown codec " + std::string(codec));
  }
  std::vector<vp::ColumnSpec> cols;
  if (kind == "vectors") {
    cols = {{.name = "embedding", .kind = vp::ColumnKind::kFloatList}};
  } else if (kind == "lvq") {
    cols = {{.name = "id", .kind = vp::ColumnKind::kInt32},
            {.name = "scale", .kind = vp::ColumnKind::kFloat},
            {.name = "bias", .kind = vp::ColumnKind::kFloat},
            {.name = "code", .kind = vp::ColumnKind::kByteArray}};
  } else {
    return vigilo::InvalidArgument("unknown kind " + std::string(kind));
  }
  VIGILO_ASSIGN_OR_RETURN(auto sink, vp::FileSink::Create(path));
  VIGILO_ASSIGN_OR_RETURN(auto w, vp::FileWriter::Open(cols, options, sink.get()));
  VIGILO_RETURN_IF_ERROR(kind == "vectors" ? Vectors(*w, rows) : Lvq(*w, rows));
  VIGILO_RETURN_IF_ERROR(w->Finish());
  return sink->Close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: parquet_bench_writer vectors|lvq ROWS FILE [uncompressed|snappy|zstd]\n");
    return 2;
  }
  Status st = Run(argv[1], std::strtoull(argv[2], nullptr, 10), argv[3], argc == 5 ? argv[4] : "zstd");
  if (!st.ok()) {
    std::fprintf(stderr, "parquet_bench_writer: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
