// parquet_fixture_writer OUTDIR: writes Parquet files with vigilo's writer
// for the interop test (tests/parquet_interop/run.sh), each with
//
//   NAME.parquet         the file
//   NAME.expected.jsonl  its rows in the shared value mapping (README.md)
//   NAME.layout.json     what the writer chose: row groups, per-chunk stats
//
// Peers (DuckDB, hyparquet) read the files and must agree with both.
// Everything is deterministic: the same binary writes the same bytes.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "vigilo/json/write.h"
#include "vigilo/parquet/compression.h"
#include "vigilo/parquet/writer.h"

namespace vp = vigilo::parquet;
namespace vj = vigilo::json;
using vigilo::Status;

namespace {

// One column's values for the whole file, spaced (one entry per row).
struct Column {
  vp::ColumnSpec spec;
  std::vector<uint8_t> valid;
  std::vector<uint8_t> bools;
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<std::string> bytes;
  std::vector<int64_t> offsets = {0};  // lists
  std::vector<float> elements;
  std::vector<uint8_t> element_valid;
};

// A deterministic generator (64-bit LCG, high bits).
struct Rng {
  uint64_t s;
  uint32_t Next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  uint32_t Below(uint32_t n) { return Next() % n; }
};

vj::Value Floating(double v) {
  if (std::isnan(v)) return vj::Value("NaN");
  if (std::isinf(v)) return vj::Value(v > 0 ? "Infinity" : "-Infinity");
  return vj::Value::Double(v);
}

std::string HexOf(std::string_view b) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : b) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

vj::Value Binary(std::string_view b) {
  vj::Object o;
  o.Set("hex", vj::Value(HexOf(b)));
  return vj::Value(std::move(o));
}

vj::Value RowValue(const Column& c, size_t r) {
  if (!c.valid.empty() && c.valid[r] == 0) return vj::Value();
  switch (c.spec.kind) {
    case vp::ColumnKind::kBoolean: return vj::Value(c.bools[r] != 0);
    case vp::ColumnKind::kInt32:
    case vp::ColumnKind::kDate: return vj::Value::Int(c.i32[r]);
    case vp::ColumnKind::kInt64: return vj::Value::Int(c.i64[r]);
    case vp::ColumnKind::kFloat: return Floating(static_cast<double>(c.f32[r]));
    case vp::ColumnKind::kDouble: return Floating(c.f64[r]);
    case vp::ColumnKind::kString: return vj::Value(c.bytes[r]);
    case vp::ColumnKind::kByteArray:
    case vp::ColumnKind::kFixedLenByteArray: return Binary(c.bytes[r]);
    case vp::ColumnKind::kFloatList: {
      vj::Array a;
      for (auto k = static_cast<size_t>(c.offsets[r]); k < static_cast<size_t>(c.offsets[r + 1]); ++k) {
        bool null = !c.element_valid.empty() && c.element_valid[k] == 0;
        a.push_back(null ? vj::Value() : Floating(static_cast<double>(c.elements[k])));
      }
      return vj::Value(std::move(a));
    }
  }
  return vj::Value();
}

const char* KindName(vp::ColumnKind k) {
  switch (k) {
    case vp::ColumnKind::kBoolean: return "BOOLEAN";
    case vp::ColumnKind::kInt32: return "INT32";
    case vp::ColumnKind::kDate: return "DATE";
    case vp::ColumnKind::kInt64: return "INT64";
    case vp::ColumnKind::kFloat: return "FLOAT";
    case vp::ColumnKind::kDouble: return "DOUBLE";
    case vp::ColumnKind::kByteArray: return "BYTE_ARRAY";
    case vp::ColumnKind::kString: return "STRING";
    case vp::ColumnKind::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
    case vp::ColumnKind::kFloatList: return "FLOAT_LIST";
  }
  return "?";
}

template <typename T>
T Load(const std::string& s) {
  T v{};
  std::memcpy(&v, s.data(), sizeof(T) < s.size() ? sizeof(T) : s.size());
  return v;
}

