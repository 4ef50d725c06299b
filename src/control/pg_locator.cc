// Which locators name a PostgreSQL control store, and how they are printed:
// never with their password.
#include <string>
#include <string_view>

#include "vigilo/control/postgres_control_store.h"

namespace vigilo::control {

bool IsPostgresLocator(std::string_view locator) {
  return locator.starts_with("postgresql://") || locator.starts_with("postgres://");
}

// URI form (the only one OpenControlStore routes here): scheme://[user[:password]@]hosts/db?params.
// The password goes from the user info and from a password= parameter.
std::string RedactLocator(std::string_view locator) {
  const size_t scheme_end = locator.find("://");
  if (scheme_end == std::string_view::npos) return "a control database";
  std::string out(locator.substr(0, scheme_end + 3));
  std::string_view rest = locator.substr(scheme_end + 3);
  const size_t authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view user_info = authority.substr(0, at);
    out += std::string(user_info.substr(0, user_info.find(':')));
    out += std::string(authority.substr(at));
  } else {
    out += std::string(authority);
  }
  if (authority_end == std::string_view::npos) return out;
  rest = rest.substr(authority_end);
  const size_t query = rest.find('?');
  out += std::string(rest.substr(0, query));
  if (query == std::string_view::npos) return out;
  std::string_view params = rest.substr(query + 1);
  char separator = '?';
  while (!params.empty()) {
    const size_t amp = params.find('&');
    std::string_view param = params.substr(0, amp);
    if (!param.starts_with("password=") && !param.empty()) {
      out += separator;
      out += std::string(param);
      separator = '&';
    }
    if (amp == std::string_view::npos) break;
    params = params.substr(amp + 1);
  }
  return out;
}

}  // namespace vigilo::control
