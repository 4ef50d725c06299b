#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

const char* PhysicalTypeName(Type type) {
  switch (type) {
    case Type::kBoolean: return "BOOLEAN";
    case Type::kInt32: return "INT32";
    case Type::kInt64: return "INT64";
    case Type::kInt96: return "INT96";
    case Type::kFloat: return "FLOAT";
    case Type::kDouble: return "DOUBLE";
    case Type::kByteArray: return "BYTE_ARRAY";
    case Type::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return nullptr;
}

}  // namespace vigilo::parquet
