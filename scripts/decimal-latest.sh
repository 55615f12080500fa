#!/usr/bin/env bash
# Runs the decimal-text property test against the newest decimal.js 10.x on the registry as well
# as the locked one. fromDecimalText builds decimal.js's internal form (sign, exponent, base-1e7
# digit words) directly, so a decimal.js release that changes that form must fail here before a
# partner installs it under our "^10" range. Needs only the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
test_file=test/client/money/decimal-text.property.test.ts

locked=$(node -p 'require("decimal.js/package.json").version')
echo "decimal.js locked: $locked"
npx vitest run "$test_file"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp" --no-save --no-audit --no-fund --no-package-lock --ignore-scripts \
  'decimal.js@10' >/dev/null
newest=$(node -p "require('$tmp/node_modules/decimal.js/package.json').version")
echo "decimal.js newest 10.x: $newest"
DECIMAL_JS_DIR="$tmp/node_modules/decimal.js" \
  npx vitest run --config scripts/vitest.decimal-latest.config.ts "$test_file"
