#!/bin/bash
# Deb layer: `make deb` builds $BUILD/sonde_VERSION_ARCH.deb with Debian's
# tools (dpkg-buildpackage on debian/); lintian finds no error in it; it
# holds what `make install PREFIX=/usr` lays out (the zsh completion in
# Debian's vendor-completions); `dpkg -i` installs it on this machine,
# where the installed sonde reports its version, runs a tool by name and
# through its sonde-NAME link; `dpkg -r` then `dpkg -P` leave none of
# its files behind. As root only; skipped where a sonde package is
# already installed (it is not replaced).
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1

if [ "$(id -u)" != 0 ]; then
	echo "skip deb: not root (dpkg -i)"
	layer_done
fi
for c in dpkg-buildpackage dh lintian; do
	command -v $c >/dev/null || { echo "skip deb: no $c (scripts/deps.sh installs it)"; layer_done; }
done
if dpkg-query -W -f='${db:Status-Status}\n' sonde 2>/dev/null | grep -qvx 'not-installed'; then
	echo "skip deb: a sonde package is installed on this machine (dpkg -P sonde to test)"
	layer_done
fi

log=$BUILD/deb-make.log
started=$SECONDS
if ! make -s deb BUILD="$BUILD" >"$log" 2>&1; then
	echo "not ok deb-build: make deb failed"
	indent "$log" 30
	layer_done
fi
deb=$(tail -n 1 "$log")
echo "# make deb: $((SECONDS - started)) s"
if ! [ -f "$deb" ] || [[ $deb != "$BUILD"/sonde_*_*.deb ]]; then
	echo "not ok deb-build: make deb named no package ($deb)"
	layer_done
fi
echo "ok deb-build"
work=$BUILD/deb-work
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2317 # run by the trap
purge_on_exit() {
	dpkg-query -W -f='${db:Status-Status}\n' sonde 2>/dev/null | grep -qvx 'not-installed' &&
		dpkg -P sonde >/dev/null 2>&1
	rm -rf "$work"
}
trap purge_on_exit EXIT

# lintian: no error (its warnings are shown, not failed)
lintian "${deb%.deb}.changes" 2>&1 | grep -v '^running with root privileges' >"$work/lintian"
if grep -q '^E: ' "$work/lintian"; then
	echo "not ok deb-lintian: lintian reports errors"
	indent "$work/lintian" 20
else
	echo "ok deb-lintian"
	grep '^W: ' "$work/lintian" | sed 's/^/# lintian: /'
fi

# What make install lays out, in the package (and nothing else but the
# package's docs and the man page's sonde-NAME links).
stage=$work/stage
if ! make -s install DESTDIR="$stage" PREFIX=/usr BUILD="$BUILD" >"$work/install.log" 2>&1; then
	echo "not ok deb-layout: make install failed"
	indent "$work/install.log" 10
else
	(cd "$stage" && find . ! -type d | sed 's|^\./||' |
		sed 's|^usr/share/zsh/site-functions/|usr/share/zsh/vendor-completions/|; s|^\(usr/share/man/.*\)$|\1.gz|' |
		sort) >"$work/want"
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' |
		grep -vE '^usr/share/doc/sonde/|^usr/share/man/man8/sonde-.*\.8\.gz$' | sort >"$work/have"
	if cmp -s "$work/want" "$work/have"; then
		echo "ok deb-layout"
	else
		echo "not ok deb-layout: the package's files are not make install's"
		show_diff "$work/want" "$work/have"
	fi
fi

# install, use, remove, purge
if ! dpkg -i "$deb" >"$work/dpkg.log" 2>&1; then
	echo "not ok deb-install: dpkg -i failed"
	indent "$work/dpkg.log" 20
	layer_done
fi
echo "ok deb-install"
dpkg -L sonde >"$work/files"

out=$work/out err=$work/err
SONDE=/usr/bin/sonde run_sonde "$out" "$err" --version
"$BUILD/sonde" --version >"$work/version" 2>&1
if [ "$RC" = 0 ] && cmp -s "$out" "$work/version"; then
	echo "ok deb-version"
else
	echo "not ok deb-version: /usr/bin/sonde --version (exit $RC)"
	indent "$out" 5
	indent "$err" 5
fi

# a tool by name: found in /usr/share/sonde/tools (the PREFIX=/usr build's)
SONDE=/usr/bin/sonde run_sonde "$out" "$err" -q -c "/bin/true sonde-deb-marker" -t execsnoop
if [ "$RC" = 0 ] && grep -qE '^[0-9:]{8} [0-9]+ +[0-9]+ +/bin/true sonde-deb-marker$' "$out"; then
	echo "ok deb-tool"
else
	echo "not ok deb-tool: sonde -t execsnoop (exit $RC)"
	indent "$out" 10
	indent "$err" 10
fi

# the link on the PATH, through its #!/usr/bin/env sonde, until SIGINT
(cd / && PATH=/usr/bin:/bin timeout -s INT 2 sonde-syscount) </dev/null >"$out" 2>"$err"
if grep -qx 'Counting syscalls... Hit Ctrl-C to end.' "$out" && grep -qE '^@\[.+\]: [0-9]+$' "$out"; then
	echo "ok deb-link"
else
	echo "not ok deb-link: sonde-syscount"
	indent "$out" 10
	indent "$err" 10
fi

why=
for f in /usr/share/man/man8/sonde.8.gz /usr/share/bash-completion/completions/sonde \
	/usr/share/zsh/vendor-completions/_sonde; do
	[ -f "$f" ] || why+=" $f"
done
if [ -n "$why" ]; then echo "not ok deb-files: missing:$why"; else echo "ok deb-files"; fi

# dpkg -r removes every file and link dpkg -L listed (directories that
# other packages share stay); dpkg -P leaves no trace in dpkg's database
dpkg -r sonde >"$work/dpkg.log" 2>&1
rc=$?
left=$(while read -r f; do
	if [ -L "$f" ] || { [ -e "$f" ] && ! [ -d "$f" ]; }; then echo "$f"; fi
done <"$work/files")
if [ $rc != 0 ]; then
	echo "not ok deb-remove: dpkg -r failed"
	indent "$work/dpkg.log" 10
elif [ -n "$left" ] || [ -e /usr/share/sonde ]; then
	echo "not ok deb-remove: left behind: $(echo "$left" | head -5 | tr '\n' ' ')$([ -e /usr/share/sonde ] && echo /usr/share/sonde)"
else
	echo "ok deb-remove"
fi
dpkg -P sonde >"$work/dpkg.log" 2>&1
rc=$?
st=$(dpkg-query -W -f='${db:Status-Status}' sonde 2>/dev/null)
if [ $rc != 0 ]; then
	echo "not ok deb-purge: dpkg -P failed"
	indent "$work/dpkg.log" 10
elif [ -n "$st" ] && [ "$st" != not-installed ] || dpkg -L sonde >/dev/null 2>&1 ||
	ls /var/lib/dpkg/info/sonde.* >/dev/null 2>&1; then
	echo "not ok deb-purge: dpkg still knows sonde (status '$st')"
else
	echo "ok deb-purge"
fi
layer_done