// A PLAIN statistics value as text: integers in decimal (DATE as days),
// floats in the canonical shortest form, strings raw, binary as hex.
std::string StatText(vp::ColumnKind kind, const std::string& v) {
  char buf[32];
  switch (kind) {
    case vp::ColumnKind::kBoolean: return v[0] ? "true" : "false";
    case vp::ColumnKind::kInt32:
    case vp::ColumnKind::kDate: return std::to_string(Load<int32_t>(v));
    case vp::ColumnKind::kInt64: return std::to_string(Load<int64_t>(v));
    case vp::ColumnKind::kFloat:
    case vp::ColumnKind::kFloatList:
    case vp::ColumnKind::kDouble: {
      double d = kind == vp::ColumnKind::kDouble ? Load<double>(v) : static_cast<double>(Load<float>(v));
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return std::string(buf, vj::FormatDouble(d, buf));
    }
    case vp::ColumnKind::kString: return v;
    default: return HexOf(v);
  }
}

struct Fixture {
  std::string name;
  vp::WriterOptions options;
  std::vector<Column> columns;
  std::vector<size_t> row_groups;  // rows per row group
};

size_t TotalRows(const Fixture& f) {
  size_t n = 0;
  for (size_t r : f.row_groups) n += r;
  return n;
}

Status WriteRowGroup(vp::FileWriter& w, const Fixture& f, size_t a, size_t b) {
  VIGILO_RETURN_IF_ERROR(w.BeginRowGroup());
  for (size_t i = 0; i < f.columns.size(); ++i) {
    const Column& c = f.columns[i];
    std::span<const uint8_t> valid;
    if (!c.valid.empty()) valid = std::span(c.valid).subspan(a, b - a);
    // Two batches per column and row group, to exercise appends.
    size_t mid = a + (b - a) / 2;
    for (auto [lo, hi] : {std::pair{a, mid}, std::pair{mid, b}}) {
      auto v = valid.empty() ? valid : valid.subspan(lo - a, hi - lo);
      Status st;
      switch (c.spec.kind) {
        case vp::ColumnKind::kBoolean: st = w.WriteBoolean(i, std::span(c.bools).subspan(lo, hi - lo), v); break;
        case vp::ColumnKind::kInt32:
        case vp::ColumnKind::kDate: st = w.WriteInt32(i, std::span(c.i32).subspan(lo, hi - lo), v); break;
        case vp::ColumnKind::kInt64: st = w.WriteInt64(i, std::span(c.i64).subspan(lo, hi - lo), v); break;
        case vp::ColumnKind::kFloat: st = w.WriteFloat(i, std::span(c.f32).subspan(lo, hi - lo), v); break;
        case vp::ColumnKind::kDouble: st = w.WriteDouble(i, std::span(c.f64).subspan(lo, hi - lo), v); break;
        case vp::ColumnKind::kByteArray:
        case vp::ColumnKind::kString:
        case vp::ColumnKind::kFixedLenByteArray: {
          std::vector<std::string_view> views(c.bytes.begin() + static_cast<std::ptrdiff_t>(lo),
                                              c.bytes.begin() + static_cast<std::ptrdiff_t>(hi));
          st = w.WriteByteArray(i, views, v);
          break;
        }
        case vp::ColumnKind::kFloatList:
          st = w.WriteFloatList(i, std::span(c.offsets).subspan(lo, hi - lo + 1), c.elements, v, c.element_valid);
          break;
      }
      VIGILO_RETURN_IF_ERROR(std::move(st).WithPath(f.name + "." + c.spec.name));
    }
  }
  return w.EndRowGroup();
}

Status WriteText(const std::string& path, const std::string& text) {
  FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) return vigilo::IoError("cannot create " + path);
  bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  ok = std::fclose(out) == 0 && ok;
  return ok ? Status::Ok() : vigilo::IoError("cannot write " + path);
}

vj::Value StatsJson(vp::ColumnKind kind, const vp::Statistics& s) {
  vj::Object o;
  o.Set("null_count", vj::Value::Int(s.null_count.value_or(-1)));
  if (s.min_value) {
    o.Set("min", vj::Value(StatText(kind, *s.min_value)));
    o.Set("max", vj::Value(StatText(kind, *s.max_value)));
    o.Set("legacy_min", vj::Value(StatText(kind, *s.min)));
    o.Set("legacy_max", vj::Value(StatText(kind, *s.max)));
  }
  return vj::Value(std::move(o));
}

