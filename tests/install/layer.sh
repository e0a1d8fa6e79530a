#!/bin/bash
# Install layer: `make install DESTDIR=... PREFIX=/usr` puts sonde, the
# tools (with their sonde-NAME links) and the man page where they belong;
# the installed binary finds the installed tools by name and, as root,
# runs one (and a sonde-NAME link runs through its #! line); `make
# uninstall` removes every file it put there.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

stage=$BUILD/install-stage
rm -rf "$stage"
mkdir -p "$stage"
log=$BUILD/install.log
cd "$TOP" || exit 1

if ! make -s install DESTDIR="$stage" PREFIX=/usr BUILD="$BUILD" >"$log" 2>&1; then
	echo "not ok install: make install failed"
	indent "$log" 20
	layer_done
fi
bad=
for f in usr/bin/sonde usr/share/man/man8/sonde.8 \
	usr/share/bash-completion/completions/sonde usr/share/zsh/site-functions/_sonde; do
	[ -f "$stage/$f" ] || bad+=" $f"
done
for t in tools/*; do
	n=$(basename "$t")
	[ -x "$stage/usr/share/sonde/tools/$n" ] || bad+=" usr/share/sonde/tools/$n"
	l=${n%.bt}
	[ -L "$stage/usr/bin/sonde-$l" ] && [ -e "$stage/usr/bin/sonde-$l" ] || bad+=" usr/bin/sonde-$l"
done
# a wrapper takes the name before its .bt twin
[ "$(readlink "$stage/usr/bin/sonde-profile")" = ../share/sonde/tools/profile ] || bad+=" sonde-profile->profile"
if [ -n "$bad" ]; then
	echo "not ok install: missing or wrong:$bad"
else
	echo "ok install"
fi

# The installed binary lists the installed tools (not the build tree's).
out=$BUILD/install.out err=$BUILD/install.err
SONDE=$stage/usr/bin/sonde run_sonde "$out" "$err" --tools
if [ "$RC" != 0 ] || ! grep -q "^biolatency  " "$out" ||
	! grep -q "$stage/usr/bin/../share/sonde/tools" "$out"; then
	echo "not ok install-tools-list: sonde --tools (exit $RC)"
	indent "$out" 10
	indent "$err" 5
else
	echo "ok install-tools-list"
fi

if [ "$(id -u)" = 0 ]; then
	# -t NAME with the installed binary: execsnoop sees a known exec
	SONDE=$stage/usr/bin/sonde run_sonde "$out" "$err" -q -c "/bin/true sonde-install-marker" -t execsnoop
	if [ "$RC" != 0 ] || ! grep -qE '^[0-9:]{8} [0-9]+ +[0-9]+ +/bin/true sonde-install-marker$' "$out"; then
		echo "not ok install-run-tool: sonde -t execsnoop (exit $RC)"
		indent "$out" 10
		indent "$err" 10
	else
		echo "ok install-run-tool"
	fi
	# a bare name runs the tool too; sonde-NAME runs through #!/usr/bin/env
	# sonde, with the installed sonde first on the PATH, until Ctrl-C
	SONDE=$stage/usr/bin/sonde run_sonde "$out" "$err" --verify biolatency
	if [ "$RC" != 0 ] || ! grep -qE '^[0-9]+ programs passed the verifier$' "$out"; then
		echo "not ok install-bare-name: sonde --verify biolatency (exit $RC)"
		indent "$err" 10
	else
		echo "ok install-bare-name"
	fi
	(cd / && PATH=$stage/usr/bin:$PATH timeout -s INT 2 sonde-syscount) >"$out" 2>"$err"
	if ! grep -qx 'Counting syscalls... Hit Ctrl-C to end.' "$out" || ! grep -qE '^@\[.+\]: [0-9]+$' "$out"; then
		echo "not ok install-link: sonde-syscount"
		indent "$out" 10
		indent "$err" 10
	else
		echo "ok install-link"
	fi
else
	echo "skip install-run-tool: not root"
fi

if ! make -s uninstall DESTDIR="$stage" PREFIX=/usr BUILD="$BUILD" >"$log" 2>&1; then
	echo "not ok uninstall: make uninstall failed"
	indent "$log" 20
elif left=$(find "$stage" ! -type d | head -5) && [ -n "$left" ]; then
	echo "not ok uninstall: left behind: $left"
else
	echo "ok uninstall"
fi
rm -rf "$stage"
layer_done
