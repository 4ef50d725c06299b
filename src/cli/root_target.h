// The NAME|REF argument of the dataset and run commands, as typed: `@FILE`
// (a file holding a root reference), `-` (standard input), text holding a
// '/' (a file too: no name can hold one, so the older spelling `dataset
// verify ROOT_REF_FILE` keeps working), inline JSON starting with `{`, or a
// root name. Reading files and stdin is the CLI's; the engine parses names
// and reference text (engine::ParseRootLocator, ParseRootReference).
#pragma once

#include <string_view>

#include "vigilo/common/byte_source.h"
#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/dataset_read.h"

namespace vigilo::cli {

// `stdin_source` is read for "-" (tests pass a StringByteSource). A file or
// stdin holding more than 64 KiB (one trailing LF aside) is LimitExceeded
// naming it; a missing @FILE NotFound; errors inside a reference name where
// it came from (the file, "<stdin>" or "<reference>").
Result<engine::RootLocator> ParseRootTarget(std::string_view text, ByteSource* stdin_source, control::Namespace ns);

}  // namespace vigilo::cli
