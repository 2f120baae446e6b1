#!/usr/bin/env bash
# Vendors uPlot from the npm registry into web/static/vendor/uplot, with its
# licence, so that the page works offline and go build needs no npm.
# Usage: web/vendor-uplot.sh [VERSION]
set -euo pipefail
version="${1:-1.6.32}"
dest="$(cd "$(dirname "$0")" && pwd)/static/vendor/uplot"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$version" >/dev/null)
tar -xzf "$tmp"/uplot-"$version".tgz -C "$tmp"
mkdir -p "$dest"
cp "$tmp/package/dist/uPlot.esm.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$dest/"
echo "uplot@$version from the npm registry ($(npm view "uplot@$version" dist.tarball))" > "$dest/VERSION"
