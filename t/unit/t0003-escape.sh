#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile names (bytes of 0x80 and above, invalid UTF-8, U+FFFE, control
# characters) through libftkit's one JSON, XML and text writer, checked
# against references: python3's UTF-8 decoder and json.loads, xmllint, and
# strace's escapes of the same bytes. Then a flame graph of such names.
. "$top_srcdir/t/tap.sh"
lane unit

put=$top_builddir/t/helpers/escape-put
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v python3 >/dev/null || skip_all "no python3 (contrib/install-deps.sh --test)"

cat >"$tmp/check.py" <<'PY'
import json, re, subprocess, sys
import xml.etree.ElementTree as ET

put = sys.argv[1]
what = sys.argv[2]
names = [b'plain', b'caf\xc3\xa9', b'\xf0\x9f\x94\xa5 fire', b'\xff\xfe bad', b'x\xe2\x82y',
         b'cut\xe2', b'\xef\xbf\xbe nonchar', b'\xef\xbf\xbf', b'\xed\xa0\x80 surrogate',
         b'\xc0\xaf overlong', b'\xf4\x90\x80\x80 big', b'\x80\x80 stray',
         b'ctl\x01\x1b[2J\x7f\ttab\nnl\rcr\x0b\x0c', b'<&>"\'', b'back\\slash',
         b'\x0112 \x018 \x1b9 \x00'[:-1], b'\xc2\x85 nel', b'\x9b31m c1']

def uni(b):
    """What a name is as Unicode: Python's decoder, U+FFFE/U+FFFF replaced."""
    return b.decode('utf-8', 'replace').replace('\ufffe', '\ufffd').replace('\uffff', '\ufffd')

def run(*args):
    return subprocess.run([put] + list(args), check=True, stdout=subprocess.PIPE).stdout

bad = 0
def check(cond, msg):
    global bad
    if not cond:
        print('# ' + msg)
        bad = 1

if what == 'json':
    out = run('json', *names).split(b'\n')
    check(len(out) == len(names) + 1 and out[-1] == b'', 'one line per name')
    for b, line in zip(names, out):
        try:
            line.decode('utf-8', 'strict')
            got = json.loads(line)
        except ValueError as e:
            check(False, '%r: %s' % (line, e))
            continue
        check(got == uni(b), '%r: got %r, want %r' % (b, got, uni(b)))
elif what == 'xml':
    out = run('xml', *names)
    open(sys.argv[3], 'wb').write(out)
    root = ET.fromstring(out)
    texts = list(root)
    check(len(texts) == len(names), 'one element per name')
    for b, t in zip(names, texts):
        want = ''.join(c if c in '\t\n\r' or (c >= ' ' and c != '\x7f') else '\ufffd'
                       for c in uni(b))
        check(t.text == want or (t.text is None and want == ''),
              '%r: text %r, want %r' % (b, t.text, want))
        check(t.get('title') == want, '%r: attribute %r, want %r' % (b, t.get('title'), want))
elif what == 'text':
    out = run('text', *names).split(b'\n')
    subprocess.run(['strace', '-qq', '-s', '65536', '-e', 'trace=write', '-o', sys.argv[3],
                    put, 'raw'] + names, check=True)
    ref = []
    for l in open(sys.argv[3], 'rb').read().split(b'\n'):
        m = re.match(rb'write\(\d+, "(.*)", \d+\) *= \d+$', l)
        if m:
            ref.append(re.sub(rb'\\(.)', lambda m: b'"' if m.group(1) == b'"'
                              else b'\\' + m.group(1), m.group(1)))
    check(len(ref) == len(names), 'strace saw %d writes of %d' % (len(ref), len(names)))
    for b, got, want in zip(names, out, ref):
        check(got == want, '%r: %r, strace %r' % (b, got, want))
        check(all(0x20 <= c < 0x7f for c in got), '%r: only printable ASCII' % b)
elif what == 'cut':
    full = run('text', *names).split(b'\n')
    for size in (0, 1, 2, 3, 4, 5, 9, 17):
        out = run('buf', str(size), *names).split(b'\n')
        for b, f, line in zip(names, full, out):
            text, n, past = line.rsplit(b' ', 2)
            check(int(n) == len(f), '%r in %d: length %s, want %d' % (b, size, n, len(f)))
            check(past == b'X', '%r in %d: wrote past the buffer' % (b, size))
            check(f.startswith(text) and len(text) < max(size, 1), '%r in %d: %r' % (b, size, text))
            # cut between escapes, as late as the next escape allows
            ends = [m.end() for m in re.finditer(rb'\\(?:[0-7]{1,3}|.)|.', f, re.S)]
            check(len(text) in [0] + ends, '%r in %d: cut inside an escape: %r' % (b, size, text))
            check(text == f or len(text) + 4 >= size, '%r in %d: cut too early' % (b, size))
elif what == 'folded':
    with open(sys.argv[3], 'wb') as f:
        for i, b in enumerate(names):
            f.write(b'main;' + b.replace(b';', b':').replace(b'\n', b' ') + b';leaf %d\n' % (i + 1))
sys.exit(bad)
PY

ok "JSON strings: json.loads reads each, as python3 decodes the bytes" \
	python3 "$tmp/check.py" "$put" json
ok "XML text and attributes: as python3 decodes the bytes" \
	python3 "$tmp/check.py" "$put" xml "$tmp/names.svg"
if command -v xmllint >/dev/null; then
	ok "xmllint reads the names' XML" xmllint --noout "$tmp/names.svg"
else
	skip "no xmllint (libxml2-utils, contrib/install-deps.sh --test)"
fi
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	ok "text escapes equal strace's for the same bytes" \
		python3 "$tmp/check.py" "$put" text "$tmp/strace.out"
else
	skip "no strace here (or ptrace refused)"
fi
ok "text cut to a buffer: a prefix, between escapes, never past it" \
	python3 "$tmp/check.py" "$put" cut

# The flame graph of such frames is XML that xmllint and python3 read.
python3 "$tmp/check.py" "$put" folded "$tmp/names.folded"
ftprofile -i "$tmp/names.folded" -f svg -o "$tmp/flame.svg" 2>"$tmp/err"
is "$?" 0 "ftprofile draws the hostile frames"
if command -v xmllint >/dev/null; then
	ok "xmllint reads the flame graph" xmllint --noout "$tmp/flame.svg"
else
	skip "no xmllint"
fi
ok "python3 parses the flame graph" python3 -c \
	'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/flame.svg"
done_testing
