#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
One tool's options three ways, for t/unit/t0930-tool-options.sh: what
getopt takes (FTK_TOOL_OPTIONS=1 TOOL, from the very tables tool_parse()
hands getopt_long), what --help offers (the synopsis and the option
lines), and what the man page's OPTIONS section (rendered by mandoc)
names. Prints TAP lines "ok"/"not ok" without numbers (the shell counts),
one per check:
  - every option of the synopsis and of --help is taken by getopt, and
    "TOOL OPTION [VALUE] -h" does not call it unknown;
  - an option line's VALUE and getopt agree on whether it takes one;
  - every option getopt takes is in --help and in the man page.
usage: tool-options.py TOOL MANPAGE
"""
import re
import subprocess
import sys

tool, manpage = sys.argv[1], sys.argv[2]
env_dump = dict(__import__("os").environ, FTK_TOOL_OPTIONS="1")
dump = subprocess.run([tool], env=env_dump, capture_output=True, text=True).stdout.split()
# "-p:" -> {"-p": 1}; 0 no value, 1 a value, 2 an optional one
takes = {}
for o in dump:
    name = o.rstrip(":")
    takes[name] = {0: 0, 1: 1, 2: 2}[len(o) - len(name)]

help_text = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
name = tool.rsplit("/", 1)[-1]
results = []


def check(cond, what):
    results.append(("ok" if cond else "not ok") + " - " + name + ": " + what)


# The synopsis: from the start to the first blank line.
synopsis = help_text.split("\n\n", 1)[0]
in_help = {}  # option -> value (None: none shown; "?": the synopsis, which does not say)
for m in re.finditer(r"(?<![\w\-])-([A-Za-z0-9]+)|(?<![\w\-])--([a-z][a-z0-9-]*)", synopsis):
    if m.group(1):
        for c in m.group(1):
            in_help.setdefault("-" + c, "?")
    else:
        in_help.setdefault("--" + m.group(2), "?")
# Option lines: "  -p, --pid PID   text", "      --json   text", "  -d SECS   text".
OPT = r"(?:-[A-Za-z0-9]|--[a-z][a-z0-9-]*)"
for line in help_text.split("\n"):
    m = re.match(r"^ {1,8}(" + OPT + r"(?:, " + OPT + r")*)(?: (\[?[A-Z][^ ]*))?(?: |$)", line)
    if not m:
        continue
    for o in m.group(1).split(", "):
        in_help[o] = m.group(2)

for o, val in sorted(in_help.items()):
    if o not in takes:
        check(False, "%s is in --help, and getopt does not take it" % o)
        continue
    if val != "?" and not (val or "").endswith("..."):  # "--need CAP...": operands
        want = 1 if val and not val.startswith("[") else 2 if val else 0
        check(takes[o] == want or (takes[o] == 2 and want == 0),
              "%s: --help shows %s, getopt %s" % (o, "a value" if val else "no value",
                                                    ["no value", "a value", "an optional value"][takes[o]]))
    args = [tool, o] + (["1"] if takes[o] == 1 else []) + ["-h"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=20)
    check("unknown option" not in r.stderr and "a value is missing" not in r.stderr,
          "%s is accepted (%s: %s)" % (o, " ".join(args[1:]), r.stderr.strip().split("\n")[0]))

man = subprocess.run(["mandoc", "-Tascii", manpage], capture_output=True, text=True).stdout
man = re.sub(".\b", "", man)
m = re.search(r"^OPTIONS\n(.*?)^[A-Z][A-Z ]+\n", man, re.S | re.M)
options_section = m.group(1) if m else ""
in_synopsis = set(re.findall(r"(?<![\w\-])-[A-Za-z0-9]+|(?<![\w\-])--[a-z][a-z0-9-]*", synopsis))
in_synopsis = {"-" + c for t in in_synopsis if not t.startswith("--") for c in t[1:]} | \
    {t for t in in_synopsis if t.startswith("--")}
same = {}  # an option's other names: "-p, --pid" lines, and "-d SECS   as -D"
for line in help_text.split("\n"):
    m = re.match(r"^ {1,8}(" + OPT + r")(?:, (" + OPT + r"))?(?: [A-Z]\S*)?\s+as (" + OPT + r")\b",
                 line)
    names = [n for n in m.groups() if n] if m else []
    m = re.match(r"^ {1,8}(-[A-Za-z0-9]), (--[a-z][a-z0-9-]*)", line)
    names += list(m.groups()) if m else []
    for n in names:
        same.setdefault(n, set()).update(names)
for o in sorted(takes):
    if o not in ("-h", "-q", "-v", "-V", "--help", "--quiet", "--verbose", "--version"):
        check(in_synopsis & (same.get(o, set()) | {o}),
              "%s is in the usage line (or another name of it is)" % o)
    if o not in in_help:
        check(False, "%s is taken by getopt and missing from --help" % o)
    pat = r"(?<![\w\-])" + re.escape(o) + r"(?![\w\-])"
    check(re.search(pat, options_section) is not None,
          "%s is in the OPTIONS of %s" % (o, manpage.rsplit("/", 1)[-1]))
print("\n".join(results))
