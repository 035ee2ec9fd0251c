// The sandbox of the Python DSL frontends (docs/DSLS.md, "The sandbox"). A submission in a Python DSL
// is the agent's own Python code, run at import time by the frontend; it runs under bubblewrap with
// new user, mount, network, PID, IPC and UTS namespaces: it sees the system's and the interpreter's
// folders read-only and a private, size-limited /tmp, nothing of the user's home, the ledger or the
// cache, has no network, inherits no descriptor but its channel, no capabilities and resource limits,
// and its whole process tree dies with the frontend.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/process.hpp"

namespace mkb {

// True when MKB_NO_SANDBOX is set to anything but "" or "0": run Python frontends unconfined.
bool sandbox_disabled_by_environment();

// What confining one interpreter takes here. Found once per interpreter and remembered: finding it
// starts the interpreter (to ask where it lives) and a sandbox (to try it).
struct python_sandbox {
  std::string interpreter_error; // the interpreter cannot run: why (names it)
  std::string sandbox_error;     // bubblewrap is missing or cannot confine here: why (names what)
  std::string bwrap;             // the bubblewrap executable
  std::string interpreter;       // the interpreter's own file (sys.executable), not a shim that finds it
  std::vector<std::string> read_only; // the interpreter's prefixes and sys.path folders
  bool usable() const { return interpreter_error.empty() && sandbox_error.empty(); }
};
const python_sandbox &python_sandbox_for(const std::string &python);

// The resource limits of a frontend run: CPU time (a multiple of the wall-clock limit, for threads),
// address space, file size, processes and open files.
std::vector<std::pair<int, rlim_t>> frontend_limits(std::chrono::seconds time_limit);

struct sandboxed_command {
  std::string executable;
  std::vector<std::string> arguments;
  std::vector<std::string> environment;
};

// The command that runs `script` (a file of the caller's, bound read-only as /tmp/<its name>) with the
// sandbox's interpreter, in a private /tmp that is also its working folder.
sandboxed_command sandboxed_python(const python_sandbox &box, const std::string &script);

} // namespace mkb
