#!/usr/bin/env bash
# The action's first step, before anything is installed or spent: refuse a fork's pull request, check that a
# credential was given, and skip the eval (saying so) when the pull request changed no file the suite depends on.
# Writes run=true|false to GITHUB_OUTPUT. Reads: EVENT_NAME, REPOSITORY, HEAD_REPOSITORY (the pull request's head
# repository, owner/name), ALLOW_FORK, HAS_API_KEY, HAS_OAUTH_TOKEN ("true"/"false", never the secrets),
# ARGS, PLUGIN, PATHS, BASE_SHA, MERGE.
set -euo pipefail
out="${GITHUB_OUTPUT:-/dev/null}" summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
pull_request=false
case "${EVENT_NAME:-}" in pull_request | pull_request_target) pull_request=true ;; esac

if $pull_request && [ -n "${HEAD_REPOSITORY:-}" ] && [ "$HEAD_REPOSITORY" != "${REPOSITORY:-}" ] \
  && [ "${ALLOW_FORK:-false}" != true ]; then
  message="this pull request comes from a fork ($HEAD_REPOSITORY): its code would run with your credential and spend your plan (and on pull_request GitHub gives a fork's run no secrets). Nothing was run or spent. To evaluate it, a maintainer reviews the change and runs the label-gated pull_request_target workflow of the docs' CI page (allow-fork: true), or pushes the branch to this repository."
  echo "::error title=plugin-eval refused a fork's pull request::$message"
  printf '### plugin-eval: not run\n\n%s\n' "$message" >>"$summary"
  exit 1
fi

if [ "${MERGE:-false}" != true ] && [ "${HAS_API_KEY:-false}" != true ] && [ "${HAS_OAUTH_TOKEN:-false}" != true ] \
  && [[ " ${ARGS:-} " != *" --scripted "* ]]; then
  echo "::error title=plugin-eval has no credential::give the action anthropic-api-key: \${{ secrets.ANTHROPIC_API_KEY }} or claude-code-oauth-token: \${{ secrets.CLAUDE_CODE_OAUTH_TOKEN }} (from claude setup-token); a secret that is not set reads as empty"
  exit 1
fi

# The path filter: pull requests only (a push to the default branch always runs, to keep the baseline fresh).
if $pull_request && [ "${MERGE:-false}" != true ] && [ -n "${BASE_SHA:-}" ]; then
  plugin="${PLUGIN:-.}"
  plugin="${plugin#./}" plugin="${plugin%/}"
  patterns="${PATHS:-}"
  if [ -z "$patterns" ]; then
    if [ -z "$plugin" ] || [ "$plugin" = . ]; then patterns='*'; else patterns="$plugin/*"; fi
  fi
  git fetch --quiet --no-tags --depth=1 origin "$BASE_SHA" 2>/dev/null || true
  if changed="$(git diff --name-only "$BASE_SHA" HEAD 2>/dev/null)"; then
    hit=""
    set -f # the patterns are split on whitespace, never expanded against the checkout's files
    while IFS= read -r file; do
      [ -n "$file" ] || continue
      for pattern in $patterns; do
        # shellcheck disable=SC2053  # a pattern on purpose: `*` matches across folders
        if [[ "$file" == $pattern ]]; then hit="$file" && break 2; fi
      done
    done <<<"$changed"
    set +f
    if [ -z "$hit" ]; then
      message="no file the suite depends on changed (paths: ${patterns//$'\n'/ }): the eval was skipped and nothing was spent"
      echo "::notice title=plugin-eval skipped::$message"
      printf '### plugin-eval: skipped\n\n%s.\n' "$message" >>"$summary"
      echo "run=false" >>"$out"
      exit 0
    fi
    echo "plugin-eval: $hit changed: running the eval"
  else
    echo "plugin-eval: could not list the pull request's changes against $BASE_SHA: running the eval"
  fi
fi
echo "run=true" >>"$out"
