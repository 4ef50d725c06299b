#include "vigilo/ivf/publication_inspect.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "vigilo/parquet/footer.h"
#include "vigilo/parquet/schema.h"

namespace vigilo::ivf {
namespace {

// A top-level column's logical type as Parquet names it (the converted type
// for older writers), or none.
std::optional<std::string> LogicalTypeName(const parquet::SchemaElement& e) {
  using K = parquet::LogicalType::Kind;
  if (e.logical_type) {
    switch (e.logical_type->kind) {
      case K::kString: return "STRING";
      case K::kList: return "LIST";
      case K::kDate: return "DATE";
      case K::kInteger:
        return "INT(" + std::to_string(e.logical_type->bit_width) + ", " +
               (e.logical_type->is_signed ? "signed" : "unsigned") + ")";
      default: return "other (" + std::to_string(static_cast<int>(e.logical_type->kind)) + ")";
    }
  }
  if (e.converted_type) {
    switch (*e.converted_type) {
      case parquet::ConvertedType::kUtf8: return "UTF8";
      case parquet::ConvertedType::kList: return "LIST";
      case parquet::ConvertedType::kDate: return "DATE";
      case parquet::ConvertedType::kInt32: return "INT_32";
      case parquet::ConvertedType::kInt64: return "INT_64";
      default: return "converted (" + std::to_string(static_cast<int>(*e.converted_type)) + ")";
    }
  }
  return std::nullopt;
}

// The source table's columns, typed from the first source file's footer.
Result<std::vector<SourceColumnShape>> SourceColumns(const Manifest& m, store::ObjectStore& store,
                                                     uint64_t* bytes_read) {
  std::vector<SourceColumnShape> columns;
  if (!m.source || m.source->files.empty()) return columns;
  VIGILO_ASSIGN_OR_RETURN(parquet::Footer footer, ReadObjectFooter(store, m.source->files[0].object, bytes_read));
  const std::vector<parquet::SchemaElement>& schema = footer.metadata.schema;
  for (const Field& field : m.source->columns) {
    SourceColumnShape c;
    c.name = field.name;
    c.type = field.type.ToString();
    for (size_t i = 1; i < schema.size(); ++i) {
      if (footer.schema.parent[i] != 0 || schema[i].name != field.name) continue;
      c.logical_type = LogicalTypeName(schema[i]);
      for (const parquet::LeafColumn& leaf : footer.schema.leaves) {
        std::vector<std::string_view> names = parquet::LeafPath(schema, footer.schema, leaf);
        const std::optional<parquet::Type>& type = schema[leaf.schema_index].type;
        if (!names.empty() && names[0] == field.name && type) {
          const char* name = parquet::PhysicalTypeName(*type);
          c.physical_type = name ? std::string(name) : std::to_string(static_cast<int32_t>(*type));
          break;
        }
      }
      break;
    }
    columns.push_back(std::move(c));
  }
  return columns;
}

}  // namespace

SizeSummary Summarize(std::vector<uint64_t> values) {
  SizeSummary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {  // nearest rank: the smallest value with at least p of the values at or below it
    auto i = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
    return values[std::max<size_t>(i, 1) - 1];
  };
  s.min = values.front();
  s.max = values.back();
  s.p50 = rank(0.50);
  s.p90 = rank(0.90);
  s.p99 = rank(0.99);
  s.mean = static_cast<double>(std::accumulate(values.begin(), values.end(), uint64_t{0})) /
           static_cast<double>(values.size());
  return s;
}

Result<PublicationShape> InspectPublication(const Manifest& m, store::ObjectStore& store) {
  PublicationShape shape;
  shape.list_rows.assign(m.index.nlist, 0);
  shape.centroids_bytes = m.hierarchy.centroids.size;
  for (const PostingsFile& file : m.postings) {
    shape.postings_bytes += file.object.size;
    VIGILO_ASSIGN_OR_RETURN(parquet::Footer f, ReadObjectFooter(store, file.object, &shape.footer_bytes_read));
    for (size_t g = 0; g < f.metadata.row_groups.size(); ++g) {
      const parquet::RowGroup& rg = f.metadata.row_groups[g];
      VIGILO_ASSIGN_OR_RETURN(int32_t cid,
                              PostingsRowGroupCid(rg, file.object.path + ": row group " + std::to_string(g)));
      if (cid < 0 || static_cast<uint64_t>(cid) >= m.index.nlist) {
        return InvalidFormat("row group holds CID " + std::to_string(cid) + ", beyond nlist")
            .WithPath(file.object.path + ": row group " + std::to_string(g));
      }
      shape.list_rows[static_cast<size_t>(cid)] += static_cast<uint64_t>(rg.num_rows);
      ++shape.postings_row_groups;
    }
  }
  if (m.source) {
    for (const SourceFile& f : m.source->files) shape.source_bytes += f.object.size;
  }
  if (m.embedding) {
    for (const ObjectDescriptor& a : m.embedding->assets) shape.embedding_bytes += a.size;
  }
  for (uint64_t n : shape.list_rows) shape.empty_lists += n == 0;
  shape.lists = Summarize(shape.list_rows);
  std::vector<uint64_t> buckets;
  const auto& off = m.hierarchy.cid_offsets;
  for (size_t r = 0; r + 1 < off.size(); ++r) {
    buckets.push_back(std::accumulate(shape.list_rows.begin() + static_cast<std::ptrdiff_t>(off[r]),
                                      shape.list_rows.begin() + static_cast<std::ptrdiff_t>(off[r + 1]), uint64_t{0}));
  }
  shape.buckets = Summarize(std::move(buckets));
  VIGILO_ASSIGN_OR_RETURN(shape.source_columns, SourceColumns(m, store, &shape.footer_bytes_read));
  return shape;
}

}  // namespace vigilo::ivf
