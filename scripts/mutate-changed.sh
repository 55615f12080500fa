#!/usr/bin/env bash
# Mutation testing of the files a change touched: every src/core and src/sync file (and
# src/webhooks/verify.ts) that differs between MUTATE_BASE (default: the parent of HEAD) and HEAD,
# each under the 90 % floor of stryker.config.mjs. Files without logic (models, the mirror's types
# and entry point) are left out, as in stryker.config.mjs. The whole core takes 30 to 50 minutes on
# two cores, too long for every CI run; `npm run mutate` runs all of it.
#
#   scripts/mutate-changed.sh                    files changed by the last commit
#   MUTATE_BASE=origin/main scripts/mutate-changed.sh   files changed on a branch
set -euo pipefail
cd "$(dirname "$0")/.."
base=${MUTATE_BASE:-HEAD~1}
if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
  echo "mutate-changed: no commit $base to compare with; nothing to mutate"
  exit 0
fi
mapfile -t files < <(git diff --name-only --diff-filter=AM "$base" HEAD -- \
  'src/core/*.ts' 'src/core/**/*.ts' 'src/sync/*.ts' 'src/sync/**/*.ts' src/webhooks/verify.ts |
  grep -Ev '^src/(core/models|sync/types|sync/index)\.ts$' || true)
if [ ${#files[@]} -eq 0 ]; then
  echo "mutate-changed: no core or sync file changed since $base"
  exit 0
fi
for file in "${files[@]}"; do
  echo "mutate-changed: $file"
  case "$file" in
    # The PostgreSQL store's files are tested against a real server, started once for the run
    # (the same globs as the mutate list of stryker.postgres.config.mjs).
    src/sync/stores/postgres*.ts | src/sync/stores/pg-*.ts | src/sync/stores/order-postgres.ts)
      npx --no stryker run stryker.postgres.config.mjs --mutate "$file" ;;
    *) npx --no stryker run --mutate "$file" ;;
  esac
done