Status Emit(const Fixture& f, const std::string& dir) {
  std::string base = dir + "/" + f.name;
  VIGILO_ASSIGN_OR_RETURN(auto sink, vp::FileSink::Create(base + ".parquet"));
  std::vector<vp::ColumnSpec> specs;
  for (const Column& c : f.columns) specs.push_back(c.spec);
  VIGILO_ASSIGN_OR_RETURN(auto w, vp::FileWriter::Open(specs, f.options, sink.get()));
  size_t at = 0;
  for (size_t rows : f.row_groups) {
    VIGILO_RETURN_IF_ERROR(WriteRowGroup(*w, f, at, at + rows));
    at += rows;
  }
  VIGILO_RETURN_IF_ERROR(w->Finish());
  VIGILO_RETURN_IF_ERROR(sink->Close());

  std::string lines;
  for (size_t r = 0; r < TotalRows(f); ++r) {
    vj::Object row;
    for (const Column& c : f.columns) row.Set(c.spec.name, RowValue(c, r));
    VIGILO_RETURN_IF_ERROR(vj::WriteCanonical(vj::Value(std::move(row)), &lines));
    lines += '\n';
  }
  VIGILO_RETURN_IF_ERROR(WriteText(base + ".expected.jsonl", lines));

  const vp::FileMetaData& md = w->metadata();
  vj::Array groups;
  for (const vp::RowGroup& rg : md.row_groups) {
    vj::Array cols;
    for (size_t i = 0; i < rg.columns.size(); ++i) {
      const vp::ColumnMetaData& cm = *rg.columns[i].meta_data;
      vj::Object c;
      c.Set("name", vj::Value(f.columns[i].spec.name));
      c.Set("kind", vj::Value(KindName(f.columns[i].spec.kind)));
      c.Set("num_values", vj::Value::Int(cm.num_values));
      c.Set("dictionary", vj::Value(cm.dictionary_page_offset.has_value()));
      c.Set("data_pages", vj::Value::Int((*cm.encoding_stats).back().count));
      c.Set("stats", StatsJson(f.columns[i].spec.kind, *cm.statistics));
      cols.push_back(vj::Value(std::move(c)));
    }
    vj::Object g;
    g.Set("num_rows", vj::Value::Int(rg.num_rows));
    g.Set("columns", vj::Value(std::move(cols)));
    groups.push_back(vj::Value(std::move(g)));
  }
  vj::Object layout;
  layout.Set("codec", vj::Value(vp::CompressionCodecName(f.options.codec)));
  layout.Set("num_rows", vj::Value::Int(md.num_rows));
  layout.Set("row_groups", vj::Value(std::move(groups)));
  layout.Set("created_by", vj::Value(*md.created_by));
  std::string text;
  VIGILO_RETURN_IF_ERROR(vj::WriteCanonical(vj::Value(std::move(layout)), &text));
  text += '\n';
  return WriteText(base + ".layout.json", text);
}

// ---- the fixtures ----

using Gen = std::function<void(Column&, size_t row, Rng&)>;

Column MakeColumn(vp::ColumnSpec spec, size_t rows, uint64_t seed, const Gen& gen) {
  Column c;
  c.spec = std::move(spec);
  Rng rng{seed};
  for (size_t r = 0; r < rows; ++r) gen(c, r, rng);
  if (!c.spec.optional) c.valid.clear();
  return c;
}

// Scalar generators: push one value and its validity (null when `null`).
void Null(Column& c, bool null) { c.valid.push_back(null ? 0 : 1); }

std::string Word(Rng& rng, size_t max_len, bool ascii_only) {
  static const char* pieces[] = {"a", "b", "z", "A", "0", " ", "\"", "\\", "\n", "\t", "\x01", "\x7f",
                                 "é", "ß", "€", "😀", "\xe2\x80\xa8", "/"};
  size_t n = rng.Below(static_cast<uint32_t>(max_len + 1));
  std::string s;
  for (size_t i = 0; i < n; ++i) s += pieces[rng.Below(ascii_only ? 12 : 18)];
  return s;
}

std::string Blob(Rng& rng, size_t len) {
  std::string s;
  for (size_t i = 0; i < len; ++i) s += static_cast<char>(rng.Below(256));
  return s;
}

float SpecialFloat(Rng& rng) {
  static const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 1e-7f, 1e16f, 3.4028235e38f, -3.4028235e38f,
                                   1.17549435e-38f, 1e-45f, 123456.789f, 16777216.0f, 0.3f};
  uint32_t k = rng.Below(20);
  if (k < 14) return specials[k];
  if (k == 14) return std::numeric_limits<float>::quiet_NaN();
  if (k == 15) return std::numeric_limits<float>::infinity();
  if (k == 16) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(static_cast<int32_t>(rng.Next()) % 100000) / 64.0f;
}

