#include "xsk/privileges.hpp"

#include <cerrno>
#include <charconv>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <system_error>
#include <unistd.h>

namespace afxdp::tool {
namespace {

constexpr uid_t nobody = 65534;

[[noreturn]] void fail(const char* call) {
  throw std::system_error(errno, std::generic_category(),
                          std::string(call) + " (--drop-privileges)");
}

bool number(const std::string& text, unsigned& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

bool has_effective(int capability) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  return (data[capability / 32].effective & (1U << (capability % 32))) != 0;
}

}  // namespace

RunAs resolve_run_as(const std::string& user, const std::string& group) {
  RunAs who{::getuid(), ::getgid()};
  if (user.empty() && who.uid == 0) who = {nobody, nobody};
  if (!user.empty()) {
    unsigned id = 0;
    if (const passwd* entry = ::getpwnam(user.c_str())) {
      who = {entry->pw_uid, entry->pw_gid};
    } else if (number(user, id)) {
      const passwd* by_id = ::getpwuid(id);
      who = {id, by_id != nullptr ? by_id->pw_gid : id};
    } else {
      throw std::invalid_argument("--user: no user " + user);
    }
  }
  if (!group.empty()) {
    unsigned id = 0;
    if (const ::group* entry = ::getgrnam(group.c_str())) {
      who.gid = entry->gr_gid;
    } else if (number(group, id)) {
      who.gid = id;
    } else {
      throw std::invalid_argument("--group: no group " + group);
    }
  }
  return who;
}

void drop_privileges(const RunAs& who) {
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
    fail("prctl(PR_CAP_AMBIENT)");
  // The bounding set needs CAP_SETPCAP, which a capability user usually lacks; no_new_privs
  // below already keeps exec from granting anything back.
  if (has_effective(CAP_SETPCAP)) {
    for (int cap = 0; ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
      if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) fail("prctl(PR_CAPBSET_DROP)");
    }
  }
  if (::getuid() != who.uid || ::geteuid() != who.uid || ::getgid() != who.gid) {
    if (::setgroups(0, nullptr) != 0) fail("setgroups");
    if (::setresgid(who.gid, who.gid, who.gid) != 0) fail("setresgid");
    if (::setresuid(who.uid, who.uid, who.uid) != 0) fail("setresuid");
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capset, &header, data) != 0) fail("capset");
}

}  // namespace afxdp::tool
