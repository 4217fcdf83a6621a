#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Edit the task names a capture carries, and its text to match.

    task_names.py tracedat names|malformed IN.dat IN.txt OUT.dat OUT.txt
    task_names.py tracefs IN.txt OUT_CMDLINES OUT.txt

tracedat: IN.dat is an uncompressed trace.dat (version 6, or 7 without
compressed sections) and IN.txt its `trace-cmd report` text.  Its saved
command lines ("PID COMM" lines after an 8-byte size) are rewritten in
place, the same size:

  names      the line of the task called 'ls' is dropped, tasks called
             'wc' are named '<...>' and tasks called 'cat' ESC '[m'
  malformed  the line after the one of 'ls' gets an 'x' for its first
             digit: libtraceevent (tep_parse_saved_cmdlines) stops there,
             so the tasks of the lines from it on have no name

OUT.txt is IN.txt as `trace-cmd report` prints the edited file: a task
without a name as '<...>-PID'.

tracefs: OUT_CMDLINES is a saved_cmdlines file naming the tasks of the
`trace` text IN.txt, with the edits of 'names' and a few lines of other
shapes (which a reader skips); OUT.txt the text as the kernel prints it
then.
"""
import re
import sys

ESC_NAME = b"\x1b[m"
UNKNOWN = b"<...>"
TASK = re.compile(rb"^(\s*)(.*)-(\d+)(\s+(?:\([ \d-]+\)\s+)?\[\d+\])")


def tasks(text):
    """pid -> comm of the text's lines."""
    out = {}
    for line in text.split(b"\n"):
        m = TASK.match(line)
        if m:
            out[int(m.group(3))] = m.group(2)
    return out


def rename_text(text, names):
    """The text with the tasks of @names (pid -> comm) renamed."""
    out = []
    for line in text.split(b"\n"):
        m = TASK.match(line)
        if m and int(m.group(3)) in names:
            line = (m.group(1) + names[int(m.group(3))] + b"-" +
                    m.group(3) + line[m.end(3):])
        out.append(line)
    return b"\n".join(out)


def edit_name(comm):
    """The name 'names' gives a task called @comm (None: no line)."""
    if comm == b"ls":
        return None
    if comm == b"wc":
        return UNKNOWN
    if comm == b"cat":
        return ESC_NAME
    return comm


def find_cmdlines(d, pid, comm):
    """(offset, size) of the saved command lines holding 'PID COMM'."""
    anchor = d.find(b"\n%d %s\n" % (pid, comm))
    if anchor < 0:
        anchor = d.find(b"%d %s\n" % (pid, comm))
    assert anchor >= 0, "no cmdlines line for %d" % pid
    start = anchor
    while start > 0 and (32 <= d[start - 1] < 127 or d[start - 1] == 10):
        start -= 1
    for p in range(max(start, 8), anchor + 1):
        size = int.from_bytes(d[p - 8:p], "little")
        if (p + size > anchor and p + size <= len(d) and
                d[p + size - 1] == 10 and
                all(32 <= c < 127 or c == 10 for c in d[p:p + size])):
            return p, size
    raise SystemExit("saved command lines not found")


def tracedat(mode, din, tin, dout, tout):
    d = bytearray(open(din, "rb").read())
    text = open(tin, "rb").read()
    seen = tasks(text)
    ls_pid = [p for p, c in seen.items() if c == b"ls"][0]
    off, size = find_cmdlines(bytes(d), ls_pid, b"ls")
    lines = bytes(d[off:off + size]).split(b"\n")[:-1]
    renamed = {}
    if mode == "names":
        out = []
        for line in lines:
            pid, comm = line.split(b" ", 1)
            new = edit_name(comm)
            if int(pid) in seen and new != comm:
                renamed[int(pid)] = UNKNOWN if new is None else new
            if new is not None:
                out.append(pid + b" " + new)
        blob = b"".join(line + b"\n" for line in out)
        assert len(blob) <= size
        blob += b"\n" * (size - len(blob))  # empty lines are skipped
    else:
        at = [i for i, line in enumerate(lines)
              if line == b"%d ls" % ls_pid][0] + 1
        for line in lines[at:]:
            pid = line.split(b" ", 1)[0]
            if pid.isdigit() and int(pid) in seen:
                renamed[int(pid)] = UNKNOWN
        lines[at] = b"x" + lines[at][1:]
        blob = b"".join(line + b"\n" for line in lines)
    assert len(blob) == size and renamed
    d[off:off + size] = blob
    open(dout, "wb").write(d)
    open(tout, "wb").write(rename_text(text, renamed))


def tracefs(tin, cout, tout):
    text = open(tin, "rb").read()
    renamed = {}
    out = [b"not a cmdline", b"123", b"-5 negative"]
    for pid, comm in sorted(tasks(text).items()):
        new = edit_name(comm)
        if new != comm:
            renamed[pid] = UNKNOWN if new is None else new
        if new is not None:
            out.append(b"%d %s" % (pid, new))
    out.append(b"x" * 300)
    open(cout, "wb").write(b"".join(line + b"\n" for line in out))
    open(tout, "wb").write(rename_text(text, renamed))


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "tracedat" and \
            sys.argv[2] in ("names", "malformed"):
        tracedat(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "tracefs":
        tracefs(*sys.argv[2:])
    else:
        sys.exit(__doc__)
