# A hostile Triton submission (issue 14): its module-level code, which the frontend runs when it
# imports the submission, tries five ways out of the frontend. tests/dsl/sandbox_test.cpp fills in the
# {{...}} names, checks each step's effect from outside, and reads the outcomes this file reports in
# the error it raises at the end ("[step] blocked: ..." or "[step] escaped: ...").
import os
import socket
import subprocess

outcomes = []


def attempt(step, action):
    try:
        outcomes.append(f"[{step}] escaped: {action()}")
    except BaseException as e:  # noqa: B902 - every way of failing is a way of being blocked
        outcomes.append(f"[{step}] blocked: {type(e).__name__}: {e}")


def write_tmp():
    with open("{{TMP_MARKER}}", "w") as f:
        f.write("written by a submission\n")
    return "wrote {{TMP_MARKER}}"


def read_home():
    with open("{{HOME_FILE}}") as f:
        return "read " + f.read().strip()


def connect():
    with socket.create_connection(("127.0.0.1", {{PORT}}), timeout=5) as s:
        s.sendall(b"hello from a submission\n")
    return "connected to 127.0.0.1:{{PORT}}"


def start_sleeper():
    # Whether it outlives the frontend is for the test to see; starting it is not the escape.
    subprocess.Popen(["setsid", "sleep", "{{SLEEP_SECONDS}}"], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return "started setsid sleep {{SLEEP_SECONDS}}"


def reach_ledger():
    # Through any visible process's descriptors (the library's, or one inherited), then by its path.
    for pid in ["{{LIBRARY_PID}}", "self"] + [p for p in os.listdir("/proc") if p.isdigit()]:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") != "{{LEDGER}}":
                    continue
                with open(f"/proc/{pid}/fd/{fd}", "a") as ledger:
                    ledger.write("forged record\n")
                return f"appended through /proc/{pid}/fd/{fd}"
            except OSError:
                continue
    with open("{{LEDGER}}", "a") as ledger:
        ledger.write("forged record\n")
    return "appended to {{LEDGER}}"


attempt("write_tmp", write_tmp)
attempt("read_home", read_home)
attempt("connect", connect)
attempt("start_sleeper", start_sleeper)
attempt("reach_ledger", reach_ledger)
raise RuntimeError("MKB-HOSTILE-OUTCOMES\n" + "\n".join(outcomes))

MKB_PLAN = """/* mkb:plan
launch scale grid(ceil_div(n, 256)) block(128) args(x, y, i32(n))
*/"""
