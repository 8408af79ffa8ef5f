# SPDX-License-Identifier: GPL-2.0
# A private apt configuration under $CACHE/apt/<name>: its own sources list,
# package lists and caches, so the host's apt setup is neither read for
# state nor changed. Archive URLs are derived at run time from the host's
# apt sources; none is written into the repository. Source it.
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

# apt_private_setup NAME SUITE...: write the sources list of a private apt
# configuration and refresh its package lists (once; FT_APT_REFRESH=1 forces).
apt_private_setup() {
	local name=$1 dir suite src uri key list
	shift
	dir=$CACHE/apt/$name
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts"
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
		apt_private "$name" apt-get -q update >"$dir/update.log" 2>&1 ||
			{ cat "$dir/update.log" >&2; die "apt-get update failed for $*"; }
		touch "$dir/updated"
	fi
}

# apt_private NAME CMD ARGS...: run apt-get/apt-cache CMD in the private setup.
apt_private() {
	local dir=$CACHE/apt/$1 cmd=$2
	shift 2
	"$cmd" -o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts="$dir/parts" \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::Cache="$dir/cache" \
		-o APT::Sandbox::User=root \
		-o Acquire::Languages=none \
		"$@"
}
