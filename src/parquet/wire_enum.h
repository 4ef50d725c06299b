// Private to src/parquet: the metadata enums that travel as Thrift i32.
// TimeUnit and ColumnOrder look like enums in C++ but are Thrift unions.
#pragma once

#include <concepts>

#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

template <typename E>
concept WireEnum = std::same_as<E, Type> || std::same_as<E, ConvertedType> || std::same_as<E, FieldRepetitionType> ||
    std::same_as<E, Encoding> || std::same_as<E, CompressionCodec> || std::same_as<E, PageType>;

}  // namespace vigilo::parquet
