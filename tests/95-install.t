#!/bin/bash
# make install into a DESTDIR installs the binary under test, its Lua
# library, the ready suites, the man page iomoon(1) (built from doc/cli.md)
# and the bash completion; the installed binary runs a suite with its
# installed library; the page renders without warnings; the completion
# offers what the binary accepts; make uninstall removes what install put
# and nothing else.
. "$(dirname "$0")/lib.sh"
unset IOMOON_LUA_PATH # the installed binary must find its library by itself
BIN=$(readlink -f "$IOMOON")
R=$TMP/root
P=$R/usr/local
IB=$P/bin/iomoon
SHARE=$P/share/iomoon
MAN=$P/share/man/man1/iomoon.1
COMP=$P/share/bash-completion/completions/iomoon
mk() { # mk TARGET: make in the source tree, into $TMP only, installing $BIN
	make -C "$ROOT" -r --no-print-directory "$1" DESTDIR="$R" PREFIX=/usr/local \
		INSTALL_BIN="$BIN" BUILD="$TMP/build" >"$TMP/make-$1.log" 2>&1
}
words() { tr ' ,|' '\n\n\n' | grep -v '^$' | sort -u | tr '\n' ' '; }

command -v pandoc >/dev/null; ok $? "pandoc is installed (make deps installs it)"
mk install; rc=$?
ok $rc "make install DESTDIR=... PREFIX=/usr/local (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/make-install.log"

# --- what install put
cmp -s "$BIN" "$IB"; ok $? "bin/iomoon is the binary under test, byte for byte (nothing rebuilt)"
is "$(stat -c %a "$IB" 2>/dev/null)" 755 "bin/iomoon is mode 755"
bad=""
for f in $(cd "$ROOT/lua/iomoon" && find . -name '*.lua' | sort); do
	cmp -s "$ROOT/lua/iomoon/$f" "$SHARE/lua/iomoon/$f" || bad="$bad ${f#./}"