double SpecialDouble(Rng& rng) {
  static const double specials[] = {0.0, -0.0, 1.0, 0.1, 1e-7, 1e16, 1.1e16, 5e-324, 1.7976931348623157e308,
                                    -2.5, 0.00001, 100.0, 9007199254740993.0};
  uint32_t k = rng.Below(18);
  if (k < 13) return specials[k];
  if (k == 13) return std::numeric_limits<double>::quiet_NaN();
  if (k == 14) return std::numeric_limits<double>::infinity();
  if (k == 15) return -std::numeric_limits<double>::infinity();
  return static_cast<double>(static_cast<int64_t>(rng.Next()) - (1 << 30)) / 1024.0;
}

// Every scalar kind; `nulls` makes them optional with ~1/4 nulls.
std::vector<Column> AllKinds(size_t rows, bool nulls, uint64_t seed, bool dictionary) {
  auto gen_null = [nulls](Column& c, Rng& rng) { Null(c, nulls && rng.Below(4) == 0); };
  std::vector<Column> cols;
  auto spec = [&](std::string name, vp::ColumnKind kind) {
    vp::ColumnSpec s;
    s.name = std::move(name);
    s.kind = kind;
    s.optional = nulls;
    return s;
  };
  cols.push_back(MakeColumn(spec("bool", vp::ColumnKind::kBoolean), rows, seed + 1, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.bools.push_back(static_cast<uint8_t>(r.Below(2)));
  }));
  cols.push_back(MakeColumn(spec("i32", vp::ColumnKind::kInt32), rows, seed + 2, [&](Column& c, size_t row, Rng& r) {
    gen_null(c, r);
    static const int32_t edge[] = {INT32_MIN, INT32_MAX, 0, -1};
    c.i32.push_back(row < 4 ? edge[row] : static_cast<int32_t>(r.Next()));
  }));
  cols.push_back(MakeColumn(spec("date", vp::ColumnKind::kDate), rows, seed + 3, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.i32.push_back(static_cast<int32_t>(r.Below(40000)) - 10000);  // 1942..2079
  }));
  cols.push_back(MakeColumn(spec("i64", vp::ColumnKind::kInt64), rows, seed + 4, [&](Column& c, size_t row, Rng& r) {
    gen_null(c, r);
    static const int64_t edge[] = {INT64_MIN, INT64_MAX, 9007199254740993, -9007199254740993};
    c.i64.push_back(row < 4 ? edge[row] : static_cast<int64_t>(uint64_t{r.Next()} << 32 | r.Next()));
  }));
  cols.push_back(MakeColumn(spec("f32", vp::ColumnKind::kFloat), rows, seed + 5, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.f32.push_back(SpecialFloat(r));
  }));
  cols.push_back(MakeColumn(spec("f64", vp::ColumnKind::kDouble), rows, seed + 6, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.f64.push_back(SpecialDouble(r));
  }));
  vp::ColumnSpec str = spec("str", vp::ColumnKind::kString);
  str.dictionary = dictionary;
  cols.push_back(MakeColumn(str, rows, seed + 7, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.bytes.push_back(Word(r, 6, false));
  }));
  vp::ColumnSpec bin = spec("bin", vp::ColumnKind::kByteArray);
  bin.dictionary = dictionary;
  cols.push_back(MakeColumn(bin, rows, seed + 8, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.bytes.push_back(Blob(r, r.Below(6)));
  }));
  vp::ColumnSpec flba = spec("flba", vp::ColumnKind::kFixedLenByteArray);
  flba.type_length = 5;
  cols.push_back(MakeColumn(flba, rows, seed + 9, [&](Column& c, size_t, Rng& r) {
    gen_null(c, r);
    c.bytes.push_back(Blob(r, 5));
  }));
  return cols;
}

Column FloatList(std::string name, bool optional, bool element_optional, size_t rows, size_t max_len, uint64_t seed) {
  vp::ColumnSpec s;
  s.name = std::move(name);
  s.kind = vp::ColumnKind::kFloatList;
  s.optional = optional;
  s.element_optional = element_optional;
  return MakeColumn(s, rows, seed, [&](Column& c, size_t, Rng& r) {
    bool null = optional && r.Below(5) == 0;
    Null(c, null);
    size_t n = null ? 0 : r.Below(static_cast<uint32_t>(max_len + 1));  // 0 = an empty list
    for (size_t k = 0; k < n; ++k) {
      c.elements.push_back(SpecialFloat(r));
      c.element_valid.push_back(element_optional && r.Below(6) == 0 ? 0 : 1);
    }
    c.offsets.push_back(static_cast<int64_t>(c.elements.size()));
    if (!element_optional) c.element_valid.clear();
  });
}

