#!/usr/bin/env bash
# Does a change keep what the back-office makes the same, byte for byte? For a move (a
# refactor that must change no behaviour): one record is made once, by the revision BEFORE,
# into a throwaway SQLite database; then each revision, on its own copy of that database,
# rebuilds the read models and writes the regulator's package, the reconciliation (JSON),
# the hold and daily reports (CSV), the master game report and the events (JSON Lines).
# Each pair is compared with cmp; the script exits 1 if any differs.
#
#   bench/same_bytes.sh BEFORE [AFTER]     # revisions; AFTER defaults to this working tree
#
# It prints one line per output: "same" or "DIFFERS" with both files' paths.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
before=${1:?usage: bench/same_bytes.sh BEFORE [AFTER]}
after=${2:-}
python=${PYTHON:-/work/main/.venv/bin/python}
[ -x "$python" ] || python=$top/.venv/bin/python
work=$(mktemp -d "${TMPDIR:-/tmp}/same-bytes.XXXXXX")
cleanup() {
  git -C "$top" worktree remove --force "$work/before" 2>/dev/null || true
  [ -n "$after" ] && git -C "$top" worktree remove --force "$work/after" 2>/dev/null || true
}
trap cleanup EXIT

git -C "$top" worktree add -q --detach "$work/before" "$before"
if [ -n "$after" ]; then
  git -C "$top" worktree add -q --detach "$work/after" "$after"
  after_tree=$work/after
else
  after_tree=$top
fi

# fixed keys and places: both revisions seal, sign and publish alike
export SECRET_KEY="same-bytes-only-$(printf 'k%.0s' {1..50})"
export SEAL_KEY="same-bytes-seal-$(printf 's%.0s' {1..50})"
export DIGEST_SIGNING_KEY=$work/digest-signing-key.pem
export DIGEST_PUBLISHERS=$work/heads
export BLACKJACK_ENGINE=pure DEBUG=true
unset CELERY_BROKER_URL || true

run() {  # run TREE DB manage.py-args...
  local tree=$1 db=$2
  shift 2
  (cd "$tree" && DATABASE_URL="sqlite:///$db" PYTHONPATH="$tree" "$python" manage.py "$@")
}

echo "the record, made by $before ($work)"
run "$work/before" "$work/record.sqlite3" migrate -v 0
run "$work/before" "$work/record.sqlite3" simulate --seed 7 --rounds 60 --live-bets 20 --days 2 --out "$work/days.jsonl" >/dev/null
run "$work/before" "$work/record.sqlite3" ingest "$work/days.jsonl" >/dev/null
run "$work/before" "$work/record.sqlite3" catch_up >/dev/null
run "$work/before" "$work/record.sqlite3" digest >/dev/null

outputs() {  # outputs TREE NAME: every output of TREE on its own copy of the record
  local tree=$1 name=$2 db=$work/$2.sqlite3 out=$work/out-$2
  cp "$work/record.sqlite3" "$db"
  mkdir -p "$out"
  run "$tree" "$db" rebuild_projections >/dev/null || true
  run "$tree" "$db" export_package --day 2026-11-29 --to 2026-11-30 --out "$out/package.zip" >/dev/null
  run "$tree" "$db" reconcile --day 2026-11-29 --json >"$out/reconcile-2026-11-29.json" || true
  run "$tree" "$db" reconcile --day 2026-11-30 --json >"$out/reconcile-2026-11-30.json" || true
  run "$tree" "$db" report hold --from 2026-11-29 --to 2026-11-30 --csv >"$out/hold.csv"
  run "$tree" "$db" report daily --from 2026-11-29 --to 2026-11-30 --csv >"$out/daily.csv" 2>/dev/null || true
  run "$tree" "$db" report master-game --day 2026-11-29 --csv >"$out/master-game.csv" 2>/dev/null || true
  run "$tree" "$db" export_events --out "$out/events.jsonl" >/dev/null
}
outputs "$work/before" before
outputs "$after_tree" after

status=0
for file in "$work"/out-before/*; do
  name=$(basename "$file")
  if cmp -s "$file" "$work/out-after/$name"; then
    printf 'same     %s (%s bytes)\n' "$name" "$(wc -c <"$file")"
  else
    printf 'DIFFERS  %s: %s %s\n' "$name" "$file" "$work/out-after/$name"
    status=1
  fi
done
exit $status