done
for f in "$ROOT"/bench-suites/*.lua; do cmp -s "$f" "$SHARE/bench-suites/${f##*/}" || bad="$bad ${f##*/}"; done
is "$bad" "" "every lua/iomoon/**/*.lua and bench-suites/*.lua is installed under share/iomoon, unchanged"
cmp -s "$ROOT/completion/iomoon.bash" "$COMP"; ok $? "the completion is share/bash-completion/completions/iomoon"
[ -s "$MAN" ]; ok $? "the man page is share/man/man1/iomoon.1"
! git -C "$ROOT" ls-files --error-unmatch doc/iomoon.1 build/iomoon.1 >/dev/null 2>&1
ok $? "no generated man page is kept in git"

# --- the installed binary finds its installed library (not the source tree's,
# nor $(PREFIX)/share/iomoon outside DESTDIR): ../share/iomoon/lua beside it
dir=$(cd "$TMP" && "$IB" run --quiet --format none "$LUA_DIR/where.lua" 2>&1)
is "$(readlink -f "$dir")" "$(readlink -f "$SHARE/lua")" "the installed binary loads the library installed beside it"
is "$(cd "$TMP" && "$IB" list 2>&1 | sed -n '/^suites:/,$p')" \
	"$("$IOMOON" list 2>&1 | sed -n '/^suites:/,$p')" "it lists the ready suites of the source tree"
(cd "$TMP" && "$IB" suite quick --target "$TMP/t.dat" --size 16m --time 5 --ios 64 \
	--quiet --format json >"$TMP/q.json" 2>"$TMP/q.err")
rc=$?
ok $rc "the installed binary runs the ready suite quick (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/q.err"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["phases"]
print(len(ph) > 0 and all(p["ios"] > 0 and p["errors"] == 0 for p in ph), d["iomoon"])
' "$TMP/q.json" 2>&1)
is "$got" "True $("$IOMOON" --version | awk '{print $2}')" "its JSON report holds phases that did I/O, without errors"

# --- the man page
warn=$(MANWIDTH=80 man -l "$MAN" 2>&1 >/dev/null)
is "$warn" "" "man -l renders the page without a warning at 80 columns"
page=$(MANWIDTH=80 man -l "$MAN" 2>/dev/null)
like "$(head -1 <<<"$page")" '^IOMOON\(1\) .* IOMOON\(1\)$' "its header says IOMOON(1)"
like "$(lexgrog "$MAN" 2>&1)" ': "iomoon - storage benchmark engine' "lexgrog (whatis, apropos) reads its NAME"
missing=""
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "SEE ALSO"; do grep -q "^$s\$" <<<"$page" || missing="$missing $s"; done
while IFS= read -r h; do
	h=${h#\#\# }
	grep -qi "^ *$h\$" <<<"$page" || missing="$missing [$h]"
done < <(grep '^## ' "$ROOT/doc/cli.md")
is "$missing" "" "it has NAME, SYNOPSIS, DESCRIPTION, and every section of doc/cli.md"
missing=""
for o in $(grep -o '^| `--[a-z-]*' "$ROOT/doc/cli.md" | sed 's/^| `//' | sort -u); do
	grep -q -- "$o" <<<"$page" || missing="$missing $o"
done
is "$missing" "" "every option in doc/cli.md's tables is on the page"

# --- the completion, as bash calls it: COMP_WORDS, COMP_CWORD, _iomoon
comp() { # comp WORD... (the last is the one being completed)
	bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _iomoon
		printf "%s\n" "${COMPREPLY[@]}"' "$COMP" "$IB" "$@" 2>&1 | words
}
long() { tr ' ' '\n' | grep '^--' | words; }
short() { tr ' ' '\n' | grep '^-[^-]' | words; }
is "$(comp s)" "suite " "iomoon s<TAB>: suite"
verbs=$("$IB" no-such-verb 2>&1 | sed -n 's/.*(\(.*\))$/\1/p' | words)
is "$(comp '' | tr ' ' '\n' | grep -v '^-' | words)" "$verbs" "iomoon <TAB>: the verbs the binary knows ($verbs)"
suites=$(ls "$SHARE/bench-suites" | sed 's/\.lua$//' | words)
is "$(comp suite '')" "$suites" "iomoon suite <TAB>: the installed ready suites"
is "$(comp suite qu)" "quick " "iomoon suite qu<TAB>: quick"
is "$(comp quick --eng)" "--engine " "iomoon quick --eng<TAB>: --engine"
engines=$("$IB" help | sed -n 's/.*--engine NAME *//p' | words)
is "$(comp quick --engine '')" "$engines" "--engine <TAB>: the engines of iomoon help ($engines)"
is "$("$IB" list | sed -n '/^engines:/,/^suites:/s/^  \([^ ]*\).*/\1/p' | words)" \
	"$(tr ' ' '\n' <<<"$engines" | grep -vx auto | words)" "iomoon list has the same engines, with auto besides"
is "$(comp suite quick --engine = s)" "sim " "--engine=s<TAB>: sim"
formats=$("$IB" suite quick --format nope --target "$TMP/none.dat" 2>&1 | sed -n 's/.*not a format (\(.*\))$/\1/p' |
	sed 's/ or / /' | words)
is "$(comp quick --format '')" "$formats" "--format <TAB>: the formats the binary accepts ($formats)"
[ ! -e "$TMP/none.dat" ]; ok $? "(asking for the formats created no file)"
for v in run "suite quick" quick; do
	known=$("$IB" $v --zzzzzzzzzzzzzzzzzzz 2>&1 | sed -n 's/.*known here: \(.*\))$/\1/p' | words)
	[ -n "$known" ]; ok $? "iomoon $v names its options when given an unknown one"
	is "$(comp $v -- | long)" "$known" "iomoon $v --<TAB>: exactly the options of cli.lua's tables"
done
pshort=$("$IB" ping "$TMP/t.dat" -z 2>&1 | sed -n 's/.*unknown option -z (\(.*\))$/\1/p' | tr ' ,' '\n\n' |
	grep '^-' | words)
is "$(comp ping - | tr ' ' '\n' | grep '^-' | words)" "$pshort" "iomoon ping -<TAB>: ioping's options, as ping names them ($pshort)"
is "$(comp quick --buffered --q)" "--qd --quiet " "a flag takes no value: --buffered --q<TAB> is an option"
is "$(comp quick --qd '')" "" "--qd <TAB>: nothing (a number to type)"
is "$(comp quick --target "$TMP/t.d")" "$TMP/t.dat " "--target <TAB>: file names"
is "$(comp run --output "$TMP/q.j")" "$TMP/q.json " "--output <TAB>: file names"
is "$(comp run where.lua --f)" "" "run SCRIPT ...: the script's arguments are not iomoon's options"
if [ -r /usr/share/bash-completion/bash_completion ]; then
	got=$(XDG_DATA_DIRS="$P/share:/usr/share" bash -c '. /usr/share/bash-completion/bash_completion
		__load_completion iomoon && complete -p iomoon' 2>&1)
	is "$got" "complete -F _iomoon iomoon" "bash-completion loads it from \$(PREFIX)/share by itself"
else
	skip "bash-completion is not installed"
fi

# --- uninstall: what install put, nothing else
mkdir -p "$SHARE/bench-suites" "$P/share/man/man1"
echo keep >"$SHARE/bench-suites/mine.lua"; echo keep >"$P/bin/other"; echo keep >"$P/share/man/man1/other.1"
mk uninstall; rc=$?
ok $rc "make uninstall (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/make-uninstall.log"
is "$(cd "$R" && find . ! -type d | sort | tr '\n' ' ')" \
	"./usr/local/bin/other ./usr/local/share/iomoon/bench-suites/mine.lua ./usr/local/share/man/man1/other.1 " \
	"uninstall removed every file install put, and no other"
is "$(cd "$SHARE" && find . -type d | sort | tr '\n' ' ')" ". ./bench-suites " \
	"it removed the empty directories under share/iomoon, kept the one still in use"
rm "$SHARE/bench-suites/mine.lua"
mk uninstall
[ ! -e "$SHARE" ]; ok $? "with nothing else in it, share/iomoon goes too"
done_testing
