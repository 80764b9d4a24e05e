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

// (uid_t)-1 means "leave unchanged" to setresuid and setresgid: as a target it keeps root's ids.
void refuse_unchanged(unsigned id, const char* option) {
  if (id == static_cast<unsigned>(-1)) {
    throw std::invalid_argument(std::string(option) + ": 4294967295 is no id ((uid_t)-1 means " +
                                "\"unchanged\" to the kernel)");
  }
}

struct Ids {
  uid_t ruid = 0, euid = 0, suid = 0;
  gid_t rgid = 0, egid = 0, sgid = 0;
  [[nodiscard]] bool are(const RunAs& who) const {
    return ruid == who.uid && euid == who.uid && suid == who.uid && rgid == who.gid &&
           egid == who.gid && sgid == who.gid;
  }
};

Ids current_ids() {
  Ids ids;
  if (::getresuid(&ids.ruid, &ids.euid, &ids.suid) != 0) fail("getresuid");
  if (::getresgid(&ids.rgid, &ids.egid, &ids.sgid) != 0) fail("getresgid");
  return ids;
}

// After the change: real, effective and saved ids are the target's and, when they changed, no
// supplementary group is left (a user keeping its own ids keeps its groups).
void verify_identity(const RunAs& who, bool changed) {
  const Ids now = current_ids();
  const int groups = ::getgroups(0, nullptr);
  if (!now.are(who) || (changed && groups != 0)) {
    throw std::runtime_error("--drop-privileges: still uid " + std::to_string(now.ruid) + "/" +
                             std::to_string(now.euid) + "/" + std::to_string(now.suid) + ", gid " +
                             std::to_string(now.rgid) + "/" + std::to_string(now.egid) + "/" +
                             std::to_string(now.sgid) + ", " + std::to_string(groups) +
                             " supplementary group(s); wanted " + std::to_string(who.uid) + ":" +
                             std::to_string(who.gid) + " and none");
  }
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
      refuse_unchanged(id, "--user");
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
      refuse_unchanged(id, "--group");
      who.gid = id;
    } else {
      throw std::invalid_argument("--group: no group " + group);
    }
  }
  return who;
}

std::string root_note(const std::string& user, const RunAs& who) {
  if (user.empty() || who.uid != 0) return "";
  return "--user " + user +
         " is uid 0: every capability is dropped, but what root owns stays writable; name an "
         "unprivileged user to drop that too";
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
  const bool changed = !current_ids().are(who);
  if (changed) {
    if (::setgroups(0, nullptr) != 0) fail("setgroups");
    if (::setresgid(who.gid, who.gid, who.gid) != 0) fail("setresgid");
    if (::setresuid(who.uid, who.uid, who.uid) != 0) fail("setresuid");
  }
  verify_identity(who, changed);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capset, &header, data) != 0) fail("capset");
}

}  // namespace afxdp::tool
