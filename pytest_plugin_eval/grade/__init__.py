"""Judging a run: the grader types and the texts they read, the LLM judge, the engine that applies a case's
graders in an arm, and the same graders as assertion helpers."""
