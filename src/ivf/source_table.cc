#include "vigilo/ivf/source_table.h"

#include "source_copy.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::ivf {

Result<std::vector<Field>> SourceColumnsOf(const parquet::Footer& footer, const std::string& where) {
  std::vector<std::string> names = ParquetTopLevelFields(footer);
  if (names.size() != footer.schema.leaves.size()) {
    // A list column has one leaf and one top-level field; anything else
    // nested (a struct, a map) has more leaves than fields.
    return InvalidArgument("the file has nested columns; a source table holds flat columns and list<float>")
        .WithPath(where);
  }
  std::vector<Field> out;
  for (size_t i = 0; i < names.size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(parquet::ColumnDescriptor c,
                            parquet::DescribeColumn(footer.metadata.schema, footer.schema, i));
    VIGILO_ASSIGN_OR_RETURN(ColumnType type, ParquetSourceType(where, c));
    out.push_back(Field{names[i], type});
  }
  return out;
}

}  // namespace vigilo::ivf
