// StoreConfig::Parse on arbitrary bytes (docs/format/stores.md): an operator's
// file, but read by every command that takes --store. Invariants: no crash
// or sanitizer report; an error never echoes a "url" value (secrets stay in
// the file); every accepted alias is found again by its own name.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vigilo/store/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto config = vigilo::store::StoreConfig::Parse(bytes, "fuzz.json");
  if (!config.ok()) {
    // The value of every "url" member (as raw bytes between its quotes) must
    // not appear in the error when it looks like a URL.
    const std::string error = config.status().ToString();
    for (size_t at = bytes.find("\"url\""); at != std::string_view::npos; at = bytes.find("\"url\"", at + 5)) {
      size_t pos = at + 5;
      while (pos < bytes.size() && (bytes[pos] == ' ' || bytes[pos] == ':' || bytes[pos] == '\n')) ++pos;
      if (pos >= bytes.size() || bytes[pos] != '"') continue;
      size_t close = bytes.find('"', pos + 1);
      if (close == std::string_view::npos) continue;
      std::string_view value = bytes.substr(pos + 1, close - pos - 1);
      if (value.size() < 12 || value.find("://") == std::string_view::npos) continue;
      // The same text elsewhere (an alias, a field name) may be quoted legitimately.
      if (bytes.find(value) != pos + 1 || bytes.find(value, pos + 2) != std::string_view::npos) continue;
      if (error.find(value) == std::string::npos) continue;
      // The value may be text of the message itself (the fuzzer copies
      // message fragments into its inputs, e.g. a url of "file:// URL may
      // name no host but localhost …"). An echo follows the input: toggle the
      // case of the value's last letter and parse again; only if the error
      // then holds the changed value did it come from the input.
      std::string changed(bytes);
      size_t letter = std::string::npos;
      for (size_t i = pos + 1; i < close; ++i) {
        const char c = changed[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) letter = i;
      }
      if (letter == std::string::npos) continue;
      changed[letter] = static_cast<char>(changed[letter] ^ 0x20);
      auto again = vigilo::store::StoreConfig::Parse(changed, "fuzz.json");
      const std::string changed_value = changed.substr(pos + 1, close - pos - 1);
      if (again.ok() || again.status().ToString().find(changed_value) == std::string::npos) continue;
      std::abort();
    }
    return 0;
  }
  (void)config->Find("local");
  (void)config->Find("");
  return 0;
}