std::vector<Fixture> Fixtures() {
  std::vector<Fixture> out;
  auto add = [&](std::string name, vp::CompressionCodec codec, std::vector<size_t> groups,
                 std::function<std::vector<Column>(size_t)> make, uint32_t page_size = 1u << 20,
                 uint32_t dict_limit = 1u << 20) {
    Fixture f;
    f.name = std::move(name);
    f.options.codec = codec;
    f.options.page_size = page_size;
    f.options.dictionary_size_limit = dict_limit;
    f.row_groups = std::move(groups);
    f.columns = make(TotalRows(f));
    out.push_back(std::move(f));
  };
  using C = vp::CompressionCodec;
  add("required_plain", C::kUncompressed, {3, 4}, [](size_t n) { return AllKinds(n, false, 100, false); });
  add("optional_snappy", C::kSnappy, {10, 1, 25}, [](size_t n) { return AllKinds(n, true, 200, false); });
  add("optional_zstd_dict", C::kZstd, {40, 17}, [](size_t n) { return AllKinds(n, true, 300, true); });
  add("dict_fallback", C::kUncompressed, {300, 200},
      [](size_t n) { return AllKinds(n, true, 400, true); }, 256, 64);
  add("many_pages_snappy", C::kSnappy, {2000, 3000},
      [](size_t n) {
        std::vector<Column> cols = AllKinds(n, true, 500, true);
        cols.push_back(FloatList("vec", true, true, n, 6, 501));
        return cols;
      },
      512);
  add("lists_zstd", C::kZstd, {5, 1, 30},
      [](size_t n) {
        std::vector<Column> cols;
        cols.push_back(FloatList("opt_opt", true, true, n, 4, 601));
        cols.push_back(FloatList("opt_req", true, false, n, 4, 602));
        cols.push_back(FloatList("req_opt", false, true, n, 4, 603));
        cols.push_back(FloatList("req_req", false, false, n, 4, 604));
        Column id = MakeColumn({.name = "id", .kind = vp::ColumnKind::kInt32}, n, 605,
                               [](Column& c, size_t row, Rng&) { c.i32.push_back(static_cast<int32_t>(row)); });
        cols.push_back(std::move(id));
        return cols;
      });
  add("vectors_uncompressed", C::kUncompressed, {64, 64, 8},
      [](size_t n) {
        vp::ColumnSpec s{.name = "embedding", .kind = vp::ColumnKind::kFloatList};
        Column vec = MakeColumn(s, n, 701, [](Column& c, size_t, Rng& r) {
          for (int k = 0; k < 16; ++k) c.elements.push_back(static_cast<float>(r.Below(2000)) / 1000.0f - 1.0f);
          c.offsets.push_back(static_cast<int64_t>(c.elements.size()));
        });
        Column cid = MakeColumn({.name = "cid", .kind = vp::ColumnKind::kInt32}, n, 702,
                                [](Column& c, size_t row, Rng&) { c.i32.push_back(static_cast<int32_t>(row / 64)); });
        std::vector<Column> cols;
        cols.push_back(std::move(cid));
        cols.push_back(std::move(vec));
        return cols;
      },
      300);
  add("all_null", C::kZstd, {4},
      [](size_t n) {
        std::vector<Column> cols = AllKinds(n, true, 800, true);
        for (Column& c : cols) std::fill(c.valid.begin(), c.valid.end(), 0);
        Column v = FloatList("vec", true, true, n, 3, 801);
        std::fill(v.valid.begin(), v.valid.end(), 0);
        std::fill(v.offsets.begin(), v.offsets.end(), 0);
        v.elements.clear();
        v.element_valid.clear();
        cols.push_back(std::move(v));
        return cols;
      });
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parquet_fixture_writer OUTDIR\n");
    return 2;
  }
  for (const Fixture& f : Fixtures()) {
    Status st = Emit(f, argv[1]);
    if (!st.ok()) {
      std::fprintf(stderr, "parquet_fixture_writer: %s: %s\n", f.name.c_str(), st.ToString().c_str());
      return 1;
    }
    std::printf("%s\n", f.name.c_str());
  }
  return 0;
}
