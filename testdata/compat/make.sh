#!/bin/sh
# Rebuilds the compatibility corpus (README.md): each artifact written by
# the keyplan of an earlier commit, as a user of that version did.
#
#   testdata/compat/make.sh OUT
#
# builds keyplan at each commit below in a git worktree outside the
# repository (/tmp/old-COMMIT), writes the artifacts into OUT/COMMIT/...,
# and leaves the worktrees for a second run. Copy OUT's directories over
# testdata/compat/ to refresh the corpus (the files are then what those
# versions wrote; this script is how).
set -eu
out=$(cd "${1:?usage: make.sh OUT}" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
here=$repo/testdata/compat

build() { # commit → path of its keyplan binary
	if [ ! -x "/tmp/kp-$1" ]; then
		[ -d "/tmp/old-$1" ] || git -C "$repo" worktree add --detach "/tmp/old-$1" "$1" >/dev/null
		(cd "/tmp/old-$1" && go build -o "/tmp/kp-$1" ./cmd/keyplan)
	fi
	echo "/tmp/kp-$1"
}

# model COMMIT DIR NAME: the model NAME.yaml of the corpus's models/ as
# that commit's users wrote it, in OUT/COMMIT/DIR.
model() {
	mkdir -p "$out/$1/$2"
	cp "$here/models/$3.yaml" "$out/$1/$2/$3.yaml"
	echo "$out/$1/$2/$3.yaml"
}

# edit FILE OLD NEW: replace the line OLD by NEW (a model edit).
edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1:]
s = open(path).read()
if old not in s:
    sys.exit("edit: %r not in %s" % (old, path))
open(path, "w").write(s.replace(old, new, 1))
PY
}

# 49c3aed (2026-11-22): before the nested-collection prefix fix (bcbd7ff,
# on main with 33c98f5): TaskWithComments is a begins_with prefix read
# that returns task t10's comments for t1; Reaction's designed base key
# holds its immutable reactedAt (before a2f10b9); generated code embeds
# the design; lock format 1.
kp=$(build 49c3aed)
m=$(model 49c3aed projecthub projecthub)
(cd "$(dirname "$m")" && $kp validate projecthub.yaml && $kp lock projecthub.yaml && $kp gen go projecthub.yaml --package hubdb --out hubdb)
# A migration started: two new GSIs on Task, the second phase without a
# backfill (before ce6e3e6 every new GSI's phase backfilled its entities).
m=$(model 49c3aed migrating projecthub)
(cd "$(dirname "$m")" && $kp lock projecthub.yaml)
edit "$m" "  TasksByStatus: {query: Task, where: [tenantId, status], returns: [title]}" \
"  TasksByStatus: {query: Task, where: [tenantId, status], returns: [title]}
  TasksByTitle: {query: Task, where: [title]}
  TasksByEstimate: {query: Task, where: [estimate]}"
(cd "$(dirname "$m")" && $kp lock projecthub.yaml)
# A hand-made layout whose base key holds an attribute beside the id,
# which KP104 refuses since a2f10b9.
m=$(model 49c3aed photos photos)
(cd "$(dirname "$m")" && $kp check photos.yaml && $kp lock photos.yaml)
# An example value with a decimal in a plain number, which check passed.
m=$(model 49c3aed decimal ledger)
(cd "$(dirname "$m")" && $kp check ledger.yaml && $kp validate ledger.yaml && $kp lock ledger.yaml)

# 3b50108 (2026-11-24 02:05): the last main before the prefix fix; gen
# go embeds the lock (its requests), fails: wordings of 3df626b.
kp=$(build 3b50108)
m=$(model 3b50108 projecthub projecthub-3b50108)
mv "$m" "$(dirname "$m")/projecthub.yaml"
m=$(dirname "$m")/projecthub.yaml
(cd "$(dirname "$m")" && $kp validate projecthub.yaml && $kp lock projecthub.yaml && $kp gen go projecthub.yaml --package hubdb --out hubdb)

# 6828c90 (2026-11-24 02:48, branch cleanup): the first lock with a
# cleanup record, which had no designs before (cleanup.before, 184e6d1).
kp=$(build 6828c90)
m=$(model 6828c90 cleanup shop)
(cd "$(dirname "$m")" && $kp lock shop.yaml)
edit "$m" "  OrdersByStatus: {query: Order, where: [status], sort: placedAt}
" ""
(cd "$(dirname "$m")" && $kp lock shop.yaml)

# 4f20f45 (2026-11-24 06:13): main before lock format 2: a cleanup with
# its designs before, a migration started and the code generated with it
# (the rollout runtime), fails: wordings of a1fb4d3.
kp=$(build 4f20f45)
m=$(model 4f20f45 cleanup shop-4f20f45)
mv "$m" "$(dirname "$m")/shop.yaml"
m=$(dirname "$m")/shop.yaml
(cd "$(dirname "$m")" && $kp lock shop.yaml)
edit "$m" "  OrdersByStatus: {query: Order, where: [status], sort: placedAt}
" ""
(cd "$(dirname "$m")" && $kp lock shop.yaml)
m=$(model 4f20f45 migrating projecthub-4f20f45)
mv "$m" "$(dirname "$m")/projecthub.yaml"
m=$(dirname "$m")/projecthub.yaml
(cd "$(dirname "$m")" && $kp validate projecthub.yaml && $kp lock projecthub.yaml)
edit "$m" "  TasksByStatus: {query: Task, where: [tenantId, status], returns: [title]}" \
"  TasksByStatus: {query: Task, where: [tenantId, status], returns: [title]}
  TasksByTitle: {query: Task, where: [title]}"
(cd "$(dirname "$m")" && $kp lock projecthub.yaml && $kp gen go projecthub.yaml --package hubdb --out hubdb)
