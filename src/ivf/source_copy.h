// The builder's source-table pass (private to src/ivf): which columns the
// source table holds, decided from the input's schema before any pass, and
// the copy of the key and those columns into source/ (docs/format/ivf-build.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/source_writer.h"
#include "vigilo/json/value.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

// The input's top-level column names: a Parquet file's fields in file
// order; a JSONL file's members of its first line (the vector field alone
// for a bare-array line); for the other formats the vector field alone.
Result<std::vector<std::string>> InputColumnNames(const VectorInput& input);

// The source table's columns: the key first, then the payload columns.
struct SourcePlan {
  std::vector<Field> fields;
  // Per field, the Parquet leaf it is copied from; kFromBlocks for the
  // generated key and for columns of the inputs without names (the key and
  // the vector, taken from the input's blocks).
  std::vector<size_t> leaves;
  static constexpr size_t kFromBlocks = static_cast<size_t>(-1);
  // A JSONL member, read from the line (its type is the field's).
  static constexpr size_t kFromJson = static_cast<size_t>(-2);
};

// A JSONL member's source type, decided from its values over the whole
// input (docs/format/ivf-inputs.md, "Payload columns"): all strings →
// string, all integers within int64 → long, numbers (some non-integer) →
// double, all booleans → boolean; null (or a missing member) is allowed
// anywhere and a member that is null everywhere is a string. Anything else
// leaves `type` empty and says in `why` what the member holds.
struct JsonlMember {
  std::string name;
  std::optional<ColumnType> type;
  std::string why;  // "row 3 holds an array", "row 0 holds a string and row 2 a number"
};
// Every member of every object line, in order of first appearance (one
// pass over the file; the vector member too, typed like the others). With
// `dense_key`, the same pass sets *not_dense to the first row whose member
// of that name is not the integer equal to its row position (a source
// table's key must be), so that it is refused before any vector pass.
Result<std::vector<JsonlMember>> ScanJsonlMembers(const std::string& path, const std::string* dense_key = nullptr,
                                                  std::optional<uint64_t>* not_dense = nullptr);
// InvalidArgument naming the member and what it holds.
Status CannotCopyJsonlMember(const JsonlMember& member);

// A Parquet file's top-level field names in file order, and the source
// type of a column (InvalidArgument naming the column for a type no source
// table holds).
std::vector<std::string> ParquetTopLevelFields(const parquet::Footer& footer);
Result<ColumnType> ParquetSourceType(const std::string& path, const parquet::ColumnDescriptor& column);

// A decoded column of `type` (string, long, double or boolean) with no rows,
// and the append of one row's JSON value to it (nullptr, a missing member,
// is a null; the value must be of the scanned type).
parquet::DecodedColumn EmptyJsonColumn(const ColumnType& type);
void AppendJsonValue(const json::Value* value, parquet::DecodedColumn& column);

// Which payload columns a source table holds (BuildOptions::source_columns,
// id_column, source).
struct SourceChoice {
  // Empty: every input column but the key and the vector column, or the
  // vector column when there is no other (.fvecs, .bvecs, .npy, JSONL, a
  // Parquet file of vectors alone).
  std::vector<std::string> columns;
  // The user's id column, put first (after the key) whatever `columns` says.
  std::string id_column;
  // The id column alone (an id build without `source`).
  bool id_only = false;
};

// InvalidArgument, before any pass, for a key that is not a long or (where
// the file shows it: Parquet statistics or key chunks, the JSONL scan) not
// the row position — naming `id_column` as the way to keep such ids —, a
// column listed twice or naming the key, a column the input does not have
// or cannot copy (its type; a JSONL member that holds arrays, objects or
// mixed kinds), an id column of a type that is no id (float, double,
// boolean, a list), and a name the manifest refuses. A JSONL input is read
// once here to type its members.
Result<SourcePlan> PlanSource(const VectorInput& input, const Field& key, const SourceChoice& choice);

// What a refusal of a key that cannot key a source table adds: the layout
// that keeps such ids (`id_column`).
std::string KeepIdsHint(const std::string& key);

// Copies the planned columns; the key must be 0, 1, 2, … in row order (the
// assign pass has checked it for a key column; the generated key is).
Result<SourceSpec> CopySource(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                              const SourceLayout& layout);

}  // namespace vigilo::ivf
