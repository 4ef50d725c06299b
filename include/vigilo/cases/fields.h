// The strict object reader lives in the json layer (publication manifests
// use it too); case-storage code names it unqualified.
#pragma once

#include "vigilo/json/fields.h"

namespace vigilo::cases {
using json::Fields;
}  // namespace vigilo::cases
