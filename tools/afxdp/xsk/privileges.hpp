// --drop-privileges (with --user, --group): once the sockets are bound and the program is
// attached, the data path needs no privilege at all, so the process gives up every one it can:
// supplementary groups, gid and uid (root becomes nobody unless --user says otherwise), every
// capability (ambient, bounding when allowed, permitted, effective, inheritable), and with
// no_new_privs none can come back through exec. A non-root user running with capabilities
// (file or ambient) keeps its uid and loses its capabilities.
//
// Capabilities belong to a thread: call this on the main thread before the queue threads exist.
#pragma once

#include <string>
#include <sys/types.h>

namespace afxdp::tool {

struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
};

// Whom to become: --user (a name or a number; default nobody when root, else ourselves) and
// --group (default the user's primary group). Throws std::invalid_argument naming the option.
RunAs resolve_run_as(const std::string& user, const std::string& group);

// Throws std::system_error naming the call that failed.
void drop_privileges(const RunAs& who);

// The line to say when --user names root (by name or as 0): the run keeps uid 0, with no
// capability; "" otherwise. Pure.
std::string root_note(const std::string& user, const RunAs& who);

}  // namespace afxdp::tool
