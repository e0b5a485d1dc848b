#!/usr/bin/env bash
# upstream-diff.sh UPSTREAM_CHECKOUT [diff options]: the fork's patches,
# as one unified diff of internal/engine/minidyn against the upstream commit
# pinned in internal/engine/minidyn/UPSTREAM. It fetches nothing: it needs a local
# checkout (or bare mirror) of truora/minidyn that holds that commit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$here/UPSTREAM"; }
repo=$(field repository)
commit=$(field commit)
tag=$(field tag)
packages=$(field packages)
added=$(field added)
module=$(field module)

upstream=${1:-}
if [ -z "$upstream" ]; then
	cat >&2 <<MSG
make minidyn-diff needs a checkout of $repo that holds commit
$commit ($tag), given as its path, e.g.:
	git clone $repo /tmp/minidyn
	make minidyn-diff MINIDYN_UPSTREAM=/tmp/minidyn
MSG
	exit 2
fi
shift

if ! git -C "$upstream" cat-file -e "$commit^{commit}" 2>/dev/null; then
	echo "minidyn-diff: $upstream is not a git checkout holding $commit ($tag of $repo)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/upstream" "$tmp/fork"
# shellcheck disable=SC2086 # packages is a list of directory names
git -C "$upstream" archive "$commit" $packages | tar -x -C "$tmp/upstream"
# The fork's import path is keyplan's; everything else is compared as is.
grep -rlF "$module" "$tmp/upstream" | xargs -r sed -i "s#$module#github.com/keyplan/keyplan/internal/engine/minidyn#g"
# A package the fork dropped shows as deleted, one it added as new.
for p in $packages $added; do
	if [ -d "$here/$p" ]; then
		cp -R "$here/$p" "$tmp/fork/$p"
	fi
done

echo "# internal/engine/minidyn against $repo $tag ($commit), packages: $packages; added by the fork: $added"
echo "# (import path rewritten; files only in the fork shown as new; keyplan's own"
echo "# files outside these packages: $(cd "$here" && ls -p | grep -v -E "^($(echo "$packages $added" | tr ' ' '|'))/$" | tr '\n' ' '))"
cd "$tmp"
set +o pipefail
# Without the temporary files' timestamps, so two runs print the same.
diff -ruN "$@" upstream fork | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*/\1/'
status=${PIPESTATUS[0]}
# diff exits 1 when the trees differ, which is what this shows.
[ "$status" -le 1 ]
