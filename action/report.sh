#!/usr/bin/env bash
# After the run: the gate against the baseline (FAIL_ON_WORSE), the pull request's comment, and — on the default
# branch — the session's documents laid out as the next baseline (in BASELINE, which the action then caches).
# A comment that cannot be written is a warning: the eval's status stands. Writes status= (and saved=true when
# it laid out a baseline) to GITHUB_OUTPUT.
# Reads: RESULTS, BASELINE, STATUS, MERGE, COMMENT, EVENT_NAME, KEY, BASELINE_NAME, FAIL_ON_WORSE, SAVE_BASELINE,
# PLUGIN_EVAL.
set -uo pipefail
plugin_eval="${PLUGIN_EVAL:-plugin-eval}"
results="${RESULTS:?the results folder}" baseline="${BASELINE:-}" status="${STATUS:-1}"
compare_to=()
if [ -n "$baseline" ] && { [ -f "$baseline/aggregate-result.json" ] || [ -f "$baseline/matrix.json" ]; }; then
  compare_to=(--compare-to "$baseline")
fi
has_results=false
if [ -f "$results/aggregate-result.json" ] || [ -f "$results/matrix.json" ]; then has_results=true; fi

if $has_results && [ "${MERGE:-false}" = true ]; then
  # A merge writes no step summary of its own: the comment's text is one.
  "$plugin_eval" pr-comment "$results" "${compare_to[@]}" --baseline-name "${BASELINE_NAME:-the baseline}" --dry-run \
    >>"${GITHUB_STEP_SUMMARY:-/dev/null}" || true
fi

if $has_results && [ "${FAIL_ON_WORSE:-false}" = true ] && [ ${#compare_to[@]} -gt 0 ] && [ "$status" -eq 0 ]; then
  if ! "$plugin_eval" compare "$baseline" "$results" --fail-on-worse >/dev/null; then
    echo "::error title=plugin-eval: worse than ${BASELINE_NAME:-the baseline}::some case or trigger query got a worse verdict (fail-on-worse)"
    status=1
  fi
fi

case "${EVENT_NAME:-}" in
  pull_request | pull_request_target)
    if $has_results && [ "${COMMENT:-true}" = true ]; then
      key=()
      [ -z "${KEY:-}" ] || key=(--key "$KEY")
      if ! "$plugin_eval" pr-comment "$results" "${compare_to[@]}" "${key[@]}" \
        --baseline-name "${BASELINE_NAME:-the baseline}"; then
        echo "::warning title=plugin-eval: no comment::the pull request comment was not written (the reason is above); the eval's result stands"
      fi
    fi
    ;;
esac

# The next baseline: only a complete session (exit 0 or 1) of the default branch; its documents, not its runs.
if $has_results && [ "${SAVE_BASELINE:-false}" = true ] && [ -n "$baseline" ] && [ "$status" -le 1 ]; then
  rm -rf "$baseline" && mkdir -p "$baseline"
  (cd "$results" && find . -maxdepth 2 \( -name aggregate-result.json -o -name matrix.json \) -print0 |
    xargs -0 -I{} cp --parents {} "$baseline/")
  echo "plugin-eval: kept this session's results as the baseline of the pull requests that follow"
  echo "saved=true" >>"${GITHUB_OUTPUT:-/dev/null}"
fi
echo "status=$status" >>"${GITHUB_OUTPUT:-/dev/null}"
