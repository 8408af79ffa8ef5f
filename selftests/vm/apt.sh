# SPDX-License-Identifier: GPL-2.0
# A private apt configuration under $CACHE/apt/<name>: its own sources list,
# package lists and caches, an empty dpkg status, no pins, and its own
# architectures (the host's native one unless told), so the host's apt
# setup is neither read for state nor changed: the host's installed
# packages (linux-headers-amd64 6.1 would outrank bullseye's) and foreign
# architectures (whose indexes would be fetched) do not count. Archive URLs
# are derived at run time from the host's apt sources; none is written into
# the repository. Source it.
# shellcheck shell=bash

# host_sources: print "URI SUITE SIGNED-BY" for every "deb" source of the host,
# from both deb822 *.sources files and one-line *.list files.
host_sources() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = key = ""; enabled = 1
			for (i = 1; i <= NF; i++) {
				line = $i
				if (line ~ /^#/) continue
				split(line, kv, ":")
				k = tolower(kv[1]); v = substr(line, length(kv[1]) + 2)
				gsub(/^[ \t]+|[ \t]+$/, "", v)
				if (k == "types") types = v
				else if (k == "uris") uris = v
				else if (k == "suites") suites = v
				else if (k == "signed-by") key = v
				else if (k == "enabled" && v == "no") enabled = 0
			}
			if (!enabled || types !~ /(^| )deb( |$)/) next
			nu = split(uris, u, " "); ns = split(suites, s, " ")
			for (i = 1; i <= nu; i++)
				for (j = 1; j <= ns; j++)
					print u[i], s[j], (key == "" ? "-" : key)
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" {
			key = "-"; i = 2
			if ($2 ~ /^\[/) {
				for (; i <= NF; i++) {
					if ($i ~ /signed-by=/) { key = $i; sub(/.*signed-by=/, "", key); sub(/\]$/, "", key) }
					if ($i ~ /\]$/) break
				}
				i++
			}
			print $i, $(i + 1), key
		}' "$f"
	done
}

# suite_source SUITE: the host source line ("URI SIGNED-BY") to use for SUITE.
# A suite the host lists is used as is. Otherwise a "*-security" suite comes
# from the host's security archive and any other suite from its main archive
# (the one serving a plain codename such as "bookworm").
suite_source() {
	local suite=$1 all
	all=$(host_sources)
	awk -v s="$suite" '
		$2 == s { print $1, $3; found = 1; exit }
		$2 ~ /-security$/ && !sec { sec = $1 " " $3 }
		$2 !~ /-/ && !main { main = $1 " " $3 }
		END {
			if (found) exit
			if (s ~ /-security$/) { if (sec) print sec }
			else if (main) print main
		}' <<<"$all"
}

# apt_private_setup [--arch NATIVE[,FOREIGN...]] NAME SUITE...: write the
# sources list of a private apt configuration and refresh its package lists
# (once; FT_APT_REFRESH=1 forces). It sees only the architectures given,
# the first as its native one; by default the host's native architecture.
# An index that fails to download (a mirror mid-sync) is not fatal here:
# the lists are marked to be refreshed again next time, and a package that
# is then missing fails where it is looked up (apt_where says why).
apt_private_setup() {
	local name dir suite src uri key list arches
	arches=$(dpkg --print-architecture)
	if [ "$1" = --arch ]; then
		arches=$2
		shift 2
	fi
	name=$1
	shift
	dir=$CACHE/apt/$name
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts" "$dir/preferences.d"
	: >>"$dir/status"
	[ "$(cat "$dir/arches" 2>/dev/null)" = "$arches" ] || rm -f "$dir/updated"
	echo "$arches" >"$dir/arches"
	list=
	for suite in "$@"; do
		src=$(suite_source "$suite")
		[ -n "$src" ] || die "no apt source on this host can serve suite $suite"
		read -r uri key <<<"$src"
		if [ "$key" = "-" ]; then
			list+="deb $uri $suite main"$'\n'
		else
			list+="deb [signed-by=$key] $uri $suite main"$'\n'
		fi
	done
	if [ ! -f "$dir/sources.list" ] || [ "$(cat "$dir/sources.list")" != "${list%$'\n'}" ]; then
		printf '%s' "$list" >"$dir/sources.list"
		rm -f "$dir/updated"
	fi
	if [ ! -f "$dir/updated" ] || [ "${FT_APT_REFRESH:-0}" = 1 ]; then
		log "apt: refreshing package lists for $*"
		rm -f "$dir/update.failed"
		if apt_private "$name" apt-get -q update >"$dir/update.log" 2>&1; then
			touch "$dir/updated"
		else
			touch "$dir/update.failed"
			rm -f "$dir/updated"
			log "apt: some package lists failed to download (log: $dir/update.log):"
			grep '^[EW]: ' "$dir/update.log" | sed 's/^/    /' >&2 || true
		fi
	fi
}

# apt_where NAME: "in SUITE..." of a private setup, for an error message,
# and whether its last refresh failed for some list.
apt_where() {
	local dir=$CACHE/apt/$1 s
	s="in the package lists of $(awk '{ printf "%s%s", sep, $(NF - 1); sep = " " }' "$dir/sources.list")"
	s+=" ($(cat "$dir/arches"))"
	[ ! -f "$dir/update.failed" ] || s+="; some failed to download (see $dir/update.log)"
	echo "$s"
}

# apt_private NAME CMD ARGS...: run apt-get/apt-cache CMD in the private setup.
# APT::Architectures given a value replaces the host's list, not adds to it.
apt_private() {
	local dir=$CACHE/apt/$1 cmd=$2 arches
	shift 2
	arches=$(cat "$dir/arches" 2>/dev/null || dpkg --print-architecture)
	"$cmd" -o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts="$dir/parts" \
		-o Dir::Etc::Preferences="$dir/preferences" \
		-o Dir::Etc::PreferencesParts="$dir/preferences.d" \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::State::status="$dir/status" \
		-o Dir::State::extended_states="$dir/extended_states" \
		-o Dir::Cache="$dir/cache" \
		-o APT::Architecture="${arches%%,*}" \
		-o APT::Architectures="$arches" \
		-o APT::Sandbox::User=root \
		-o Acquire::Languages=none \
		"$@"
}

# apt_depends NAME PKG REGEX: the direct dependencies of PKG that match REGEX.
apt_depends() {
	apt_private "$1" apt-cache depends "$2" 2>/dev/null |
		awk -v re="$3" '$1 ~ /Depends:$/ && $2 ~ re { print $2 }' | sort -u
}

# apt_resolve NAME WHAT PKG REGEX: the one direct dependency of PKG that
# matches REGEX; else fail, naming WHAT, PKG, the suites and what was found.
apt_resolve() {
	local found
	found=$(apt_depends "$1" "$3" "$4")
	[ "$(wc -w <<<"$found")" != 1 ] || { echo "$found"; return 0; }
	if ! apt_private "$1" apt-cache show "$3" >/dev/null 2>&1; then
		die "cannot resolve the $2: no package $3 $(apt_where "$1")"
	fi
	[ -z "$found" ] || found="$(xargs <<<"$found"), not one package,"
	die "cannot resolve the $2: $3 depends on ${found:-no package} matching $4," \
		"$(apt_where "$1")"
}
