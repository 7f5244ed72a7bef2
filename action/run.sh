#!/usr/bin/env bash
# Runs the suite (or, with MERGE=true, merges the shards' results folders under SHARDS) into OUT, and records its
# exit status instead of failing the step, so that the summary, the comment and the upload still happen; the
# action's last step exits with it. Writes status=, results= and artifact= (the upload's name: a shard's is
# NAME-shard-K-of-N, which the merge job looks for) to GITHUB_OUTPUT.
# Reads: PLUGIN, ARGS, THRESHOLD, MAX_COST_USD, MODELS, SHARD, MERGE, SHARDS, BASELINE, OUT, ARTIFACT_NAME,
# PLUGIN_EVAL.
set -uo pipefail
plugin_eval="${PLUGIN_EVAL:-plugin-eval}"
out="${OUT:?the results folder}"
if [ "${MERGE:-false}" = true ]; then
  shopt -s nullglob
  shards=("${SHARDS:?the shards folder}"/*/)
  if [ ${#shards[@]} -eq 0 ]; then
    # The eval jobs skipped (the path filter) or failed before uploading: their own status says which.
    echo "::notice title=plugin-eval merge::no shard results under $SHARDS: nothing to merge"
    echo "status=0" >>"${GITHUB_OUTPUT:-/dev/null}"
    exit 0
  else
    "$plugin_eval" merge "${shards[@]}" --output-dir "$out"
    status=$?
  fi
else
  command=("$plugin_eval" "${PLUGIN:-.}" --trust-plugin --output-dir "$out")
  [ -z "${THRESHOLD:-}" ] || command+=(--threshold "$THRESHOLD")
  [ -z "${MAX_COST_USD:-}" ] || command+=(--max-cost-usd "$MAX_COST_USD")
  [ -z "${MODELS:-}" ] || command+=(--model "$MODELS")
  [ -z "${SHARD:-}" ] || command+=(--shard "$SHARD")
  # The comparison with the baseline in the session's own summary: one model, unsharded (a sharded suite is
  # compared once, after the merge).
  if [ -z "${SHARD:-}" ] && [[ "${MODELS:-}" != *,* ]] && [ -f "${BASELINE:-}/aggregate-result.json" ]; then
    command+=(--compare-to "$BASELINE")
  fi
  # ARGS as the shell would split them, quotes honoured, nothing expanded.
  if [ -n "${ARGS:-}" ]; then
    mapfile -d '' extra < <(printf '%s' "$ARGS" | xargs printf '%s\0')
    command+=("${extra[@]}")
  fi
  echo "plugin-eval: ${command[*]}"
  "${command[@]}"
  status=$?
fi
artifact="${ARTIFACT_NAME:-plugin-eval}"
[ -z "${SHARD:-}" ] || artifact="$artifact-shard-${SHARD%%/*}-of-${SHARD##*/}"
{
  echo "status=$status"
  echo "results=$out"
  echo "artifact=$artifact"
} >>"${GITHUB_OUTPUT:-/dev/null}"
exit 0
